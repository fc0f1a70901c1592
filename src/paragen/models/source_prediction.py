"""Kiyono et al. (2018)'s source-side prediction module, SPM (004 §4), a decoder add-on used only in training.

From the same attentional vector z_j the output layer reads (Eq. 3), a second head predicts a source word:

    q_j = softmax(W_q z_j + b_q)                                   (Eq. 6)
    ℓ_src = ||q̃ - x̃||² / C,   q̃ = Σ_{j=1..I} q_j,   x̃ = Σ_i x_i     (Eq. 7, 11; log Z dropped)

while the decoder runs to the source length I on Y', the target followed by <tpad> (Eq. 9,
:func:`paragen.data.batching.fill_targets`). Decoding never computes q (§4.3).

What is counted, and where:

- The head covers the model's whole vocabulary (the shared one, with its specials and <tpad>): V_s = V_t here.
- x̃ counts the source tokens x_1..x_I as the encoder reads them: out-of-vocabulary words as <unk>, batch
  padding excluded; the source carries no <s> or </s> (:func:`paragen.data.batching.make_batch`), so their
  counts, like <tpad>'s, are 0 and the loss drives their predicted mass to 0.
- q̃ sums the first I steps, as Eq. 7 writes, so q̃ and x̃ both total I. Where the target is not shorter
  than the source (J + 1 > I, which the paper's I > J rules out) Y' = Y runs J + 1 steps and the steps
  after I enter only ℓ_trg.
- Per batch, ℓ_src is summed over sentences and divided by the tokens of Y' scored, the same count that
  divides the summed NLL in :class:`paragen.models.seq2seq.Loss`: the objective is Eq. 12's batch sum of
  ℓ_trg(Y') + ℓ_src over one shared normaliser, so the two terms weigh against each other as in the paper.
"""

from __future__ import annotations

import torch
from torch import nn

from paragen.data.vocabulary import target_pad_id


def source_counts(src: torch.Tensor, lengths: torch.Tensor, vocab_size: int) -> torch.Tensor:
    """x̃: how often each word occurs in each source sentence, (batch, vocab_size); ``src`` (batch, src_len)."""
    real = torch.arange(src.size(1), device=src.device).unsqueeze(0) < lengths.to(src.device).unsqueeze(1)
    counts = torch.zeros(src.size(0), vocab_size, device=src.device)
    return counts.scatter_add(1, src, real.float())


def source_loss(q: torch.Tensor, counts: torch.Tensor, lengths: torch.Tensor, weight_c: float) -> torch.Tensor:
    """ℓ_src per sentence, (batch,): ||Σ_{j<=I} q_j - x̃||² / C, q (batch, steps, vocab), x̃ (batch, vocab)."""
    steps = torch.arange(q.size(1), device=q.device).unsqueeze(0) < lengths.to(q.device).unsqueeze(1)
    predicted = (q * steps.unsqueeze(-1)).sum(dim=1)  # q̃
    return ((predicted - counts) ** 2).sum(dim=-1) / weight_c


class SourcePrediction(nn.Module):
    """The SPM head over a vocabulary of ``vocab_size`` words from :meth:`Vocabulary.with_target_pad`."""

    def __init__(self, size: int, vocab_size: int, weight_c: float, dropout: float):
        super().__init__()
        self.project = nn.Linear(size, vocab_size)  # W_q, b_q
        self.dropout = nn.Dropout(dropout)
        self.weight_c = weight_c
        self.vocab_size = vocab_size
        self.pad_id = target_pad_id(vocab_size)  # <tpad>: a target of ℓ_trg(Y'), never an output of decoding

    def forward(self, attentional: torch.Tensor) -> torch.Tensor:
        """q_j for z (batch, steps, size): (batch, steps, vocab_size), in float32 under autocast."""
        return torch.softmax(self.project(self.dropout(attentional)).float(), dim=-1)

    def loss(self, attentional: torch.Tensor, src: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """ℓ_src of each sentence, (batch,), from the attentional vectors of Y''s teacher-forced steps."""
        return source_loss(self(attentional), source_counts(src, lengths, self.vocab_size), lengths, self.weight_c)
