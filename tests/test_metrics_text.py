"""BLEU, SARI, ROUGE, odd-generation and bootstrap on cases small enough to check by hand."""

import json

import numpy as np
import pytest

from paragen.cli import main
from paragen.metrics.bleu import corpus_bleu, score_from_statistics, sentence_statistics
from paragen.metrics.bootstrap import paired_bootstrap
from paragen.metrics.oddgen import odd_generation, repeats, shortfall
from paragen.metrics.rouge import corpus_rouge
from paragen.metrics.sari import corpus_sari


# --- SARI: values worked out by hand from Xu et al.'s definition (see the comments) -------------

def test_sari_single_reference_by_hand():
    # S = "a b", O = "a c", R = "a c".
    # n=1: add {c}: P=R=1; keep {a}: P=R=1; delete {b}: P=R=1.  n=2: add {(a,c)}: 1; keep: nothing -> 0;
    # delete {(a,b)}: 1.  n=3,4: nothing -> 0.  add (1+1)/4, keep 1/4, delete (1+1)/4 -> (50+25+50)/3.
    score = corpus_sari(["a b"], ["a c"], [["a c"]], mode="legacy")
    assert (score.add, score.keep, score.delete) == pytest.approx((50.0, 25.0, 50.0))
    assert score.sari == pytest.approx(125 / 3)


def test_sari_weights_keep_and_delete_by_reference_count():
    # S = "a b", O = "a", refs "a" and "a b" (k = 2).  n=1: keep: output keeps a x2, refs keep a x2 + b x1:
    # P = 2/2, R = 2/3, F1 = 0.8; delete: output deletes b x2, refs delete b x1: P = 1/2, R = 1, F1 = 2/3.
    # n=2: keep: P = 0 -> 0; delete: (a,b) x2 vs x1 -> F1 = 2/3.  add is empty everywhere.
    score = corpus_sari(["a b"], ["a"], [["a"], ["a b"]], mode="legacy")
    assert score.add == 0.0
    assert score.keep == pytest.approx(100 * 0.8 / 4)
    assert score.delete == pytest.approx(100 * (2 / 3 + 2 / 3) / 4)
    assert score.sari == pytest.approx((20 + 100 / 3) / 3)


def test_sari_modes_differ_only_in_preprocessing():
    # legacy leaves the source as it is: "A" never matches the output's "a", so nothing is kept:
    # add {a, c} 1 and {(a,c)} 1, delete {A, b} 1 and {(A,b)} 1, keep 0 -> (50 + 0 + 50) / 3.
    legacy = corpus_sari(["A b"], ["a c"], [["a c"]], mode="legacy")
    assert legacy.sari == pytest.approx(100 / 3)
    # easse lowercases everything, which gives back the first hand-worked case.
    assert corpus_sari(["A b"], ["a c"], [["a c"]], mode="easse").sari == pytest.approx(125 / 3)
    # Both 13a-tokenise the output: "c." becomes "c ."; the source is tokenised only in easse mode.
    assert corpus_sari(["a b"], ["a c."], [["a c ."]], mode="legacy").add == pytest.approx(
        corpus_sari(["a b"], ["a c ."], [["a c ."]], mode="legacy").add)
    with pytest.raises(ValueError, match="allowed: legacy, easse"):
        corpus_sari(["a"], ["a"], [["a"]], mode="joshua")


def test_sari_is_corpus_level_not_a_mean_of_sentences():
    sources, outputs, refs = ["a b", "c d e"], ["a c", "c d e"], [["a c", "c e"]]
    corpus = corpus_sari(sources, outputs, refs).sari
    mean = np.mean([corpus_sari([s], [o], [[r]]).sari for s, o, r in zip(sources, outputs, refs[0])])
    assert corpus != pytest.approx(mean)


# --- BLEU ----------------------------------------------------------------------------------------

def test_bleu_signature_references_and_statistics():
    hyps = ["The cat sat on the mat", "a dog"]
    refs = [["the cat sat on a mat", "the dog"], ["a cat is on the mat", "a dog ."]]
    lower = corpus_bleu(hyps, refs, lowercase=True)
    assert "nrefs:2" in lower.signature and "case:lc" in lower.signature and "tok:13a" in lower.signature
    assert corpus_bleu(hyps, refs, lowercase=False).score < lower.score
    assert corpus_bleu(["a b c d"], [["a b c d"]]).score == pytest.approx(100.0)
    stats, metric = sentence_statistics(hyps, refs)
    assert score_from_statistics(metric, stats.sum(axis=0)) == pytest.approx(lower.score)


# --- ROUGE ---------------------------------------------------------------------------------------

def test_rouge_keeps_chinese_characters():
    # hyp 7 characters, ref 4, all 4 shared: R1 F1 = 2*(4/7)*1/(4/7+1) = 8/11; bigrams 3 of 6 -> 2/3.
    score = corpus_rouge(["我 爱 北京 天安门"], ["我爱北京"], unit="char")
    assert score.rouge1 == pytest.approx(800 / 11)
    assert score.rouge2 == pytest.approx(200 / 3)
    assert score.rougeL == pytest.approx(800 / 11)
    assert corpus_rouge(["我 爱 北京 天安门"], ["我爱北京"], unit="word").rouge1 == 0.0  # the trap avoided


