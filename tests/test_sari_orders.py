"""SARI's per-order statistics, the deletion-precision variant and the edges of both SARI forms, worked by hand.

Written for the survivors of the metrics group's mutation run (docs/mutation.md): each case is chosen so that
the mutant's answer differs from the right one, and the docstrings give both.

Case A (corpus SARI, :mod:`paragen.metrics.sari`): source "a b c", output "a b d", one reference "a c d" (k = 1).

n = 1: S {a, b, c}, O {a, b, d}, R {a, c, d}.
  add:    O adds {d}; R adds {d}; good {d}                       -> (1, 1, 1)
  keep:   S & O = {a, b}; S & R = {a, c}; good {a}               -> (1, 2, 2)
  delete: S - O = {c}; S - R = {b}; good {}                      -> (0, 1, 1)
n = 2: S {ab, bc}, O {ab, bd}, R {ac, cd}.
  add:    O adds {bd}, not in R; R adds {ac, cd}                 -> (0, 1, 2)
  keep:   S & O = {ab}; S & R = {}                               -> (0, 1, 0)
  delete: S - O = {bc}; S - R = {ab, bc}; good {bc}              -> (1, 1, 2)
n = 3: S {abc}, O {abd}, R {acd}: add (0, 1, 1), keep (0, 0, 0), delete (1, 1, 1).
n = 4: nothing: all 0.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from paragen.metrics.sari import all_statistics, corpus_sari, normalise, score_from_statistics, sentence_statistics
from paragen.metrics.sari_sentence import mean_sentence_sari, order_scores, sentence_sari

CASE_A_ROWS = [[1, 1, 1, 1, 2, 2, 0, 1, 1],
               [0, 1, 2, 0, 1, 0, 1, 1, 2],
               [0, 1, 1, 0, 0, 0, 1, 1, 1],
               [0, 0, 0, 0, 0, 0, 0, 0, 0]]


def test_each_order_has_its_own_row():
    """Rows are n = 1..4 in order, as integer counts. Writing order n to row n - 2 shifts every row up by one (rows
    2-, 3-, 4-gram, then the 1-gram row last), which the corpus score cannot see (it averages over orders) but a
    bootstrap of per-order statistics and this table can."""
    stats = sentence_statistics("a b c", "a b d", ["a c d"])
    assert stats.tolist() == CASE_A_ROWS
    assert stats.dtype == np.int64


def test_deletion_by_precision_alone_by_hand():
    """Case A scored with ``deletion="precision"`` (SARI.py's form):
    delete per order: P = 0/1, 1/1, 1/1 and 0 (nothing deleted at n = 4: 0, not 1) -> 100 * 2/4 = 50.
    With F1 (the default): 0; P 1, R 1/2 -> 2/3; 1; 0 -> 100 * (5/3)/4 = 41.667.
    add (F1): 1, 0, 0, 0 -> 25; keep (F1): P 1/2, R 1/2 -> 1/2, then 0 -> 12.5; both the same either way.
    Mutants: precision 1 at an empty order gives delete 75; precision applied to another operation, or never,
    gives 41.667."""
    totals = np.array(CASE_A_ROWS)
    precision = score_from_statistics(totals, "legacy", deletion="precision")
    assert (precision.add, precision.keep, precision.delete) == pytest.approx((25.0, 12.5, 50.0))
    assert precision.sari == pytest.approx((25.0 + 12.5 + 50.0) / 3)
    f1 = score_from_statistics(totals, "legacy")
    assert (f1.add, f1.keep, f1.delete) == pytest.approx((25.0, 12.5, 500 / 12))


def test_empty_orders_score_zero_without_dividing_by_zero():
    """All-zero totals (a one-word corpus has no 2-, 3- or 4-grams) score 0 and never divide 0 by 0: a ``>= 0``
    guard would compute numpy's 0/0 (a RuntimeWarning in the user's log, nan in the score)."""
    with warnings.catch_warnings(), np.errstate(all="raise"):
        warnings.simplefilter("error")
        zero = score_from_statistics(np.zeros((4, 9), dtype=np.int64), "legacy")
        also = score_from_statistics(np.zeros((4, 9), dtype=np.int64), "legacy", deletion="precision")
    assert (zero.sari, zero.add, zero.keep, zero.delete) == (0.0, 0.0, 0.0, 0.0)
    assert also.delete == 0.0


def test_an_empty_corpus_has_no_rows_and_the_score_names_its_mode():
    empty = all_statistics([], [], [[]], "legacy")
    assert empty.shape == (0, 4, 9) and empty.dtype == np.int64
    assert corpus_sari(["a b c"], ["a b d"], [["a c d"]]).mode == "legacy"
    assert corpus_sari(["a b c"], ["a b d"], [["a c d"]], mode="easse").mode == "easse"


def test_easse_preprocessing_lowercases_and_tokenises():
    assert normalise("The Cat, Sat.", lowercase=True) == "the cat , sat ."
    assert normalise("The Cat, Sat.", lowercase=False) == "The Cat , Sat ."


def test_misaligned_corpus_sari_inputs_are_named():
    with pytest.raises(ValueError, match=r"^a reference set has 1 sentences, the source 2$"):
        all_statistics(["a", "b"], ["a", "b"], [["a"]], "legacy")
    with pytest.raises(ValueError, match=r"^1 outputs for 2 sources$"):
        all_statistics(["a", "b"], ["a"], [["a", "b"]], "legacy")


# --- SARI.py's sentence form (paragen.metrics.sari_sentence) --------------------------------------------------------

def test_sentence_form_add_precision_and_recall_by_hand():
    """Source "a b", output "a c d", reference "a c e", order 1 (k = 1):
    add: O adds {c, d}, R adds {c, e}, good {c}: P = 1/2, R = 1/2, F1 = 1/2 (a product for either ratio: 0.8).
    keep: kept {a}, good {a}, S & R {a}: P = R = 1 -> 1.  delete: deleted {b}, the reference deletes it too -> 1."""
    assert order_scores(["a", "b"], ["a", "c", "d"], [["a", "c", "e"]], 1) == pytest.approx((1.0, 1.0, 0.5))


def test_sentence_form_averages_orders_one_to_four_only():
    """An output equal to its source and reference, five tokens: keep is 1 at every order, delete and add 0 (nothing
    deleted or added), so SARI = 100 * (1 + 0 + 0)/3 = 33.333. Counting a fifth order (also 1) with the weight 1/4
    gives 100 * (5/4)/3 = 41.667."""
    same = "a b c d e"
    assert sentence_sari(same, same, [same]) == pytest.approx(100 / 3)


def test_sentence_form_refuses_an_empty_corpus_by_name():
    with pytest.raises(ValueError, match=r"^no sentences to score$"):
        mean_sentence_sari([], [], [[]])
