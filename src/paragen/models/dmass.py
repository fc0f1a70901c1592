"""DMASS's simplification memory (Zhao et al. 2018) as the simplification report describes it (003 §3.2.3).

One memory slot per lexical PPDB rule (complex -> simple) and decoder layer, holding a *pre-context*
(the output of the layer's encoder–decoder attention sublayer) and a *post-context* (the output of its
feed-forward sublayer).

- **Update** (training, teacher forced): where the model's argmax output at a position is the simple
  word of a rule whose complex word is in the source, that position's pre- and post-context are
  stored in the rule's slot; a later match overwrites it (``update="overwrite"``, the report), is
  averaged in (``"average"``: a running mean) or halves the distance ((old + new) / 2: ``"halve"``, what
  Zhao et al.'s released code does, ``model/graph.py`` ``update_memory``). ``trigger="gold"`` stores
  where the *gold* target holds the simple word instead of the prediction (the released code).
- **Placement**: ``each_layer`` (the report: every decoder layer has its slots and reads them before its
  feed-forward sublayer) or ``top`` (the released code, ``model/transformer.py``: one memory keyed by
  layer 0's pre-context, valued by the decoder's final output, read after the last layer, where the
  output and the read are concatenated and mapped back by a linear layer).
- **Read** (training and decoding): at each position, the current pre-context c is scored against the
  stored pre-contexts c_r of the sentence's candidate rules (complex word in the source, slot filled),
  α = softmax(c · c_r), r = Σ α_r post_r, over the slots of the layer that reads (each layer its own); the
  layer's feed-forward sublayer, residual included, runs on c + r (``combine="add"``, the report: its output,
  the post-context, is LayerNorm((c + r) + FFN(c + r))) or on W[c; r] (``"concat"``, the released code).
- ``read_after_updates``: reads stay off until the memory has taken this many updates (the released
  code's warm-up); 0 in the report.

The memory is a set of buffers: saved in checkpoints, never trained by gradient.
"""

from __future__ import annotations

from typing import Literal

import torch
from torch import nn

from paragen.models.critic import RuleTable, occurs


class DmassMemory(nn.Module):
    """Slots (layers, rules, d_model) of pre- and post-contexts, with the rules they belong to."""

    def __init__(self, rules: RuleTable, layers: int, model_size: int,
                 update: Literal["overwrite", "average", "halve"] = "overwrite",
                 combine: Literal["add", "concat"] = "add", read_after_updates: int = 0,
                 placement: Literal["each_layer", "top"] = "each_layer", trigger: Literal["predicted", "gold"] = "predicted"):
        super().__init__()
        self.update_rule, self.read_after_updates = update, read_after_updates  # combine: whether merge exists
        self.placement, self.trigger = placement, trigger
        layers = 1 if placement == "top" else layers  # top: one memory, keyed by layer 0, valued by the output
        self.register_buffer("complex_ids", rules.complex_ids.clone())
        self.register_buffer("simple_ids", rules.simple_ids.clone())
        count = len(rules)
        self.register_buffer("pre", torch.zeros(layers, count, model_size))
        self.register_buffer("post", torch.zeros(layers, count, model_size))
        self.register_buffer("stored", torch.zeros(count, dtype=torch.long))  # updates taken per rule
        self.register_buffer("updates", torch.zeros((), dtype=torch.long))  # all updates taken
        self.merge = nn.ModuleList(nn.Linear(2 * model_size, model_size) for _ in range(layers)) \
            if combine == "concat" else None

    def candidates(self, source: torch.Tensor) -> torch.Tensor:
        """(batch, rules): the rule's complex word occurs in the source (batch, src_len)."""
        return occurs(source, self.complex_ids)

    def read(self, layer: int, context: torch.Tensor, candidates: torch.Tensor,
             base: torch.Tensor | None = None) -> torch.Tensor:
        """``base`` (default: ``context``) combined with what the memory returns for the query ``context``
        (batch, length, d_model): what the feed-forward sublayer of ``layer`` reads (each_layer), or what replaces
        the decoder output (top, where ``base`` is that output)."""
        base = context if base is None else base
        usable = candidates & (self.stored > 0).unsqueeze(0)  # (batch, rules)
        rows = usable.any(dim=0).nonzero().squeeze(1)  # the rules any sentence of the batch can read
        if int(self.updates) < self.read_after_updates or rows.numel() == 0:
            read = torch.zeros_like(base)
        else:
            # index_select copies the few slots read, so updates made later in the same training step (in place,
            # on the buffers) cannot disturb the backward pass, and scoring costs the batch's rules, not all
            pre, post = (slots[layer].index_select(0, rows).to(context.dtype) for slots in (self.pre, self.post))
            scores = context @ pre.T  # (batch, length, rules read)
            scores = scores.masked_fill(~usable[:, rows].unsqueeze(1), float("-inf"))
            weights = torch.softmax(scores, dim=-1).nan_to_num(0.0)  # a sentence without usable rules reads 0
            read = weights @ post
        if self.merge is not None:
            return self.merge[layer](torch.cat([base, read], dim=-1))
        return base + read

    @torch.no_grad()
    def update(self, outputs: torch.Tensor, real: torch.Tensor, candidates: torch.Tensor,
               pre: list[torch.Tensor], post: list[torch.Tensor]) -> int:
        """Store the contexts of positions whose argmax ``outputs`` (batch, length) is a candidate rule's simple word.

        ``pre``/``post``: per layer, (batch, length, d_model). Positions are taken in batch order, then
        position order, so when several match one rule the last one is what ``overwrite`` keeps.
        Returns the number of updates made.
        """
        hits = (outputs.unsqueeze(2) == self.simple_ids.view(1, 1, -1)) & candidates.unsqueeze(1) & real.unsqueeze(2)
        made = 0
        for b, t, r in hits.nonzero().tolist():
            self.stored[r] += 1
            keep = {"overwrite": 1.0, "average": 1.0 / float(self.stored[r]),
                    "halve": 1.0 if int(self.stored[r]) == 1 else 0.5}[self.update_rule]
            for layer in range(self.pre.size(0)):
                self.pre[layer, r] += keep * (pre[layer][b, t].float() - self.pre[layer, r])
                self.post[layer, r] += keep * (post[layer][b, t].float() - self.post[layer, r])
            made += 1
        self.updates += made
        return made
