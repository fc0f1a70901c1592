"""Progress on long work, in a terminal and in a log file alike.

tqdm draws its bar only when stderr is a terminal; under Snakemake, DVC or SLURM stderr is a log file, and a
paper-scale decode or training epoch would then run for half an hour without a line. There the same bar is
written as ordinary log lines, at most one a minute: ``decode: 120/625 batch (19 %), 03:12 elapsed, 13:40 left``.
"""

from __future__ import annotations

import logging
import sys
import time
from typing import Any, Iterable

from tqdm.auto import tqdm

log = logging.getLogger("paragen.progress")

LOG_INTERVAL_S = 60.0
"""Seconds between two progress lines in a log file."""
LOG_FORMAT = "{desc}: {n_fmt}/{total_fmt} {unit} ({percentage:.0f} %), {elapsed} elapsed, {remaining} left{postfix}"


class _LogLines:
    """A file-like sink for tqdm that logs a refresh as one line (carriage returns dropped): the first, then at
    most one per ``interval_s`` (tqdm also refreshes on every ``set_postfix``), and the one at 100 %. The bar is
    kept (``leave``), so that closing it writes its last state; a line equal to the one before is not repeated."""

    def __init__(self, interval_s: float) -> None:
        self.interval_s = interval_s
        self.last: float | None = None
        self.previous = ""

    def write(self, text: str) -> None:
        line = text.replace("\r", "").strip()
        now = time.monotonic()
        if line and line != self.previous and (self.last is None or now - self.last >= self.interval_s
                                               or " (100 %)" in line):
            self.last, self.previous = now, line
            log.info("%s", line)

    def flush(self) -> None:
        return None


def progress_bar(iterable: Iterable[Any] | None = None, *, enabled: bool, interval_s: float = LOG_INTERVAL_S,
                 **kwargs: Any) -> tqdm:
    """tqdm over ``iterable`` (``desc``, ``unit``, ``total`` … as tqdm takes them): a bar on a terminal, a log
    line every ``interval_s`` seconds otherwise, nothing when ``enabled`` is false."""
    if not enabled:
        return tqdm(iterable, disable=True, **kwargs)
    if sys.stderr.isatty():
        return tqdm(iterable, leave=False, **kwargs)
    return tqdm(iterable, file=_LogLines(interval_s), mininterval=interval_s, leave=True, bar_format=LOG_FORMAT,
                **kwargs)
