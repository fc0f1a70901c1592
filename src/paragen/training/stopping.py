"""The early-stopping rule, and how a finished run ended, replayed from its logged validation scores.

Kept apart from :mod:`paragen.training.trainer` (and free of torch) so the report can say, per table row, which
epoch was selected and whether the run stopped early or hit the epoch cap.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paragen.config import TrainingConfig

RESUME_DIR = "resume"  # in a run directory: the resume state (paragen.training.trainer), kept across reruns
SESSIONS_FILE = "sessions.json"  # in a run directory: TrainState.sessions, published with the log


@dataclass
class TrainState:
    """Everything needed to continue training exactly where it stopped."""

    epoch: int = 0
    best_metric: float = float("-inf")
    best_epoch: int = 0
    bad_epochs: int = 0
    log_rows: list[dict[str, float]] = field(default_factory=list)
    finished: bool = False
    optimizer_steps: int = 0  # what the learning-rate schedule counts (absent from states saved before it: 0)
    # One entry per process that trained: the first epoch it ran and the device it ran on, so a table can name
    # the hardware and show where a run was split (absent from states saved before it: empty).
    sessions: list[dict[str, Any]] = field(default_factory=list)

    def stopped(self, training: TrainingConfig) -> bool:
        """The stopping rule: ``patience`` epochs without a validation gain (counted only from ``min_epochs``
        on), or ``max_epochs`` reached."""
        early = self.bad_epochs >= training.patience and self.epoch >= training.min_epochs
        return early or self.epoch >= training.max_epochs

    def record(self, epoch: int, metric: float) -> bool:
        """Account one epoch's validation score; True when it is the best so far."""
        self.epoch = epoch
        if metric > self.best_metric:
            self.best_metric, self.best_epoch, self.bad_epochs = metric, epoch, 0
            return True
        self.bad_epochs += 1
        return False


def _replay(log_rows: list[dict[str, float]], training: TrainingConfig) -> TrainState:
    replay = TrainState()
    for row in log_rows:
        replay.record(int(row["epoch"]), row["valid_metric"])
        if replay.stopped(training):
            break
    return replay


def replayed_stop(log_rows: list[dict[str, float]], training: TrainingConfig) -> int:
    """The epoch at which ``training``'s stopping rule ends a run with these logged validation scores."""
    return _replay(log_rows, training).epoch


@dataclass(frozen=True)
class TrainingOutcome:
    """How a finished run ended, for tables: a run that hit the epoch cap may be under-trained."""

    best_epoch: int
    epochs_run: int
    max_epochs: int
    patience: int
    min_epochs: int = 0

    @property
    def hit_cap(self) -> bool:
        return self.epochs_run >= self.max_epochs and self.best_epoch > self.epochs_run - self.patience

    def describe(self) -> str:
        text = f"best epoch {self.best_epoch} of {self.epochs_run} run; "
        if self.hit_cap:
            since = self.epochs_run - self.best_epoch
            how = "while still improving" if since == 0 else \
                f"{since} epoch(s) after its best, before early stopping (patience {self.patience})"
            return text + f"hit the {self.max_epochs}-epoch cap {how}: possibly under-trained"
        floor = f"; no early stop before epoch {self.min_epochs}" if self.min_epochs else ""
        return text + f"stopped early ({self.epochs_run - self.best_epoch} epochs without a validation gain{floor})"


def training_outcome(log_rows: list[dict[str, float]], training: TrainingConfig) -> TrainingOutcome:
    """Best epoch, epochs run and how the run stopped, replayed from its logged validation scores."""
    replay = _replay(log_rows, training)
    return TrainingOutcome(replay.best_epoch, replay.epoch, training.max_epochs, training.patience,
                           training.min_epochs)


STOPPING_KEYS = ("max_epochs", "patience", "min_epochs")
"""The settings of the stopping rule a training session records (``sessions.json``): a report judges a run by
them, not by whatever params.yaml says later."""


def trained_with(sessions: list[dict[str, Any]], current: TrainingConfig) -> TrainingConfig:
    """``current`` with the stopping rule the run's last session trained under (runs from before sessions recorded
    it keep ``current``)."""
    recorded = sessions[-1].get("stopping") if sessions else None
    if not isinstance(recorded, dict):
        return current
    return current.model_copy(update={k: int(recorded[k]) for k in STOPPING_KEYS if k in recorded})


def settings_of_run(run_dir: Path, current: TrainingConfig) -> TrainingConfig:
    """The stopping rule ``run_dir``'s run trained under (its sessions.json), else ``current``."""
    sessions = run_dir / SESSIONS_FILE
    if not sessions.exists():
        return current
    return trained_with(json.loads(sessions.read_text(encoding="utf-8")), current)
