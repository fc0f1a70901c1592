"""Reading a run's ``train_log.csv`` (one row per epoch, written by :mod:`paragen.training.trainer`): what the
report's curves and captions and the closest-epoch decode read."""

from __future__ import annotations

import csv
from pathlib import Path


def read_log(path: str | Path) -> list[dict[str, float]]:
    """Rows of a train_log.csv; a column an older run did not write (an empty cell) reads as NaN."""
    with open(path, encoding="utf-8") as handle:
        return [{k: float(v) if v != "" else float("nan") for k, v in row.items()} for row in csv.DictReader(handle)]
