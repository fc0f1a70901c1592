"""When a baseline does not work (:func:`paragen.report.sanity.baseline_void`), on hand-made metrics: the mean over
its seed runs against the share of the bound, the edge where they are equal, the metric asked for (not another
one in the same file), and the message word for word. Bounds worked by hand beside each case."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from paragen.config.tables import BaselineSanity
from paragen.report.sanity import baseline_void

from conftest import write_lines


def _metrics(scores: dict[str, float]) -> None:
    """results/metrics/<run>.json with the given BLEU and a SARI far from it (a slip reading SARI shows)."""
    for run, bleu in scores.items():
        scores_file = {"bleu": {"score": bleu}, "sari": {"score": 90.0}}
        write_lines(Path(f"results/metrics/{run}.json"), [json.dumps(scores_file)])


@pytest.fixture
def check(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return BaselineSanity(system="bound", metric="bleu", fraction=0.6)


def test_the_mean_over_seed_runs_is_compared_with_the_share_of_the_bound(check):
    """Bound 49.0 x 0.6 = 29.4. Runs 20 and 40: mean 30.0, it works (the first run alone, 20, or a mean over 3,
    20.0, would say otherwise)."""
    _metrics({"bound": 49.0, "b1": 20.0, "b2": 40.0})
    assert baseline_void(check, "Seq2seq", ["b1", "b2"], "the comparison W vs S") == ""


def test_a_mean_below_the_share_is_void_with_its_numbers(check):
    """Runs 20 and 38: mean 29.0 < 29.4 (their sum, 58, would pass)."""
    _metrics({"bound": 49.0, "b1": 20.0, "b2": 38.0})
    assert baseline_void(check, "Seq2seq", ["b1", "b2"], "the comparison W vs S") == (
        "void: the baseline Seq2seq scores BLEU 29.0, below 60% of bound's 49.0 on the same test set, so it does not "
        "work and no comparison with it is claimed")


def test_reaching_the_share_exactly_is_enough(check):
    """Bound 40.0 x 0.6 = 24.0 (the product is exactly 24.0 in floating point); run 24.0: it works."""
    _metrics({"bound": 40.0, "b1": 24.0})
    assert 0.6 * 40.0 == 24.0  # the edge is exact, so >= and > differ here
    assert baseline_void(check, "Seq2seq", ["b1"], "x") == ""


def test_a_missing_bound_names_its_file_the_asking_key_and_the_commands(check):
    _metrics({"b1": 20.0})
    message = ("results/metrics/bound.json: the bound bound of tables.t.comparisons[0] is missing (run `paragen "
               "system --name bound` and `paragen evaluate --experiment bound`)")
    with pytest.raises(FileNotFoundError, match=f"^{re.escape(message)}$"):
        baseline_void(check, "Seq2seq", ["b1"], "tables.t.comparisons[0]")
