"""`paragen score` and `paragen evaluate` wiring that the scoring group's mutation run (docs/mutation.md) found
unpinned: --lowercase, the tokenizer and BPE restoration reaching every file each metric reads (and the compared
system), the keys each result records, the refusals word for word, the settings `evaluate` hands to `score`, the
skip row's seeds, a system's single test split, the leave-one-out oracle on BPE data and 003's protocol."""

from __future__ import annotations

import re

import pytest
import sacrebleu

from paragen.config import load_config
from paragen.config.datasets import Evaluation
from paragen.config.loading import parse_config
from paragen.data.corpus import CorpusError
from paragen.scoring.evaluation import evaluate_experiment, score_request, skip_runs
from paragen.scoring.files import ScoreRequest, headline, restore_bpe, score
from paragen.simplification.report_protocol import TurkTest

from conftest import ROOT, write_lines
from test_systems import _project, _tiny_turk, bpe_turk


def test_sari_lowercase_folds_source_output_and_references_alike(tmp_path):
    """The hand-worked case of tests/test_sari_cases.py (S "a a b", O "a b c", refs "a b" and "a a b c": add 75,
    keep (8/9 + 4/5)/4 = 42.22, delete 3 (2/3)/4 = 50, SARI 55.74), written here in mixed case: each file has a
    capital the others lack at that n-gram, so lowercasing only some of them (or upper-casing one side instead)
    leaves n-grams unmatched and gives another score. Without --lowercase the capitals count as other words."""
    src, hyp, refs = tmp_path / "src", tmp_path / "hyp", [tmp_path / "ref0", tmp_path / "ref1"]
    for path, line in zip([src, hyp, *refs], ["A a b", "a B c", "a b", "a A b C"]):
        write_lines(path, [line])
    request = dict(metric="sari", hyp=str(hyp), refs=[str(r) for r in refs], src=str(src))
    folded = score(ScoreRequest(**request, lowercase=True))
    add, keep, delete = 75.0, 100 * (8 / 9 + 4 / 5) / 4, 50.0
    assert (folded["add"], folded["keep"], folded["delete"]) == pytest.approx((add, keep, delete))
    assert folded["score"] == pytest.approx((add + keep + delete) / 3)  # 55.74
    as_written = score(ScoreRequest(**request, lowercase=False))
    assert as_written["score"] != pytest.approx(folded["score"], abs=0.5)


def test_sari_compare_folds_both_systems(tmp_path):
    """With --compare the bootstrap rescores both outputs: the other system, "A B C" in capitals, is the same
    output as "a b c" once folded, so the two systems tie on every resample (delta 0), as they would if both
    were written in lower case."""
    src, hyp, other, ref = tmp_path / "src", tmp_path / "hyp", tmp_path / "other", tmp_path / "ref"
    for path, line in zip([src, hyp, other, ref], ["a a b", "a b c", "A B C", "a a b c"]):
        write_lines(path, [line])
    request = dict(metric="sari", hyp=str(hyp), refs=[str(ref)], src=str(src), compare=str(other),
                   bootstrap_samples=20)
    folded = score(ScoreRequest(**request, lowercase=True))["bootstrap"]
    assert folded["score_a"] == pytest.approx(folded["score_b"]) and folded["delta"] == pytest.approx(0.0)
    as_written = score(ScoreRequest(**request, lowercase=False))["bootstrap"]
    assert as_written["score_a"] < as_written["score_b"]  # capitals match nothing in the references


def test_a_source_of_another_length_is_named_with_the_output(tmp_path):
    """SARI reads --src beside the output: a source one line short names the source file with its count first,
    then the output file with its own."""
    src, hyp, ref = tmp_path / "test.src", tmp_path / "test.hyp", tmp_path / "test.ref"
    write_lines(src, ["a b"])
    for path in (hyp, ref):
        write_lines(path, ["a b", "c d"])
    with pytest.raises(CorpusError, match=re.escape(f"{src} has 1 lines but {hyp} has 2: files must be aligned")):
        score(ScoreRequest("sari", str(hyp), [str(ref)], src=str(src)))


