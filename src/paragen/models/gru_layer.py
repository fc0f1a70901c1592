"""``nn.GRU`` over a padded batch on the CPU, stepped by paragen's GRU cell instead of torch's packed-sequence loop.

Why: on the CPU, ``nn.GRU`` over a packed batch slices each step's rows out of the input projection of all tokens,
and the backward of every slice fills a zero tensor of that whole projection and adds it up: work that grows with
the square of the sentence length, about a tenth of a training step of the JoeyNMT anchor's model
(docs/speed.md). Here the input projection ``W_ih x + b_ih`` of every step is one product, split per step with
``unbind`` (whose backward is one ``stack``); each step runs only the hidden side
(:func:`paragen.models.cells.gru_hidden`, both directions as one cell, with W_hh's gradient summed after the
loop, :mod:`paragen.models.deferred`). Shorter sentences are masked: a state starts from zero at a sentence's last
token (backward direction) and is read at its last token (forward direction), and outputs at padding are zero,
which is what ``pack_padded_sequence`` gives. Same parameters as the ``nn.GRU``, so checkpoints are unchanged.
"""

from __future__ import annotations

import torch
from torch import nn

from paragen.models.cells import gru_hidden
from paragen.models.deferred import DeferredGradients


def steps_here(rnn: nn.Module, inputs: torch.Tensor) -> bool:
    """Whether :func:`gru_over_time` runs ``rnn``: a GRU with biases on the CPU, and no dropout between layers
    while training (torch draws ``nn.GRU``'s inter-layer dropout inside its own kernel; a copy would draw other
    masks)."""
    between_layers = rnn.num_layers > 1 and rnn.dropout > 0 and rnn.training
    return isinstance(rnn, nn.GRU) and inputs.device.type == "cpu" and rnn.bias and not between_layers


def gru_over_time(rnn: nn.GRU, inputs: torch.Tensor, lengths: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``rnn`` (batch_first) over ``inputs`` (batch, len, input_size) whose sentences have ``lengths`` (batch,),
    on the CPU: ``nn.GRU``'s outputs as ``pad_packed_sequence`` gives them, (batch, len, directions * H), and its
    final states (layers * directions, batch, H).

    Loop step s runs both directions at once, as one cell over stacked weights (directions, 3H, H): the forward
    direction at position s and the backward one at position len - 1 - s."""
    batch, steps = inputs.shape[:2]
    directions = 2 if rnn.bidirectional else 1
    shortest = int(lengths.min())
    if shortest < 1:  # what packing refuses too; masked, an empty sentence would attend over padding only (NaN)
        raise ValueError(f"every source needs at least one token; lengths {lengths.tolist()} include 0")
    real = (torch.arange(steps).unsqueeze(0) < lengths.unsqueeze(1)).unsqueeze(2)  # (batch, len, 1)
    positions = [(s, steps - 1 - s)[:directions] for s in range(steps)]  # what loop step s reads, per direction
    masks = [None if max(at) < shortest else torch.stack([real[:, p] for p in at]) for at in positions]
    layer_input, finals = inputs, []
    for layer in range(rnn.num_layers):
        suffixes = ("", "_reverse")[:directions]
        w_ih, w_hh, b_ih, b_hh = ([getattr(rnn, f"{name}_l{layer}{suffix}") for suffix in suffixes]
                                  for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"))
        flat = layer_input.reshape(batch * steps, -1)
        gates = [torch.addmm(b, flat, w.t()).view(batch, steps, -1) for w, b in zip(w_ih, b_ih)]
        if directions == 2:
            gates[1] = gates[1].flip(1)  # in the backward direction's order
        states = _run(torch.stack(gates).unbind(2), torch.stack(w_hh), torch.stack(b_hh), masks)  # (dirs, b, len, H)
        outputs = [states[0]] + ([states[1].flip(1)] if directions == 2 else [])  # in position order
        finals.append(outputs[0][torch.arange(batch), lengths - 1])  # forward: after each sentence's last token
        if directions == 2:
            finals.append(outputs[1][:, 0])  # backward: at the first token
        layer_input = torch.cat(outputs, dim=-1)
    return layer_input, torch.stack(finals)


def _run(gates: tuple[torch.Tensor, ...], w_hh: torch.Tensor, b_hh: torch.Tensor,
         masks: list[torch.Tensor | None]) -> torch.Tensor:
    """One layer's loop: ``gates`` each step's input side (dirs, batch, 3H); ``masks`` each step's (dirs, batch, 1)
    mask of real tokens (None where every sentence has one). Returns the states (dirs, batch, len, H) in loop
    order, zero at padding: after a sentence's end the forward direction runs on from zero and its outputs are
    masked (its final state is read at the last token); the backward direction starts from zero at each
    sentence's last token, as packing starts it."""
    deferred = DeferredGradients(w_hh, b_hh) if torch.is_grad_enabled() and w_hh.requires_grad else None
    if deferred is not None:
        w_hh, b_hh = deferred.weight, deferred.bias
    hidden = gates[0].new_zeros(*gates[0].shape[:2], w_hh.size(-1))
    states: list[torch.Tensor] = []
    for step, mask in zip(gates, masks):
        new = gru_hidden(step, hidden, w_hh, b_hh, deferred)
        hidden = new if mask is None else torch.where(mask, new, 0.0)
        states.append(hidden)
    return torch.stack(states, dim=2)
