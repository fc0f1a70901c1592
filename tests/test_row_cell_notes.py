"""A row's cell (paragen.report.tables.row_cell) keeps every note, joined by "; ", in each of its three forms (a
missing seed, one run, several seeds), and a table's training lines name each seed run's seed (none for a row's
only run). Expected cells written out by hand: two seeds of 40.0 and 44.0 give mean 42.0 and sample sd
sqrt(((40 - 42)² + (44 - 42)²) / 1) = 2.8284."""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace

from paragen.report.tables import Cell, LoadedRun, ResultTable, SeedRun, row_cell

NOTES = ["not in paper", "trained on 1,000 pairs"]


def _loaded(seed: int, bleu: float | None) -> LoadedRun:
    run = SeedRun(seed, Path(f"results/metrics/r_s{seed}.json"))
    return LoadedRun(run, None if bleu is None else {"bleu": {"score": bleu}}, {})


def test_a_missing_seed_keeps_the_notes_before_its_reason():
    cell = row_cell(30.0, [_loaded(1, 40.0), _loaded(2, None)], "bleu/score", NOTES)
    assert cell == Cell(30.0, None, "not in paper; trained on 1,000 pairs; not yet run "
                                    "(results/metrics/r_s2.json missing)")


def test_one_run_keeps_both_notes():
    assert row_cell(30.0, [_loaded(1, 40.0)], "bleu/score", NOTES) == Cell(
        30.0, 40.0, "not in paper; trained on 1,000 pairs")


def test_several_seeds_keep_both_notes_and_a_note_of_none_is_empty():
    cell = row_cell(30.0, [_loaded(1, 40.0), _loaded(2, 44.0)], "bleu/score", NOTES)
    assert (cell.reproduced, cell.note, cell.per_seed) == (42.0, "not in paper; trained on 1,000 pairs",
                                                           ((1, 40.0), (2, 44.0)))
    assert math.isclose(cell.sd, math.sqrt(8.0))
    assert row_cell(None, [_loaded(1, 40.0), _loaded(2, 44.0)], "bleu/score", []).note == ""


def test_training_lines_name_the_seed_of_each_seed_run():
    table = ResultTable("t", "T", "", [], [])
    table.training = {"RNNSearch": [(1, SimpleNamespace(describe=lambda: "best epoch 3 of 5")),
                                    (2, SimpleNamespace(describe=lambda: "best epoch 4 of 5"))],
                      "CopyNet": [(None, SimpleNamespace(describe=lambda: "best epoch 2 of 5"))]}
    assert table.training_lines() == ["RNNSearch (seed 1): best epoch 3 of 5", "RNNSearch (seed 2): best epoch 4 of 5",
                                      "CopyNet: best epoch 2 of 5"]
