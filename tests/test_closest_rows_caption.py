"""The caption sentence naming the epoch each closest-epoch row decodes (paragen.report.build.closest_rows_text),
word for word from hand-written choice files (the JSON ``paragen decode --closest-to`` writes)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from paragen import artifacts
from paragen.report.build import closest_rows_text

PREFIX = (" Rows \"closest epoch\": the checkpoint of the epoch closest to the paper's row on validation, decoded on "
          "the test set with the row's beam (the test set played no part in the choice): ")


def _choice(run: str, **choice) -> None:
    path = Path(artifacts.closest_choice_path(run))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(choice), encoding="utf-8")


def _plan(rows: list[tuple[str, list[tuple[str, int]]]]) -> SimpleNamespace:
    return SimpleNamespace(closest_rows=lambda: [SimpleNamespace(label=label, runs=[SimpleNamespace(name=n, seed=s)
                                                                                    for n, s in runs])
                                                 for label, runs in rows])


def test_seeds_a_missing_choice_a_retrain_and_a_one_run_row(tmp_path, monkeypatch):
    """Row A has three seeds: seed 1 chose epoch 6 of 14 in its own run (0.5 from the paper's row, 2.3 at the
    selected epoch 9); seed 2 has no choice file yet (skipped, and seed 3 still listed: a loop that stopped there
    would drop it); seed 3 is a retrain whose best epoch is its last (the "last epoch" clause, no selected-epoch
    distance, 44.6 min rounds to 45). Row B has one run: no seed named. Variants give other text: "(seed 1)"
    dropped or added to B, ", X at" without a selected distance, parts joined by another separator."""
    monkeypatch.chdir(tmp_path)
    _choice("a_s1", epoch=6, epochs_run=14, distance=0.54, selected_distance=2.34, selected_epoch=9)
    _choice("a_s3", epoch=6, epochs_run=6, distance=1.21, selected_distance=None, selected_epoch=6,
            retrain_of="a_full", training_minutes=44.6)
    _choice("b", epoch=3, epochs_run=10, distance=0.71, selected_distance=1.06, selected_epoch=8)
    plan = _plan([("A, closest", [("a_s1", 1), ("a_s2", 2), ("a_s3", 3)]), ("B, closest", [("b", 1)])])
    assert closest_rows_text(plan) == PREFIX + (
        "A, closest (seed 1): epoch 6 of 14 (0.5, 2.3 at the selected epoch 9); "
        "A, closest (seed 3): epoch 6 of 6 of a_s3: a_full trained again for 6 epochs, keeping every epoch's "
        "weights, as its own run kept none (45 min of training and validation; its trajectory may differ from the "
        "full run's where the code or the threads differ) (1.2; its last epoch, so the paper's row may lie later "
        "and this row does not test how long the paper trained); "
        "B, closest: epoch 3 of 10 (0.7, 1.1 at the selected epoch 8).")


def test_two_seeded_runs_are_named_and_no_choice_gives_no_sentence(tmp_path, monkeypatch):
    """Two runs (a test of more than two runs would drop the seeds); no choice file at all: no sentence."""
    monkeypatch.chdir(tmp_path)
    plan = _plan([("A", [("x1", 1), ("x2", 2)])])
    assert closest_rows_text(plan) == ""
    _choice("x2", epoch=2, epochs_run=5, distance=3.0, selected_distance=None, selected_epoch=2)
    assert closest_rows_text(plan) == PREFIX + "A (seed 2): epoch 2 of 5 (3.0)."
