import json

import pytest

from paragen.cli import main
from paragen.data.corpus import CorpusError
from paragen.metrics.exact import accuracy_by_tag, exact_match, top_k_accuracy
from paragen.scoring.files import ScoreRequest, score


def test_exact_match_and_top_k():
    refs = [["a", "b"], ["c"], ["d", "e"], ["f"]]
    hyps = [["a", "b"], ["c", "c"], ["d", "e"], []]
    assert exact_match(hyps, refs) == 50.0
    nbest = [[["a", "b"]], [["c", "c"], ["c"]], [["x"], ["y"], ["d", "e"]], [[]]]
    assert top_k_accuracy(nbest, refs, 1) == 25.0
    assert top_k_accuracy(nbest, refs, 2) == 50.0
    assert top_k_accuracy(nbest, refs, 3) == 75.0
    by_tag = accuracy_by_tag(nbest, refs, ["p", "p", "q", "q"], ks=(1, 3))
    assert by_tag["p"] == {"count": 2, "top1": 50.0, "top3": 100.0}
    assert by_tag["q"] == {"count": 2, "top1": 0.0, "top3": 50.0}
    assert by_tag["all"]["top3"] == 75.0


def _write(path, lines):
    path.write_text("".join(line + "\n" for line in lines))
    return path


def test_score_files_and_cli_json(tmp_path, capsys):
    ref = _write(tmp_path / "ref", ["a b", "c", "d"])
    hyp = _write(tmp_path / "hyp", ["a b", "x", "d"])
    tags = _write(tmp_path / "tag", ["t1", "t2", "t2"])
    nbest = _write(tmp_path / "nbest", [json.dumps({"nbest": n}) for n in (["a b"], ["x", "c"], ["d", "q"])])
    result = score(ScoreRequest("exact", str(hyp), [str(ref)], nbest=str(nbest), tags=str(tags), topk=[2]))
    assert result["score"] == pytest.approx(200 / 3)
    assert result["overall"]["top2"] == 100.0
    assert result["by_tag"]["t2"]["top1"] == 50.0
    out = tmp_path / "m.json"
    code = main(["score", "--metric", "exact", "--ref", str(ref), "--hyp", str(hyp), "--json", "--out", str(out)])
    assert code == 0
    printed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert printed["metric"] == "exact" and printed["score"] == pytest.approx(200 / 3)
    assert json.loads(out.read_text()) == printed


def test_topk_follows_the_nbest_lists_and_refuses_more_than_they_hold(tmp_path):
    """Worked by hand: line 1 is right at rank 1, line 2 at rank 2, line 3 never (lists of 2): top-1 33.3, top-2
    66.7. Without --topk the k of 1, 5 and 10 the lists reach are reported: here only 1; asking top-5 of lists of 2
    (what a top-5 read from a one-hypothesis decode would be: top-1 renamed) is refused, naming the file."""
    ref = _write(tmp_path / "ref", ["a", "b", "c"])
    hyp = _write(tmp_path / "hyp", ["a", "x", "y"])
    nbest = _write(tmp_path / "nbest", [json.dumps({"nbest": n}) for n in (["a", "z"], ["x", "b"], ["y", "q"])])
    result = score(ScoreRequest("exact", str(hyp), [str(ref)], nbest=str(nbest)))
    assert result["overall"] == {"count": 3, "top1": pytest.approx(100 / 3)}
    result = score(ScoreRequest("exact", str(hyp), [str(ref)], nbest=str(nbest), topk=[2]))
    assert result["overall"]["top2"] == pytest.approx(200 / 3)
    with pytest.raises(CorpusError, match=r"nbest: top-5 asked for .* no line holds more than 2 hypotheses"):
        score(ScoreRequest("exact", str(hyp), [str(ref)], nbest=str(nbest), topk=[1, 5]))
    with pytest.raises(CorpusError, match=r"top-5 asked for \(--topk\) without --nbest: .*hyp holds one hypothesis"):
        score(ScoreRequest("exact", str(hyp), [str(ref)], topk=[1, 5]))
    with pytest.raises(CorpusError, match=r"no line holds more than 1 hypothesis;"):
        score(ScoreRequest("exact", str(hyp), [str(ref)], topk=[1, 5],
                           nbest=str(_write(tmp_path / "one", [json.dumps({"nbest": [h]}) for h in "axy"]))))
    long = _write(tmp_path / "long", [json.dumps({"nbest": [h] + [f"w{i}" for i in range(9)]}) for h in ("a", "x", "y")])
    assert set(score(ScoreRequest("exact", str(hyp), [str(ref)], nbest=str(long)))["overall"]) == {
        "count", "top1", "top5", "top10"}


def test_line_count_mismatch_names_files(tmp_path, capsys):
    ref = _write(tmp_path / "ref", ["a", "b"])
    hyp = _write(tmp_path / "hyp", ["a"])
    with pytest.raises(CorpusError, match=r"hyp has 1 lines but .*ref has 2"):
        score(ScoreRequest("exact", str(hyp), [str(ref)]))
    assert main(["score", "--metric", "exact", "--ref", str(ref), "--hyp", str(hyp)]) == 2
    assert "ref has 2" in capsys.readouterr().err


