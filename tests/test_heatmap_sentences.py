"""The two heat-map figures of a table (attention, source-side prediction) must show the same sentences in the same
order (paragen.report.figure_heatmaps.check_same_sentences): a count, a line or a source that differs is refused,
naming what differs. Either difference alone is enough (a check of "line and source both differ" passes both
one-sided cases)."""

from __future__ import annotations

import pytest

from paragen.report.figure_heatmaps import check_same_sentences


def _sentence(line: int, source: str) -> dict:
    return {"line": line, "source": source, "matrix": [[0.5]]}


def test_the_same_sentences_pass():
    assert check_same_sentences([_sentence(3, "a b"), _sentence(9, "c")],
                                [_sentence(3, "a b"), _sentence(9, "c")]) is None


def test_a_different_count_is_named():
    with pytest.raises(ValueError, match=r"^heat maps: 2 sentences of attention but 1 of prediction$"):
        check_same_sentences([_sentence(3, "a b"), _sentence(9, "c")], [_sentence(3, "a b")])


def test_a_different_line_alone_is_refused_with_both_lines():
    with pytest.raises(ValueError) as raised:
        check_same_sentences([_sentence(3, "a b"), _sentence(9, "c")], [_sentence(3, "a b"), _sentence(10, "c")])
    assert str(raised.value) == "heat maps: the two models' matrices are of different sentences (lines 9 and 10)"


def test_a_different_source_alone_is_refused():
    with pytest.raises(ValueError) as raised:
        check_same_sentences([_sentence(4, "a b")], [_sentence(4, "a c")])
    assert str(raised.value) == "heat maps: the two models' matrices are of different sentences (lines 4 and 4)"