def test_rouge_words_and_stemming():
    plain = corpus_rouge(["police killed the gunman"], ["police kill gunman"])
    stemmed = corpus_rouge(["police killed the gunman"], ["police kill gunman"], stem=True)
    assert plain.rouge1 == pytest.approx(100 * 2 * (2 / 4) * (2 / 3) / (2 / 4 + 2 / 3))
    assert stemmed.rouge1 > plain.rouge1


# --- odd generation ------------------------------------------------------------------------------

def test_odd_generation_counts():
    assert repeats("the the the cat".split(), "the cat".split()) == 2
    assert repeats("a b a b".split(), "a b a".split()) == 1  # a repeats as in the reference; b once too many
    assert shortfall("a".split(), "a b c".split()) == 2 and shortfall("a b c d".split(), "a".split()) == 0
    counts = odd_generation([["x", "x"], ["y"], ["z", "w"]], [["x"], ["y", "q", "r"], ["z"]])
    assert counts.as_dict() == {"sentences": 3, "sentences_with_repeats": 1, "sentences_short": 1,
                                "repeated_tokens": 1, "missing_tokens": 2}


# --- bootstrap -----------------------------------------------------------------------------------

def test_paired_bootstrap_p_values():
    a = np.array([[0.0]] * 50 + [[1.0]] * 50)
    better = np.array([[1.0]] * 100)
    mean = lambda rows: float(rows.mean())  # noqa: E731
    assert paired_bootstrap(a, better, mean, samples=200).p_value == 0.0
    assert paired_bootstrap(a, a, mean, samples=200).p_value == 1.0
    result = paired_bootstrap(better, a, mean, samples=200, seed=3)
    assert result.p_value == 1.0 and result.score_a == 1.0 and result.score_b == 0.5
    with pytest.raises(ValueError, match="differ in length"):
        paired_bootstrap(a, a[:10], mean)


# --- the CLI -------------------------------------------------------------------------------------

def _write(path, lines):
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


def test_cli_rouge_json_last_line(tmp_path, capsys):
    ref = _write(tmp_path / "ref", ["我爱北京", "今天天气很好"])
    hyp = _write(tmp_path / "hyp", ["我 爱 北京 天安门", "今天 天气 好"])
    assert main(["score", "--metric", "rouge", "--rouge-unit", "char", "--ref", ref, "--hyp", hyp, "--json"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["metric"] == "rouge" and set(result["score"]) == {"rouge1", "rouge2", "rougeL"}
    assert 0 < result["score"]["rouge1"] <= 100


def test_cli_sari_with_several_references_and_bootstrap(tmp_path, capsys):
    src = _write(tmp_path / "src", ["a b c", "d e f"])
    refs = [_write(tmp_path / f"ref{i}", ["a c", "d f"]) for i in range(3)]
    good = _write(tmp_path / "good", ["a c", "d f"])
    bad = _write(tmp_path / "bad", ["a b c", "d e f"])
    args = ["score", "--metric", "sari", "--src", src, "--hyp", good, "--compare", bad, "--bootstrap", "100",
            "--json"]
    for ref in refs:
        args += ["--ref", ref]
    assert main(args) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["mode"] == "legacy" and result["references"] == 3
    assert result["bootstrap"]["score_b"] > result["bootstrap"]["score_a"]
    assert result["bootstrap"]["p_value"] == 0.0


def test_cli_requires_source_for_sari(tmp_path, capsys):
    ref = _write(tmp_path / "ref", ["a"])
    assert main(["score", "--metric", "sari", "--ref", ref, "--hyp", ref]) == 2
    assert "--src is required for sari" in capsys.readouterr().err


def test_cli_oddgen_writes_data_and_chart(tmp_path, capsys):
    ref = _write(tmp_path / "ref", ["police arrest suspect", "stocks fall sharply"])
    a = _write(tmp_path / "a", ["police police arrest", "stocks"])
    b = _write(tmp_path / "b", ["police arrest suspect", "stocks fall"])
    assert main(["oddgen", "--ref", ref, "--system", f"EncDec={a}", "--system", f"SPM={b}",
                 "--out", str(tmp_path / "odd")]) == 0
    counts = json.loads((tmp_path / "odd.json").read_text())
    assert counts["EncDec"]["sentences_with_repeats"] == 1 and counts["EncDec"]["sentences_short"] == 1
    assert counts["SPM"]["sentences_with_repeats"] == 0 and counts["SPM"]["sentences_short"] == 1
    assert (tmp_path / "odd.png").stat().st_size > 0
    with pytest.raises(SystemExit) as exit_:  # argparse: "argument --system: nameless: expected NAME=FILE"
        main(["oddgen", "--ref", ref, "--system", "nameless", "--out", str(tmp_path / "x")])
    assert exit_.value.code == 2


def test_remove_bpe_restores_words_before_scoring(tmp_path, capsys):
    from paragen.scoring.files import restore_bpe

    assert restore_bpe("head@@ line news") == "headline news"
    assert restore_bpe("ends with@@") == "ends with"
    ref = _write(tmp_path / "ref", ["police arrest suspect"])
    hyp = _write(tmp_path / "hyp", ["pol@@ ice arr@@ est sus@@ pect"])
    assert main(["score", "--metric", "rouge", "--ref", ref, "--hyp", hyp, "--remove-bpe", "--json"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["score"]["rouge1"] == pytest.approx(100.0)