def test_bad_utf8_and_bad_nbest_are_located(tmp_path):
    ref = tmp_path / "ref"
    ref.write_bytes(b"ok\n\xff\xfe\n")
    hyp = _write(tmp_path / "hyp", ["ok", "no"])
    with pytest.raises(CorpusError, match=r"ref:2: not valid UTF-8"):
        score(ScoreRequest("exact", str(hyp), [str(ref)]))
    ref = _write(tmp_path / "ref2", ["a", "b"])
    nbest = _write(tmp_path / "nbest", [json.dumps({"nbest": ["ok"]}), "not json"])
    with pytest.raises(CorpusError, match=r"nbest:2: expected a JSON object"):
        score(ScoreRequest("exact", str(hyp), [str(ref)], nbest=str(nbest)))


def test_headline_file_holds_only_the_score_and_count(tmp_path):
    ref, hyp, tags = tmp_path / "ref", tmp_path / "hyp", tmp_path / "tags"
    ref.write_text("a b\nc\nd e\nf\n")
    hyp.write_text("a b\nc\nx\nf\n")
    tags.write_text("x->x\nx->x\nxy->x\nxy->x\n")
    full, short = tmp_path / "full.json", tmp_path / "headline.json"
    assert main(["score", "--metric", "exact", "--ref", str(ref), "--hyp", str(hyp), "--tags", str(tags),
                 "--out", str(full), "--headline", str(short)]) == 0
    assert json.loads(short.read_text()) == {"exact": 75.0, "count": 4}
    assert json.loads(full.read_text())["by_tag"]["xy->x"]["top1"] == 50.0  # the details stay in --out


def test_headline_of_an_evaluation_lists_each_metric():
    from paragen.scoring.files import headline

    result = {"experiment": "e", "count": 3, "bleu": {"metric": "bleu", "score": 20.5, "signature": "s"},
              "rouge": {"metric": "rouge", "score": {"rouge1": 1.0, "rouge2": 2.0, "rougeL": 3.0}}}
    assert headline(result) == {"bleu": 20.5, "rouge": {"rouge1": 1.0, "rouge2": 2.0, "rougeL": 3.0}, "count": 3}


def test_rule_resampling_interval_worked_by_hand():
    """Two rules of two instances: A always right, B always wrong. A resample of 2 rules is AA (100 %), AB or
    BA (50 %), or BB (0 %), with chances 1/4, 1/2, 1/4: the 2.5th percentile is 0, the 97.5th 100, and the
    middle half of the resamples is 50."""
    import numpy as np

    from paragen.metrics.bootstrap import cluster_interval

    correct = np.array([1.0, 1.0, 0.0, 0.0])
    assert cluster_interval(correct, ["A", "A", "B", "B"], samples=2000) == (0.0, 100.0)
    assert cluster_interval(correct, ["A", "A", "B", "B"], samples=2000, level=0.4) == (50.0, 50.0)
    # resampling lines instead would allow 25 % and 75 %; rules of unequal size weigh by their instances:
    # A (3 right of 3) and B (0 of 1): AA 100, AB/BA 75, BB 0
    uneven = cluster_interval(np.array([1.0, 1.0, 1.0, 0.0]), ["A", "A", "A", "B"], samples=2000, level=0.4)
    assert uneven == (75.0, 75.0)
    with pytest.raises(ValueError, match="3 sentences but 2 group"):
        cluster_interval(np.array([1.0, 1.0, 0.0]), ["A", "B"])


def test_score_groups_gives_each_tag_a_rule_interval(tmp_path):
    (tmp_path / "ref").write_text("a\nb\nc\nd\ne\nf\n")
    (tmp_path / "hyp").write_text("a\nb\nz\nz\ne\nf\n")  # type t: rule 1 right, rule 2 wrong; type u: all right
    (tmp_path / "tag").write_text("t\nt\nt\nt\nu\nu\n")
    (tmp_path / "rule").write_text("1\n1\n2\n2\n3\n3\n")
    out = tmp_path / "m.json"
    main(["score", "--metric", "exact", "--ref", str(tmp_path / "ref"), "--hyp", str(tmp_path / "hyp"),
          "--tags", str(tmp_path / "tag"), "--groups", str(tmp_path / "rule"), "--out", str(out)])
    by_tag = json.loads(out.read_text())["by_tag"]
    assert by_tag["t"]["top1"] == 50.0 and by_tag["t"]["top1_ci95"] == [0.0, 100.0]
    assert by_tag["u"]["top1_ci95"] == [100.0, 100.0]
    assert main(["score", "--metric", "bleu", "--ref", str(tmp_path / "ref"), "--hyp", str(tmp_path / "hyp"),
                 "--groups", str(tmp_path / "rule")]) != 0


def test_odd_generation_has_a_paired_bootstrap_on_the_share_of_clean_sentences(tmp_path):
    import numpy as np

    from paragen.scoring.files import ScoreRequest, score

    ref, a, b = tmp_path / "ref", tmp_path / "a", tmp_path / "b"
    ref.write_text("a b\nc d\ne f\n")
    a.write_text("a a b\nc\ne f\n")  # a repeat beyond the gold, a short one, a clean one: 1 of 3 clean
    b.write_text("a b\nc d\ne f\n")  # all clean
    result = score(ScoreRequest(metric="oddgen", hyp=str(b), refs=[str(ref)], compare=str(a), bootstrap_samples=500,
                                seed=7))
    test = result["bootstrap"]
    assert (test["score_a"], test["score_b"]) == (pytest.approx(100 / 3), 100.0)
    # b is not better only in a resample made of sentence 3 alone (both clean there): count those draws
    rng = np.random.default_rng(7)
    expected = sum(bool((rng.integers(0, 3, size=3) == 2).all()) for _ in range(500)) / 500
    assert test["p_value"] == pytest.approx(expected)
    assert result["bootstrap_on"] == "oddgen"  # named in paragen.report.comparisons.METRIC_NAMES