def test_a_skip_output_the_turk_test_cannot_score_is_named_by_its_seed(tmp_path):
    """003's protocol scores one line per Turk test sentence; when the prepared test source and the Turk files
    disagree in length (a filtered or edited split), the skip row's refusal names the skip output and its seed,
    since the output is a scratch file the user never sees."""
    write_lines(tmp_path / "test.src", ["a b c", "d e f"])
    write_lines(tmp_path / "test.tgt", ["a b", "d e"])
    turk = TurkTest(["a b c", "d e f", "g h"], [["a b", "d e", "g"]] * 8, ["a b", "d e", "g"])
    runs = skip_runs(Evaluation(metrics=["bleu"]), str(tmp_path), [(0.5, 7)], protocol=turk)
    with pytest.raises(CorpusError, match=re.escape("skip output, seed 7: 2 lines, but the Turk test set has 3")):
        next(runs)


def _bpe_skip(tmp_path, monkeypatch, **skip_spec):
    """simp_skip (p = 0: its output is the source) on a one-sentence Turk-like set segmented with BPE, its output
    written where `paragen system` puts it."""
    monkeypatch.chdir(tmp_path)
    raw = bpe_turk(tmp_path, probability=0.0, sweep=[], **skip_spec)
    write_lines(tmp_path / "runs/simp_skip/test.hyp", ["the re@@ cip@@ ient passed away today"])
    return raw


def test_evaluate_restores_bpe_for_one_seed_and_keeps_a_systems_single_test_split(tmp_path, monkeypatch):
    """One seed: the output file is scored as written, its "@@ " joins undone first (BLEU 100 against the word
    reference; the BPE tokens would give under 50: tests/test_systems.py). The dataset also lists valid among its
    test splits, but a skip system writes only test.hyp: its result is the test split alone, keyed by split as the
    dataset's other rows are (so `dvc metrics show` puts it in their columns), with no per-seed block."""
    raw = _bpe_skip(tmp_path, monkeypatch, seeds=1)
    raw["datasets"]["turk"]["test_splits"] = ["test", "valid"]
    result = evaluate_experiment(parse_config(raw), "simp_skip")
    assert list(result["splits"]) == ["test"] and result["splits"]["test"]["bleu"]["score"] == pytest.approx(100.0)
    assert "per_seed" not in result["splits"]["test"] and result["splits"]["test"]["count"] == 1
    assert (result["experiment"], result["dataset"]) == ("simp_skip", "turk")


def test_evaluate_averages_a_skip_row_over_two_seeds(tmp_path, monkeypatch):
    """Two seeds are the smallest number that makes the row a mean over seeds (the per-seed block)."""
    result = evaluate_experiment(parse_config(_bpe_skip(tmp_path, monkeypatch, seeds=2)), "simp_skip")
    assert result["per_seed"]["seeds"] == [1, 2] and result["bleu"]["score"] == pytest.approx(100.0)


def test_evaluate_refuses_a_rule_data_experiment_and_names_the_command_that_scores_it():
    with pytest.raises(CorpusError) as refused:
        evaluate_experiment(load_config(ROOT / "params.yaml"), "syn_rnnsearch")
    assert str(refused.value) == ("syn_rnnsearch: `paragen evaluate` scores real-data and headline stand-in "
                                  "experiments; rule-data ones use `paragen score --metric exact`")


