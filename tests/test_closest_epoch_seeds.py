"""The closest-epoch caption with several seeds (issue 41): the per-epoch mean over the seeds, not one seed's log.

The caption of the rule-data table says "with several seeds their per-epoch mean". The existing tests check
:func:`closest_epoch` and :func:`mean_rows` apart, so a caption computed from the first seed's log alone passed.
Here two seeds' logs disagree on which epoch is closest to the paper's row: the mean's epoch, seed 1's and
seed 2's are three different epochs with three different distances, all worked out by hand.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from paragen.report.build import closest_epoch_text
from paragen.training.closest_epoch import closest_epoch, mean_rows

# Two rule types; log columns as train_log.csv names them (tag_column: "x->x" -> valid_em_x_to_x).
PAPER = {"x->x": 55.0, "x->xx": 65.0}
COLUMNS = {"x->x": "valid_em_x_to_x", "x->xx": "valid_em_x_to_xx"}
SEED_1 = [(1, 40.0, 60.0), (2, 80.0, 90.0), (3, 90.0, 95.0)]  # (epoch, x->x, x->xx)
SEED_2 = [(1, 20.0, 30.0), (2, 40.0, 50.0), (3, 60.0, 75.0)]
# Mean of the seeds:        epoch 1 (30, 45), epoch 2 (60, 70), epoch 3 (75, 85)
# Distance to (55, 65), mean absolute difference over the two types:
#   mean:   epoch 1 (25 + 20)/2 = 22.5   epoch 2 (5 + 5)/2 = 5.0     epoch 3 (20 + 20)/2 = 20.0  -> epoch 2, 5.0
#   seed 1: epoch 1 (15 + 5)/2 = 10.0    epoch 2 (25 + 25)/2 = 25.0  epoch 3 (35 + 30)/2 = 32.5  -> epoch 1, 10.0
#   seed 2: epoch 1 (35 + 35)/2 = 35.0   epoch 2 (15 + 15)/2 = 15.0  epoch 3 (5 + 10)/2 = 7.5    -> epoch 3, 7.5


def _rows(log):
    return [{"epoch": float(e), "valid_em_x_to_x": a, "valid_em_x_to_xx": b} for e, a, b in log]


def _write_log(path: Path, log) -> Path:
    lines = ["epoch,valid_metric,valid_em_x_to_x,valid_em_x_to_xx"]
    lines += [f"{e},{(a + b) / 2},{a},{b}" for e, a, b in log]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _plan(paths: list[Path]) -> SimpleNamespace:
    """The parts of a TablePlan that closest_epoch_text reads: the paper's columns and row, one row's seed runs."""
    paper = SimpleNamespace(columns=[SimpleNamespace(key=k) for k in PAPER], rows={"CopyNet": dict(PAPER)})
    runs = [SimpleNamespace(train_log=str(p), seed=seed) for seed, p in enumerate(paths, start=1)]
    return SimpleNamespace(paper=paper, rows={"CopyNet": SimpleNamespace(runs=runs)},
                           trained_rows=lambda: {"CopyNet": "copynet_synthetic"})


def test_two_seeds_closest_epoch_is_that_of_their_mean_by_hand():
    """Correct (per-epoch mean of the two seeds): epoch 2 at 5.0. From seed 1's log alone: epoch 1 at 10.0."""
    found = closest_epoch(mean_rows([_rows(SEED_1), _rows(SEED_2)]), PAPER, COLUMNS)
    assert (found.epoch, found.distance, found.best_epoch_distance) == (2, pytest.approx(5.0), None)
    # the single seeds, for contrast: what a caption from one log would say
    assert (closest_epoch(_rows(SEED_1), PAPER, COLUMNS).epoch, closest_epoch(_rows(SEED_1), PAPER, COLUMNS).distance) \
        == (1, pytest.approx(10.0))
    assert (closest_epoch(_rows(SEED_2), PAPER, COLUMNS).epoch, closest_epoch(_rows(SEED_2), PAPER, COLUMNS).distance) \
        == (3, pytest.approx(7.5))


