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
from paragen.metrics.degenerate import Degenerate

RESUME_DIR = "resume"  # in a run directory: the resume state (paragen.training.trainer), kept across reruns
RESUME_RECORD = "resume.json"  # in a run directory: the digest of what the run trained on (DVC's persistent output)
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
    best_loss: float = float("inf")  # floor_by_loss: the lowest validation loss while the metric sat at 0

    def stopped(self, training: TrainingConfig) -> bool:
        """The stopping rule: ``patience`` epochs without a validation gain (counted only from ``min_epochs``
        on), or ``max_epochs`` reached."""
        early = self.bad_epochs >= training.patience and self.epoch >= training.min_epochs
        return early or self.epoch >= training.max_epochs

    def record(self, epoch: int, metric: float, loss: float | None = None, floor_by_loss: bool = False) -> bool:
        """Account one epoch's validation score; True when it is the best so far. With ``floor_by_loss``, while
        the metric is still at its floor (0 now and for every epoch before), a lower validation ``loss`` is the
        gain: the first epochs of a run on tiny data otherwise all tie at 0, and the run stops (``patience``) or
        keeps epoch 1's weights before the metric can move."""
        self.epoch = epoch
        if floor_by_loss and loss is not None and metric <= 0.0 and self.best_metric <= 0.0:
            if loss < self.best_loss:
                self.best_metric, self.best_loss, self.best_epoch, self.bad_epochs = metric, loss, epoch, 0
                return True
            self.bad_epochs += 1
            return False
        if metric > self.best_metric:
            self.best_metric, self.best_epoch, self.bad_epochs = metric, epoch, 0
            return True
        self.bad_epochs += 1
        return False


def _replay(log_rows: list[dict[str, float]], training: TrainingConfig) -> TrainState:
    replay = TrainState()
    for row in log_rows:
        replay.record(int(row["epoch"]), row["valid_metric"], row.get("valid_loss"), training.floor_by_loss)
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
    degenerate: Degenerate | None = None  # the selected epoch's greedy validation outputs (logs that count them)

    @property
    def hit_cap(self) -> bool:
        return self.epochs_run >= self.max_epochs and self.best_epoch > self.epochs_run - self.patience

    def describe(self) -> str:
        text = f"best epoch {self.best_epoch} of {self.epochs_run} run; "
        if self.hit_cap:
            since = self.epochs_run - self.best_epoch
            how = "while still improving" if since == 0 else \
                f"{since} epoch(s) after its best, before early stopping (patience {self.patience})"
            return text + f"hit the {self.max_epochs}-epoch cap {how}: possibly under-trained" + self.degenerate_text()
        floor = f"; no early stop before epoch {self.min_epochs}" if self.min_epochs else ""
        return text + f"stopped early ({self.epochs_run - self.best_epoch} epochs without a validation gain{floor})" \
            + self.degenerate_text()

    def degenerate_text(self) -> str:
        """``"; at the selected epoch 30 of 30 validation outputs empty"`` where more than the marked share were."""
        if self.degenerate is None or not self.degenerate.marked:
            return ""
        return f"; at the selected epoch {self.degenerate.describe('validation outputs')}"


def training_outcome(log_rows: list[dict[str, float]], training: TrainingConfig) -> TrainingOutcome:
    """Best epoch, epochs run and how the run stopped, replayed from its logged validation scores."""
    replay = _replay(log_rows, training)
    best = next((row for row in log_rows if int(row["epoch"]) == replay.best_epoch), {})
    counts = [best.get(k) for k in ("valid_empty", "valid_repeated", "valid_lines")]  # NaN: an older run's log
    degenerate = Degenerate(*map(int, counts)) if all(c is not None and c == c for c in counts) else None
    return TrainingOutcome(replay.best_epoch, replay.epoch, training.max_epochs, training.patience,
                           training.min_epochs, degenerate)


STOPPING_KEYS = ("max_epochs", "patience", "min_epochs", "floor_by_loss")
"""The settings of the stopping rule a training session records (``sessions.json``): a report judges a run by
them, not by whatever params.yaml says later."""


def trained_with(sessions: list[dict[str, Any]], current: TrainingConfig) -> TrainingConfig:
    """``current`` with the stopping rule the run's last session trained under (runs from before sessions recorded
    it keep ``current``)."""
    recorded = sessions[-1].get("stopping") if sessions else None
    if not isinstance(recorded, dict):
        return current
    return current.model_copy(update={k: type(getattr(current, k))(recorded[k]) for k in STOPPING_KEYS
                                      if k in recorded})


def settings_of_run(run_dir: Path, current: TrainingConfig) -> TrainingConfig:
    """The stopping rule ``run_dir``'s run trained under (its sessions.json), else ``current``."""
    sessions = run_dir / SESSIONS_FILE
    if not sessions.exists():
        return current
    return trained_with(json.loads(sessions.read_text(encoding="utf-8")), current)
