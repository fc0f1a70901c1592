"""Padding examples into tensors, including CopyNet's instance-specific vocabulary.

Copying models predict over ``V ∪ UNK ∪ X`` (Gu et al., 2016, §3.2): the
fixed vocabulary plus the unique source words of each instance. Source words
missing from ``V`` get *extended ids* ``len(V) + k`` (k-th new word of that
instance) so that a copied out-of-vocabulary word survives decoding.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Iterator, Sequence

import torch

from paragen.data.vocabulary import BOS_ID, EOS_ID, PAD_ID, UNK_ID, Vocabulary


@dataclass
class Batch:
    """Padded tensors of one batch; shapes given as (batch_size, length)."""

    src: torch.Tensor  # (batch, src_len) ids in V, OOV -> UNK
    src_ext: torch.Tensor  # (batch, src_len) ids in the extended vocabulary
    src_lengths: torch.Tensor  # (batch,)
    tgt_in: torch.Tensor  # (batch, tgt_len) <s> y1 .. yn, extended ids
    tgt_out: torch.Tensor  # (batch, tgt_len) y1 .. yn </s>, extended ids
    oovs: list[list[str]] = field(default_factory=list)  # per example: extended id - len(V) -> word
    indices: list[int] = field(default_factory=list)  # position of each example in its corpus
    target_words: list[list[str]] = field(default_factory=list)  # per example: its target tokens (the character
    # decoder spells the ones the vocabulary calls <unk>)
    src_lengths_host: torch.Tensor | None = None  # (batch,) src_lengths kept on the CPU by ``to``: packing a
    # sequence for cuDNN needs them there, and copying them back from the GPU would wait for it

    @property
    def max_oovs(self) -> int:
        return max((len(o) for o in self.oovs), default=0)

    def to(self, device: torch.device) -> "Batch":
        """This batch's tensors on ``device`` (in place). To a GPU they go through pinned memory without waiting:
        the copy is queued behind the work already on the device, and Python goes on to build the next batch."""
        to_gpu = device.type == "cuda"
        if self.src_lengths.device.type == "cpu":
            self.src_lengths_host = self.src_lengths
        for name in ("src", "src_ext", "src_lengths", "tgt_in", "tgt_out"):
            tensor = getattr(self, name)
            if to_gpu and tensor.device.type == "cpu":
                tensor = tensor.pin_memory()
            setattr(self, name, tensor.to(device, non_blocking=to_gpu))
        return self


def extend_source(tokens: Sequence[str], vocab: Vocabulary) -> tuple[list[int], list[str]]:
    """Extended ids of a source sentence and its list of out-of-vocabulary words."""
    oovs: list[str] = []
    ids = []
    for token in tokens:
        if token in vocab:
            ids.append(vocab.id(token))
        else:
            if token not in oovs:
                oovs.append(token)
            ids.append(len(vocab) + oovs.index(token))
    return ids, oovs


def extend_target(tokens: Sequence[str], vocab: Vocabulary, oovs: Sequence[str]) -> list[int]:
    """Target ids where OOV words found in the source take their extended id, others UNK."""
    ids = []
    for token in tokens:
        if token in vocab:
            ids.append(vocab.id(token))
        elif token in oovs:
            ids.append(len(vocab) + oovs.index(token))
        else:
            ids.append(UNK_ID)
    return ids


def _pad(rows: list[list[int]]) -> torch.Tensor:
    width = max(len(r) for r in rows)
    return torch.tensor([r + [PAD_ID] * (width - len(r)) for r in rows], dtype=torch.long)


def make_batch(
    sources: Sequence[Sequence[str]],
    targets: Sequence[Sequence[str]] | None,
    vocab: Vocabulary,
    indices: Sequence[int] | None = None,
) -> Batch:
    """Pad one batch; ``targets`` may be None at decoding time."""
    ext_rows, oov_lists = zip(*(extend_source(s, vocab) for s in sources))
    src_rows = [[i if i < len(vocab) else UNK_ID for i in row] for row in ext_rows]
    if targets is None:
        tgt_rows: list[list[int]] = [[] for _ in sources]
    else:
        tgt_rows = [extend_target(t, vocab, o) for t, o in zip(targets, oov_lists)]
    return Batch(
        src=_pad(src_rows),
        src_ext=_pad(list(ext_rows)),
        src_lengths=torch.tensor([len(r) for r in src_rows], dtype=torch.long),
        tgt_in=_pad([[BOS_ID] + r for r in tgt_rows]),
        tgt_out=_pad([r + [EOS_ID] for r in tgt_rows]),
        oovs=list(oov_lists),
        indices=list(indices) if indices is not None else list(range(len(sources))),
        target_words=[list(t) for t in targets] if targets is not None else [],
    )


def fill_targets(batch: Batch, fill_id: int) -> Batch:
    """Kiyono et al.'s Y' (004 §4.1, Eq. 9): each target y_1..y_J </s> continued with ``fill_id`` (<tpad>, a
    word the model scores) up to its source length I; unchanged where J + 1 >= I. Positions past a sentence's
    |Y'| = max(I, J + 1) stay batch padding (PAD_ID, never scored). ``tgt_in`` is Y' shifted right after <s>."""
    device = batch.tgt_out.device
    gold = (batch.tgt_out != PAD_ID).sum(dim=1, keepdim=True)  # J + 1
    lengths = torch.maximum(gold, batch.src_lengths.to(device).unsqueeze(1))  # |Y'|
    positions = torch.arange(int(lengths.max()), device=device).unsqueeze(0)
    tgt_out = torch.full((batch.tgt_out.size(0), positions.size(1)), PAD_ID, dtype=torch.long, device=device)
    tgt_out[:, : batch.tgt_out.size(1)] = batch.tgt_out
    tgt_out = tgt_out.masked_fill((positions >= gold) & (positions < lengths), fill_id)
    tgt_in = torch.cat([torch.full_like(tgt_out[:, :1], BOS_ID), tgt_out[:, :-1]], dim=1)
    return replace(batch, tgt_in=tgt_in.masked_fill(positions >= lengths, PAD_ID), tgt_out=tgt_out)


def batch_order(lengths: Sequence[int], batch_size: int, generator: torch.Generator | None) -> list[list[int]]:
    """Length-bucketed batches: sort by length inside shuffled chunks, then shuffle batches.

    Bucketing keeps padding low; shuffling (when ``generator`` is given) keeps
    SGD stochastic. The generator makes the order a pure function of its seed,
    which is what lets an interrupted run resume with identical batches.
    """
    n = len(lengths)
    order = torch.randperm(n, generator=generator).tolist() if generator is not None else list(range(n))
    chunk = batch_size * 50
    batches: list[list[int]] = []
    for start in range(0, n, chunk):
        piece = sorted(order[start : start + chunk], key=lambda i: lengths[i])
        batches.extend(piece[i : i + batch_size] for i in range(0, len(piece), batch_size))
    if generator is not None:
        batches = [batches[i] for i in torch.randperm(len(batches), generator=generator).tolist()]
    return batches


def iterate_batches(
    sources: Sequence[Sequence[str]],
    targets: Sequence[Sequence[str]] | None,
    vocab: Vocabulary,
    batch_size: int,
    generator: torch.Generator | None = None,
) -> Iterator[Batch]:
    """Batches over a corpus; in corpus order (by length) when no generator is given."""
    for ids in batch_order([len(s) for s in sources], batch_size, generator):
        yield batch_at(sources, targets, vocab, ids)


def batch_at(
    sources: Sequence[Sequence[str]],
    targets: Sequence[Sequence[str]] | None,
    vocab: Vocabulary,
    ids: Sequence[int],
) -> Batch:
    """The batch of a corpus's examples ``ids`` (a process's share of a batch, under torchrun)."""
    return make_batch(
        [sources[i] for i in ids], [targets[i] for i in ids] if targets is not None else None, vocab, ids
    )


def decode_ids(ids: Sequence[int], vocab: Vocabulary, oovs: Sequence[str]) -> list[str]:
    """Tokens of a generated id sequence (stops at ``</s>``), mapping extended ids back to words."""
    out = []
    for i in ids:
        if i == EOS_ID:
            break
        out.append(vocab.itos[i] if i < len(vocab) else oovs[i - len(vocab)])
    return out
