"""Rows without training (003 Table 1): their configuration, their stages, and a run through the real CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import sacrebleu
import yaml

from paragen.pipeline import plan
from paragen.cli import main
from paragen.config import ConfigError, parse_config
from paragen.data.corpus import CorpusError

from conftest import ROOT


def _project(**changes) -> dict:
    raw = yaml.safe_load((ROOT / "params.yaml").read_text())
    raw.update(changes)
    return raw


def _simplification(**changes):
    return parse_config(_project(suites=["simplification"], data=["turk"], **changes))


def test_systems_get_a_compute_and_an_evaluate_stage_and_no_training():
    config = _simplification()
    stages = {s.name: s for s in plan.stages(config)}
    assert config.active_systems() == ["simp_identity", "simp_skip", "simp_ppdb_word", "simp_ppdb_phrase",
                                       "simp_ppdb_both", "simp_oracle"]
    assert config.active_experiments() == []
    word = stages["system_simp_ppdb_word"]
    assert word.cmd == "paragen system --params params.yaml --name simp_ppdb_word"
    assert word.deps == ("data/segmented/turk.word", "data/raw/ppdb/.complete-eval.json")
    assert word.params == ("systems.simp_ppdb_word", "rules.ppdb_lexical")
    assert stages["evaluate_simp_ppdb_word"].deps[0] == "runs/simp_ppdb_word/test.hyp"
    assert stages["fetch_ppdb"].cmd.startswith("paragen fetch ppdb --eval-only")
    # the Turk files as distributed (003's identity BLEU is given back only by them); WikiLarge is stripped
    assert stages["prepare_turk"].cmd == "paragen prepare turk --split valid --split test --max-line-chars 4000"
    assert config.datasets["wikilarge"].strip_specials
    # 003's protocol reads the raw Turk files: evaluation waits for their fetch
    assert "data/raw/turkcorpus/.complete-eval.json" in stages["evaluate_simp_identity"].deps
    report = stages["report_simplification"]
    assert not any(p.endswith(".png") for p in report.outs)  # no trained row: no curves
    assert not any(s.startswith("train_") for s in stages)


def test_without_the_dataset_the_rows_do_not_run():
    config = parse_config(_project(suites=["simplification"]))
    assert config.active_systems() == []
    assert "fetch_ppdb" not in {s.name for s in plan.stages(config)}


def _with_system(name: str, spec: dict, table_row: bool = True) -> dict:
    raw = _project(suites=["simplification"], data=["turk"])
    raw["systems"][name] = spec
    if table_row:
        raw["tables"]["simplification"]["rows"][name] = name
    return raw


def test_a_system_rewriting_another_rows_output_depends_on_it():
    raw = _with_system("simp_identity_ppdb", {"dataset": "turk", "method": "paraphrase", "rules": "ppdb_lexical",
                                              "input": "simp_skip"})
    config = parse_config(raw)
    stage = {s.name: s for s in plan.stages(config)}["system_simp_identity_ppdb"]
    assert "runs/simp_skip/test.hyp" in stage.deps


@pytest.mark.parametrize("name, spec, message", [
    ("x", {"dataset": "turk", "method": "paraphrase"}, "method paraphrase needs rules"),
    ("x", {"dataset": "turk", "method": "identity", "rules": "ppdb_lexical"}, "rules and input apply to method "
                                                                              "paraphrase, not identity"),
    ("x", {"dataset": "turk", "method": "paraphrase", "rules": "ppdb"}, "systems.x.rules: unknown rules 'ppdb'"),
    ("x", {"dataset": "synthetic_small", "method": "identity"}, "systems.x.dataset: 'synthetic_small' is not a "
                                                               "real dataset with a test split"),
    ("x", {"dataset": "turk", "method": "skip", "probability": 1.5}, "less than or equal to 1"),
    ("x", {"dataset": "turk", "method": "paraphrase", "rules": "ppdb_lexical", "input": "nothing"},
     "systems.x.input: 'nothing' is neither 'source' nor an experiment or system"),
    ("x", {"dataset": "turk", "method": "paraphrase", "rules": "ppdb_lexical", "input": "x"},
     "the inputs form a cycle: x -> x"),
    ("syn_copynet", {"dataset": "turk", "method": "identity"}, "also named under experiments"),
    ("x", {"dataset": "turk", "method": "paraphrase", "rules": "ppdb_lexical", "input": "mini_wean"},
     "'mini_wean' decodes the test set of dataset 'turk_mini', not 'turk'"),
    ("x", {"dataset": "turk", "method": "skip", "sweep": [0.1, 0.2, 0.1]}, "[0.1] listed more than once"),
    ("x", {"dataset": "turk", "method": "skip", "vocabulary_only": True},
     "vocabulary_only applies to method identity, not skip"),
])
def test_bad_systems_are_named(name, spec, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        parse_config(_with_system(name, spec))


def test_a_cycle_through_two_systems_is_named():
    raw = _with_system("a", {"dataset": "turk", "method": "paraphrase", "rules": "ppdb_lexical", "input": "b"})
    raw["systems"]["b"] = {"dataset": "turk", "method": "paraphrase", "rules": "ppdb_lexical", "input": "a"}
    with pytest.raises(ConfigError, match="the inputs form a cycle: a -> b -> a"):
        parse_config(raw)


def _tiny_turk(root: Path) -> None:
    """A segmented Turk-like test set (2 sentences, 2 references) and a PPDB pairs file, where the DAG puts them."""
    test = root / "data/segmented/turk.word"
    test.mkdir(parents=True)
    (test / "test.src").write_text("the recipient passed away\nit was commenced in 1990\n")
    (test / "test.ref.0").write_text("the winner died\nit began in 1990\n")
    (test / "test.ref.1").write_text("the winner passed away\nit started in 1990\n")
    (test / "segment.json").write_text("{}")
    rules = root / "data/raw/ppdb"
    rules.mkdir(parents=True)
    (rules / "ppdb-1.0-xxxl-lexical.synonyms.tsv").write_text("recipient\twinner\ncommenced\tbegan\n")
    raw = root / "data/raw/turkcorpus"  # the files as distributed, which 003's protocol scores against
    raw.mkdir(parents=True)
    (raw / "test.8turkers.tok.norm").write_text((test / "test.src").read_text())
    (raw / "test.8turkers.tok.simp").write_text("the winner died .\nit started in 1990 .\n")
    for k in range(8):
        (raw / f"test.8turkers.tok.turk.{k}").write_text((test / f"test.ref.{k % 2}").read_text())


def test_system_and_evaluate_through_the_cli(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    _tiny_turk(tmp_path)
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(_project(suites=["simplification"], data=["turk"])))
    for name in ("simp_identity", "simp_ppdb_word", "simp_ppdb_phrase", "simp_oracle"):
        assert main(["system", "--name", name]) == 0
    assert Path("runs/simp_identity/test.hyp").read_text() == "the recipient passed away\nit was commenced in 1990\n"
    assert Path("runs/simp_ppdb_word/test.hyp").read_text() == "the winner passed away\nit was began in 1990\n"
    assert Path("runs/simp_ppdb_phrase/test.hyp").read_text() == Path("data/segmented/turk.word/test.src").read_text()
    assert Path("runs/simp_oracle/test.hyp").read_text() == "the winner died\nit began in 1990\n"
    assert main(["evaluate", "--experiment", "simp_oracle"]) == 0
    metrics = json.loads(Path("results/metrics/simp_oracle.json").read_text())
    assert (metrics["count"], metrics["references"]) == (2, 1)  # each output against the one other reference
    ref0, ref1 = ([line.strip() for line in open(f"data/segmented/turk.word/test.ref.{k}")] for k in (0, 1))
    expected = (sacrebleu.corpus_bleu(ref0, [ref1], lowercase=True).score
                + sacrebleu.corpus_bleu(ref1, [ref0], lowercase=True).score) / 2
    assert metrics["bleu"]["score"] == pytest.approx(expected)  # leave-one-out, not 100 (itself)
    assert metrics["bleu"]["score"] < 100
    # 003's protocol: the oracle is the .simp sentence, BLEU against itself
    assert metrics["report_protocol"]["bleu"]["score"] == pytest.approx(100.0)
    assert main(["system", "--name", "nope"]) == 2
    assert "unknown system 'nope'" in capsys.readouterr().err


def test_a_malformed_rule_file_is_named_with_its_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    _tiny_turk(tmp_path)
    (tmp_path / "data/raw/ppdb/ppdb-1.0-xxxl-lexical.synonyms.tsv").write_text("recipient\twinner\nbroken line\n")
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(_project(suites=["simplification"], data=["turk"])))
    assert main(["system", "--name", "simp_ppdb_word"]) == 2
    assert "data/raw/ppdb/ppdb-1.0-xxxl-lexical.synonyms.tsv:2: expected 2 tab-separated fields" \
        in capsys.readouterr().err
    assert not Path("runs/simp_ppdb_word/test.hyp").exists()


def test_skip_sweep_scores_every_probability_over_its_seeds(tmp_path, monkeypatch):
    import csv

    monkeypatch.chdir(tmp_path)
    _tiny_turk(tmp_path)
    raw = _project(suites=["simplification"], data=["turk"])
    raw["systems"]["simp_skip"].update(sweep=[0.0, 1.0], seeds=3)
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(raw))
    assert main(["system", "--name", "simp_identity"]) == 0
    assert main(["evaluate", "--experiment", "simp_identity"]) == 0
    identity = json.loads(Path("results/metrics/simp_identity.json").read_text())
    assert main(["skip-sweep", "--name", "simp_skip", "--quiet"]) == 0
    with open("results/tables/simp_skip_sweep.csv", newline="") as handle:
        rows = {float(r["probability"]): r for r in csv.DictReader(handle)}
    assert rows[0.0]["seeds"] == "3"
    # p = 0 keeps every word: each seed gives the identity's scores, so sd 0
    assert float(rows[0.0]["sari_mean"]) == pytest.approx(identity["sari"]["score"], abs=1e-4)
    assert float(rows[0.0]["bleu_mean"]) == pytest.approx(identity["bleu"]["score"], abs=1e-4)
    assert float(rows[0.0]["sari_sd"]) == 0.0
    # both protocols: at p = 0 003's protocol gives the identity's 003 scores
    assert float(rows[0.0]["sari_003_mean"]) == pytest.approx(identity["report_protocol"]["sari"]["score"], abs=1e-4)
    assert float(rows[0.0]["bleu_003_mean"]) == pytest.approx(identity["report_protocol"]["bleu"]["score"], abs=1e-4)
    # p = 1 drops every word: empty outputs have no n-gram in common with anything
    assert float(rows[1.0]["bleu_mean"]) == 0.0 and float(rows[1.0]["bleu_003_mean"]) == 0.0
    assert Path("results/figures/simp_skip_sweep.png").stat().st_size > 0
    markdown = Path("results/tables/simp_skip_sweep.md").read_text()
    assert "| 1 | " in markdown and "Against 003 §4.3.1" in markdown
    assert main(["skip-sweep", "--name", "simp_identity"]) == 2  # not a skip system with a sweep


def test_the_sweep_says_where_it_agrees_with_the_reports_trend():
    """003 §4.3.1: scores rise as p falls. Hand-made means: BLEU 1, 5, 9 at p = 0.9, 0.5, 0 rises at every step;
    SARI 18, 27, 22 peaks at p = 0.5 and falls to 22 at p = 0."""
    from paragen.simplification.skip_sweep import trend_text

    results = {0.0: {"sari": [22.0, 22.0], "bleu": [9.0, 9.0]}, 0.5: {"sari": [26.0, 28.0], "bleu": [5.0, 5.0]},
               0.9: {"sari": [18.0, 18.0], "bleu": [1.0, 1.0]}}
    assert trend_text(results) == ("SARI peaks at p = 0.5 (27.00) and falls below it, to 22.00 at p = 0 (disagrees "
                                   "for p < 0.5); BLEU rises at every step as p falls from 0.9 to 0 (agrees).")
    # highest at the lowest p but not rising at every step: 18, 27, 26, 28 at p = 0.9, 0.5, 0.3, 0
    results = {p: {"sari": [v]} for p, v in ((0.0, 28.0), (0.3, 26.0), (0.5, 27.0), (0.9, 18.0))}
    assert trend_text(results) == ("SARI is highest at the lowest p (0) but does not rise at every step (agrees "
                                   "overall).")


def test_the_sweep_figure_puts_each_metric_on_its_own_axes_and_marks_the_reports_point():
    from paragen import figure_style
    from paragen.simplification.skip_sweep import sweep_figure

    results = {p: {"sari": [20.0 + p], "bleu": [10 - p], "sari_003": [19.0 + p], "bleu_003": [9 - p]}
               for p in (0.0, 0.5, 1.0)}
    fig = sweep_figure("simp_skip", results, (0.5, {"sari": 21.62, "bleu": 8.97}))
    sari, bleu = [ax for ax in fig.axes if ax.get_visible()]
    assert (sari.get_title(), bleu.get_title()) == ("SARI", "BLEU")
    assert fig.get_size_inches()[0] == figure_style.PAGE_WIDTH_IN
    stars = [line for line in sari.lines if line.get_marker() == "*"]
    assert [(list(s.get_xdata()), list(s.get_ydata())) for s in stars] == [([0.5], [21.62])]
    stars = [line for line in bleu.lines if line.get_marker() == "*"]
    assert [(list(s.get_xdata()), list(s.get_ydata())) for s in stars] == [([0.5], [8.97])]
    labels = {t.get_text() for t in fig.legends[0].get_texts()}
    assert {"standard scoring", "003's protocol", "003 Table 1 (p = 0.5)"} <= labels
    low, high = bleu.get_ylim()
    assert low < 8.0 and high > 10.0  # 003's BLEU at p = 1 (8.0) and the standard one at p = 0 (10.0) both shown


def test_the_skip_row_is_the_mean_over_its_seeds(tmp_path, monkeypatch):
    from paragen.simplification.systems import skip

    monkeypatch.chdir(tmp_path)
    _tiny_turk(tmp_path)
    raw = _project(suites=["simplification"], data=["turk"])
    raw["systems"]["simp_skip"].update(probability=0.4, seed=5, seeds=3, sweep=[])
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(raw))
    assert main(["system", "--name", "simp_skip"]) == 0
    assert main(["evaluate", "--experiment", "simp_skip"]) == 0
    metrics = json.loads(Path("results/metrics/simp_skip.json").read_text())
    sources = Path("data/segmented/turk.word/test.src").read_text().splitlines()
    refs = [Path(f"data/segmented/turk.word/test.ref.{k}").read_text().splitlines() for k in (0, 1)]
    per_seed = [sacrebleu.corpus_bleu(skip(sources, 0.4, seed), refs, lowercase=True).score for seed in (5, 6, 7)]
    assert metrics["per_seed"]["seeds"] == [5, 6, 7]
    assert metrics["per_seed"]["bleu"] == pytest.approx(per_seed)
    assert metrics["bleu"]["score"] == pytest.approx(sum(per_seed) / 3)
    assert metrics["count"] == 2 and isinstance(metrics["count"], int)
    # 003's protocol (corpus BLEU, tokenize none, lowercased, against the .simp file) is averaged over the same
    # seeds, not read from the first seed's output file
    simp = Path("data/raw/turkcorpus/test.8turkers.tok.simp").read_text().splitlines()
    protocol = [sacrebleu.corpus_bleu(skip(sources, 0.4, seed), [simp], lowercase=True, tokenize="none").score
                for seed in (5, 6, 7)]
    assert len(set(protocol)) > 1  # so that the first seed's value is not the mean
    assert metrics["report_protocol"]["bleu"]["score"] == pytest.approx(sum(protocol) / 3)
    assert len(metrics["per_seed"]["sari"]) == 3
    assert metrics["bleu"]["hyp"] == "runs/simp_skip/test.hyp and seeds 6..7 computed in memory"
    assert metrics["report_protocol"]["output"] == metrics["sari"]["hyp"] == metrics["bleu"]["hyp"]
    assert metrics["skip"] == "mean over the outputs of seeds 5..7 (each word dropped with p = 0.4)"


def bpe_turk(root: Path, **skip_spec) -> dict:
    """A one-sentence Turk-like test set segmented with BPE (your own data), where the DAG puts it, and the params
    that score simp_skip (``skip_spec`` updated) on it by BLEU alone."""
    raw = _project(suites=["simplification"], data=["turk"])
    raw["datasets"]["turk"].update(segmentation="bpe", merges=10, evaluation={"metrics": ["bleu"]})
    raw["systems"]["simp_skip"].update(skip_spec)
    test = root / "data/segmented/turk.bpe"
    test.mkdir(parents=True)
    (test / "test.src").write_text("the re@@ cip@@ ient passed away today\n")
    (test / "test.tgt").write_text("the recipient passed away today\n")
    return raw


def test_the_skip_row_over_seeds_restores_bpe_before_scoring(tmp_path, monkeypatch):
    """A skip row over seeds on BPE data (your own Turk-like set segmented with BPE): with p = 0 every seed returns
    the source, whose "@@ " joins must be undone before BLEU against the word references, as for one seed."""
    monkeypatch.chdir(tmp_path)
    raw = bpe_turk(tmp_path, probability=0.0, seeds=2, sweep=[])
    from paragen.scoring.evaluation import evaluate_skip_seeds

    result = evaluate_skip_seeds(parse_config(raw), "simp_skip")
    assert result["bleu"]["score"] == pytest.approx(100.0)
    unrestored = sacrebleu.corpus_bleu(["the re@@ cip@@ ient passed away today"], [["the recipient passed away today"]])
    assert unrestored.score < 50  # what scoring the BPE tokens would give


def test_leave_one_out_oracle_worked_by_hand(tmp_path):
    from paragen.config import Evaluation
    from paragen.scoring.evaluation import evaluate_leave_one_out

    # sentence 1: references "a b c d", "a b c d", "a b c e"; sentence 2: "w x y z" three times.
    # k = 0 and k = 1 meet an identical reference: BLEU 100. k = 2 ("a b c e", "w x y z") against the others:
    # matches 1-grams 3+4 of 8, 2-grams 2+3 of 6, 3-grams 1+2 of 4, 4-grams 0+1 of 2, lengths 8 = 8 (no penalty).
    (tmp_path / "test.src").write_text("a b c f\nw x y q\n")
    for k, first in enumerate(["a b c d", "a b c d", "a b c e"]):
        (tmp_path / f"test.ref.{k}").write_text(f"{first}\nw x y z\n")
    result = evaluate_leave_one_out(Evaluation(metrics=["bleu"]), str(tmp_path))
    third = 100 * (7 / 8 * 5 / 6 * 3 / 4 * 1 / 2) ** 0.25
    assert result["bleu"]["score"] == pytest.approx((100 + 100 + third) / 3)
    assert result["references"] == 2
    assert result["oracle"] == ("leave-one-out: each of the 3 references scored against the other 2, metrics "
                                "averaged over the references")
    for k in (1, 2):
        (tmp_path / f"test.ref.{k}").unlink()
    with pytest.raises(CorpusError, match=rf"{tmp_path}: a leave-one-out oracle needs at least 2 references of "
                                          "test, found 1"):
        evaluate_leave_one_out(Evaluation(metrics=["bleu"]), str(tmp_path))


def test_the_in_vocabulary_identity_writes_unknown_words_as_unk_and_depends_on_the_vocabulary(tmp_path, monkeypatch):
    """turk-mini's ceiling rows (decision T10): "passed" and "1990" are not in the vocabulary written below, so they
    become <unk>; every other token is copied. The stage reads the vocabulary, so both engines must know it."""
    raw = _project(suites=["turk_mini"], data=["turk_mini"])
    stage = next(s for s in plan.stages(parse_config(raw)) if s.name == "system_mini_identity_vocabulary")
    assert "data/vocab/turk_mini.word/vocab.txt" in stage.deps
    monkeypatch.chdir(tmp_path)
    test = tmp_path / "data/segmented/turk_mini.word"
    test.mkdir(parents=True)
    (test / "test.src").write_text("the recipient passed away\nit was commenced in 1990\n")
    vocab = tmp_path / "data/vocab/turk_mini.word"
    vocab.mkdir(parents=True)
    (vocab / "vocab.txt").write_text("<pad>\n<unk>\n<s>\n</s>\nthe\nrecipient\naway\nit\nwas\ncommenced\nin\n")
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(raw))
    assert main(["system", "--name", "mini_identity_vocabulary"]) == 0
    assert Path("runs/mini_identity_vocabulary/test.hyp").read_text() == \
        "the recipient <unk> away\nit was commenced in <unk>\n"


def test_leave_one_out_reads_the_split_it_is_given_and_adds_003s_own_oracle(tmp_path, monkeypatch):
    """The valid split's references differ from test's: valid "p q r s" twice (each the other's copy: BLEU 100),
    test "a b c d" and "a b c e" (either against the other: 1-grams 3/4, 2-grams 2/3, 3-grams 1/2, 4-grams 0/1,
    which sacrebleu's default 'exp' smoothing counts as 1/2: BLEU = 100 (3/4 · 2/3 · 1/2 · 1/2)^(1/4) = 59.46,
    lengths equal). With 003's protocol on, the result also carries that protocol's oracle (the .simp sentence),
    under its own key."""
    from paragen.config import Evaluation
    from paragen.scoring import evaluation as scoring_evaluation
    import paragen.simplification.report_protocol as report_protocol

    for split, lines in (("valid", ["p q r s", "p q r s"]), ("test", ["a b c d", "a b c e"])):
        (tmp_path / f"{split}.src").write_text("x y z\n")
        for k, line in enumerate(lines):
            (tmp_path / f"{split}.ref.{k}").write_text(line + "\n")
    valid = scoring_evaluation.evaluate_leave_one_out(Evaluation(metrics=["bleu"]), str(tmp_path), split="valid")
    test = scoring_evaluation.evaluate_leave_one_out(Evaluation(metrics=["bleu"]), str(tmp_path), split="test")
    assert valid["bleu"]["score"] == pytest.approx(100.0)
    assert test["bleu"]["score"] == pytest.approx(100 * (3 / 4 * 2 / 3 * 1 / 2 * 1 / 2) ** 0.25)
    # SARI reads the split's source: the valid result moves when valid.src does, and only then
    sari = Evaluation(metrics=["sari"])
    before = scoring_evaluation.evaluate_leave_one_out(sari, str(tmp_path), split="valid")["sari"]["score"]
    (tmp_path / "valid.src").write_text("p q r s\n")  # the source now equals the references: nothing to delete
    after = scoring_evaluation.evaluate_leave_one_out(sari, str(tmp_path), split="valid")["sari"]["score"]
    assert before != pytest.approx(after)
    asked = []
    monkeypatch.setattr(report_protocol, "score_file", lambda hyp, oracle=False: asked.append(oracle) or {"sari": 1.5})
    result = scoring_evaluation.evaluate_leave_one_out(Evaluation(metrics=["bleu"], report_protocol=True),
                                                       str(tmp_path), split="valid")
    assert result["report_protocol"] == {"sari": 1.5} and asked == [True]
