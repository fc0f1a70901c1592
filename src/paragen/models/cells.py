"""A GRU cell with a hand-written backward, for CPU training: the same function as ``nn.GRUCell`` in fewer operators.

Why: a recurrent decoder runs its cell once per target token, forward and backward, so the cell's operator count
multiplies by every step of every batch. On CUDA, ``nn.GRUCell`` runs torch's fused kernel (two matrix products and
one fused gate kernel each way); on CPU it is decomposed into 16 operators forward and 20 backward. This cell
computes the same equations (PyTorch's GRU, Cho et al. 2014)

    r = σ(W_ir x + b_ir + W_hr h + b_hr)        z = σ(W_iz x + b_iz + W_hz h + b_hz)
    n = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn))      h' = (1 − z) ⊙ n + z ⊙ h = n + z ⊙ (h − n)

with r and z through one sigmoid and h' as one ``lerp``: 7 operators forward and 17 backward
(``bench/op_count.py``). :class:`GRUCell` is an ``nn.GRUCell`` (same parameters, so checkpoints are unchanged)
that takes this path on CPU and torch's fused one elsewhere; the recurrent decoder's GRU layers are built from it.
"""

from __future__ import annotations

import torch
from torch import nn


class _GRUCellFunction(torch.autograd.Function):
    """h' from (x, h, W_ih, W_hh, b_ih, b_hh); shapes (batch, in), (batch, H), (3H, in), (3H, H), (3H,), (3H,)."""

    @staticmethod
    def forward(ctx, x, h, w_ih, w_hh, b_ih, b_hh):
        size = h.size(1)
        gi = torch.addmm(b_ih, x, w_ih.t())  # (batch, 3H): r, z, n parts of the input side
        gh = torch.addmm(b_hh, h, w_hh.t())  # (batch, 3H): the hidden side
        rz = torch.sigmoid(gi[:, : 2 * size] + gh[:, : 2 * size])  # (batch, 2H): r then z
        gh_n = gh[:, 2 * size:]
        n = torch.tanh(torch.addcmul(gi[:, 2 * size:], rz[:, :size], gh_n))
        ctx.save_for_backward(x, h, w_ih, w_hh, rz, n, gh_n)
        return torch.lerp(n, h, rz[:, size:])

    @staticmethod
    @torch.autograd.function.once_differentiable  # the hand-written backward is not itself differentiable
    def backward(ctx, grad):
        x, h, w_ih, w_hh, rz, n, gh_n = ctx.saved_tensors
        size = h.size(1)
        r, z = rz[:, :size], rz[:, size:]
        through_z = grad * z  # ∂h'/∂h along z ⊙ h, and the part of grad that does not reach n
        grad_n = grad - through_z  # grad ⊙ (1 − z)
        grad_z = grad * (h - n)
        grad_an = torch.ops.aten.tanh_backward(grad_n, n)  # through tanh: the n gate's pre-activation
        grad_r = grad_an * gh_n
        grad_rz = torch.ops.aten.sigmoid_backward(torch.cat([grad_r, grad_z], dim=1), rz)
        grad_gi = torch.cat([grad_rz, grad_an], dim=1)  # (batch, 3H)
        grad_gh = torch.cat([grad_rz, grad_an * r], dim=1)
        needs = ctx.needs_input_grad
        grad_x = grad_gi.mm(w_ih) if needs[0] else None
        grad_h = torch.addmm(through_z, grad_gh, w_hh) if needs[1] else None
        grad_w_ih = grad_gi.t().mm(x) if needs[2] else None
        grad_w_hh = grad_gh.t().mm(h) if needs[3] else None
        grad_b_ih = grad_gi.sum(0) if needs[4] else None
        grad_b_hh = grad_gh.sum(0) if needs[5] else None
        return grad_x, grad_h, grad_w_ih, grad_w_hh, grad_b_ih, grad_b_hh


def gru_cell(cell: nn.GRUCell, inputs: torch.Tensor, hidden: torch.Tensor) -> torch.Tensor:
    """``cell(inputs, hidden)`` through :class:`_GRUCellFunction`: (batch, input_size), (batch, H) -> (batch, H)."""
    return _GRUCellFunction.apply(inputs, hidden, cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh)


class GRUCell(nn.GRUCell):
    """``nn.GRUCell`` whose CPU step is :func:`gru_cell` (a batch of states, with biases; anything else, and every
    other device, goes to torch's own cell)."""

    def forward(self, inputs: torch.Tensor, hidden: torch.Tensor | None = None) -> torch.Tensor:
        if inputs.device.type == "cpu" and inputs.dim() == 2 and hidden is not None and self.bias:
            return gru_cell(self, inputs, hidden)
        return super().forward(inputs, hidden)
