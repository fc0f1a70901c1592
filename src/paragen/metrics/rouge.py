"""ROUGE-1/2/L F1 with rouge-score, on word or character tokens.

rouge-score's default tokenizer lowercases and replaces every non-``[a-z0-9]`` character by a
space, so Chinese text becomes empty and scores 0.0. LCSTS is scored on characters (WEAN Table 4,
CopyNet Table 3), so :class:`CharacterTokenizer` keeps every non-space character as a token.

Differences from the Perl ROUGE-1.5.5 with SPM's options (``-n 2 -m -w 1.2``): rouge-score
averages sentence-level F1 (ROUGE-1.5.5 prints a bootstrap estimate of that mean), applies the Porter
stemmer only when asked (``-m``) and without WordNet's exception list, does not compute ROUGE-W
(``-w 1.2``), has no resampling confidence intervals, and tokenises with the rules above rather than
Perl's. The Perl script itself runs through :mod:`paragen.metrics.rouge_perl` (``--rouge-perl``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Literal, Sequence, get_args

import numpy as np
from rouge_score import rouge_scorer, tokenizers

from paragen.data.corpus import characters

ROUGE_TYPES = ("rouge1", "rouge2", "rougeL")
logging.getLogger("absl").setLevel(logging.WARNING)  # rouge-score logs "Using default tokenizer." on every call
Unit = Literal["word", "char"]
UNITS: tuple[str, ...] = get_args(Unit)  # one list: the type and the check cannot drift apart


class CharacterTokenizer(tokenizers.Tokenizer):
    """Every non-whitespace character is a token; Latin letters are lowercased."""

    def tokenize(self, text: str) -> list[str]:
        return characters(text.lower())


@dataclass(frozen=True)
class RougeScore:
    rouge1: float
    rouge2: float
    rougeL: float

    def as_dict(self) -> dict[str, float]:
        return {"rouge1": self.rouge1, "rouge2": self.rouge2, "rougeL": self.rougeL}


def check_unit(unit: str) -> None:
    """Refuse a unit other than ``word`` or ``char`` (it would otherwise be read as words)."""
    if unit not in UNITS:
        raise ValueError(f"ROUGE unit {unit!r}; allowed: {', '.join(UNITS)}")


def scorer(unit: Unit = "word", stem: bool = False) -> rouge_scorer.RougeScorer:
    """rouge-score's scorer for ROUGE-1/2/L on ``unit`` tokens."""
    check_unit(unit)
    if unit == "char":
        return rouge_scorer.RougeScorer(list(ROUGE_TYPES), tokenizer=CharacterTokenizer())
    return rouge_scorer.RougeScorer(list(ROUGE_TYPES), use_stemmer=stem)


def sentence_f1(hypotheses: Sequence[str], references: Sequence[str], unit: Unit = "word",
                stem: bool = False) -> np.ndarray:
    """Per-sentence F1 x100, shape (sentences, 3) in ``ROUGE_TYPES`` order; bootstrap resamples rows."""
    if len(hypotheses) != len(references):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} references")
    rouge = scorer(unit, stem)
    rows = []
    for hyp, ref in zip(hypotheses, references):
        scores = rouge.score(ref, hyp)
        rows.append([100.0 * scores[t].fmeasure for t in ROUGE_TYPES])
    return np.asarray(rows, dtype=np.float64).reshape(-1, len(ROUGE_TYPES))


def corpus_rouge(hypotheses: Sequence[str], references: Sequence[str], unit: Unit = "word",
                 stem: bool = False) -> RougeScore:
    """Mean sentence-level F1 (x100) of ROUGE-1, ROUGE-2 and ROUGE-L (0 for an empty corpus)."""
    check_unit(unit)
    means = sentence_f1(hypotheses, references, unit, stem).mean(axis=0) if hypotheses else np.zeros(3)
    return RougeScore(*map(float, means))
