"""Input-feeding recurrent decoder shared by every RNN model (DESIGN.md §4).

One step (Luong et al., 2015, with input feeding):

    s_t = cell([e(y_{t-1}); c_{t-1}; extra_t], s_{t-1})
    c_t = attention(s_t, M)         (or the encoder summary without attention)

``extra_t`` is a model-specific input such as CopyNet's selective read
ζ(y_{t-1}) (§3.3); output layers turn (s_t, c_t) into word scores.
"""

from __future__ import annotations

import torch
from torch import nn

from paragen.models.attention import Attention
from paragen.models.state import Encoded


class RecurrentDecoder(nn.Module):
    def __init__(self, embedding: nn.Embedding, hidden_size: int, memory_size: int, cell: str,
                 attention: Attention | None, extra_size: int, dropout: float):
        super().__init__()
        self.embedding = embedding
        self.attention = attention
        self.cell_type = cell
        input_size = embedding.embedding_dim + memory_size + extra_size
        self.cell = nn.GRUCell(input_size, hidden_size) if cell == "gru" else nn.LSTMCell(input_size, hidden_size)
        self.bridge = nn.Linear(memory_size, hidden_size)
        self.dropout = nn.Dropout(dropout)
        self.hidden_size = hidden_size

    def initial_state(self, summary: torch.Tensor) -> dict[str, torch.Tensor]:
        """s_0 = tanh(W summary); the first fed context is the summary itself."""
        state = {"hidden": torch.tanh(self.bridge(summary)), "context": summary}
        if self.cell_type == "lstm":
            state["cell"] = torch.zeros_like(state["hidden"])
        return state

    def forward(self, tokens: torch.Tensor, state: dict[str, torch.Tensor], encoded: Encoded,
                extra: torch.Tensor | None) -> tuple[dict[str, torch.Tensor], torch.Tensor | None]:
        """One step for ``tokens`` (batch,) in V; returns the new state and attention weights."""
        parts = [self.dropout(self.embedding(tokens)), state["context"]]
        if extra is not None:
            parts.append(extra)
        inputs = torch.cat(parts, dim=-1)
        new_state = dict(state)
        if self.cell_type == "gru":
            new_state["hidden"] = self.cell(inputs, state["hidden"])
        else:
            new_state["hidden"], new_state["cell"] = self.cell(inputs, (state["hidden"], state["cell"]))
        weights = None
        if self.attention is None:
            new_state["context"] = encoded.summary
        else:
            new_state["context"], weights = self.attention(new_state["hidden"], encoded.memory, encoded.mask,
                                                           encoded.projections.get("attention"))
        return new_state, weights
