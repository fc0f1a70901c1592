"""``paragen scoring-variants``: which scoring protocol gives the simplification report's rows without training?

003 Table 1 publishes identity (SARI 25.95 / BLEU 61.47), skip at p = 0.5 (21.62 / 8.97) and an oracle
(37.92 / 91.148) and names neither its SARI nor its BLEU implementation nor its references. This module scores
the systems that need no model under every combination below and ranks the protocols (a SARI setting with a
BLEU setting) by how many of those six numbers they give back, so the protocol in
:mod:`paragen.simplification.report_protocol` is a measurement, not a guess:

- text: the Turk files as distributed (lowercased PTB tokens), or after the report's stated preprocessing
  (lowercase, special characters removed: :func:`paragen.data.prepare.lowercase_and_strip_specials`);
- systems: identity; skip at p = 0.5 (mean over seeds 1-10, :func:`paragen.simplification.systems.skip`); oracles:
  Turk reference 0, the .simp sentence, and each Turk reference in turn held out of the references (mean over k);
- references of each metric: the 8 Turk references, the aligned Simple Wikipedia sentence (``.simp``), or both;
- SARI: corpus-level (Joshua STAR), sentence mean with deletion by F1 or by precision (ratios of summed counts),
  or Xu et al.'s SARI.py (sentence mean, per-type ratios: :mod:`paragen.metrics.sari_sentence`);
- BLEU: sacrebleu on 13a tokens or on the tokens as given (``tokenize=none``), smoothing exp or none.
"""

from __future__ import annotations

import csv
import io
import itertools
from dataclasses import dataclass
from statistics import fmean
from typing import Callable

import numpy as np

from paragen.data.prepare import lowercase_and_strip_specials
from paragen.metrics.bleu import bleu_metric
from paragen.metrics.sari import all_statistics, score_from_statistics
from paragen.metrics.sari_sentence import mean_sentence_sari
from paragen.rounding import shown, signed, sum_of_shown
from paragen.simplification import report_protocol
from paragen.simplification.report_protocol import TurkTest
from paragen.simplification.systems import skip

TABLE_STEM = "results/tables/simplification_scoring_variants"
PUBLISHED = {"identity": (25.95, 61.47), "skip (p=.5)": (21.62, 8.97), "oracle": (37.92, 91.148)}
"""003 Table 1: (SARI, BLEU) of the rows without training."""
TOLERANCE = {"SARI": 0.6, "BLEU": 0.1}
"""A published number counts as given back within these."""
SKIP = (0.5, range(1, 11))
SARI_FORMS = ("corpus (STAR)", "sentence mean, F1 deletion", "sentence mean, precision deletion",
              "SARI.py (sentence mean, per-type ratios)")
BLEU_FORMS = {"13a": ("13a", "exp"), "tokens as given": ("none", "exp"), "13a, no smoothing": ("13a", "none"),
              "tokens as given, no smoothing": ("none", "none")}
REFERENCE_SETS = ("8 Turk", ".simp", "8 Turk + .simp")
ORACLES = ("oracle = Turk reference 0", "oracle = .simp sentence", "oracle = Turk reference k held out")
TEXTS: dict[str, Callable[[str], str]] = {"as distributed": lambda s: s,
                                          "lowercased, specials removed": lowercase_and_strip_specials}
IMPLEMENTED = ("as distributed", "8 Turk", SARI_FORMS[3], ".simp", "tokens as given", "oracle = .simp sentence")
"""The protocol ``paragen evaluate`` scores as "003's protocol" (report_protocol.py)."""


@dataclass(frozen=True)
class Scored:
    """One system's scores under one text form: (references, form) -> value."""

    system: str
    text: str
    sari: dict[tuple[str, str], float]
    bleu: dict[tuple[str, str], float]


def _references(test: TurkTest, name: str, held_out: int | None) -> list[list[str]]:
    turk = [ref for k, ref in enumerate(test.turk) if k != held_out]
    return {"8 Turk": turk, ".simp": [test.simp], "8 Turk + .simp": turk + [test.simp]}[name]


def _sari_forms(sources: list[str], output: list[str], refs: list[list[str]]) -> list[float]:
    stats = all_statistics(sources, output, refs, "legacy")
    mean = lambda deletion: float(np.mean([score_from_statistics(s, "legacy", deletion).sari for s in stats]))
    return [score_from_statistics(stats.sum(axis=0), "legacy").sari, mean("f1"), mean("precision"),
            mean_sentence_sari(sources, output, refs)]


def _bleu_forms(output: list[str], refs: list[list[str]]) -> list[float]:
    return [bleu_metric(True, tokenize, smooth).corpus_score(output, refs).score
            for tokenize, smooth in BLEU_FORMS.values()]


def _outputs(test: TurkTest, system: str) -> list[tuple[list[str], int | None]]:
    """The outputs a system's score averages over, each with the Turk reference it holds out (None: none)."""
    if system == "identity":
        return [(test.sources, None)]
    if system == "skip (p=.5)":
        return [(skip(test.sources, SKIP[0], seed), None) for seed in SKIP[1]]
    if system == ORACLES[0]:
        return [(test.turk[0], None)]
    if system == ORACLES[1]:
        return [(test.simp, None)]
    return [(ref, k) for k, ref in enumerate(test.turk)]


