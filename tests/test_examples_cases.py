"""The example-outputs page (:mod:`paragen.report.examples`) word for word: its header and rule sentence, the
evenly spaced choice at its edges, the 40-token cut at its edge, and which reference file is read.
Expected values are written out by hand (``k * n // 4`` worked for each k)."""

from __future__ import annotations

from paragen.report.examples import (ExampleSource, _cut, evenly_spaced, examples_markdown, read_example_source,
                                     rule_text)

from conftest import write_lines


def test_evenly_spaced_at_the_edges():
    """5 lines: k * 5 // 4 = 0, 1, 2, 3; 7 lines: 0, 1, 3, 5; 4 lines: all four; 3 examples of 10: 0, 3, 6."""
    assert evenly_spaced(5) == [0, 1, 2, 3]
    assert evenly_spaced(7) == [0, 1, 3, 5]
    assert evenly_spaced(4) == [0, 1, 2, 3]
    assert evenly_spaced(10, 3) == [0, 3, 6]
    assert evenly_spaced(0) == []


def test_the_rule_sentence_counts_lines_with_a_thousands_separator_and_caps_at_four():
    assert rule_text(False, 12345) == ("4 test lines evenly spaced over the 12,345 of the test set "
                                       "(line 1 + k·12345/4, rounded down)")
    assert rule_text(False, 3) == ("3 test lines evenly spaced over the 3 of the test set "
                                   "(line 1 + k·3/4, rounded down)")
    assert rule_text(True, 3) == ("the first test line of each rule type, in the order the test file first shows "
                                  "the types")


def test_forty_tokens_are_shown_whole_and_forty_one_are_cut_with_the_count_of_the_rest():
    forty = " ".join(f"w{k}" for k in range(40))
    assert _cut(forty) == forty
    assert _cut(forty + " w40") == forty + " … (+1 tokens)"
    assert _cut("a@@ b c@@ d") == "ab cd"  # BPE pieces joined
    joined = " ".join(f"w{k}" for k in range(39)) + " w39@@ w40"  # 41 pieces, 40 tokens once joined
    assert _cut(joined) == " ".join(f"w{k}" for k in range(39)) + " w39w40"  # counted after joining: not cut


def test_the_whole_page_for_six_untagged_lines():
    """Six lines, no tags: lines 0, 1, 3, 4 (k * 6 // 4), labelled 1, 2, 4, 5 without a type."""
    data = ExampleSource([f"s{k}" for k in range(6)], [f"r{k}" for k in range(6)], None)
    assert examples_markdown("T", data, {"M": [f"o{k}" for k in range(6)]}) == (
        "# T: example outputs\n"
        "\n"
        "Lines chosen by rule: 4 test lines evenly spaced over the 6 of the test set (line 1 + k·6/4, rounded down). "
        "Each model's output is its test output as scored (beam top-1; the first seed's run); sentences longer than "
        "40 tokens are cut.\n"
        "\n"
        "| line | | text |\n"
        "| --- | --- | --- |\n"
        "| 1 | source | s0 |\n| | reference | r0 |\n| | M | o0 |\n"
        "| 2 | source | s1 |\n| | reference | r1 |\n| | M | o1 |\n"
        "| 4 | source | s3 |\n| | reference | r3 |\n| | M | o3 |\n"
        "| 5 | source | s4 |\n| | reference | r4 |\n| | M | o4 |\n")


def test_the_single_reference_file_is_preferred_over_the_first_of_several(tmp_path):
    write_lines(tmp_path / "valid.src", ["a", "b"])
    write_lines(tmp_path / "valid.tgt", ["A", "B"])
    write_lines(tmp_path / "valid.ref.0", ["X", "Y"])
    write_lines(tmp_path / "valid.tag", ["t1", "t2"])
    write_lines(tmp_path / "test.src", ["c"])
    assert read_example_source(tmp_path, "valid") == ExampleSource(["a", "b"], ["A", "B"], ["t1", "t2"])
