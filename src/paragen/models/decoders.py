"""Input-feeding recurrent decoder shared by every RNN model (docs/architecture.md, principle 4; docs/models.md).

One step, with what the cell is fed chosen by ``input_feeding``:

    s_t = cell([e(y_{t-1}); f_{t-1}; extra_t], s_{t-1})
    c_t = attention(s_t, M)         (or the encoder summary without attention)

``context``: f_{t-1} = c_{t-1}, the previous attention context. Because
c_{t-1} = attention(s_{t-1}, M), this is the state update of RNNSearch
(Bahdanau et al., 2014) and CopyNet (Gu et al., 2016, §3.3), whose cell reads
the context computed from s_{t-1}; f_0 is the encoder summary.

``attentional``: f_{t-1} = h̃_{t-1} = tanh(W_c[s_{t-1}; c_{t-1}]), Luong et
al. (2015, §3.3)'s input feeding of the attentional vector, which the output
layer computes (for WEAN it is the query q_{t-1}); the model writes it into
the state after each step (:meth:`Seq2Seq.step`) and f_0 = 0, as in Luong et al.

``extra_t`` is a model-specific input such as CopyNet's selective read
ζ(y_{t-1}) (§3.3); output layers turn (s_t, c_t) into word scores.

``start`` picks s_0. ``bridge``: every layer starts from tanh(W summary) with zero LSTM cells.
``encoder_final`` (Kiyono et al. 2018, Eq. 18, →z_0 = →h_I + ←h_1): decoder layer l starts from encoder
layer l's last forward plus first backward hidden state, and its LSTM cell from the same sum of the
encoder's cells. The paper writes Eq. 18 once, without layers; handing each layer's final state to the
same decoder layer is how stacked encoder-decoders (Luong et al. 2015) start, and its LSTM cells are the
other half of that state (the paper is silent on them; zero cells would be the other reading).

With ``layers > 1`` the cells are stacked (WEAN §3.1.3: two LSTM layers) and
s_t is the top layer's output; dropout sits between layers as in ``nn.LSTM``.
The bottom layer keeps the state keys ``hidden``/``cell``; upper layers live in
``upper_hidden``/``upper_cell`` with shape (batch, layers - 1, hidden_size), so
beam search reorders every layer with the same ``index_select(0, ...)``.
"""

from __future__ import annotations

from typing import Literal

import torch
from torch import nn

from paragen.models.attention import Attention, LoopAttention
from paragen.models.cells import GRUCell, gru_hidden
from paragen.models.deferred import DeferredGradients, LoopLinears, linear
from paragen.models.state import Encoded, float32_recurrence

State = dict[str, torch.Tensor]


