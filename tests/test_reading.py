"""The table's reading of each trained row against its floor row (paragen.report.reading; docs/decisions.md M6, M8).

Every log below is written by hand so that the rule as fixed (read at the best epoch, compared with epoch 2, the
fall measured from epoch E − 3 to the last epoch E, "above" strictly, thresholds compared on the logged decimals)
gives one answer and a plausible slip gives another; each test's docstring shows both.
"""

import pytest

from paragen.config import ConfigError
from paragen.config.tables import Collapse, Reading, TableConfig
from paragen.report.reading import below_floor, collapse_text, read_run, reading_lines, rule_text
from paragen.report.render import to_markdown
from paragen.report.tables import Cell, Column, ResultTable
from paragen.training.stopping import TrainingOutcome

RULE = Reading(floor="identity", metric="sari")


def log(*rows: tuple[float, float, float]) -> list[dict[str, float]]:
    """Epochs 1, 2, ... from (valid_loss, train_accuracy, valid_sari) triples (valid_metric: the same)."""
    return [{"epoch": float(i), "valid_loss": loss, "train_accuracy": accuracy, "valid_metric": sari,
             "valid_sari": sari} for i, (loss, accuracy, sari) in enumerate(rows, start=1)]


def changed(rows, epoch: int, **values):
    """A copy of ``rows`` with ``values`` set at ``epoch``."""
    rows = [dict(row) for row in rows]
    rows[epoch - 1].update(values)
    return rows


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
    assert below_floor(RULE, OVERFITTING, STOPPED) == (
        "overfits (at best epoch 4: validation loss 4.960, 0.8 % below epoch 2's 5.000, training accuracy 16.0 "
        "points above epoch 2's; validation loss 4.960 at epoch 4, 4.500 at epoch 7: 9.3 % lower)")


def test_overfitting_needs_both_conditions():
    """The same loss gain with +14 points of accuracy (< 15) is not an overfit: the fall from epoch 4 (4.96) to
    epoch 7 (4.50) is 9.3 %, so under-trained."""
    text = below_floor(RULE, changed(OVERFITTING, 4, train_accuracy=34.0), STOPPED)
    assert text.startswith("under-trained (") and "9.3 % lower" in text


def test_the_thresholds_are_read_on_the_logged_decimals():
    """At exactly 1 % gained and exactly +15 points the run overfits ("at most 1 %", "at least 15"): 5.00 → 4.95,
    20.0 → 35.0. In binary, (5.00 − 4.95) / 5.00 is 0.0100000000000000…9, above 0.01, which a float comparison
    reads as no overfit. A fall of exactly 1 % (4.00 → 3.96 from epoch 4 to 7) is not "more than 1 %"."""
    rows = changed(OVERFITTING, 4, valid_loss=4.95, train_accuracy=35.0)
    assert below_floor(RULE, rows, STOPPED).startswith("overfits (")
    assert below_floor(RULE, changed(rows, 4, train_accuracy=34.9), STOPPED).startswith("under-trained (")
    exact_fall = changed(SLOW, 7, valid_loss=3.96)
    assert below_floor(RULE, exact_fall, STOPPED).startswith("undetermined (")
    assert below_floor(RULE, changed(exact_fall, 7, valid_loss=3.9599), STOPPED).startswith("under-trained (")


def test_under_trained_measures_the_fall_from_epoch_e_minus_3_not_from_the_best_epoch():
    """Best epoch 3 of 7 (a patience of 4): the fall is read from epoch 4 (4.00) to epoch 7 (3.94), 1.5 %:
    under-trained. From the best epoch 3 (4.50) it would be 12.4 %, from epoch 5 (3.96) 0.5 %; both would print
    other figures."""
    outcome = TrainingOutcome(best_epoch=3, epochs_run=7, max_epochs=40, patience=4)
    assert below_floor(RULE, SLOW, outcome).endswith("validation loss 4.000 at epoch 4, 3.940 at epoch 7: 1.5 % "
                                                     "lower)")


