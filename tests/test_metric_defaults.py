"""Defaults and edges of the small metrics (exact match, ROUGE, BLEU, alignment accuracy, odd generation).

Written for the survivors of the metrics group's mutation run (docs/mutation.md): the defaults a caller gets
without passing an argument (lowercased 13a BLEU, ROUGE without stemming), the empty corpus, the last index a link
may name, and the errors that name the pair or file at fault. Expected values are worked out in the docstrings or
are whole messages.
"""

from __future__ import annotations

import logging

import numpy as np
import pytest

from paragen.metrics.alignment import AlignmentScore, position_accuracy, word_accuracy
from paragen.metrics.bleu import bleu_metric, corpus_bleu, sentence_statistics
from paragen.metrics.exact import accuracy_by_tag, top_k_accuracy
from paragen.metrics.oddgen import odd_generation
from paragen.metrics.rouge import CharacterTokenizer, RougeScore, corpus_rouge, scorer, sentence_f1


# --- exact match --------------------------------------------------------------------------------------------------

def test_top_k_counts_only_a_hypothesis_equal_to_the_reference():
    """Two sentences: the first's only hypothesis differs from its reference (a miss; "any hypothesis differs"
    would count it), the second's reference is its second hypothesis (a hit at k = 2 only)."""
    nbest = [[["x"]], [["y"], ["z"]]]
    references = [["w"], ["z"]]
    assert top_k_accuracy(nbest, references, 1) == 0.0
    assert top_k_accuracy(nbest, references, 2) == 50.0
    assert top_k_accuracy([], [], 1) == 0.0


def test_accuracy_by_tag_uses_each_k():
    """Tag t: one sentence whose reference is its second hypothesis: top1 0, top2 100 (all hypotheses: 100)."""
    rows = accuracy_by_tag([[["a"], ["b"]]], [["b"]], ["t"], ks=(1, 2))
    assert rows == {"t": {"count": 1, "top1": 0.0, "top2": 100.0}, "all": {"count": 1, "top1": 0.0, "top2": 100.0}}


def test_exact_match_refusals_name_the_counts():
    with pytest.raises(ValueError, match=r"^2 hypothesis lists but 1 references$"):
        top_k_accuracy([[["a"]], [["b"]]], [["a"]], 1)
    with pytest.raises(ValueError, match=r"^2 tags but 1 references$"):
        accuracy_by_tag([[["a"]]], [["a"]], ["t", "u"])


# --- ROUGE (rouge-score) --------------------------------------------------------------------------------------------

def test_rouge_does_not_stem_unless_asked():
    """"cats" against "cat": no shared unigram without stemming (F 0), identical after Porter stemming (F 100)."""
    assert corpus_rouge(["cats"], ["cat"]).rouge1 == 0.0
    assert sentence_f1(["cats"], ["cat"])[0, 0] == 0.0
    assert scorer().score("cat", "cats")["rouge1"].fmeasure == 0.0
    assert corpus_rouge(["cats"], ["cat"], stem=True).rouge1 == 100.0


def test_an_empty_corpus_scores_zero_on_each_measure():
    assert corpus_rouge([], []) == RougeScore(0.0, 0.0, 0.0)
    assert sentence_f1([], []).shape == (0, 3)


def test_an_unknown_unit_is_refused_not_read_as_words():
    """Before, any unit other than "char" silently scored words (so "chars" or "character" gave word ROUGE)."""
    with pytest.raises(ValueError, match=r"^ROUGE unit 'chars'; allowed: word, char$"):
        corpus_rouge(["a"], ["a"], unit="chars")
    with pytest.raises(ValueError, match=r"^ROUGE unit 'chars'; allowed: word, char$"):
        corpus_rouge([], [], unit="chars")  # also with nothing to score


def test_character_tokens_are_lowercased():
    assert CharacterTokenizer().tokenize("AbC 中文") == ["a", "b", "c", "中", "文"]


def test_rouge_refuses_misaligned_files_by_count():
    with pytest.raises(ValueError, match=r"^2 hypotheses but 1 references$"):
        sentence_f1(["a", "b"], ["a"])


# --- BLEU (sacrebleu) ---------------------------------------------------------------------------------------------

def test_bleu_defaults_lowercase_with_the_13a_tokenizer():
    """"The cat sat ." against "the cat sat ." is a perfect match only when lowercased: BLEU 100 (13a keeps four
    tokens either way); case-sensitive, "The" is not "the" and the score falls below 100."""
    assert corpus_bleu(["The cat sat ."], [["the cat sat ."]]).score == pytest.approx(100.0)
    assert bleu_metric().corpus_score(["The cat sat ."], [["the cat sat ."]]).score == pytest.approx(100.0)
    assert corpus_bleu(["The cat sat ."], [["the cat sat ."]], lowercase=False).score < 100.0


