"""Leave-one-out cross-validation of "003's protocol" (paragen.simplification.protocol_cv), worked by hand."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import pytest

from paragen.simplification import scoring_variants as sv
from paragen.simplification.protocol_cv import cv_csv, cv_markdown, leave_one_out

ROWS = ("identity", "skip (p=.5)", "oracle")


def _protocol(name: str, *six: float, key: tuple[str, ...] | None = None) -> sv.Protocol:
    """Residuals in the order identity SARI, identity BLEU, skip SARI, skip BLEU, oracle SARI, oracle BLEU; every
    setting named after the protocol unless ``key`` gives them, so a swapped column shows in rendered text."""
    residuals = {row: (six[2 * i], six[2 * i + 1]) for i, row in enumerate(ROWS)}
    settings = key or (name, f"{name} sari refs", f"{name} sari form", f"{name} bleu refs", f"{name} bleu form",
                       f"{name} oracle")
    return sv.Protocol(*settings, residuals)


# Tolerance: SARI 0.6, BLEU 0.1.
LOOSE = _protocol("loose", 0.5, 0.08, -0.4, -0.05, 0.3, 0.09)     # all 6 given back; sum |r| = 1.42
NO_ORACLE_BLEU = _protocol("no oracle BLEU", 0.0, 0.0, 0.1, 0.0, -0.1, 4.0)  # 5 (not oracle BLEU); sum 4.2
NO_IDENTITY_SARI = _protocol("no identity SARI", 2.0, 0.01, 0.0, 0.02, 0.0, 0.02)  # 5 (not identity SARI); 2.05
BAD = _protocol("bad", 1.0, 1.0, 1.0, 1.0, 1.0, 1.0)               # 0 given back; sum 6
GRID = [BAD, NO_IDENTITY_SARI, NO_ORACLE_BLEU, LOOSE]


def test_leaving_a_number_out_can_change_the_protocol_worked_by_hand():
    """In-sample: LOOSE (6 given back) beats NO_ORACLE_BLEU and NO_IDENTITY_SARI (5 each) and BAD (0).

    Held out, counted over the other five (given back, sum |r|):
    - identity SARI: LOOSE (5, 1.42 - 0.5 = 0.92), NO_IDENTITY_SARI (5, 2.05 - 2.0 = 0.05),
      NO_ORACLE_BLEU (4: oracle BLEU 4.0 still missed), BAD (0) -> NO_IDENTITY_SARI, predicts 25.95 + 2.0 = 27.95,
      held-out error +2.0 (not given back; in-sample LOOSE's residual there is +0.5).
    - identity BLEU: LOOSE (5, 1.34); both others 4 -> LOOSE, +0.08.
    - skip SARI: LOOSE (5, 1.02) -> LOOSE, -0.4.  skip BLEU: LOOSE (5, 1.37) -> LOOSE, -0.05.
    - oracle SARI: LOOSE (5, 1.12) -> LOOSE, +0.3.
    - oracle BLEU: LOOSE (5, 1.33), NO_ORACLE_BLEU (5, 4.2 - 4.0 = 0.2), NO_IDENTITY_SARI (4) -> NO_ORACLE_BLEU,
      predicts 91.148 + 4.0 = 95.148, held-out error +4.0 (in-sample +0.09).
    """
    cv = leave_one_out(GRID)
    assert cv.in_sample is LOOSE
    expected = [(("identity", "SARI"), NO_IDENTITY_SARI, 2.0, 27.95, False),
                (("identity", "BLEU"), LOOSE, 0.08, 61.55, True),
                (("skip (p=.5)", "SARI"), LOOSE, -0.4, 21.22, True),
                (("skip (p=.5)", "BLEU"), LOOSE, -0.05, 8.92, True),
                (("oracle", "SARI"), LOOSE, 0.3, 38.22, True),
                (("oracle", "BLEU"), NO_ORACLE_BLEU, 4.0, 95.148, False)]
    assert [h.number for h in cv.held_out] == [number for number, *_ in expected]
    for h, (number, chosen, error, predicted, given_back) in zip(cv.held_out, expected):
        assert h.chosen is chosen, number
        assert h.same_as_in_sample == (chosen is LOOSE)
        assert h.error == pytest.approx(error)
        assert h.predicted == pytest.approx(predicted)
        assert h.given_back == given_back
    assert cv.given_back == 4


def test_held_out_error_exceeds_in_sample_error():
    """In-sample mean |r| of LOOSE: 1.42 / 6 = 0.2367; SARI (0.5 + 0.4 + 0.3) / 3 = 0.4, BLEU (0.08 + 0.05 + 0.09) / 3
    = 0.0733. Held out: (2.0 + 0.08 + 0.4 + 0.05 + 0.3 + 4.0) / 6 = 6.83 / 6 = 1.1383; SARI (2.0 + 0.4 + 0.3) / 3 =
    0.9, BLEU (0.08 + 0.05 + 4.0) / 3 = 1.3767."""
    cv = leave_one_out(GRID)
    assert cv.in_sample_error() == Decimal("1.42") / 6  # exact: the residuals are shown to 2 decimals already
    assert cv.in_sample_error("SARI") == Decimal("0.4")
    assert cv.in_sample_error("BLEU") == Decimal("0.22") / 3
    assert cv.held_out_error() == Decimal("6.83") / 6
    assert cv.held_out_error("SARI") == Decimal("0.9")
    assert cv.held_out_error("BLEU") == Decimal("4.13") / 3
    assert cv.held_out_error() > cv.in_sample_error()


def test_summaries_are_the_means_of_the_listed_errors():
    cv = leave_one_out(GRID)
    rows = list(csv.DictReader(io.StringIO(cv_csv(cv))))
    assert len(rows) == 6
    listed = [abs(float(r["held_out_error"])) for r in rows]
    assert float(cv.held_out_error()) == pytest.approx(sum(listed) / 6, abs=1e-4)
    for metric in ("SARI", "BLEU"):
        mine = [abs(float(r["held_out_error"])) for r in rows if r["metric"] == metric]
        assert float(cv.held_out_error(metric)) == pytest.approx(sum(mine) / 3, abs=1e-4)
        in_sample = [abs(float(r["in_sample_error"])) for r in rows if r["metric"] == metric]
        assert float(cv.in_sample_error(metric)) == pytest.approx(sum(in_sample) / 3, abs=1e-4)
    assert float(cv.in_sample_error()) == pytest.approx(sum(abs(float(r["in_sample_error"])) for r in rows) / 6, abs=1e-4)
    assert sum(r["given_back"] == "True" for r in rows) == cv.given_back
    text = "\n".join(cv_markdown(cv))
    assert text.startswith("## Leave-one-out: the protocol chosen without the number it predicts")
    assert "in-sample 0.24 (SARI 0.40, BLEU 0.07); held-out 1.14 (SARI 0.90, BLEU 1.38)" in text
    assert "Held out, 4 of 6 numbers are given back" in text


def test_ties_go_to_the_earlier_protocol_in_the_grid_as_in_sample():
    """A copy of NO_IDENTITY_SARI (same residuals) ties with it on every ranking: the earlier one in the grid wins,
    whichever it is, held out as in-sample."""
    copy = _protocol("copy", 2.0, 0.01, 0.0, 0.02, 0.0, 0.02)
    for grid in ([NO_IDENTITY_SARI, copy, LOOSE], [copy, NO_IDENTITY_SARI, LOOSE]):
        assert leave_one_out(grid).held_out[0].chosen is grid[0]
        assert sv.rank_by_fit(grid, leave_out=("identity", "SARI")) == grid
        assert sv.rank_by_fit(grid) == [LOOSE, *grid[:2]]


def test_the_ranking_without_a_number_ignores_only_that_number():
    # oracle BLEU +4.0 is NO_ORACLE_BLEU's only miss: without it, 5 of 5 and sum 0.2
    assert NO_ORACLE_BLEU.fit() == (5, pytest.approx(4.2))
    assert NO_ORACLE_BLEU.fit(("oracle", "BLEU")) == (5, pytest.approx(0.2))
    assert NO_ORACLE_BLEU.fit(("oracle", "SARI")) == (4, pytest.approx(4.1))


def test_scoring_variants_writes_the_section_and_the_csv(tmp_path):
    from paragen.simplification.scoring_variants_files import write_scoring_variants
    from test_scoring_variants import _turk_dir

    stem = tmp_path / "out" / "variants"
    ranked = write_scoring_variants(_turk_dir(tmp_path), str(stem))
    text = (tmp_path / "out" / "variants.md").read_text()
    assert "Scored here on the 2 Turk test sentences (the report says 356" in text  # the two written above
    section = text.index("## Leave-one-out: the protocol chosen without the number it predicts")
    assert text.index("## The ten best protocols") < section < text.index("## Every score")
    rows = list(csv.DictReader(io.StringIO((tmp_path / "out" / "variants_cv.csv").read_text())))
    assert [(r["row"], r["metric"]) for r in rows] == [(row, m) for row in ROWS for m in sv.METRICS]
    in_sample = [float(r["in_sample_error"]) for r in rows]
    assert in_sample == pytest.approx(list(ranked[0].numbers.values()), abs=1e-4)


def test_the_mean_errors_are_those_of_the_errors_shown():
    """SARI residuals 0.0216, 0.2466, 0.1657 show as +0.02, +0.25, +0.17, whose mean a reader computes as
    0.44 / 3 = 0.1467 -> 0.15; the mean of the unrounded ones, 0.4339 / 3 = 0.1446, would print 0.14 beside them.
    Over all six (BLEU residuals 0): 0.44 / 6 = 0.0733 -> 0.07."""
    only = _protocol("only", 0.0216, 0.0, 0.2466, 0.0, 0.1657, 0.0)
    text = "\n".join(cv_markdown(leave_one_out([only])))
    assert "in-sample 0.07 (SARI 0.15, BLEU 0.00); held-out 0.07 (SARI 0.15, BLEU 0.00)" in text
    assert "| +0.02 | +0.02 |" in text and "| +0.25 | +0.25 |" in text and "| +0.17 | +0.17 |" in text
