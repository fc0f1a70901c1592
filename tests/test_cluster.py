"""The tiny configuration on a SLURM cluster (bench/slurm_local.sh): Snakemake's per-rule sbatch jobs through the
executor plugin and ``dvc repro`` inside one job both give the local run's results/ byte for byte, and the jobs
went where their resources say (train/decode: the GPU partition with one GPU; the rest: the CPU partition)."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

pytestmark = [pytest.mark.cluster,
              pytest.mark.skipif(shutil.which("sinfo") is None,
                                 reason="SLURM's sinfo is not installed: no cluster to run on (as root on Debian, "
                                 "bash bench/slurm_local.sh installs and starts a one-node one)")]


def test_tiny_configuration_on_slurm_gives_the_local_results():
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    result = subprocess.run(["bash", str(ROOT / "bench" / "slurm_local.sh")], env=env, capture_output=True,
                            text=True, timeout=3600)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-6000:]
    assert "slurm: results/ identical to local" in output and "dvc: results/ identical to local" in output, output
    jobs = re.findall(r"^\s+\d+\s+(\S+)\s+(\S+)\s+\d+\s+\S+\s+\S+\s+COMPLETED\s+rule_(\w+)", output, flags=re.M)
    assert len(jobs) == 14, output  # generate, vocab, 3 x (train, decode, score), compare, report, index
    assert "compare_t_copynet_vs_t_encdec" in {rule for _, _, rule in jobs}  # the bootstrap stage ran on a CPU
    for partition, gres, rule in jobs:
        on_gpu = rule.startswith(("train_", "decode_"))
        assert (partition, gres) == (("gpu", "gres:gpu:1") if on_gpu else ("cpu", "N/A")), (rule, partition, gres)
