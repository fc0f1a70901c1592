"""Where a rule-resampling interval is shown (issue 67): only for a type with at least 20 rules, the caption saying
why the others have none; and how a sign-flip p is written. Expected values are worked out by hand."""

from __future__ import annotations

import json

from paragen.config.papers import PaperTable
from paragen.data.synthetic import rules_per_type
from paragen.rounding import p_exact_text
from paragen.report.tables import drop_short_intervals, fill_table


def test_rules_are_dealt_out_in_type_order():
    """make_rules gives rule i the type i mod 5: 20 rules -> 4 each; 22 -> the first two types get the extra two;
    40 (the redesigned default) -> 8 each."""
    assert rules_per_type(20) == {"x->0": 4, "x->x": 4, "x->xx": 4, "xy->x": 4, "xy->xy": 4}
    assert rules_per_type(22) == {"x->0": 5, "x->x": 5, "x->xx": 4, "xy->x": 4, "xy->xy": 4}
    assert set(rules_per_type(40).values()) == {8}


def test_only_columns_with_enough_rules_keep_their_interval(tmp_path):
    """Two columns carry intervals in the metrics file; x → ∅ has 20 rules (kept), x → x 19 (dropped), and the
    columns without an interval are not named even though they are short."""
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"metric": "exact", "score": 0, "count": 10, "by_tag": {
        t: {"top1": 80.0, **({"top1_ci95": [70.0, 86.0]} if t in ("x->0", "x->x") else {})}
        for t in ["x->0", "x->x", "x->xx", "xy->x", "xy->xy"]}}))
    table = fill_table("t", "Title", "Caption.", PaperTable.load("copynet_table1"), {"CopyNet": path})
    dropped = drop_short_intervals(table, {"x->0": 20, "x->x": 19, "x->xx": 1, "xy->x": 1, "xy->xy": 1}, 20)
    assert dropped == ["x → x"]
    assert table.cells[("CopyNet", "x->0")].interval == (70.0, 86.0)
    assert table.cells[("CopyNet", "x->x")].interval is None
    assert table.cells[("CopyNet", "x->x")].reproduced == 80.0  # the number stays


def test_a_sign_flip_p_is_written_to_four_significant_digits_half_up():
    """1/16 exactly; 1/4 without trailing zeros; 1 as "1"; 1/64 = 0.015625 -> 0.01563 (half up, where Python's
    format gives 0.01562); 0.123456 -> 0.1235; 0.00012345 -> 0.0001235; below 0.0001 in powers of ten: 2^-16 =
    1.52587890625e-05 -> 1.5e-05, 1/100,001 -> 1.0e-05."""
    assert [p_exact_text(p) for p in (0.0625, 0.25, 1.0, 1 / 64, 0.123456, 0.00012345, 2 ** -16, 1 / 100001)] == [
        "0.0625", "0.25", "1", "0.01563", "0.1235", "0.0001235", "1.5e-05", "1.0e-05"]
