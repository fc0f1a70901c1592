"""Closest-epoch rows (``tables.*.closest_epochs``): the epoch closest to the paper's row on validation is chosen
without the test set, its kept checkpoint decoded and scored as an extra row. Distances are worked by hand from
CopyNet Table 1's Enc-Dec row (x → ∅ 100, x → x 3.3, x → xx 1.5, xy → x 2.9, xy → xy 0.0)."""

import itertools
import json
from pathlib import Path

import pytest

from paragen.config import ConfigError, load_config, parse_config

from conftest import TINY_PARAMS

HEADER = ("epoch,train_loss,valid_loss,valid_metric,wall_time_s,tokens_per_s,valid_em_x_to_0,valid_em_x_to_x,"
          "valid_em_x_to_xx,valid_em_xy_to_x,valid_em_xy_to_xy")
LOG = [
    # epoch 1: |90-100| + |10-3.3| + |10-1.5| + |10-2.9| + |10-0| = 10 + 6.7 + 8.5 + 7.1 + 10 = 42.3 -> 8.46
    "1,1,1,20.0,1,1,90,10,10,10,10",
    # epoch 2: 0 + 1 + 1 + 1 + 1 = 4 -> 0.8 (closest)
    "2,1,1,25.0,1,1,100,4.3,2.5,3.9,1.0",
    # epoch 3 (best validation, selected): 0 + 46.7 + 48.5 + 47.1 + 50 = 192.3 -> 38.46
    "3,1,1,60.0,1,1,100,50,50,50,50",
]


def _config(closest=("Enc-Dec",), keep="all"):
    raw = load_config(TINY_PARAMS).model_dump(exclude_unset=True)
    raw["tables"]["copynet_synthetic"]["closest_epochs"] = list(closest)
    if keep is not None:
        raw["training"]["tiny"]["keep_epochs"] = keep
    return parse_config(raw, "tiny")


def _run(tmp_path: Path, kept=(1, 2, 3)) -> None:
    run = tmp_path / "runs" / "t_encdec"
    (run / "epochs").mkdir(parents=True)
    (run / "train_log.csv").write_text("\n".join([HEADER] + LOG) + "\n")
    for epoch in kept:
        (run / "epochs" / f"epoch{epoch}.pt").write_text("weights")


def test_the_closest_epoch_is_chosen_on_validation_against_the_papers_row(tmp_path, monkeypatch):
    from paragen.training.closest_choice import choose

    monkeypatch.chdir(tmp_path)
    _run(tmp_path)
    choice = choose(_config(), "copynet_synthetic", "t_encdec")
    assert (choice["epoch"], choice["selected_epoch"], choice["epochs_run"]) == (2, 3, 3)
    assert choice["distance"] == pytest.approx(0.8) and choice["selected_distance"] == pytest.approx(38.46)
    assert choice["checkpoint"] == "runs/t_encdec/epochs/epoch2.pt" and choice["row"] == "Enc-Dec"


def test_a_closest_epoch_whose_weights_were_not_kept_is_named(tmp_path, monkeypatch):
    from paragen.training.closest_choice import choose

    monkeypatch.chdir(tmp_path)
    _run(tmp_path, kept=(3,))
    with pytest.raises(FileNotFoundError, match=r"epoch2\.pt: epoch 2 is closest to the paper's Enc-Dec row but its "
                                                r"weights were not kept \(training\.tiny\.keep_epochs\)"):
        choose(_config(), "copynet_synthetic", "t_encdec")


@pytest.mark.parametrize("closest, keep, message", [
    (("WEAN",), "all", r"the paper has no row 'WEAN'"),
    (("Enc-Dec",), None, r"'Enc-Dec' needs its epochs' weights: set training\.tiny\.keep_epochs"),
    (("Nope",), "all", r"'Nope' is not a trained row of the table"),
])
def test_closest_epoch_rows_need_a_paper_row_and_kept_weights(closest, keep, message):
    with pytest.raises(ConfigError, match=message):
        _config(closest, keep)


def test_the_dag_decodes_and_scores_each_closest_epoch_and_the_report_reads_them():
    from paragen.pipeline.plan import build_plan

    plan = build_plan(_config())
    stages = {s.name: s for s in plan.stages}
    decode = stages["closest_t_encdec"]
    assert "--closest-to copynet_synthetic" in decode.cmd and "runs/t_encdec/epochs" in decode.deps
    assert set(decode.outs) == {"runs/t_encdec/closest/test.hyp", "runs/t_encdec/closest/test.nbest.jsonl",
                                "results/metrics/t_encdec.closest_epoch.json"}
    assert stages["score_t_encdec_closest"].outs == ("results/metrics/t_encdec.closest.json",)
    assert {"results/metrics/t_encdec.closest.json", "results/metrics/t_encdec.closest_epoch.json"} \
        <= set(stages["report_copynet_synthetic"].deps)
    table = plan.tables["copynet_synthetic"]
    assert table.paper.rows["Enc-Dec, closest epoch"] == table.paper.rows["Enc-Dec"]  # compared with that row


