"""Interchangeable output layers: decoder features -> log-probabilities over words.

Each layer maps ``hidden`` s_t (batch, hidden_size) and ``context`` c_t
(batch, memory_size) to log-probabilities of shape (batch, width), where width
is ``len(V)`` or, for copying layers, ``len(V) + max_oovs`` (the extended
vocabulary of :mod:`paragen.data.batching`).

Each layer is also split at what a decoder step must read back: ``attentional`` (h̃_t, or WEAN's q_t, fed to
the next step by Luong input feeding) and CopyNet's ``modes`` (the copy probabilities its selective read
needs). Teacher forcing computes only those inside its step loop and calls ``sequence`` once over every step,
(batch, tgt_len, ...) -> (batch, tgt_len, width); ``forward`` (one step, for search) is made of the same parts.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from paragen.models.deferred import LoopLinears, apply_linear
from paragen.models.state import Encoded
from paragen.data.vocabulary import BOS_ID, PAD_ID

PROB_FLOOR = 1e-20
"""Probabilities are clamped here before the log so words no mode can produce stay finite in the loss."""


@dataclass
class OutputResult:
    log_probs: torch.Tensor  # (batch, width)
    copy_probs: torch.Tensor | None = None  # (batch, src_len): p(x_j, c | .) per source position
    generate_mass: torch.Tensor | None = None  # (batch,): total probability of the generate mode
    attentional: torch.Tensor | None = None  # (batch, size): h~_t (WEAN: q_t), fed back by Luong input feeding


class _AttentionalOutput(nn.Module):
    """An output layer made of ``attentional`` (s_t, c_t -> the vector input feeding feeds back) and ``log_probs``
    (that vector -> log-probabilities): one step for search, or every step at once after teacher forcing."""

    def attentional(self, hidden: torch.Tensor, context: torch.Tensor, loop: LoopLinears | None = None) -> torch.Tensor:
        """The vector input feeding feeds back; ``loop``: teacher forcing's :class:`LoopLinears` (its step loop
        sums this layer's weight gradients after the loop)."""
        raise NotImplementedError

    def log_probs(self, attentional: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def forward(self, hidden: torch.Tensor, context: torch.Tensor, **_: object) -> OutputResult:
        attentional = self.attentional(hidden, context)
        return OutputResult(self.log_probs(attentional), attentional=attentional)

    def sequence(self, hidden: torch.Tensor, context: torch.Tensor, *, attentional: torch.Tensor | None = None,
                 **_: object) -> torch.Tensor:
        """Every step at once: (batch, tgt_len, width) from s and c (batch, tgt_len, ·), or from the attentional
        vectors the step loop already made for input feeding."""
        return self.log_probs(self.attentional(hidden, context) if attentional is None else attentional)


class SoftmaxOutput(_AttentionalOutput):
    """Generative word predictor: softmax(W_o tanh(W_h [s_t; c_t] + b_h) + b_o), Luong et al.'s attentional layer.

    ``combine_bias=False`` drops b_h, as Luong et al.'s Eq. 5 and Kiyono et al.'s Eq. 21 write it
    (z_j = tanh(W_s[c_j; →z_j]): the order of the two halves only permutes W's columns).
    """

    def __init__(self, hidden_size: int, memory_size: int, vocab_size: int, dropout: float,
                 combine_bias: bool = True):
        super().__init__()
        self.combine = nn.Linear(hidden_size + memory_size, hidden_size, bias=combine_bias)
        self.project = nn.Linear(hidden_size, vocab_size)
        self.dropout = nn.Dropout(dropout)

    def vocabulary_parameters(self) -> int:
        """The k x V projection W of Eq. 3 in WEAN's notation, what WEAN Table 5 counts (bias excluded)."""
        return self.project.weight.numel()

    def attentional(self, hidden: torch.Tensor, context: torch.Tensor, loop: LoopLinears | None = None) -> torch.Tensor:
        """h~_t = tanh(W_h [s_t; c_t] (+ b_h)), (batch, hidden_size): Luong et al. (2015) Eq. 5, 004 Eq. 21."""
        return torch.tanh(apply_linear(self.combine, torch.cat([hidden, context], dim=-1), loop))

    def scores(self, hidden: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
        """Unnormalised generate-mode scores ψ_g, (batch, vocab_size)."""
        return self.project(self.dropout(self.attentional(hidden, context)))

    def log_probs(self, h_tilde: torch.Tensor) -> torch.Tensor:
        """log softmax(W_o dropout(h̃) + b_o), (..., vocab_size) for h̃ of shape (..., hidden_size)."""
        return torch.log_softmax(self.project(self.dropout(h_tilde)), dim=-1)



class WeanOutput(_AttentionalOutput):
    """WEAN's word generator (Ma et al., 2018, §2.3-2.4): query the decoder-input embeddings.

    q_t = tanh(W_c [s_t; c_t]) has the embedding size and is scored against
    every embedding e_i with ``dot``, ``general`` (q^T W_a e) or ``concat``
    (v^T tanh(W_q q + W_e e)). There is no vocabulary-sized output matrix: the
    only vocabulary-sized parameter is the embedding table the decoder reads.
    :meth:`score_parameters` counts Eq. 5's parameters, what WEAN Table 5 reports.

    ``<pad>`` and ``<s>`` are never outputs, so they are left out of Eq. 6's
    softmax: ``<pad>``'s embedding is frozen at zero, which under dot/general
    scores exactly 0 for every query, a probability the model could never push down.
    """

    def __init__(self, embedding: nn.Embedding, hidden_size: int, memory_size: int, score: str, dropout: float):
        super().__init__()
        self.embedding = embedding
        size = embedding.embedding_dim
        self.query = nn.Linear(hidden_size + memory_size, size)
        self.score = score
        if score == "general":
            self.W_a = nn.Linear(size, size, bias=False)
        elif score == "concat":
            self.W_q = nn.Linear(size, size, bias=False)
            self.W_e = nn.Linear(size, size, bias=False)  # Eq. 5 has no bias: 2k^2 + k parameters
            self.v = nn.Linear(size, 1, bias=False)
        elif score != "dot":
            raise ValueError(f"unknown WEAN score {score!r}; allowed: dot, general, concat")
        self.dropout = nn.Dropout(dropout)
        # ids left out of the softmax, made once on the model's device (not per step: a host-to-device copy);
        # not persistent, so checkpoints stay as they were
        self.register_buffer("never_emitted", torch.tensor([PAD_ID, BOS_ID]), persistent=False)

    def score_parameters(self) -> int:
        """Parameters of the relevance score f(q, e) (Eq. 5): 0 (dot), k^2 (general), 2k^2 + k (concat)."""
        return sum(p.numel() for name, p in self.named_parameters()
                   if name.split(".")[0] in ("W_a", "W_q", "W_e", "v"))

    def attentional(self, hidden: torch.Tensor, context: torch.Tensor, loop: LoopLinears | None = None) -> torch.Tensor:
        """q_t = tanh(W_c [s_t; c_t]) (Eq. 4), (..., embedding_size): the query, and what input feeding feeds."""
        return torch.tanh(apply_linear(self.query, torch.cat([hidden, context], dim=-1), loop))

    def log_probs(self, query: torch.Tensor) -> torch.Tensor:
        """Eq. 5-6 for queries of shape (..., embedding_size): log-probabilities (..., vocab_size). ``concat``
        scores every (query, word) pair through a (vocab, embedding) tanh, so every step at once would hold a
        (batch, tgt_len, vocab, embedding) tensor: its steps are scored one at a time."""
        if self.score == "concat" and query.dim() == 3:
            return torch.stack([self.log_probs(query[:, t]) for t in range(query.size(1))], dim=1)
        q = self.dropout(query)
        keys = self.embedding.weight  # (vocab, emb)
        if self.score == "dot":
            scores = q @ keys.t()
        elif self.score == "general":
            scores = self.W_a(q) @ keys.t()
        else:
            scores = self.v(torch.tanh(self.W_q(q).unsqueeze(-2) + self.W_e(keys))).squeeze(-1)
        scores = scores.index_fill(-1, self.never_emitted, float("-inf"))
        return torch.log_softmax(scores, dim=-1)


class CopyOutput(nn.Module):
    """CopyNet's prediction (Gu et al., 2016, §3.2): generate and copy modes under one normaliser.

    ψ_g comes from the same generative layer RNNSearch uses (so CopyNet is
    RNNSearch plus copying); ψ_c(x_j) = tanh(h_j^T W_c) s_t (Eq. 8). Both sets
    of scores go through a single softmax, then copy probabilities are summed
    into the extended-vocabulary slot of their source word (Eq. 6), so an
    out-of-vocabulary source word can be emitted. Extended slots of a batch-mate's
    OOVs (``encoded.owned_width``) are -inf, not floored: a sentence's output
    must not depend on which sentences share its batch.
    """

    def __init__(self, hidden_size: int, memory_size: int, vocab_size: int, dropout: float):
        super().__init__()
        self.generate = SoftmaxOutput(hidden_size, memory_size, vocab_size, dropout)
        self.W_c = nn.Linear(memory_size, hidden_size, bias=False)
        self.vocab_size = vocab_size

    def project_memory(self, memory: torch.Tensor) -> torch.Tensor:
        """tanh(h_j^T W_c) for every position, (batch, src_len, hidden_size); step-independent."""
        return torch.tanh(self.W_c(memory))

    def modes(self, hidden: torch.Tensor, context: torch.Tensor, encoded: Encoded) -> tuple[torch.Tensor, torch.Tensor]:
        """p(y, g | .) (..., vocab_size) and p(x_j, c | .) (..., src_len) under one normaliser (Eq. 4-5), for s and
        c of shape (batch, size) (one step) or (batch, tgt_len, size) (every step, or a sentence's hypotheses in
        beam search, (sentences, beams, size)): what the selective read needs."""
        generate = self.generate.scores(hidden, context)
        keys = encoded.projections.get("copy")
        keys = self.project_memory(encoded.memory) if keys is None else keys
        if hidden.dim() == 2:
            copy = torch.bmm(keys, hidden.unsqueeze(2)).squeeze(2).masked_fill(encoded.pad(), float("-inf"))
        else:
            copy = torch.bmm(hidden, keys.transpose(1, 2)).masked_fill(encoded.pad().unsqueeze(1), float("-inf"))
        joint = torch.softmax(torch.cat([generate, copy], dim=-1), dim=-1)
        return joint[..., : self.vocab_size], joint[..., self.vocab_size :]

    def combine(self, p_generate: torch.Tensor, p_copy: torch.Tensor, encoded: Encoded) -> torch.Tensor:
        """Log-probabilities over the extended vocabulary (..., width): copy probabilities summed into their
        source word's slot (Eq. 6), floored, and batch-mates' OOV slots at -inf."""
        src_ext, owned = encoded.src_ext, encoded.owned_width
        if p_copy.dim() == 3:  # every step: the same source ids and OOV slots at each step
            src_ext = src_ext.unsqueeze(1).expand_as(p_copy)
            owned = None if owned is None else owned.unsqueeze(1)
        probs = p_generate.new_zeros(*p_generate.shape[:-1], encoded.width)
        probs[..., : self.vocab_size] = p_generate
        probs = probs.scatter_add(-1, src_ext, p_copy)
        log_probs = probs.clamp_min(PROB_FLOOR).log()
        if owned is not None:
            slots = torch.arange(encoded.width, device=log_probs.device)
            log_probs = log_probs.masked_fill(slots >= owned.unsqueeze(-1), float("-inf"))
        return log_probs

    def forward(self, hidden: torch.Tensor, context: torch.Tensor, *, encoded: Encoded) -> OutputResult:
        """One step, s and c (batch, size). With ``encoded.beams`` > 1 (one row of copy keys and source ids a
        sentence), a sentence's hypotheses are scored together as the steps of teacher forcing are, (sentences,
        beams, ·), and come back one row each."""
        if encoded.beams > 1:
            shape = (encoded.src_ext.size(0), encoded.beams, -1)
            hidden, context = hidden.view(shape), context.view(shape)
        p_generate, p_copy = self.modes(hidden, context, encoded)
        log_probs, p_generate = self.combine(p_generate, p_copy, encoded).flatten(0, -2), p_generate.flatten(0, -2)
        return OutputResult(log_probs, p_copy.flatten(0, -2), p_generate.sum(-1))

    def sequence(self, hidden: torch.Tensor, context: torch.Tensor, *, encoded: Encoded,
                 modes: tuple[torch.Tensor, torch.Tensor] | None = None, **_: object) -> torch.Tensor:
        """Every step at once, (batch, tgt_len, width); ``modes``: the step loop's own (selective read)."""
        return self.combine(*(self.modes(hidden, context, encoded) if modes is None else modes), encoded)