def test_caption_with_two_seeds_names_the_mean_epoch(tmp_path):
    """The caption sentence of the rule-data table, from two seeds' train_log.csv files. Correct: "CopyNet epoch 2
    (5.0)" (no selected-epoch distance: with several seeds there is no one selected epoch). From the first seed's
    log instead of the mean: "CopyNet epoch 1 (10.0)"; from the last seed's: "CopyNet epoch 3 (7.5)"."""
    paths = [_write_log(tmp_path / "seed1.csv", SEED_1), _write_log(tmp_path / "seed2.csv", SEED_2)]
    text = closest_epoch_text(_plan(paths), outcomes={})
    assert "CopyNet epoch 2 (5.0)" in text, text
    assert "epoch 1" not in text and "epoch 3" not in text
    assert "with several seeds their per-epoch mean" in text


def test_caption_with_one_seed_is_that_seeds_epoch(tmp_path):
    """One seed: its own log (epoch 1 at 10.0) beside the distance at its selected epoch 3 (32.5, worked above)."""
    paths = [_write_log(tmp_path / "seed1.csv", SEED_1)]
    outcomes = {"CopyNet": [(None, SimpleNamespace(best_epoch=3))]}
    assert "CopyNet epoch 1 (10.0; 32.5 at the selected epoch 3)" in closest_epoch_text(_plan(paths), outcomes)


def test_the_whole_caption_with_a_row_the_paper_lacks_first(tmp_path):
    """Rows without a published row are skipped, not the end of the caption: a first row the paper lacks, then
    CopyNet (its one seed's epoch 1 at 10.0, 32.5 at the selected epoch 3); the sentence exactly as a reader sees
    it. No row with a published row and a log: no sentence at all."""
    path = _write_log(tmp_path / "seed1.csv", SEED_1)
    plan = _plan([path])
    plan.rows = {"Extra": SimpleNamespace(runs=[SimpleNamespace(train_log=str(path), seed=1)]), **plan.rows}
    plan.trained_rows = lambda: {"Extra": "x", "CopyNet": "copynet_synthetic"}
    outcomes = {"CopyNet": [(None, SimpleNamespace(best_epoch=3))]}
    assert closest_epoch_text(plan, outcomes) == (
        " Epoch whose per-type validation exact match is closest to the paper's row (mean absolute difference over "
        "the five types, points; with several seeds their per-epoch mean): CopyNet epoch 1 (10.0; 32.5 at the "
        "selected epoch 3). The cells are the selected (best validation) checkpoint's test scores.")
    plan.trained_rows = lambda: {"Extra": "x"}
    assert closest_epoch_text(plan, outcomes) == ""


def test_two_published_rows_are_listed_comma_separated(tmp_path):
    """Two rows with a published row: "CopyNet epoch 1 (10.0; 32.5 at the selected epoch 3), RNNSearch epoch 3
    (7.5; 7.5 at the selected epoch 3)" (seed 2's log for RNNSearch: its epoch 3 at 7.5, worked above)."""
    plan = _plan([_write_log(tmp_path / "seed1.csv", SEED_1)])
    plan.paper.rows["RNNSearch"] = dict(PAPER)
    seed_2_log = str(_write_log(tmp_path / "s2.csv", SEED_2))
    plan.rows["RNNSearch"] = SimpleNamespace(runs=[SimpleNamespace(train_log=seed_2_log, seed=1)])
    plan.trained_rows = lambda: {"CopyNet": "c", "RNNSearch": "r"}
    selected_3 = [(None, SimpleNamespace(best_epoch=3))]
    outcomes = {"CopyNet": selected_3, "RNNSearch": selected_3}
    assert ("per-epoch mean): CopyNet epoch 1 (10.0; 32.5 at the selected epoch 3), RNNSearch epoch 3 (7.5; 7.5 at "
            "the selected epoch 3). The cells") in closest_epoch_text(plan, outcomes)