def test_bleu_lowercase_reaches_the_score_and_its_signature(tmp_path):
    """Worked by hand: "The cat sat on the mat" against "the cat sat on the mat" (one line, equal lengths).
    Lowercased they are equal: BLEU 100. As written "The" matches nothing: 1- to 4-gram precisions 5/6, 4/5, 3/4,
    2/3, BLEU = 100 (5/6 * 4/5 * 3/4 * 2/3)^(1/4) = 100 (1/3)^(1/4) = 75.98."""
    hyp, ref, other_ref = tmp_path / "hyp", tmp_path / "ref", tmp_path / "ref2"
    write_lines(hyp, ["The cat sat on the mat"])
    write_lines(ref, ["the cat sat on the mat"])
    write_lines(other_ref, ["a dog sat on a rug"])
    folded = score(ScoreRequest("bleu", str(hyp), [str(ref), str(other_ref)], lowercase=True))
    assert folded["score"] == pytest.approx(100.0) and folded["references"] == 2
    assert "case:lc" in folded["signature"] and "tok:13a" in folded["signature"]
    assert (folded["tokenize"], folded["tokenize_chosen"]) == ("13a", "auto: --tokenize 13a")
    as_written = score(ScoreRequest("bleu", str(hyp), [str(ref)], lowercase=False, tokenize="intl"))
    assert as_written["score"] == pytest.approx(100 * (1 / 3) ** 0.25)  # 75.98
    assert "case:mixed" in as_written["signature"] and "tok:intl" in as_written["signature"]
    assert (as_written["tokenize"], as_written["tokenize_chosen"]) == ("intl", "--tokenize intl")


def test_bleu_compare_rescores_both_systems_with_the_chosen_case_and_tokenizer(tmp_path):
    """A paired comparison on CJK text (auto -> zh: one token a character) with Latin letters in capitals in one
    output: each system's full-sample score is its corpus BLEU under the same lowercasing and tokenizer,
    computed here with sacrebleu directly; scoring 13a's whole unsegmented sentences, or leaving case, differs."""
    refs = ["他今天去abc北京开会了", "我们明天在上海见面吧"]
    hyps = ["他今天去ABC北京开会", "我们明天在上海见面"]
    other = ["他明天去北京", "我们今天在上海吧"]
    paths = {name: tmp_path / name for name in ("ref", "hyp", "other")}
    for name, lines in zip(paths, (refs, hyps, other)):
        write_lines(paths[name], lines)
    result = score(ScoreRequest("bleu", str(paths["hyp"]), [str(paths["ref"])], lowercase=True,
                                compare=str(paths["other"]), bootstrap_samples=50))
    expected = lambda lines: sacrebleu.corpus_bleu(lines, [refs], lowercase=True, tokenize="zh").score  # noqa: E731
    assert result["tokenize_chosen"] == "auto: CJK text detected, --tokenize zh"
    assert result["score"] == pytest.approx(expected(hyps))
    test = result["bootstrap"]
    assert (test["score_a"], test["score_b"]) == pytest.approx((expected(other), expected(hyps)))
    assert test["samples"] == 50 and 0.0 <= test["p_value"] <= 1.0
    assert expected(hyps) != pytest.approx(sacrebleu.corpus_bleu(hyps, [refs], tokenize="zh").score)
    assert expected(hyps) != pytest.approx(sacrebleu.corpus_bleu(hyps, [refs], lowercase=True).score)


def test_bleu_refuses_a_word_tokenizer_on_cjk_references_and_auto_chooses_zh_at_the_threshold(tmp_path):
    """--tokenize intl (a word tokenizer, like 13a) on CJK references is refused word for word. The CJK test is
    "at least 30 % of non-space characters": a reference with 3 CJK characters of 10 is CJK, auto picks zh."""
    hyp, ref = tmp_path / "hyp", tmp_path / "ref"
    write_lines(hyp, ["北京市abcdefg"])
    write_lines(ref, ["北京市abcdefg"])
    assert score(ScoreRequest("bleu", str(hyp), [str(ref)]))["tokenize"] == "zh"
    with pytest.raises(CorpusError) as refused:
        score(ScoreRequest("bleu", str(hyp), [str(ref)], tokenize="intl"))
    assert str(refused.value) == (f"{ref}: the references are CJK text (30% of characters), which --tokenize intl "
                                  "keeps as whole unsegmented sentences (BLEU near 0); use --tokenize zh (or auto)")


