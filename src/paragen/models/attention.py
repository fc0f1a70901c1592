"""Attention scores between a decoder state and the encoder memory.

``dot`` and ``general`` are Luong et al. (2015)'s multiplicative scores;
``concat`` (Luong) and ``bahdanau`` (additive, Bahdanau et al. 2014) are the
same function ``v^T tanh(W_s s + W_h h)`` up to how W is split, so they share
one implementation.
"""

from __future__ import annotations

import torch
from torch import nn

from paragen.models.deferred import DeferredGradients


def _shared(keys: torch.Tensor, query: torch.Tensor) -> torch.Tensor:
    """``keys`` (batch, src_len, size) lined up with ``query``: as they are for one query a row, (batch, size), or
    with a beam axis, (batch, 1, src_len, size), for the queries of a sentence's hypotheses, (batch, beams, size)."""
    return keys if query.dim() == 2 else keys.unsqueeze(1)


def _product_scores(query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
    """``dot``/``general`` scores ``keys · query``, (batch, src_len) (or (batch, beams, src_len) for queries
    (batch, beams, size), :func:`_shared`), as a multiply and a sum over the last axis, not a ``bmm`` with a single
    query column, which CPU kernels run slowly (``bench/probes/attention_energies.py`` times both; docs/speed.md)."""
    return (_shared(keys, query) * query.unsqueeze(-2)).sum(-1)


def _tanh_in_place(x: torch.Tensor) -> torch.Tensor:
    """tanh of ``x``, in place. Without gradients on the CPU (search, validation) it is 2σ(2x) − 1: torch's CPU
    tanh kernel ran about five times slower than its sigmoid on the AVX512 CPU measured (``bench/probes/tanh_speed.py``),
    and the additive score's (batch, [beams,] src_len, size) tensor is the largest a decoder step makes
    (docs/speed.md). The two agree to about 2e-7. Training and GPUs (where tanh is one fast kernel, and four would
    be four launches) keep ``tanh_``."""
    if x.device.type == "cpu" and not torch.is_grad_enabled():
        return x.mul_(2).sigmoid_().mul_(2).sub_(1)
    return x.tanh_()


def _context(scores: torch.Tensor, padding: torch.Tensor, memory: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Weights (batch, src_len), the softmax of ``scores`` with ``padding`` left out, and the context
    (batch, memory_size) they take from ``memory``; returns (context, weights). With a beam axis, scores
    (batch, beams, src_len) over one memory a sentence: context (batch, beams, memory_size), one product for the
    sentence's hypotheses."""
    if scores.dim() == 3:
        weights = torch.softmax(scores.masked_fill(padding.unsqueeze(1), float("-inf")), dim=-1)
        return torch.bmm(weights, memory), weights
    weights = torch.softmax(scores.masked_fill(padding, float("-inf")), dim=-1)
    return torch.bmm(weights.unsqueeze(1), memory).squeeze(1), weights


class Attention(nn.Module):
    """Softmax attention over ``memory`` (batch, src_len, memory_size) for a query (batch, query_size)."""

    def __init__(self, score: str, query_size: int, memory_size: int):
        super().__init__()
        self.score = score
        if score == "dot":
            if query_size != memory_size:
                raise ValueError(f"dot attention needs equal sizes, got query {query_size}, memory {memory_size}")
        elif score == "general":
            self.W = nn.Linear(memory_size, query_size, bias=False)
        elif score in ("concat", "bahdanau"):
            self.W_q = nn.Linear(query_size, query_size, bias=False)
            self.W_m = nn.Linear(memory_size, query_size, bias=True)
            self.v = nn.Linear(query_size, 1, bias=False)
        else:
            raise ValueError(f"unknown attention score {score!r}; allowed: dot, general, concat, bahdanau")

    def project_memory(self, memory: torch.Tensor) -> torch.Tensor:
        """The query-independent part of the score, (batch, src_len, query_size); computed once per batch."""
        if self.score == "dot":
            return memory
        return self.W(memory) if self.score == "general" else self.W_m(memory)

    def energies(self, query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        """Unnormalised scores (batch, src_len) given ``keys = project_memory(memory)`` (or (batch, beams, src_len)
        for queries (batch, beams, query_size) over one row of keys a sentence).

        ``dot``/``general``: :func:`_product_scores`. ``concat``/``bahdanau``: the tanh in place on the sum it is
        applied to (autograd's tanh backward reads only its output; :func:`_tanh_in_place`) and v as a
        matrix-vector product: the same numbers as ``v(tanh(.))`` (to about 2e-7 without gradients on the CPU), in
        fewer passes over the (batch, src_len, size) tensor."""
        if self.score in ("dot", "general"):
            return _product_scores(query, keys)
        # (batch, [beams,] src_len, size), a fresh tensor
        hidden = _tanh_in_place(torch.add(_shared(keys, query), self.W_q(query).unsqueeze(-2)))
        return torch.matmul(hidden, self.v.weight[0])  # v^T tanh(.): a vector product, not a one-column ``Linear``

    def forward(self, query: torch.Tensor, memory: torch.Tensor, mask: torch.Tensor,
                keys: torch.Tensor | None = None, padding: torch.Tensor | None = None,
                beams: int = 1) -> tuple[torch.Tensor, torch.Tensor]:
        """Context (batch, memory_size) and weights (batch, src_len); ``mask`` is True on real tokens, ``padding``
        its inverse when the caller made it once per batch (:meth:`paragen.models.state.Encoded.pad`), so a
        decoder step does not invert it again. ``beams`` > 1: ``memory``, ``mask``, ``keys`` and ``padding`` have
        one row per sentence, read by ``beams`` consecutive queries (:attr:`paragen.models.state.Encoded.beams`);
        the results still have one row per query."""
        keys = self.project_memory(memory) if keys is None else keys
        padding = ~mask if padding is None else padding
        if beams == 1:
            return _context(self.energies(query, keys), padding, memory)
        context, weights = _context(self.energies(query.view(memory.size(0), beams, -1), keys), padding, memory)
        return context.flatten(0, 1), weights.flatten(0, 1)


class _MultiplicativeAttention(torch.autograd.Function):
    """``dot``/``general`` attention for one step of a loop over a fixed memory, with the gradients of ``keys``
    (batch, src_len, query_size) and ``memory`` (batch, src_len, memory_size) recorded in their
    :class:`DeferredGradients` and summed after the loop: per step, the context's backward would add a
    memory-sized tensor, and the score's a keys-sized one. Same forward operators as :meth:`Attention.forward`."""

    @staticmethod
    def forward(ctx, query, keys, memory, padding, deferred_keys, deferred_memory):
        context, weights = _context(_product_scores(query, keys), padding, memory)
        ctx.save_for_backward(query, keys, memory, weights)
        ctx.deferred = deferred_keys, deferred_memory
        return context, weights

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad_context, grad_weights):
        query, keys, memory, weights = ctx.saved_tensors
        deferred_keys, deferred_memory = ctx.deferred
        if grad_context is None:
            grad_context = torch.zeros_like(memory[:, 0])
        through = torch.bmm(memory, grad_context.unsqueeze(2)).squeeze(2)  # ∂L/∂weights via the context
        if grad_weights is not None:
            through = through + grad_weights
        grad_scores = torch.ops.aten._softmax_backward_data(through, weights, -1, weights.dtype)  # 0 at padding
        needs = ctx.needs_input_grad
        if needs[2]:  # one row per sentence
            deferred_memory.add(weights.unsqueeze(1), grad_context.unsqueeze(1))
        if needs[1]:
            deferred_keys.add(grad_scores.unsqueeze(1), query.unsqueeze(1))
        grad_query = torch.bmm(grad_scores.unsqueeze(1), keys).squeeze(1) if needs[0] else None
        return grad_query, None, None, None, None, None


class LoopAttention:
    """Teacher forcing's attention over one batch's memory: :meth:`Attention.forward`'s numbers, with the memory's
    and keys' gradients summed after the step loop (``dot``/``general`` scores; :meth:`usable` says when)."""

    def __init__(self, keys: torch.Tensor, memory: torch.Tensor, padding: torch.Tensor):
        self.keys = DeferredGradients(keys)
        self.memory = DeferredGradients(memory)
        self.padding = padding

    @staticmethod
    def usable(attention: Attention, memory: torch.Tensor) -> bool:
        return attention.score in ("dot", "general") and torch.is_grad_enabled() and memory.requires_grad

    def __call__(self, query: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Context (batch, memory_size) and weights (batch, src_len) for ``query`` (batch, query_size)."""
        return _MultiplicativeAttention.apply(query, self.keys.weight, self.memory.weight, self.padding, self.keys,
                                              self.memory)
