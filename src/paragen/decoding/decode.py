"""Decoding whole corpora with beam search, and tracing CopyNet's copy mode (Figure 3)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import torch

from paragen.data.batching import decode_ids, extend_target, iterate_batches, make_batch
from paragen.models.seq2seq import Seq2Seq
from paragen.decoding.search import Stopping, beam_search
from paragen.data.vocabulary import BOS_ID, EOS_ID, Vocabulary
from paragen.progress import progress_bar


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
    for batch in progress_bar(batches, enabled=progress, desc="decode", unit="batch"):
        hyps = beam_search(model, batch.to(device), beam_size, max_length, length_penalty, nbest, stopping)
        for row, index in enumerate(batch.indices):
            results[index] = Translation(
                [decode_ids(h.tokens, vocab, batch.oovs[row]) for h in hyps[row]], [h.score for h in hyps[row]]
            )
        if getattr(model, "char_decoder", None) is not None:
            spell_unknowns(model, [sources[i] for i in batch.indices], [results[i] for i in batch.indices], vocab,
                           device)
    missing = [i for i, r in enumerate(results) if r is None]
    if missing:  # would misalign outputs with references downstream
        raise RuntimeError(f"{len(missing)} sentences were not decoded (first: index {missing[0]})")
    return results  # type: ignore[return-value]


UNK = "<unk>"


@torch.no_grad()
def spell_unknowns(model: Seq2Seq, sources: Sequence[Sequence[str]], translations: Sequence[Translation],
                   vocab: Vocabulary, device: torch.device) -> None:
    """Replace each <unk> of the top-1 outputs by the character decoder's spelling (003 §4.3.1, in place).

    The attentional vector at each <unk> position comes from teacher-forcing the model on its own output,
    so the spelling starts from the state the word decoder had when it chose <unk>.
    """
    rows = [i for i, t in enumerate(translations) if UNK in t.nbest[0]]
    if not rows:
        return
    outputs = [[w for w in translations[i].nbest[0] if w != "</s>"] for i in rows]
    batch = make_batch([sources[i] for i in rows], outputs, vocab).to(device)
    _, attentional = model.teacher_forced(batch)
    positions = [(k, t) for k, words in enumerate(outputs) for t, w in enumerate(words) if w == UNK]
    spelled = model.char_decoder.spell(attentional[[k for k, _ in positions], [t for _, t in positions]])
    for (k, t), word in zip(positions, spelled):
        translations[rows[k]].nbest[0][t] = word or UNK


@torch.no_grad()
def trace_copy_modes(model: Seq2Seq, source: Sequence[str], output: Sequence[str], vocab: Vocabulary,
                     device: torch.device) -> dict:
    """Copy probability of each source position, and the generate mode's mass, at every step of ``output``.

    ``output`` (the beam's top-1, the sentence that was scored) is fed back step by step, so the heat map
    (Gu et al. 2016, Figure 3: rows are source tokens, columns decoding steps) shows how the model produced
    exactly that output, ending with ``</s>``.
    """
    if not model.copies:
        raise ValueError("copy modes exist only for copying models")
    steps = _fed_steps(model, source, output, vocab, device)
    return {"source": list(source), "output": [*output, "</s>"],
            "copy_probs": [step.copy_probs[0].tolist() for step in steps],
            "generate_mass": [float(step.generate_mass[0]) for step in steps]}


@torch.no_grad()
def trace_attention(model: Seq2Seq, source: Sequence[str], output: Sequence[str], vocab: Vocabulary,
                    device: torch.device) -> dict:
    """The attention weights over the source positions at every step of ``output`` (fed back step by step, as
    :func:`trace_copy_modes`), for an attentional model that does not copy (RNNSearch): the evidence of how far
    attention alone finds the words to repeat."""
    steps = _fed_steps(model, source, output, vocab, device)
    if steps[0].attention is None:
        raise ValueError("attention weights exist only for attentional models")
    return {"source": list(source), "output": [*output, "</s>"],
            "attention": [step.attention[0].tolist() for step in steps]}


def _fed_steps(model: Seq2Seq, source: Sequence[str], output: Sequence[str], vocab: Vocabulary,
               device: torch.device) -> list:
    """The decoder's step outputs along ``output`` then ``</s>``, each step fed the previous output token."""
    model.eval()
    batch = make_batch([source], None, vocab).to(device)
    encoded = model.encode(batch)
    state = model.initial_state(encoded)
    token = torch.tensor([BOS_ID], device=device)
    steps = []
    targets = extend_target(output, vocab, batch.oovs[0]) if model.copies else vocab.encode(output)
    for next_id in targets + [EOS_ID]:
        step = model.step(token, state, encoded)
        state = step.state
        steps.append(step)
        token = torch.tensor([next_id], device=device)
    return steps


def copy_examples(model: Seq2Seq, sources: Sequence[Sequence[str]], outputs: Sequence[Sequence[str]],
                  references: Sequence[Sequence[str]], tags: Sequence[str], vocab: Vocabulary,
                  device: torch.device, spans: Sequence[dict[str, list[int]] | None] | None = None,
                  tracer=trace_copy_modes) -> dict[str, dict[str, dict | None]]:
    """Heat-map examples chosen by a stated rule: per rule type, the first test line (in file order) whose
    top-1 output equals its reference and the first whose output does not (``None`` when there is none).

    ``tracer``: :func:`trace_copy_modes` (CopyNet) or :func:`trace_attention` (RNNSearch). Each trace carries its
    1-based test ``line``, the ``reference`` and whether the output is ``correct``. With
    ``spans`` (per line, each variable's [start, end) in the source, or None for a line of an ambiguous rule,
    :func:`paragen.data.synthetic.spans_of_test_lines`) only lines with spans are chosen, and the trace carries them.
    """
    examples: dict[str, dict[str, dict | None]] = {}
    for index, (source, output, reference, tag) in enumerate(zip(sources, outputs, references, tags)):
        if spans is not None and spans[index] is None:
            continue
        correct = list(output) == list(reference)
        chosen = examples.setdefault(tag, {"correct": None, "wrong": None})
        key = "correct" if correct else "wrong"
        if chosen[key] is None:
            chosen[key] = {**tracer(model, source, output, vocab, device), "line": index + 1,
                           "reference": list(reference), "correct": correct,
                           **({"spans": spans[index]} if spans is not None else {})}
    return examples
