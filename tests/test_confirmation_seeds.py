"""Confirmation seeds (``tables.*.confirmation``): seeds that played no part in choosing a design are trained as
their own replicas, compared again, reported in their own labelled block, and judged by the criterion fixed before
they ran. Expected lines and verdicts are written out by hand."""

import json
from pathlib import Path

import pytest

from paragen.config import ConfigError, load_config, parse_config

from conftest import TINY_PARAMS


def _config(confirmation, seeds=None):
    raw = load_config(TINY_PARAMS).model_dump(exclude_unset=True)
    raw["tables"]["copynet_synthetic"]["confirmation"] = confirmation
    if seeds is not None:
        raw["seeds"] = seeds
    return parse_config(raw, "tiny")


def _comparison_file(path: Path, p_value: float, a: float, b: float) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"splits": {"test": {"score_a": a, "score_b": b, "delta": b - a, "p_value": p_value,
                                                    "samples": 200, "on": "exact"}}}))


def test_confirmation_seeds_train_their_own_replicas_and_compare_again():
    from paragen.pipeline.plan import build_plan

    plan = build_plan(_config({"seeds": [4, 5], "required": 2}))
    names = {s.name for s in plan.stages}
    # the tiny table's trained rows: t_encdec, t_copynet, t_wean (training seed 1); one design seed by default
    assert {"train_t_encdec_seed4", "train_t_copynet_seed5", "decode_t_wean_seed4", "score_t_wean_seed5",
            "compare_t_copynet_seed4_vs_t_encdec_seed4", "compare_t_copynet_seed5_vs_t_encdec_seed5",
            "compare_t_copynet_vs_t_encdec"} <= names
    assert "train_t_encdec_seed2" not in names  # seeds 2 and 3 are neither design nor confirmation seeds here
    table = plan.tables["copynet_synthetic"]
    assert [label for label in table.rows if "confirmation" in label] == [
        "Enc-Dec (confirmation seeds 4–5)", "CopyNet (confirmation seeds 4–5)", "WEAN (confirmation seeds 4–5)"]
    assert [r.name for r in table.rows["CopyNet (confirmation seeds 4–5)"].runs] == ["t_copynet_seed4",
                                                                                   "t_copynet_seed5"]
    report = next(s for s in plan.stages if s.name == "report_copynet_synthetic")
    assert {"results/metrics/t_copynet_seed5.json", "runs/t_wean_seed4/train_log.csv",
            "results/metrics/t_copynet_seed4.vs.t_encdec_seed4.json"} <= set(report.deps)
    assert table.design_rows() == {"Enc-Dec": "t_encdec", "CopyNet": "t_copynet", "WEAN": "t_wean"}


@pytest.mark.parametrize("confirmation, message", [
    ({"seeds": [2, 4], "required": 1}, r"confirmation\.seeds: \[2\] are among the seeds t_encdec is trained with"),
    ({"seeds": [4, 4], "required": 1}, r"seeds: \[4, 4\] repeats a seed"),
    ({"seeds": [4, 5], "required": 3}, r"required: 3 exceeds the 2 confirmation seed"),
])
def test_confirmation_seeds_must_be_new_and_the_criterion_reachable(confirmation, message):
    with pytest.raises(ConfigError, match=message):
        _config(confirmation, seeds=2)


def test_lines_label_design_and_confirmation_seeds_and_apply_the_criterion(tmp_path, monkeypatch):
    """Design seed 1: p = 0.010 (one win). Confirmation seeds 4 and 5: p = 0.020 and 0.300, one win of two;
    required 2 -> "not confirmed"; with seed 5's p = 0.049 both win -> "confirmed"."""
    from paragen.pipeline.tables import table_plan
    from paragen.report.comparisons import comparison_lines

    monkeypatch.chdir(tmp_path)
    raw = load_config(TINY_PARAMS).model_dump(exclude_unset=True)
    raw["tables"]["copynet_synthetic"]["confirmation"] = {"seeds": [4, 5], "required": 2}
    config = parse_config(raw, "tiny")
    metrics = tmp_path / "results/metrics"
    _comparison_file(metrics / "t_copynet.vs.t_encdec.json", 0.010, 40.0, 55.5)
    _comparison_file(metrics / "t_copynet_seed4.vs.t_encdec_seed4.json", 0.020, 50.0, 52.0)
    _comparison_file(metrics / "t_copynet_seed5.vs.t_encdec_seed5.json", 0.300, 50.0, 50.5)
    design, confirming = comparison_lines(config, table_plan(config, "copynet_synthetic"))
    lines = ("200 resamples of the test sentences — lines, not rules: the lines of one rule are not independent, so "
             "this p overstates the evidence (the comparison predates rule resampling; rerun it to resample rules)")
    assert design == (f"CopyNet vs Enc-Dec, design seed 1 ({lines}; score of CopyNet vs "
                      "Enc-Dec): exact match on test: 55.5 vs 40.0 (+15.5), p = 0.010.")
    assert confirming == (
        f"CopyNet vs Enc-Dec, confirmation seeds 4–5 ({lines}; score of CopyNet vs "
        "Enc-Dec): exact match on test: 52.0 vs 50.0 (+2.0), p = 0.020 (seed 4); 50.5 vs 50.0 (+0.5), p = 0.300 "
        "(seed 5). CopyNet is better at p < 0.05 in 1 of 2 tests. Criterion fixed before these seeds ran: better "
        "at p < 0.05 in at least 2 of 2: **not confirmed**.")
    _comparison_file(metrics / "t_copynet_seed5.vs.t_encdec_seed5.json", 0.049, 50.0, 50.5)
    assert comparison_lines(config, table_plan(config, "copynet_synthetic"))[1].endswith("**confirmed**.")


def test_a_table_without_confirmation_seeds_reports_as_before(tmp_path, monkeypatch):
    from paragen.pipeline.tables import table_plan

    config = parse_config(load_config(TINY_PARAMS).model_dump(exclude_unset=True), "tiny")
    plan = table_plan(config, "copynet_synthetic")
    assert plan.confirmations == () and not any("confirmation" in label for label in plan.rows)
    assert "t_copynet_seed4" not in config.experiments
