"""What a trained model aligns each gold target token to, under teacher forcing (004 Figure 4, Table 4).

At step t the decoder reads y_{t-1} and predicts y_t, so the attention weights of step t and SPM's q_t (from the
attentional vector z_t) belong to target token t. For every target token (not the final ``</s>``) this returns
the source position attention weights most and, for a model with the SPM head, the vocabulary word q_t ranks
first; :mod:`paragen.metrics.alignment` scores them against gold links, and the full matrices feed heat maps.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import torch

from paragen.data.batching import make_batch
from paragen.models.seq2seq import stepped_teacher_forced
from paragen.data.vocabulary import Vocabulary


@dataclass
class SentenceAlignment:
    attention_positions: list[int]  # per target token: argmax over source positions
    spm_words: list[str] | None  # per target token: argmax of q_t over the vocabulary (SPM models only)
    attention: list[list[float]] = field(default_factory=list)  # (target tokens, source tokens), for heat maps
    spm_source_probabilities: list[list[float]] | None = None  # q_t of each source token's word, likewise


@torch.no_grad()
def teacher_forced_alignments(model: torch.nn.Module, sources: Sequence[Sequence[str]],
                              targets: Sequence[Sequence[str]], vocab: Vocabulary,
                              device: torch.device = torch.device("cpu"), batch_size: int = 64) -> list[SentenceAlignment]:
    """One :class:`SentenceAlignment` per pair, in order; ``vocab`` is the model's own vocabulary
    (:func:`paragen.models.vocabulary_for`, which adds <tpad> for SPM). The model is put in eval mode."""
    if len(sources) != len(targets):
        raise ValueError(f"{len(sources)} sources but {len(targets)} targets")
    model.eval()
    head = getattr(model, "source_prediction", None)
    if head is not None and head.vocab_size != len(vocab):
        raise ValueError(f"the SPM head predicts {head.vocab_size} words but the vocabulary has {len(vocab)}: "
                         "pass the model's vocabulary (paragen.models.vocabulary_for)")
    results: list[SentenceAlignment] = []
    for start in range(0, len(sources), batch_size):
        batch = make_batch(sources[start:start + batch_size], targets[start:start + batch_size], vocab).to(device)
        run = stepped_teacher_forced(model, batch, keep_attention=True)
        attention = run.attention.float()  # (batch, steps, src_len)
        q = head(run.attentional) if head is not None else None  # (batch, steps, V)
        for row, (source, target) in enumerate(zip(sources[start:start + batch_size],
                                                    targets[start:start + batch_size])):
            steps, width = len(target), len(source)
            matrix = attention[row, :steps, :width]
            words = spm_matrix = None
            if q is not None:
                words = [vocab.itos[i] for i in q[row, :steps].argmax(-1).tolist()]
                spm_matrix = q[row, :steps].index_select(1, batch.src[row, :width]).tolist()
            results.append(SentenceAlignment(matrix.argmax(-1).tolist(), words, matrix.tolist(), spm_matrix))
    return results