def test_the_overfit_rule_compares_with_epoch_2_whatever_the_best_epoch():
    """Best epoch 5 of 8: epoch 2 has loss 5.00 and accuracy 20; epoch 3 (best − 2) has 4.98 and 28. Against
    epoch 2: 0.6 % gained, +17 points: overfits; against epoch 3 the rise would be 9 points."""
    rows = log((5.40, 10.0, 20.0), (5.00, 20.0, 21.0), (4.98, 28.0, 21.5), (4.97, 30.0, 21.8), (4.97, 37.0, 22.0),
               (4.80, 30.0, 21.0), (4.60, 30.0, 21.0), (4.50, 30.0, 21.0))
    outcome = TrainingOutcome(best_epoch=5, epochs_run=8, max_epochs=40, patience=3)
    assert below_floor(RULE, rows, outcome).startswith(
        "overfits (at best epoch 5: validation loss 4.970, 0.6 % below epoch 2's 5.000, training accuracy 17.0 "
        "points above epoch 2's;")


def test_undetermined_when_neither_rule_holds():
    """Loss 4.00 at epoch 4 and 3.98 at epoch 7 (0.5 % fall ≤ 1 %), 20 % gained since epoch 2: undetermined."""
    assert below_floor(RULE, changed(SLOW, 7, valid_loss=3.98), STOPPED) == (
        "undetermined (at best epoch 4: validation loss 4.000, 20.0 % below epoch 2's 5.000, training accuracy "
        "10.0 points above epoch 2's; validation loss 4.000 at epoch 4, 3.980 at epoch 7: 0.5 % lower)")


def test_a_best_epoch_before_epoch_2_still_gets_the_under_training_rule():
    """Best epoch 1 of 4: overfitting is not read (nothing to compare), but M6's under-training rule does not
    depend on the best epoch: loss 6.0 at epoch 1, 5.0 at epoch 4 (16.7 % lower): under-trained. With the loss
    rising instead (6.0 → 7.0): undetermined."""
    outcome = TrainingOutcome(best_epoch=1, epochs_run=4, max_epochs=40, patience=3)
    falling = log((6.0, 10.0, 20.0), (5.8, 12.0, 19.0), (5.5, 14.0, 19.0), (5.0, 15.0, 19.0))
    assert below_floor(RULE, falling, outcome) == (
        "under-trained (best epoch 1 comes before epoch 2: overfitting not read; validation loss 6.000 at epoch 1, "
        "5.000 at epoch 4: 16.7 % lower)")
    rising = changed(falling, 4, valid_loss=7.0)
    assert below_floor(RULE, rising, outcome).startswith("undetermined (best epoch 1 comes before epoch 2")


def test_a_short_or_incomplete_log_names_what_could_not_be_read():
    """Three epochs (no epoch E − 3 = 0): under-training not read; a NaN accuracy at the best epoch: overfitting
    not read, while the other rule still decides."""
    outcome = TrainingOutcome(best_epoch=2, epochs_run=3, max_epochs=40, patience=3)
    short = log((6.0, 10.0, 20.0), (5.9, 30.0, 21.0), (5.95, 31.0, 20.5))
    # best epoch 2 compared with itself: nothing gained, but no accuracy rise either, so no overfit
    assert below_floor(RULE, short, outcome) == (
        "undetermined (at best epoch 2: validation loss 5.900, 0.0 % below epoch 2's 5.900, training accuracy 0.0 "
        "points above epoch 2's; no validation loss logged at epoch 0 or 3: under-training not read)")
    holes = changed(SLOW, 4, train_accuracy=float("nan"))
    assert below_floor(RULE, holes, STOPPED) == (
        "under-trained (no validation loss or training accuracy logged at epoch 2 or 4: overfitting not read; "
        "validation loss 4.000 at epoch 4, 3.940 at epoch 7: 1.5 % lower)")
    # epoch E - 3 = 4 exists but logged no validation loss: not read (a rule that needed both a missing epoch and a
    # missing value would compute a fall from nothing)
    gap = changed(SLOW, 4, valid_loss=float("nan"))
    assert below_floor(RULE, gap, STOPPED).endswith(
        "no validation loss logged at epoch 4 or 7: under-training not read)")


