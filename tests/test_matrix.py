"""The mechanism x task matrix's expansion (params.yaml's ``matrix:``): which experiment fills each cell, which
cells do not apply and why, reuse of identical experiments, seeds, and the stages both engines get. Every expected
name and reason is written out by hand from the tiny configuration below."""

from __future__ import annotations

import pytest
import yaml

from paragen.config import ConfigError, load_config, parse_config
from paragen.config.matrix import matrix_cells, model_params, slug
from paragen.pipeline.dvc import lookup

from conftest import ROOT, TINY_PARAMS

MATRIX = {
    "title": "tiny matrix",
    "seeds": [1, 2],
    "mechanisms": {
        "Enc-Dec": {"settings": {"architecture": "encdec"}},
        "RNNSearch": {"settings": {"architecture": "rnnsearch"}},
        "CopyNet": {"settings": {"architecture": "copynet"}},
        "sGate": {"settings": {"selective_gate": True}},
        "SPM": {"settings": {"source_prediction": {"weight_c": 10.0}}},
        "Transformer": {"family": "transformer"},
    },
    "tasks": {
        "t": {"label": "tiny rules", "dataset": "tiny",
              "recurrent": {"model": "rnnsearch_t", "training": "tiny", "decoding": "beam3"},
              "transformer": {"model": "transformer_t", "training": "tiny", "decoding": "beam3"},
              "metric": "exact", "baseline": "RNNSearch",
              "skip": {"Transformer": "no Transformer on tiny rules, for this test"}},
    },
}


def raw_config(matrix=None, suites=("matrix",)):
    raw = load_config(TINY_PARAMS).model_dump(exclude_unset=True)
    raw["suites"] = list(suites)
    raw["models"]["rnnsearch_t"] = {"architecture": "rnnsearch", "embedding_size": 8, "hidden_size": 16}
    raw["models"]["transformer_t"] = {"architecture": "transformer", "embedding_size": 8, "heads": 2, "key_size": 4,
                                      "encoder_layers": 1, "decoder_layers": 1}
    raw["matrix"] = matrix if matrix is not None else yaml.safe_load(yaml.safe_dump(MATRIX))
    return raw


def test_cells_reuse_identical_experiments_declare_the_rest_and_say_why_others_do_not_apply():
    config = parse_config(raw_config(), "tiny")
    cells = {c.mechanism: c for c in matrix_cells(config)}
    # encdec and copynet of the tiny file are rnnsearch_t with the architecture changed: the same models
    assert cells["Enc-Dec"].experiment == "t_encdec"
    assert cells["CopyNet"].experiment == "t_copynet"
    assert cells["RNNSearch"].experiment == "mx_t_rnnsearch"
    assert cells["sGate"].experiment == "mx_t_sgate"
    assert config.models["mx_t_sgate"].selective_gate and config.models["mx_t_sgate"].hidden_size == 16
    assert cells["SPM"].experiment is None and cells["SPM"].reason.startswith(
        "source_prediction: predicts the source from the attentional vector z_j")
    assert cells["Transformer"].reason == "no Transformer on tiny rules, for this test"
    assert cells["CopyNet"].runs == (("t_copynet", 1), ("t_copynet_seed2", 2))
    assert cells["RNNSearch"].runs == (("mx_t_rnnsearch", 1), ("mx_t_rnnsearch_seed2", 2))
    assert config.experiments["mx_t_rnnsearch_seed2"].seed == 2