class RecurrentDecoder(nn.Module):
    def __init__(self, embedding: nn.Embedding, hidden_size: int, memory_size: int, cell: str,
                 attention: Attention | None, extra_size: int, dropout: float, layers: int = 1,
                 attentional_feed_size: int | None = None, start: Literal["bridge", "encoder_final"] = "bridge"):
        """``attentional_feed_size`` (the width of h̃) switches on Luong's attentional input feeding."""
        super().__init__()
        self.start = start
        self.embedding = embedding
        self.attention = attention
        self.cell_type = cell
        self.attentional_feed_size = attentional_feed_size
        self.feed_key = "context" if attentional_feed_size is None else "feed"
        cell_class = GRUCell if cell == "gru" else nn.LSTMCell
        feed_size = memory_size if attentional_feed_size is None else attentional_feed_size
        input_size = embedding.embedding_dim + feed_size + extra_size
        self.cell = cell_class(input_size, hidden_size)
        self.bridge = nn.Linear(memory_size, hidden_size) if start == "bridge" else None
        self.dropout = nn.Dropout(dropout)
        # Created after the single-layer parameters so a 1-layer decoder initialises exactly as before.
        self.upper = nn.ModuleList(cell_class(hidden_size, hidden_size) for _ in range(layers - 1))

    @property
    def layers(self) -> int:
        return 1 + len(self.upper)

    def initial_state(self, summary: torch.Tensor, finals: dict[str, torch.Tensor] | None = None) -> State:
        """s_0 as ``start`` says (``finals``: the encoder's per-layer final states, (batch, layers, hidden_size));
        f_0 is the summary (context feeding) or 0 (h̃ feeding, Luong et al.; 004: z_0 = 0)."""
        if self.start == "bridge":
            start = torch.tanh(self.bridge(summary))
            hidden = start.unsqueeze(1).expand(-1, self.layers, -1).contiguous()
            cell = torch.zeros_like(hidden) if self.cell_type == "lstm" else None
        else:
            if not finals or finals["hidden"].size(1) != self.layers:
                raise ValueError(f"decoder_init 'encoder_final': the encoder must give this decoder's {self.layers} "
                                 "layers their final states")
            hidden, cell = finals["hidden"], finals.get("cell")
        state = {"hidden": hidden[:, 0], "context": summary}
        if self.attentional_feed_size is not None:
            state["feed"] = summary.new_zeros(summary.size(0), self.attentional_feed_size)
        if self.cell_type == "lstm":
            state["cell"] = cell[:, 0]
        if self.upper:
            state["upper_hidden"] = hidden[:, 1:]
            if self.cell_type == "lstm":
                state["upper_cell"] = cell[:, 1:]
        return state

    @staticmethod
    def top(state: State) -> torch.Tensor:
        """s_t: the top layer's output, (batch, hidden_size)."""
        return state["upper_hidden"][:, -1] if "upper_hidden" in state else state["hidden"]

    def _run(self, cell: nn.Module, inputs: torch.Tensor, hidden: torch.Tensor,
             memory: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor | None]:
        """One cell in float32 even under bf16 autocast: a recurrent state rounded to 8 mantissa bits at
        every step drifts over a sentence; attention and output projections keep bf16 (docs/models.md)."""
        with float32_recurrence(inputs):
            if self.cell_type == "gru":
                return cell(inputs.float(), hidden.float()), None
            return cell(inputs.float(), (hidden.float(), memory.float()))

    def embed(self, tokens: torch.Tensor) -> torch.Tensor:
        """The cell's word input, dropout(e(y)), for ``tokens`` of any shape in V: teacher forcing embeds every
        step's token at once, (batch, tgt_len) -> (batch, tgt_len, embedding_size), outside the step loop."""
        return self.dropout(self.embedding(tokens))

    def forcing(self, embedded: torch.Tensor, encoded: Encoded) -> Forcing | None:
        """What teacher forcing can prepare before its loop for ``embedded`` (batch, tgt_len, embedding_size), the
        cell's word inputs of every step: a GRU's on the CPU without autocast (:class:`Forcing`); None otherwise."""
        if (self.cell_type != "gru" or embedded.device.type != "cpu" or not self.cell.bias
                or torch.is_autocast_enabled("cpu")):
            return None
        attention = None
        if self.attention is not None and LoopAttention.usable(self.attention, encoded.memory):
            attention = LoopAttention(encoded.projections["attention"], encoded.memory, encoded.pad())
        return Forcing(self.cell, embedded, attention)

    def forward(self, tokens: torch.Tensor, state: State, encoded: Encoded, extra: torch.Tensor | None,
                embedded: torch.Tensor | None = None,
                forcing: Forcing | None = None) -> tuple[State, torch.Tensor | None]:
        """One step for ``tokens`` (batch,) in V (or their ``embedded`` inputs (batch, embedding_size), from
        :meth:`embed`; with ``forcing``, this step's word-side gates from :attr:`Forcing.word_gates`); returns the
        new state and attention weights."""
        fed = [state[self.feed_key]] if extra is None else [state[self.feed_key], extra]
        new_state = dict(state)
        if forcing is not None:
            inputs = fed[0] if extra is None else torch.cat(fed, dim=-1)
            new_state["hidden"], cell_state = forcing.bottom(embedded, inputs, state["hidden"]), None
        else:
            parts = [self.embed(tokens) if embedded is None else embedded, *fed]
            new_state["hidden"], cell_state = self._run(self.cell, torch.cat(parts, dim=-1), state["hidden"],
                                                        state.get("cell"))
        if cell_state is not None:
            new_state["cell"] = cell_state
        if self.upper:
            below, hiddens, cells = new_state["hidden"], [], []
            for layer, cell in enumerate(self.upper):
                memory = state["upper_cell"][:, layer] if "upper_cell" in state else None
                below, cell_state = self._run(cell, self.dropout(below), state["upper_hidden"][:, layer], memory)
                hiddens.append(below)
                cells.append(cell_state)
            new_state["upper_hidden"] = torch.stack(hiddens, dim=1)
            if self.cell_type == "lstm":
                new_state["upper_cell"] = torch.stack(cells, dim=1)
        weights = None  # without attention c_t stays the encoder summary that initial_state put in the state
        if self.attention is not None and forcing is not None and forcing.attention is not None:
            new_state["context"], weights = forcing.attention(self.top(new_state))
        elif self.attention is not None:
            new_state["context"], weights = self.attention(self.top(new_state), encoded.memory, encoded.mask,
                                                           encoded.projections.get("attention"), encoded.pad(),
                                                           encoded.beams)
        return new_state, weights


class Forcing:
    """Teacher forcing's bottom GRU layer on the CPU, prepared once per batch.

    The cell's input is [e(y_{t-1}); f_{t-1}; extra_t], so W_ih x = W_e e(y_{t-1}) + W_f [f_{t-1}; extra_t]: the
    word side of every step is known before the loop and runs as one product (:attr:`word_gates`); each step
    computes only the fed-back side and the hidden side, whose weight gradients are summed after the loop
    (:mod:`paragen.models.deferred`). The same numbers as :meth:`RecurrentDecoder.forward` without it, to float
    rounding (tests/test_forcing.py)."""

    def __init__(self, cell: nn.GRUCell, embedded: torch.Tensor, attention: LoopAttention | None):
        words = embedded.size(-1)
        with float32_recurrence(embedded):
            gates = torch.nn.functional.linear(embedded.float(), cell.weight_ih[:, :words], cell.bias_ih)
        self.word_gates = gates.unbind(1)  # each (batch, 3H): W_e e(y_{t-1}) + b_ih
        self.fed = DeferredGradients(cell.weight_ih[:, words:])
        self.hidden = DeferredGradients(cell.weight_hh, cell.bias_hh)
        self.attention = attention  # dot/general attention with the memory's gradients summed after the loop
        self.linears = LoopLinears()  # the output layer's h~_t / q_t, when input feeding feeds it back

    def bottom(self, word_gates: torch.Tensor, fed: torch.Tensor, hidden: torch.Tensor) -> torch.Tensor:
        """s_t of the bottom layer from this step's ``word_gates`` (batch, 3H), ``fed`` = [f_{t-1}; extra_t] and
        s_{t-1} (batch, H), in float32 as :meth:`RecurrentDecoder._run` keeps it."""
        with float32_recurrence(fed):
            gates = linear(fed.float(), self.fed, word_gates)
            return gru_hidden(gates, hidden.float(), self.hidden.weight, self.hidden.bias, self.hidden)