def test_losses_that_rose_are_said_as_rises():
    """A loss 20 % above epoch 2's at the best epoch and rising over the last epochs is said so, not as a
    negative fall."""
    rows = log((5.0, 10.0, 20.0), (5.0, 12.0, 21.0), (5.5, 14.0, 21.5), (6.0, 14.0, 22.0), (6.2, 14.0, 21.0),
               (6.5, 14.0, 21.0), (6.6, 14.0, 21.0))
    text = below_floor(RULE, rows, STOPPED)
    assert "20.0 % above epoch 2's 5.000" in text and "10.0 % higher" in text


def test_works_means_strictly_above_the_floor():
    """27.87 against a floor of 27.87 is not above it (a ≥ slip would say works)."""
    assert read_run(RULE, SLOW, STOPPED, 27.88, 27.87, "SARI", False) == (
        "works (test SARI 27.88, above identity's 27.87)")
    assert read_run(RULE, SLOW, STOPPED, 27.87, 27.87, "SARI", False).startswith(
        "test SARI 27.87, not above identity's 27.87: under-trained (")


def test_a_run_at_its_cap_gets_no_reading_not_even_a_collapse():
    """Best epoch 39 of 40 at a 40-epoch cap: no reading, even though its score would 'work' and its validation
    SARI never passed 19 (M6: a row at the cap gets no reading)."""
    capped = TrainingOutcome(best_epoch=39, epochs_run=40, max_epochs=40, patience=3)
    rule = Reading(floor="identity", metric="sari", collapse=Collapse(rows=["r"], at_most=30.0))
    assert read_run(rule, SLOW, capped, 30.0, 27.87, "SARI", True) == "hit its 40-epoch cap: no reading"


def test_the_earlier_cap_credits_a_change_to_longer_training_only_after_it():
    """earlier_cap 4: best epoch 5 is after it (credited to the longer training); best epoch 4 is within it
    (run-to-run variation). A slip with >= would credit epoch 4."""
    rule = Reading(floor="identity", metric="sari", earlier_cap=4)
    after = TrainingOutcome(best_epoch=5, epochs_run=8, max_epochs=40, patience=3)
    assert read_run(rule, SLOW + SLOW[-1:], after, 28.0, 27.87, "SARI", False) == (
        "works (test SARI 28.00, above identity's 27.87); best epoch 5 is after the earlier cap of 4: a change from "
        "the capped run counts as the longer training's")
    assert read_run(rule, SLOW, STOPPED, 28.0, 27.87, "SARI", False).endswith(
        "best epoch 4 is within the earlier cap of 4: a change from the capped run counts as run-to-run variation")


def test_collapse_reads_the_metrics_own_column_at_every_epoch():
    """Validation SARI 18.3 at most: collapses; 19.0 exactly is still "at most"; one epoch at 19.01 does not
    collapse, named as the first epoch above (a rule on the last or best epoch alone would miss it). The
    selection column valid_metric (here the loss's negative) is not what is read."""
    rule = Reading(floor="identity", metric="sari", collapse=Collapse(rows=["critic"], at_most=19.0))
    flat = [dict(row, valid_metric=-row["valid_loss"]) for row in
            log((8.0, 5.0, 18.3), (9.0, 6.0, 17.9), (9.5, 6.0, 18.0), (9.9, 6.0, 18.0))]
    assert collapse_text(rule, flat, "SARI") == ("collapses (validation SARI at most 19.0 at every epoch; highest "
                                                 "18.30)")
    assert collapse_text(rule, changed(flat, 3, valid_sari=19.0), "SARI").startswith("collapses (")
    peak = changed(changed(flat, 2, valid_sari=19.01), 4, valid_sari=19.5)
    assert collapse_text(rule, peak, "SARI") == "does not collapse (validation SARI first above 19.0 at epoch 2: 19.01)"
    assert collapse_text(rule, [{k: v for k, v in r.items() if k != "valid_sari"} for r in flat], "SARI") == (
        "collapse not read (the log has no valid_sari column)")


