"""Leave-one-out cross-validation of "003's protocol": the error on a number the choice did not see.

``paragen scoring-variants`` picks the scoring protocol that gives back the most of 003 Table 1's six numbers
without training (identity, skip at p = 0.5, oracle; SARI and BLEU each), so how closely that protocol fits
those six is an in-sample error: the numbers chose the protocol. Here each number in turn is held out, the
protocol is chosen on the other five by the same ranking (:func:`paragen.simplification.scoring_variants.rank_by_fit`
with ``leave_out``: numbers given back, then summed |residual|, ties in the grid's order) and its residual on
the held-out number is the held-out error. The residuals are computed once, by the grid; this module only ranks
and reads them.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from decimal import Decimal
from typing import Callable

from paragen.rounding import mean_of_shown, shown, signed
from paragen.simplification.scoring_variants import (
    METRICS, PUBLISHED, TOLERANCE, Number, Protocol, describe, rank_by_fit, within_tolerance,
)


@dataclass(frozen=True)
class HeldOut:
    """One published number held out: the protocol chosen without it and what it predicts for it."""

    number: Number
    chosen: Protocol
    in_sample: Protocol

    @property
    def published(self) -> float:
        row, metric = self.number
        return PUBLISHED[row][METRICS.index(metric)]

    @property
    def same_as_in_sample(self) -> bool:
        return self.chosen.key == self.in_sample.key

    @property
    def error(self) -> float:
        """The held-out error: the chosen protocol's residual (reproduced - published) on the held-out number."""
        return self.chosen.numbers[self.number]

    @property
    def predicted(self) -> float:
        return self.published + self.error

    @property
    def in_sample_error(self) -> float:
        """The in-sample protocol's residual on the same number."""
        return self.in_sample.numbers[self.number]

    @property
    def given_back(self) -> bool:
        return within_tolerance(self.number, self.error)


@dataclass(frozen=True)
class CrossValidation:
    in_sample: Protocol
    """The protocol ranked first on all six numbers."""
    held_out: tuple[HeldOut, ...]
    """One per published number, in the table's order (identity SARI, identity BLEU, skip SARI, ...)."""

    def in_sample_error(self, metric: str | None = None) -> Decimal:
        """Mean |residual| of the in-sample protocol over the six numbers (or over one metric's three), of the
        residuals as the table shows them (2 decimals), so it is the mean a reader computes from the rows."""
        return mean_of_shown((abs(r) for (_, m), r in self.in_sample.numbers.items() if metric in (None, m)), 2)

    def held_out_error(self, metric: str | None = None) -> Decimal:
        """Mean |held-out error| over the six numbers (or over one metric's three), as shown (see above)."""
        return mean_of_shown((abs(h.error) for h in self.held_out if metric in (None, h.number[1])), 2)

    @property
    def given_back(self) -> int:
        """How many held-out numbers the protocol chosen without them gives back within tolerance."""
        return sum(h.given_back for h in self.held_out)


def leave_one_out(grid: list[Protocol]) -> CrossValidation:
    """Hold out each published number in turn and choose the protocol on the other five.

    ``grid`` is every protocol in the grid's order (:func:`~paragen.simplification.scoring_variants.protocol_grid`):
    ties are broken by that order, as in the in-sample ranking."""
    in_sample = rank_by_fit(grid)[0]
    return CrossValidation(in_sample, tuple(HeldOut(number, rank_by_fit(grid, leave_out=number)[0], in_sample)
                                            for number in in_sample.numbers))


def _errors(error: Callable[[str | None], Decimal]) -> str:
    return f"{shown(error(None), 2)} (SARI {shown(error('SARI'), 2)}, BLEU {shown(error('BLEU'), 2)})"


def cv_markdown(cv: CrossValidation) -> tuple[str, ...]:
    """The section for results/tables/simplification_scoring_variants.md, as lines."""
    lines = ["## Leave-one-out: the protocol chosen without the number it predicts", "",
             "The protocol above was chosen to fit these same six numbers. Here each is held out in turn, the protocol "
             "is chosen on the other five by the same ranking (numbers given back, then summed |residual|, ties in "
             "the grid's order) and its residual on the held-out number is the held-out error. "
             "Also in simplification_scoring_variants_cv.csv.", "",
             "The search space itself (the texts, references, SARI and BLEU forms and oracles above, and the "
             "tolerances) was built after all six published numbers had been seen (docs/decisions.md P5, P9): leaving a "
             "number out of the ranking does not leave it out of the grid, so where the protocol chosen on five is "
             "the in-sample one, its held-out error equals its in-sample error by construction and is not "
             "independent evidence.", "",
             "| held-out number | published | protocol chosen on the other five | same as in-sample? | predicted | "
             "held-out error | in-sample error |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for h in cv.held_out:
        row, metric = h.number
        lines.append(f"| {row} {metric} | {h.published} | {describe(h.chosen)} | {'yes' if h.same_as_in_sample else 'no'} | {shown(h.predicted, 2)} | "
                     f"{signed(h.error, 2)} | {signed(h.in_sample_error, 2)} |")
    lines += ["", f"Mean absolute error over the six numbers (of the errors as shown): in-sample "
              f"{_errors(cv.in_sample_error)}; held-out {_errors(cv.held_out_error)}. Held out, {cv.given_back} of 6 numbers are given back within "
              f"tolerance (SARI {TOLERANCE['SARI']}, BLEU {TOLERANCE['BLEU']}); in-sample, "
              f"{cv.in_sample.given_back} of 6.", ""]
    return tuple(lines)


def cv_csv(cv: CrossValidation) -> str:
    """results/tables/simplification_scoring_variants_cv.csv: one row per held-out number."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["row", "metric", "published", "text", "sari_references", "sari_form", "bleu_references",
                     "bleu_form", "oracle", "same_as_in_sample", "predicted", "held_out_error", "given_back",
                     "in_sample_error"])
    for h in cv.held_out:
        p = h.chosen
        writer.writerow([*h.number, h.published, p.text, p.sari_refs, p.sari_form, p.bleu_refs, p.bleu_form,
                         p.oracle, h.same_as_in_sample, f"{h.predicted:.4f}", f"{h.error:.4f}", h.given_back,
                         f"{h.in_sample_error:.4f}"])
    return buffer.getvalue()
