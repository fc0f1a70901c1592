"""What ``paragen score`` and ``paragen compare`` pass on: each setting reaches the computation it names.

The mutation run over paragen.scoring (bench/mutation.sh scoring) left these behaviours unpinned: stemming in the
ROUGE paired bootstrap, the ROUGE-2 column the bootstrap resamples, BPE restoration and the split in
``paragen compare``, the rule intervals' samples, seed and rounding, the files named by a misaligned n-best, tag or
group file. Expected values are worked by hand or by a few lines of numpy and sacrebleu/rouge-score in the test.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from paragen.config import load_config
from paragen.data.corpus import CorpusError
from paragen.scoring.comparison import compare_experiments
from paragen.scoring.files import ScoreRequest, score

from conftest import ROOT


def _write(path: Path, lines: list[str]) -> str:
    path.write_text("".join(line + "\n" for line in lines))
    return str(path)


def _p_not_better(per_sentence_gain: list[float], samples: int, seed: int) -> float:
    """paired_bootstrap's p-value by its definition: resample sentences with replacement (numpy's default_rng,
    one draw of n indices per resample), count the resamples in which B's mean gain is not above 0."""
    rng = np.random.default_rng(seed)
    gain = np.asarray(per_sentence_gain)
    n = len(gain)
    return sum(bool(gain[rng.integers(0, n, size=n)].mean() <= 0) for _ in range(samples)) / samples


def test_rouge_compare_is_stemmed_and_resamples_rouge2(tmp_path):
    """Sentence 1: ref "dogs running fast", B "dog runs fast": Porter stems both to "dog run fast", ROUGE-2 100
    (unstemmed: no shared bigram, 0). Sentence 2: ref "a b c d", B "a b c x": bigrams ab, bc of 3 each, F 66.67.
    A: "dogs run" (stemmed "dog run": 1 bigram of 1 and of 2, F 66.67; unstemmed 0) and "a b c d" (100).
    Stemmed ROUGE-2: B 83.33, A 83.33; unstemmed: B 33.33, A 50.00. ROUGE-L of B would be 87.5 (100 and LCS 3 of
    4), so a bootstrap on the wrong column gives another score_b; stemming only one of the two systems gives
    another score_a."""
    ref = _write(tmp_path / "ref", ["dogs running fast", "a b c d"])
    b = _write(tmp_path / "b", ["dog runs fast", "a b c x"])
    a = _write(tmp_path / "a", ["dogs run", "a b c d"])
    result = score(ScoreRequest("rouge", b, [ref], rouge_unit="word", stem=True, compare=a, bootstrap_samples=300,
                                seed=3))
    assert result["score"]["rouge2"] == pytest.approx(250 / 3)
    assert result["score"]["rouge1"] == pytest.approx((100 + 75) / 2)
    assert (result["stemmed"], result["implementation"], result["bootstrap_on"]) == (True, "rouge-score", "rouge2")
    test = result["bootstrap"]
    assert (test["score_b"], test["score_a"]) == (pytest.approx(250 / 3), pytest.approx(250 / 3))
    assert test["p_value"] == pytest.approx(_p_not_better([100 - 200 / 3, 200 / 3 - 100], 300, 3))
    plain = score(ScoreRequest("rouge", b, [ref], rouge_unit="word", compare=a, bootstrap_samples=10))
    assert plain["score"]["rouge2"] == pytest.approx(100 / 3) and plain["stemmed"] is False
    assert plain["bootstrap"]["score_a"] == pytest.approx(50.0)


def test_rouge_refusals_say_why(tmp_path):
    ref = _write(tmp_path / "ref", ["今天 天气 很 好"])
    hyp = _write(tmp_path / "hyp", ["今天 天气 好"])
    with pytest.raises(CorpusError) as refused:
        score(ScoreRequest("rouge", hyp, [ref], rouge_unit="word"))
    assert str(refused.value) == (f"{ref}: the references are CJK text (100% of characters), which --rouge-unit word "
                                  "deletes (rouge-score's tokenizer drops every CJK character: all scores 0); use "
                                  "--rouge-unit char (or auto)")
    with pytest.raises(CorpusError, match="rouge takes exactly one --ref, got 2"):
        score(ScoreRequest("rouge", hyp, [ref, ref]))


