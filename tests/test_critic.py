"""The critic loss (003 Eq. 4) and the report's never-built fix (§5.5), on hand-made examples."""

from __future__ import annotations

import math

import pytest
import torch

from paragen.models.critic import RuleTable, critic_loss
from paragen.simplification.ppdb import Rule
from paragen.data.vocabulary import EOS_ID, PAD_ID, SPECIALS, Vocabulary

VOCAB = Vocabulary(list(SPECIALS) + ["the", "recipient", "winner", "won"])
THE, RECIPIENT, WINNER, WON = (VOCAB.id(w) for w in ("the", "recipient", "winner", "won"))
RULES = RuleTable.from_rules([Rule(("recipient",), ("winner",), 2.0), Rule(("big",), ("large",), 1.0)], VOCAB)


def log_probs_choosing(choices: list[int], width: int = len(VOCAB)) -> torch.Tensor:
    """(1, len(choices), V): at position t, probability 0.5 on choices[t] and 0.5 / (V - 1) elsewhere."""
    rows = []
    for choice in choices:
        p = torch.full((width,), 0.5 / (width - 1))
        p[choice] = 0.5
        rows.append(p.log())
    return torch.stack(rows).unsqueeze(0)


def test_rule_table_keeps_lexical_rules_within_the_vocabulary():
    assert len(RULES) == 1  # big -> large: neither word in the vocabulary
    assert (RULES.complex_ids.tolist(), RULES.simple_ids.tolist(), RULES.weights.tolist()) == ([RECIPIENT], [WINNER],
                                                                                             [2.0])


def test_report_critic_pushes_simple_up_and_complex_down_and_is_zero_otherwise():
    source = torch.tensor([[THE, RECIPIENT]])
    target = torch.tensor([[THE, WON, PAD_ID]])
    # position 0 generates "recipient" (complex): -w log P(winner) = -2 log(0.5/7)
    # position 1 generates "winner" (simple):       w log P(recipient) = 2 log(0.5/7)
    # position 2 is padding: nothing.  Two target tokens.
    log_probs = log_probs_choosing([RECIPIENT, WINNER, RECIPIENT])
    other = math.log(0.5 / 7)
    expected = (-2 * other + 2 * other) / 2
    assert critic_loss(log_probs, source, target, RULES).item() == pytest.approx(expected, abs=1e-6)
    only_complex = log_probs_choosing([RECIPIENT, THE, THE])
    assert critic_loss(only_complex, source, target, RULES).item() == pytest.approx(-2 * other / 2, abs=1e-6)
    only_simple = log_probs_choosing([WINNER, THE, THE])
    assert critic_loss(only_simple, source, target, RULES).item() == pytest.approx(2 * other / 2, abs=1e-6)
    neither = log_probs_choosing([THE, WON, THE])
    assert critic_loss(neither, source, target, RULES).item() == 0.0


def test_no_rule_word_in_the_source_means_no_critic():
    log_probs = log_probs_choosing([RECIPIENT, WINNER])
    assert critic_loss(log_probs, torch.tensor([[THE, WON]]), torch.tensor([[THE, WON]]), RULES).item() == 0.0


def test_fixed_critic_acts_only_when_the_simple_word_is_in_the_target():
    source = torch.tensor([[THE, RECIPIENT]])
    log_probs = log_probs_choosing([RECIPIENT, WON])
    other = math.log(0.5 / 7)
    without = torch.tensor([[THE, WON]])  # the reference keeps "recipient"...: no "winner" in it
    assert critic_loss(log_probs, source, without, RULES, "fixed").item() == 0.0
    assert critic_loss(log_probs, source, without, RULES, "report").item() == pytest.approx(-2 * other / 2, abs=1e-6)
    with_simple = torch.tensor([[WINNER, WON]])
    assert critic_loss(log_probs, source, with_simple, RULES, "fixed").item() == pytest.approx(-2 * other / 2,
                                                                                              abs=1e-6)


def test_gradient_moves_the_right_probabilities():
    source, target = torch.tensor([[RECIPIENT]]), torch.tensor([[WINNER]])
    logits = torch.zeros(1, 1, len(VOCAB), requires_grad=True)
    with torch.no_grad():
        logits[0, 0, RECIPIENT] = 1.0  # the model generates the complex word
    critic_loss(torch.log_softmax(logits, -1), source, target, RULES).backward()
    assert logits.grad[0, 0, WINNER] < 0  # descending the loss raises "winner"


def test_a_rule_applies_when_only_its_simple_word_is_in_the_source():
    """003 §3.2.3 / Eq. 4: the critic applies when the input contains the rule's input *or* its output.

    Source "the winner": only the simple side of recipient -> winner (w = 2) occurs. Distinct probabilities
    (ids: <pad> <unk> <s> </s> the recipient winner won; target "the won </s>"):
      t=0 generates "recipient" (0.40): -w log P(winner) = -2 log 0.20
      t=1 generates "winner"    (0.45): +w log P(recipient) = 2 log 0.15
      t=2 generates "the"       (0.50): neither side, 0.      Three target tokens.
    """
    rows = [[.05, .05, .05, .05, .10, .40, .20, .10],
            [.05, .05, .05, .05, .10, .15, .45, .10],
            [.05, .05, .05, .05, .50, .10, .10, .10]]
    log_probs = torch.tensor(rows).log().unsqueeze(0)
    source, target = torch.tensor([[THE, WINNER]]), torch.tensor([[THE, WON, EOS_ID]])
    expected = (-2 * math.log(.20) + 2 * math.log(.15)) / 3  # = 2 log 0.75 / 3 = -0.1918
    assert critic_loss(log_probs, source, target, RULES).item() == pytest.approx(expected)
    # The §5.5 fix keeps the same condition on the source, and adds "winner" in the target.
    assert critic_loss(log_probs, source, target, RULES, "fixed").item() == 0.0
    with_simple = torch.tensor([[WINNER, WON, EOS_ID]])
    assert critic_loss(log_probs, source, with_simple, RULES, "fixed").item() == pytest.approx(expected)
