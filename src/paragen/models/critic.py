"""The critic loss of DCSS (Zhao et al. 2018), as the simplification report states it (003 §3.2.3, Eq. 4).

For a lexical rule complex -> simple with weight w whose words occur in the input I, at each target
position where the model *generates* (teacher-forced argmax) one side of the rule:

- it generates the complex word:  L = -w · log P(simple | I)   (push the simple word up),
- it generates the simple word:   L =  w · log P(complex | I)  (push the complex word down),
- it generates neither:           L = 0 (the report's assumption; Eq. 4 leaves it open).

``variant="fixed"`` is the modification the report proposes and never built (§5.5): both cases apply
only when the rule's simple word occurs in the target sentence, so the critic no longer rewards
rewriting a word the reference keeps. The loss is summed over positions and rules and divided by the
number of target tokens, like the sequence loss it is trained beside.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Sequence

import torch

from paragen.data.vocabulary import PAD_ID, Vocabulary

CriticVariant = Literal["report", "fixed"]


@dataclass(frozen=True)
class RuleTable:
    """Lexical rules as vocabulary ids: rule r rewrites ``complex_ids[r]`` to ``simple_ids[r]`` with ``weights[r]``."""

    complex_ids: torch.Tensor  # (rules,) long
    simple_ids: torch.Tensor  # (rules,) long
    weights: torch.Tensor  # (rules,) float

    @classmethod
    def from_rules(cls, rules: Sequence, vocab: Vocabulary) -> "RuleTable":
        """Lexical rules whose two words are both in the vocabulary (the others cannot be generated)."""
        kept = [r for r in rules if r.lexical and r.complex[0] in vocab and r.simple[0] in vocab]
        return cls(torch.tensor([vocab.id(r.complex[0]) for r in kept], dtype=torch.long),
                   torch.tensor([vocab.id(r.simple[0]) for r in kept], dtype=torch.long),
                   torch.tensor([float(r.weight) for r in kept]))

    def __len__(self) -> int:
        return int(self.complex_ids.numel())

    def to(self, device: torch.device) -> "RuleTable":
        return RuleTable(self.complex_ids.to(device), self.simple_ids.to(device), self.weights.to(device))


def occurs(ids: torch.Tensor, words: torch.Tensor) -> torch.Tensor:
    """(batch, rules): whether ``words[r]`` occurs in row b of ``ids`` (batch, length).

    Through a (batch, ids) presence table rather than a (batch, length, rules) comparison: rule tables hold
    tens of thousands of words.
    """
    if words.numel() == 0:
        return torch.zeros(ids.size(0), 0, dtype=torch.bool, device=ids.device)
    size = int(torch.maximum(ids.max(), words.max())) + 1
    table = torch.zeros(ids.size(0), size, dtype=torch.bool, device=ids.device).scatter_(1, ids, True)
    return table[:, words]


def _zero_with_graph(log_probs: torch.Tensor) -> torch.Tensor:
    """A zero loss still attached to the model's graph: a batch with no candidate rule contributes nothing, but
    on an alternating critic step (the whole loss) ``backward()`` needs a graph (a bare zero crashed training),
    and under DDP every rank must run the same backward. Excluded -inf entries must not make it NaN."""
    return torch.where(torch.isfinite(log_probs), log_probs, 0.0).sum() * 0.0


def critic_loss(log_probs: torch.Tensor, source: torch.Tensor, target: torch.Tensor, rules: RuleTable,
                variant: CriticVariant = "report") -> torch.Tensor:
    """Mean critic loss per target token.

    ``log_probs`` (batch, tgt_len, V) teacher-forced; ``source`` (batch, src_len) and ``target``
    (batch, tgt_len) vocabulary ids, padding = PAD_ID. Only the (sentence, rule) pairs whose rule is a
    candidate for the sentence are looked at: a sentence has a handful among tens of thousands of rules, and
    a dense (batch, length, rules) comparison made the critic's epochs several times slower than the rest.
    """
    real = target != PAD_ID
    tokens = real.sum().clamp_min(1)
    if len(rules) == 0:
        return _zero_with_graph(log_probs)
    in_source = occurs(source, torch.cat([rules.complex_ids, rules.simple_ids]))  # one presence table, both sides
    candidate = in_source[:, :len(rules)] | in_source[:, len(rules):]  # (batch, rules)
    if variant == "fixed":
        candidate = candidate & occurs(target.masked_fill(~real, PAD_ID), rules.simple_ids)
    sentence, rule = candidate.nonzero(as_tuple=True)  # (K,) each: the candidate pairs
    if sentence.numel() == 0:
        return _zero_with_graph(log_probs)
    generated = log_probs.argmax(dim=-1)[sentence]  # (K, tgt_len)
    active = real[sentence]
    complex_ids, simple_ids = rules.complex_ids[rule].unsqueeze(1), rules.simple_ids[rule].unsqueeze(1)  # (K, 1)
    made_complex = (generated == complex_ids) & active
    made_simple = (generated == simple_ids) & active
    positions = torch.arange(log_probs.size(1), device=log_probs.device).unsqueeze(0)  # (1, tgt_len)
    log_p_simple = log_probs[sentence.unsqueeze(1), positions, simple_ids]  # (K, tgt_len), no (K, tgt_len, V) copy
    log_p_complex = log_probs[sentence.unsqueeze(1), positions, complex_ids]
    weights = rules.weights[rule].to(log_probs.dtype).unsqueeze(1)
    zero = log_probs.new_zeros(())  # where(), not a product: an excluded -inf log-probability must not give NaN
    loss = torch.where(made_complex, -weights * log_p_simple, zero).sum() \
        + torch.where(made_simple, weights * log_p_complex, zero).sum()
    return loss / tokens
