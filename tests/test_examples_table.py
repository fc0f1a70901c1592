"""The example-outputs table: lines chosen by its stated rule, each row's output beside source and reference."""

from __future__ import annotations

import pytest

from paragen.report.examples import (ExampleSource, evenly_spaced, examples_markdown, first_of_each_type,
                                     read_example_source)


def test_lines_are_evenly_spaced_or_the_first_of_each_rule_type():
    assert evenly_spaced(10) == [0, 2, 5, 7]  # k * 10 // 4 for k = 0..3
    assert evenly_spaced(1000) == [0, 250, 500, 750]
    assert evenly_spaced(3) == [0, 1, 2]  # fewer lines than examples: all of them
    assert first_of_each_type(["x->x", "x->0", "x->x", "xy->xy", "x->0"]) == [0, 1, 3]


def test_the_table_shows_source_reference_and_each_rows_output_on_the_chosen_lines():
    data = ExampleSource([f"s{k}" for k in range(5)], [f"r{k}" for k in range(5)], ["a", "b", "a", "b", "c"])
    text = examples_markdown("T", data, {"CopyNet": [f"c{k}" for k in range(5)], "Enc-Dec": [f"e{k}" for k in range(5)]})
    rows = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert rows == ["| 1 (a) | source | s0 |", "| | reference | r0 |", "| | CopyNet | c0 |", "| | Enc-Dec | e0 |",
                    "| 2 (b) | source | s1 |", "| | reference | r1 |", "| | CopyNet | c1 |", "| | Enc-Dec | e1 |",
                    "| 5 (c) | source | s4 |", "| | reference | r4 |", "| | CopyNet | c4 |", "| | Enc-Dec | e4 |"]
    assert "the first test line of each rule type" in text


def test_long_lines_are_cut_bpe_restored_and_pipes_escaped():
    long = " ".join(f"w{k}" for k in range(45))
    data = ExampleSource([long, "a@@ b | c"], ["x", "y"], None)
    text = examples_markdown("T", data, {"M": ["o", "p"]})
    assert "w39 … (+5 tokens)" in text and "w40" not in text
    assert "| 2 | source | ab \\| c |" in text


def test_an_output_of_another_length_is_refused(tmp_path):
    (tmp_path / "test_ours.src").write_text("a\nb\n")
    (tmp_path / "test_ours.ref.0").write_text("A\nB\n")
    data = read_example_source(tmp_path, "test_ours")
    assert data.references == ["A", "B"] and data.tags is None
    with pytest.raises(ValueError, match="M has 1 output lines, the test set 2"):
        examples_markdown("T", data, {"M": ["o"]})
