"""Recurrent source encoders (Bahdanau et al., 2014; Gu et al., 2016 §3.1; Kiyono et al., 2018 Appendix A)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from paragen.models.gru_layer import gru_over_time, steps_here
from paragen.models.selective_gate import SelectiveGate
from paragen.models.state import float32_recurrence

Merge = Literal["concat", "sum"]


@dataclass
class EncoderOutput:
    memory: torch.Tensor  # (batch, src_len, memory_size): h_1..h_I, what attention reads (gated with sGate)
    summary: torch.Tensor  # (batch, memory_size): the top layer's last forward and first backward state, merged
    finals: dict[str, torch.Tensor]  # "hidden" (and "cell" for LSTMs): (batch, layers, memory_size), every
    # layer's last forward and first backward state merged like the memory (004 Eq. 18's start, per layer)


class RNNEncoder(nn.Module):
    """(Bi-)GRU/LSTM over embedded source tokens.

    The memory ``M = {h_1..h_S}`` joins the two directions of each state as ``merge`` says: ``concat``
    gives [→h_i; ←h_i] (``memory_size = hidden_size * directions``), ``sum`` gives →h_i + ←h_i
    (``memory_size = hidden_size``, 004 Eq. 16). The summary joins the last forward state with the first
    backward one, which sees the whole sentence from each end, the same way. ``selective_gate`` adds
    Zhou et al.'s gate on the memory, driven by the unmerged [→h_I; ←h_1] (:mod:`selective_gate`).
    """

    def __init__(self, embedding: nn.Embedding, hidden_size: int, layers: int, bidirectional: bool,
                 cell: str, dropout: float, merge: Merge = "concat", selective_gate: bool = False):
        super().__init__()
        if merge == "sum" and not bidirectional:
            raise ValueError("summing the directions needs a bidirectional encoder")
        self.embedding = embedding
        rnn_class = nn.GRU if cell == "gru" else nn.LSTM
        self.rnn = rnn_class(embedding.embedding_dim, hidden_size, num_layers=layers, batch_first=True,
                             bidirectional=bidirectional, dropout=dropout if layers > 1 else 0.0)
        self.dropout = nn.Dropout(dropout)
        self.directions = 2 if bidirectional else 1
        self.merge = merge
        self.memory_size = hidden_size * (self.directions if merge == "concat" else 1)
        self.gate = SelectiveGate(self.memory_size, hidden_size * self.directions) if selective_gate else None

    def _merged(self, joined: torch.Tensor) -> torch.Tensor:
        """[→h; ←h] (..., directions * hidden) as the memory holds it: unchanged (concat) or →h + ←h (sum)."""
        if self.merge == "concat":
            return joined
        forward, backward = joined.chunk(2, dim=-1)
        return forward + backward

    def _finals(self, final: torch.Tensor) -> torch.Tensor:
        """nn.GRU/LSTM's final states (layers * directions, batch, hidden) -> (batch, layers, memory_size).

        With packed sequences the forward final state is the one after each sentence's last real token
        and the backward one is at its first token."""
        layers = final.size(0) // self.directions
        per_layer = final.view(layers, self.directions, final.size(1), final.size(2))  # (L, dirs, batch, hidden)
        joined = per_layer.permute(2, 0, 1, 3).reshape(final.size(1), layers, -1)  # [→h; ←h] per layer
        return self._merged(joined)

    def forward(self, src: torch.Tensor, lengths: torch.Tensor,
                host_lengths: torch.Tensor | None = None) -> EncoderOutput:
        """``lengths`` (batch,) on the model's device; ``host_lengths`` the same on the CPU where the caller has them
        (packing needs them there, and fetching them from a GPU would wait for it)."""
        embedded = self.dropout(self.embedding(src))  # (batch, src_len, emb)
        host = lengths.cpu() if host_lengths is None else host_lengths
        with float32_recurrence(embedded):  # the recurrent state stays float32 under bf16 autocast
            if steps_here(self.rnn, embedded):  # the CPU: no packing (paragen.models.gru_layer says why)
                states, final = gru_over_time(self.rnn, embedded.float(), host)
            else:
                packed = pack_padded_sequence(embedded.float(), host, batch_first=True, enforce_sorted=False)
                outputs, final = self.rnn(packed)
                states, _ = pad_packed_sequence(outputs, batch_first=True, total_length=src.size(1))
        hidden = states.size(-1) // self.directions
        last = (lengths - 1).clamp(min=0)
        forward_last = states[torch.arange(src.size(0), device=src.device), last, :hidden]
        ends = torch.cat([forward_last, states[:, 0, hidden:]], dim=-1) if self.directions == 2 else forward_last
        memory = self._merged(states)
        if self.gate is not None:
            memory = self.gate(memory, ends)
        hidden_final, cell_final = final if isinstance(final, tuple) else (final, None)
        finals = {"hidden": self._finals(hidden_final)}
        if cell_final is not None:
            finals["cell"] = self._finals(cell_final)
        return EncoderOutput(self.dropout(memory), self._merged(ends), finals)
