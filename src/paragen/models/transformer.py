"""The Transformer (Vaswani et al. 2017) as the simplification report builds it (003 §3.2, §4.3.2).

Encoder and decoder stacks of post-norm residual layers, LayerNorm(x + Sublayer(x)) (003 §3.2.2);
multi-head attention MultiHead(Q, K, V) = [head_1 … head_h] W^O with
head_i = softmax(Q W_i^Q (K W_i^K)^T / sqrt(d_k)) V W_i^V (003 §3.2.1, no biases, as written);
a ReLU feed-forward sublayer; sinusoidal positions added to embeddings scaled by sqrt(d_model).

It serves the one beam search through the same incremental ``step`` as the RNN models: the
encoder–decoder attention's keys and values of each decoder layer are computed once per batch
(``Encoded.projections``, reordered with the beams), the self-attention keys and values of the
tokens decoded so far are the state (``self_k<l>``/``self_v<l>``, shape (batch, heads, steps, d_k)),
so a step costs one position. Training runs the decoder over all positions at once under a
causal mask (:meth:`Transformer.forward`): no step loop.

Shapes: memory (batch, src_len, d_model); per-head tensors (batch, heads, length, d_k).
"""

from __future__ import annotations

import math
from typing import Callable

import torch
from torch import nn

from paragen.data.batching import Batch
from paragen.models.dmass import DmassMemory
from paragen.models.seq2seq import Loss, State, StepOutput, token_nll
from paragen.models.state import Encoded
from paragen.data.vocabulary import PAD_ID, UNK_ID


