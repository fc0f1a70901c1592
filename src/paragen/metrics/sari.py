"""SARI (Xu et al., 2016): n-gram add / keep / delete scores against source and references.

For each n = 1..4, with S the source, O the output and R the references:

- add:    n-grams in O but not in S; correct when some reference has them (sets, binary);
- keep:   n-grams of S kept in O; counts weighted by the number of references, correct up to how
          many references keep them;
- delete: n-grams of S missing from O, weighted the same way, correct when references delete them.

Statistics are summed over the corpus, precision/recall/F1 are computed per order from those
sums, F1 is averaged over the four orders for each operation, and SARI is the mean of the three
operation scores, all x100. This corpus-level form is the one the Joshua STAR implementation
computed, which is behind the published Turk-test SARI of DRESS, DMASS and ACCESS.

Two modes differ only in preprocessing:

- ``legacy``: outputs and references go through sacrebleu's 13a tokenizer, the source stays as
  it is and nothing is lowercased (inputs are expected lowercased already). This reproduces the
  STAR behaviour EASSE offers as ``legacy=True``.
- ``easse``: source, outputs and references are all lowercased and 13a-tokenised (EASSE's
  current default).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, Sequence

import numpy as np

NGRAM_ORDER = 4
SariMode = Literal["legacy", "easse"]
STAT_NAMES = ("add_correct", "add_system", "add_reference", "keep_correct", "keep_system", "keep_reference",
              "delete_correct", "delete_system", "delete_reference")


@lru_cache(maxsize=1)
def _tokenizer_13a():
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    return Tokenizer13a()


def normalise(sentence: str, lowercase: bool) -> str:
    """sacrebleu's 13a tokenisation (optionally after lowercasing), as EASSE prepares text."""
    return _tokenizer_13a()(sentence.lower() if lowercase else sentence)


def ngrams(tokens: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def _scaled(counter: Counter, factor: int) -> Counter:
    return Counter({key: value * factor for key, value in counter.items()})


def sentence_statistics(source: str, output: str, references: Sequence[str]) -> np.ndarray:
    """Sufficient statistics of one sentence: shape (4, 9), rows n = 1..4, columns ``STAT_NAMES``."""
    src, out = source.split(), output.split()
    refs = [r.split() for r in references]
    k = len(refs)
    stats = np.zeros((NGRAM_ORDER, len(STAT_NAMES)), dtype=np.int64)
    for n in range(1, NGRAM_ORDER + 1):
        s, o = ngrams(src, n), ngrams(out, n)
        r: Counter = Counter()
        for ref in refs:
            r.update(ngrams(ref, n))
        added_by_output = set(o) - set(s)
        added_by_refs = set(r) - set(s)
        s_k, o_k = _scaled(s, k), _scaled(o, k)
        kept_by_output, kept_by_refs = s_k & o_k, s_k & r
        deleted_by_output, deleted_by_refs = s_k - o_k, s_k - r
        stats[n - 1] = (
            len(added_by_output & set(r)), len(added_by_output), len(added_by_refs),
            sum((kept_by_output & kept_by_refs).values()), sum(kept_by_output.values()),
            sum(kept_by_refs.values()),
            sum((deleted_by_output & deleted_by_refs).values()), sum(deleted_by_output.values()),
            sum(deleted_by_refs.values()),
        )
    return stats


def _precision(correct: float, system: float, reference: float) -> float:
    return correct / system if system > 0 else 0.0


def _f1(correct: float, system: float, reference: float) -> float:
    precision = _precision(correct, system, reference)
    recall = correct / reference if reference > 0 else 0.0
    return 2 * precision * recall / (precision + recall) if precision > 0 and recall > 0 else 0.0


@dataclass(frozen=True)
class SariScore:
    sari: float
    add: float
    keep: float
    delete: float
    mode: str


def score_from_statistics(totals: np.ndarray, mode: str, deletion: Literal["f1", "precision"] = "f1") -> SariScore:
    """SARI from corpus totals of :func:`sentence_statistics` (shape (4, 9)).

    ``deletion="precision"`` scores deletion by precision alone, as Xu et al.'s sentence-level Python
    script (SARI.py, ``SARIsent``) does; only the scoring-variants study uses it.
    """
    operations = []
    for start in (0, 3, 6):
        score = _precision if start == 6 and deletion == "precision" else _f1
        per_order = [score(*totals[n, start : start + 3]) for n in range(NGRAM_ORDER)]
        operations.append(100.0 * sum(per_order) / NGRAM_ORDER)
    add, keep, delete = operations
    return SariScore((add + keep + delete) / 3, add, keep, delete, mode)


def prepare(sources: Sequence[str], outputs: Sequence[str], references: Sequence[Sequence[str]],
            mode: SariMode) -> tuple[list[str], list[str], list[list[str]]]:
    """Apply the mode's preprocessing; ``references`` is per reference set, each aligned with sources."""
    if mode not in ("legacy", "easse"):
        raise ValueError(f"unknown SARI mode {mode!r}; allowed: legacy, easse")
    lowercase = mode == "easse"
    if mode == "easse":
        sources = [normalise(s, lowercase) for s in sources]
    outputs = [normalise(o, lowercase) for o in outputs]
    references = [[normalise(r, lowercase) for r in ref_set] for ref_set in references]
    return list(sources), outputs, references


def all_statistics(sources: Sequence[str], outputs: Sequence[str], references: Sequence[Sequence[str]],
                   mode: SariMode) -> np.ndarray:
    """Per-sentence statistics after preprocessing, shape (sentences, 4, 9); what bootstrap resamples."""
    for ref_set in references:
        if len(ref_set) != len(sources):
            raise ValueError(f"a reference set has {len(ref_set)} sentences, the source {len(sources)}")
    if len(outputs) != len(sources):
        raise ValueError(f"{len(outputs)} outputs for {len(sources)} sources")
    sources, outputs, references = prepare(sources, outputs, references, mode)
    per_sentence = [sentence_statistics(s, o, [ref_set[i] for ref_set in references])
                    for i, (s, o) in enumerate(zip(sources, outputs))]
    return np.stack(per_sentence) if per_sentence else np.zeros((0, NGRAM_ORDER, len(STAT_NAMES)), np.int64)


def corpus_sari(sources: Sequence[str], outputs: Sequence[str], references: Sequence[Sequence[str]],
                mode: SariMode = "legacy") -> SariScore:
    """Corpus SARI; ``references[j][i]`` is the j-th reference of sentence i."""
    return score_from_statistics(all_statistics(sources, outputs, references, mode).sum(axis=0), mode)
