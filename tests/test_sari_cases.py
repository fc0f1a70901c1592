"""SARI (Xu et al. 2016, Eq. 3-6; corpus form of Joshua STAR / EASSE) on cases worked out by hand.

Per order n: add = F1 of (O - S) against (R - S) as sets; keep and delete count S's n-grams times k (the number
of references) against the summed reference counts; orders with nothing to count score 0; each operation is
the mean over n = 1..4 and SARI the mean of the three, x100.
"""

from __future__ import annotations

import pytest

from paragen.metrics.sari import corpus_sari


def f1(correct: float, system: float, reference: float) -> float:
    precision = correct / system if system else 0.0
    recall = correct / reference if reference else 0.0
    return 2 * precision * recall / (precision + recall) if precision and recall else 0.0


def test_repeated_source_ngrams_with_two_references():
    """S = "a a b" (a twice), O = "a b c", refs "a b" and "a a b c" (k = 2).

    n=1  summed refs R = {a 3, b 2, c 1}
         add:  O-S = {c}, in R: 1/1; R-S = {c}: 1/1                                        F1 1
         keep: kS = {a 4, b 2}; O keeps kS & kO = {a 2, b 2} = 4; refs keep kS & R = {a 3, b 2} = 5;
               correct = {a 2, b 2} = 4: P 4/4, R 4/5                                       F1 8/9
         del:  kS - kO = {a 2} = 2; kS - R = {a 1} = 1; correct {a 1} = 1: P 1/2, R 1/1      F1 2/3
    n=2  S = {aa, ab}, O = {ab, bc}, R = {ab 2, aa 1, bc 1}
         add:  O-S = {bc}, in R; R-S = {bc}                                                 F1 1
         keep: kS = {aa 2, ab 2}; O keeps {ab 2}; refs keep {aa 1, ab 2}; correct {ab 2}: P 1, R 2/3   F1 4/5
         del:  kS - kO = {aa 2}; kS - R = {aa 1}; correct {aa 1}: P 1/2, R 1                 F1 2/3
    n=3  S = {aab}, O = {abc}, R = {aab 1, abc 1}
         add:  {abc} in R; R-S = {abc}                                                      F1 1
         keep: O keeps nothing: P 0                                                         F1 0
         del:  kS - kO = {aab 2}; kS - R = {aab 1}; correct 1: P 1/2, R 1                    F1 2/3
    n=4  R-S = {aabc} but O adds nothing: 0 everywhere.
    add = 3/4, keep = (8/9 + 4/5)/4, delete = 3 (2/3)/4.
    """
    add, keep, delete = 100 * 3 / 4, 100 * (8 / 9 + 4 / 5) / 4, 100 * 3 * (2 / 3) / 4  # 75, 42.22, 50
    score = corpus_sari(["a a b"], ["a b c"], [["a b"], ["a a b c"]], mode="legacy")
    assert (score.add, score.keep, score.delete) == pytest.approx((add, keep, delete))
    assert score.sari == pytest.approx((add + keep + delete) / 3)  # 55.74
    # The per-order terms above, through the F1 formula written here.
    assert keep == pytest.approx(100 * (f1(4, 4, 5) + f1(2, 2, 3)) / 4)
    assert delete == pytest.approx(100 * 3 * f1(1, 2, 1) / 4)


def test_legacy_mode_leaves_the_source_untokenised_while_13a_splits_outputs_and_references():
    """EASSE legacy=True: "he left." stays one token "left." in S, but O and R become "he left .".

    O = R = "he left ." (k = 1), S = {he, left.}:
    n=1  add: O-S = {left, .} all in R; R-S the same: F1 1.  keep: {he}: F1 1.  del: {left.} by both: F1 1.
    n=2  add: {he left, left .}: F1 1.  keep: nothing: 0.  del: {he left.} by both: F1 1.
    n=3  add: {he left .}: F1 1.  keep, del: nothing: 0.      n=4: 0.
    add 3/4, keep 1/4, delete 2/4 -> (75 + 25 + 50) / 3 = 50.
    easse mode tokenises S too: O = R = S, so add 0, keep (1 + 1 + 1 + 0)/4, delete 0 -> 25.
    """
    legacy = corpus_sari(["he left."], ["he left."], [["he left."]], mode="legacy")
    assert (legacy.add, legacy.keep, legacy.delete) == pytest.approx((75.0, 25.0, 50.0))
    assert legacy.sari == pytest.approx(50.0)
    easse = corpus_sari(["he left."], ["he left."], [["he left."]], mode="easse")
    assert (easse.add, easse.keep, easse.delete, easse.sari) == pytest.approx((0.0, 75.0, 0.0, 25.0))


def test_legacy_mode_keeps_case_in_outputs_and_references():
    """Nothing is lowercased in legacy mode: "The" and "the" are different unigrams.

    S = "the cat", O = "The cat", refs "The cat" and "the cat" (k = 2); summed refs: The 1, the 1, cat 2.
    n=1  add:  O-S = {The}, in R; R-S = {The}: F1 1.
         keep: kS = {the 2, cat 2}; O kept {cat 2} = 2; refs kept {the 1, cat 2} = 3; correct 2: P 1, R 2/3: F1 .8
         del:  kS - kO = {the 2}; kS - R = {the 1}; correct 1: P 1/2, R 1: F1 2/3
    n=2  add:  {The cat} in R, R-S = {The cat}: F1 1.   keep: O keeps nothing: 0.
         del:  kS - kO = {the cat 2}; kS - R = {the cat 1}; correct 1: P 1/2, R 1: F1 2/3
    n=3,4 nothing.  add 2/4, keep .8/4, delete (2/3 + 2/3)/4 -> 50, 20, 33.33.
    easse lowercases all: O = S and both refs = S: add 0, keep (1 + 1)/4, delete 0 -> SARI 50/3.
    """
    legacy = corpus_sari(["the cat"], ["The cat"], [["The cat"], ["the cat"]], mode="legacy")
    assert (legacy.add, legacy.keep, legacy.delete) == pytest.approx((50.0, 20.0, 100 / 3))
    assert legacy.sari == pytest.approx((50 + 20 + 100 / 3) / 3)  # 34.444
    assert legacy.keep == pytest.approx(100 * f1(2, 2, 3) / 4)
    easse = corpus_sari(["the cat"], ["The cat"], [["The cat"], ["the cat"]], mode="easse")
    assert easse.sari == pytest.approx(50 / 3)
