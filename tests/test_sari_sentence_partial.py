"""SARI.py's sentence form of "deleted correctly" when a repeated n-gram is partly kept (issue 41).

Xu et al.'s ``SARIngram`` counts the good deletions of an n-gram g as ``(S - O) - R`` (Counter subtraction, with
S and O multiplied by the number of references k): of the copies the output deleted, those the references did
not keep, i.e. ``max(0, (s - o) - r)``. The corpus SARI of :mod:`paragen.metrics.sari` (STAR) counts
``min(s - o, s - r)`` instead, ``(S - O) & (S - R)``. The two agree whenever the output deletes g entirely
(o = 0), which is all the existing hand-worked cases do; they differ when a repeated n-gram is partly kept.

Case: source "a a b", output "a b", one reference "a c" (k = 1).

n = 1: S {a 2, b 1}, O {a 1, b 1}, R {a 1, c 1}.
  delete: S - O = {a 1}. Sentence form: (S - O) - R = {a: 1 - 1 = 0} -> precision 0/1 = 0.
          Corpus form: (S - O) & (S - R) = {a 1} & {a 1, b 1} = {a 1} -> precision 1/1 = 1.
  keep:   kept S & O = {a 1, b 1}; good = kept & R = {a 1}; S & R = {a 1}.
          P = (1/1)/2 types = 1/2, R = (1/1)/1 = 1, F1 = 2/3.
  add:    O adds nothing to S -> P 0; the reference adds c -> R 0 -> 0.
n = 2: S {aa, ab}, O {ab}, R {ac}.
  delete: S - O = {aa 1}, aa not in R: good 1 in both forms -> 1.
  keep:   kept {ab}, not in R -> P 0; S & R = {} -> R 0 -> 0.   add: nothing added -> 0.
n = 3: S {aab}, O none: delete {aab 1} all good -> 1 (both forms); keep 0; add 0.
n = 4: all empty -> 0 (0/0 = 0).

Deletion per order: sentence form (0, 1, 1, 0), mean 1/2; corpus form (1, 1, 1, 0), mean 3/4.
Keep (2/3 + 0 + 0 + 0)/4 = 1/6; add 0.
SARI = 100 (1/6 + 1/2 + 0)/3 = 200/9 = 22.222  (with the corpus form: 100 (1/6 + 3/4)/3 = 275/9 = 30.556).
"""

from __future__ import annotations

import pytest

from paragen.metrics.sari_sentence import mean_sentence_sari, order_scores, sentence_sari

SOURCE, OUTPUT, REFERENCES = "a a b", "a b", ["a c"]


def test_deletion_per_order_with_a_partly_kept_repeated_unigram():
    """Correct deletion precision per order 1-4: 0, 1, 1, 0. Corpus form of the good-deletion count: 1, 1, 1, 0
    (it credits the deleted copy of "a" although the reference keeps as many copies of "a" as the output)."""
    src, out, refs = SOURCE.split(), OUTPUT.split(), [r.split() for r in REFERENCES]
    deletions = [order_scores(src, out, refs, n)[1] for n in range(1, 5)]
    assert deletions == pytest.approx([0.0, 1.0, 1.0, 0.0])
    keep, delete, add = order_scores(src, out, refs, 1)
    assert (keep, delete, add) == pytest.approx((2 / 3, 0.0, 0.0))


def test_sentence_sari_with_a_partly_kept_repeated_unigram():
    """Correct: SARI 200/9 = 22.222. With the corpus form of the good-deletion count: 275/9 = 30.556."""
    assert sentence_sari(SOURCE, OUTPUT, REFERENCES) == pytest.approx(200 / 9)
    assert mean_sentence_sari([SOURCE], [OUTPUT], [REFERENCES]) == pytest.approx(200 / 9)


def test_two_references_count_the_source_twice():
    """k = 2: references "a c" and "a a". n = 1: S {a 4, b 2}, O {a 2, b 2}, R {a 3, c 1}: S - O = {a 2};
    sentence form (S - O) - R = {a: 2 - 3 -> 0}: precision 0; corpus form min(S - O, S - R) = min(2, 1) = 1:
    precision 1/2. n = 2: S {aa 2, ab 2}, O {ab 2}, R {ac 1, aa 1}: S - O = {aa 2}, sentence form {aa 2 - 1 = 1}:
    1/2; corpus form min(2, 2 - 1) = 1: 1/2. n = 3: {aab 2} deleted, not in R: 1. n = 4: 0.
    Correct deletion per order (0, 1/2, 1, 0); corpus form (1/2, 1/2, 1, 0)."""
    src, out, refs = SOURCE.split(), OUTPUT.split(), [["a", "c"], ["a", "a"]]
    assert [order_scores(src, out, refs, n)[1] for n in range(1, 5)] == pytest.approx([0.0, 0.5, 1.0, 0.0])
