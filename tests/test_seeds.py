"""Seeds: replicas of trained rows, mean ± sd cells with per-seed CSV values, curve bands, and the paired bootstrap
comparisons shown under tables. Expected numbers are worked out by hand in the comments."""

import csv
import io
import json
from pathlib import Path

import pytest

from paragen.config import ConfigError, load_config, parse_config
from paragen.config.papers import PaperTable
from paragen.report.render import to_csv, to_latex, to_markdown
from paragen.report.tables import SeedRun, fill_table

from conftest import ROOT, TINY_PARAMS


def _config(seeds=None, scale=None, **extra):
    raw = load_config(TINY_PARAMS).model_dump(exclude_unset=True)
    if seeds is not None:
        raw["seeds"] = seeds
    if scale is not None:
        raw["scale"] = scale
    raw.update(extra)
    return parse_config(raw, "tiny")


def test_one_seed_by_default_three_at_paper_scale_and_as_many_as_asked():
    assert _config().seed_count == 1
    assert _config(scale="paper").seed_count == 3
    assert _config(seeds=2, scale="paper").seed_count == 2
    assert _config().active_experiments() == ["t_encdec", "t_copynet", "t_wean"]


def test_replicas_follow_the_training_seed_and_keep_the_first_runs_paths():
    from paragen.artifacts import run_dir
    from paragen.config.seeds import replica_seeds, replicas

    config = _config(seeds=3)  # tiny's training seed is 1
    assert replicas(config, "t_copynet") == ["t_copynet", "t_copynet_seed2", "t_copynet_seed3"]
    assert replica_seeds(config, "t_copynet") == [1, 2, 3]
    assert [config.training_of(r).seed for r in replicas(config, "t_copynet")] == [1, 2, 3]
    assert config.training["tiny"].seed == 1  # the shared training settings are untouched
    assert run_dir("t_copynet") == "runs/t_copynet"  # seed 1 is the single-seed run: nothing to retrain
    assert config.active_experiments()[:3] == ["t_encdec", "t_encdec_seed2", "t_encdec_seed3"]
    assert replicas(_config(seeds=3), "not_an_experiment") == ["not_an_experiment"]


def test_a_replica_name_resolves_whatever_seeds_says_and_a_clash_is_refused():
    from paragen.config.seeds import with_replica

    config = _config()  # one seed: no replica declared
    assert "t_wean_seed7" not in config.experiments
    resolved = with_replica(config, "t_wean_seed7")
    assert resolved.experiments["t_wean_seed7"].seed == 7 and resolved.training_of("t_wean_seed7").seed == 7
    assert "t_wean_seed7" not in config.experiments  # the original config is not changed
    assert with_replica(config, "nothing_seed2") is config  # unknown base: the caller names the known ones
    raw = load_config(TINY_PARAMS).model_dump(exclude_unset=True)
    raw["seeds"] = 2
    raw["experiments"]["t_wean_seed2"] = dict(raw["experiments"]["t_encdec"])
    with pytest.raises(ConfigError, match="t_wean_seed2: the name of the seed-2 replica of t_wean is taken"):
        parse_config(raw, "tiny")


def test_mean_and_sample_sd():
    from paragen.config.seeds import mean_sd

    assert mean_sd([90.0, 92.0, 94.0]) == (92.0, 2.0)  # deviations -2, 0, 2: sqrt(8 / 2) = 2
    assert mean_sd([1.0, 2.0]) == (1.5, pytest.approx(0.7071067811865476))  # sqrt(0.5 / 1)
    assert mean_sd([5.0]) == (5.0, None)


def _metrics(path: Path, by_tag: dict) -> Path:
    path.write_text(json.dumps({"metric": "exact", "count": 10, "by_tag": {k: {"top1": v} for k, v in by_tag.items()}}))
    return path


