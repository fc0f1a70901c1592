"""What the simplification group's mutation run (bench/mutation.sh simplification) found unpinned, each expected
value written by hand: the rule files' error messages word for word, the skip sweep (its CSV, markdown, trend
sentence, published point and the summary of one probability that the table's caption quotes), the scoring
variants' SARI and BLEU forms and the outputs each system is scored on, and "003's protocol" on a file."""

from __future__ import annotations

import pytest

from conftest import ROOT
from paragen.config import load_config
from paragen.simplification import scoring_variants as sv
from paragen.simplification.ppdb import RuleError, read_rules
from paragen.simplification.report_protocol import (DESCRIPTION, SARI_FORM, TurkTest, protocol_scores, read_turk_test,
                                                    score_file)
from paragen.simplification.skip_sweep import paper_point, summary_at, to_csv, to_markdown, trend
from paragen.simplification.systems import skip
from test_scoring_variants import write_turk_files

CAT = TurkTest(["the cat was sitting on the mat ."], [["a cat sat ."]] * 8, ["the cat sat on the mat ."])
"""One Turk test sentence whose 8 references all differ from its .simp sentence, for 003's protocol."""


@pytest.mark.parametrize("fmt, line, message", [
    ("simpleppdb", "3.4\t0.9\t[NN]\ta",
     "expected 5 tab-separated fields 'paraphrase score<TAB>simplification score<TAB>[TAG]<TAB>input<TAB>output', "
     "found 4"),
    ("simpleppdb", "many\t0.9\t[NN]\ta\tb", "the paraphrase score 'many' is not a number"),
    # the tag must open and close: a slip of "and" to "or" would take either half for a tag
    ("simpleppdb", "3.4\t0.9\t[NN\ta\tb", "expected a syntactic tag like [NN] in field 3, found '[NN'"),
    ("simpleppdb", "3.4\t0.9\tNN]\ta\tb", "expected a syntactic tag like [NN] in field 3, found 'NN]'"),
    ("ppdb2", "[NN] ||| a ||| b",
     "expected 'LHS ||| phrase ||| paraphrase ||| features ||| alignment' (5 fields, or 6 with the entailment "
     "relation), found 3"),
    # name=value splits at the first '=': the value '2=3' is then not a number (split at the last, the feature
    # would be named 'PPDB2.0Score=2' and the rule silently weighted 1)
    ("ppdb2", "[NN] ||| a ||| b ||| PPDB2.0Score=2=3 ||| 0-0", "the PPDB2.0Score '2=3' is not a number"),
    ("dmass", "X=>a=>b=>heavy", "the weight 'heavy' is not a number"),
    ("dmass", "X=>a=>b", "expected 'X=>complex=>simple=>weight' (4 fields), found 3"),
])
def test_rule_errors_word_for_word(tmp_path, fmt, line, message):
    path = tmp_path / "rules.txt"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(RuleError) as error:
        list(read_rules(path, fmt))
    assert str(error.value) == f"{path}:1: {message} ({fmt} format): {line!r}"


SWEEP = ("probability,seeds,sari_mean,sari_sd,bleu_mean,bleu_sd,sari_per_seed,bleu_per_seed\n"
         "0.8,2,15.0000,1.0000,2.5000,0.5000,14.0000 16.0000,2.0000 3.0000\n"
         "0.5,2,21.6200,0.2500,8.9700,0.7500,21.3700 21.8700,8.2200 9.7200\n")


def test_summary_at_reads_the_row_of_the_asked_probability(tmp_path):
    path = tmp_path / "sweep.csv"
    path.write_text(SWEEP, encoding="utf-8")
    assert summary_at(path, 0.5) == (2, {"sari": (21.62, 0.25), "bleu": (8.97, 0.75)})
    assert summary_at(path, 0.8) == (2, {"sari": (15.0, 1.0), "bleu": (2.5, 0.5)})
    assert summary_at(path, 0.2) is None  # a probability the sweep did not score


def test_summary_at_reads_what_to_csv_writes(tmp_path):
    # seeds 20 and 22: mean 21, sample sd sqrt(((20-21)^2 + (22-21)^2) / 1) = sqrt(2) = 1.4142 (4 decimals)
    path = tmp_path / "sweep.csv"
    path.write_text(to_csv({0.3: {"sari": [20.0, 22.0]}, 0.1: {"sari": [30.0, 30.0]}}), encoding="utf-8")
    assert summary_at(path, 0.3) == (2, {"sari": (21.0, 1.4142)})
    assert summary_at(path, 0.1) == (2, {"sari": (30.0, 0.0)})


def test_a_single_seed_has_sd_zero_and_each_seed_is_listed_in_order(tmp_path):
    # one seed: sd 0 (statistics.stdev needs two); two seeds 20, 22: sd sqrt(2)
    assert to_csv({0.2: {"sari": [25.0]}, 0.4: {"sari": [20.0, 22.0]}}) == (
        "probability,seeds,sari_mean,sari_sd,sari_per_seed\n"
        "0.2,1,25.0000,0.0000,25.0000\n"
        "0.4,2,21.0000,1.4142,20.0000 22.0000\n")


