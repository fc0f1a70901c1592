"""Alignment accuracy of attention (positions) and SPM (words) against gold links, counted by hand."""

import pytest

from paragen.metrics.alignment import position_accuracy, word_accuracy

SOURCES = [["c1", "f2", "c3", "c1"], ["f1", "c5"]]
LINKS = [[(0, 0), (2, 1), (3, 2)], [(1, 0)]]   # pair 1: target c1 r3 c1; pair 2: target c5


def test_attention_is_right_only_at_the_gold_position():
    # pair 1: positions 0 (right), 1 (wrong: gold 2), 0 (wrong: gold 3, although the word there is the same)
    # pair 2: position 1 (right)  ->  2 of 4 = 50 %
    score = position_accuracy([[0, 1, 0], [1]], LINKS)
    assert (score.correct, score.total, score.accuracy) == (2, 4, 50.0)


def test_spm_is_right_when_it_predicts_the_gold_source_word():
    # pair 1: "c1" (gold c1: right), "c3" (gold c3: right), "c1" (gold c1 at 3: right, the word is what counts)
    # pair 2: "f1" (gold c5: wrong)  ->  3 of 4 = 75 %
    score = word_accuracy([["c1", "c3", "c1"], ["f1"]], SOURCES, LINKS)
    assert (score.correct, score.total, score.accuracy) == (3, 4, 75.0)


def test_tokens_without_a_gold_link_are_not_counted():
    score = position_accuracy([[0, 5, 2]], [[(0, 0), (2, 2)]])   # target position 1 has no link
    assert (score.correct, score.total) == (2, 2)


def test_inconsistent_inputs_name_the_pair_and_the_problem():
    with pytest.raises(ValueError, match="2 predicted alignments but 1 gold"):
        position_accuracy([[0], [0]], [[(0, 0)]])
    with pytest.raises(ValueError, match=r"pair 1: link 0-3 points past the target \(3 tokens\)"):
        position_accuracy([[0, 0, 0]], [[(0, 3)]])
    with pytest.raises(ValueError, match="pair 1: target position 0 has two gold links"):
        position_accuracy([[0]], [[(0, 0), (1, 0)]])
    with pytest.raises(ValueError, match=r"pair 2: link 7-0 points past the source \(2 tokens\)"):
        word_accuracy([["c1", "c3", "c1"], ["c5"]], SOURCES, [LINKS[0], [(7, 0)]])
