"""Hwang et al. (2015)'s aligned English-Simple English Wikipedia release, as WEAN's EW-SEW uses it (000 §3.1.1):
the match-class files, the default filter, and a reader that names the file and line of a malformed line."""

from __future__ import annotations

from pathlib import Path

from paragen.data.corpus import CorpusError, read_raw

HWANG_FILES = {"good": "aligned-good-0.67.txt", "good_partial": "aligned-good_partial-0.53.txt",
               "remaining": "aligned-remaining-0.45.txt"}
"""Hwang et al. (2015)'s release: one file per match class (the number is the file's lower score bound)."""
HWANG_DEFAULT_CLASSES = ("good", "good_partial")
HWANG_DEFAULT_MIN_SCORE = 0.45
"""WEAN's EW-SEW (000 §3.1.1): good and good-partial matches scoring above 0.45; params.yaml's
``alignment_filter`` defaults (:class:`paragen.config.datasets.AlignmentFilter`) are these."""
NISIOI_PAIRS = 284_677
"""good + good_partial pairs in a later reproduction; Nisioi et al. (2017) report about 280K, WEAN (000 §3.1.1)
about 150K good and 130K good-partial."""


def read_hwang(path: Path, notes: list[str]) -> tuple[list[str], list[str], list[float]]:
    """English sentences, Simple English sentences and similarity scores of one aligned file.

    Each line is ``en<TAB>simple<TAB>score`` (no header); PTB's escaped slash ``\\/`` is restored to
    ``/``, as the Turk files write it.
    """
    english, simple, scores = [], [], []
    for number, line in enumerate(read_raw(path, notes), start=1):
        fields = line.split("\t")
        if len(fields) != 3:
            raise CorpusError(f"{path}:{number}: expected 3 tab-separated fields (English sentence, Simple "
                              f"English sentence, similarity score), found {len(fields)}: {line[:120]!r}")
        try:
            score = float(fields[2])
        except ValueError:
            raise CorpusError(f"{path}:{number}: the similarity score {fields[2]!r} is not a number") from None
        english.append(fields[0].replace("\\/", "/"))
        simple.append(fields[1].replace("\\/", "/"))
        scores.append(score)
    return english, simple, scores