def score_system(test: TurkTest, system: str, text: str) -> Scored:
    outputs = _outputs(test, system)
    sari: dict[tuple[str, str], float] = {}
    bleu: dict[tuple[str, str], float] = {}
    for refs_name in REFERENCE_SETS:
        per_output_sari = [_sari_forms(test.sources, out, _references(test, refs_name, k)) for out, k in outputs]
        per_output_bleu = [_bleu_forms(out, _references(test, refs_name, k)) for out, k in outputs]
        for i, form in enumerate(SARI_FORMS):
            sari[(refs_name, form)] = fmean(values[i] for values in per_output_sari)
        for i, form in enumerate(BLEU_FORMS):
            bleu[(refs_name, form)] = fmean(values[i] for values in per_output_bleu)
    return Scored(system, text, sari, bleu)


def clean(test: TurkTest, text: str) -> TurkTest:
    fn = TEXTS[text]
    return TurkTest([fn(s) for s in test.sources], [[fn(r) for r in ref] for ref in test.turk],
                    [fn(s) for s in test.simp])


def score_variants(test: TurkTest) -> list[Scored]:
    return [score_system(clean(test, text), system, text)
            for text in TEXTS for system in ("identity", "skip (p=.5)", *ORACLES)]


Number = tuple[str, str]
"""One published number: (row, metric), e.g. ("oracle", "BLEU")."""
METRICS = ("SARI", "BLEU")


def within_tolerance(number: Number, residual: float) -> bool:
    return abs(residual) <= TOLERANCE[number[1]] + 1e-9


@dataclass(frozen=True)
class Protocol:
    """A whole scoring protocol and the residuals (reproduced - published) it leaves on the three rows."""

    text: str
    sari_refs: str
    sari_form: str
    bleu_refs: str
    bleu_form: str
    oracle: str
    residuals: dict[str, tuple[float, float]]

    @property
    def key(self) -> tuple[str, ...]:
        return self.text, self.sari_refs, self.sari_form, self.bleu_refs, self.bleu_form, self.oracle

    @property
    def numbers(self) -> dict[Number, float]:
        """The six residuals keyed by (row, metric)."""
        return {(name, metric): r for name, pair in self.residuals.items() for metric, r in zip(METRICS, pair)}

    def fit(self, leave_out: Number | None = None) -> tuple[int, float]:
        """(published numbers given back, summed |residual|), over every number but ``leave_out``."""
        kept = {n: r for n, r in self.numbers.items() if n != leave_out}
        given_back = sum(within_tolerance(n, r) for n, r in kept.items())
        # summed row by row, |SARI| + |BLEU| first, as the table has always summed them
        distance = sum(sum(abs(kept[(name, m)]) for m in METRICS if (name, m) in kept) for name in self.residuals)
        return given_back, distance

    @property
    def given_back(self) -> int:
        return self.fit()[0]

    @property
    def distance(self) -> float:
        return self.fit()[1]


def rank_by_fit(protocols: list[Protocol], leave_out: Number | None = None) -> list[Protocol]:
    """The most published numbers given back first, then the smallest summed |residual| (both without
    ``leave_out``); ties keep the order given (the sort is stable), so in the grid's order."""
    def criterion(p: Protocol) -> tuple[int, float]:
        given_back, distance = p.fit(leave_out)
        return -given_back, distance
    return sorted(protocols, key=criterion)


def protocol_grid(scored: list[Scored]) -> list[Protocol]:
    """Every protocol, in the grid's order: text, oracle, SARI setting, BLEU setting."""
    by = {(s.text, s.system): s for s in scored}
    protocols = []
    for text, oracle in itertools.product(TEXTS, ORACLES):
        rows = {"identity": by[(text, "identity")], "skip (p=.5)": by[(text, "skip (p=.5)")], "oracle": by[(text, oracle)]}
        for sari_key, bleu_key in itertools.product(rows["identity"].sari, rows["identity"].bleu):
            residuals = {name: (row.sari[sari_key] - PUBLISHED[name][0], row.bleu[bleu_key] - PUBLISHED[name][1])
                         for name, row in rows.items()}
            protocols.append(Protocol(text, *sari_key, *bleu_key, oracle, residuals))
    return protocols


def rank_protocols(scored: list[Scored]) -> list[Protocol]:
    """Every protocol, the most published numbers given back first, then the smallest summed |residual|."""
    return rank_by_fit(protocol_grid(scored))


def describe(p: Protocol) -> str:
    return (f"text {p.text}; SARI {p.sari_form} against {p.sari_refs}; BLEU {p.bleu_form} against {p.bleu_refs}; "
            f"{p.oracle}")


def _residual_text(p: Protocol) -> str:
    return "; ".join(f"{name} SARI {signed(s, 2)}, BLEU {signed(b, 2)}" for name, (s, b) in p.residuals.items())


def _shown_distance(p: Protocol) -> str:
    """The sum of the |residuals| the row shows (the ranking itself uses the unrounded sum)."""
    return shown(sum_of_shown((abs(r) for pair in p.residuals.values() for r in pair), 2), 2)


