"""Each trained row read against its table's floor row by rules fixed before the runs (``tables.<name>.reading``).

Why: a table whose trained rows all score below a trivial system (turk-mini's identity) says nothing until the
reason is known, and a reason found after looking at the runs invites a story. The rules are settings written
before the runs (docs/decisions.md M6; M8 says how "its last 3 epochs" is read); this module only applies them to
the logs, so the reading in the table is the pipeline's, not an author's. Each run is read at its best epoch:

- it hit its epoch cap (``TrainingOutcome.hit_cap``): no reading at all;
- its test score is above the floor row's: *works*;
- else *overfits* when its validation loss at the best epoch is at most ``overfit_loss_gain`` (a fraction) below
  its value at epoch ``since_epoch`` while its training accuracy there rose at least ``overfit_accuracy_rise``
  points since that epoch (not read when the best epoch comes before ``since_epoch``); *under-trained* when its
  validation loss fell by more than ``undertrained_loss_fall`` from epoch E − ``last_epochs`` to its last epoch E
  (not read on a shorter log); otherwise *undetermined*;
- with ``earlier_cap`` (the cap of the table the run replaces): a best epoch after it credits a change from that
  table to the longer training, one at or before it to run-to-run variation;
- a row listed under ``collapse`` also *collapses* when its validation score on ``metric`` (the log's
  ``valid_<metric>`` column) is at most ``at_most`` at every epoch; if not, the first epoch above it is named and,
  with ``earlier_cap``, whether it came after that cap.

Every comparison is made on the logged decimals (:func:`paragen.rounding.exact`), so a value exactly at a
threshold is read as the rule says ("more than 1 %", "at most 1 %"), not as its binary neighbour.
"""

from __future__ import annotations

from decimal import Decimal

from paragen.config.tables import Reading
from paragen.rounding import exact, shown
from paragen.report.tables import ResultTable
from paragen.training.stopping import TrainingOutcome

Log = list[dict[str, float]]


def _value(row: dict[str, float] | None, key: str) -> Decimal | None:
    """The logged value as a decimal; None where the epoch or the column is missing or the value is NaN."""
    if row is None or key not in row or row[key] != row[key]:
        return None
    return exact(row[key])


def _at(log: Log, epoch: int) -> dict[str, float] | None:
    return next((row for row in log if int(row["epoch"]) == epoch), None)


def _change(fraction: Decimal, less: str, more: str) -> str:
    """"12.9 % below" for a positive fraction, "3.0 % above" for a negative one (words as given)."""
    return f"{shown(100 * abs(fraction), 1)} % {less if fraction >= 0 else more}"


def metric_label(rule: Reading, table: ResultTable) -> str:
    """The label of the column the rules read (``rule.metric``), refused when the table has no such column."""
    columns = {c.key: c.label for c in table.columns}
    if rule.metric not in columns:
        raise ValueError(f"tables.{table.name}.reading.metric: {rule.metric!r} is not a column of the table; "
                         f"allowed values: {sorted(columns)}")
    return columns[rule.metric]


def rule_text(rule: Reading, label: str) -> str:
    """The rules in words, with their thresholds, for the section's heading (``label``: the metric's column)."""
    text = (f"docs/decisions.md M6's rules, fixed before the runs, as M8 reads them: a run whose test {label} is "
            f"above {rule.floor}'s works; below it, it overfits when its validation loss at the best epoch is at most "
            f"{shown(100 * rule.overfit_loss_gain, 1)} % below epoch {rule.since_epoch}'s while its training "
            f"accuracy there rose at least {shown(rule.overfit_accuracy_rise, 1)} points since, is under-trained when "
            f"its validation loss fell more than {shown(100 * rule.undertrained_loss_fall, 1)} % from epoch "
            f"E − {rule.last_epochs} to its last epoch E, and is undetermined otherwise; a run at its epoch cap gets "
            "no reading")
    if rule.collapse is not None:
        text += (f"; a listed row collapses when its validation {label} is at most "
                 f"{shown(rule.collapse.at_most, 1)} at every epoch")
    return text


def below_floor(rule: Reading, log: Log, outcome: TrainingOutcome) -> str:
    """"overfits (...)", "under-trained (...)" or "undetermined (...)" for a run below the floor, with the figures
    each rule read (or why it could not be read)."""
    best_epoch, since, last = outcome.best_epoch, rule.since_epoch, int(log[-1]["epoch"])
    figures, overfits, undertrained = [], False, False
    best, start = _at(log, best_epoch), _at(log, since)
    losses = (_value(best, "valid_loss"), _value(start, "valid_loss"))
    accuracies = (_value(best, "train_accuracy"), _value(start, "train_accuracy"))
    if best_epoch < since:
        figures.append(f"best epoch {best_epoch} comes before epoch {since}: overfitting not read")
    elif None in losses or None in accuracies:
        figures.append(f"no validation loss or training accuracy logged at epoch {since} or {best_epoch}: "
                       "overfitting not read")
    else:
        gain = (losses[1] - losses[0]) / losses[1]
        rise = accuracies[0] - accuracies[1]
        overfits = gain <= exact(rule.overfit_loss_gain) and rise >= exact(rule.overfit_accuracy_rise)
        figures.append(f"at best epoch {best_epoch}: validation loss {shown(losses[0], 3)}, "
                       f"{_change(gain, 'below', 'above')} epoch {since}'s {shown(losses[1], 3)}, training accuracy "
                       f"{shown(abs(rise), 1)} points {'above' if rise >= 0 else 'below'} epoch {since}'s")
    first = last - rule.last_epochs
    ends = (_value(_at(log, first), "valid_loss"), _value(log[-1], "valid_loss"))
    if first < 1 or None in ends:
        figures.append(f"no validation loss logged at epoch {first} or {last}: under-training not read")
    else:
        fall = (ends[0] - ends[1]) / ends[0]
        undertrained = fall > exact(rule.undertrained_loss_fall)
        figures.append(f"validation loss {shown(ends[0], 3)} at epoch {first}, {shown(ends[1], 3)} at epoch "
                       f"{last}: {_change(fall, 'lower', 'higher')}")
    verdict = "overfits" if overfits else "under-trained" if undertrained else "undetermined"
    return f"{verdict} ({'; '.join(figures)})"


