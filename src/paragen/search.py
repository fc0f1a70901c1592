"""One batched beam search for every model (greedy search is ``beam_size=1``).

All hypotheses of a batch advance together as ``batch * beam`` rows through
:meth:`Seq2Seq.step`. At each step the best ``2 * beam`` expansions are
taken: those ending in ``</s>`` that rank among the best ``beam`` are set aside
as finished (scored with length normalisation ``log p / length**alpha``), and
the best ``beam`` others stay alive.
A sentence is done once it has ``beam`` finished hypotheses; at ``max_length``
the survivors are finished as they stand. Token ids may be extended ids, so
copying models can emit out-of-vocabulary source words.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from paragen.batching import Batch
from paragen.models.seq2seq import Seq2Seq, reorder_state
from paragen.vocabulary import BOS_ID, EOS_ID, PAD_ID


@dataclass(frozen=True)
class Hypothesis:
    tokens: tuple[int, ...]  # ids, ending with </s> unless cut at max_length
    log_prob: float  # sum of token log-probabilities
    score: float  # log_prob / len(tokens)**alpha, the ranking key


def normalised(log_prob: float, length: int, alpha: float) -> float:
    return log_prob / (max(length, 1) ** alpha) if alpha > 0 else log_prob


@torch.no_grad()
def beam_search(model: Seq2Seq, batch: Batch, beam_size: int, max_length: int, length_penalty: float = 1.0,
                nbest: int = 1) -> list[list[Hypothesis]]:
    """The ``nbest`` best hypotheses per sentence, best first."""
    if nbest > beam_size:
        raise ValueError(f"nbest ({nbest}) cannot exceed beam_size ({beam_size})")
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
    finished: list[list[Hypothesis]] = [[] for _ in range(n)]
    done = [False] * n

    for length in range(1, max_length + 1):
        out = model.step(tokens, state, encoded)
        log_probs = out.log_probs.float()
        log_probs[:, PAD_ID] = float("-inf")
        log_probs[:, BOS_ID] = float("-inf")
        width = log_probs.size(1)
        candidates = (scores.view(-1, 1) + log_probs).view(n, beam_size * width)
        k = min(2 * beam_size, beam_size * width)
        top_scores, top_index = candidates.topk(k, dim=1)  # (n, k), sorted best first
        top_beam, top_token = top_index // width, top_index % width
        is_eos = top_token == EOS_ID
        # Only endings that rank among the best `beam_size` expansions are final; weaker ones would
        # fill the finished list with poor hypotheses and end the search too early.
        in_beam = torch.arange(k, device=device).unsqueeze(0) < beam_size

        last_step = length == max_length
        for b, cand in ((is_eos | last_step) & in_beam).nonzero().tolist():
            score = top_scores[b, cand].item()
            if done[b] or score == float("-inf"):
                continue
            row = b * beam_size + top_beam[b, cand].item()
            ids = tuple(history[row].tolist()) + (top_token[b, cand].item(),)
            finished[b].append(Hypothesis(ids, score, normalised(score, len(ids), length_penalty)))
        for b in range(n):
            if not done[b] and len(finished[b]) >= beam_size:
                done[b] = True
        if last_step or all(done):
            break

        alive_scores = top_scores.masked_fill(is_eos, float("-inf"))
        scores, pick = alive_scores.topk(beam_size, dim=1)  # (n, beam)
        rows = (torch.arange(n, device=device).unsqueeze(1) * beam_size + top_beam.gather(1, pick)).view(-1)
        tokens = top_token.gather(1, pick).view(-1)
        history = torch.cat([history.index_select(0, rows), tokens.unsqueeze(1)], dim=1)
        state = reorder_state(out.state, rows)
        done_rows = torch.tensor(done, device=device).repeat_interleave(beam_size)
        scores = scores.masked_fill(done_rows.view(n, beam_size), float("-inf"))

    return [sorted(hyps, key=lambda h: h.score, reverse=True)[:nbest] for hyps in finished]
