"""Xu et al.'s sentence-level SARI (SARI.py) and 003's protocol, pinned by hand-worked examples."""

from __future__ import annotations

import math

import pytest

from paragen.data.corpus import CorpusError
from paragen.metrics.sari_sentence import mean_sentence_sari, sentence_sari
from paragen.simplification.report_protocol import TurkTest, protocol_scores

# Sentence 1: source "a b c", output "a c", references "a c" and "b c" (k = 2: source and output counts x2,
# reference counts summed).
#  n=1: source {a2 b2 c2}, output {a2 c2}, refs {a1 b1 c2}.
#       keep: kept {a2 c2}, good = kept & refs = {a1 c2}, kept-by-refs = source & refs = {a1 b1 c2}
#             P = (1/2 + 2/2)/2 = 3/4, R = (1/1 + 2/2)/3 = 2/3, F1 = 12/17
#       delete: deleted {b2}, good = deleted - refs = {b1}: P = (1/2)/1 = 1/2 (precision only)
#       add: nothing added, nothing the references add -> 0
#  n=2: source {ab2 bc2}, output {ac2}, refs {ac1 bc1}
#       keep: nothing kept -> P 0; kept-by-refs {bc1} -> R 0 -> 0
#       delete: deleted {ab2 bc2}, good {ab2 bc1}: P = (2/2 + 1/2)/2 = 3/4
#       add: added {ac}, good {ac}, refs add {ac} -> F1 1
#  n=3: source {abc2}, output none: keep 0; delete {abc2} all good: P 1; add 0.   n=4: all empty -> 0.
#  keep (12/17)/4 = 3/17, delete (1/2 + 3/4 + 1)/4 = 9/16, add 1/4  ->  SARI = (3/17 + 9/16 + 1/4)/3 = 269/816
SENTENCE_1 = ("a b c", "a c", ["a c", "b c"], 269 / 816)
# Sentence 2: the identity "x y" with references "x z" and "x y".
#  n=1: kept {x2 y2}, good {x2 y1}, kept-by-refs {x2 y1}: P (2/2 + 1/2)/2 = 3/4, R (2/2 + 1/1)/2 = 1 -> F1 6/7
#       nothing deleted -> 0 (0/0 = 0); nothing added -> 0 although the references add z
#  n=2: kept {xy2}, good {xy1}, kept-by-refs {xy1}: P 1/2, R 1 -> F1 2/3;  n=3,4: nothing.
#  keep (6/7 + 2/3)/4 = 8/21, delete 0, add 0  ->  SARI = 8/63
SENTENCE_2 = ("x y", "x y", ["x z", "x y"], 8 / 63)


@pytest.mark.parametrize("source, output, references, expected", [SENTENCE_1, SENTENCE_2])
def test_sentence_sari_worked_by_hand(source, output, references, expected):
    assert sentence_sari(source, output, references) == pytest.approx(100 * expected)


def test_the_corpus_score_is_the_mean_over_sentences_and_input_is_lowercased():
    sources = [SENTENCE_1[0], SENTENCE_2[0].upper()]
    outputs = [SENTENCE_1[1], SENTENCE_2[1]]
    references = [[SENTENCE_1[2][0], SENTENCE_2[2][0]], [SENTENCE_1[2][1], SENTENCE_2[2][1].upper()]]
    assert mean_sentence_sari(sources, outputs, references) == pytest.approx(100 * (269 / 816 + 8 / 63) / 2)


def test_misaligned_files_are_refused():
    with pytest.raises(ValueError, match="one line per source"):
        mean_sentence_sari(["a", "b"], ["a"], [["a", "b"]])


def test_protocol_sari_uses_the_turk_references_and_the_sentence_form():
    test = TurkTest(sources=[SENTENCE_1[0], SENTENCE_2[0]],
                    turk=[[SENTENCE_1[2][0], SENTENCE_2[2][0]], [SENTENCE_1[2][1], SENTENCE_2[2][1]]],
                    simp=["unrelated words here", "more unrelated words"])
    scores = protocol_scores(test, [SENTENCE_1[1], SENTENCE_2[1]])
    assert scores["sari"]["score"] == pytest.approx(100 * (269 / 816 + 8 / 63) / 2)


def test_protocol_bleu_is_on_the_files_tokens_against_the_simp_sentence():
    # hypotheses "p/q r s t" and "a b c d"; .simp "p / q r s t" and "a b c d" (13a would split p/q and give 100).
    # matches per order: 1-grams 3+4 of 4+4, 2-grams 2+3 of 3+3, 3-grams 1+2 of 2+2, 4-grams 0+1 of 1+1;
    # hypothesis length 8, reference length 10 -> brevity penalty exp(1 - 10/8).
    test = TurkTest(sources=["p q r s t", "a b c d"], turk=[["p q r s t", "a b c d"]],
                    simp=["p / q r s t", "a b c d"])
    expected = 100 * math.exp(1 - 10 / 8) * (7 / 8 * 5 / 6 * 3 / 4 * 1 / 2) ** 0.25
    assert protocol_scores(test, ["p/q r s t", "a b c d"])["bleu"]["score"] == pytest.approx(expected)


def test_protocol_refuses_an_output_of_another_test_set():
    test = TurkTest(["a", "b"], [["a", "b"]], ["a", "b"])
    with pytest.raises(CorpusError, match="3 lines, but the Turk test set has 2"):
        protocol_scores(test, ["a", "b", "c"], "out.txt")
