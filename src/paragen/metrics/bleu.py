"""Corpus BLEU through sacrebleu, with the signature stored beside every score.

The papers scored tokenised, lowercased text with multi-bleu-style BLEU. sacrebleu with
``tokenize="13a"`` and ``lowercase=True`` reproduces the published Turk-test (8 references)
and PWKP (1 reference) numbers of the DRESS release to within 0.05
(``results/tables/published_outputs.md``), so that is the default here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
from sacrebleu.metrics import BLEU


@dataclass(frozen=True)
class BleuScore:
    score: float
    signature: str


def bleu_metric(lowercase: bool = True, tokenize: str = "13a", smooth: str = "exp") -> BLEU:
    # force=True: the inputs are already tokenised on purpose, which sacrebleu would warn about.
    return BLEU(lowercase=lowercase, tokenize=tokenize, smooth_method=smooth, force=True)


def corpus_bleu(hypotheses: Sequence[str], references: Sequence[Sequence[str]], lowercase: bool = True,
                tokenize: str = "13a") -> BleuScore:
    """``references[j][i]`` is the j-th reference of sentence i (one list per reference set)."""
    metric = bleu_metric(lowercase, tokenize)
    result = metric.corpus_score(list(hypotheses), [list(r) for r in references])
    return BleuScore(result.score, str(metric.get_signature()))


def sentence_statistics(hypotheses: Sequence[str], references: Sequence[Sequence[str]], lowercase: bool = True,
                        tokenize: str = "13a") -> tuple[np.ndarray, BLEU]:
    """Per-sentence BLEU sufficient statistics (matches and totals per order, lengths), for bootstrap.

    Uses sacrebleu's own statistics extraction, the same its paired significance test uses.
    """
    metric = bleu_metric(lowercase, tokenize)
    stats = metric._extract_corpus_statistics(list(hypotheses), [list(r) for r in references])
    return np.asarray(stats, dtype=np.int64), metric


def score_from_statistics(metric: BLEU, totals: np.ndarray) -> float:
    return metric._compute_score_from_stats(totals.tolist()).score
