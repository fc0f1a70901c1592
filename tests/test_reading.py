"""The table's reading of each trained row against its floor row (paragen.report.reading; docs/decisions.md M6).

Every log below is written by hand so that the rule as fixed (read at the best epoch, compared with epoch 2, the
fall measured from epoch E − 3 to the last epoch E, "above" strictly) gives one answer and a plausible slip gives
another; each test's docstring shows both.
"""

from pathlib import Path

import pytest

from paragen.config import ConfigError
from paragen.config.tables import Collapse, Reading, TableConfig
from paragen.report.reading import below_floor, collapse_text, read_run, reading_lines
from paragen.report.render import to_markdown
from paragen.report.tables import Cell, Column, ResultTable
from paragen.training.stopping import TrainingOutcome

RULE = Reading(floor="identity", metric="sari")


def log(*rows: tuple[float, float, float]) -> list[dict[str, float]]:
    """Epochs 1, 2, ... from (valid_loss, train_accuracy, valid_metric) triples."""
    return [{"epoch": float(i), "valid_loss": loss, "train_accuracy": accuracy, "valid_metric": metric}
            for i, (loss, accuracy, metric) in enumerate(rows, start=1)]


# Best epoch 4 (of 7, patience 3): validation loss 4.96 there, 5.00 at epoch 2 (0.8 % gained), training accuracy
# 36 there, 20 at epoch 2 (+16 points); at the last epoch the loss is 4.50 and the accuracy 30.
OVERFITTING = log((5.40, 10.0, 20.0), (5.00, 20.0, 21.0), (4.98, 28.0, 21.5), (4.96, 36.0, 22.0),
                  (4.80, 30.0, 21.0), (4.60, 30.0, 21.0), (4.50, 30.0, 21.0))
# Best epoch 4 of 7: 20 % below epoch 2's loss (no overfit); loss 4.00 at epoch 4 and 3.94 at epoch 7 (1.5 % fall
# from E − 3), but 3.96 at epoch 5 (0.5 % from E − 2).
SLOW = log((6.00, 10.0, 20.0), (5.00, 20.0, 21.0), (4.50, 25.0, 21.5), (4.00, 30.0, 22.0),
           (3.96, 31.0, 21.0), (3.95, 32.0, 21.0), (3.94, 33.0, 21.0))
STOPPED = TrainingOutcome(best_epoch=4, epochs_run=7, max_epochs=40, patience=3)


def test_overfits_read_at_the_best_epoch_not_the_last():
    """At the best epoch: 0.8 % gained (≤ 1 %) and +16 points (≥ 15): overfits. Read at the last epoch instead:
    10 % gained, +10 points: not overfitting (the fall 4.96 → 4.50 would make it under-trained)."""
    assert below_floor(RULE, OVERFITTING, STOPPED).startswith("overfits (validation loss 4.960 at best epoch 4, "
                                                               "0.8 % below epoch 2's 5.000; training accuracy "
                                                               "16.0 points above epoch 2's;")


def test_overfitting_needs_both_conditions():
    """The same loss gain with +14 points of accuracy (< 15) is not an overfit: the fall from epoch 4 (4.96) to
    epoch 7 (4.50) is 9.3 %, so under-trained."""
    rows = [dict(row) for row in OVERFITTING]
    rows[3]["train_accuracy"] = 34.0
    text = below_floor(RULE, rows, STOPPED)
    assert text.startswith("under-trained (") and "9.3 % lower" in text


def test_under_trained_measures_the_fall_from_epoch_e_minus_3():
    """From epoch 4 (4.00) to epoch 7 (3.94): 1.5 % > 1 %, under-trained. From epoch 5 (3.96) instead: 0.5 %,
    which would read undetermined."""
    text = below_floor(RULE, SLOW, STOPPED)
    assert text.startswith("under-trained (") and text.endswith("validation loss 4.000 at epoch 4, 3.940 at "
                                                                "epoch 7: 1.5 % lower)")


def test_undetermined_when_neither_rule_holds():
    """Loss 4.00 at epoch 4 and 3.98 at epoch 7 (0.5 % fall ≤ 1 %), 20 % gained since epoch 2: undetermined."""
    rows = [dict(row) for row in SLOW]
    rows[6]["valid_loss"] = 3.98
    assert below_floor(RULE, rows, STOPPED).startswith("undetermined (validation loss 4.000 at best epoch 4, "
                                                       "20.0 % below epoch 2's 5.000")


def test_a_best_epoch_before_the_comparison_epoch_is_undetermined():
    """Best epoch 1 comes before epoch 2: the loss rule has nothing to compare (a slip reading epoch 2 against
    itself would call any such run an overfit or not at random)."""
    outcome = TrainingOutcome(best_epoch=1, epochs_run=4, max_epochs=40, patience=3)
    assert below_floor(RULE, OVERFITTING[:4], outcome) == (
        "undetermined (its best epoch 1 comes before epoch 2, which the rules compare it with)")