def test_a_character_rouge_comparison_rescores_the_other_system_in_characters(tmp_path):
    """ref = B = "今天天气很好"; A = "今天天气". Character bigrams of A: 今天 天天 天气 (3), all among the
    reference's 5 (今天 天天 天气 气很 很好): P 3/3, R 3/5, F = 2·1·0.6 / 1.6 = 75. In words rouge-score's tokenizer
    drops every CJK character, so A rescored in any other unit than the one asked for scores 0."""
    ref = _write(tmp_path / "ref", ["今天天气很好"])
    other = _write(tmp_path / "other", ["今天天气"])
    result = score(ScoreRequest("rouge", ref, [ref], rouge_unit="char", compare=other, bootstrap_samples=5))
    assert result["unit"] == "char"
    assert (result["bootstrap"]["score_b"], result["bootstrap"]["score_a"]) == (100.0, pytest.approx(75.0))


def test_rouge_perl_is_reached_through_score(tmp_path, rouge155):
    """``rouge_perl`` sends the request to ROUGE-1.5.5: one sentence, ref "the cat sat", hyp "the cat ran":
    ROUGE-1 2/3, ROUGE-2 1/2 (the bigram "the cat" of 2), F = P = R."""
    ref = _write(tmp_path / "ref", ["the cat sat"])
    hyp = _write(tmp_path / "hyp", ["the cat ran"])
    result = score(ScoreRequest("rouge", hyp, [ref], rouge_unit="word", rouge_perl=True))
    assert result["implementation"] == "ROUGE-1.5.5 (perl)"
    assert result["score"]["rouge1"] == pytest.approx(200 / 3, abs=0.01)
    assert result["score"]["rouge2"] == pytest.approx(50.0, abs=0.01)


def test_exact_compare_scores_are_percentages(tmp_path):
    """B right on 2 of 4 lines, A on 1 of 4: 50 % and 25 % (the corpus score of exact match is 100 x the mean)."""
    ref = _write(tmp_path / "ref", ["a", "b", "c", "d"])
    b = _write(tmp_path / "b", ["a", "b", "x", "x"])
    a = _write(tmp_path / "a", ["a", "x", "x", "x"])
    test = score(ScoreRequest("exact", b, [ref], compare=a, bootstrap_samples=50))["bootstrap"]
    assert (test["score_b"], test["score_a"], test["samples"]) == (50.0, 25.0, 50)


def test_exact_without_tags_has_no_tag_rows(tmp_path):
    ref = _write(tmp_path / "ref", ["a", "b"])
    result = score(ScoreRequest("exact", ref, [ref]))
    assert result["by_tag"] == {} and result["overall"] == {"count": 2, "top1": 100.0}


@pytest.mark.parametrize("flag", ["nbest", "tags", "groups"])
def test_a_short_side_file_is_named_beside_the_references(tmp_path, flag):
    ref = _write(tmp_path / "ref", ["a", "b", "c"])
    side = {"nbest": [json.dumps({"nbest": ["a"]})], "tags": ["t"], "groups": ["1"]}[flag]
    path = _write(tmp_path / f"short_{flag}", side)
    extra = {"tags": str(tmp_path / "tags3")} if flag == "groups" else {}
    _write(tmp_path / "tags3", ["t", "t", "t"])
    with pytest.raises(CorpusError) as error:
        score(ScoreRequest("exact", ref, [ref], **{flag: path}, **extra))
    assert f"{ref} has 3 lines but {path} has 1" in str(error.value)


def test_an_nbest_whose_first_hypothesis_differs_names_its_line(tmp_path):
    ref = _write(tmp_path / "ref", ["a", "b", "c"])
    hyp = _write(tmp_path / "hyp", ["a", "b", "c"])
    nbest = _write(tmp_path / "nbest", [json.dumps({"nbest": n}) for n in (["a"], ["z", "b"], ["c"])])
    with pytest.raises(CorpusError, match=rf"{nbest}:2: first hypothesis differs from line 2 of {hyp}"):
        score(ScoreRequest("exact", hyp, [ref], nbest=nbest))
    mixed = _write(tmp_path / "mixed", [json.dumps({"nbest": ["a", 3]})])
    with pytest.raises(CorpusError, match=rf"{mixed}:1: \"nbest\" must be a list of strings"):
        score(ScoreRequest("exact", _write(tmp_path / "one", ["a"]), [_write(tmp_path / "r1", ["a"])], nbest=mixed))


