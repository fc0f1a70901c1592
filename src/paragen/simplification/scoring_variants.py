"""``paragen scoring-variants``: which scoring settings give the simplification report's identity and oracle rows?

003 Table 1 reports identity at SARI 25.95 / BLEU 61.47, while the standard scoring (corpus-level
legacy SARI and BLEU against the 8 Turk references) gives about 27.9 / 99.4. The report names
neither its SARI/BLEU implementations nor its references. This module scores the two systems that
need no model under every plausible combination and writes the grid, so the explanation is a
measurement, not a guess:

- text: the Turk files as distributed (lowercased PTB tokens), or after the report's preprocessing
  (lowercase, special characters removed: :func:`paragen.data.prepare.lowercase_and_strip_specials`);
- references: the 8 Turk references, the single aligned Simple Wikipedia sentence (``.simp``: the
  "Gold" of the report's Tables 2-3 is that sentence of the tune set), or both;
- SARI: corpus-level (Joshua STAR, what the published Turk-test numbers use), or the mean of
  sentence-level SARI with deletion scored by F1, or by precision alone (Xu et al.'s SARI.py);
- BLEU: sacrebleu on 13a tokens, or on the tokens as given (``tokenize=none``: NLTK's
  ``corpus_bleu`` on pre-tokenised text computes the same corpus BLEU).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from paragen.atomic import write_text
from paragen.data.corpus import CorpusError
from paragen.data.prepare import aligned, lowercase_and_strip_specials
from paragen.metrics.bleu import corpus_bleu
from paragen.metrics.sari import all_statistics, score_from_statistics

TABLE_STEM = "results/tables/simplification_scoring_variants"
PUBLISHED = {"identity": (25.95, 61.47), "oracle": (37.92, 91.148)}
"""003 Table 1: (SARI, BLEU)."""
SARI_FORMS = ("corpus (STAR)", "sentence mean, F1 deletion", "sentence mean, precision deletion (SARI.py)")
BLEU_FORMS = ("13a", "tokens as given")
TEXTS: dict[str, Callable[[str], str]] = {"as distributed": lambda s: s, "lowercased, specials removed":
                                          lowercase_and_strip_specials}


@dataclass(frozen=True)
class VariantRow:
    system: str
    text: str
    references: str
    sari: dict[str, float]
    bleu: dict[str, float]

    def closest(self) -> tuple[float, str, str]:
        """(|ΔSARI| + |ΔBLEU|, SARI form, BLEU form) of the pair of forms nearest the published row."""
        paper_sari, paper_bleu = PUBLISHED["oracle" if self.system.startswith("oracle") else self.system]
        return min((abs(s - paper_sari) + abs(b - paper_bleu), sf, bf)
                   for sf, s in self.sari.items() for bf, b in self.bleu.items())


@dataclass(frozen=True)
class TurkTest:
    sources: list[str]
    turk: list[list[str]]
    simp: list[str]


def read_turk_test(raw: str | Path) -> TurkTest:
    raw = Path(raw)
    names = ["norm", *(f"turk.{k}" for k in range(8)), "simp"]
    try:  # the files line by line, checked to be aligned
        sources, *turk, simp = aligned([raw / f"test.8turkers.tok.{name}" for name in names], [])
    except CorpusError as error:
        raise CorpusError(f"{error}; fetch it first: paragen fetch turkcorpus --eval-only --mirror ../shared/data") \
            from None
    return TurkTest(sources, turk, simp)


def _sari_forms(sources: list[str], output: list[str], references: list[list[str]]) -> dict[str, float]:
    stats = all_statistics(sources, output, references, "legacy")
    mean = lambda deletion: float(np.mean([score_from_statistics(s, "legacy", deletion).sari for s in stats]))
    return {SARI_FORMS[0]: score_from_statistics(stats.sum(axis=0), "legacy").sari,
            SARI_FORMS[1]: mean("f1"), SARI_FORMS[2]: mean("precision")}


def score_variants(test: TurkTest) -> list[VariantRow]:
    rows = []
    for text, clean in TEXTS.items():
        sources = [clean(s) for s in test.sources]
        turk = [[clean(r) for r in ref] for ref in test.turk]
        simp = [clean(s) for s in test.simp]
        systems = {"identity": sources, "oracle = Turk reference 0": turk[0], "oracle = .simp sentence": simp}
        reference_sets = {"8 Turk": turk, ".simp only": [simp], "8 Turk + .simp": turk + [simp]}
        for system, output in systems.items():
            for ref_name, refs in reference_sets.items():
                bleu = {BLEU_FORMS[0]: corpus_bleu(output, refs, lowercase=True, tokenize="13a").score,
                        BLEU_FORMS[1]: corpus_bleu(output, refs, lowercase=True, tokenize="none").score}
                rows.append(VariantRow(system, text, ref_name, _sari_forms(sources, output, refs), bleu))
    return rows


def to_csv(rows: list[VariantRow]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["system", "text", "references", *(f"SARI {f}" for f in SARI_FORMS),
                     *(f"BLEU {f}" for f in BLEU_FORMS), "closest distance", "closest SARI", "closest BLEU"])
    for r in rows:
        distance, sari_form, bleu_form = r.closest()
        writer.writerow([r.system, r.text, r.references, *(f"{r.sari[f]:.2f}" for f in SARI_FORMS),
                         *(f"{r.bleu[f]:.2f}" for f in BLEU_FORMS), f"{distance:.2f}", sari_form, bleu_form])
    return buffer.getvalue()


def to_markdown(rows: list[VariantRow], test_size: int) -> str:
    header = ["system", "text", "references", *(f"SARI: {f}" for f in SARI_FORMS), *(f"BLEU: {f}" for f in BLEU_FORMS)]
    lines = ["# Simplification report (003) Table 1: which scoring gives its identity and oracle rows?", "",
             f"Published (003 Table 1): identity SARI {PUBLISHED['identity'][0]} / BLEU {PUBLISHED['identity'][1]}, "
             f"oracle SARI {PUBLISHED['oracle'][0]} / BLEU {PUBLISHED['oracle'][1]}. Scored here on the {test_size} "
             "Turk test sentences (the report says 356 and does not say which 3 it left out). Generated by "
             "`paragen scoring-variants`.", "",
             "| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    for r in rows:
        lines.append("| " + " | ".join([r.system, r.text, r.references, *(f"{r.sari[f]:.2f}" for f in SARI_FORMS),
                                        *(f"{r.bleu[f]:.2f}" for f in BLEU_FORMS)]) + " |")
    lines += ["", "Closest settings per system (smallest |ΔSARI| + |ΔBLEU| over the forms of one row):", ""]
    for system in dict.fromkeys(r.system for r in rows):
        row = min((r for r in rows if r.system == system), key=lambda r: r.closest()[0])
        distance, sari_form, bleu_form = row.closest()
        lines.append(f"- {system}: text {row.text}, references {row.references}, SARI {sari_form} = "
                     f"{row.sari[sari_form]:.2f}, BLEU {bleu_form} = {row.bleu[bleu_form]:.2f} "
                     f"(distance {distance:.2f})")
    return "\n".join(lines) + "\n"


def write_scoring_variants(raw: str | Path, stem: str = TABLE_STEM) -> list[VariantRow]:
    test = read_turk_test(raw)
    rows = score_variants(test)
    write_text(f"{stem}.md", to_markdown(rows, len(test.sources)))
    write_text(f"{stem}.csv", to_csv(rows))
    return rows
