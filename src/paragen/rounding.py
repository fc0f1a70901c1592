"""The project's number formatting: every number a table, caption or note shows is rounded half up, away from
zero (``decimal.ROUND_HALF_UP``: 0.05 -> 0.1, -0.05 -> -0.1), from the value as the metrics file writes it.

Why not ``f"{x:.1f}"``: Python's format rounds the binary value half to even. 94.05 is stored as 94.0499999…, so it
shows as 94.0, and 33.25 (exact in binary) shows as 33.2; a reader who knows the metrics file says 94.05 expects
94.1. Here a float is read through its shortest repr (``repr(94.05) == "94.05"``, the decimal the JSON file holds),
never through its exact binary value (``Decimal(94.05)``, which brings the 94.0499… back).

Why a difference is computed from the shown numbers (:func:`shown_difference`): rounding the exact difference
disagrees with the numbers beside it (88.8 / 88.85 showed as "88.8 / 88.8 (+0.0)"; 97.3 / 98.25 as
"97.3 / 98.2 (+1.0)" or "+0.9"). The shown difference is the shown reproduced number minus the shown paper number.

The CSV is for machines: it keeps each value exact (:func:`exact_text`, the value's shortest repr, which reads back
as the same float) and its ``difference`` column is the exact decimal difference of the two columns beside it
(:func:`exact_difference`: 88.85 - 88.8 is 0.05 there, not the binary 0.04999999999999716); rounding happens only
where a number is shown to a reader.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Iterable


def exact(value: float | Decimal) -> Decimal:
    """The decimal a float is written as (its shortest repr; a Decimal stays as it is)."""
    return value if isinstance(value, Decimal) else Decimal(repr(float(value)))


def half_up(value: float | Decimal, decimals: int) -> Decimal:
    """``value`` rounded half up (away from zero) to ``decimals`` places; a zero is never negative (-0.04 -> 0.0),
    so a cell never reads "-0.0". NaN and infinities come back unrounded."""
    number = exact(value)
    if not number.is_finite():
        return number
    rounded = number.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)
    return rounded.copy_abs() if rounded.is_zero() else rounded


def shown(value: float | Decimal, decimals: int) -> str:
    """The text of ``value`` in a table: half up to ``decimals`` places ("94.1" for 94.05 at 1)."""
    return f"{half_up(value, decimals):f}"


def difference_of_shown(reproduced: float | Decimal, paper: float | Decimal, decimals: int) -> Decimal:
    """half_up(reproduced) − half_up(paper): the difference a reader computes from the two numbers shown."""
    return half_up(reproduced, decimals) - half_up(paper, decimals)


def shown_difference(reproduced: float | Decimal, paper: float | Decimal, decimals: int) -> str:
    """The signed difference of the shown numbers ("+0.1", "-1.0", "+0.0") (:func:`difference_of_shown`), so it
    always equals what a reader computes from the cell."""
    return f"{difference_of_shown(reproduced, paper, decimals):+f}"


def signed(value: float | Decimal, decimals: int) -> str:
    """A signed number as shown ("+0.25", "-0.02", "+0.00"): half up, with its sign."""
    return f"{half_up(value, decimals):+f}"


def sum_of_shown(values: Iterable[float | Decimal], decimals: int) -> Decimal:
    """The sum of the numbers as shown (each half up first): what a reader adds up from a row."""
    return sum((half_up(v, decimals) for v in values), Decimal(0))


def mean_of_shown(values: Iterable[float | Decimal], decimals: int) -> Decimal:
    """The mean of the numbers as shown (each half up first), exact; show it with :func:`shown`. A mean of
    unrounded values can differ from the one a reader computes from the row (0.14 against 0.15)."""
    values = list(values)
    if not values:
        raise ValueError("the mean of no numbers")
    return sum_of_shown(values, decimals) / len(values)


def versus_text(row: float, baseline: float, detail: str = "", decimals: int = 1) -> str:
    """"94.7 vs 81.5 (+13.2)": a row's score against its baseline's and the difference of the two numbers shown;
    ``detail`` goes inside the parentheses after the difference."""
    difference = shown_difference(row, baseline, decimals)
    return f"{shown(row, decimals)} vs {shown(baseline, decimals)} ({difference}{detail})"


def exact_text(value: float | Decimal) -> str:
    """A value in the CSV: the number the metrics file holds, unrounded ("88.85", "90.0")."""
    return f"{exact(value):f}"


def exact_difference(reproduced: float | Decimal, paper: float | Decimal) -> str:
    """The CSV's difference: the exact decimal difference of its two :func:`exact_text` columns."""
    return f"{exact(reproduced) - exact(paper):f}"


def p_exact_text(p: float) -> str:
    """A p-value as a table prints it (the sign-flip test's, a bench's sign test): four significant digits, half
    up, trailing zeros dropped ("0.0625", "0.25", "1"); below 0.0001 in powers of ten ("9.5e-07")."""
    number = exact(p)
    if number.is_zero():
        return "0"
    if number < Decimal("0.0001"):
        return f"{float(number):.1e}"
    places = Decimal(1).scaleb(number.adjusted() - 3)
    return f"{number.quantize(places, rounding=ROUND_HALF_UP).normalize():f}"