def test_the_caption_names_each_closest_rows_epoch(tmp_path, monkeypatch):
    """Rounded half up: 0.85 -> 0.9, 38.45 -> 38.5."""
    from paragen.pipeline.tables import table_plan
    from paragen.report.build import closest_rows_text

    monkeypatch.chdir(tmp_path)
    config = _config()
    path = tmp_path / "results" / "metrics" / "t_encdec.closest_epoch.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"epoch": 2, "distance": 0.85, "selected_epoch": 3, "selected_distance": 38.45,
                                "epochs_run": 3}))
    assert closest_rows_text(table_plan(config, "copynet_synthetic")) == (
        " Rows \"closest epoch\": the checkpoint of the epoch closest to the paper's row on validation, decoded on "
        "the test set with the row's beam (the test set played no part in the choice): Enc-Dec, closest epoch: "
        "epoch 2 of 3 (0.9, 38.5 at the selected epoch 3).")


def test_decode_closest_to_writes_the_chosen_epochs_outputs_beside_the_run(tmp_path, monkeypatch):
    """The real commands on the tiny rule data: generate, vocab, train two epochs keeping both, then
    `paragen decode --closest-to`: the choice names an epoch whose checkpoint exists, the outputs go to
    runs/t_encdec/closest/, one line per test source, and the run's own test.hyp is not written."""
    import yaml

    from paragen.cli.main import main

    raw = yaml.safe_load(TINY_PARAMS.read_text())
    raw["training"]["tiny"].update(max_epochs=2, keep_epochs="all")
    raw["tables"]["copynet_synthetic"]["closest_epochs"] = ["Enc-Dec"]
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(raw))
    monkeypatch.chdir(tmp_path)
    for argv in (["generate", "--dataset", "tiny"], ["vocab", "--dataset", "tiny"],
                 ["train", "--experiment", "t_encdec", "--quiet"],
                 ["decode", "--experiment", "t_encdec", "--closest-to", "copynet_synthetic", "--quiet"]):
        main(argv)
    choice = json.loads(Path("results/metrics/t_encdec.closest_epoch.json").read_text())
    assert choice["epoch"] in (1, 2) and Path(choice["checkpoint"]).exists() and choice["epochs_run"] == 2
    sources = Path("data/prepared/tiny/test.src").read_text().splitlines()
    assert len(Path("runs/t_encdec/closest/test.hyp").read_text().splitlines()) == len(sources)
    assert not Path("runs/t_encdec/test.hyp").exists()


def _retrain_config(**changes):
    """The row Enc-Dec (t_encdec, whose run keeps no epochs) with its closest-epoch row from t_encdec_again: the
    same experiment trained again, keeping every epoch, for at most 3 epochs."""
    raw = load_config(TINY_PARAMS).model_dump(exclude_unset=True)
    raw["training"]["tiny_kept"] = {**raw["training"]["tiny"], "max_epochs": 3, "keep_epochs": "all", "threads": 2}
    raw["decoding"]["beam3_too"] = dict(raw["decoding"]["beam3"])  # the same settings under another name
    raw["experiments"]["t_encdec_again"] = {**raw["experiments"]["t_encdec"], "training": "tiny_kept", **changes}
    raw["tables"]["copynet_synthetic"].update(closest_epochs=["Enc-Dec"], closest_runs={"Enc-Dec": "t_encdec_again"})
    return parse_config(raw, "tiny")


def test_a_closest_row_can_come_from_a_shorter_retrain_that_kept_its_epochs(tmp_path, monkeypatch):
    """The choice reads the retrain's own log and checkpoints (LOG above: epoch 2 closest, 3 selected) and says whose
    retrain it is and how long it trained (3 epochs of 1 s each: 0.05 min)."""
    from paragen.training.closest_choice import choose

    monkeypatch.chdir(tmp_path)
    _run(tmp_path)
    (tmp_path / "runs" / "t_encdec").rename(tmp_path / "runs" / "t_encdec_again")
    config = _retrain_config()
    choice = choose(config, "copynet_synthetic", "t_encdec_again")
    assert (choice["epoch"], choice["row"], choice["retrain_of"]) == (2, "Enc-Dec", "t_encdec")
    assert choice["checkpoint"] == "runs/t_encdec_again/epochs/epoch2.pt"
    assert choice["training_minutes"] == pytest.approx(3 / 60)
    with pytest.raises(ConfigError, match=r"t_encdec is not a row of its closest_epochs"):
        choose(config, "copynet_synthetic", "t_encdec")  # the row's own run is not the one decoded