def _seed_runs(tmp_path, values: dict[int, float | None]) -> list[SeedRun]:
    runs = []
    for seed, value in values.items():
        path = tmp_path / f"s{seed}.json"
        if value is not None:
            _metrics(path, {"x->0": value, "x->x": 50.0 + seed})
        runs.append(SeedRun(seed, path))
    return runs


def test_cells_over_seeds_show_mean_and_sd_and_the_csv_each_seed(tmp_path):
    paper = PaperTable.load("copynet_table1")  # CopyNet x->0: 97.3
    runs = _seed_runs(tmp_path, {1: 90.0, 2: 92.0, 3: 94.0})
    table = fill_table("t", "Title", "Caption.", paper, {"CopyNet": runs})
    cell = table.cells[("CopyNet", "x->0")]
    assert (cell.reproduced, cell.sd, cell.per_seed) == (92.0, 2.0, ((1, 90.0), (2, 92.0), (3, 94.0)))
    assert round(cell.difference, 1) == -5.3  # 92.0 - 97.3
    md = to_markdown(table)
    assert "| CopyNet | 97.3 / 92.0 ± 2.0 (-5.3) | 93.7 / 52.0 ± 1.0 (-41.7) |" in md  # x->x: 51, 52, 53
    assert "mean ± sample sd over them (per-seed values in the CSV)" in md
    assert r"97.3 / 92.0 $\pm$ 2.0 (-5.3)" in to_latex(table)
    rows = {r["column"]: r for r in csv.DictReader(io.StringIO(to_csv(table))) if r["row"] == "CopyNet"}
    assert (rows["x->0"]["reproduced"], rows["x->0"]["sd"]) == ("92.0", "2.0")
    assert (rows["x->0"]["seeds"], rows["x->0"]["per_seed"]) == ("1;2;3", "90.0;92.0;94.0")
    assert rows["xy->x"]["reproduced"] == "" and "by_tag/xy->x/top1 absent from" in rows["xy->x"]["note"]


def test_a_missing_seed_leaves_the_cell_empty_rather_than_averaging_the_others(tmp_path):
    paper = PaperTable.load("copynet_table1")
    table = fill_table("t", "Title", "Caption.", paper, {"CopyNet": _seed_runs(tmp_path, {1: 90.0, 2: None})})
    cell = table.cells[("CopyNet", "x->0")]
    assert cell.reproduced is None and f"not yet run ({tmp_path / 's2.json'} missing)" in cell.note
    assert "sd" not in to_csv(table).splitlines()[0]  # no seeded cell: the single-seed columns only


def test_single_run_tables_keep_their_columns(tmp_path):
    paper = PaperTable.load("copynet_table1")
    table = fill_table("t", "T", "C.", paper, {"CopyNet": _metrics(tmp_path / "c.json", {"x->0": 90.0})})
    assert to_csv(table).splitlines()[0] == ("table,row,column,unit,paper,reproduced,difference,note,best_epoch,"
                                             "epochs_run,hit_epoch_cap")
    assert "±" not in to_markdown(table)


def test_epoch_band_is_mean_and_sd_over_the_runs_that_reached_each_epoch():
    from paragen.report.figure_curves import epoch_band

    logs = [[{"epoch": 1.0, "m": 10.0}, {"epoch": 2.0, "m": 20.0}, {"epoch": 3.0, "m": 30.0}],
            [{"epoch": 1.0, "m": 14.0}, {"epoch": 2.0, "m": 22.0}]]  # stopped early after epoch 2
    band = epoch_band(logs, "m")
    assert band.epochs == [1.0, 2.0, 3.0] and band.means == [12.0, 21.0, 30.0] and band.runs == [2, 2, 1]
    assert band.sds[:2] == [pytest.approx(2 ** 0.5 * 2), pytest.approx(2 ** 0.5)]  # |10-14|/sqrt 2, |20-22|/sqrt 2
    assert band.sds[2] != band.sds[2]  # one run: no spread (NaN, drawn as a gap)


