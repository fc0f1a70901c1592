"""A comparison whose baseline does not work is reported as void (docs/decisions.md X11, T11): the baseline's test
score must reach a stated share of a system row's on the same test set (turk-mini: half the in-vocabulary identity's
BLEU). Bounds worked by hand: 0.5 x 49.0 = 24.5."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
import yaml

from paragen.config import ConfigError, parse_config

from conftest import ROOT

SANITY = {"system": "mini_identity_vocabulary", "metric": "bleu", "fraction": 0.5}


def _config(**sanity):
    raw = yaml.safe_load((ROOT / "params.yaml").read_text())
    raw.update(suites=["turk_mini"], data=["turk_mini"])
    raw["tables"]["turk_mini"]["comparisons"] = [{"row": "WEAN", "baseline": "Seq2seq", "metric": "bleu",
                                                  "sanity": {**SANITY, **sanity}}]
    return parse_config(raw)


def _scores(root: Path, baseline_bleu: float) -> None:
    metrics = root / "results/metrics"
    metrics.mkdir(parents=True)
    for name, bleu in (("mini_identity_vocabulary", 49.0), ("mini_seq2seq", baseline_bleu), ("mini_wean", 59.9)):
        (metrics / f"{name}.json").write_text(json.dumps({"bleu": {"score": bleu}, "sari": {"score": 30.0}}))
    (metrics / "mini_wean.vs.mini_seq2seq.json").write_text(json.dumps(
        {"splits": {"test": {"score_a": baseline_bleu, "score_b": 59.9, "p_value": 0.0, "samples": 1000}}}))


@pytest.mark.parametrize("baseline_bleu, void", [(24.4, True), (24.5, False), (4.7, True)])
def test_a_baseline_below_the_bound_voids_the_comparison(tmp_path, monkeypatch, baseline_bleu, void):
    from paragen.pipeline.tables import table_plan
    from paragen.report.comparisons import comparison_lines, comparison_records, comparisons_csv

    monkeypatch.chdir(tmp_path)
    _scores(tmp_path, baseline_bleu)
    config = _config()
    (line,) = comparison_lines(config, table_plan(config, "turk_mini"))
    expected = (f" **Void: the baseline Seq2seq scores BLEU {baseline_bleu:.1f}, below 50% of "
                "mini_identity_vocabulary's 49.0 on the same test set, so it does not work and no comparison with "
                "it is claimed.**")
    assert line.endswith(expected) is void
    assert ("Void" in line) is void
    (record,) = comparison_records(config, table_plan(config, "turk_mini"))
    assert bool(record["note"]) is void and record["score_baseline"] == str(baseline_bleu)
    written = next(csv.DictReader(io.StringIO(comparisons_csv([record]))))  # the table's _comparisons.csv
    assert written["note"].startswith("void") is void


def test_the_bound_is_a_system_row_of_the_table_scored_with_the_metric():
    with pytest.raises(ConfigError, match=r"comparisons\[0\]\.sanity\.system: 'mini_identity' is not a system row "
                                          r"of the table on turk_mini"):
        _config(system="mini_identity")
    with pytest.raises(ConfigError, match=r"comparisons\[0\]\.sanity\.metric: 'rouge' is not a metric turk_mini is "
                                          r"scored with"):
        _config(metric="rouge")
    with pytest.raises(ConfigError, match=r"fraction"):
        _config(fraction=1.5)


def test_a_missing_bound_says_how_to_make_it(tmp_path, monkeypatch):
    from paragen.pipeline.tables import table_plan
    from paragen.report.comparisons import comparison_lines

    monkeypatch.chdir(tmp_path)
    _scores(tmp_path, 4.7)
    Path("results/metrics/mini_identity_vocabulary.json").unlink()
    config = _config()
    with pytest.raises(FileNotFoundError, match=r"mini_identity_vocabulary\.json: the bound mini_identity_vocabulary "
                                                r"of the comparison WEAN vs Seq2seq .* `paragen system --name "
                                                r"mini_identity_vocabulary`"):
        comparison_lines(config, table_plan(config, "turk_mini"))
