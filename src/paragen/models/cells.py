"""A GRU cell with a hand-written backward, for CPU training: the same function as ``nn.GRUCell`` in fewer operators.

Why: a recurrent decoder runs its cell once per target token, forward and backward, so the cell's operator count
multiplies by every step of every batch. On CUDA, ``nn.GRUCell`` runs torch's fused kernel (two matrix products and
one fused gate kernel each way); on CPU it is decomposed into 16 operators forward and 20 backward. This cell
computes the same equations (PyTorch's GRU, Cho et al. 2014)

    r = σ(W_ir x + b_ir + W_hr h + b_hr)        z = σ(W_iz x + b_iz + W_hz h + b_hz)
    n = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn))      h' = (1 − z) ⊙ n + z ⊙ h = n + z ⊙ (h − n)

with r and z through one sigmoid and h' as one ``lerp``: 7 operators forward and 18 backward, 3 of them
allocating the buffers the gate gradients are written into (counted with a ``TorchDispatchMode``).
:class:`GRUCell` is an ``nn.GRUCell`` (same parameters, so checkpoints are unchanged) that takes this path on CPU
and torch's fused one elsewhere; the recurrent decoder's GRU layers are built from it.
"""

from __future__ import annotations

import torch
from torch import nn

from paragen.models.deferred import DeferredGradients


