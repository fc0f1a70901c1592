"""Per-batch encoder results carried through every decoding step."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import torch


def float32_recurrence(like: torch.Tensor) -> torch.autocast:
    """Autocast switched off, for recurrent cells whose state must stay float32 under bf16 autocast."""
    return torch.autocast(device_type=like.device.type, enabled=False)


@dataclass
class Encoded:
    """Encoder results one batch carries through decoding. "batch" below is one row per sentence; the decoder's
    rows are ``beams`` times as many when beam search shares these rows (:attr:`beams`)."""

    memory: torch.Tensor  # (batch, src_len, memory_size)
    mask: torch.Tensor  # (batch, src_len), True on real tokens
    summary: torch.Tensor  # (batch, memory_size)
    src_ext: torch.Tensor  # (batch, src_len) extended ids
    width: int  # size of the output distribution: len(V) (+ max OOVs for copying models)
    owned_width: torch.Tensor | None = None
    """(batch,) len(V) + that sentence's own OOV count: extended slots at or past it belong to batch-mates."""
    projections: dict[str, torch.Tensor] = field(default_factory=dict)
    """Step-independent projections of ``memory`` (attention keys, copy keys), computed once per batch."""
    finals: dict[str, torch.Tensor] = field(default_factory=dict)
    """Per-layer final encoder states, (batch, layers, size) each (:class:`paragen.models.encoders.EncoderOutput`),
    for decoders that start from them (004 Eq. 18)."""
    padding: torch.Tensor | None = None
    """(batch, src_len) ``~mask``, True on padding: made once per batch, not at every step that masks scores."""
    beams: int = 1
    """Decoder rows per row of these tensors. 1: one each. Beam search of a model that shares them
    (``shares_encoded_rows``) keeps one row per sentence for its ``beams`` hypotheses, rows ``i * beams`` to
    ``(i + 1) * beams - 1`` of the decoder's state reading sentence ``i``, so no step reads a copy per hypothesis."""

    def shared(self, beams: int) -> "Encoded":
        """These rows, each read by ``beams`` consecutive decoder rows."""
        return replace(self, beams=beams)

    def pad(self) -> torch.Tensor:
        """True on padding positions, (batch, src_len)."""
        return ~self.mask if self.padding is None else self.padding

    def index_select(self, index: torch.Tensor) -> "Encoded":
        """Rows ``index`` (e.g. beam expansion or reordering; sentences that stay, when shared by ``beams``)."""
        return replace(self, memory=self.memory.index_select(0, index), mask=self.mask.index_select(0, index),
                       summary=self.summary.index_select(0, index), src_ext=self.src_ext.index_select(0, index),
                       owned_width=None if self.owned_width is None else self.owned_width.index_select(0, index),
                       projections={k: v.index_select(0, index) for k, v in self.projections.items()},
                       finals={k: v.index_select(0, index) for k, v in self.finals.items()},
                       padding=None if self.padding is None else self.padding.index_select(0, index))
