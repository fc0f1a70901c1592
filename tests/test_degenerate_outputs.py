"""Empty and one-token-repeated outputs are counted (by hand below) and marked in the table above 5 % of a split."""

from __future__ import annotations

import json

from paragen.config.papers import Column
from paragen.metrics.degenerate import count_degenerate
from paragen.report.degenerate_notes import mark_degenerate
from paragen.report.tables import Cell, ResultTable, SeedRun


def test_counts_empty_and_repeated_lines_not_single_words():
    counts = count_degenerate(["", "UNK UNK UNK", "the", "a a b", "   ", ["x", "x"], []])
    # empty: "", "   ", [] -> 3; repeated: "UNK UNK UNK", ["x", "x"] -> 2; "the" (one word) and "a a b" are not
    assert (counts.empty, counts.repeated, counts.lines) == (3, 2, 7)
    assert counts.describe() == "3 of 7 outputs empty and 2 of 7 outputs one token repeated"
    assert counts.marked  # 5 of 7 > 5 %
    assert not count_degenerate(["a"] * 20 + [""]).marked  # 1 of 21 = 4.8 %
    assert not count_degenerate(["a"] * 19 + [""]).marked  # 1 of 20 = 5 % exactly: not above the share
    assert count_degenerate(["a"] * 18 + ["", ""]).marked  # 2 of 20 = 10 %


def test_a_degenerate_split_is_noted_in_each_of_its_cells(tmp_path):
    metrics = tmp_path / "m.json"
    metrics.write_text(json.dumps({"splits": {
        "valid": {"bleu": {"score": 0.0}, "degenerate": {"empty": 30, "one_token_repeated": 0, "lines": 30}},
        "test": {"bleu": {"score": 3.0}, "degenerate": {"empty": 1, "one_token_repeated": 0, "lines": 30}}}}))
    columns = [Column("valid/bleu", "valid BLEU", "splits/valid/bleu/score"),
               Column("test/bleu", "test BLEU", "splits/test/bleu/score")]
    table = ResultTable("t", "T", "C.", columns, ["RNNSearch"],
                        {("RNNSearch", c.key): Cell(None, 0.0) for c in columns})
    mark_degenerate(table, {"RNNSearch": [SeedRun(None, metrics)]})
    assert table.cells[("RNNSearch", "valid/bleu")].note == \
        "30 of 30 valid outputs empty: more than 5% of the lines, scored as written"
    assert table.cells[("RNNSearch", "test/bleu")].note == ""  # 1 of 30 (3 %) is not marked


def test_a_row_degenerate_on_every_split_is_noted_once_for_the_row(tmp_path):
    from paragen.report.render import cell_notes

    metrics = tmp_path / "m.json"
    empty = {"empty": 30, "one_token_repeated": 0, "lines": 30}
    metrics.write_text(json.dumps({"splits": {"valid": {"degenerate": empty}, "test": {"degenerate": empty}}}))
    columns = [Column("valid/bleu", "valid BLEU", "splits/valid/bleu/score"),
               Column("test/bleu", "test BLEU", "splits/test/bleu/score")]
    table = ResultTable("t", "T", "C.", columns, ["RNNSearch"],
                        {("RNNSearch", c.key): Cell(None, 0.0) for c in columns})
    mark_degenerate(table, {"RNNSearch": [SeedRun(None, metrics)]})
    assert cell_notes(table) == ["RNNSearch (every column): 30 of 30 valid outputs empty; 30 of 30 test outputs "
                                 "empty: more than 5% of the lines, scored as written"]