def test_a_collapse_after_the_earlier_cap_withdraws_that_runs_reading():
    """earlier_cap 4: first above 19.0 at epoch 5 withdraws the capped run's collapse reading; at epoch 2 it is
    run-to-run variation."""
    rule = Reading(floor="identity", metric="sari", earlier_cap=4, collapse=Collapse(rows=["c"], at_most=19.0))
    base = log(*[(8.0, 5.0, 18.0)] * 6)
    assert collapse_text(rule, changed(base, 5, valid_sari=19.2), "SARI") == (
        "does not collapse (validation SARI first above 19.0 at epoch 5: 19.20, after the earlier cap of 4 epochs: "
        "that run's collapse reading is withdrawn)")
    assert collapse_text(rule, changed(base, 2, valid_sari=19.2), "SARI").endswith(
        "by the earlier cap of 4 epochs: run-to-run variation)")
    assert collapse_text(rule, changed(base, 4, valid_sari=19.2), "SARI").endswith(  # epoch 4 is not after 4
        "by the earlier cap of 4 epochs: run-to-run variation)")


def _table():
    columns = [Column("sari", "SARI", "sari"), Column("bleu", "BLEU", "bleu")]
    table = ResultTable("t", "T", "caption", columns, ["identity", "nmt", "critic", "absent"])
    table.cells = {("identity", "sari"): Cell(None, 27.87), ("nmt", "sari"): Cell(None, 26.0),
                   ("critic", "sari"): Cell(None, 17.8, per_seed=((1, 17.8), (2, 18.5))),
                   ("absent", "sari"): Cell(None, None)}
    table.cells.update({(row, "bleu"): Cell(None, None) for row in table.rows})
    table.training = {"nmt": [(None, STOPPED)], "critic": [(1, STOPPED), (2, STOPPED)]}
    low = log(*[(8.0, 5.0, 18.0)] * 7)
    logs = {("nmt", None): SLOW, ("critic", 1): OVERFITTING, ("critic", 2): low}
    return table, logs


def test_reading_lines_use_each_seeds_own_score_and_log():
    """Seed 1 of the critic row scores 17.8 with the overfitting log (validation SARI up to 22.0: no collapse);
    seed 2 scores 18.5 with a flat log (18.0 at every epoch, loss 8.0: collapses, undetermined). A slip reading
    the first seed's log for both, or the row's mean score, changes seed 2's line. nmt is not a collapse row and
    gets no collapse clause."""
    table, logs = _table()
    rule = Reading(floor="identity", metric="sari", collapse=Collapse(rows=["critic"], at_most=19.0))
    lines = reading_lines(rule, table, logs)
    assert [line.split(":")[0] for line in lines] == ["nmt", "critic (seed 1)", "critic (seed 2)"]
    assert lines[0].startswith("nmt: test SARI 26.00, not above identity's 27.87: under-trained (")
    assert "collapse" not in lines[0]
    assert lines[1].startswith("critic (seed 1): test SARI 17.80, not above identity's 27.87: overfits (")
    assert lines[1].endswith("; does not collapse (validation SARI first above 19.0 at epoch 1: 20.00)")
    assert lines[2] == (
        "critic (seed 2): test SARI 18.50, not above identity's 27.87: undetermined (at best epoch 4: validation "
        "loss 8.000, 0.0 % below epoch 2's 8.000, training accuracy 0.0 points above epoch 2's; validation loss "
        "8.000 at epoch 4, 8.000 at epoch 7: 0.0 % lower); collapses (validation SARI at most 19.0 at every epoch; "
        "highest 18.00)")


def test_a_run_without_a_log_here_gets_no_line():
    """A run still training is left out of ``logs`` by the report (its log is partial): no line for it."""
    table, logs = _table()
    del logs[("critic", 2)]
    assert [line.split(":")[0] for line in reading_lines(RULE, table, logs)] == ["nmt", "critic (seed 1)"]


