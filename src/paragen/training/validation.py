"""Validation metrics that pick the checkpoint: always on the validation split, never the test set.

WEAN's released code selects its checkpoint by test-set score; an honest reproduction
forbids that, so :func:`make_validator` only ever sees validation data. Each
validator maps greedy hypotheses (token lists, in validation order) to a number where higher is
better, so the trainer treats every metric alike.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

from paragen.data.corpus import ParallelCorpus, check_aligned, read_lines, reference_files
from paragen.metrics.exact import exact_match
from paragen.text_script import unit_by_script

Validator = Callable[[list[list[str]]], float]


def reference_sets(directory: str | Path, split: str) -> list[list[str]]:
    """Every reference set of ``split`` (one list per set), checked to be aligned."""
    paths = reference_files(directory, split)
    sets = [read_lines(p) for p in paths]
    for path, lines in zip(paths[1:], sets[1:]):
        check_aligned(paths[0], len(sets[0]), path, len(lines))
    return sets


def make_validator(metric: str, data: ParallelCorpus, references: Sequence[Sequence[str]] | None = None,
                   lowercase: bool = True, rouge_unit: str = "auto") -> Validator:
    """A function from hypotheses to the ``metric`` (``exact_match``, ``bleu``, ``sari`` (legacy, against the
    validation sources) or ``rouge2``) on ``data``.

    The hypotheses and references are the model's tokens (BPE pieces where the data is segmented so: the curves
    say so, :func:`validation_unit`). BLEU's tokenizer and ROUGE's ``auto`` unit follow the references' script as
    the test scores' do (:func:`paragen.text_script.unit_by_script`): 13a / words for English, zh / characters for
    Chinese."""
    refs = [list(r) for r in references] if references else [[" ".join(t) for t in data.targets]]
    if metric == "exact_match":
        return lambda hyps: exact_match(hyps, data.targets)
    if metric == "bleu":
        from paragen.metrics.bleu import corpus_bleu

        tokenize = unit_by_script(refs[0], "zh", "13a")[0]
        return lambda hyps: corpus_bleu([" ".join(h) for h in hyps], refs, lowercase, tokenize).score
    if metric == "sari":
        from paragen.metrics.sari import corpus_sari

        case = str.lower if lowercase else (lambda s: s)  # as `paragen score --metric sari --lowercase` does
        sources = [case(" ".join(s)) for s in data.sources]
        cased_refs = [[case(r) for r in ref_set] for ref_set in refs]
        return lambda hyps: corpus_sari(sources, [case(" ".join(h)) for h in hyps], cased_refs, mode="legacy").sari
    if metric == "rouge2":
        from paragen.metrics.rouge import corpus_rouge

        unit = unit_by_script(refs[0], "char", "word")[0] if rouge_unit == "auto" else rouge_unit
        return lambda hyps: corpus_rouge([" ".join(h) for h in hyps], refs[0], unit).rouge2
    raise ValueError(f"no validator for {metric!r}; allowed values: exact_match, bleu, sari, rouge2")
