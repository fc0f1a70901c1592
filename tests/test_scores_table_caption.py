"""The caption a scores table is written with, word for word, before any row is scored and after: the test
sentence counts appear only once a row has a score, and nothing stands in their place before. Expected text written
by hand from tests/data/tiny_params.yaml's copynet_synthetic table (5 rules x 12 instances, 30 symbols, seed 3,
bi-GRU 16/8, beam 3)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from paragen.report import build

SCALE = ("Exact-match test accuracy (%). Published numbers: Gu et al. (2016), CopyNet, Table 1. Units: exact match: % "
         "of test sentences whose top-1 output equals the target, symbol for symbol. Scale: 5 rules × 12 "
         "instances (paper: 200 × 200), 30 symbols, seed 3; bi-GRU encoder, hidden 16 / embedding 8; beam 3.")


def _caption() -> str:
    lines = Path("results/tables/copynet_synthetic.md").read_text(encoding="utf-8").splitlines()
    return next(line for line in lines if line.startswith("Exact-match"))


def test_no_scored_row_no_sentence_count_and_nothing_in_its_place(tmp_path, monkeypatch, tiny_config, caplog):
    """Also the one log line a tables-only build writes, naming the table's files."""
    monkeypatch.chdir(tmp_path)
    with caplog.at_level(logging.INFO, logger="paragen"):
        build.build_table_report(tiny_config, "copynet_synthetic", figures=False)
    assert _caption() == SCALE
    files = ", ".join(f"results/tables/copynet_synthetic.{ext}" for ext in ("md", "csv", "tex"))
    assert [r.getMessage() for r in caplog.records if r.name == build.log.name] == \
        [f"wrote {files} (tables only: no figures)"]


def test_scored_rows_add_their_distinct_test_sentence_counts(tmp_path, monkeypatch, tiny_config):
    """Enc-Dec scored on 10 sentences, CopyNet and WEAN on 12 each: "Test sentences: 10, 12." (each count once)."""
    monkeypatch.chdir(tmp_path)
    Path("results/metrics").mkdir(parents=True)
    for experiment, count in (("t_encdec", 10), ("t_copynet", 12), ("t_wean", 12)):
        Path(f"results/metrics/{experiment}.json").write_text(json.dumps(
            {"metric": "exact", "score": 0, "count": count, "by_tag": {"x->x": {"top1": 50.0}}}))
    build.build_table_report(tiny_config, "copynet_synthetic", figures=False)
    assert _caption() == SCALE + " Test sentences: 10, 12."


def test_a_table_of_single_runs_says_which_seed_and_what_one_seed_carries(tmp_path, monkeypatch, tiny_config):
    """Once a row has trained (its train_log.csv exists), a one-seed table's caption names the training seed (the
    tiny training's seed 1, tests/fixtures/tiny_params.yaml) and that a reading of one run is a hypothesis."""
    monkeypatch.chdir(tmp_path)
    run = Path("runs/t_encdec")
    run.mkdir(parents=True)
    (run / "train_log.csv").write_text("epoch,train_loss,valid_loss,valid_metric,wall_time_s,tokens_per_s\n"
                                       "1,2.0,2.5,10.0,3.0,100\n")
    build.build_table_report(tiny_config, "copynet_synthetic", figures=False)
    assert _caption().endswith(" One training run a row (seed 1): a reading of it is a hypothesis until another seed "
                               "repeats it.")