def _seed_logs(tmp_path, runs: tuple[tuple[float, ...], ...]) -> list:
    """One train_log.csv per seed run, its validation metric per epoch."""
    logs = []
    for seed, values in enumerate(runs, start=1):
        path = tmp_path / f"log{seed}.csv"
        path.write_text("epoch,valid_metric\n" + "".join(f"{e},{v}\n" for e, v in enumerate(values, start=1)))
        logs.append(path)
    return logs


def test_curves_of_seeded_rows_draw_each_seed_and_their_mean_where_every_seed_ran(tmp_path):
    from paragen.report.figure_curves import curves_figure

    # seed 2 stops after epoch 2: the mean is drawn over epochs 1-2 only (12, 21), each seed in full
    logs = _seed_logs(tmp_path, ((10.0, 20.0, 50.0), (14.0, 22.0)))
    fig = curves_figure({"CopyNet": logs}, "acc", "title")
    lines = fig.axes[0].lines
    assert [list(line.get_ydata()) for line in lines] == [[10.0, 20.0, 50.0], [14.0, 22.0], [12.0, 21.0]]
    assert [line.get_label() for line in lines][-1] == "CopyNet (2 seeds)"
    assert list(lines[-1].get_xdata()) == [1.0, 2.0]


def test_seeded_dag_trains_each_replica_and_reports_over_them():
    from paragen.pipeline.dvc import dvc_plots
    from paragen.pipeline.plan import build_plan, stages

    all_stages = {s.name: s for s in stages(_config(seeds=2))}
    assert {"train_t_copynet", "train_t_copynet_seed2", "decode_t_copynet_seed2", "score_t_copynet_seed2"} \
        <= set(all_stages)
    assert "--experiment t_copynet_seed2" in all_stages["train_t_copynet_seed2"].cmd
    report = all_stages["report_copynet_synthetic"]
    assert report.cmd.endswith("--seeds 2")
    assert {"results/metrics/t_wean_seed2.json", "runs/t_wean_seed2/train_log.csv",
            "results/metrics/t_copynet_seed2.vs.t_encdec_seed2.json"} <= set(report.deps)
    assert {all_stages[n].cmd.split("--out ")[1] for n in all_stages if n.startswith("compare_")} == \
        {"results/metrics/t_copynet.vs.t_encdec.json", "results/metrics/t_copynet_seed2.vs.t_encdec_seed2.json"}
    (plot,) = dvc_plots(build_plan(_config(seeds=2)))  # one plot: the table's rows with every seed, no plot per replica
    assert set(plot["copynet_synthetic_valid_curves"]["y"]) == {
        f"runs/{e}/train_log.csv" for e in ("t_encdec", "t_encdec_seed2", "t_copynet", "t_copynet_seed2",
                                            "t_wean", "t_wean_seed2")}
    single = {s.name: s for s in stages(_config())}
    assert not single["report_copynet_synthetic"].cmd.endswith("--seeds 1") and "train_t_copynet_seed2" not in single


def _comparison_file(path: Path, p_value: float, a: float, b: float, samples: int = 1000) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"splits": {"test": {"score_a": a, "score_b": b, "delta": b - a, "p_value": p_value,
                                                    "samples": samples, "on": "exact"}}}))


def test_comparison_lines_give_each_seeds_scores_difference_and_p(tmp_path, monkeypatch):
    from paragen.pipeline.tables import table_plan
    from paragen.report.comparisons import comparison_lines

    monkeypatch.chdir(tmp_path)
    config = _config(seeds=2)
    _comparison_file(tmp_path / "results/metrics/t_copynet.vs.t_encdec.json", 0.0, 40.0, 55.5)
    _comparison_file(tmp_path / "results/metrics/t_copynet_seed2.vs.t_encdec_seed2.json", 0.123, 50.0, 51.0)
    (line,) = comparison_lines(config, table_plan(config, "copynet_synthetic"))
    assert line == ("CopyNet vs Enc-Dec (200 resamples of the test sentences — lines, not rules: the lines of one "
                    "rule are not independent, so this p overstates the evidence (the comparison predates rule "
                    "resampling; rerun it to resample rules); score of CopyNet vs Enc-Dec): exact "
                    "match on test: 55.5 vs 40.0 (+15.5), p = 0.001 (0 of 1,000 resamples: the smallest p they "
                    "can show) (seed 1); "
                    "51.0 vs 50.0 (+1.0), "
                    "p = 0.123 "
                    "(seed 2). CopyNet is better at p < 0.05 in 1 of 2 tests.")
    (tmp_path / "results/metrics/t_copynet_seed2.vs.t_encdec_seed2.json").unlink()
    assert comparison_lines(config, table_plan(config, "copynet_synthetic")) == [
        "CopyNet vs Enc-Dec: not yet run (results/metrics/t_copynet_seed2.vs.t_encdec_seed2.json missing)"]


