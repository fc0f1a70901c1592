"""Zhou et al. (2017)'s selective gate (SEASS §3.2), an encoder add-on (004's EncDec+sGate).

    sGate_i = σ(W_s h_i + U_s s + b),    h'_i = h_i ⊙ sGate_i

``s`` is the sentence vector [→h_n; ←h_1]: the top layer's last forward and first backward states,
before the two directions are merged. With summed directions (004 Eq. 16) h_i is H wide while s stays
2H wide (U_s is H x 2H): summing →h_n and ←h_1 as well would throw away which end of the sentence each
half saw, and SEASS's s is the concatenation. Zhou et al.'s released code (magic282/SEASS) computes the
gate with one linear layer over [h_i; s] (so one bias), multiplies the encoder outputs by it, and starts
the decoder from the ungated states; the gated memory is what attention reads.
"""

from __future__ import annotations

import torch
from torch import nn


class SelectiveGate(nn.Module):
    """Gates each memory vector h_i (batch, src_len, memory_size) by the sentence vector s (batch, sentence_size)."""

    def __init__(self, memory_size: int, sentence_size: int):
        super().__init__()
        self.W = nn.Linear(memory_size, memory_size, bias=True)  # W_s h_i + b
        self.U = nn.Linear(sentence_size, memory_size, bias=False)  # U_s s

    def gate(self, memory: torch.Tensor, sentence: torch.Tensor) -> torch.Tensor:
        """sGate_i, (batch, src_len, memory_size)."""
        return torch.sigmoid(self.W(memory) + self.U(sentence).unsqueeze(1))

    def forward(self, memory: torch.Tensor, sentence: torch.Tensor) -> torch.Tensor:
        """h'_i = h_i ⊙ sGate_i; padding positions (h_i = 0) stay 0."""
        return memory * self.gate(memory, sentence)
