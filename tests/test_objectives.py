"""What the trainer minimises with DCSS's critic (003 §3.2.3): L_seq and λ·L_critic, alternated or summed.

One hand-made batch whose critic value differs between the report's Eq. 4 and the §5.5 fix, so that each
configured variant, mode and weight shows in the number :func:`paragen.training.objectives.objective` returns.
"""

from __future__ import annotations

import math

import pytest
import torch

from paragen.data.batching import Batch
from paragen.config import CriticConfig, TrainingConfig, load_config
from paragen.models.critic import RuleTable
from paragen.models.seq2seq import Loss
from paragen.training.objectives import objective
from paragen.data.vocabulary import BOS_ID, EOS_ID

from conftest import ROOT

# ids 0-3: <pad> <unk> <s> </s>; then the rule words.
THE, RECIPIENT, WINNER, BIG, LARGE = 4, 5, 6, 7, 8
RULES = RuleTable(torch.tensor([RECIPIENT, BIG]), torch.tensor([WINNER, LARGE]), torch.tensor([2.0, 3.0]))
SOURCE = [THE, RECIPIENT, BIG]  # both complex words: both rules are candidates
TARGET = [LARGE, THE, EOS_ID]  # "large" is in the target, "winner" is not
# Teacher-forced probabilities, one row per target position (sums are 1); argmax: recipient, big, </s>.
PROBS = [[.05, .05, .05, .05, .05, .50, .10, .05, .10],
         [.05, .05, .05, .05, .10, .05, .05, .40, .20],
         [.05, .05, .05, .60, .05, .05, .05, .05, .05]]
# Eq. 4 (report): t=0 generates "recipient": -2 log P(winner) = -2 log .1; t=1 generates "big": -3 log P(large)
# = -3 log .2; t=2 nothing.  §5.5 (fixed): only big -> large, whose simple word is in the target.  3 tokens.
CRITIC = {"report": (-2 * math.log(.1) - 3 * math.log(.2)) / 3, "fixed": -3 * math.log(.2) / 3}
L_SEQ = 0.7  # the model's sequence loss, as the trainer hands it over


class _Model:
    """All objective() asks of a model: the gold ids it scores."""

    @staticmethod
    def target_ids(tgt: torch.Tensor) -> torch.Tensor:
        return tgt


def _objective(training: TrainingConfig, step: int) -> tuple[float, dict[str, float]]:
    src, tgt = torch.tensor([SOURCE]), torch.tensor([TARGET])
    batch = Batch(src, src, torch.tensor([len(SOURCE)]), torch.tensor([[BOS_ID] + TARGET[:-1]]), tgt)
    result = Loss(torch.tensor(L_SEQ), len(TARGET), 0, {"nll": L_SEQ}, torch.tensor(PROBS).log().unsqueeze(0))
    loss, terms = objective(result, batch, training, step, _Model(), RULES)
    return loss.item(), terms


def _training(**critic) -> TrainingConfig:
    return TrainingConfig(critic=CriticConfig(rules="ppdb_lexical", **critic))


def test_alternate_minimises_the_sequence_loss_on_odd_steps_and_the_weighted_critic_on_even_ones():
    """003 §3.2.3: L_seq and L_critic minimised alternately; step 1 (the first) is L_seq, step 2 λ·L_critic."""
    training = _training(variant="report", mode="alternate", weight=0.25)
    for step in (1, 3, 5):
        assert _objective(training, step)[0] == pytest.approx(L_SEQ)
    for step in (2, 4):
        assert _objective(training, step)[0] == pytest.approx(0.25 * CRITIC["report"])
    # Both steps log the unweighted critic beside the sequence loss.
    assert _objective(training, 1)[1] == pytest.approx({"nll": L_SEQ, "critic": CRITIC["report"]})


def test_sum_mode_is_the_sequence_loss_plus_lambda_times_the_critic_on_every_step():
    """The report's planned holistic loss (003 §3.2.3): L_seq + λ·L_critic, here λ = 0.25 (≠ 1)."""
    training = _training(variant="report", mode="sum", weight=0.25)
    for step in (1, 2):
        assert _objective(training, step)[0] == pytest.approx(L_SEQ + 0.25 * CRITIC["report"])  # 0.7 + 0.786


@pytest.mark.parametrize("variant", ["report", "fixed"])
def test_the_configured_critic_variant_is_the_one_minimised(variant):
    """Eq. 4 as stated vs the §5.5 fix: on this batch they differ (3.144 vs 1.609)."""
    assert _objective(_training(variant=variant, mode="alternate", weight=0.5), 2)[0] == pytest.approx(
        0.5 * CRITIC[variant])
    assert _objective(_training(variant=variant, mode="sum", weight=2.0), 1)[0] == pytest.approx(
        L_SEQ + 2.0 * CRITIC[variant])


def test_every_critic_row_of_params_yaml_trains_its_own_variant_mode_and_weight():
    """The table's rows (report / weighted sum / fixed §5.5) must each reach the loss they are named after."""
    seen = set()
    for name, training in load_config(ROOT / "params.yaml").training.items():
        if training.critic is None:
            continue
        critic = training.critic
        term = critic.weight * CRITIC[critic.variant]
        expected = L_SEQ + term if critic.mode == "sum" else term
        assert _objective(training, 2)[0] == pytest.approx(expected), name
        seen.add((critic.variant, critic.mode))
    assert seen >= {("report", "alternate"), ("report", "sum"), ("fixed", "alternate")}


def test_without_a_critic_the_objective_is_the_sequence_loss():
    assert _objective(TrainingConfig(), 2) == (pytest.approx(L_SEQ), {"nll": L_SEQ})


def test_an_alternating_critic_step_with_no_candidate_rule_still_trains():
    """A batch whose source holds no rule word gave a critic of a bare zero tensor; on an even (critic) step of
    `mode: alternate` that is the whole loss, and backward() raised "element 0 of tensors does not require
    grad". The zero now stays on the graph: backward runs and every gradient is 0."""
    weights = torch.tensor(PROBS).log().unsqueeze(0).requires_grad_()
    src, tgt = torch.tensor([[THE, THE, THE]]), torch.tensor([TARGET])  # no rule word in the source
    batch = Batch(src, src, torch.tensor([3]), torch.tensor([[BOS_ID] + TARGET[:-1]]), tgt)
    result = Loss(torch.tensor(L_SEQ), len(TARGET), 0, {"nll": L_SEQ}, weights)
    loss, terms = objective(result, batch, _training(mode="alternate", weight=0.5), 2, _Model(), RULES)
    assert loss.item() == 0.0 and terms["critic"] == 0.0
    loss.backward()
    assert weights.grad is not None and torch.count_nonzero(weights.grad) == 0
    empty = RuleTable(torch.tensor([], dtype=torch.long), torch.tensor([], dtype=torch.long), torch.tensor([]))
    loss, _ = objective(result, batch, _training(mode="alternate"), 2, _Model(), empty)
    loss.backward()  # an empty rule table too
