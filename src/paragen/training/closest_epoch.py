"""Which epoch of a run looks most like the paper's row (a test of the hypothesis that a row is under-trained).

CopyNet §5.1 gives no optimiser, epochs or stopping rule. If a published row came from a model trained for
fewer (or more) epochs than ours, the epoch at which our per-rule-type validation accuracies are closest to
that row tells how many. Closeness is the mean absolute difference over the columns the paper reports.
The table's cells stay the best-validation checkpoint's test scores; the caption names the closest epoch, and
a row listed in a table's ``closest_epochs`` also shows that epoch's checkpoint decoded on the test set
(:mod:`paragen.training.closest_choice`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence


@dataclass(frozen=True)
class ClosestEpoch:
    epoch: int
    distance: float  # mean absolute difference (points) over the paper's columns
    best_epoch_distance: float | None  # the same at the selected (best validation) epoch, for comparison
    tied: int = 1  # epochs at exactly this distance (the earliest is ``epoch``): above 1, the tie rule chose


def closest_epoch(rows: Sequence[Mapping[str, float]], paper: Mapping[str, float], columns: Mapping[str, str],
                  best_epoch: int | None = None) -> ClosestEpoch | None:
    """The epoch of ``rows`` (train_log.csv rows, or their per-epoch mean over seeds) minimising the mean absolute
    difference between ``row[columns[key]]`` and ``paper[key]`` over the keys both have; earliest on ties. None
    when no epoch has every column (a log from before per-type logging)."""
    keys = [k for k in paper if k in columns]
    scored: list[tuple[float, int]] = []
    for row in rows:
        values = [row.get(columns[k], math.nan) for k in keys]
        if keys and not any(math.isnan(v) for v in values):
            scored.append((sum(abs(v - paper[k]) for v, k in zip(values, keys)) / len(keys), int(row["epoch"])))
    if not scored:
        return None
    distance, epoch = min(scored, key=lambda pair: (pair[0], pair[1]))
    at_best = next((d for d, e in scored if e == best_epoch), None)
    return ClosestEpoch(epoch, distance, at_best, sum(d == distance for d, _ in scored))


def held_out_epochs(rows: Sequence[Mapping[str, float]], paper: Mapping[str, float],
                    columns: Mapping[str, str]) -> dict[str, ClosestEpoch]:
    """Per column key the paper reports, the epoch closest to the paper's row on validation over the *other* keys
    (:func:`closest_epoch` with that key left out): the epoch the hypothesis "the paper's model is ours trained this
    long" picks without looking at the key, whose test score at that epoch is then a prediction of the paper's
    number that can fail. Keys with no other key to choose on are left out."""
    keys = [k for k in paper if k in columns]
    found = {}
    for key in keys:
        others = {k: paper[k] for k in keys if k != key}
        choice = closest_epoch(rows, others, columns) if others else None
        if choice is not None:
            found[key] = choice
    return found


@dataclass(frozen=True)
class ValidationPrediction:
    """One left-out column of :func:`held_out_on_validation`: the epoch chosen without it and its validation score
    there, beside its validation score at the selected epoch (points, as the log has them)."""

    epoch: int
    valid: float
    selected_valid: float
    paper: float
    tied: int = 1  # epochs as close on the other columns as ``epoch`` (the earliest was taken)


def held_out_on_validation(rows: Sequence[Mapping[str, float]], paper: Mapping[str, float],
                           columns: Mapping[str, str], selected: int) -> dict[str, ValidationPrediction]:
    """:func:`held_out_epochs` read on the log alone (docs/decisions.md S21): per left-out key, its *validation*
    score ``row[columns[key]]`` at the epoch chosen on the other keys, and at the ``selected`` epoch, beside the
    paper's number. Validation lines are other instances of the test's rules, so this stands in for the test-set
    prediction where the chosen epoch's weights were not kept; the key plays no part in choosing its epoch."""
    by_epoch = {int(row["epoch"]): row for row in rows}
    return {key: ValidationPrediction(choice.epoch, by_epoch[choice.epoch][columns[key]],
                                      by_epoch[selected][columns[key]], paper[key], choice.tied)
            for key, choice in held_out_epochs(rows, paper, columns).items()}


def mean_rows(logs: Sequence[Sequence[Mapping[str, float]]]) -> list[dict[str, float]]:
    """Per epoch, the mean of every column over the logs that reached it (several seeds of one row)."""
    by_epoch: dict[float, list[Mapping[str, float]]] = {}
    for rows in logs:
        for row in rows:
            by_epoch.setdefault(row["epoch"], []).append(row)
    return [{key: sum(r.get(key, math.nan) for r in group) / len(group) for key in group[0]}
            for _, group in sorted(by_epoch.items())]