def test_the_markdown_table_prints_the_rules_and_the_reading():
    table, logs = _table()
    table.readings = reading_lines(RULE, table, logs)
    table.reading_rules = rule_text(RULE, "SARI")
    text = to_markdown(table)
    expected = ("\nReading (docs/decisions.md M6's rules, fixed before the runs, as M8 reads them: a run whose test "
                "SARI is above identity's works; below it, it overfits when its validation loss at the best epoch "
                "is at most 1.0 % below epoch 2's while its training accuracy there rose at least 15.0 points "
                "since, is under-trained when its validation loss fell more than 1.0 % from epoch E − 3 to its "
                "last epoch E, and is undetermined otherwise; a run at its epoch cap gets no reading):\n- nmt: ")
    assert expected in text


def test_a_reading_naming_an_unknown_row_or_column_is_refused():
    with pytest.raises((ConfigError, ValueError), match="reading: \\['ident'\\] are not rows of the table"):
        TableConfig(suite="s", paper="own", title="t", rows={"identity": "a", "nmt": "b"}, columns=["bleu"],
                    reading={"floor": "ident", "metric": "sari"})
    table, logs = _table()
    with pytest.raises(ValueError, match=r"tables\.t\.reading\.metric: 'rouge2' is not a column of the table; "
                                         r"allowed values: \['bleu', 'sari'\]"):
        reading_lines(Reading(floor="identity", metric="rouge2"), table, logs)


def test_the_rules_in_words_with_every_threshold():
    """The heading's sentence with non-default thresholds chosen so that a slip shows: 10 % and 20 % (from the
    fractions 0.1 and 0.2; 101 × would give 10.1 and 20.2), 12.5 points, epoch 3, the last 4 epochs, and a collapse
    at 12.34 shown to one decimal (12.3)."""
    rule = Reading(floor="identity", metric="sari", since_epoch=3, overfit_loss_gain=0.1, overfit_accuracy_rise=12.5,
                   undertrained_loss_fall=0.2, last_epochs=4, collapse=Collapse(rows=["Seq2seq"], at_most=12.34))
    assert rule_text(rule, "SARI") == (
        "docs/decisions.md M6's rules, fixed before the runs, as M8 reads them: a run whose test SARI is above "
        "identity's works; below it, it overfits when its validation loss at the best epoch is at most 10.0 % below "
        "epoch 3's while its training accuracy there rose at least 12.5 points since, is under-trained when its "
        "validation loss fell more than 20.0 % from epoch E − 4 to its last epoch E, and is undetermined otherwise; "
        "a run at its epoch cap gets no reading; a listed row collapses when its validation SARI is at most 12.3 at "
        "every epoch")


def test_missing_cells_and_a_missing_first_log_are_read_as_missing_not_as_an_end():
    """Without the floor's cell, and for a row without a cell, every line says the reading is missing (not an
    error); a row whose first seed has no log still reads its second seed (skipping, not stopping)."""
    table, logs = _table()
    del table.cells[("identity", "sari")]
    lines = reading_lines(RULE, table, logs)
    assert lines[0] == "nmt: no reading (its test SARI or the floor row's is missing)"
    table, logs = _table()
    del table.cells[("nmt", "sari")]
    del logs[("critic", 1)]
    lines = reading_lines(RULE, table, logs)
    assert lines[0] == "nmt: no reading (its test SARI or the floor row's is missing)"
    assert [line.split(":")[0] for line in lines] == ["nmt", "critic (seed 2)"]


def test_a_fall_in_training_accuracy_reads_below():
    """Training accuracy 12 at the best epoch 4 against 20 at epoch 2: "8.0 points below epoch 2's" (not "above"),
    and no overfitting."""
    text = below_floor(RULE, changed(OVERFITTING, 4, train_accuracy=12.0), STOPPED)
    assert "training accuracy 8.0 points below epoch 2's" in text and not text.startswith("overfits")