def collapse_text(rule: Reading, log: Log, label: str) -> str:
    """"collapses (...)" or "does not collapse (...)": the validation ``metric`` at every epoch against
    ``at_most``; the first epoch above it is named (and set against ``earlier_cap``)."""
    assert rule.collapse is not None
    column, limit = f"valid_{rule.metric}", exact(rule.collapse.at_most)
    scores = [(int(row["epoch"]), _value(row, column)) for row in log]
    scores = [(epoch, score) for epoch, score in scores if score is not None]
    if not scores:
        return f"collapse not read (the log has no {column} column)"
    above = [(epoch, score) for epoch, score in scores if score > limit]
    if not above:
        highest = max(score for _, score in scores)
        return (f"collapses (validation {label} at most {shown(limit, 1)} at every epoch; highest "
                f"{shown(highest, 2)})")
    epoch, score = above[0]
    text = f"does not collapse (validation {label} first above {shown(limit, 1)} at epoch {epoch}: {shown(score, 2)}"
    if rule.earlier_cap is not None:
        text += (f", after the earlier cap of {rule.earlier_cap} epochs: that run's collapse reading is withdrawn"
                 if epoch > rule.earlier_cap else
                 f", by the earlier cap of {rule.earlier_cap} epochs: run-to-run variation")
    return text + ")"


def read_run(rule: Reading, log: Log, outcome: TrainingOutcome, score: float | None, floor: float | None,
             metric: str, collapses: bool) -> str:
    """One run's reading: its test ``score`` against the ``floor`` row's, then the rules above."""
    if outcome.hit_cap:
        return f"hit its {outcome.max_epochs}-epoch cap: no reading"
    if score is None or floor is None:
        parts = [f"no reading (its test {metric} or the floor row's is missing)"]
    elif exact(score) > exact(floor):
        parts = [f"works (test {metric} {shown(score, 2)}, above {rule.floor}'s {shown(floor, 2)})"]
    else:
        parts = [f"test {metric} {shown(score, 2)}, not above {rule.floor}'s {shown(floor, 2)}: "
                 + below_floor(rule, log, outcome)]
    if rule.earlier_cap is not None:
        parts.append(f"best epoch {outcome.best_epoch} " + (
            f"is after the earlier cap of {rule.earlier_cap}: a change from the capped run counts as the longer "
            "training's" if outcome.best_epoch > rule.earlier_cap else
            f"is within the earlier cap of {rule.earlier_cap}: a change from the capped run counts as run-to-run "
            "variation"))
    if collapses:
        parts.append(collapse_text(rule, log, metric))
    return "; ".join(parts)


def reading_lines(rule: Reading, table: ResultTable, logs: dict[tuple[str, int | None], Log]) -> list[str]:
    """One line per trained run of ``table`` whose log (as read for its training outcome) is in ``logs`` (keyed by
    row and seed, the seed None for a row's only run; a run still training is left out of it), e.g. "base
    transformer: test SARI 26.90, not above identity's 27.87: undetermined (...)"."""
    return [f"{run}: {text}" for run, text in read_runs(rule, table, logs)]


def read_runs(rule: Reading, table: ResultTable, logs: dict[tuple[str, int | None], Log]) -> list[tuple[str, str]]:
    """(the run's row, with its seed where the row has several; its reading) for :func:`reading_lines`."""
    label = metric_label(rule, table)
    floor = table.cells.get((rule.floor, rule.metric))
    floor_score = floor.reproduced if floor is not None else None
    collapsing = set(rule.collapse.rows) if rule.collapse else set()
    lines = []
    for row, runs in table.training.items():
        cell = table.cells.get((row, rule.metric))
        per_seed = dict(cell.per_seed) if cell is not None else {}
        for seed, outcome in runs:
            log = logs.get((row, seed))
            if log is None:
                continue
            score = per_seed.get(seed) if seed is not None else (cell.reproduced if cell is not None else None)
            text = read_run(rule, log, outcome, score, floor_score, label, row in collapsing)
            lines.append((f"{row}{'' if seed is None else f' (seed {seed})'}", text))
    return lines


def reading_summary(text: str) -> str:
    """A run's reading (:func:`read_run`'s text) without its figures: the parenthesised detail and the clause
    placing its best epoch against an earlier cap dropped, its verdicts kept, e.g. "test SARI 26.90, not above
    identity's 27.87: undetermined" or "...: undetermined; collapses"."""
    depth, kept = 0, []
    for ch in text:
        depth += ch == "("
        if depth == 0:
            kept.append(ch)
        depth -= ch == ")" and depth > 0
    parts = [" ".join(part.split()) for part in "".join(kept).split(";")]
    return "; ".join(part for part in parts if part and not part.startswith("best epoch "))
