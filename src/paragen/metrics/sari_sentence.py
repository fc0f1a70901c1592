"""Sentence-level SARI as Xu et al.'s own script computes it (SARI.py, ``SARIsent``), averaged over a corpus.

The simplification report's SARI column (003 Table 1) follows this form, not the corpus-level STAR SARI of
:mod:`paragen.metrics.sari`: against the 8 Turk references it gives identity 25.93 (published 25.95) and the skip
baseline 21.87 (21.62), where corpus SARI gives 27.87 and 27.61 (``paragen scoring-variants``).

It differs from corpus SARI in four ways, each of which moves the numbers:

- each sentence is scored on its own and the corpus score is the mean over sentences;
- keep and delete precision/recall are means over n-gram *types* of per-type ratios, e.g. keep precision of
  order n is ``mean_{g kept} min(kept_g, refs_g) / kept_g`` (counts of the source and the output multiplied by
  the number of references k, reference counts summed over the references), not ratios of summed counts;
- deletion is scored by precision alone (``delete = mean_{g deleted} min(deleted_g, deleted_g - refs_g) /
  deleted_g``, i.e. the share of each deleted type's count that the references also delete);
- an empty set gives 0 (0/0 = 0) everywhere, so a sentence with fewer than n tokens scores 0 on every
  operation of order n.

Tokens are whitespace-separated after lowercasing, as ``SARIsent`` reads them.
"""

from __future__ import annotations

from collections import Counter
from statistics import fmean
from typing import Sequence

NGRAM_ORDER = 4


def _ngrams(tokens: list[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def _f1(precision: float, recall: float) -> float:
    return 2 * precision * recall / (precision + recall) if precision > 0 or recall > 0 else 0.0


def _mean_ratio(numerators: Counter, denominators: Counter, count: int) -> float:
    """``sum_g numerators[g] / denominators[g]`` over the types of ``numerators``, divided by ``count`` (0 if 0)."""
    return sum(value / denominators[g] for g, value in numerators.items()) / count if count else 0.0


def order_scores(source: list[str], output: list[str], references: list[list[str]], n: int) -> tuple[float, float,
                                                                                                      float]:
    """(keep F1, delete precision, add F1) of n-gram order ``n`` for one sentence."""
    k = len(references)
    source_k = Counter({g: c * k for g, c in _ngrams(source, n).items()})
    output_k = Counter({g: c * k for g, c in _ngrams(output, n).items()})
    refs: Counter = Counter()
    for reference in references:
        refs.update(_ngrams(reference, n))

    kept = source_k & output_k
    kept_good = kept & refs
    kept_by_refs = source_k & refs
    keep = _f1(_mean_ratio(kept_good, kept, len(kept)), _mean_ratio(kept_good, kept_by_refs, len(kept_by_refs)))

    deleted = source_k - output_k
    deleted_good = deleted - refs
    delete = _mean_ratio(deleted_good, deleted, len(deleted))

    added = set(output_k) - set(source_k)
    added_good = added & set(refs)
    added_by_refs = set(refs) - set(source_k)
    add = _f1(len(added_good) / len(added) if added else 0.0,
              len(added_good) / len(added_by_refs) if added_by_refs else 0.0)
    return keep, delete, add


def sentence_sari(source: str, output: str, references: Sequence[str]) -> float:
    """SARI x100 of one sentence: the mean of the keep, delete and add scores, each averaged over orders 1-4."""
    src, out = source.lower().split(), output.lower().split()
    refs = [r.lower().split() for r in references]
    totals = [0.0, 0.0, 0.0]
    for n in range(1, NGRAM_ORDER + 1):
        for i, value in enumerate(order_scores(src, out, refs, n)):
            totals[i] += value / NGRAM_ORDER
    return 100.0 * sum(totals) / 3


def mean_sentence_sari(sources: Sequence[str], outputs: Sequence[str],
                       references: Sequence[Sequence[str]]) -> float:
    """The corpus mean of :func:`sentence_sari`; ``references[j][i]`` is the j-th reference of sentence i."""
    if len(outputs) != len(sources) or any(len(r) != len(sources) for r in references):
        raise ValueError(f"{len(sources)} sources, {len(outputs)} outputs and reference sets of "
                         f"{[len(r) for r in references]} lines: every file needs one line per source")
    if not sources:
        raise ValueError("no sentences to score")
    return fmean(sentence_sari(s, o, [r[i] for r in references]) for i, (s, o) in enumerate(zip(sources, outputs)))
