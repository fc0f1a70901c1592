"""Issue: rounded cells disagreed with their rounded differences ('88.8 / 88.9 (+0.0)') and halves rounded down
(97.35 showed as 97.3, 94.05 as 94.0). Every expected string here is written by hand: half up on the number as
the metrics file writes it, away from zero for negatives, and the difference is the shown reproduced number
minus the shown paper number."""

from decimal import Decimal

import pytest

from paragen.config.papers import Column
from paragen.report.render import to_csv, to_latex, to_markdown
from paragen.rounding import (exact, exact_difference, exact_text, half_up, mean_of_shown, shown, shown_difference,
                              signed, sum_of_shown)
from paragen.report.tables import Cell, ResultTable


def test_halves_round_up_on_the_number_as_written_not_on_its_binary_value():
    assert shown(94.05, 1) == "94.1"  # 94.0499999... in binary; f"{94.05:.1f}" is 94.0
    assert shown(97.35, 1) == "97.4"
    assert shown(86.35, 1) == "86.4"
    assert shown(33.25, 1) == "33.3"  # exact in binary: half to even would give 33.2
    assert shown(0.125, 2) == "0.13"
    assert shown(0.05, 1) == "0.1"
    assert shown(97.34999, 1) == "97.3"
    assert shown(90, 2) == "90.00" and shown(12.0, 0) == "12"
    assert half_up(94.05, 1) == Decimal("94.1")


def test_negative_halves_round_away_from_zero_and_a_rounded_zero_has_no_sign():
    assert shown(-0.05, 1) == "-0.1"
    assert shown(-97.35, 1) == "-97.4"
    assert shown(-0.04, 1) == "0.0"


def test_the_difference_is_the_shown_reproduced_minus_the_shown_paper():
    assert f"88.8 / {shown(88.85, 1)} ({shown_difference(88.85, 88.8, 1)})" == "88.8 / 88.9 (+0.1)"
    assert shown_difference(98.25, 97.3, 1) == "+1.0"  # 98.3 - 97.3; the exact 0.95 would round to +1.0 or +0.9
    assert shown_difference(88.84, 88.8, 1) == "+0.0"
    assert shown_difference(96.25, 97.3, 1) == "-1.0"  # 96.3 - 97.3
    assert shown_difference(0.135, 0.125, 2) == "+0.01"  # 0.14 - 0.13


def test_the_csv_numbers_are_exact():
    assert exact_text(73.19444444444444) == "73.19444444444444" and exact_text(90.0) == "90.0"
    assert float(exact_text(2 / 3)) == 2 / 3
    assert exact_difference(88.85, 88.8) == "0.05" and exact_difference(90.0, 97.3) == "-7.3"


def _table(cells: dict[str, Cell], decimals: int = 1, columns: list[Column] | None = None) -> ResultTable:
    columns = columns or [Column("m", "M", "m")]
    return ResultTable("t", "T", "C.", columns, list(cells),
                       {(row, c.key): cell for row, cell in cells.items() for c in columns}, decimals=decimals)


def _row(markdown: str, row: str) -> str:
    return next(line for line in markdown.splitlines() if line.startswith(f"| {row} |"))


def test_the_markdown_cell_rounds_half_up_and_its_difference_is_the_shown_numbers_difference():
    md = to_markdown(_table({"a": Cell(88.8, 88.85), "b": Cell(97.3, 98.25), "c": Cell(94.05, 97.35),
                             "d": Cell(86.35, 86.3)}))
    assert _row(md, "a") == "| a | 88.8 / 88.9 (+0.1) |"  # was 88.8 / 88.8 (+0.0): 88.85 is 88.8499... in binary
    assert _row(md, "b") == "| b | 97.3 / 98.3 (+1.0) |"  # 98.3 - 97.3; the exact difference 0.95 alone gives +0.9
    assert _row(md, "c") == "| c | 94.1 / 97.4 (+3.3) |"
    assert _row(md, "d") == "| d | 86.4 / 86.3 (-0.1) |"


def test_sd_and_interval_half_widths_round_half_up_too():
    md = to_markdown(_table({"a": Cell(10.0, 20.25, sd=0.25, per_seed=((1, 20.0), (2, 20.5))),
                             "b": Cell(10.0, 71.0, interval=(70.2, 71.5))}, decimals=1))
    assert _row(md, "a") == "| a | 10.0 / 20.3 ± 0.3 (+10.3) |"
    assert _row(md, "b") == "| b | 10.0 / 71.0 ± 0.7 (+61.0) |"  # (71.5 - 70.2) / 2 = 0.65, 0.6499... in binary


def test_a_column_with_its_own_decimals_rounds_at_them():
    columns = [Column("m", "M", "m"), Column("n", "N", "n", decimals=2)]
    md = to_markdown(_table({"a": Cell(0.125, 0.135)}, columns=columns))
    assert _row(md, "a") == "| a | 0.1 / 0.1 (+0.0) | 0.13 / 0.14 (+0.01) |"


def test_latex_shows_the_markdown_numbers():
    tex = to_latex(_table({"a": Cell(88.8, 88.85)}))
    assert "a & 88.8 / 88.9 (+0.1)" in tex


def test_an_own_table_rounds_half_up():
    table = _table({"a": Cell(None, 33.25)})
    table.own = True
    assert _row(to_markdown(table), "a") == "| a | 33.3 |"


def test_the_csv_keeps_the_metrics_files_numbers_and_their_exact_difference():
    table = _table({"a": Cell(88.8, 88.85, interval=(88.05, 89.65)), "b": Cell(None, 95.0, "not in paper")})
    header, a, b = to_csv(table).splitlines()
    assert header == ("table,row,column,unit,paper,reproduced,difference,note,best_epoch,epochs_run,hit_epoch_cap,"
                      "ci95_low,ci95_high")
    assert a == "t,a,m,,88.8,88.85,0.05,,,,,88.05,89.65"  # not 0.04999999999999716 (the binary difference)
    assert b == "t,b,m,,,95.0,,not in paper,,,,,"


def test_a_decimal_stays_as_it_is_and_a_float_becomes_its_shortest_repr():
    """20 significant digits survive as a Decimal; through a float they would come back as 0.12345678901234568.
    A float 0.1 is the decimal 0.1, not its binary value 0.1000000000000000055511151231257827..."""
    assert str(exact(Decimal("0.12345678901234567890"))) == "0.12345678901234567890"
    assert str(exact(0.1)) == "0.1"


def test_signed_numbers_sums_and_means_are_those_of_the_numbers_shown():
    """Half up away from zero, a zero never negative; a sum or mean of shown numbers is what a reader computes from
    them (0.0216, 0.2466, 0.1657 show as 0.02, 0.25, 0.17: sum 0.44, mean 0.44 / 3; unrounded 0.4339)."""
    assert [signed(v, 2) for v in (0.25, -0.005, 0.0, -0.004, 8.852)] == ["+0.25", "-0.01", "+0.00", "+0.00", "+8.85"]
    assert sum_of_shown([0.0216, 0.2466, 0.1657], 2) == Decimal("0.44")
    assert mean_of_shown([0.0216, 0.2466, 0.1657], 2) == Decimal("0.44") / 3
    assert shown(mean_of_shown([0.0216, 0.2466, 0.1657], 2), 2) == "0.15"
    with pytest.raises(ValueError):
        mean_of_shown([], 2)
