"""`paragen score`'s wiring that the scoring group's mutation run (docs/development.md) found unpinned: SARI's
--lowercase reaching the source, the output and every reference alike, and a misaligned --src named with the
output it was checked against."""

from __future__ import annotations

import re

import pytest

from paragen.data.corpus import CorpusError
from paragen.scoring.files import ScoreRequest, score

from conftest import write_lines


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
    from paragen.config.datasets import Evaluation
    from paragen.scoring.evaluation import skip_runs
    from paragen.simplification.report_protocol import TurkTest

    write_lines(tmp_path / "test.src", ["a b c", "d e f"])
    write_lines(tmp_path / "test.tgt", ["a b", "d e"])
    turk = TurkTest(["a b c", "d e f", "g h"], [["a b", "d e", "g"]] * 8, ["a b", "d e", "g"])
    runs = skip_runs(Evaluation(metrics=["bleu"]), str(tmp_path), [(0.5, 7)], protocol=turk)
    with pytest.raises(CorpusError, match=re.escape("skip output, seed 7: 2 lines, but the Turk test set has 3")):
        next(runs)


def _bpe_skip(tmp_path, monkeypatch, **skip_spec):
    """simp_skip (p = 0: its output is the source) on a one-sentence Turk-like set segmented with BPE, its output
    written where `paragen system` puts it."""
    from test_systems import bpe_turk

    monkeypatch.chdir(tmp_path)
    raw = bpe_turk(tmp_path, probability=0.0, sweep=[], **skip_spec)
    run = tmp_path / "runs/simp_skip"
    run.mkdir(parents=True)
    (run / "test.hyp").write_text("the re@@ cip@@ ient passed away today\n")
    return raw


def test_evaluate_restores_bpe_for_one_seed_and_keeps_a_systems_single_test_split(tmp_path, monkeypatch):
    """One seed: the output file is scored as written, its "@@ " joins undone first (BLEU 100 against the word
    reference; the BPE tokens would give under 50: tests/test_systems.py). The dataset also lists valid among its
    test splits, but a system writes only test.hyp: its result stays one flat test result, with no per-seed block."""
    from paragen.config.loading import parse_config
    from paragen.scoring.evaluation import evaluate_experiment

    raw = _bpe_skip(tmp_path, monkeypatch, seeds=1)
    raw["datasets"]["turk"]["test_splits"] = ["test", "valid"]
    result = evaluate_experiment(parse_config(raw), "simp_skip")
    assert result["bleu"]["score"] == pytest.approx(100.0)
    assert "splits" not in result and "per_seed" not in result and result["count"] == 1


def test_evaluate_averages_a_skip_row_over_two_seeds(tmp_path, monkeypatch):
    """Two seeds are the smallest number that makes the row a mean over seeds (the per-seed block)."""
    from paragen.config.loading import parse_config
    from paragen.scoring.evaluation import evaluate_experiment

    result = evaluate_experiment(parse_config(_bpe_skip(tmp_path, monkeypatch, seeds=2)), "simp_skip")
    assert result["per_seed"]["seeds"] == [1, 2] and result["bleu"]["score"] == pytest.approx(100.0)


def test_evaluate_refuses_a_rule_data_experiment_and_names_the_command_that_scores_it():
    from paragen.config import load_config
    from paragen.scoring.evaluation import evaluate_experiment

    from conftest import ROOT

    with pytest.raises(CorpusError) as refused:
        evaluate_experiment(load_config(ROOT / "params.yaml"), "syn_rnnsearch")
    assert str(refused.value) == ("syn_rnnsearch: `paragen evaluate` scores real-data and headline stand-in "
                                  "experiments; rule-data ones use `paragen score --metric exact`")
