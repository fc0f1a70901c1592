"""The beam search as it was before its bookkeeping moved to the device (commit 888ee81), kept as an independent
reference: Python lists of finished hypotheses per sentence, a heap of the n-best scores, the stop decided per
sentence on the host at every step. tests/test_search_reference.py checks that today's search returns exactly
what this one returns."""

from __future__ import annotations

import heapq

import torch

from paragen.data.vocabulary import BOS_ID, EOS_ID
from paragen.decoding.search import (STOPPING_RULES, Hypothesis, best_reachable, forbid_specials, forbidden_ids,
                                     normalised)
from paragen.models.seq2seq import reorder_state


class _Sentence:
    """Finished hypotheses of one sentence, the ``nbest`` best scores so far, and whether its search is over."""

    def __init__(self, nbest: int) -> None:
        self.finished: list[Hypothesis] = []
        self.best_scores: list[float] = []  # min-heap of the nbest best normalised scores
        self.nbest = nbest
        self.done = False

    def add(self, hypothesis: Hypothesis) -> None:
        self.finished.append(hypothesis)
        if len(self.best_scores) < self.nbest:
            heapq.heappush(self.best_scores, hypothesis.score)
        elif hypothesis.score > self.best_scores[0]:
            heapq.heapreplace(self.best_scores, hypothesis.score)

    def threshold(self) -> float:
        """The normalised score a hypothesis must beat to enter the n-best (-inf while it is not full)."""
        return self.best_scores[0] if len(self.best_scores) == self.nbest else float("-inf")


@torch.no_grad()
def reference_beam_search(model, batch, beam_size: int, max_length: int, length_penalty: float = 1.0,
                          nbest: int = 1, stopping: str = "bound") -> list[list[Hypothesis]]:
    """The ``nbest`` best hypotheses per sentence, best first.

    Sentences whose search is over leave the batch (their rows are dropped from the state), so a
    sentence that searches long costs only its own rows, not every sentence of its batch.
    """
    if nbest > beam_size:
        raise ValueError(f"nbest ({nbest}) cannot exceed beam_size ({beam_size})")
    if stopping not in STOPPING_RULES:
        raise ValueError(f"unknown stopping rule {stopping!r}; allowed values: {', '.join(STOPPING_RULES)}")
    n = batch.src.size(0)
    device = batch.src.device
    encoded = model.encode(batch)
    expand = torch.arange(n, device=device).repeat_interleave(beam_size)
    encoded = encoded.index_select(expand)
    state = model.initial_state(encoded)
    tokens = torch.full((n * beam_size,), BOS_ID, dtype=torch.long, device=device)
    # Only the first beam of each sentence is live at the start; the others are copies.
    scores = torch.full((n, beam_size), float("-inf"), device=device)
    scores[:, 0] = 0.0
    history = torch.zeros((n * beam_size, 0), dtype=torch.long, device=device)
    sentences = [_Sentence(nbest) for _ in range(n)]
    active = list(range(n))  # the sentences still searching, in the order of the rows
    k = 2 * beam_size
    rank = torch.arange(k, device=device).unsqueeze(0)  # (1, k)
    forbidden = forbidden_ids(model, device)

    for length in range(1, max_length + 1):
        m = len(active)
        out = model.step(tokens, state, encoded)
        log_probs = forbid_specials(out.log_probs.float(), forbidden)
        width = log_probs.size(1)
        candidates = (scores.view(-1, 1) + log_probs).view(m, beam_size * width)
        top_scores, top_index = candidates.topk(min(k, beam_size * width), dim=1)  # (m, k), best first
        top_beam, top_token = top_index // width, top_index % width
        is_eos = top_token == EOS_ID
        # The beam of each sentence now: `beam_size`, or what is left of it under GroundHog's rule.
        if stopping == "shrinking":
            current = torch.tensor([beam_size - len(sentences[i].finished) for i in active], device=device)
        else:
            current = torch.full((m,), beam_size, device=device)
        in_beam = rank[:, : top_scores.size(1)] < current.unsqueeze(1)
        last_step = length == max_length
        # Only endings that rank inside the beam are final; weaker ones would fill the finished list
        # with poor hypotheses.
        ending = ((is_eos | last_step) & in_beam & top_scores.isfinite()).nonzero()  # (endings, 2): b, cand
        if len(ending):
            b_idx, c_idx = ending[:, 0], ending[:, 1]
            rows = b_idx * beam_size + top_beam[b_idx, c_idx]
            bodies = history.index_select(0, rows).tolist()
            for b, body, token, score in zip(b_idx.tolist(), bodies, top_token[b_idx, c_idx].tolist(),
                                             top_scores[b_idx, c_idx].tolist()):
                ids = tuple(body) + (token,)
                sentences[active[b]].add(Hypothesis(ids, score, normalised(score, len(ids), length_penalty)))
        if last_step:
            break

        # Survivors: the best non-final expansions (under `shrinking`, only those inside the shrunk beam).
        eligible = in_beam if stopping == "shrinking" else torch.ones_like(in_beam)
        alive_scores = top_scores.masked_fill(is_eos | ~eligible, float("-inf"))
        scores, pick = alive_scores.topk(beam_size, dim=1)  # (m, beam)
        best_alive = scores[:, 0].tolist()
        keep = []
        for b, index in enumerate(active):
            sentence = sentences[index]
            if best_alive[b] == float("-inf"):
                sentence.done = True
            elif stopping == "bound":
                sentence.done = sentence.threshold() >= best_reachable(best_alive[b], max_length, length_penalty)
            else:
                sentence.done = len(sentence.finished) >= beam_size
            if not sentence.done:
                keep.append(b)
        if not keep:
            break

        rows = torch.arange(m, device=device).unsqueeze(1) * beam_size + top_beam.gather(1, pick)  # (m, beam)
        tokens = top_token.gather(1, pick)
        if len(keep) < m:  # finished sentences leave the batch
            kept = torch.tensor(keep, device=device)
            rows, tokens, scores = rows.index_select(0, kept), tokens.index_select(0, kept), scores.index_select(0, kept)
            encoded = encoded.index_select((kept.unsqueeze(1) * beam_size
                                            + torch.arange(beam_size, device=device)).view(-1))
            active = [active[b] for b in keep]
        rows, tokens = rows.view(-1), tokens.view(-1)
        history = torch.cat([history.index_select(0, rows), tokens.unsqueeze(1)], dim=1)
        state = reorder_state(out.state, rows)

    return [sorted(s.finished, key=lambda h: h.score, reverse=True)[:nbest] for s in sentences]
