"""The headline suites (issue 11): the stand-in's and Gigaword's stages, their evaluation over several test splits,
and their tables and figures from metrics files written here by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from paragen.config import ConfigError, parse_config
from paragen.pipeline.plan import stages

from conftest import ROOT, write_test_outputs

STAND_IN = ("hs_encdec", "hs_sgate", "hs_spm", "hs_sgate_spm")
GIGAWORD = ("giga_encdec", "giga_sgate", "giga_spm", "giga_sgate_spm")


def raw_project(**overrides) -> dict:
    raw = yaml.safe_load((ROOT / "params.yaml").read_text())
    raw.update(overrides)
    return raw


def by_name(**overrides):
    return {s.name: s for s in stages(parse_config(raw_project(**overrides)))}


def assert_closed(all_stages, committed=()):
    produced = set(committed)
    for stage in all_stages:
        assert set(stage.deps) <= produced, (stage.name, set(stage.deps) - produced)
        assert not set(stage.outs) & produced, stage.name
        produced |= set(stage.outs)


def test_stand_in_stages_generate_gold_links_train_decode_align_evaluate_and_report():
    all_stages = stages(parse_config(raw_project(suites=["headline_synthetic"])))
    assert_closed(all_stages)
    named = {s.name: s for s in all_stages}
    generate = named["generate_headline_small"]
    assert "data/prepared/headline_small/test.align" in generate.outs
    assert not any(out.endswith(".tag") for out in generate.outs)
    for exp in STAND_IN:
        assert {f"train_{exp}", f"decode_{exp}", f"align_{exp}", f"evaluate_{exp}"} <= named.keys()
        assert f"score_{exp}" not in named  # exact match is the rule data's measure, not this one's
        assert "datasets.headline_small.evaluation.rouge_unit" in named[f"train_{exp}"].params  # ROUGE on words
    # every row is scored against the gold links; the heat maps' two rows also keep the matrices of lines 1-3
    assert named["align_hs_sgate"].cmd == ("paragen align --params params.yaml --experiment hs_sgate --gold "
                                           "data/prepared/headline_small/test.align --out "
                                           "results/metrics/hs_sgate.alignment.json")
    assert named["align_hs_spm"].cmd.endswith("--sentences 1,2,3 --matrices runs/hs_spm/alignment_examples.json "
                                              "--pairs runs/hs_spm/aligned_pairs.json --sample 500 --seed 1")
    assert named["align_hs_spm"].metrics == ("results/metrics/hs_spm.alignment.json",)
    assert "tables.headline_synthetic.alignment_figure" in named["align_hs_encdec"].params
    report = named["report_headline_synthetic"]
    assert {f"results/metrics/{e}.alignment.json" for e in STAND_IN} <= set(report.deps)
    assert {"runs/hs_encdec/alignment_examples.json", "runs/hs_spm/alignment_examples.json",
            "runs/hs_spm/aligned_pairs.json"} <= set(report.deps)
    assert {"results/tables/headline_synthetic_aligned_pairs.md", "results/tables/headline_synthetic_aligned_pairs.csv"} \
        <= set(report.uncached)
    assert {"results/figures/headline_synthetic_alignment_attention.png",
            "results/figures/headline_synthetic_alignment_prediction.png",
            "results/figures/headline_synthetic_loss_curves.png",
            "results/figures/headline_synthetic_oddgen.png",
            "results/figures/headline_synthetic_valid_curves.png"} <= set(report.outs)


def test_gigaword_rows_decode_three_test_sets_and_fetch_fails_first_without_the_data():
    all_stages = stages(parse_config(raw_project(suites=["headline"], data=["gigaword"])))
    assert_closed(all_stages)
    named = {s.name: s for s in all_stages}
    assert named["fetch_gigaword"].cmd == "paragen fetch gigaword --quiet"  # no mirror unless a user sets one
    for exp in GIGAWORD:
        for split in ("test_ours", "test_rush", "test_zhou"):
            decode = named[f"decode_{exp}_{split}"]
            assert f"--split {split}" in decode.cmd and decode.outs[0] == f"runs/{exp}/{split}.hyp"
        assert {f"runs/{exp}/{s}.hyp" for s in ("test_ours", "test_rush", "test_zhou")} <= set(named[f"evaluate_{exp}"].deps)
    assert "datasets.gigaword.test_splits" in named["evaluate_giga_spm"].params
    # Figure 4 needs EncDec's attention and EncDec+SPM's q_j on one Test (ours) sentence; no gold links exist
    assert named["align_giga_encdec"].cmd == ("paragen align --params params.yaml --experiment giga_encdec --split "
                                              "test_ours --sentences 1 --matrices runs/giga_encdec/alignment_examples.json")
    assert named["align_giga_spm"].cmd.endswith("--pairs runs/giga_spm/aligned_pairs.json --sample 500 --seed 1")  # Table 4
    assert "align_giga_sgate" not in named
    report = named["report_spm_gigaword"]
    assert {"results/figures/spm_gigaword_alignment_attention.png", "results/figures/spm_gigaword_oddgen.png"} \
        <= set(report.outs)


def test_gigaword_absent_leaves_the_table_with_its_published_rows_only():
    named = by_name(suites=["headline"], data=[])
    assert [n for n in named if n not in ("report_spm_gigaword", "index")] == []
    assert named["report_spm_gigaword"].deps == ()
    assert named["report_spm_gigaword"].outs == tuple(f"results/tables/spm_gigaword.{x}" for x in ("md", "csv", "tex")) \
        + ("results/tables/spm_gigaword.html",  # the page the Snakemake report shows
           "results/tables/spm_gigaword_comparisons.csv",  # its comparison, "not run: dataset absent"
           "results/provenance/spm_gigaword")  # what the report read: here its settings alone


@pytest.mark.parametrize("edit, message", [
    (lambda raw: raw["tables"]["headline_synthetic"]["alignment_figure"].update(source_prediction="EncDec+sGate"),
     "alignment_figure.source_prediction: row 'EncDec+sGate' (model encdec_sgate_hs) has no source-side prediction"),
    (lambda raw: raw["tables"]["headline_synthetic"]["alignment_figure"].update(attention="Nope"),
     "alignment_figure.attention: 'Nope' is not a trained row of the table"),
    (lambda raw: raw["tables"]["headline_synthetic"]["oddgen_figure"].update(split="test_ours"),
     "oddgen_figure.split: 'test_ours' is not a test split of headline_small; allowed values: ['test']"),
    (lambda raw: raw["datasets"]["headline_small"].update(evaluation={"metrics": ["rouge"], "rouge_unit": "word"}),
     "oddgen_figure.rows: 'EncDec' is not scored with oddgen"),
    (lambda raw: raw["tables"]["spm_gigaword"]["aligned_pairs"].update(row="EncDec"),
     "aligned_pairs.row: row 'EncDec' (model encdec_giga) has no source-side prediction"),
    (lambda raw: raw["datasets"]["gigaword"].update(test_splits=["test_ours", "test"]),
     "datasets.gigaword: Value error, test_splits: 'test' is not one of its splits"),
])
def test_figure_and_split_settings_are_checked_at_load_time(edit, message):
    raw = raw_project()
    edit(raw)
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")
                       .replace("]", r"\]").replace("+", r"\+")):
        parse_config(raw)


def test_evaluation_over_several_test_splits_restores_bpe_and_counts_odd_generation(tmp_path, monkeypatch):
    """Worked by hand (rouge-score on words, no stemming):

    test_ours line 1: "police arrest five" against itself: ROUGE-1 100;
    test_ours line 2: "rain rain" against "rain in paris": 1 unigram in common, P 1/2, R 1/3, F1 0.4; "rain" repeats
    once beyond the gold (2 - 1) and the output is 1 token short (3 - 2); test_rush: "a b" against itself.
    """
    from paragen.scoring.evaluation import evaluate_experiment
    from paragen.scoring.files import headline

    raw = raw_project(data=["gigaword"])
    raw["datasets"]["gigaword"].update(test_splits=["test_ours", "test_rush"],
                                       evaluation={"metrics": ["rouge", "oddgen"], "rouge_unit": "word"})
    config = parse_config(raw)
    monkeypatch.chdir(tmp_path)
    data = tmp_path / "data/segmented/gigaword.bpe"
    data.mkdir(parents=True)
    (data / "test_ours.src").write_text("x\ny\n")
    (data / "test_ours.tgt").write_text("pol@@ ice arrest five\nrain in paris\n")
    (data / "test_rush.src").write_text("z\n")
    (data / "test_rush.tgt").write_text("a b\n")
    run = tmp_path / "runs/giga_spm"
    run.mkdir(parents=True)
    (run / "test_ours.hyp").write_text("pol@@ ice arrest five\nrain rain\n")
    (run / "test_rush.hyp").write_text("a b\n")
    result = evaluate_experiment(config, "giga_spm")
    assert (result["experiment"], result["dataset"]) == ("giga_spm", "gigaword")
    ours, rush = result["splits"]["test_ours"], result["splits"]["test_rush"]
    assert ours["rouge"]["score"]["rouge1"] == pytest.approx((100 + 40) / 2)
    assert ours["oddgen"]["score"] == {"sentences": 2, "sentences_with_repeats": 1, "sentences_short": 1,
                                       "repeated_tokens": 1, "missing_tokens": 1}
    assert rush["rouge"]["score"]["rougeL"] == pytest.approx(100.0) and rush["count"] == 1
    assert headline(result)["test_rush"] == {"rouge": rush["rouge"]["score"], "oddgen": rush["oddgen"]["score"],
                                             "count": 1}


def _write_json(path: Path, value) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))


def _stand_in_metrics(r1: float, repeats: int, short: int) -> dict:
    return {"experiment": "x", "dataset": "headline_small", "count": 4, "references": 1,
            "rouge": {"score": {"rouge1": r1, "rouge2": r1 / 2, "rougeL": r1}},
            "oddgen": {"score": {"sentences": 4, "sentences_with_repeats": repeats, "sentences_short": short,
                                 "repeated_tokens": repeats, "missing_tokens": short}}}


def _alignment(attention: float, spm: float | None) -> dict:
    score = lambda a: {"accuracy": a, "correct": 0, "total": 0, "aligns": "x"}  # noqa: E731
    return {"pairs": 4, "gold_links": 8, "attention": score(attention),
            "source_prediction": None if spm is None else score(spm)}


def _matrices(spm: bool) -> dict:
    sentence = {"line": 1, "source": ["f1", "c2", "c3"], "target": ["c2", "r3"], "gold": [[1, 0], [2, 1]],
                "attention": [[0.1, 0.8, 0.1], [0.2, 0.2, 0.6]], "attention_argmax": [1, 2],
                "source_prediction": [[0.0, 0.9, 0.0], [0.0, 0.1, 0.7]] if spm else None,
                "spm_words": ["c2", "c3"] if spm else None}
    return {"sentences": [{**sentence, "line": n} for n in (1, 2, 3)]}


def test_stand_in_table_merges_alignment_accuracy_and_draws_figures_2_and_4(tmp_path, monkeypatch):
    from paragen.report.build import build_table_report

    config = parse_config(raw_project(suites=["headline_synthetic"]))
    monkeypatch.chdir(tmp_path)
    numbers = {"hs_encdec": (40.0, 3, 1, 12.5, None), "hs_sgate": (41.0, 2, 1, 13.0, None),
               "hs_spm": (42.0, 1, 0, 20.0, 75.5), "hs_sgate_spm": (43.0, 0, 0, 21.0, 80.0)}
    for exp, (r1, repeats, short, attention, spm) in numbers.items():
        _write_json(tmp_path / f"results/metrics/{exp}.json", _stand_in_metrics(r1, repeats, short))
        _write_json(tmp_path / f"results/metrics/{exp}.alignment.json", _alignment(attention, spm))
        (tmp_path / f"runs/{exp}").mkdir(parents=True)
        (tmp_path / f"runs/{exp}/train_log.csv").write_text("epoch,valid_metric\n1,10\n2,12\n")
    _write_json(tmp_path / "runs/hs_encdec/alignment_examples.json", _matrices(spm=False))
    _write_json(tmp_path / "runs/hs_spm/alignment_examples.json", _matrices(spm=True))
    _write_json(tmp_path / "runs/hs_spm/aligned_pairs.json", {
        "split": "test", "sample": 500, "seed": 1, "pairs": 4, "tokens": 4,
        "groups": {"identical": [["c2", "c2", 3]], "inflection": [], "shorter": [], "others": [["r3", "c3", 1]]}})
    write_test_outputs(config, "headline_synthetic")
    build_table_report(config, "headline_synthetic")
    pairs = (tmp_path / "results/tables/headline_synthetic_aligned_pairs.md").read_text()
    assert "| others | 25.0 % | (r3, c3) × 1 | — |" in pairs and "No paper examples: not a paper's setup." in pairs
    md = (tmp_path / "results/tables/headline_synthetic.md").read_text()
    assert "| EncDec | — / 40.0 | — / 20.0 | — / 40.0 | — / 12.5 | — / — | — / 3 | — / 1 |" in md
    assert "| EncDec+SPM | — / 42.0 | — / 21.0 | — / 42.0 | — / 20.0 | — / 75.5 | — / 1 | — / 0 |" in md
    assert "EncDec, SPM alignment acc.: not applicable (alignment/source_prediction/accuracy is null" in md
    assert "not a paper's setup" in md and "004 reports no number for it" in md
    for figure in ("alignment_attention", "alignment_prediction", "oddgen", "valid_curves", "loss_curves"):
        assert (tmp_path / f"results/figures/headline_synthetic_{figure}.png").stat().st_size > 0
    # a row whose alignment file is missing says so instead of showing a number
    (tmp_path / "results/metrics/hs_sgate.alignment.json").unlink()
    build_table_report(config, "headline_synthetic")
    md = (tmp_path / "results/tables/headline_synthetic.md").read_text()
    assert "EncDec+sGate, attention alignment acc.: not yet run (results/metrics/hs_sgate.alignment.json " \
           "missing)" in md


def test_gigaword_table_without_data_shows_the_published_rows_and_why_ours_are_missing(tmp_path, monkeypatch):
    from paragen.report.build import build_table_report

    config = parse_config(raw_project(suites=["headline"], data=[]))
    monkeypatch.chdir(tmp_path)
    build_table_report(config, "spm_gigaword")
    md = (tmp_path / "results/tables/spm_gigaword.md").read_text()
    assert "| EncDec+sGate+SPM | 46.41 / not run: dataset absent | 24.58 / not run: dataset absent |" in md
    assert "| ABS (Rush et al., 2015) | — / — | — / — | — / — | 29.55 / — | 11.32 / — | 26.42 / — | 37.41 / — |" in md
    assert "ABS (Rush et al., 2015) (every column): as published (004 Table 3, from Rush et al. (2015))" in md
    assert not (tmp_path / "results/figures").exists()


def test_aligned_pairs_table_lists_each_group_beside_the_papers_examples(tmp_path, monkeypatch):
    from paragen.report.build import build_table_report

    config = parse_config(raw_project(suites=["headline"], data=["gigaword"]))
    monkeypatch.chdir(tmp_path)
    for exp in GIGAWORD:
        _write_json(tmp_path / f"results/metrics/{exp}.json", {"splits": {
            split: {"count": 2, "rouge": {"score": {"rouge1": 30.0, "rouge2": 10.0, "rougeL": 28.0}},
                    "oddgen": {"score": {"sentences": 2, "sentences_with_repeats": 1, "sentences_short": 0}}}
            for split in ("test_ours", "test_rush", "test_zhou")}})
        (tmp_path / f"runs/{exp}").mkdir(parents=True)
        (tmp_path / f"runs/{exp}/train_log.csv").write_text("epoch,valid_metric\n1,-3.0\n")
    for exp in ("giga_encdec", "giga_spm"):
        _write_json(tmp_path / f"runs/{exp}/alignment_examples.json", _matrices(spm=True))
    _write_json(tmp_path / "runs/giga_spm/aligned_pairs.json", {
        "split": "test_ours", "sample": 500, "seed": 1, "pairs": 500, "tokens": 10,
        "groups": {"identical": [["police", "police", 6]], "inflection": [["calls", "called", 2]],
                   "shorter": [["quake", "earthquake", 1]], "others": [["dead", "killed", 1]]}})
    write_test_outputs(config, "spm_gigaword")
    build_table_report(config, "spm_gigaword")
    md = (tmp_path / "results/tables/spm_gigaword_aligned_pairs.md").read_text()
    assert "| identical (target token = q_j's word) | 60.0 % | (police, police) × 6 | — |" in md
    assert ("| inflection (same Porter stem; 004: verb inflection) | 20.0 % | (calls, called) × 2 | (calls, called), "
            "(release, released), (win, won)") in md
    assert "Paper's examples: Kiyono et al., Source-side Prediction for Neural Headline Generation (004), Table 4" in md
    csv_text = (tmp_path / "results/tables/spm_gigaword_aligned_pairs.csv").read_text()
    assert "spm_gigaword,EncDec+SPM,shorter,1,quake,earthquake,1" in csv_text
    table = (tmp_path / "results/tables/spm_gigaword.md").read_text()
    assert "| EncDec | 45.74 / 30.00 (-15.74) |" in table


def test_compare_resamples_odd_generation_through_the_cli(tmp_path, monkeypatch, capsys):
    """Gold "c1 c2" on both lines; EncDec repeats c1 on line 1, EncDec+SPM is clean: 50 % vs 100 % of sentences
    without odd generation."""
    from paragen.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "params.yaml").write_text((ROOT / "params.yaml").read_text())
    gold = tmp_path / "data/prepared/headline_small"
    gold.mkdir(parents=True)
    (gold / "test.src").write_text("c1 f1 c2\nc1 c2\n")
    (gold / "test.tgt").write_text("c1 c2\nc1 c2\n")
    for experiment, lines in (("hs_spm", "c1 c2\nc1 c2\n"), ("hs_encdec", "c1 c1 c2\nc1 c2\n")):
        (tmp_path / "runs" / experiment).mkdir(parents=True)
        (tmp_path / "runs" / experiment / "test.hyp").write_text(lines)
    out = tmp_path / "cmp.json"
    assert main(["compare", "--experiment", "hs_spm", "--baseline", "hs_encdec", "--metric", "oddgen",
                 "--out", str(out)]) == 0
    test = json.loads(out.read_text())["splits"]["test"]
    assert (test["score_b"], test["score_a"], test["on"]) == (100.0, 50.0, "oddgen")
    assert "sentences without odd generation (%) on test: 100.00 vs 50.00" in capsys.readouterr().out