def _gates(gi: torch.Tensor, gh: torch.Tensor, h: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """h' from the input side gi = W_ih x + b_ih and the hidden side gh = W_hh h + b_hh, each (..., batch, 3H) in
    r, z, n order; also returns what the backward reads: rz (..., batch, 2H) and n (..., batch, H)."""
    size = h.size(-1)
    rz = torch.sigmoid(gi[..., : 2 * size] + gh[..., : 2 * size])  # r then z
    n = torch.tanh(torch.addcmul(gi[..., 2 * size:], rz[..., :size], gh[..., 2 * size:]))
    return torch.lerp(n, h, rz[..., size:]), rz, n


def _gates_backward(grad: torch.Tensor, h: torch.Tensor, rz: torch.Tensor, n: torch.Tensor,
                    gh_n: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """From ∂L/∂h' (..., batch, H): ∂L/∂gi and ∂L/∂gh (..., batch, 3H) and the part of ∂L/∂h that does not pass
    W_hh. Each gate's gradient is written into its columns of one buffer (``out=``) rather than concatenated."""
    size = h.size(-1)
    r, z = rz[..., :size], rz[..., size:]
    through_z = grad * z  # ∂h'/∂h along z ⊙ h, and the part of grad that does not reach n
    grad_n = grad - through_z  # grad ⊙ (1 − z)
    if torch.compiler.is_compiling():  # dynamo cannot trace ``out=`` into column views: concatenate instead
        grad_an = torch.ops.aten.tanh_backward(grad_n, n)
        grad_rz = torch.ops.aten.sigmoid_backward(torch.cat([grad_an * gh_n, grad * (h - n)], dim=-1), rz)
        return torch.cat([grad_rz, grad_an], dim=-1), torch.cat([grad_rz, grad_an * r], dim=-1), through_z
    grad_gi = grad.new_empty(*grad.shape[:-1], 3 * size)  # r, z, n
    grad_an = torch.ops.aten.tanh_backward.grad_input(grad_n, n, grad_input=grad_gi[..., 2 * size:])  # n's input
    through_rz = grad.new_empty(*grad.shape[:-1], 2 * size)  # ∂L/∂r, ∂L/∂z before the sigmoid
    torch.mul(grad_an, gh_n, out=through_rz[..., :size])
    torch.mul(grad, h - n, out=through_rz[..., size:])
    torch.ops.aten.sigmoid_backward.grad_input(through_rz, rz, grad_input=grad_gi[..., : 2 * size])
    grad_gh = torch.empty_like(grad_gi)
    grad_gh[..., : 2 * size] = grad_gi[..., : 2 * size]
    torch.mul(grad_an, r, out=grad_gh[..., 2 * size:])
    return grad_gi, grad_gh, through_z


class _GRUCellFunction(torch.autograd.Function):
    """h' from (x, h, W_ih, W_hh, b_ih, b_hh); shapes (batch, in), (batch, H), (3H, in), (3H, H), (3H,), (3H,)."""

    @staticmethod
    def forward(ctx, x, h, w_ih, w_hh, b_ih, b_hh):
        gi = torch.addmm(b_ih, x, w_ih.t())  # (batch, 3H): r, z, n parts of the input side
        gh = torch.addmm(b_hh, h, w_hh.t())  # (batch, 3H): the hidden side
        out, rz, n = _gates(gi, gh, h)
        ctx.save_for_backward(x, h, w_ih, w_hh, rz, n, gh[:, 2 * h.size(1):])
        return out

    @staticmethod
    @torch.autograd.function.once_differentiable  # the hand-written backward is not itself differentiable
    def backward(ctx, grad):
        x, h, w_ih, w_hh, rz, n, gh_n = ctx.saved_tensors
        grad_gi, grad_gh, through_z = _gates_backward(grad, h, rz, n, gh_n)
        needs = ctx.needs_input_grad
        grad_x = grad_gi.mm(w_ih) if needs[0] else None
        grad_h = torch.addmm(through_z, grad_gh, w_hh) if needs[1] else None
        grad_w_ih = grad_gi.t().mm(x) if needs[2] else None
        grad_w_hh = grad_gh.t().mm(h) if needs[3] else None
        grad_b_ih = grad_gi.sum(0) if needs[4] else None
        grad_b_hh = grad_gh.sum(0) if needs[5] else None
        return grad_x, grad_h, grad_w_ih, grad_w_hh, grad_b_ih, grad_b_hh


class _GRUHidden(torch.autograd.Function):
    """h' from precomputed input gates gi = W_ih x + b_ih (batch, 3H), h (batch, H), W_hh (3H, H), b_hh (3H,), or
    several independent cells at once (the directions of a bidirectional layer): (dirs, batch, 3H), (dirs, batch, H),
    (dirs, 3H, H), (dirs, 3H).

    A layer that runs over a whole known input sequence computes gi for every step in one product before its loop;
    only the hidden side runs per step. With ``deferred`` (a :class:`paragen.models.deferred.DeferredGradients` of
    W_hh and b_hh, whose ``weight``/``bias`` are passed here) the backward records (∂L/∂gh, h) for the sum after the
    loop instead of returning W_hh's and b_hh's gradients."""

    @staticmethod
    def forward(ctx, gi, h, w_hh, b_hh, deferred):
        if h.dim() == 2:
            gh = torch.addmm(b_hh, h, w_hh.t())
        else:  # one slice per direction: (dirs, batch, H) x (dirs, H, 3H)
            gh = torch.baddbmm(b_hh.unsqueeze(1), h, w_hh.transpose(1, 2))
        out, rz, n = _gates(gi, gh, h)
        ctx.deferred = deferred
        ctx.save_for_backward(h, w_hh, rz, n, gh[..., 2 * h.size(-1):])
        return out

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad):
        h, w_hh, rz, n, gh_n = ctx.saved_tensors
        grad_gi, grad_gh, through_z = _gates_backward(grad, h, rz, n, gh_n)
        needs = ctx.needs_input_grad
        grad_h = None
        if needs[1]:
            grad_h = torch.addmm(through_z, grad_gh, w_hh) if h.dim() == 2 else torch.baddbmm(through_z, grad_gh, w_hh)
        if ctx.deferred is not None:
            if needs[2]:  # a frozen W_hh records nothing
                ctx.deferred.add(grad_gh, h)
            return grad_gi, grad_h, None, None, None
        grad_w_hh = grad_gh.transpose(-1, -2) @ h if needs[2] else None
        grad_b_hh = grad_gh.sum(-2) if needs[3] else None
        return grad_gi, grad_h, grad_w_hh, grad_b_hh, None


def gru_hidden(gi: torch.Tensor, h: torch.Tensor, w_hh: torch.Tensor, b_hh: torch.Tensor,
               deferred: DeferredGradients | None = None) -> torch.Tensor:
    """One GRU step from precomputed input gates (:class:`_GRUHidden`): (batch, 3H), (batch, H) -> (batch, H).
    With ``deferred``, ``w_hh``/``b_hh`` must be its ``weight``/``bias``."""
    return _GRUHidden.apply(gi, h, w_hh, b_hh, deferred)


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
