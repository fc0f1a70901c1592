"""One lock per output for both engines (paragen.locks): a stage that writes a run directory, a prepared dataset or
a table refuses, naming the holder and the engine that started it, while another process writes it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from paragen.locks import OutputLockedError, holder_of, holding, lock_file
from test_local_data import ENV, local_params


def hold_under_fake_engine(tmp_path: Path, target: str, engine: str,
                           shared: bool = False) -> tuple[subprocess.Popen, int]:
    """A process holding ``target``'s lock, started by a script named like the engine (``snakemake``), as the
    engine starts a stage's command; returns (the script, the holder's pid) once the lock is held."""
    script = tmp_path / "bin" / engine
    script.parent.mkdir(exist_ok=True)
    script.write_text(f"#!/bin/sh\n{sys.executable} -c \"$@\"\n")
    script.chmod(0o755)
    code = (f"import os, time; from paragen.locks import holding\nwith holding({target!r}, shared={shared}):\n"
            "    print(os.getpid(), flush=True); time.sleep(120)")
    engine_process = subprocess.Popen([str(script), code], cwd=tmp_path, stdout=subprocess.PIPE, text=True, env=ENV)
    return engine_process, int(engine_process.stdout.readline())


def stop(engine_process: subprocess.Popen, pid: int) -> None:
    os.kill(pid, 9)
    engine_process.wait()


def test_a_writer_refuses_naming_the_holder_and_its_engine_then_takes_the_lock_once_it_is_gone(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    engine, pid = hold_under_fake_engine(tmp_path, "runs/x", "snakemake")
    try:
        assert lock_file("runs/x") == Path("runs/.x.lock")  # beside the directory, never inside it
        with pytest.raises(OutputLockedError) as refused:
            with holding("runs/x"):
                pass
        message = str(refused.value)
        assert message.startswith(f"runs/x is in use by process {pid} (")
        assert f"under snakemake (pid {engine.pid})" in message and f"kill {pid}" in message
        assert holder_of("runs/x").startswith(f"{pid} (")
    finally:
        stop(engine, pid)
    with holding("runs/x"):  # the kernel dropped the killed holder's lock: nothing to clear by hand
        assert holder_of("runs/x").startswith(f"{os.getpid()} (")  # now this process is the one named
    assert not list(Path("runs").glob("x*"))  # no lock file inside an output, no output created


def test_readers_share_but_keep_writers_out(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    engine, pid = hold_under_fake_engine(tmp_path, "runs/x", "dvc", shared=True)
    try:
        with holding("runs/x", shared=True):  # two decoders of one run side by side
            pass
        with pytest.raises(OutputLockedError, match="in use by process another process reading it"):
            with holding("runs/x"):
                pass
    finally:
        stop(engine, pid)


def test_a_finished_writer_leaves_no_name_behind(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with holding("results/tables/t"):
        assert f"{os.getpid()} (" in lock_file("results/tables/t").read_text()
    assert lock_file("results/tables/t").read_text() == ""  # a later refusal cannot name a writer long gone


@pytest.mark.e2e
def test_dvc_refuses_to_touch_a_run_that_snakemake_is_training(workflow_dir):
    """DVC trained ``m_encdec`` once (so its run cache holds the weights); Snakemake now retrains it (it deleted
    the outputs and its trainer holds the run's lock). `dvc repro` must not check the cached weights out into the
    run being trained: a train stage is never restored from DVC's run cache (its resume state is a persistent
    output), so DVC reaches `paragen train`, which refuses at once, naming Snakemake's process. The old stages
    restored ``best.pt`` from the run cache into the run mid-training."""
    from paragen.config import load_config
    from paragen.pipeline.dvc import write_dvc_yaml

    local_params(workflow_dir)
    for command in (["git", "init", "-q"], ["dvc", "init", "-q"]):
        subprocess.run(command, cwd=workflow_dir, check=True)
    write_dvc_yaml(load_config(workflow_dir / "params.yaml"), workflow_dir / "dvc.yaml")
    repro = ["dvc", "repro", "train_m_encdec"]
    subprocess.run(repro, cwd=workflow_dir, env=ENV, check=True, capture_output=True)
    for name in ("best.pt", "last.pt", "train_log.csv", "sessions.json"):  # as Snakemake does before its job
        (workflow_dir / "runs/m_encdec" / name).unlink(missing_ok=True)
    script = workflow_dir / "bin" / "snakemake"
    script.parent.mkdir()
    script.write_text(f"#!/bin/sh\n{sys.executable} -c \"$@\"\n")
    script.chmod(0o755)
    code = ("import os, time; from paragen.training.runlock import run_lock\nwith run_lock('runs/m_encdec'):\n"
            "    print(os.getpid(), flush=True); time.sleep(120)")
    engine = subprocess.Popen([str(script), code], cwd=workflow_dir, stdout=subprocess.PIPE, text=True, env=ENV)
    pid = int(engine.stdout.readline())
    try:
        started = time.monotonic()
        result = subprocess.run(repro, cwd=workflow_dir, env=ENV, capture_output=True, text=True)
    finally:
        stop(engine, pid)
    output = result.stdout + result.stderr
    assert not (workflow_dir / "runs/m_encdec/best.pt").exists(), output  # nothing checked out into the run
    assert result.returncode != 0, output
    assert f"paragen train: error: runs/m_encdec is in use by process {pid}" in output, output
    assert "under snakemake" in output
    assert time.monotonic() - started < 120  # refused at once, not after waiting for the holder


@pytest.mark.parametrize("target, command", [
    ("data/prepared/mine", ["prepare-local", "--dataset", "mine"]),
    ("results/tables/mine", ["report", "--table", "mine"]),
], ids=["prepared-dataset", "table"])
def test_prepare_and_report_refuse_while_the_other_engine_writes_the_same_output(workflow_dir, target, command):
    from test_local_data import paragen

    local_params(workflow_dir)
    engine, pid = hold_under_fake_engine(workflow_dir, target, "dvc")
    try:
        result = paragen(command, workflow_dir)
    finally:
        stop(engine, pid)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.strip().splitlines() == [
        f"paragen {command[0]}: error: {target} is in use by process {pid} ({result.stderr.split('(', 1)[1].split(')')[0]}) "
        f"under dvc (pid {engine.pid}); not writing it at the same time (wait for it, or stop it with `kill {pid}`)"]
    assert not (workflow_dir / target).exists()  # nothing written beside the holder