def to_markdown(scored: list[Scored], ranked: list[Protocol], test_size: int, more: tuple[str, ...] = ()) -> str:
    """The whole table; ``more``: lines of further sections, printed before every score."""
    published = ", ".join(f"{name} {s} / {b}" for name, (s, b) in PUBLISHED.items())
    lines = ["# Simplification report (003) Table 1: which scoring protocol gives its rows without training?", "",
             f"Published (003 Table 1, SARI / BLEU): {published}. Scored here on the {test_size} Turk test "
             "sentences (the report says 356 and does not say which 3 it left out); skip is the mean over seeds "
             f"{SKIP[1].start}-{SKIP[1].stop - 1}. A protocol gives a number back when it is within "
             f"{TOLERANCE['SARI']} (SARI) or {TOLERANCE['BLEU']} (BLEU). Generated by `paragen scoring-variants`.",
             "", "## The protocol paragen scores as \"003's protocol\"", ""]
    implemented = next(p for p in ranked if p.key == IMPLEMENTED)
    rank = ranked.index(implemented) + 1
    lines += [f"{report_protocol.DESCRIPTION}.", "",
              f"Rank {rank} of {len(ranked)}: {implemented.given_back} of 6 published numbers given back; residuals "
              f"(reproduced − published): {_residual_text(implemented)}.", ""]
    ties = sum(1 for p in ranked if (p.given_back, round(p.distance, 6)) == (implemented.given_back,
                                                                            round(implemented.distance, 6))) - 1
    if ties:
        lines += [f"{ties} other protocol(s) leave exactly the same residuals (BLEU smoothing changes nothing here: "
                  "no n-gram order has zero matches at corpus level).", ""]
    oracle_bleu = min(((v, s.system, s.text, k) for s in scored if s.system.startswith("oracle")
                       for k, v in s.bleu.items()), key=lambda t: abs(t[0] - PUBLISHED["oracle"][1]))
    lines += [f"No setting gives the oracle's BLEU {PUBLISHED['oracle'][1]} back: the closest is {shown(oracle_bleu[0], 2)} "
              f"({oracle_bleu[1]}, text {oracle_bleu[2]}, references {oracle_bleu[3][0]}, BLEU {oracle_bleu[3][1]}).",
              ""]
    if rank != 1:
        lines += ["**The search ranks another protocol first** (see below); report_protocol.py is not it.", ""]
    lines += ["## The ten best protocols", "", "| rank | numbers given back | sum of abs residuals | protocol | "
              "residuals |", "| --- | --- | --- | --- | --- |"]
    for i, p in enumerate(ranked[:10], 1):
        lines.append(f"| {i} | {p.given_back} | {_shown_distance(p)} | {describe(p)} | {_residual_text(p)} |")
    lines += ["", *more, "## Every score", ""]
    for metric, forms in (("SARI", SARI_FORMS), ("BLEU", tuple(BLEU_FORMS))):
        header = ["system", "text", "references", *forms]
        lines += [f"### {metric}", "", "| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
        for s in scored:
            values = s.sari if metric == "SARI" else s.bleu
            for refs in REFERENCE_SETS:
                lines.append("| " + " | ".join([s.system, s.text, refs, *(shown(values[(refs, f)], 2) for f in forms)])
                             + " |")
        lines.append("")
    return "\n".join(lines)


CSV_FIELDS = ("system", "text", "metric", "references", "form", "score", "published", "sentences")


def to_csv(scored: list[Scored], sentences: int) -> str:
    """Every score, exact (the float's shortest repr, which reads back as the same number), with the published
    number beside it and the test set's sentence count: :func:`from_csv` gives back what the table is drawn from."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    for s in scored:
        published = PUBLISHED["oracle" if s.system.startswith("oracle") else s.system]
        for metric, values, paper in (("SARI", s.sari, published[0]), ("BLEU", s.bleu, published[1])):
            for (refs, form), value in values.items():
                writer.writerow([s.system, s.text, metric, refs, form, repr(float(value)), paper, sentences])
    return buffer.getvalue()


def from_csv(text: str, name: str = "scores") -> tuple[list[Scored], int]:
    """The scores :func:`to_csv` wrote, in its order (the grid's order depends on it), and the sentence count."""
    rows = list(csv.DictReader(io.StringIO(text)))
    if not rows or tuple(rows[0]) != CSV_FIELDS:
        raise ValueError(f"{name}: not a scoring-variants scores file (columns {', '.join(CSV_FIELDS)} expected)")
    scored: dict[tuple[str, str], Scored] = {}
    for number, row in enumerate(rows, start=2):
        try:
            value = float(row["score"])
        except ValueError:
            raise ValueError(f"{name}, line {number}: score {row['score']!r} is not a number") from None
        entry = scored.setdefault((row["system"], row["text"]), Scored(row["system"], row["text"], {}, {}))
        (entry.sari if row["metric"] == "SARI" else entry.bleu)[(row["references"], row["form"])] = value
    return list(scored.values()), int(rows[0]["sentences"])
