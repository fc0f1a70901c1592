"""The GPU queue's whole cycle on a CPU (docs/cluster.md, "A GPU lent for minutes"): a call that stops mid-training,
its files unpacked into a fresh clone, a second call on a fresh copy of that clone that resumes the trainings and
finishes them, its files unpacked, the tables made here. The result must be the tables of one uninterrupted run
of the pipeline (Snakemake), exactly: resumption is exact on a CPU (paragen.training.trainer)."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import TINY_PARAMS, copy_workflow

pytestmark = pytest.mark.e2e

ENV = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
ENV.pop("OUT", None)
QUEUE = """jobs:
  - name: tiny_table
    why: the tiny configuration's table, as the queue's cycle test runs it
    targets: [results/tables/copynet_synthetic.md]
"""
TABLE = "results/tables/copynet_synthetic"
PAGES = [f"{TABLE}.md", f"{TABLE}.tex", f"{TABLE}_examples.md"]
SAME = [f"{TABLE}.csv", f"{TABLE}_comparisons.csv", "results/metrics/t_encdec.json", "results/metrics/t_copynet.json",
        "results/metrics/t_copynet.vs.t_encdec.json", "runs/t_encdec/test.hyp", "runs/t_copynet/test.hyp",
        "runs/t_copynet/test.nbest.jsonl"]


def run(args, cwd):
    result = subprocess.run(args, cwd=cwd, env=ENV, capture_output=True, text=True)
    assert result.returncode == 0, f"{args} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"
    return result.stdout


def queue(cwd, *args):
    return run([sys.executable, "-m", "paragen.cli", "gpu-queue", *args], cwd)


def origin(directory: Path) -> Path:
    """A git repository of the workflow with the tiny configuration (two rows: Enc-Dec trains two epochs, CopyNet
    three) and a one-job queue."""
    copy_workflow(directory)
    shutil.copy(Path(__file__).parent.parent / ".gitignore", directory / ".gitignore")
    text = TINY_PARAMS.read_text()
    text = text.replace("rows: {Enc-Dec: t_encdec, CopyNet: t_copynet, WEAN: t_wean}",
                        "rows: {Enc-Dec: t_encdec, CopyNet: t_copynet}")
    text = text.replace("  tiny: {batch_size: 8, max_epochs: 2, patience: 2,",
                        "  tiny3: {batch_size: 8, max_epochs: 3, patience: 3, valid_max_length: 20, seed: 1, "
                        "threads: 1}\n"
                        "  tiny: {batch_size: 8, max_epochs: 2, patience: 2,")
    text = text.replace("t_copynet: {dataset: tiny, model: copynet, training: tiny,",
                        "t_copynet: {dataset: tiny, model: copynet, training: tiny3,")
    assert "WEAN: t_wean" not in text and "training: tiny3" in text and "tiny3: {" in text
    (directory / "params.yaml").write_text(text)
    (directory / "workflow" / "gpu_queue.yaml").write_text(QUEUE)
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"]):
        run(["git", *args], directory)
    return directory


def clone(source: Path, directory: Path) -> Path:
    run(["git", "clone", "-q", str(source), str(directory)], source.parent)
    return directory


def machine_copy(checkout: Path, directory: Path) -> Path:
    """What a GPU machine gets: the tracked and untracked-not-ignored files of the checkout, nothing else."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=checkout,
                            capture_output=True, check=True).stdout.split(b"\0")
    for name in filter(None, listed):
        target = directory / name.decode()
        target.parent.mkdir(parents=True, exist_ok=True)
        if (checkout / name.decode()).is_file():
            shutil.copy2(checkout / name.decode(), target)
    return directory


def without_times(text: str) -> str:
    """A table page without the sentences that say how long and where training ran (wall times differ between
    two runs, and a resumed run says where it resumed: what a table should say about it)."""
    text = re.sub(r" Trained on .*? over \d+ run\(s\)\.", "", text)
    return "\n".join(line for line in text.splitlines() if "wall time per row" not in line)


def log_without_times(path: Path) -> list[list[str]]:
    lines = [line.split(",") for line in path.read_text().splitlines()]
    dropped = {lines[0].index("wall_time_s"), lines[0].index("tokens_per_s")}
    return [[v for i, v in enumerate(line) if i not in dropped] for line in lines]


