"""One batched beam search for every model (greedy search is ``beam_size=1`` with ``stopping="early"``).

All hypotheses of a batch advance together as ``batch * beam`` rows through
:meth:`Seq2Seq.step`. At each step the best ``2 * beam`` expansions of each
sentence are ranked; those ending in ``</s>`` that rank inside the sentence's
current beam are set aside as finished (scored with length normalisation
``log p / length**alpha``), and the best others stay alive. Token ids may be
extended ids, so copying models can emit out-of-vocabulary source words.

When a sentence stops is the ``stopping`` rule:

``early``
    once it has ``beam`` finished hypotheses (the usual NMT shortcut; with
    length normalisation a live hypothesis could still have overtaken them).
``bound``
    once it has ``nbest`` finished hypotheses and no live one can still enter
    them: log-probabilities only fall, so a live hypothesis with log p ``L``
    at best scores ``L / max_length**alpha`` (``L`` itself when alpha is 0).
    This is the default: it returns what a search with that beam can find.
``shrinking``
    GroundHog's rule (used by Kiyono et al., SPM §3): each finished
    hypothesis shrinks the sentence's beam by one, and the sentence stops when
    the beam is empty, i.e. with exactly ``beam`` finished hypotheses.

At ``max_length`` the surviving hypotheses are finished as they stand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import torch

from paragen.data.batching import Batch
from paragen.models.seq2seq import Seq2Seq, reorder_state
from paragen.data.vocabulary import BOS_ID, EOS_ID, PAD_ID

Stopping = Literal["early", "bound", "shrinking"]
STOPPING_RULES: tuple[str, ...] = ("early", "bound", "shrinking")


@dataclass(frozen=True)
class Hypothesis:
    tokens: tuple[int, ...]  # ids, ending with </s> unless cut at max_length
    log_prob: float  # sum of token log-probabilities
    score: float  # log_prob / len(tokens)**alpha, the ranking key


def normalised(log_prob, length: int, alpha: float):
    """``log_prob / length**alpha`` for a float or a tensor of log-probabilities of ``length``-token hypotheses."""
    return log_prob / (max(length, 1) ** alpha) if alpha > 0 else log_prob


def forbidden_ids(model: object, device: torch.device) -> torch.Tensor:
    """``<pad>`` and ``<s>``, never outputs, and the model's ``never_generated`` ids (SPM's <tpad>, which it
    learns to follow </s> with, 004 §4.3), on ``device``: made once per search, not once per step."""
    # models declare never_generated (build_model's protocol); duck-typed stand-ins may leave it out
    return torch.tensor([PAD_ID, BOS_ID, *getattr(model, "never_generated", ())], device=device)


def forbid_specials(log_probs: torch.Tensor, forbidden: torch.Tensor) -> torch.Tensor:
    """``log_probs`` with the ``forbidden`` ids (:func:`forbidden_ids`) at -inf, the rest not renormalised."""
    return log_probs.index_fill(-1, forbidden, float("-inf"))


def best_reachable(log_prob, max_length: int, alpha: float):
    """The highest normalised score a live hypothesis with ``log_prob`` (a float or a tensor) can still reach
    (``bound`` rule)."""
    return log_prob / (max_length ** alpha) if alpha > 0 else log_prob


@dataclass
class _Kept:
    """The ``nbest`` best finished hypotheses of each sentence still in the batch, on the device, best first (ties:
    the earlier found first, as a stable sort of every finished hypothesis would order them), and how many have
    finished in all. Rows are sentences: (m, nbest) scores, (m, nbest, max_length) token ids padded with <pad>."""

    score: torch.Tensor  # normalised, float64; -inf where empty
    log_prob: torch.Tensor  # float64
    length: torch.Tensor  # int64; 0 where empty
    tokens: torch.Tensor  # int64
    finished: torch.Tensor  # (m,) int64: every hypothesis finished so far, kept or not

    @classmethod
    def empty(cls, m: int, nbest: int, max_length: int, device: torch.device) -> "_Kept":
        return cls(torch.full((m, nbest), float("-inf"), dtype=torch.float64, device=device),
                   torch.zeros((m, nbest), dtype=torch.float64, device=device),
                   torch.zeros((m, nbest), dtype=torch.long, device=device),
                   torch.full((m, nbest, max_length), PAD_ID, dtype=torch.long, device=device),
                   torch.zeros(m, dtype=torch.long, device=device))

    def merge(self, score: torch.Tensor, log_prob: torch.Tensor, length: int, tokens: torch.Tensor,
              ending: torch.Tensor) -> None:
        """Add the candidates flagged in ``ending`` (m, c): their normalised ``score`` and ``log_prob`` (m, c),
        ``tokens`` (m, c, max_length) of ``length`` ids each."""
        nbest = self.score.size(1)
        scores = torch.cat([self.score, score.masked_fill(~ending, float("-inf"))], dim=1)  # others never enter
        order = scores.sort(dim=1, descending=True, stable=True).indices[:, :nbest]
        self.score = scores.gather(1, order)
        self.log_prob = torch.cat([self.log_prob, log_prob], dim=1).gather(1, order)
        self.length = torch.cat([self.length, ending * length], dim=1).gather(1, order)  # int64: 0 where not ending
        self.tokens = torch.cat([self.tokens, tokens], dim=1).gather(
            1, order.unsqueeze(2).expand(-1, -1, self.tokens.size(2)))
        self.finished = self.finished + ending.sum(1)

    def threshold(self) -> torch.Tensor:
        """(m,) the normalised score a hypothesis must beat to enter the n-best (-inf while it is not full)."""
        last = self.score[:, -1]
        return last.masked_fill(self.finished < self.score.size(1), float("-inf"))

    def select(self, rows: torch.Tensor) -> "_Kept":
        return _Kept(*(getattr(self, f).index_select(0, rows) for f in ("score", "log_prob", "length", "tokens",
                                                                         "finished")))


@torch.no_grad()
def beam_search(model: Seq2Seq, batch: Batch, beam_size: int, max_length: int, length_penalty: float = 1.0,
                nbest: int = 1, stopping: Stopping = "bound", host_checks: bool | None = None,
                check_every: int = 4) -> list[list[Hypothesis]]:
    """The ``nbest`` best hypotheses per sentence, best first.

    A model with ``shares_encoded_rows`` (the recurrent ones) keeps its encoder results once per sentence for the
    sentence's hypotheses (:meth:`paragen.models.state.Encoded.shared`); others get a copy per hypothesis.
    The bookkeeping stays on the model's device: finished hypotheses are merged into each sentence's n-best there
    (:class:`_Kept`) and whether a sentence is done is a device tensor, so a step reads nothing back. Sentences
    whose search is over leave the batch (their rows are dropped from the state), so a sentence that searches long
    costs only its own rows; deciding that needs one read, made every ``check_every`` steps, or at every step when
    ``host_checks`` (default: on the CPU, where a read costs nothing); in between, a finished sentence's rows
    run on but add nothing. The n-best come back in one read at the end.
    """
    if nbest > beam_size:
        raise ValueError(f"nbest ({nbest}) cannot exceed beam_size ({beam_size})")
    if stopping not in STOPPING_RULES:
        raise ValueError(f"unknown stopping rule {stopping!r}; allowed values: {', '.join(STOPPING_RULES)}")
    n = batch.src.size(0)
    device = batch.src.device
    host_checks = device.type == "cpu" if host_checks is None else host_checks
    encoded = model.encode(batch)
    beams = torch.arange(beam_size, device=device)
    row_sentences = torch.arange(n, device=device).repeat_interleave(beam_size)
    shared = getattr(model, "shares_encoded_rows", False)  # one row of encoder results a sentence, not a beam's
    if shared:
        state = reorder_state(model.initial_state(encoded), row_sentences)
        encoded = encoded.shared(beam_size)
    else:
        encoded = encoded.index_select(row_sentences)
        state = model.initial_state(encoded)
    tokens = torch.full((n * beam_size,), BOS_ID, dtype=torch.long, device=device)
    # Only the first beam of each sentence is live at the start; the others are copies.
    scores = torch.full((n, beam_size), float("-inf"), device=device)
    scores[:, 0] = 0.0
    history = torch.zeros((n * beam_size, 0), dtype=torch.long, device=device)
    kept = _Kept.empty(n, nbest, max_length, device)
    done = torch.zeros(n, dtype=torch.bool, device=device)
    sentences = torch.arange(n, device=device)  # which sentence each row group is
    results = _Kept.empty(n, nbest, max_length, device)  # the n-best of sentences that left the batch
    k = 2 * beam_size
    rank = torch.arange(k, device=device).unsqueeze(0)  # (1, k)
    forbidden = forbidden_ids(model, device)
    # Each row group's first row, made once: rows stay grouped by sentence in order, so the first m are the m left.
    all_first_rows = torch.arange(n, device=device).unsqueeze(1) * beam_size  # (n, 1)
    in_full_beam = rank < beam_size  # (1, k): without `shrinking` the beam mask of every step, sliced to its width

    for length in range(1, max_length + 1):
        m = scores.size(0)
        out = model.step(tokens, state, encoded)
        log_probs = forbid_specials(out.log_probs.float(), forbidden)
        width = log_probs.size(1)
        candidates = (scores.view(-1, 1) + log_probs).view(m, beam_size * width)
        top_scores, top_index = candidates.topk(min(k, beam_size * width), dim=1)  # (m, k), best first
        top_beam, top_token = top_index // width, top_index % width
        is_eos = top_token == EOS_ID
        # The beam of each sentence now: `beam_size`, or what is left of it under GroundHog's rule.
        if stopping == "shrinking":
            in_beam = rank[:, : top_scores.size(1)] < (beam_size - kept.finished).unsqueeze(1)
        else:
            in_beam = in_full_beam[:, : top_scores.size(1)]
        last_step = length == max_length
        # Only endings that rank inside the beam are final; weaker ones would fill the finished list
        # with poor hypotheses. A sentence that is done adds none. Scores are log-probabilities (at most 0, or NaN
        # from a broken model), so `> -inf` is `isfinite` in one operator.
        ending = in_beam & (top_scores > float("-inf")) & ~done.unsqueeze(1)
        if not last_step:  # at the last step every candidate in the beam ends
            ending = ending & is_eos
        first_rows = all_first_rows[:m]  # (m, 1): each sentence's first row
        if not host_checks or bool(ending.any()):
            rows = (first_rows + top_beam).view(-1)
            bodies = torch.cat([history.index_select(0, rows), top_token.view(-1, 1)], dim=1)
            bodies = torch.nn.functional.pad(bodies, (0, max_length - length), value=PAD_ID).view(m, -1, max_length)
            log_prob = top_scores.double()  # as Python floats were: the ranking is the same as ever
            kept.merge(normalised(log_prob, length, length_penalty), log_prob, length, bodies, ending)
        if last_step:
            break

        # Survivors: the best non-final expansions (under `shrinking`, only those inside the shrunk beam).
        alive_scores = top_scores.masked_fill(is_eos | ~in_beam if stopping == "shrinking" else is_eos,
                                              float("-inf"))
        scores, pick = alive_scores.topk(beam_size, dim=1)  # (m, beam)
        best_alive = scores[:, 0].double()
        if stopping == "bound":  # a sentence with no live hypothesis (best -inf) is over: -inf >= -inf
            done = done | (kept.threshold() >= best_reachable(best_alive, max_length, length_penalty))
        else:
            done = done | (kept.finished >= beam_size) | (best_alive == float("-inf"))

        rows = first_rows + top_beam.gather(1, pick)  # (m, beam)
        tokens = top_token.gather(1, pick)
        if host_checks or length % check_every == 0:
            finished = int(done.sum())  # one read
            if finished == m:
                break
            if finished:  # finished sentences leave the batch, their n-best kept aside
                _set_aside(results, kept, sentences, done)
                stay = (~done).nonzero().squeeze(1)
                rows, tokens = rows.index_select(0, stay), tokens.index_select(0, stay)
                scores = scores.index_select(0, stay)
                # shared: a row per staying sentence; else every hypothesis's own copy
                encoded = encoded.index_select(stay if shared else (stay.unsqueeze(1) * beam_size + beams).view(-1))
                kept, sentences, done = kept.select(stay), sentences.index_select(0, stay), done.index_select(0, stay)
        rows, tokens = rows.view(-1), tokens.view(-1)
        history = torch.cat([history.index_select(0, rows), tokens.unsqueeze(1)], dim=1)
        state = reorder_state(out.state, rows)

    _set_aside(results, kept, sentences, torch.ones_like(done))
    return _hypotheses(results)


def _set_aside(results: _Kept, kept: _Kept, sentences: torch.Tensor, leaving: torch.Tensor) -> None:
    """Copy the n-best of the rows flagged ``leaving`` into ``results`` at their sentences' rows (in place)."""
    where = leaving.nonzero().squeeze(1)
    index = sentences.index_select(0, where)
    for field in ("score", "log_prob", "length", "tokens", "finished"):
        getattr(results, field)[index] = getattr(kept, field).index_select(0, where)


def _hypotheses(results: _Kept) -> list[list[Hypothesis]]:
    """The one read back of a search: each sentence's kept hypotheses, best first."""
    lengths, log_probs, scores = results.length.tolist(), results.log_prob.tolist(), results.score.tolist()
    tokens = results.tokens.tolist()
    return [[Hypothesis(tuple(tokens[i][j][:lengths[i][j]]), log_probs[i][j], scores[i][j])
             for j in range(len(lengths[i])) if lengths[i][j] > 0] for i in range(len(lengths))]
