"""Real-data experiments: their stages, model selection on validation data, evaluation, tables."""

import csv
import json
import random
import shutil
from pathlib import Path

import pytest
import yaml

from paragen.config import ModelConfig, parse_config
from paragen.data.corpus import ParallelCorpus
from paragen.artifacts import PUBLISHED_OUTPUTS_CSV
from paragen.pipeline.plan import stages
from paragen.report.parameters import output_layer_parameters
from paragen.config.papers import Baseline, Column, PaperTable
from paragen.report.tables import fill_table
from paragen.training.validation import make_validator

from conftest import ROOT
from test_e2e import run


def project(**overrides):
    raw = yaml.safe_load((ROOT / "params.yaml").read_text())
    raw.update(overrides)
    return parse_config(raw)


def test_switched_on_dataset_gets_train_decode_evaluate_stages():
    by_name = {s.name: s for s in stages(project(suites=["turk_mini"], data=["turk_mini"]))}
    train = by_name["train_mini_wean"]
    assert train.deps == ("data/segmented/turk_mini.word", "data/vocab/turk_mini.word/vocab.txt")
    # validation BLEU reads evaluation.lowercase alone, which turk_mini leaves at its default: no evaluation key, so
    # a change to the metrics rescores without retraining (the keys a training reads: test_evaluation_params.py)
    assert not [key for key in train.params if key.startswith("datasets.turk_mini.evaluation")]
    assert by_name["evaluate_mini_wean"].cmd == "paragen evaluate --params params.yaml --experiment mini_wean"
    report = by_name["report_turk_mini"]
    assert report.cmd.endswith("--table turk_mini --data turk_mini")
    assert PUBLISHED_OUTPUTS_CSV in report.deps and "results/metrics/mini_seq2seq.json" in report.deps
    assert "results/figures/turk_mini_valid_curves.png" in report.outs


def test_absent_dataset_rows_stay_out_of_the_dag_but_their_tables_are_built():
    all_stages = stages(project(suites=["wean", "copynet_lcsts"], data=[]))
    names = {s.name for s in all_stages}
    assert not any(n.startswith(("train_pwkp", "train_lcsts", "fetch_")) for n in names)
    by_name = {s.name: s for s in all_stages}
    assert by_name["report_wean_pwkp"].deps == (PUBLISHED_OUTPUTS_CSV,)
    assert by_name["report_copynet_lcsts"].deps == ()
    assert by_name["report_wean_parameters"].outs[0] == "results/tables/wean_parameters.md"
    # Every dependency is produced by an earlier stage or committed (the DRESS rescoring table).
    produced = {PUBLISHED_OUTPUTS_CSV}
    for stage in all_stages:
        assert set(stage.deps) <= produced, stage.name
        produced |= set(stage.outs)


def test_validator_scores_bleu_against_every_reference():
    valid = ParallelCorpus([["a"], ["b"]], [["x", "y", "z", "w"], ["p", "q", "r", "s"]])
    refs = [["x y z w", "p q r s"], ["a b c d", "e f g h"]]
    bleu = make_validator("bleu", valid, refs)
    assert bleu([["x", "y", "z", "w"], ["p", "q", "r", "s"]]) == pytest.approx(100.0)
    assert bleu([["a", "b", "c", "d"], ["e", "f", "g", "h"]]) == pytest.approx(100.0)  # second reference set
    assert bleu([["i", "j", "k", "l"], ["m", "n", "o", "t"]]) == pytest.approx(0.0)
    assert make_validator("exact_match", valid)([["x", "y", "z", "w"], ["nope"]]) == pytest.approx(50.0)
    with pytest.raises(ValueError, match="no validator for 'meteor'; allowed values: exact_match, bleu, sari, rouge2"):
        make_validator("meteor", valid)


@pytest.mark.parametrize("model, vocab, expected", [
    ("seq2seq_simp", 50_000, 12_801_024),     # 256 x (50,000 + 4 specials): the paper's 12.80M
    ("wean_simp_concat", 50_000, 131_328),    # 256^2 x 2 + 256: the paper's 0.13M
    ("wean_simp", 50_000, 65_536),            # general, the score WEAN trains with: 256^2
    ("wean_simp_dot", 50_000, 0),
    ("seq2seq_lcsts", 4_000, 2_050_048),      # 512 x 4,004: the paper's 2.05M
    ("wean_lcsts_concat", 4_000, 524_800),    # 512^2 x 2 + 512: the paper's 0.52M
])
def test_table5_counts_come_from_instantiated_models(model, vocab, expected):
    config = yaml.safe_load((ROOT / "params.yaml").read_text())["models"][model]
    assert output_layer_parameters(ModelConfig(**config), vocab + 4) == expected