def test_suite_trains_each_run_once_tests_every_cell_against_the_baseline_and_reports():
    from paragen.pipeline.plan import build_plan

    plan = build_plan(parse_config(raw_config(), "tiny"))
    names = [s.name for s in plan.stages]
    trained = sorted(n for n in names if n.startswith("train_"))
    assert trained == ["train_mx_t_rnnsearch", "train_mx_t_rnnsearch_seed2", "train_mx_t_sgate",
                       "train_mx_t_sgate_seed2", "train_t_copynet", "train_t_copynet_seed2", "train_t_encdec",
                       "train_t_encdec_seed2"]
    compares = sorted(n for n in names if "compare" in n)
    assert compares == sorted(f"matrix_compare_{a}_vs_mx_t_rnnsearch{s}" for a, s in
                              [("mx_t_sgate", ""), ("mx_t_sgate_seed2", "_seed2"), ("t_copynet", ""),
                               ("t_copynet_seed2", "_seed2"), ("t_encdec", ""), ("t_encdec_seed2", "_seed2")])
    compare = next(s for s in plan.stages if s.name == "matrix_compare_t_copynet_seed2_vs_mx_t_rnnsearch_seed2")
    assert compare.outs == ("results/matrix/t_copynet_seed2.vs.mx_t_rnnsearch_seed2.json",)
    assert "--groups" in compare.cmd  # rule data: the test resamples rules
    report = next(s for s in plan.stages if s.name == "report_matrix")
    assert set(report.outs) == {"results/tables/matrix.md", "results/tables/matrix.csv", "results/tables/matrix.tex",
                                "results/figures/matrix_ranks.png", "results/provenance/matrix"}
    assert report.directories == ("results/provenance/matrix",)  # owned whole: no stale run's copy survives
    assert {"results/metrics/mx_t_sgate_seed2.json", compare.outs[0], "runs/t_encdec/train_log.csv"} <= set(report.deps)


def test_every_params_key_of_the_matrix_stages_is_in_the_file_dvc_reads(tmp_path):
    """DVC refuses a params key absent from params.yaml: a declared cell's model is tracked through its task's base
    model and the matrix's mechanisms and task, never as models.mx_*."""
    from paragen.pipeline.plan import build_plan

    raw = raw_config()
    config = parse_config(raw, "tiny")
    train = next(s for s in build_plan(config).stages if s.name == "train_mx_t_sgate")
    assert train.params[:4] == ("models.rnnsearch_t", "matrix.mechanisms", "matrix.tasks.t", "training.tiny")
    for stage in build_plan(config).stages:
        for key in stage.params:
            assert lookup(raw, key) is not None, (stage.name, key)
    again = parse_config(config.model_dump(exclude_unset=True), "tiny dumped")  # an engine re-parsing a dump
    assert model_params(again, "mx_t_sgate") == ("models.rnnsearch_t", "matrix.mechanisms", "matrix.tasks.t")


@pytest.mark.parametrize("change, message", [
    (lambda m: m["mechanisms"]["sGate"]["settings"].update(gate=True),
     r"settings: \['gate'\] are not model fields"),
    (lambda m: m["tasks"]["t"]["skip"].update(RNNSearch="no"), r"the baseline 'RNNSearch' is skipped"),
    (lambda m: m["tasks"]["t"].update(baseline="SPM"), r"baseline: 'SPM' does not apply to the task \(source_pred"),
    (lambda m: m["tasks"]["t"].update(baseline="Copy"), r"baseline: 'Copy' is not a mechanism"),
    (lambda m: m["mechanisms"].update({"sgate": {}}), r"'sgate' and 'sGate' give the same experiment name"),
    (lambda m: m["mechanisms"].update({"a;rm": {}}), r"'a;rm' is not a usable label"),
    (lambda m: m["tasks"]["t"]["recurrent"].update(model="nope"), r"matrix.tasks.t.recurrent.model: unknown model"),
])
def test_bad_matrices_are_refused_naming_the_key(change, message):
    matrix = yaml.safe_load(yaml.safe_dump(MATRIX))
    change(matrix)
    with pytest.raises(ConfigError, match=message):
        parse_config(raw_config(matrix), "tiny")


def test_the_suite_is_off_unless_named_and_needs_a_matrix_block():
    config = parse_config(raw_config(suites=("synthetic",)), "tiny")
    assert not any(n.startswith("mx_") for n in config.active_experiments())
    raw = raw_config()
    del raw["matrix"]
    with pytest.raises(ConfigError, match=r"unknown suite 'matrix'"):
        parse_config(raw, "tiny")


