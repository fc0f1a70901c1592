"""What the one trainer minimises on a batch: the model's sequence loss, plus the critic loss (003 DCSS).

The critic (``training.*.critic``) is computed from the same teacher-forced log-probabilities as the
sequence loss (:func:`paragen.models.critic.critic_loss`). ``mode: sum`` minimises
L_seq + λ·L_critic on every batch (the report's plan, §3.2.3); ``mode: alternate`` minimises L_seq on
odd optimiser steps and λ·L_critic on even ones (one batch each, as Zhao et al.'s code trains).
"""

from __future__ import annotations

import torch

from paragen.data.batching import Batch
from paragen.config import TrainingConfig
from paragen.models.critic import RuleTable, critic_loss
from paragen.models.seq2seq import Loss


def objective(result: Loss, batch: Batch, training: TrainingConfig, step: int, model: torch.nn.Module,
              rules: RuleTable | None) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """(what to minimise, every term's detached 0-d tensor) for optimiser step ``step`` (1-based)."""
    if training.critic is None:
        return result.total, result.terms
    if rules is None or result.log_probs is None:
        raise ValueError("training.critic needs the rule table and the model's teacher-forced log-probabilities")
    critic = critic_loss(result.log_probs, batch.src, model.target_ids(batch.tgt_out), rules,
                         training.critic.variant)
    terms = {**result.terms, "critic": critic.detach()}
    weighted = training.critic.weight * critic
    if training.critic.mode == "sum":
        return result.total + weighted, terms
    return (result.total if step % 2 == 1 else weighted), terms