def test_baseline_rows_are_rescored_published_or_explained(tmp_path):
    paper = PaperTable("P", "T1", "BLEU", [Column("bleu", "BLEU", "bleu/score")], {"Ours": {"bleu": 50.0}}, [
        Baseline("Released", {"bleu": 40.0}, "T1", [{"column": "bleu", "test_set": "t", "system": "S",
                                                    "metric": "BLEU"}]),
        Baseline("Unreleased", {"bleu": 30.0}, "T1")])
    metrics = tmp_path / "ours.json"
    metrics.write_text(json.dumps({"bleu": {"score": 51.5}}))
    table = fill_table("t", "t", "c", paper, {"Ours": metrics, "Absent": "not run: dataset absent"},
                       {("t", "S", "BLEU"): 40.25})
    assert table.rows == ["Released", "Unreleased", "Ours", "Absent"]
    released, unreleased = table.cells[("Released", "bleu")], table.cells[("Unreleased", "bleu")]
    assert (released.paper, released.reproduced) == (40.0, 40.25) and "rescored" in released.note
    assert unreleased.reproduced is None and "as published (T1)" in unreleased.note
    assert table.cells[("Ours", "bleu")].difference == pytest.approx(1.5)
    assert table.cells[("Absent", "bleu")].note == "not in paper; not run: dataset absent"
    not_rescored = fill_table("t", "t", "c", paper, {}, {})
    assert "not rescored" in not_rescored.cells[("Released", "bleu")].note


TINY_REAL = """
  turk_mini: {kind: real, fetch: [turkcorpus, asset], fetch_scope: eval, splits: [train, valid, test],
              vocab_size: 40, evaluation: {metrics: [bleu, sari]}}
"""


def _write_tiny_simplification_corpus(directory: Path) -> None:
    """Identity-ish pairs with two reference sets for valid and test, as the segment stage lays them out."""
    rng = random.Random(0)
    words = [f"w{i}" for i in range(30)]
    sentence = lambda: " ".join(rng.choice(words) for _ in range(rng.randint(3, 7)))  # noqa: E731
    directory.mkdir(parents=True)
    for split, n in (("train", 60), ("valid", 8), ("test", 10)):
        sources = [sentence() for _ in range(n)]
        (directory / f"{split}.src").write_text("\n".join(sources) + "\n")
        (directory / f"{split}.tgt").write_text("\n".join(sources) + "\n")
        if split != "train":
            for k in range(2):
                (directory / f"{split}.ref.{k}").write_text("\n".join(s if k == 0 else s + " w0" for s in sources)
                                                            + "\n")
    (directory / "segment.json").write_text("{}")


def test_cli_trains_decodes_evaluates_and_reports_a_real_dataset(tmp_path):
    shutil.copy(ROOT / "tests/fixtures/tiny_params.yaml", tmp_path / "params.yaml")
    text = (tmp_path / "params.yaml").read_text()
    text = text.replace("datasets:\n", "datasets:" + TINY_REAL, 1)
    text = text.replace("experiments:\n", "experiments:\n  r_wean: {dataset: turk_mini, model: wean, training: real, "
                        "decoding: beam3}\n", 1)
    text = text.replace("training:\n", "training:\n  real: {batch_size: 8, max_epochs: 2, patience: 2, "
                        "valid_metric: bleu, valid_max_length: 12, seed: 1, threads: 1}\n", 1)
    text += ("  turk_mini:\n    suite: turk_mini\n    paper: turk_mini\n    title: tiny turk-mini\n"
             "    rows: {WEAN: r_wean}\n")
    (tmp_path / "params.yaml").write_text(text + "data: [turk_mini]\n")
    directory = tmp_path / "data/segmented/turk_mini.word"
    _write_tiny_simplification_corpus(directory)
    run(["paragen", "vocab-build", "--dir", str(directory), "--out", "data/vocab/turk_mini.word", "--size", "40",
         "--shared"], tmp_path)
    hidden = tmp_path / "hidden"  # model selection must never read the test split: train without it
    hidden.mkdir()
    for path in directory.glob("test.*"):
        path.rename(hidden / path.name)
    run(["paragen", "train", "--experiment", "r_wean", "--quiet"], tmp_path)
    for path in hidden.iterdir():
        path.rename(directory / path.name)
    log = list(csv.DictReader(open(tmp_path / "runs/r_wean/train_log.csv")))
    assert len(log) == 2 and all(0.0 <= float(r["valid_metric"]) <= 100.0 for r in log)
    run(["paragen", "decode", "--experiment", "r_wean", "--quiet"], tmp_path)
    assert len((tmp_path / "runs/r_wean/test.hyp").read_text().splitlines()) == 10
    printed = run(["paragen", "evaluate", "--experiment", "r_wean"], tmp_path).stdout
    assert "r_wean bleu:" in printed and "r_wean sari:" in printed
    metrics = json.loads((tmp_path / "results/metrics/r_wean.json").read_text())
    assert metrics["references"] == 2 and metrics["bleu"]["references"] == 2 and metrics["count"] == 10
    assert metrics["sari"]["refs"] == [str(directory / f"test.ref.{k}").replace(str(tmp_path) + "/", "")
                                       for k in range(2)]
    run(["paragen", "report", "--table", "turk_mini"], tmp_path)
    rows = {r["row"] + "/" + r["column"]: r for r in csv.DictReader(open(tmp_path / "results/tables/turk_mini.csv"))}
    assert float(rows["WEAN/bleu"]["reproduced"]) == pytest.approx(metrics["bleu"]["score"], abs=0.01)
    assert (tmp_path / "results/figures/turk_mini_valid_curves.png").stat().st_size > 0
