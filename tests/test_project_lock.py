"""One workflow engine at a time per clone (paragen.project_lock): a second engine refuses before any stage runs,
naming the first; Snakemake's lock left by a killed run is cleared in one line when no engine runs."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from paragen.project_lock import LOCK_NAME, clear_stale_snakemake_locks

ENV = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
HOLD = ("import sys, time; from paragen.project_lock import hold_for_snakemake; hold_for_snakemake(); "
        "print('held', flush=True); time.sleep(120)")


@pytest.fixture
def snakemake_holding(tmp_path):
    """A process holding the project lock as Snakemake's onstart takes it, in ``tmp_path``."""
    holder = subprocess.Popen([sys.executable, "-c", HOLD], cwd=tmp_path, env=ENV, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    yield holder
    holder.kill()
    holder.wait()


def test_a_second_holder_is_refused_naming_the_first(tmp_path, snakemake_holding):
    second = subprocess.run([sys.executable, "-c", HOLD], cwd=tmp_path, env=ENV, capture_output=True, text=True)
    assert second.returncode != 0
    line = second.stderr.strip().splitlines()[-1]
    assert f"snakemake (pid {snakemake_holding.pid}) since " in line
    assert "is running this project's stages; not starting snakemake" in line and f"kill {snakemake_holding.pid}" \
        in line


def _fake_dvc(tmp_path: Path, command: list[str]) -> subprocess.CompletedProcess:
    """Run ``command`` as a child of a process whose argv names ``dvc`` (how paragen.locks.engine_of finds it)."""
    script = tmp_path / "bin" / "dvc"
    script.parent.mkdir(exist_ok=True)
    script.write_text("import subprocess, sys\nsys.exit(subprocess.run(sys.argv[1:]).returncode)\n")
    return subprocess.run([sys.executable, str(script), *command], cwd=tmp_path, env=ENV, capture_output=True,
                          text=True)


def test_a_stage_under_dvc_refuses_while_snakemake_holds_the_lock(tmp_path, snakemake_holding):
    done = _fake_dvc(tmp_path, [sys.executable, "-m", "paragen.cli", "check-tables"])
    assert done.returncode == 2
    assert done.stderr.strip().startswith("paragen check-tables: error: snakemake (pid ")
    assert "not starting dvc (pid " in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_dvcs_first_stage_takes_the_lock_for_the_dvc_process_and_lets_go_when_it_ends(tmp_path):
    claim = ("from paragen.project_lock import claim_for_stage; claim_for_stage(); claim_for_stage(); "
             "print(open('.paragen-engine.lock').read().strip())")
    done = _fake_dvc(tmp_path, [sys.executable, "-c", claim])
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("dvc (pid ")  # the second claim found it held by the same dvc
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # the keeper lets go within a second of the dvc process's end
        probe = subprocess.run([sys.executable, "-c", HOLD.replace("time.sleep(120)", "pass")], cwd=tmp_path,
                               env=ENV, capture_output=True, text=True)
        if probe.returncode == 0:
            break
        time.sleep(0.3)
    assert probe.returncode == 0, probe.stderr


def test_a_command_run_by_hand_takes_no_project_lock(tmp_path, snakemake_holding):
    from paragen.project_lock import claim_for_stage

    claim_for_stage(tmp_path)  # pytest's process has no engine above it: nothing to refuse


def test_snakemakes_stale_lock_is_cleared_only_when_no_engine_runs(tmp_path):
    locks = tmp_path / ".snakemake" / "locks"
    locks.mkdir(parents=True)
    (locks / "0.input.lock").write_text("data/x\n")
    holder = subprocess.Popen([sys.executable, "-c", HOLD], cwd=tmp_path, env=ENV, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    try:
        assert clear_stale_snakemake_locks(tmp_path) is None and (locks / "0.input.lock").exists()
    finally:
        holder.kill()
        holder.wait()
    assert clear_stale_snakemake_locks(tmp_path) == (
        "paragen: removed Snakemake's lock (1 file(s) in .snakemake/locks) left by a run that was stopped (kill, "
        "power loss): no snakemake or dvc runs this project now")
    assert not list(locks.iterdir()) and clear_stale_snakemake_locks(tmp_path) is None
    assert (tmp_path / LOCK_NAME).exists()


def _files(directory: Path) -> dict[str, float]:
    return {str(p.relative_to(directory)): p.stat().st_mtime_ns for p in sorted(directory.rglob("*")) if p.is_file()}


@pytest.mark.e2e
def test_dvc_repro_runs_no_stage_while_snakemake_holds_the_lock(workflow_dir):
    """DVC deletes a stage's outputs before running its command, so the refusal must come before that: the outputs
    of an earlier run are all there, untouched, after a refused `dvc repro` whose first stage had changed."""
    from paragen.config import load_config
    from paragen.pipeline.dvc import write_dvc_yaml

    for command in (["git", "init", "-q"], ["dvc", "init", "-q"]):
        subprocess.run(command, cwd=workflow_dir, env=ENV, check=True)
    write_dvc_yaml(load_config(workflow_dir / "params.yaml"), workflow_dir / "dvc.yaml")
    subprocess.run(["dvc", "repro", "-q"], cwd=workflow_dir, env=ENV, check=True, capture_output=True)
    params = workflow_dir / "params.yaml"
    params.write_text(params.read_text().replace("seed: 3", "seed: 4", 1))  # the rule data's: every stage changes
    before = {**_files(workflow_dir / "data"), **_files(workflow_dir / "runs")}
    holder = subprocess.Popen([sys.executable, "-c", HOLD], cwd=workflow_dir, env=ENV, stdout=subprocess.PIPE,
                              text=True)
    assert holder.stdout.readline().strip() == "held"
    try:
        repro = subprocess.run(["dvc", "repro"], cwd=workflow_dir, env=ENV, capture_output=True, text=True)
    finally:
        holder.kill()
        holder.wait()
    said = repro.stdout + repro.stderr
    assert repro.returncode != 0 and "is busy, it is being blocked by" in said, said
    assert f"(PID {holder.pid}): snakemake (pid {holder.pid}) since " in said
    assert "Running stage" not in said  # refused before DVC deleted or ran anything
    assert {**_files(workflow_dir / "data"), **_files(workflow_dir / "runs")} == before
    again = subprocess.run(["dvc", "repro", "-q"], cwd=workflow_dir, env=ENV, capture_output=True, text=True)
    assert again.returncode == 0, again.stdout + again.stderr  # the holder is gone: DVC drops its entry, and runs
