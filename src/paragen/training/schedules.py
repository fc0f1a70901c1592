"""Learning-rate schedules, as multipliers of ``training.*.learning_rate``.

- ``constant``: the rate never changes (the RNN papers' Adam settings).
- ``inverse_sqrt``: Vaswani et al. (2017, §5.3)'s warm-up, written with its peak: the rate rises
  linearly for ``warmup_steps`` optimiser steps, then decays with the inverse square root of the step,
  rate = learning_rate · min(step / warmup, (step / warmup)^-0.5). Vaswani's own form
  d_model^-0.5 · min(step^-0.5, step · warmup^-1.5) is this with learning_rate = (d_model · warmup)^-0.5.
  The simplification report trains its Transformer with it (003 §4.3.2).
- ``halve_after``: the rate is halved at the start of every epoch after epoch ``halve_after_epoch``
  (SPM, 004 Table 2: "×0.5 per epoch after epoch 9").

The multiplier is a pure function of (optimiser step, epoch), so a resumed run that restores both
counts continues with exactly the rate an uninterrupted run would use.
"""

from __future__ import annotations

from paragen.config import TrainingConfig


def rate_multiplier(training: TrainingConfig, step: int, epoch: int) -> float:
    """Multiplier of the learning rate for optimiser step ``step`` (1-based) within epoch ``epoch`` (1-based)."""
    if training.schedule == "inverse_sqrt":
        ratio = step / training.warmup_steps
        return min(ratio, ratio ** -0.5)
    if training.schedule == "halve_after":
        return 0.5 ** max(0, epoch - training.halve_after_epoch)
    return 1.0


def set_rate(optimizer, training: TrainingConfig, step: int, epoch: int) -> float:
    """Set every parameter group's rate for this step; returns it."""
    rate = training.learning_rate * rate_multiplier(training, step, epoch)
    for group in optimizer.param_groups:
        group["lr"] = rate
    return rate
