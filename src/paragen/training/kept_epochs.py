"""Checkpoints of chosen epochs (``training.*.keep_epochs``), for analyses that decode an epoch other than the
selected one: e.g. the epoch whose validation scores come closest to a paper's row, decoded on the test set to test
whether the paper's model was trained that long (docs/decisions.md, S12).

Each kept epoch is saved under the run's resume folder as the epoch ends, so a resumed run still has the epochs it
kept before the stop, and a run that starts over drops those of the abandoned trajectory. With the run, they are
published to ``runs/<experiment>/epochs/epoch<k>.pt`` (a directory the train stage owns whole), in the same form
as ``best.pt``, so ``paragen decode --checkpoint`` reads them like any other checkpoint.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from paragen.atomic import replaced_directory
from paragen.config import TrainingConfig

EPOCHS_DIR = "epochs"


def keeps(training: TrainingConfig, epoch: int) -> bool:
    """Whether ``epoch``'s weights are kept: ``keep_epochs`` is ``all`` or lists it."""
    return training.keep_epochs == "all" or epoch in training.keep_epochs


def epoch_checkpoint(run_dir: str | Path, epoch: int) -> Path:
    return Path(run_dir) / EPOCHS_DIR / f"epoch{epoch}.pt"


def save_epoch(resume_dir: Path, epoch: int, checkpoint: dict[str, Any]) -> None:
    from paragen.training.checkpoint import save_torch

    save_torch(checkpoint, epoch_checkpoint(resume_dir, epoch))


def forget(resume_dir: Path) -> None:
    """A run starting from epoch 0: no kept epoch of an earlier trajectory may be published with it."""
    shutil.rmtree(resume_dir / EPOCHS_DIR, ignore_errors=True)


def publish_epochs(resume_dir: Path, run_dir: Path) -> list[int]:
    """Replace ``run_dir/epochs/`` with the kept epochs; returns their numbers, in order."""
    kept = sorted(resume_dir.joinpath(EPOCHS_DIR).glob("epoch*.pt"), key=lambda p: int(p.stem[5:]))
    with replaced_directory(run_dir / EPOCHS_DIR) as staging:
        for path in kept:
            shutil.copyfile(path, staging / path.name)
    return [int(p.stem[5:]) for p in kept]