def sinusoidal_positions(length: int, size: int) -> torch.Tensor:
    """PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d)); (length, size)."""
    position = torch.arange(length, dtype=torch.float32).unsqueeze(1)
    rate = torch.exp(torch.arange(0, size, 2, dtype=torch.float32) * (-math.log(10000.0) / size))
    table = torch.zeros(length, size)
    table[:, 0::2] = torch.sin(position * rate)
    table[:, 1::2] = torch.cos(position * rate[: size // 2])
    return table


class MultiHeadAttention(nn.Module):
    """[head_1 … head_h] W^O; W^O maps h·d_v back to d_model (they need not be equal: 003 uses 300 and 64)."""

    def __init__(self, model_size: int, heads: int, key_size: int, dropout: float):
        super().__init__()
        self.heads, self.key_size = heads, key_size
        self.query = nn.Linear(model_size, heads * key_size, bias=False)
        self.key = nn.Linear(model_size, heads * key_size, bias=False)
        self.value = nn.Linear(model_size, heads * key_size, bias=False)
        self.output = nn.Linear(heads * key_size, model_size, bias=False)
        self.dropout = nn.Dropout(dropout)

    def _split(self, x: torch.Tensor) -> torch.Tensor:
        """(batch, length, h·d_k) -> (batch, h, length, d_k)."""
        return x.view(x.size(0), x.size(1), self.heads, self.key_size).transpose(1, 2)

    def keys_values(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self._split(self.key(x)), self._split(self.value(x))

    def attend(self, x: torch.Tensor, keys: torch.Tensor, values: torch.Tensor,
               mask: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor]:
        """Queries from ``x`` (batch, q_len, d_model); ``mask`` broadcasts to (batch, h, q_len, k_len), True = may
        attend. Returns the output (batch, q_len, d_model) and the weights (batch, h, q_len, k_len)."""
        queries = self._split(self.query(x))
        scores = queries @ keys.transpose(-1, -2) / math.sqrt(self.key_size)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        heads = self.dropout(weights) @ values
        joined = heads.transpose(1, 2).reshape(x.size(0), x.size(1), self.heads * self.key_size)
        return self.output(joined), weights


class FeedForward(nn.Module):
    """max(0, x W_1 + b_1) W_2 + b_2."""

    def __init__(self, model_size: int, inner_size: int, dropout: float):
        super().__init__()
        self.inner, self.outer, self.dropout = nn.Linear(model_size, inner_size), nn.Linear(inner_size, model_size), \
            nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.outer(self.dropout(torch.relu(self.inner(x))))


class EncoderLayer(nn.Module):
    def __init__(self, model_size: int, heads: int, key_size: int, inner_size: int, dropout: float):
        super().__init__()
        self.attention = MultiHeadAttention(model_size, heads, key_size, dropout)
        self.feed_forward = FeedForward(model_size, inner_size, dropout)
        self.norm_attention, self.norm_feed_forward = nn.LayerNorm(model_size), nn.LayerNorm(model_size)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        attended, _ = self.attention.attend(x, *self.attention.keys_values(x), mask)
        x = self.norm_attention(x + self.dropout(attended))
        return self.norm_feed_forward(x + self.dropout(self.feed_forward(x)))


class DecoderLayer(nn.Module):
    """Masked self-attention, encoder–decoder attention, feed-forward; each LayerNorm(x + Sublayer(x)).

    The output of the encoder–decoder attention sublayer is DMASS's "pre-context", the output of
    the feed-forward sublayer its "post-context" (003 §3.2.3).
    """

    def __init__(self, model_size: int, heads: int, key_size: int, inner_size: int, dropout: float):
        super().__init__()
        self.self_attention = MultiHeadAttention(model_size, heads, key_size, dropout)
        self.cross_attention = MultiHeadAttention(model_size, heads, key_size, dropout)
        self.feed_forward = FeedForward(model_size, inner_size, dropout)
        self.norm_self, self.norm_cross, self.norm_feed_forward = (nn.LayerNorm(model_size) for _ in range(3))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor, self_keys: torch.Tensor, self_values: torch.Tensor,
                self_mask: torch.Tensor | None, cross_keys: torch.Tensor, cross_values: torch.Tensor,
                cross_mask: torch.Tensor, read: Callable[[torch.Tensor], torch.Tensor] | None = None,
                ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Returns the layer output (DMASS's post-context), the encoder–decoder attention weights
        (batch, h, q_len, src_len) and the pre-context. ``read`` (DMASS) turns the pre-context into what the
        feed-forward sublayer reads: the whole sublayer, residual included, runs on it, so with the report's read
        (003 §3.2.3: "add r_context to c_current, and feed this new value into feed forward layer") the output is
        LayerNorm((c + r) + FFN(c + r)), with c this layer's pre-context and r the read of this layer's own slots."""
        attended, _ = self.self_attention.attend(x, self_keys, self_values, self_mask)
        x = self.norm_self(x + self.dropout(attended))
        attended, weights = self.cross_attention.attend(x, cross_keys, cross_values, cross_mask)
        pre_context = self.norm_cross(x + self.dropout(attended))
        fed = pre_context if read is None else read(pre_context)
        return self.norm_feed_forward(fed + self.dropout(self.feed_forward(fed))), weights, pre_context


def _embedding(vocab_size: int, model_size: int) -> nn.Embedding:
    """N(0, d_model^-1/2) entries (as Vaswani et al.'s implementations), so sqrt(d_model) · E has unit scale like
    the positional encodings it is added to (PyTorch's N(0, 1) would drown the positions at d_model = 300);
    the padding row is zero."""
    table = nn.Embedding(vocab_size, model_size, padding_idx=PAD_ID)
    nn.init.normal_(table.weight, 0.0, model_size ** -0.5)
    with torch.no_grad():
        table.weight[PAD_ID].zero_()
    return table


class Transformer(nn.Module):
    """Encoder–decoder Transformer with the ``encode`` / ``initial_state`` / ``step`` protocol of :class:`Seq2Seq`."""

    copies = False
    never_generated: tuple[int, ...] = ()  # beyond <pad> and <s>, which no search emits

    def __init__(self, vocab_size: int, model_size: int, heads: int, key_size: int, inner_size: int,
                 encoder_layers: int, decoder_layers: int, dropout: float, share_embeddings: bool,
                 max_positions: int = 1024, memory: DmassMemory | None = None):
        super().__init__()
        self.memory = memory
        self.vocab_size, self.model_size = vocab_size, model_size
        self.source_embedding = _embedding(vocab_size, model_size)
        self.target_embedding = self.source_embedding if share_embeddings else _embedding(vocab_size, model_size)
        self.register_buffer("positions", sinusoidal_positions(max_positions, model_size), persistent=False)
        self.encoder_layers = nn.ModuleList(EncoderLayer(model_size, heads, key_size, inner_size, dropout)
                                            for _ in range(encoder_layers))
        self.decoder_layers = nn.ModuleList(DecoderLayer(model_size, heads, key_size, inner_size, dropout)
                                            for _ in range(decoder_layers))
        self.projection = nn.Linear(model_size, vocab_size)
        self.dropout = nn.Dropout(dropout)

    def _embed(self, table: nn.Embedding, ids: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        """sqrt(d_model) · E[ids] + PE[positions]."""
        return self.dropout(table(ids) * math.sqrt(self.model_size) + self.positions[positions])

    def _check_length(self, length: int, what: str) -> None:
        """Positions beyond the sinusoid table cannot be encoded; said once per batch, not per decoding step."""
        if length > self.positions.size(0):
            raise ValueError(f"a {what} of {length} tokens exceeds the Transformer's {self.positions.size(0)} "
                             "positions; shorten the lines (datasets.<name>.max_line_chars) or decoding.*.max_length")

    def encode(self, batch: Batch) -> Encoded:
        self._check_length(batch.src.size(1), "source sentence")
        mask = batch.src != PAD_ID
        positions = torch.arange(batch.src.size(1), device=batch.src.device).expand_as(batch.src)
        x = self._embed(self.source_embedding, batch.src, positions)
        key_mask = mask[:, None, None, :]
        for layer in self.encoder_layers:
            x = layer(x, key_mask)
        projections = {}
        for index, layer in enumerate(self.decoder_layers):
            projections[f"cross_k{index}"], projections[f"cross_v{index}"] = layer.cross_attention.keys_values(x)
        if self.memory is not None:
            projections["dmass_candidates"] = self.memory.candidates(batch.src)
        summary = x.new_zeros(x.size(0), self.model_size)  # no summary vector: the decoder starts from <s> alone
        return Encoded(x, mask, summary, batch.src_ext, self.vocab_size, None, projections)

    def initial_state(self, encoded: Encoded) -> State:
        batch = encoded.memory.size(0)
        state: State = {"position": torch.zeros(batch, dtype=torch.long, device=encoded.memory.device)}
        for index, layer in enumerate(self.decoder_layers):
            empty = encoded.memory.new_zeros(batch, layer.self_attention.heads, 0, layer.self_attention.key_size)
            state[f"self_k{index}"], state[f"self_v{index}"] = empty, empty
        return state

    def step(self, tokens: torch.Tensor, state: State, encoded: Encoded) -> StepOutput:
        """One position: ``tokens`` (batch,) are y_{t-1}; the new keys and values join the state."""
        inputs = self.target_ids(tokens).unsqueeze(1)
        x = self._embed(self.target_embedding, inputs, state["position"].unsqueeze(1))
        new_state: State = {"position": state["position"] + 1}
        cross_mask = encoded.mask[:, None, None, :]
        weights = None
        for index, layer in enumerate(self.decoder_layers):
            keys, values = layer.self_attention.keys_values(x)
            keys = torch.cat([state[f"self_k{index}"], keys], dim=2)
            values = torch.cat([state[f"self_v{index}"], values], dim=2)
            new_state[f"self_k{index}"], new_state[f"self_v{index}"] = keys, values
            x, weights, pre_context = layer(x, keys, values, None, encoded.projections[f"cross_k{index}"],
                                            encoded.projections[f"cross_v{index}"], cross_mask,
                                            self._reader(index, encoded))
            if index == 0:
                key = pre_context
        x = self._read_top(key, x, encoded)
        log_probs = torch.log_softmax(self.projection(x.squeeze(1)).float(), dim=-1)
        attention = None if weights is None else weights.mean(dim=1).squeeze(1)  # heads averaged: (batch, src_len)
        return StepOutput(log_probs, new_state, attention, None, None)

    def target_ids(self, tgt: torch.Tensor) -> torch.Tensor:
        return tgt.masked_fill(tgt >= self.vocab_size, UNK_ID)

    def forward(self, batch: Batch) -> torch.Tensor:
        """Teacher-forced log-probabilities (batch, tgt_len, V), every position at once under a causal mask."""
        encoded = self.encode(batch)
        inputs = self.target_ids(batch.tgt_in)
        length = inputs.size(1)
        self._check_length(length, "target sentence")
        positions = torch.arange(length, device=inputs.device).expand_as(inputs)
        x = self._embed(self.target_embedding, inputs, positions)
        causal = torch.ones(length, length, dtype=torch.bool, device=inputs.device).tril()[None, None]
        cross_mask = encoded.mask[:, None, None, :]
        pre, post = [], []
        for index, layer in enumerate(self.decoder_layers):
            x, _, pre_context = layer(x, *layer.self_attention.keys_values(x), causal,
                                      encoded.projections[f"cross_k{index}"], encoded.projections[f"cross_v{index}"],
                                      cross_mask, self._reader(index, encoded))
            pre.append(pre_context)
            post.append(x)
        x = self._read_top(pre[0], x, encoded)
        log_probs = torch.log_softmax(self.projection(x).float(), dim=-1)
        memory = self.memory
        if memory is not None and self.training:  # DMASS's update, from the teacher-forced argmax (or the gold)
            outputs = log_probs.argmax(-1) if memory.trigger == "predicted" else self.target_ids(batch.tgt_out)
            keys, values = ([pre[0]], [x]) if memory.placement == "top" else (pre, post)
            memory.update(outputs, batch.tgt_out != PAD_ID, encoded.projections["dmass_candidates"], keys, values)
        return log_probs

    def _reader(self, layer: int, encoded: Encoded) -> Callable[[torch.Tensor], torch.Tensor] | None:
        """DMASS's read inside ``layer`` (placement each_layer), else None."""
        if self.memory is None or self.memory.placement != "each_layer":
            return None
        memory, candidates = self.memory, encoded.projections["dmass_candidates"]
        return lambda context: memory.read(layer, context, candidates)

    def _read_top(self, key: torch.Tensor, output: torch.Tensor, encoded: Encoded) -> torch.Tensor:
        """DMASS's read after the last layer (placement top): keyed by layer 0's pre-context, combined with the
        decoder output (the released code); the output unchanged otherwise."""
        if self.memory is None or self.memory.placement != "top":
            return output
        return self.memory.read(0, key, encoded.projections["dmass_candidates"], base=output)

    def loss(self, batch: Batch) -> Loss:
        return token_nll(self, batch)
