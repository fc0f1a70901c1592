"""Gradients of a weight that a loop reads at every step, summed once after the loop in one matrix product.

Why: backward through T steps of ``y_t = x_t W^T + b`` computes, at every step, ``grad_t^T x_t`` (the weight's full
size from a product over one batch) and adds it into the weight's gradient: T small, memory-bound products and T
additions of a weight-sized tensor. The sum is the same product over all steps at once,
``[grad_1; ..; grad_T]^T [x_1; ..; x_T]``, which runs as one large product. On a 2-core CPU the per-step products
and their additions were about a seventh of a training step of the JoeyNMT anchor's model (docs/speed.md).

How: :class:`DeferredGradients` passes the weight and bias through :class:`_SumAfterLoop`, whose outputs (the same
tensors) are what the loop reads. A step's hand-written backward (e.g. :class:`paragen.models.cells._GRUHidden`)
records its ``(grad_t, x_t)`` with :meth:`DeferredGradients.add` and returns no gradient for them; autograd runs
``_SumAfterLoop``'s backward only after every step that read its outputs, and it turns the records into the
weight's and bias's gradients. Used only where the loop runs with gradients (teacher forcing); search calls the
same functions with ``deferred=None``.
"""

from __future__ import annotations

import torch
from torch import nn


def _backward_pass() -> int:
    """An id of the backward pass now running (torch's graph-task id; -1 where this torch lacks it)."""
    current = getattr(torch._C, "_current_graph_task_id", None)
    return -1 if current is None else current()


class _Records:
    """Each step's (output gradient, input) for one weight, and their sum after the loop.

    Kept apart from :class:`DeferredGradients`, which holds the tensors the loop reads: ``_SumAfterLoop``'s
    context refers to this, and were it to refer to an object holding its own outputs, the reference cycle
    (output -> its autograd node -> context -> output) would keep every batch's graph alive, activations included.
    For the same reason the records are detached (an input's autograd history would lead back to the steps that
    refer to these records). Records belong to one backward pass: a pass that ran the steps but not the sum (a
    gradient asked for another tensor only) leaves records the next pass must not count again."""

    def __init__(self, bias: bool):
        self.bias = bias
        self.grads: list[torch.Tensor] = []
        self.inputs: list[torch.Tensor] = []
        self.pass_id: int | None = None

    def add(self, grad_output: torch.Tensor, inputs: torch.Tensor) -> None:
        current = _backward_pass()
        if current != self.pass_id:
            self.grads, self.inputs, self.pass_id = [], [], current
        self.grads.append(grad_output.detach())
        self.inputs.append(inputs.detach())

    def take(self) -> tuple[torch.Tensor | None, ...]:
        """(grad of weight, grad of bias) over every step this backward pass recorded, then forget them (a second
        backward of the same graph records afresh); None for each when no step recorded anything."""
        if not self.grads or self.pass_id != _backward_pass():
            self.grads, self.inputs = [], []
            return (None, None) if self.bias else (None,)
        grads, inputs = torch.cat(self.grads, dim=-2), torch.cat(self.inputs, dim=-2)  # (..., all rows, out / in)
        self.grads, self.inputs = [], []
        weight = grads.transpose(-1, -2) @ inputs
        return (weight, grads.sum(-2)) if self.bias else (weight,)


class _SumAfterLoop(torch.autograd.Function):
    """Identity on ``params``; its backward returns the gradients the steps recorded in ``records``, summed."""

    @staticmethod
    def forward(ctx, records: _Records, *params: torch.Tensor) -> tuple[torch.Tensor, ...]:
        ctx.records = records
        ctx.set_materialize_grads(False)  # an output no ordinary operator read gets None, not a zero tensor
        return tuple(p.view_as(p) for p in params)

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, *direct: torch.Tensor):
        summed = ctx.records.take()
        grads = tuple(d if s is None else s if d is None else s + d for s, d in zip(summed, direct))
        return (None, *grads)  # direct: what ordinary operators that also read the outputs sent back (or None)


class DeferredGradients:
    """A weight (..., out, in) and optional bias (..., out) read by every step of one loop.

    ``weight`` and ``bias`` are what the steps must read; each step's backward calls :meth:`add` with its output
    gradient (..., rows, out) and input (..., rows, in): a batch's rows for a weight (out, in); one slice per
    direction for stacked weights (dirs, out, in); or, for a per-sentence tensor such as the attention memory
    (batch, src_len, size), one row per sentence, (batch, 1, src_len) and (batch, 1, size). The sum joins every
    step's rows and multiplies once."""

    def __init__(self, weight: torch.Tensor, bias: torch.Tensor | None = None):
        self._records = _Records(bias is not None)
        params = (weight,) if bias is None else (weight, bias)
        outputs = _SumAfterLoop.apply(self._records, *params)
        self.weight = outputs[0]
        self.bias = outputs[1] if bias is not None else None

    def add(self, grad_output: torch.Tensor, inputs: torch.Tensor) -> None:
        self._records.add(grad_output, inputs)


class _Linear(torch.autograd.Function):
    """``x W^T`` plus ``base`` with W's gradient recorded in ``deferred`` instead of returned: x (batch, in),
    W (out, in); ``base`` is ``deferred``'s bias (out,) (``per_step`` False: its gradient is summed after the loop
    too), a tensor (batch, out) of this step (``per_step`` True: its gradient is returned), or None."""

    @staticmethod
    def forward(ctx, x, weight, base, deferred, per_step):
        ctx.deferred, ctx.per_step = deferred, per_step
        ctx.save_for_backward(x, weight)
        return x.mm(weight.t()) if base is None else torch.addmm(base, x, weight.t())

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        needs = ctx.needs_input_grad
        if needs[1]:  # a frozen weight records nothing (records nobody takes would outlive the batch)
            ctx.deferred.add(grad, x)
        return grad.mm(weight) if needs[0] else None, None, grad if ctx.per_step and needs[2] else None, None, None


def linear(x: torch.Tensor, deferred: DeferredGradients, base: torch.Tensor) -> torch.Tensor:
    """``base + x W^T`` for W = ``deferred.weight`` and this step's ``base`` (batch, out): (batch, in) ->
    (batch, out)."""
    return _Linear.apply(x, deferred.weight, base, deferred, True)


class LoopLinears:
    """``nn.Linear`` layers that one loop applies at every step, their gradients summed after it: call
    ``loop(layer, x)`` where the step would call ``layer(x)``, x (batch, in) -> (batch, out)."""

    def __init__(self):
        self._deferred: dict[nn.Linear, DeferredGradients] = {}

    def __call__(self, layer: nn.Linear, x: torch.Tensor) -> torch.Tensor:
        deferred = self._deferred.get(layer)
        if deferred is None:
            deferred = self._deferred[layer] = DeferredGradients(layer.weight, layer.bias)
        return _Linear.apply(x, deferred.weight, deferred.bias, deferred, False)


def apply_linear(layer: nn.Linear, x: torch.Tensor, loop: LoopLinears | None) -> torch.Tensor:
    """``layer(x)``, through ``loop`` when a step loop defers its gradients (teacher forcing), else directly."""
    return layer(x) if loop is None else loop(layer, x)
