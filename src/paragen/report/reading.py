"""Each trained row read against its table's floor row by rules fixed before the runs (``tables.<name>.reading``).

Why: a table whose trained rows all score below a trivial system (turk-mini's identity) says nothing until the
reason is known, and a reason found after looking at the runs invites a story. The rules are settings written
before the runs (docs/decisions.md M6); this module only applies them to the logs, so the reading in the table is
the pipeline's, not an author's. Each run is read at its best epoch:

- it hit its epoch cap (``TrainingOutcome.hit_cap``): no reading;
- its test score is above the floor row's: *works*;
- else *overfits* when its validation loss at the best epoch is at most ``overfit_loss_gain`` (a fraction) below
  its value at epoch ``since_epoch`` while its training accuracy there rose at least ``overfit_accuracy_rise``
  points since that epoch; *under-trained* when its validation loss fell by more than ``undertrained_loss_fall``
  from epoch E − ``last_epochs`` to its last epoch E; otherwise *undetermined*;
- a row listed under ``collapse`` also *collapses* when its validation score (the selection metric) is at most
  ``at_most`` at every epoch.
"""

from __future__ import annotations

import math
from pathlib import Path

from paragen.config.tables import Reading
from paragen.report.rounding import shown
from paragen.report.tables import ResultTable
from paragen.training.stopping import TrainingOutcome
from paragen.training.train_log import read_log

Log = list[dict[str, float]]


def _at(log: Log, epoch: int) -> dict[str, float] | None:
    return next((row for row in log if int(row["epoch"]) == epoch), None)


def _change(fraction: float, less: str, more: str) -> str:
    """"12.9 % below" for a positive fraction, "3.0 % above" for a negative one (words as given)."""
    return f"{shown(100 * abs(fraction), 1)} % {less if fraction >= 0 else more}"


def below_floor(rule: Reading, log: Log, outcome: TrainingOutcome) -> str:
    """"overfits (...)", "under-trained (...)" or "undetermined (...)" for a run below the floor, with the figures
    each rule read."""
    best, start = _at(log, outcome.best_epoch), _at(log, rule.since_epoch)
    last = int(log[-1]["epoch"])
    before = _at(log, last - rule.last_epochs)
    if outcome.best_epoch < rule.since_epoch:
        return (f"undetermined (its best epoch {outcome.best_epoch} comes before epoch {rule.since_epoch}, which "
                "the rules compare it with)")
    if best is None or start is None or before is None:
        return (f"undetermined (its log lacks epoch {rule.since_epoch}, its best epoch or epoch "
                f"{last - rule.last_epochs})")
    gain = (start["valid_loss"] - best["valid_loss"]) / start["valid_loss"]
    rise = best["train_accuracy"] - start["train_accuracy"]
    fall = (before["valid_loss"] - log[-1]["valid_loss"]) / before["valid_loss"]
    figures = (f"validation loss {shown(best['valid_loss'], 3)} at best epoch {outcome.best_epoch}, "
               f"{_change(gain, 'below', 'above')} epoch {rule.since_epoch}'s {shown(start['valid_loss'], 3)}; "
               f"training accuracy {shown(abs(rise), 1)} points {'above' if rise >= 0 else 'below'} epoch "
               f"{rule.since_epoch}'s; validation loss {shown(before['valid_loss'], 3)} at epoch "
               f"{last - rule.last_epochs}, {shown(log[-1]['valid_loss'], 3)} at epoch {last}: "
               f"{_change(fall, 'lower', 'higher')}")
    if math.isnan(rise) or math.isnan(gain) or math.isnan(fall):
        return f"undetermined (a logged value is missing: {figures})"
    if gain <= rule.overfit_loss_gain and rise >= rule.overfit_accuracy_rise:
        return f"overfits ({figures})"
    if fall > rule.undertrained_loss_fall:
        return f"under-trained ({figures})"
    return f"undetermined ({figures})"


def collapse_text(rule: Reading, log: Log) -> str:
    """"collapses (...)" or "does not collapse (...)": the highest validation score against ``at_most``."""
    assert rule.collapse is not None
    highest = max(log, key=lambda row: row["valid_metric"])
    limit = rule.collapse.at_most
    if highest["valid_metric"] <= limit:
        return (f"collapses (validation score at most {shown(limit, 1)} at every epoch; highest "
                f"{shown(highest['valid_metric'], 2)})")
    return (f"does not collapse (validation score {shown(highest['valid_metric'], 2)} at epoch "
            f"{int(highest['epoch'])}, above {shown(limit, 1)})")


def read_run(rule: Reading, log: Log, outcome: TrainingOutcome, score: float | None, floor: float | None,
             metric: str, collapses: bool) -> str:
    """One run's reading: its test ``score`` against the ``floor`` row's, then the rules above."""
    parts = []
    if outcome.hit_cap:
        parts.append(f"hit its {outcome.max_epochs}-epoch cap: no reading")
    elif score is None or floor is None:
        parts.append(f"no reading (its test {metric} or the floor row's is missing)")
    elif score > floor:
        parts.append(f"works (test {metric} {shown(score, 2)}, above {rule.floor}'s {shown(floor, 2)})")
    else:
        parts.append(f"test {metric} {shown(score, 2)}, not above {rule.floor}'s {shown(floor, 2)}: "
                     + below_floor(rule, log, outcome))
    if collapses:
        parts.append(collapse_text(rule, log))
    return "; ".join(parts)


def reading_lines(rule: Reading, table: ResultTable, logs: dict[str, list[Path]]) -> list[str]:
    """One line per trained run of ``table`` (``logs``: per row, its runs' train_log.csv in the order of
    ``table.training[row]``), e.g. "base transformer: test SARI 26.90, not above identity's 27.87: undetermined
    (...)". Rows without a log (not run, or a run that predates logs) get no line."""
    label = next((c.label for c in table.columns if c.key == rule.metric), rule.metric)
    floor = table.cells.get((rule.floor, rule.metric))
    floor_score = floor.reproduced if floor is not None else None
    collapsing = set(rule.collapse.rows) if rule.collapse else set()
    lines = []
    for row, runs in table.training.items():
        cell = table.cells.get((row, rule.metric))
        per_seed = dict(cell.per_seed) if cell is not None else {}
        for (seed, outcome), path in zip(runs, logs.get(row, [])):
            if not path.exists():
                continue
            score = per_seed.get(seed) if seed is not None else (cell.reproduced if cell is not None else None)
            text = read_run(rule, read_log(path), outcome, score, floor_score, label, row in collapsing)
            lines.append(f"{row}{'' if seed is None else f' (seed {seed})'}: {text}")
    return lines
