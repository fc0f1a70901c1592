"""bench/rehearse_data.py at a small fraction: stand-in served on loopback, the DAG's data stages, one epoch's
batches (the full-size runs are benchmarks, not tests)."""

import json
import subprocess
import sys

import pytest

from conftest import MIRROR, ROOT


@pytest.mark.e2e
@pytest.mark.skipif(not (MIRROR / "pwkp").is_dir(), reason=f"public-data mirror not found at {MIRROR}")
def test_a_small_rehearsal_runs_every_data_stage_and_an_epochs_batches(tmp_path):
    out = tmp_path / "pwkp.json"
    result = subprocess.run([sys.executable, str(ROOT / "bench/rehearse_data.py"), "pwkp", "--fraction", "0.005",
                             "--work", str(tmp_path / "work"), "--json", str(out)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    rows = json.loads(out.read_text())["stages"]
    assert [r["stage"] for r in rows] == ["fetch_pwkp", "prepare_pwkp", "segment_pwkp", "vocab_pwkp",
                                          "epoch_batches (batch 64)"]
    assert all(r["wall_s"] > 0 and r["peak_rss_mb"] > 0 for r in rows)
    prepared = (tmp_path / "work/data/prepared/pwkp/train.src").read_text().splitlines()
    assert len(prepared) == round(89_042 * 0.005)  # the stand-in's size: the registry's count times the fraction
    assert rows[-1]["last_line"].startswith("7 batches, ")  # 445 pairs in batches of 64 (one bucketing chunk)
