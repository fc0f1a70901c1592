"""Decoding whole corpora with beam search, and tracing CopyNet's copy mode (Figure 3)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import torch
from tqdm.auto import tqdm

from paragen.batching import decode_ids, iterate_batches, make_batch
from paragen.models.seq2seq import Seq2Seq
from paragen.search import Stopping, beam_search, forbid_specials
from paragen.vocabulary import BOS_ID, EOS_ID, Vocabulary


@dataclass(frozen=True)
class Translation:
    """n-best token lists (best first) with their normalised scores."""

    nbest: list[list[str]]
    scores: list[float]


def translate(model: Seq2Seq, sources: Sequence[Sequence[str]], vocab: Vocabulary, *, beam_size: int,
              max_length: int, length_penalty: float, nbest: int, batch_size: int,
              device: torch.device, stopping: Stopping = "bound", progress: bool = False) -> list[Translation]:
    """Translations in corpus order (batches are length-sorted internally for speed)."""
    model.eval()
    results: list[Translation | None] = [None] * len(sources)
    batches = list(iterate_batches(sources, None, vocab, batch_size))
    for batch in tqdm(batches, desc="decode", unit="batch", disable=None if progress else True, leave=False):
        hyps = beam_search(model, batch.to(device), beam_size, max_length, length_penalty, nbest, stopping)
        for row, index in enumerate(batch.indices):
            results[index] = Translation(
                [decode_ids(h.tokens, vocab, batch.oovs[row]) for h in hyps[row]], [h.score for h in hyps[row]]
            )
    missing = [i for i, r in enumerate(results) if r is None]
    if missing:  # would misalign outputs with references downstream
        raise RuntimeError(f"{len(missing)} sentences were not decoded (first: index {missing[0]})")
    return results  # type: ignore[return-value]


@torch.no_grad()
def trace_copy_modes(model: Seq2Seq, source: Sequence[str], vocab: Vocabulary, max_length: int,
                     device: torch.device) -> dict:
    """Greedy decoding of one sentence, recording per step the copy probability of each source position.

    This is the data behind a heat map in the manner of Gu et al. (2016)
    Figure 3: rows are source tokens, columns decoding steps.
    """
    if not model.copies:
        raise ValueError("copy modes exist only for copying models")
    model.eval()
    batch = make_batch([source], None, vocab).to(device)
    encoded = model.encode(batch)
    state = model.initial_state(encoded)
    token = torch.tensor([BOS_ID], device=device)
    output, copy_rows, generate = [], [], []
    for _ in range(max_length):
        step = model.step(token, state, encoded)
        state = step.state
        token = forbid_specials(step.log_probs).argmax(-1)
        copy_rows.append(step.copy_probs[0].tolist())
        generate.append(float(step.generate_mass[0]))
        if token.item() == EOS_ID:
            output.append("</s>")
            break
        output.extend(decode_ids([token.item()], vocab, batch.oovs[0]))
    return {"source": list(source), "output": output, "copy_probs": copy_rows, "generate_mass": generate}