def test_the_dag_trains_the_retrain_and_decodes_it_not_the_rows_own_run():
    from paragen.pipeline.plan import build_plan

    config = _retrain_config()
    assert "t_encdec_again" in config.active_experiments()
    stages = {s.name: s for s in build_plan(config).stages}
    assert "train_t_encdec_again" in stages and "closest_t_encdec" not in stages
    # trained only: no table shows its selected checkpoint, so neither engine decodes or scores it whole
    assert not [name for name in stages if name.startswith(("decode_t_encdec_again", "score_t_encdec_again"))
                and not name.endswith("_closest")]
    assert "tables.copynet_synthetic.closest_runs" in stages["closest_t_encdec_again"].params
    assert "runs/t_encdec_again/epochs" in stages["closest_t_encdec_again"].deps
    assert "results/metrics/t_encdec_again.closest.json" in stages["report_copynet_synthetic"].deps


@pytest.mark.parametrize("changes, message", [
    ({"model": "copynet"}, r"t_encdec_again differs from the row's experiment t_encdec in \['model'\]"),
    ({"decoding": "beam3_too"}, r"differs from the row's experiment t_encdec in \['decoding'\]"),
])
def test_a_retrain_must_be_the_rows_experiment_trained_again(changes, message):
    with pytest.raises(ConfigError, match=message):
        _retrain_config(**changes)


def test_a_retrain_with_other_training_settings_is_refused():
    raw = load_config(TINY_PARAMS).model_dump(exclude_unset=True)
    raw["training"]["tiny_kept"] = {**raw["training"]["tiny"], "keep_epochs": "all", "learning_rate": 0.5}
    raw["experiments"]["t_encdec_again"] = {**raw["experiments"]["t_encdec"], "training": "tiny_kept"}
    raw["tables"]["copynet_synthetic"].update(closest_epochs=["Enc-Dec"], closest_runs={"Enc-Dec": "t_encdec_again"})
    with pytest.raises(ConfigError, match=r"closest_runs\.Enc-Dec: t_encdec_again differs from the row's experiment "
                                          r"t_encdec in \['training\.learning_rate'\]; only max_epochs, patience, keep_epochs"):
        parse_config(raw, "tiny")
    raw["tables"]["copynet_synthetic"].update(closest_epochs=[], closest_runs={"Enc-Dec": "t_encdec_again"})
    with pytest.raises(ConfigError, match=r"closest_runs: \['Enc-Dec'\] are not rows of closest_epochs"):
        parse_config(raw, "tiny")


def test_the_caption_says_a_closest_row_comes_from_a_retrain(tmp_path, monkeypatch):
    from paragen.pipeline.tables import table_plan
    from paragen.report.build import closest_rows_text

    monkeypatch.chdir(tmp_path)
    path = tmp_path / "results" / "metrics" / "t_encdec_again.closest_epoch.json"
    path.parent.mkdir(parents=True)
    choice = {"epoch": 2, "distance": 0.85, "selected_epoch": 3, "selected_distance": 38.45, "epochs_run": 3,
              "retrain_of": "t_encdec", "training_minutes": 44.6}
    path.write_text(json.dumps(choice))
    plan = table_plan(_retrain_config(), "copynet_synthetic")
    assert closest_rows_text(plan).endswith(
        "Enc-Dec, closest epoch: epoch 2 of 3 of t_encdec_again: t_encdec trained again for 3 epochs, keeping every "
        "epoch's weights, as its own run kept none (45 min of training and validation; its trajectory may differ "
        "from the full run's where the code or the threads differ) (0.9, 38.5 at the retrain's best epoch 3).")
    path.write_text(json.dumps({**choice, "epoch": 3, "distance": 38.45}))  # the window's end
    assert closest_rows_text(plan).endswith("(38.5, 38.5 at the retrain's best epoch 3; its last epoch, so the "
                                            "paper's row may lie later and this row does not test how long the "
                                            "paper trained).")


def test_a_retrain_with_another_seed_or_gpu_count_is_refused():
    with pytest.raises(ConfigError, match=r"differs from the row's experiment t_encdec in \['seed'\]"):
        _retrain_config(seed=7)
    with pytest.raises(ConfigError, match=r"differs from the row's experiment t_encdec in \['gpus'\]"):
        _retrain_config(gpus=2)
    assert _retrain_config(seed=1).experiments["t_encdec_again"].seed == 1  # training.tiny.seed is 1: the same seed


@pytest.mark.parametrize("nbest,ks", [(1, ["1"]), (3, ["1"]), (5, ["1", "5"]), (10, ["1", "5", "10"])])
def test_each_score_stage_asks_for_the_top_k_its_decoding_keeps(nbest, ks):
    """A decode keeping `nbest` hypotheses a line is scored for top-1, -5, -10 only up to `nbest`: both the run's own
    score stage and its closest epoch's."""
    import shlex

    from paragen.pipeline.plan import build_plan

    raw = _config().model_dump(exclude_unset=True)
    raw["decoding"]["beam3"].update(beam_size=max(nbest, 3), nbest=nbest)
    stages = {s.name: s for s in build_plan(parse_config(raw, "tiny")).stages}
    for name in ("score_t_encdec", "score_t_encdec_closest"):
        argv = shlex.split(stages[name].cmd)
        start = argv.index("--topk") + 1
        given = list(itertools.takewhile(lambda word: not word.startswith("--"), argv[start:]))
        assert given == ks, name