def test_bleu_smoothing_asked_for_is_used():
    """"a b c e" against "a b c d" shares no 4-gram. Without smoothing (``smooth="none"``, the scoring-variants
    study's setting) a zero precision makes BLEU 0; sacrebleu's default ``exp`` smoothing would give 59.46."""
    metric = bleu_metric(smooth="none")
    assert metric.corpus_score(["a b c e"], [["a b c d"]]).score == 0.0
    assert "smooth:none" in str(metric.get_signature())


def test_bleu_statistics_follow_the_case_and_tokenizer_asked_for():
    """Hypothesis "Ab", reference "ab". Characters, case kept: lengths 2 and 2, unigram matches 1 of 2 ("b"), bigram
    0 of 1: [2, 2, 1, 0, 0, 0, 2, 1, 0, 0] (sacrebleu's layout: lengths, matches 1-4, totals 1-4). 13a words,
    lowercased: one token each, matched: [1, 1, 1, 0, 0, 0, 1, 0, 0, 0]."""
    stats, _ = sentence_statistics(["Ab"], [["ab"]], lowercase=False, tokenize="char")
    assert stats.tolist() == [[2, 2, 1, 0, 0, 0, 2, 1, 0, 0]]
    stats, _ = sentence_statistics(["Ab"], [["ab"]])
    assert stats.tolist() == [[1, 1, 1, 0, 0, 0, 1, 0, 0, 0]]
    assert sentence_statistics([], [[]])[0].dtype == np.int64  # counts, also for an empty corpus


def test_tokenised_input_is_scored_without_sacrebleus_detokenize_warning(caplog):
    """The papers' files are tokenised on purpose (``force=True``): 120 lines ending in " ." would otherwise make
    sacrebleu log "It looks like you forgot to detokenize your test data"."""
    lines = ["a b c ."] * 120
    with caplog.at_level(logging.WARNING, logger="sacrebleu"):
        assert corpus_bleu(lines, [lines]).score == pytest.approx(100.0)
    assert not [r for r in caplog.records if r.name == "sacrebleu"]


# --- alignment accuracy and odd generation --------------------------------------------------------------------------

def test_word_accuracy_accepts_the_last_source_position_and_refuses_the_next():
    """Source of 2 tokens: a link from position 1 (the last) is scored; from position 2 it points past the source."""
    assert word_accuracy([["b"]], [["a", "b"]], [[(1, 0)]]) == AlignmentScore(1, 1)
    with pytest.raises(ValueError, match=r"^pair 1: link 2-0 points past the source \(2 tokens\)$"):
        word_accuracy([["b"]], [["a", "b"]], [[(2, 0)]])


def test_alignment_errors_name_the_pair():
    """The second pair's link points past its one-token target: "pair 2" (not 0, 3 or none)."""
    with pytest.raises(ValueError, match=r"^pair 2: link 0-1 points past the target \(1 tokens\)$"):
        word_accuracy([["a"], ["a"]], [["a"], ["a"]], [[(0, 0)], [(0, 1)]])
    with pytest.raises(ValueError, match=r"^pair 2: link 0-1 points past the target \(1 tokens\)$"):
        position_accuracy([[0], [0]], [[(0, 0)], [(0, 1)]])
    with pytest.raises(ValueError, match=r"^1 predictions, 2 sources and 2 alignments$"):
        word_accuracy([["a"]], [["a"], ["a"]], [[], []])


def test_odd_generation_refuses_misaligned_files():
    with pytest.raises(ValueError, match=r"^2 outputs but 1 references$"):
        odd_generation([["a"], ["b"]], [["a"]])


def test_a_token_the_reference_repeats_as_often_is_not_odd():
    """Output "a a" against reference "a a b": "a" repeats no more than the gold does (2 - 2 = 0) and the output is
    1 token short, so odd by shortfall only; against "a a" it is not odd at all (counting repeats without the
    reference would call it odd: 2 repeated tokens)."""
    from paragen.metrics.oddgen import is_odd, repeats

    assert repeats(["a", "a"], ["a", "a", "b"]) == 0
    assert is_odd(["a", "a"], ["a", "a"]) is False
    assert is_odd(["a", "a", "a"], ["a", "a"]) is True


def test_aligned_pairs_rank_by_count_then_alphabet():
    """Identical pairs: "b b" twice, then "a a" and "c c" once each (a tie, in alphabetical order). Sorting by the
    pair alone, or by rising count, puts "a a" first."""
    from paragen.metrics.aligned_pairs import grouped_pairs

    targets = [["c", "b"], ["b", "a"]]
    rows = grouped_pairs(targets, targets, stem=str)["identical"]
    assert rows == [["b", "b", 2], ["a", "a", 1], ["c", "c", 1]]
    with pytest.raises(ValueError, match=r"^2 targets but 1 aligned sentences$"):
        grouped_pairs(targets, targets[:1], stem=str)