def test_slugs():
    assert [slug(x) for x in ("sGate+SPM", "Enc-Dec", "Transformer+DMASS")] == ["sgate_spm", "enc_dec",
                                                                                 "transformer_dmass"]


def test_the_default_matrix_reuses_the_suites_runs_and_marks_what_does_not_apply():
    """params.yaml's matrix: the suites' rule-data and headline runs fill their cells (X5); SPM cannot sit on rule
    data's Bahdanau RNNSearch (X7); DMASS is skipped off turk-mini (X8)."""
    config = load_config(ROOT / "params.yaml")
    cells = {(c.task, c.mechanism): c for c in matrix_cells(config)}
    assert {m: cells[("rules", m)].experiment for m in ("Enc-Dec", "RNNSearch", "CopyNet", "WEAN")} == {
        "Enc-Dec": "syn_encdec", "RNNSearch": "syn_rnnsearch", "CopyNet": "syn_copynet", "WEAN": "syn_wean"}
    assert {m: cells[("headline", m)].experiment for m in ("RNNSearch", "sGate", "SPM", "sGate+SPM")} == {
        "RNNSearch": "hs_encdec", "sGate": "hs_sgate", "SPM": "hs_spm", "sGate+SPM": "hs_sgate_spm"}
    assert cells[("rules", "SPM")].experiment is None and "input_feeding: attentional" in cells[("rules", "SPM")].reason
    assert cells[("headline", "Transformer+DMASS")].experiment is None
    assert cells[("turk_mini", "Transformer+DMASS")].experiment == "mx_turk_mini_transformer_dmass"
    assert all(len(c.runs) == 3 for c in cells.values() if c.applies)  # X16: X4's three seeds by default
    assert [name for name, _ in cells[("rules", "CopyNet")].runs] == ["syn_copynet", "syn_copynet_seed2",
                                                                     "syn_copynet_seed3"]


def test_your_own_data_is_a_column_by_params_alone(tmp_path):
    """A kind: local dataset becomes a task with a few lines of params.yaml: its cells reuse the experiments on it
    that are identical, the rest are declared, and its tests resample sentences on its BLEU."""
    import shutil

    from paragen.pipeline.plan import build_plan
    from test_local_data import local_params

    shutil.copy(TINY_PARAMS, tmp_path / "params.yaml")
    local_params(tmp_path)
    raw = yaml.safe_load((tmp_path / "params.yaml").read_text())
    matrix = yaml.safe_load(yaml.safe_dump(MATRIX))
    matrix["tasks"] = {"mine": {"label": "my data (BLEU)", "dataset": "mine", "metric": "bleu",
                                "baseline": "RNNSearch",
                                "recurrent": {"model": "rnnsearch_t", "training": "tiny", "decoding": "beam3"}}}
    full = raw_config(matrix)
    full.update(datasets=raw["datasets"], experiments=raw["experiments"], tables=raw["tables"], data=["mine"])
    config = parse_config(full, "tiny with my data")
    cells = {c.mechanism: c for c in matrix_cells(config)}
    assert cells["Enc-Dec"].experiment == "m_encdec" and cells["RNNSearch"].experiment == "mx_mine_rnnsearch"
    assert cells["Transformer"].reason == "the task has no Transformer base (matrix.tasks.*.transformer)"
    names = {s.name: s for s in build_plan(config).stages}
    compare = names["matrix_compare_m_encdec_vs_mx_mine_rnnsearch"]
    assert "--metric bleu" in compare.cmd and "--groups" not in compare.cmd
    assert "train_mx_mine_copynet" in names and "report_matrix" in names
    matrix["tasks"]["mine"]["metric"] = "rouge"
    full["matrix"] = matrix
    with pytest.raises(ConfigError, match=r"matrix.tasks.mine.metric: mine is not scored with 'rouge'; allowed "
                                          r"values: \['bleu', 'sari'\]"):
        parse_config(full, "tiny with my data")
