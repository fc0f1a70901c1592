"""Restoring an earlier version: ``git checkout`` + ``dvc checkout`` give back a state DVC calls up to date, so
``dvc repro`` retrains nothing (a run's resume state is no output; its digest, resume.json, is cached)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import ROOT

ENV = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
       "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}


@pytest.mark.e2e
def test_git_checkout_and_dvc_checkout_restore_a_commit_that_needs_no_retraining(workflow_dir):
    from paragen.config import load_config
    from paragen.pipeline.dvc import write_dvc_yaml

    def run(*command: str) -> str:
        done = subprocess.run(command, cwd=workflow_dir, env=ENV, capture_output=True, text=True)
        assert done.returncode == 0, f"{command}:\n{done.stdout}\n{done.stderr}"
        return done.stdout + done.stderr

    shutil.copy(ROOT / ".gitignore", workflow_dir / ".gitignore")  # as in a clone: data/ and runs/ are not in git
    run("git", "init", "-q")
    run("dvc", "init", "-q")
    write_dvc_yaml(load_config(workflow_dir / "params.yaml"), workflow_dir / "dvc.yaml")
    run("dvc", "repro")
    run("git", "add", "-A")
    run("git", "commit", "-q", "-m", "first")
    assert not run("git", "ls-files", "runs", "data").strip()  # the runs travel through DVC alone
    first_best = (workflow_dir / "runs/t_wean/best.pt").read_bytes()
    first_table = (workflow_dir / "results/tables/copynet_synthetic.md").read_text()
    params = workflow_dir / "params.yaml"
    raw = yaml.safe_load(params.read_text())
    raw["models"]["wean"]["hidden_size"] = 12  # a second version that retrains WEAN
    params.write_text(yaml.safe_dump(raw, sort_keys=False))
    write_dvc_yaml(load_config(params), workflow_dir / "dvc.yaml")
    assert "Running stage 'train_t_wean'" in run("dvc", "repro")
    run("git", "add", "-A")
    run("git", "commit", "-q", "-m", "second")
    assert (workflow_dir / "runs/t_wean/best.pt").read_bytes() != first_best

    run("git", "checkout", "-q", "HEAD~1")
    run("dvc", "checkout")
    assert "Data and pipelines are up to date" in run("dvc", "status")
    again = run("dvc", "repro")
    assert "Running stage" not in again, again  # nothing retrains, nothing is decoded or scored again
    assert (workflow_dir / "runs/t_wean/best.pt").read_bytes() == first_best
    assert (workflow_dir / "results/tables/copynet_synthetic.md").read_text() == first_table
    assert run("git", "status", "--porcelain", "dvc.lock").strip() == ""  # dvc.lock is the commit's