def test_losses_that_rose_are_said_as_rises():
    """A loss 20 % above epoch 2's at the best epoch and rising over the last epochs is said so, not as a
    negative fall."""
    rows = log((5.0, 10.0, 20.0), (5.0, 12.0, 21.0), (5.5, 14.0, 21.5), (6.0, 14.0, 22.0), (6.2, 14.0, 21.0),
               (6.5, 14.0, 21.0), (6.6, 14.0, 21.0))
    text = below_floor(RULE, rows, STOPPED)
    assert "20.0 % above epoch 2's 5.000" in text and "10.0 % higher" in text


def test_works_means_strictly_above_the_floor():
    """27.87 against a floor of 27.87 is not above it (a ≥ slip would say works)."""
    assert read_run(RULE, SLOW, STOPPED, 27.88, 27.87, "SARI", False).startswith(
        "works (test SARI 27.88, above identity's 27.87)")
    assert read_run(RULE, SLOW, STOPPED, 27.87, 27.87, "SARI", False).startswith(
        "test SARI 27.87, not above identity's 27.87: under-trained (")


def test_a_run_at_its_cap_gets_no_reading():
    """Best epoch 39 of 40 at a 40-epoch cap: no reading, even though its score would 'work'."""
    capped = TrainingOutcome(best_epoch=39, epochs_run=40, max_epochs=40, patience=3)
    assert read_run(RULE, SLOW, capped, 30.0, 27.87, "SARI", False) == "hit its 40-epoch cap: no reading"


def test_collapse_reads_every_epoch_against_the_limit():
    """Validation 18.3 at most: collapses; one epoch at 19.01 (> 19.0) does not (a rule on the last or best
    epoch alone would miss it)."""
    rule = Reading(floor="identity", metric="sari", collapse=Collapse(rows=["critic"], at_most=19.0))
    flat = log((8.0, 5.0, 18.3), (9.0, 6.0, 17.9), (9.5, 6.0, 18.0), (9.9, 6.0, 18.0))
    assert collapse_text(rule, flat) == "collapses (validation score at most 19.0 at every epoch; highest 18.30)"
    peak = [dict(row) for row in flat]
    peak[1]["valid_metric"] = 19.01
    assert collapse_text(rule, peak) == "does not collapse (validation score 19.01 at epoch 2, above 19.0)"


def _table(tmp_path: Path) -> tuple[ResultTable, dict[str, list[Path]]]:
    columns = [Column("sari", "SARI", "sari"), Column("bleu", "BLEU", "bleu")]
    table = ResultTable("t", "T", "caption", columns, ["identity", "nmt", "critic", "absent"])
    table.cells = {("identity", "sari"): Cell(None, 27.87), ("nmt", "sari"): Cell(None, 26.0),
                   ("critic", "sari"): Cell(None, 17.8, per_seed=((1, 17.8), (2, 28.0))),
                   ("absent", "sari"): Cell(None, None)}
    table.cells.update({(row, "bleu"): Cell(None, None) for row in table.rows})
    paths = {}
    for name, rows in (("nmt", SLOW), ("critic1", OVERFITTING), ("critic2", SLOW)):
        path = tmp_path / f"{name}.csv"
        path.write_text("epoch,valid_loss,train_accuracy,valid_metric\n" + "".join(
            f"{int(r['epoch'])},{r['valid_loss']},{r['train_accuracy']},{r['valid_metric']}\n" for r in rows))
        paths[name] = path
    table.training = {"nmt": [(None, STOPPED)], "critic": [(1, STOPPED), (2, STOPPED)]}
    return table, {"nmt": [paths["nmt"]], "critic": [paths["critic1"], paths["critic2"]]}


def test_reading_lines_use_each_seeds_own_score_and_log(tmp_path):
    """Seed 1 of the critic row scores 17.8 with the overfitting log, seed 2 scores 28.0 (works) with the slow
    one; a slip using the row's mean or the first seed's log for both would read both seeds the same."""
    table, logs = _table(tmp_path)
    rule = Reading(floor="identity", metric="sari", collapse=Collapse(rows=["critic"], at_most=19.0))
    lines = reading_lines(rule, table, logs)
    assert [line.split(":")[0] for line in lines] == ["nmt", "critic (seed 1)", "critic (seed 2)"]
    assert lines[0].startswith("nmt: test SARI 26.00, not above identity's 27.87: under-trained (")
    assert lines[1].startswith("critic (seed 1): test SARI 17.80, not above identity's 27.87: overfits (")
    assert lines[1].endswith("; does not collapse (validation score 22.00 at epoch 4, above 19.0)")
    assert lines[2].startswith("critic (seed 2): works (test SARI 28.00, above identity's 27.87)")


def test_the_markdown_table_prints_the_reading_section(tmp_path):
    table, logs = _table(tmp_path)
    table.readings = reading_lines(RULE, table, logs)
    text = to_markdown(table)
    assert "\nReading (rules fixed before the runs: docs/decisions.md, the table's `reading` setting):\n- nmt: " in text


def test_a_reading_naming_an_unknown_row_is_refused():
    with pytest.raises((ConfigError, ValueError), match="reading: \\['ident'\\] are not rows of the table"):
        TableConfig(suite="s", paper="own", title="t", rows={"identity": "a", "nmt": "b"}, columns=["bleu"],
                    reading={"floor": "ident", "metric": "sari"})
