"""Own English data through the real Snakefile: ROUGE is on words (never silently on characters), the source row
leads the table on every split, and every score names its unit. The expected ROUGE is computed here with
rouge-score's own default tokenizer on the run's output and the prepared targets, independently of paragen."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from test_local_data import local_params

ENV = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}


@pytest.mark.e2e
def test_english_own_data_is_scored_on_words_with_the_source_row_and_units(workflow_dir):
    from rouge_score import rouge_scorer

    local_params(workflow_dir)
    params = workflow_dir / "params.yaml"
    raw = yaml.safe_load(params.read_text())
    raw["datasets"]["mine"]["evaluation"] = {"metrics": ["bleu", "rouge"]}  # rouge_unit left at its default
    raw["tables"]["mine"].update(columns=["bleu", "rouge1"], rows={"WEAN": "m_wean"})
    params.write_text(yaml.safe_dump(raw, sort_keys=False))
    done = subprocess.run(["snakemake", "--cores", "2", "results/tables/mine.md"], cwd=workflow_dir, env=ENV,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr

    metrics = json.loads((workflow_dir / "results/metrics/m_wean.json").read_text())["splits"]["test"]["rouge"]
    assert (metrics["unit"], metrics["unit_chosen"]) == ("word", "auto: --rouge-unit word")
    hyps = (workflow_dir / "runs/m_wean/test.hyp").read_text().splitlines()
    refs = (workflow_dir / "data/segmented/mine.word/test.ref.0").read_text().splitlines()
    scorer = rouge_scorer.RougeScorer(["rouge1"])  # its default tokenizer: lowercased words
    on_words = 100 * sum(scorer.score(r, h)["rouge1"].fmeasure for r, h in zip(refs, hyps)) / len(hyps)
    assert metrics["score"]["rouge1"] == pytest.approx(on_words, abs=1e-6)

    table = (workflow_dir / "results/tables/mine.md").read_text()
    header, _, source, wean = table.splitlines()[2:6]
    assert header == "| model | valid BLEU | valid ROUGE-1 | test BLEU | test ROUGE-1 |"
    assert source.startswith("| source (identity) | ") and "—" not in source  # scored on valid and test
    assert wean.startswith("| WEAN | ")
    assert "ROUGE-1/2/L: rouge-score F1 0-100 on words (auto: chosen by the references' script) of the outputs, " \
        "against the first reference only" in table
    assert "BLEU 0-100, corpus level, on lowercased sacrebleu 13a tokens (auto) of the outputs" in table
    rows = (workflow_dir / "results/tables/mine.csv").read_text().splitlines()
    assert all("on words" in row or "BLEU" in row for row in rows[1:])
    source_metrics = json.loads((workflow_dir / "results/metrics/mine_source.json").read_text())
    assert set(source_metrics["splits"]) == {"valid", "test"}