def test_rule_interval_uses_the_requested_samples_seed_and_four_decimals(tmp_path):
    """Rules 1 (3 lines, 1 right), 2 (1 line, right), 3 (2 lines, wrong): each resample draws 3 rules with
    numpy's default_rng(seed) and scores right lines / lines drawn; the 2.5th and 97.5th percentiles, rounded to
    4 decimals."""
    ref = _write(tmp_path / "ref", ["a", "b", "c", "d", "e", "f"])
    hyp = _write(tmp_path / "hyp", ["a", "x", "x", "d", "x", "x"])
    tags = _write(tmp_path / "tags", ["t"] * 6)
    groups = _write(tmp_path / "groups", ["1", "1", "1", "2", "3", "3"])
    hits, sizes = np.array([1, 1, 0]), np.array([3, 1, 2])
    for samples, seed in ((200, 5), (300, 11)):
        drawn = np.random.default_rng(seed).integers(0, 3, size=(samples, 3))
        low, high = np.percentile(100.0 * hits[drawn].sum(axis=1) / sizes[drawn].sum(axis=1), [2.5, 97.5])
        result = score(ScoreRequest("exact", hyp, [ref], tags=tags, groups=groups, bootstrap_samples=samples,
                                    seed=seed))
        assert result["by_tag"]["t"]["top1_ci95"] == [round(float(low), 4), round(float(high), 4)]
        if seed == 5:  # low = 13.928571...: 13.9286 at 4 decimals, 13.92857 at 5
            assert result["by_tag"]["t"]["top1_ci95"] != [round(float(low), 5), round(float(high), 5)]


def _project(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "params.yaml").write_text((ROOT / "params.yaml").read_text())


def test_compare_restores_bpe_and_reads_each_split(tmp_path, monkeypatch):
    """Gigaword (BPE, three test splits) on odd generation, each split with its own gold, so that reading another
    split's gold or outputs changes a verdict:
    - test_ours, gold "a b" twice: giga_spm writes "a@@ b" first; restored it is "ab", one token short (odd); left as
      BPE it would be two tokens (not odd). giga_encdec is clean. Clean shares: giga_spm 50 %, giga_encdec 100 %.
    - test_rush, gold "c d e" twice: giga_encdec writes "c d" second (short against this gold, not against
      test_ours's "a b"). giga_spm 100 %, giga_encdec 50 %.
    - test_zhou, gold "f f g" and "h": giga_spm copies them (its "f f" is no repeat beyond this gold, but would be
      against "a b"); giga_encdec writes "h h" second (h once beyond the gold). giga_spm 100 %, giga_encdec 50 %."""
    _project(tmp_path, monkeypatch)
    config = load_config("params.yaml")
    gold = tmp_path / "data/segmented/gigaword.bpe"
    gold.mkdir(parents=True)
    cases = {"test_ours": (["a b", "a b"], ["a@@ b", "a b"], ["a b", "a b"]),
             "test_rush": (["c d e", "c d e"], ["c d e", "c d e"], ["c d e", "c d"]),
             "test_zhou": (["f f g", "h"], ["f f g", "h"], ["f f g", "h h"])}
    assert sorted(cases) == sorted(config.test_splits("gigaword"))
    for split, (target, spm, encdec) in cases.items():
        _write(gold / f"{split}.src", ["x y z", "x y z"])
        _write(gold / f"{split}.tgt", target)
        for experiment, lines in (("giga_spm", spm), ("giga_encdec", encdec)):
            (tmp_path / "runs" / experiment).mkdir(parents=True, exist_ok=True)
            _write(tmp_path / "runs" / experiment / f"{split}.hyp", lines)
    result = compare_experiments(config, "giga_spm", "giga_encdec", "oddgen", samples=40)
    assert (result["experiment"], result["baseline"], result["metric"]) == ("giga_spm", "giga_encdec", "oddgen")
    scores = {split: (r["score_b"], r["score_a"], r["samples"], r["on"]) for split, r in result["splits"].items()}
    assert scores == {"test_ours": (50.0, 100.0, 40, "oddgen"), "test_rush": (100.0, 50.0, 40, "oddgen"),
                      "test_zhou": (100.0, 50.0, 40, "oddgen")}


