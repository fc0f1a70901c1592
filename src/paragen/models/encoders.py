"""Recurrent source encoders (Bahdanau et al., 2014; Gu et al., 2016 §3.1)."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from paragen.models.state import float32_recurrence


class RNNEncoder(nn.Module):
    """(Bi-)GRU/LSTM over embedded source tokens.

    Returns the memory ``M = {h_1..h_S}`` with shape ``(batch, src_len,
    memory_size)`` where ``memory_size = hidden_size * directions``, and a
    summary vector ``(batch, memory_size)``: the last forward state joined
    with the first backward state, which sees the whole sentence from each end.
    """

    def __init__(self, embedding: nn.Embedding, hidden_size: int, layers: int, bidirectional: bool,
                 cell: str, dropout: float):
        super().__init__()
        self.embedding = embedding
        rnn_class = nn.GRU if cell == "gru" else nn.LSTM
        self.rnn = rnn_class(embedding.embedding_dim, hidden_size, num_layers=layers, batch_first=True,
                             bidirectional=bidirectional, dropout=dropout if layers > 1 else 0.0)
        self.dropout = nn.Dropout(dropout)
        self.directions = 2 if bidirectional else 1
        self.memory_size = hidden_size * self.directions

    def forward(self, src: torch.Tensor, lengths: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        embedded = self.dropout(self.embedding(src))  # (batch, src_len, emb)
        packed = pack_padded_sequence(embedded.float(), lengths.cpu(), batch_first=True, enforce_sorted=False)
        with float32_recurrence(embedded):  # the recurrent state stays float32 under bf16 autocast
            outputs, _ = self.rnn(packed)
        memory, _ = pad_packed_sequence(outputs, batch_first=True, total_length=src.size(1))
        hidden = memory.size(-1) // self.directions
        last = (lengths - 1).clamp(min=0)
        forward_last = memory[torch.arange(src.size(0), device=src.device), last, :hidden]
        if self.directions == 2:
            summary = torch.cat([forward_last, memory[:, 0, hidden:]], dim=-1)
        else:
            summary = forward_last
        return self.dropout(memory), summary