def test_comparison_config_names_trained_rows_and_a_metric_the_dataset_has():
    raw = load_config(TINY_PARAMS).model_dump(exclude_unset=True)
    raw["tables"]["copynet_synthetic"]["comparisons"] = [{"row": "CopyNet", "baseline": "RNNSearch"}]
    with pytest.raises(ConfigError, match=r"comparisons\[0\]\.baseline: 'RNNSearch' is not a trained row of the "
                                          r"table; allowed values: \['Enc-Dec', 'CopyNet', 'WEAN'\]"):
        parse_config(raw, "tiny")
    raw["tables"]["copynet_synthetic"]["comparisons"] = [{"row": "CopyNet", "baseline": "WEAN", "metric": "bleu"}]
    with pytest.raises(ConfigError, match=r"comparisons\[0\]\.metric: 'bleu' is not a metric tiny is scored with; "
                                          r"allowed values: \['exact'\]"):
        parse_config(raw, "tiny")


def test_compare_command_resamples_the_two_outputs(tmp_path, monkeypatch, capsys):
    """Three test lines: the row right on lines 1 and 2, the baseline on line 1 only: exact match 66.7 vs 33.3.
    A resample lets the row not win only when it never draws line 2 ((2/3)^3 = 8/27 of resamples)."""
    from paragen.cli import main
    from paragen.artifacts import hyp_path, prepared

    monkeypatch.chdir(tmp_path)
    (tmp_path / "params.yaml").write_text(TINY_PARAMS.read_text())
    Path(prepared("tiny", "test", "tgt")).parent.mkdir(parents=True)
    Path(prepared("tiny", "test", "tgt")).write_text("a b\nc\nd e\n")
    for experiment, lines in (("t_copynet", "a b\nc\nx\n"), ("t_encdec", "a b\ny\nx\n")):
        Path(hyp_path(experiment)).parent.mkdir(parents=True)
        Path(hyp_path(experiment)).write_text(lines)
    out = tmp_path / "cmp.json"
    assert main(["compare", "--params", "params.yaml", "--experiment", "t_copynet", "--baseline", "t_encdec",
                 "--metric", "exact", "--samples", "2000", "--out", str(out)]) == 0
    test = json.loads(out.read_text())["splits"]["test"]
    assert (round(test["score_b"], 2), round(test["score_a"], 2), round(test["delta"], 2)) == (66.67, 33.33, 33.33)
    assert test["p_value"] == pytest.approx(8 / 27, abs=0.03)
    assert "t_copynet vs t_encdec, exact match on test: 66.67 vs 33.33 (+33.33)" in capsys.readouterr().out
    assert main(["compare", "--params", "params.yaml", "--experiment", "t_copynet", "--baseline", "t_encdec",
                 "--metric", "rouge", "--out", str(out)]) != 0


def test_a_comparison_whose_rows_cannot_run_says_why():
    from paragen.pipeline.tables import table_plan
    from paragen.report.comparisons import comparison_lines

    config = load_config(ROOT / "params.yaml")  # no real dataset switched on
    assert comparison_lines(config, table_plan(config, "spm_gigaword")) == ["EncDec+SPM vs EncDec: not run: dataset absent"]
