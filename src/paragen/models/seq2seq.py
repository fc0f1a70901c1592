"""The composed encoder-decoder with the incremental ``step`` interface all search uses.

Every model (Enc-Dec, RNNSearch, CopyNet, WEAN) is an :class:`Seq2Seq` with a
different attention, output layer or decoder add-on, so training (teacher
forcing) and beam search both call the very same :meth:`Seq2Seq.step`.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from paragen.data.batching import Batch, fill_targets
from paragen.models.char_decoder import CharDecoder
from paragen.models.decoders import Forcing, RecurrentDecoder
from paragen.models.encoders import RNNEncoder
from paragen.models.outputs import CopyOutput
from paragen.models.source_prediction import SourcePrediction
from paragen.models.state import Encoded
from paragen.data.vocabulary import PAD_ID, UNK_ID

State = dict[str, torch.Tensor]


@dataclass
class StepOutput:
    log_probs: torch.Tensor  # (batch, width)
    state: State
    attention: torch.Tensor | None  # (batch, src_len)
    copy_probs: torch.Tensor | None  # (batch, src_len)
    generate_mass: torch.Tensor | None  # (batch,)


def reorder_state(state: State, index: torch.Tensor) -> State:
    return {key: value.index_select(0, index) for key, value in state.items()}


class Seq2Seq(nn.Module):
    """Encoder + input-feeding decoder + output layer (+ CopyNet's selective read, + training-only add-ons:
    the character decoder's spelling loss, SPM's source-side loss)."""

    def __init__(self, encoder: RNNEncoder, decoder: RecurrentDecoder, output: nn.Module, vocab_size: int,
                 selective_read: bool = False, char_decoder: CharDecoder | None = None,
                 source_prediction: SourcePrediction | None = None):
        super().__init__()
        self.encoder, self.decoder, self.output = encoder, decoder, output
        self.vocab_size = vocab_size
        self.copies = isinstance(output, CopyOutput)
        self.selective_read = selective_read
        self.char_decoder = char_decoder  # spells <unk> words from the attentional vector (003 §4.3.1)
        self.source_prediction = source_prediction  # 004 §4: trains on Y' and ℓ_src; step never computes it
        self.compiled_step = None  # forced_step under torch.compile (training.*.compile), or None: eager

    shares_encoded_rows = True
    """:meth:`step` takes encoder results shared by each sentence's hypotheses (:attr:`Encoded.beams`): beam search
    keeps one copy a sentence, and each step reads it once for all of them (docs/speed.md)."""

    def __getstate__(self) -> dict:
        """A copy or pickle runs eagerly: the compiled step is bound to this model's weights, not the copy's."""
        state = dict(super().__getstate__())
        state["compiled_step"] = None
        return state

    @property
    def never_generated(self) -> tuple[int, ...]:
        """Ids the model scores in training that search must never emit, beside <pad> and <s>: SPM's <tpad>."""
        return () if self.source_prediction is None else (self.source_prediction.pad_id,)

    def encode(self, batch: Batch) -> Encoded:
        encoder = self.encoder(batch.src, batch.src_lengths, batch.src_lengths_host)
        memory = encoder.memory
        width = self.vocab_size + (batch.max_oovs if self.copies else 0)
        projections = {}
        if self.decoder.attention is not None:
            projections["attention"] = self.decoder.attention.project_memory(memory)
        mask = batch.src != PAD_ID
        owned = None
        if self.copies:
            projections["copy"] = self.output.project_memory(memory)
            # Extended ids of a sentence's OOVs are len(V), len(V)+1, ...: its own slots end after the largest.
            owned = batch.src_ext.masked_fill(~mask, 0).max(dim=1).values.clamp_min(self.vocab_size - 1) + 1
        return Encoded(memory, mask, encoder.summary, batch.src_ext, width, owned, projections, encoder.finals, ~mask)

    def initial_state(self, encoded: Encoded) -> State:
        """s_0 (and CopyNet's zero copy probabilities), one row per row of ``encoded``: per sentence, which beam
        search then repeats for the sentence's hypotheses before it shares ``encoded`` (:meth:`Encoded.shared`)."""
        if encoded.beams != 1:
            raise ValueError("initial_state takes one row per sentence: call it before Encoded.shared")
        state = self.decoder.initial_state(encoded.summary, encoded.finals)
        if self.selective_read:
            state["copy_prev"] = torch.zeros_like(encoded.mask, dtype=encoded.memory.dtype)
        return state

    def _selective_read(self, tokens: torch.Tensor, state: State, encoded: Encoded) -> torch.Tensor:
        """ζ(y_{t-1}) (Eq. 9): previous copy probabilities of the positions holding y_{t-1}, renormalised;
        (batch, memory_size) for ``tokens`` (batch,). With ``encoded.beams`` > 1 each sentence's hypotheses read
        its one row of source ids and memory together, (sentences, beams, ·)."""
        src_ext, mask, memory = encoded.src_ext, encoded.mask, encoded.memory
        shape = (src_ext.size(0), encoded.beams, -1)
        match = (src_ext.unsqueeze(1) == tokens.view(shape)) & mask.unsqueeze(1)  # (sentences, beams, src_len)
        rho = state["copy_prev"].view(shape) * match
        rho = rho / rho.sum(-1, keepdim=True).clamp_min(1e-20)  # all-zero rows stay zero: ζ = 0
        return torch.bmm(rho, memory).flatten(0, 1)

    def in_vocabulary(self, tokens: torch.Tensor) -> torch.Tensor:
        """Extended ids with every OOV slot read as <unk>: what the decoder's embedding can look up."""
        return tokens.masked_fill(tokens >= self.vocab_size, UNK_ID)

    def advance(self, tokens: torch.Tensor, state: State, encoded: Encoded, embedded: torch.Tensor | None = None,
                forcing: Forcing | None = None) -> tuple[State, torch.Tensor | None]:
        """The decoder's step for y_{t-1} (``tokens``: extended ids, (batch,)), with CopyNet's selective read;
        ``embedded``: the cell's word input when the caller embedded every step at once (with ``forcing``, its
        word-side gates)."""
        extra = self._selective_read(tokens, state, encoded) if self.selective_read else None
        if embedded is None:
            return self.decoder(self.in_vocabulary(tokens), state, encoded, extra)
        return self.decoder(tokens, state, encoded, extra, embedded, forcing)

    def forced_step(self, tokens: torch.Tensor, embedded: torch.Tensor, state: State, encoded: Encoded,
                    forcing: Forcing | None = None) -> tuple[State, ForcedStep]:
        """One teacher-forced step for gold y_{t-1} (``tokens``: extended ids, (batch,); ``embedded``: their cell
        input, or with ``forcing`` (:meth:`RecurrentDecoder.forcing`) its word-side gates): the decoder, and of the
        output layer only what step t + 1 reads (h̃_t / q_t when fed back, CopyNet's mode probabilities for its
        selective read). What :func:`run_teacher_forced` loops over, and
        what ``training.*.compile`` compiles (:mod:`paragen.training.compiled`)."""
        state, weights = self.advance(tokens, state, encoded, embedded, forcing)
        top, context = self.decoder.top(state), state["context"]
        fed = p_generate = p_copy = None
        if self.decoder.feed_key == "feed":  # Luong input feeding: the cell reads h~_t at step t + 1
            state["feed"] = fed = self.output.attentional(top, context, None if forcing is None else forcing.linears)
        if self.selective_read:  # ζ(y_t) at step t + 1 reads this step's copy probabilities
            p_generate, p_copy = self.output.modes(top, context, encoded)
            state["copy_prev"] = p_copy
        return state, ForcedStep(top, context, fed, p_generate, p_copy, weights)

    def step(self, tokens: torch.Tensor, state: State, encoded: Encoded) -> StepOutput:
        """Advance one token: ``tokens`` (batch,) are extended ids of y_{t-1}."""
        new_state, attention = self.advance(tokens, state, encoded)
        result = self.output(self.decoder.top(new_state), new_state["context"], encoded=encoded)
        if self.selective_read:
            new_state["copy_prev"] = result.copy_probs
        if self.decoder.feed_key == "feed":  # Luong input feeding: the cell reads h~_t at step t + 1
            new_state["feed"] = result.attentional
        return StepOutput(result.log_probs, new_state, attention, result.copy_probs, result.generate_mass)

    def target_ids(self, tgt: torch.Tensor) -> torch.Tensor:
        """Gold ids this model can score: non-copying models see OOV targets as UNK."""
        return tgt if self.copies else tgt.masked_fill(tgt >= self.vocab_size, UNK_ID)

    def forward(self, batch: Batch) -> torch.Tensor:
        """Teacher-forced log-probabilities, (batch, tgt_len, width)."""
        return self.teacher_forced(batch)[0]

    def teacher_forced(self, batch: Batch) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Log-probabilities (batch, tgt_len, width) and, with Luong input feeding, the attentional vectors
        h̃_t (batch, tgt_len, size) the character decoder and SPM start from."""
        run = run_teacher_forced(self, batch)
        return run.log_probs, run.attentional

    def loss(self, batch: Batch) -> "Loss":
        """The mean token NLL, plus each add-on's term over the same token count.

        With SPM the NLL is ℓ_trg(Y'): the target continued with <tpad> to the source length (004 Eq. 9),
        whose <tpad> positions count as tokens; ``terms["src"]`` is ℓ_src (Eq. 11) per token of Y'."""
        if self.source_prediction is not None:
            batch = fill_targets(batch, self.source_prediction.pad_id)
        if self.char_decoder is None and self.source_prediction is None:
            return token_nll(self, batch)
        log_probs, attentional = self.teacher_forced(batch)
        result = token_nll(self, batch, log_probs)
        summed: dict[str, torch.Tensor] = {}
        if self.char_decoder is not None:
            summed["char"] = self._spelling_nll(batch, attentional)  # over the unknown words' bytes
        if self.source_prediction is not None:
            summed["src"] = self.source_prediction.loss(attentional, batch.src, batch.src_lengths).sum()  # sentences
        per_token = {name: term / result.tokens.clamp(min=1) for name, term in summed.items()}  # the NLL's normaliser
        return Loss(result.total + sum(per_token.values()), result.tokens, result.correct,
                    {**result.terms, **{name: term.detach() for name, term in per_token.items()}}, log_probs)

    def _spelling_nll(self, batch: Batch, attentional: torch.Tensor) -> torch.Tensor:
        """The character decoder's NLL summed over the bytes of every <unk> target word (0 without one)."""
        gold = self.target_ids(batch.tgt_out)
        rows, cols = ((gold == UNK_ID) & (word_positions(batch))).nonzero(as_tuple=True)
        if rows.numel() == 0:
            return attentional.new_zeros(())
        words = [batch.target_words[r][c] for r, c in zip(rows.tolist(), cols.tolist())]
        char_nll, _ = self.char_decoder.loss(words, attentional[rows, cols])
        return char_nll


@dataclass
class TeacherForced:
    log_probs: torch.Tensor  # (batch, tgt_len, width)
    attentional: torch.Tensor | None  # (batch, tgt_len, size): h~_t, with Luong input feeding only
    attention: torch.Tensor | None  # (batch, tgt_len, src_len): only when asked for


def stepped_teacher_forced(model: nn.Module, batch: Batch, keep_attention: bool = False) -> TeacherForced:
    """The decoder over the gold prefix, one full ``step`` (search's) per target position: for any model with the
    step protocol, and what :mod:`paragen.decoding.alignments` reads (attention weights kept only when asked).
    Training uses :func:`run_teacher_forced`, the same numbers with the output layer out of the loop."""
    encoded = model.encode(batch)
    state = model.initial_state(encoded)
    steps, attentional, attention = [], [], []
    for t in range(batch.tgt_in.size(1)):
        out = model.step(batch.tgt_in[:, t], state, encoded)
        state = out.state
        steps.append(out.log_probs)
        if "feed" in state:
            attentional.append(state["feed"])
        if keep_attention:
            attention.append(out.attention)
    return TeacherForced(torch.stack(steps, dim=1), torch.stack(attentional, dim=1) if attentional else None,
                         torch.stack(attention, dim=1) if keep_attention else None)


def run_teacher_forced(model: Seq2Seq, batch: Batch, keep_attention: bool = False) -> TeacherForced:
    """The decoder over the gold prefix: what training scores (attention weights are kept only when asked).

    The loop runs only what the next step reads: the decoder cell and attention, the attentional vector h̃_t (or
    WEAN's q_t) when input feeding feeds it back, CopyNet's mode probabilities when its selective read needs them.
    The word inputs are embedded before the loop, and the output layer (vocabulary projection, log-softmax, WEAN's
    embedding queries, CopyNet's extended vocabulary) runs once over every step after it: the same numbers as
    calling :meth:`Seq2Seq.step` at each position, with a fraction of the operators per step (bench/op_count.py).
    With gradients on the CPU, a GRU decoder also runs the word side of its input projection before the loop and
    sums the gradients of the weights and memory every step reads after it (:class:`paragen.models.decoders.Forcing`).
    """
    encoded = model.encode(batch)
    state = model.initial_state(encoded)
    embedded = model.decoder.embed(model.in_vocabulary(batch.tgt_in))  # (batch, tgt_len, embedding_size)
    compiled = model.compiled_step is not None and model.training and torch.is_grad_enabled()
    forced_step = model.compiled_step if compiled else model.forced_step  # validation: eager (CUDA graphs would
    # overwrite a step's outputs at the next step when no backward follows)
    forcing = None if compiled or not torch.is_grad_enabled() else model.decoder.forcing(embedded, encoded)
    words = embedded.unbind(1) if forcing is None else forcing.word_gates  # each (batch, ·): step t's word input
    steps = []
    for t in range(batch.tgt_in.size(1)):
        state, kept = forced_step(batch.tgt_in[:, t], words[t], state, encoded, forcing)
        steps.append(kept)

    def stacked(field: str) -> torch.Tensor | None:
        values = [getattr(kept, field) for kept in steps]
        return None if values[0] is None else torch.stack(values, dim=1)

    modes = (stacked("p_generate"), stacked("p_copy")) if model.selective_read else None
    log_probs = model.output.sequence(stacked("top"), stacked("context"), encoded=encoded,
                                      attentional=stacked("fed"), modes=modes)
    return TeacherForced(log_probs, stacked("fed"), stacked("attention") if keep_attention else None)


@dataclass
class ForcedStep:
    """What one teacher-forced step keeps for the output layer after the loop, each (batch, ·)."""

    top: torch.Tensor  # s_t, the top layer's output
    context: torch.Tensor  # c_t
    fed: torch.Tensor | None  # h~_t (WEAN: q_t), with Luong input feeding
    p_generate: torch.Tensor | None  # CopyNet with selective read: p(y, g | .), (batch, vocab_size)
    p_copy: torch.Tensor | None  # and p(x_j, c | .), (batch, src_len)
    attention: torch.Tensor | None  # attention weights, (batch, src_len)


def word_positions(batch: Batch) -> torch.Tensor:
    """(batch, tgt_len): positions holding a target word (not </s>, not padding): the words the character
    decoder can be taught to spell."""
    lengths = torch.tensor([len(w) for w in batch.target_words], device=batch.tgt_out.device)
    return torch.arange(batch.tgt_out.size(1), device=batch.tgt_out.device).unsqueeze(0) < lengths.unsqueeze(1)


@dataclass
class Loss:
    """What one batch contributes: the objective, and what the per-epoch log reports about it.

    Models with auxiliary objectives (SPM's source-side loss, the critic loss) add their terms to
    ``total`` and name them in ``terms``; the one trainer only minimises ``total``.

    Every field is a 0-d tensor on the model's device, never a Python number: turning one into a number
    (``int()``, ``float()``, ``.item()``) waits for the GPU to finish the batch, and the trainer reads its sums
    back once per epoch instead (:class:`paragen.training.sums.EpochSums`).
    """

    total: torch.Tensor  # scalar the optimiser minimises
    tokens: torch.Tensor  # 0-d int64: target tokens scored (padding excluded)
    correct: torch.Tensor  # 0-d int64: of those, how many the teacher-forced argmax predicts (token accuracy)
    terms: dict[str, torch.Tensor]  # each term of ``total``, detached 0-d tensors (for the log)
    log_probs: torch.Tensor | None = None  # the teacher-forced log-probabilities, for objectives built on them


def token_nll(model: nn.Module, batch: Batch, log_probs: torch.Tensor | None = None) -> Loss:
    """Mean token negative log-likelihood (Gu et al. Eq. 10, per token), for any model whose ``forward``
    gives teacher-forced log-probabilities and ``target_ids`` the ids it can score."""
    log_probs = model(batch) if log_probs is None else log_probs
    gold = model.target_ids(batch.tgt_out)
    nll = nn.functional.nll_loss(log_probs.flatten(0, 1), gold.flatten(), ignore_index=PAD_ID, reduction="sum")
    real = gold != PAD_ID
    tokens = real.sum()
    correct = ((log_probs.argmax(-1) == gold) & real).sum()
    mean = nll / tokens.clamp(min=1)
    return Loss(mean, tokens, correct, {"nll": mean.detach()}, log_probs)