def test_the_trend_sentence_needs_a_strict_rise_and_names_an_unlabelled_metric_as_it_is():
    rising = {0.5: {"meteor": [10.0]}, 0.3: {"meteor": [12.0]}, 0.1: {"meteor": [13.0]}}
    assert trend(rising, "meteor") == "meteor rises at every step as p falls from 0.5 to 0.1 (agrees)"
    flat_then_up = {0.5: {"sari": [10.0]}, 0.3: {"sari": [10.0]}, 0.1: {"sari": [13.0]}}
    assert trend(flat_then_up, "sari") == ("SARI is highest at the lowest p (0.1) but does not rise at every step "
                                           "(agrees overall)")


def test_sari_forms_wire_corpus_f1_and_precision_deletion_to_their_columns():
    """Source "a b c", output "a b", reference "a" (tests/test_scoring_variants.py works it out): add 0, keep 1/6,
    deletion 7/12 by F1 and 3/4 by precision. One sentence, so corpus and sentence mean agree:
    corpus = F1 mean = 100 (1/6 + 7/12) / 3 = 25; precision mean = 100 (1/6 + 3/4) / 3 = 30.56."""
    corpus, f1_mean, precision_mean, _ = sv._sari_forms(["a b c"], ["a b"], [["a"]])
    assert corpus == pytest.approx(25.0) and f1_mean == pytest.approx(25.0)
    assert precision_mean == pytest.approx(100 * (1 / 6 + 3 / 4) / 3)


def test_bleu_forms_wire_lowercasing_tokenisation_and_smoothing():
    """Columns: 13a, tokens as given, 13a without smoothing, tokens as given without smoothing; all lowercased."""
    # upper case against lower case: equal once lowercased, so 100 in every form
    assert sv._bleu_forms(["The Cat sat on the mat ."], [["the cat sat on the mat ."]]) == pytest.approx([100.0] * 4)
    # "mat." is "mat ." to 13a but one unknown token as given
    thirteen_a, as_given, _, _ = sv._bleu_forms(["the cat sat on the mat."], [["the cat sat on the mat ."]])
    assert thirteen_a == pytest.approx(100.0) and as_given < 100.0
    # no 4-gram matches (the output has a wrong third word): 0 without smoothing, above 0 with it
    smoothed, _, unsmoothed, _ = sv._bleu_forms(["the cat dog on mat"], [["the cat sat on mat"]])
    assert unsmoothed == 0.0 and smoothed > 0.0


def test_each_system_scores_the_outputs_it_names():
    sources = ["one two three four five six seven eight nine ten eleven twelve"]
    turk = [[f"reference {k}"] for k in range(8)]
    test = TurkTest(sources, turk, ["the simple one"])
    assert sv._outputs(test, "identity") == [(sources, None)]
    assert sv._outputs(test, sv.ORACLES[0]) == [(["reference 0"], None)]
    assert sv._outputs(test, sv.ORACLES[1]) == [(["the simple one"], None)]
    assert sv._outputs(test, sv.ORACLES[2]) == [([f"reference {k}"], k) for k in range(8)]
    skips = sv._outputs(test, "skip (p=.5)")
    assert skips == [(skip(sources, 0.5, seed), None) for seed in range(1, 11)]
    assert len({tuple(out) for out, _ in skips}) > 1  # seeds 1-10 drop different words


def test_the_held_out_oracle_is_scored_without_its_own_reference():
    """Eight different references: reference k against the other seven shares no word but "the" with them, so
    BLEU is far below 100; scored with itself among them it would be 100."""
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]
    turk = [[f"the {w} {w} {w} {w}"] for w in words]
    scored = sv.score_system(TurkTest(["the source sentence here"], turk, ["the simple one"]), sv.ORACLES[2],
                             "as distributed")
    assert scored.bleu[("8 Turk", "13a")] < 50
    own = sv.score_system(TurkTest(["the source sentence here"], turk, ["the simple one"]), sv.ORACLES[0],
                          "as distributed")
    assert own.bleu[("8 Turk", "13a")] == pytest.approx(100.0)  # reference 0 among the references: a perfect match
    assert scored.sari[("8 Turk", "corpus (STAR)")] < own.sari[("8 Turk", "corpus (STAR)")]


