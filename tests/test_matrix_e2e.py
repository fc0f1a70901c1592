"""The matrix end to end on tiny rule data: the real Snakefile trains each run once (cells reuse the suite's runs),
tests every cell against the baseline, writes the table, heat map and REPORT.md section; then `dvc repro` on the
same outputs finds nothing to do (both engines, one set of stages)."""

from __future__ import annotations

import csv

import pytest
import yaml

from paragen.config import load_config
from paragen.pipeline.dvc import write_dvc_yaml

from test_e2e import run

pytestmark = pytest.mark.e2e

TINY_MATRIX = {
    "title": "tiny matrix",
    "seeds": [1],
    "mechanisms": {
        "Enc-Dec": {"settings": {"architecture": "encdec"}},
        "RNNSearch": {"settings": {"architecture": "rnnsearch"}},
        "CopyNet": {"settings": {"architecture": "copynet"}},
        "SPM": {"settings": {"source_prediction": {"weight_c": 10.0}}},
        "Transformer": {"family": "transformer"},
    },
    "tasks": {"t": {"label": "tiny rules", "dataset": "tiny",
                    "recurrent": {"model": "rnnsearch_t", "training": "tiny", "decoding": "beam3"},
                    "transformer": {"model": "transformer_t", "training": "tiny", "decoding": "beam3"},
                    "metric": "exact", "baseline": "RNNSearch"}},
}


def test_matrix_through_snakemake_then_dvc(workflow_dir):
    params = workflow_dir / "params.yaml"
    raw = yaml.safe_load(params.read_text())
    raw["suites"] = ["matrix"]
    raw["models"]["rnnsearch_t"] = {"architecture": "rnnsearch", "embedding_size": 8, "hidden_size": 16}
    raw["models"]["transformer_t"] = {"architecture": "transformer", "embedding_size": 8, "heads": 2, "key_size": 4,
                                      "encoder_layers": 1, "decoder_layers": 1}
    raw["matrix"] = TINY_MATRIX
    params.write_text(yaml.safe_dump(raw, sort_keys=False))
    run(["git", "init", "-q"], workflow_dir)
    run(["dvc", "init", "-q"], workflow_dir)
    write_dvc_yaml(load_config(params), workflow_dir / "dvc.yaml")
    run(["snakemake", "--cores", "2"], workflow_dir)
    rows = {r["mechanism"]: r for r in csv.DictReader(open(workflow_dir / "results/tables/matrix.csv"))}
    assert rows["Enc-Dec"]["experiment"] == "t_encdec" and rows["CopyNet"]["experiment"] == "t_copynet"
    assert rows["Transformer"]["experiment"] == "mx_t_transformer" and rows["Transformer"]["status"] == "scored"
    assert rows["SPM"]["status"] == "does not apply"
    assert rows["RNNSearch"]["verdict"] == "baseline"
    # tiny training stops at its 2-epoch cap, so a cell below the baseline reads "possibly under-trained" (X15)
    assert all(rows[m]["verdict"] in ("better", "worse", "no difference shown", "possibly under-trained")
               and rows[m]["p_values"] and rows[m]["p_floors"] for m in ("Enc-Dec", "CopyNet", "Transformer"))
    assert sorted(p.name for p in (workflow_dir / "runs").iterdir() if not p.name.startswith(".")) == [
        "mx_t_rnnsearch", "mx_t_transformer", "t_copynet", "t_encdec"]  # each run once
    assert (workflow_dir / "results/figures/matrix_ranks.png").stat().st_size > 0
    assert "## tiny matrix" in (workflow_dir / "results/REPORT.md").read_text()
    again = run(["snakemake", "--cores", "2", "--dry-run"], workflow_dir)
    assert "Nothing to be done" in again.stdout + again.stderr
    assert "up to date" in run(["dvc", "status"], workflow_dir).stdout
