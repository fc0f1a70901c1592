"""One matrix cell's result (paragen.report.matrix._cell) in each state, field by field: does not apply (its
reason), cannot run (the dataset's absence, named), runs missing (the metrics files named, joined by ", "), and
scored (values per seed from the metrics files written here)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from paragen.config.matrix import MatrixCell
from paragen.report.matrix import CellResult, _cell


def _config(runnable: bool) -> SimpleNamespace:
    return SimpleNamespace(matrix=SimpleNamespace(tasks={"copy": SimpleNamespace(metric="bleu", also=[])}),
                           runnable=lambda experiment: runnable,
                           dataset_of=lambda name: {"mx_attention": "turk"}[name], systems={}, data=[])


CELL = MatrixCell("copy", "attention", "mx_attention", None, (("mx_attention_s1", 1), ("mx_attention_s2", 2)))


def test_a_cell_that_does_not_apply_keeps_its_reason_or_none():
    assert _cell(_config(True), MatrixCell("copy", "spm", None, "no source to predict", ())) == \
        CellResult("copy", "spm", "does not apply", "no source to predict")
    assert _cell(_config(True), MatrixCell("copy", "spm", None, None, ())).reason == ""


def test_a_cell_that_cannot_run_names_the_absent_dataset():
    assert _cell(_config(False), CELL) == CellResult(
        "copy", "attention", "not run",
        "not run: dataset absent (turk is not switched on; fetch it, then run with `--config data='[turk]'`)",
        "mx_attention", ["mx_attention_s1", "mx_attention_s2"])


def test_missing_runs_are_named_and_a_scored_cell_reads_each_seed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("results/metrics").mkdir(parents=True)
    Path("results/metrics/mx_attention_s1.json").write_text(json.dumps({"bleu": {"score": 40.5}, "count": 3}))
    assert _cell(_config(True), CELL) == CellResult(
        "copy", "attention", "not run", "not run yet (results/metrics/mx_attention_s2.json missing)",
        "mx_attention", ["mx_attention_s1", "mx_attention_s2"])
    cell = MatrixCell("copy", "attention", "mx_attention", None, (("a", 1), ("b", 2), ("c", 3)))
    assert _cell(_config(True), cell).reason == ("not run yet (results/metrics/a.json, results/metrics/b.json, "
                                                 "results/metrics/c.json missing)")
    Path("results/metrics/mx_attention_s2.json").write_text(json.dumps({"bleu": {"score": 42.0}, "count": 3}))
    scored = _cell(_config(True), CELL)
    assert (scored.status, scored.reason, scored.values, scored.runs) == (
        "scored", "", [40.5, 42.0], ["mx_attention_s1", "mx_attention_s2"])