def test_sweep_markdown_word_for_word():
    """Seeds 3 and 4 at two probabilities. SARI 20, 22 -> 21.00 ± 1.41 (sd sqrt 2) and 30, 30 -> 30.00 ± 0.00;
    BLEU 8, 9 -> 8.50 ± 0.71 (sd sqrt 0.5) and 7, 9 -> 8.00 ± 1.41. As p falls from 0.5 to 0.1 SARI rises, BLEU
    falls from its peak at 0.5."""
    results = {0.5: {"sari": [20.0, 22.0], "bleu": [8.0, 9.0]}, 0.1: {"sari": [30.0, 30.0], "bleu": [7.0, 9.0]}}
    unlabelled = to_markdown("x", {0.5: {"meteor": [1.0]}, 0.1: {"meteor": [2.0]}}, 1).split("\n")
    assert unlabelled[4] == "| drop probability p | meteor mean ± sd |"  # a metric without a label: its own name
    assert to_markdown("simp_skip", results, 3).split("\n") == [
        "# Skip baseline (simp_skip): metrics against the drop probability", "",
        "Each word of the test source dropped independently with probability p; 2 seeds per p (3..4), scored as "
        "the table's rows. 003 §4.3.1 states the trend in words only (scores rise as p falls; p = 0 is the "
        "identity).", "",
        "| drop probability p | SARI mean ± sd | BLEU mean ± sd |",
        "| --- | --- | --- |",
        "| 0.5 | 21.00 ± 1.41 | 8.50 ± 0.71 |",
        "| 0.1 | 30.00 ± 0.00 | 8.00 ± 1.41 |",
        "",
        "Against 003 §4.3.1 (\"scores increase as p decreases\"): SARI rises at every step as p falls from 0.5 to "
        "0.1 (agrees); BLEU peaks at p = 0.5 (8.50) and falls below it, to 8.00 at p = 0.1 (disagrees for "
        "p < 0.5).", ""]


def test_the_sweep_marks_the_skip_rows_published_point_and_nothing_for_an_unpublished_row():
    """003 Table 1 publishes skip at p = 0.5: SARI 21.62, BLEU 8.97. turk-mini's identity row is in a table whose
    paper publishes nothing for it."""
    config = load_config(ROOT / "params.yaml")
    assert paper_point(config, "simp_skip") == (0.5, {"sari": 21.62, "bleu": 8.97})
    assert paper_point(config, "mini_identity") is None


def test_003s_protocol_bleu_is_lowercased_on_the_files_tokens_against_the_simp_sentence(tmp_path):
    """BLEU 100 needs all three: "The Cat" equals "the cat" only lowercased; "mat." against "mat ." differs only on
    the tokens as given (13a would split both alike); the Turk references differ from the .simp sentence."""
    scores = protocol_scores(CAT, ["The Cat sat on the mat ."])
    assert scores["bleu"]["score"] == pytest.approx(100.0) and scores["bleu"]["references"] == ".simp"
    assert protocol_scores(CAT, ["the cat sat on the mat."])["bleu"]["score"] < 100.0
    with pytest.raises(Exception, match="hyp.txt: 2 lines, but the Turk test set has 1; 003's protocol scores "
                                        "outputs of the Turk test sentences"):
        protocol_scores(CAT, ["a", "b"], "hyp.txt")


def test_003s_protocol_records_its_description_forms_and_bleu_signature():
    """What the metrics JSON keeps beside the scores, so that a reader can tell which protocol gave them."""
    scores = protocol_scores(CAT, ["the cat sat on the mat ."])
    assert list(scores) == ["description", "sari", "bleu"] and scores["description"] == DESCRIPTION
    assert scores["sari"]["form"] == SARI_FORM and list(scores["sari"]) == ["score", "form"]
    assert list(scores["bleu"]) == ["score", "signature", "references"]
    assert "tok:none" in scores["bleu"]["signature"] and "case:lc" in scores["bleu"]["signature"]


def test_the_turk_files_with_crlf_line_endings_read_as_the_same_test(tmp_path):
    """A copy saved on Windows ends its lines with CRLF: the endings are stripped (and noted), the text is the same."""
    raw = write_turk_files(tmp_path, ["the cat was sitting ."], [["a cat sat ."]] * 8, ["the cat sat ."])
    norm = raw / "test.8turkers.tok.norm"
    norm.write_bytes(norm.read_bytes().replace(b"\n", b"\r\n"))
    test = read_turk_test(raw)
    assert (test.sources, test.turk[0], test.simp) == (["the cat was sitting ."], ["a cat sat ."], ["the cat sat ."])


def test_003s_protocol_on_a_file_restores_bpe_and_its_oracle_is_the_simp_file(tmp_path):
    raw = write_turk_files(tmp_path, CAT.sources, CAT.turk, CAT.simp)
    hyp = tmp_path / "test.hyp"
    hyp.write_text("the c@@ at sat on the m@@ at .\n", encoding="utf-8")
    restored = score_file(hyp, raw, remove_bpe=True)
    assert restored["bleu"]["score"] == pytest.approx(100.0) and restored["output"] == str(hyp)
    assert score_file(hyp, raw)["bleu"]["score"] < 100.0  # "c@@ at" is not "cat"
    oracle = score_file(hyp, raw, oracle=True)
    assert oracle["output"] == f"{raw}/test.8turkers.tok.simp" and oracle["bleu"]["score"] == pytest.approx(100.0)
    hyp.write_text("one\ntwo\n", encoding="utf-8")
    with pytest.raises(Exception, match=f"{hyp}: 2 lines, but the Turk test set has 1"):
        score_file(hyp, raw)
