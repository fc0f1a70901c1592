"""003's protocol: how the simplification report scored its Table 1, as ``paragen scoring-variants`` found it.

The report names neither its SARI nor its BLEU implementation nor its references. Searching the variants
(results/tables/simplification_scoring_variants.md) finds one protocol that gives back five of its six published
numbers without training within 0.3 (identity, skip at p = 0.5 over seeds 1-10, oracle):

- the Turk test files as distributed (``data/raw/turkcorpus/test.8turkers.tok.*``: lowercased PTB tokens);
- SARI: Xu et al.'s sentence-level SARI.py (:mod:`paragen.metrics.sari_sentence`), the mean over sentences,
  against the 8 Turk references;
- BLEU: corpus BLEU (sacrebleu, lowercased) on the files' own tokens (``tokenize=none``, as NLTK's corpus BLEU
  on pre-tokenised text), against the single aligned Simple Wikipedia sentence (``.simp``);
- the oracle returns that ``.simp`` sentence: the reference BLEU scores against, which is not one of SARI's.

Rows are scored on their own outputs; only the oracle's output is the protocol's own (the ``.simp`` file).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paragen.data.corpus import CorpusError, read_lines
from paragen.data.prepare import aligned
from paragen.metrics.bleu import corpus_bleu
from paragen.metrics.sari_sentence import mean_sentence_sari

RAW_DIRECTORY = "data/raw/turkcorpus"
TURK_REFERENCES = 8
SARI_FORM = "sentence-level SARI.py (Xu et al., 2016), mean over sentences, against the 8 Turk references"
BLEU_FORM = "corpus BLEU on the files' own tokens (sacrebleu tokenize none, lowercased) against the .simp sentence"
DESCRIPTION = ("003's protocol (found by `paragen scoring-variants`): the Turk test files as distributed; SARI = "
               f"{SARI_FORM}; BLEU = {BLEU_FORM}; the oracle returns the .simp sentence")


@dataclass(frozen=True)
class TurkTest:
    """The Turk test set as distributed: sources (.norm), the 8 Turk references, the aligned .simp sentence."""

    sources: list[str]
    turk: list[list[str]]
    simp: list[str]


def test_files(raw: str | Path = RAW_DIRECTORY, split: str = "test") -> list[Path]:
    """.norm, .turk.0-7, .simp of a Turk split (``test`` or ``tune``), in that order."""
    names = ["norm", *(f"turk.{k}" for k in range(TURK_REFERENCES)), "simp"]
    return [Path(raw) / f"{split}.8turkers.tok.{name}" for name in names]


def read_turk_test(raw: str | Path = RAW_DIRECTORY) -> TurkTest:
    try:
        sources, *turk, simp = aligned(test_files(raw), [])
    except CorpusError as error:
        raise CorpusError(f"{error}; fetch it first: paragen fetch turkcorpus --eval-only (add --mirror DIR for a local copy)") \
            from None
    return TurkTest(sources, turk, simp)


def protocol_scores(test: TurkTest, output: list[str], output_name: str = "output") -> dict[str, Any]:
    """SARI and BLEU of ``output`` (one line per test sentence) under 003's protocol."""
    if len(output) != len(test.sources):
        raise CorpusError(f"{output_name}: {len(output)} lines, but the Turk test set has {len(test.sources)}; "
                          "003's protocol scores outputs of the Turk test sentences")
    bleu = corpus_bleu(output, [test.simp], lowercase=True, tokenize="none")
    return {"description": DESCRIPTION,
            "sari": {"score": mean_sentence_sari(test.sources, output, test.turk), "form": SARI_FORM},
            "bleu": {"score": bleu.score, "signature": bleu.signature, "references": ".simp"}}


def score_file(hyp: str | Path, raw: str | Path = RAW_DIRECTORY, oracle: bool = False,
               remove_bpe: bool = False) -> dict[str, Any]:
    """003's protocol on an output file; ``oracle`` scores the protocol's oracle (the .simp sentence) instead."""
    from paragen.scoring.files import restore_bpe

    test = read_turk_test(raw)
    if oracle:
        return {**protocol_scores(test, test.simp, ".simp"), "output": f"{raw}/test.8turkers.tok.simp"}
    lines = read_lines(hyp)
    if remove_bpe:
        lines = [restore_bpe(line) for line in lines]
    return {**protocol_scores(test, lines, str(hyp)), "output": str(hyp)}