def test_the_leave_one_out_oracle_on_bpe_data_is_scored_on_words_like_every_other_row(tmp_path, monkeypatch):
    """Segmentation writes the references in subwords too; every row's output and references are restored to
    words before scoring, and so must the oracle's. Worked by hand, BLEU of "x y recipient z w a" against
    "x y recipient z w b" (and back): precisions 5/6, 4/5, 3/4, 2/3, BLEU 100 (1/3)^(1/4) = 75.98. Scored on the
    subwords ("x y re@@ cip@@ ient z w a", which 13a cuts into 12 tokens, each "@" apart): 11/12, 10/11, 9/10,
    8/9, BLEU 100 (2/3)^(1/4) = 90.36, which no other row of the table would be comparable with."""
    monkeypatch.chdir(tmp_path)
    raw = bpe_turk(tmp_path)
    data = tmp_path / "data/segmented/turk.bpe"
    for k, last in enumerate("ab"):
        write_lines(data / f"test.ref.{k}", [f"x y re@@ cip@@ ient z w {last}"])
    result = evaluate_experiment(parse_config(raw), "simp_oracle")
    assert result["bleu"]["score"] == pytest.approx(100 * (1 / 3) ** 0.25)  # 75.98, not 90.36


def test_headline_of_one_score_has_no_count_and_bpe_restoration_leaves_other_lines_alone(tmp_path):
    """`paragen score` results carry no sentence count (an evaluation's do): the headline is the score alone.
    Restoring BPE touches only lines with "@@": "head@@ line" becomes "headline", a line without it stays
    character for character, trailing space included."""
    hyp = tmp_path / "hyp"
    write_lines(hyp, ["the cat sat on the mat"])
    assert headline(score(ScoreRequest("bleu", str(hyp), [str(hyp)]))) == {"bleu": pytest.approx(100.0)}
    assert restore_bpe("the head@@ line ") == "the headline"
    assert restore_bpe("no joins here ") == "no joins here "


def test_score_request_carries_the_evaluations_settings_and_the_first_reference_for_rouge():
    """How `paragen evaluate` asks `score`: each setting of the dataset's evaluation block passed on, the
    source of the split scored, 1,000 bootstrap samples by default, and ROUGE and odd generation against the
    first reference only (the other metrics take every reference)."""
    refs = ["r0", "r1", "r2"]
    words = Evaluation(metrics=["rouge"], lowercase=False, rouge_unit="word", rouge_perl=True,
                       rouge_perl_exceptions="none")
    rouge = score_request(words, "rouge", "d", "out.hyp", refs=refs)
    assert (rouge.lowercase, rouge.rouge_unit, rouge.rouge_perl, rouge.rouge_perl_exceptions) == \
        (False, "word", True, "none")
    assert (rouge.refs, rouge.src, rouge.remove_bpe, rouge.compare, rouge.bootstrap_samples) == \
        (["r0"], "d/test.src", False, None, 1000)
    assert score_request(words, "oddgen", "d", "out.hyp", refs=refs).refs == ["r0"]
    bleu = score_request(Evaluation(metrics=["bleu"]), "bleu", "d", "o", remove_bpe=True, split="valid",
                         compare="other", samples=20, refs=refs)
    assert (bleu.lowercase, bleu.rouge_unit, bleu.rouge_perl, bleu.rouge_perl_exceptions) == \
        (True, "auto", False, "wordnet")  # the defaults: ROUGE by script
    assert (bleu.refs, bleu.src, bleu.remove_bpe, bleu.compare, bleu.bootstrap_samples) == \
        (refs, "d/valid.src", True, "other", 20)