def test_a_call_stopped_mid_training_resumed_on_a_fresh_copy_gives_the_uninterrupted_tables(tmp_path):
    source = origin(tmp_path / "origin")
    reference = clone(source, tmp_path / "reference")
    run(["snakemake", "--cores", "2", f"{TABLE}.md"], reference)

    first = machine_copy(source, tmp_path / "machine1")
    queue(first, "run", "--deadline", "600", "--out", str(tmp_path / "out1"), "--cores", "2", "--stop-after-epoch", "2")
    manifest = json.loads((tmp_path / "out1" / "manifest.json").read_text())
    assert {name: entry["how"] for name, entry in manifest["stages"].items()} == {
        "generate_tiny": "completed", "vocab_tiny": "completed", "train_t_encdec": "completed",
        "decode_t_encdec": "completed", "score_t_encdec": "completed", "train_t_copynet": "stopped",
        "decode_t_copynet": "waiting", "score_t_copynet": "waiting", "compare_t_copynet_vs_t_encdec": "waiting"}
    resumed = {item["run"]: (item["epoch"], item["finished"]) for item in manifest["items"] if item["kind"] == "resume"}
    assert resumed == {"t_copynet": (2, False)}  # Enc-Dec finished its two epochs, CopyNet stopped after 2 of 3

    here = clone(source, tmp_path / "here")
    said = queue(here, "unpack", "--files", str(tmp_path / "out1"), "--cores", "2")  # and finish
    assert "t_copynet: resume state after epoch 2 kept in results/gpu_queue/resume/t_copynet.call1.tgz" in said
    assert "report_copynet_synthetic: made here (some rows not back yet)\n" in said  # the row that is back
    partial = (here / f"{TABLE}.md").read_text()
    assert "- CopyNet (every column): not yet run" in partial and "Enc-Dec (every column)" not in partial
    assert not (here / "results/figures").exists()  # figures and examples show every row: not yet
    run(["git", "add", "-A"], here)
    run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "call 1"], here)

    second = machine_copy(here, tmp_path / "machine2")
    assert not (second / "runs").exists()  # a fresh machine: the resume states travel in the checkout alone
    queue(second, "run", "--deadline", "600", "--out", str(tmp_path / "out2"), "--cores", "2")
    manifest = json.loads((tmp_path / "out2" / "manifest.json").read_text())
    assert {name: entry["how"] for name, entry in manifest["stages"].items()} == {
        "generate_tiny": "completed", "vocab_tiny": "completed", "train_t_encdec": "up to date",
        "decode_t_encdec": "up to date", "score_t_encdec": "up to date", "train_t_copynet": "completed",
        "decode_t_copynet": "completed", "score_t_copynet": "completed", "compare_t_copynet_vs_t_encdec": "waiting"}
    assert manifest["stages"]["compare_t_copynet_vs_t_encdec"]["why"] == \
        "needs runs/t_encdec/test.hyp, which is not here (decode_t_encdec was done elsewhere)"  # made here, below
    assert not manifest["left"] and not [i for i in manifest["items"] if i["kind"] == "resume"]
    said = queue(here, "unpack", "--files", str(tmp_path / "out2"), "--cores", "2")
    assert not list((here / "results/gpu_queue/resume").iterdir())  # finished: no resume state kept
    assert "compare_t_copynet_vs_t_encdec: made here\n" in said  # its inputs came back in two calls
    assert "report_copynet_synthetic: made here\n" in said and "generate_tiny" not in said  # data made before
    assert queue(here, "finish").endswith("nothing new to make here (no stage that can run here is out of date, "
                                          "and no table's inputs changed since the queue last made it)\n")
    assert queue(here, "status") == "tiny_table: 10 of 10 stages done\n"  # data 2, rows 2 x 3, compare, table

    for path in SAME:
        assert (here / path).read_bytes() == (reference / path).read_bytes(), path
    for path in PAGES:
        assert without_times((here / path).read_text()) == without_times((reference / path).read_text()), path
    for run_name in ("t_encdec", "t_copynet"):
        log = Path("runs", run_name, "train_log.csv")
        assert log_without_times(here / log) == log_without_times(reference / log)
        sessions = json.loads((here / "runs" / run_name / "sessions.json").read_text())
        assert [s["first_epoch"] for s in sessions] == ([1] if run_name == "t_encdec" else [1, 3])
    assert "CopyNet 0.0 min, resumed at epoch 3" in (here / f"{TABLE}.md").read_text()