def test_compare_on_rule_data_takes_the_samples_asked_and_1000_by_default(tmp_path, monkeypatch):
    _project(tmp_path, monkeypatch)
    config = load_config("params.yaml")
    experiment, baseline = "syn_copynet", "syn_rnnsearch"
    directory = tmp_path / "data/prepared" / config.dataset_of(experiment)
    directory.mkdir(parents=True)
    _write(directory / "test.tgt", ["a", "b"])
    for name, lines in ((experiment, ["a", "b"]), (baseline, ["a", "x"])):
        (tmp_path / "runs" / name).mkdir(parents=True)
        _write(tmp_path / "runs" / name / "test.hyp", lines)
    asked = compare_experiments(config, experiment, baseline, "exact", samples=25)["splits"]["test"]
    assert (asked["score_b"], asked["score_a"], asked["samples"], asked["on"]) == (100.0, 50.0, 25, "exact")
    assert compare_experiments(config, experiment, baseline, "exact")["splits"]["test"]["samples"] == 1000


def test_compare_refuses_two_test_sets_and_a_metric_the_dataset_lacks(tmp_path, monkeypatch):
    _project(tmp_path, monkeypatch)
    config = load_config("params.yaml")
    with pytest.raises(ValueError, match=r"giga_spm and syn_rnnsearch are trained on different datasets \(gigaword, "
                                         rf"{config.dataset_of('syn_rnnsearch')}\): paired resampling needs one"):
        compare_experiments(config, "giga_spm", "syn_rnnsearch", "exact")
    with pytest.raises(ValueError, match=r"gigaword is not scored with 'bleu'; allowed values: \['rouge', 'oddgen'\]"):
        compare_experiments(config, "giga_spm", "giga_encdec", "bleu")


def test_compare_names_what_a_rouge_test_resamples(tmp_path, monkeypatch):
    """ROUGE compares on ROUGE-2 (the score file's bootstrap_on), not on the metric's name: the headline stand-in,
    gold "a b c" twice; hs_spm copies it (ROUGE-2 100), hs_encdec writes "a c b" (no shared bigram: 0)."""
    _project(tmp_path, monkeypatch)
    config = load_config("params.yaml")
    gold = tmp_path / "data/prepared/headline_small"
    gold.mkdir(parents=True)
    _write(gold / "test.src", ["a b c d", "a b c d"])
    _write(gold / "test.tgt", ["a b c", "a b c"])
    for name, lines in (("hs_spm", ["a b c", "a b c"]), ("hs_encdec", ["a c b", "a c b"])):
        (tmp_path / "runs" / name).mkdir(parents=True)
        _write(tmp_path / "runs" / name / "test.hyp", lines)
    test = compare_experiments(config, "hs_spm", "hs_encdec", "rouge", samples=20)["splits"]["test"]
    assert (test["score_b"], test["score_a"], test["on"]) == (100.0, 0.0, "rouge2")


def test_rule_interval_rounds_both_bounds_to_four_decimals(tmp_path):
    """Rules 1 (3 lines, 2 right), 2 (2 lines, 1 right), 3 (2 lines, none): no rule is all right, so neither bound
    is a whole number (200 resamples, seed 17: 16.666... and 66.666...)."""
    ref = _write(tmp_path / "ref", ["a", "b", "c", "d", "e", "f", "g"])
    hyp = _write(tmp_path / "hyp", ["a", "b", "x", "d", "x", "x", "x"])
    tags = _write(tmp_path / "tags", ["t"] * 7)
    groups = _write(tmp_path / "groups", ["1", "1", "1", "2", "2", "3", "3"])
    hits, sizes = np.array([2, 1, 0]), np.array([3, 2, 2])
    drawn = np.random.default_rng(17).integers(0, 3, size=(200, 3))
    low, high = np.percentile(100.0 * hits[drawn].sum(axis=1) / sizes[drawn].sum(axis=1), [2.5, 97.5])
    result = score(ScoreRequest("exact", hyp, [ref], tags=tags, groups=groups, bootstrap_samples=200, seed=17))
    low4, high4 = result["by_tag"]["t"]["top1_ci95"]
    assert (low4, high4) == (round(float(low), 4), round(float(high), 4))
    assert low4 != round(float(low), 5) and high4 != round(float(high), 5)