def test_score_refusals_word_for_word_and_the_files_it_records(tmp_path):
    hyp, ref, gap, other = (tmp_path / name for name in ("hyp", "ref", "gap", "other"))
    write_lines(hyp, ["a b c d"])
    write_lines(ref, ["a b c d"])
    write_lines(gap, [""])
    write_lines(other, ["a b c d", "e f"])
    result = score(ScoreRequest("bleu", str(hyp), [str(ref)]))
    assert (result["metric"], result["hyp"], result["refs"]) == ("bleu", str(hyp), [str(ref)])
    with pytest.raises(CorpusError) as refused:
        score(ScoreRequest("bleu", str(hyp), []))
    assert str(refused.value) == "at least one --ref file is needed"
    with pytest.raises(CorpusError) as refused:
        score(ScoreRequest("bleu", str(hyp), [str(gap)]))
    assert str(refused.value) == (f"{gap}:1: empty reference line; every sentence needs each of its references "
                                  "(give sentences with fewer references fewer --ref files, or drop them)")
    assert score(ScoreRequest("exact", str(hyp), [str(gap)]))["score"] == 0.0  # exact match: an empty gold is a gold
    with pytest.raises(ValueError) as refused:
        score(ScoreRequest("nope", str(hyp), [str(ref)]))
    assert str(refused.value) == "unknown metric 'nope'; allowed values: bleu, sari, rouge, exact, oddgen"
    with pytest.raises(CorpusError) as refused:
        score(ScoreRequest("bleu", str(hyp), [str(ref)], compare=str(other)))
    assert str(refused.value) == f"{hyp} has 1 lines but {other} has 2: files must be aligned line by line"


def test_bpe_joins_are_undone_only_when_asked(tmp_path):
    """"the re@@ cip@@ ient passed away" against "the recipient passed away": restored, BLEU 100; as written,
    13a cuts the joins into other tokens and the score falls."""
    hyp, ref = tmp_path / "hyp", tmp_path / "ref"
    write_lines(hyp, ["the re@@ cip@@ ient passed away"])
    write_lines(ref, ["the recipient passed away"])
    assert score(ScoreRequest("bleu", str(hyp), [str(ref)], remove_bpe=True))["score"] == pytest.approx(100.0)
    assert score(ScoreRequest("bleu", str(hyp), [str(ref)], remove_bpe=False))["score"] < 50


def test_003s_protocol_scores_a_named_reference_oracle_as_the_simp_sentence(tmp_path, monkeypatch):
    """003's protocol has its own oracle, the .simp sentence: an oracle row of a named Turk reference is scored
    under that protocol as .simp (against itself: BLEU 100), not as the reference file it wrote."""
    monkeypatch.chdir(tmp_path)
    _tiny_turk(tmp_path)
    raw = _project(suites=["simplification"], data=["turk"])
    raw["systems"]["simp_oracle"]["reference"] = 0
    write_lines(tmp_path / "runs/simp_oracle/test.hyp", ["the winner died", "it began in 1990"])
    protocol = evaluate_experiment(parse_config(raw), "simp_oracle")["report_protocol"]
    assert protocol["output"].endswith("turkcorpus/test.8turkers.tok.simp")
    assert protocol["bleu"]["score"] == pytest.approx(100.0)


def test_003s_protocol_scores_a_bpe_output_on_words(tmp_path, monkeypatch):
    """On a Turk set segmented with BPE, 003's protocol reads the row's output restored to words, as the standard
    columns do: the identity row "the re@@ cip@@ ient passed away today" against the .simp sentence "the
    recipient passed away today" is BLEU 100; the subwords would score below 50."""
    monkeypatch.chdir(tmp_path)
    raw = bpe_turk(tmp_path)
    raw["datasets"]["turk"]["evaluation"] = {"metrics": ["bleu"], "report_protocol": True}
    turk = tmp_path / "data/raw/turkcorpus"
    for name in ["norm", "simp", *(f"turk.{k}" for k in range(8))]:
        write_lines(turk / f"test.8turkers.tok.{name}", ["the recipient passed away today"])
    write_lines(tmp_path / "runs/simp_identity/test.hyp", ["the re@@ cip@@ ient passed away today"])
    protocol = evaluate_experiment(parse_config(raw), "simp_identity")["report_protocol"]
    assert protocol["bleu"]["score"] == pytest.approx(100.0)
