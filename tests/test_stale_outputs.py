"""Nothing stale can be read after params.yaml stops asking for it: each stage owns its output directories whole
(both engines declare them, the stage replaces them), so a removed reference is never scored again and a DVC
checkout restores the data with its record.

The two end-to-end cases are the silent-wrong results a user found: scored with 4 references after 3 were removed
from params.yaml, and DVC restoring ``prepare.json`` of an 80-line training file over the 10-line one it replaced.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from test_local_data import ENV, LOCAL, local_params

METRICS = "results/metrics/m_encdec.json"


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    result = subprocess.run(args, cwd=cwd, env=ENV, capture_output=True, text=True)
    assert result.returncode == 0, f"{args}:\n{result.stdout}\n{result.stderr}"
    return result


def edit_params(directory: Path, change) -> None:
    raw = yaml.safe_load((directory / "params.yaml").read_text())
    change(raw["datasets"]["mine"]["files"])
    (directory / "params.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))


def with_three_more_references(directory: Path) -> None:
    """The test split of ``mine`` with references 1-3 (copies of the fixture's second reference)."""
    for k in (2, 3):
        shutil.copy(LOCAL / "test.ref1", directory / f"mydata/test.ref{k}")
    edit_params(directory, lambda files: files["test"].update(
        references=["mydata/test.ref1", "mydata/test.ref2", "mydata/test.ref3"]))


def without_references(directory: Path) -> None:
    edit_params(directory, lambda files: files["test"].pop("references"))


def references_scored(directory: Path) -> int:
    """The reference count the test split was scored with (``splits.test`` where every split is scored)."""
    metrics = yaml.safe_load((directory / METRICS).read_text())
    return metrics.get("splits", {}).get("test", metrics)["references"]


def dvc_repro(directory: Path, *targets: str) -> str:
    from paragen.config import load_config
    from paragen.pipeline.dvc import write_dvc_yaml

    write_dvc_yaml(load_config(directory / "params.yaml"), directory / "dvc.yaml")
    return run(["dvc", "repro", *targets], directory).stdout


def dvc_init(directory: Path) -> None:
    run(["git", "init", "-q"], directory)
    run(["dvc", "init", "-q"], directory)


@pytest.mark.e2e
def test_a_removed_reference_is_never_scored_under_snakemake(workflow_dir):
    local_params(workflow_dir)
    with_three_more_references(workflow_dir)
    run(["snakemake", "--cores", "2", METRICS], workflow_dir)
    assert references_scored(workflow_dir) == 4  # the target and three references
    without_references(workflow_dir)
    run(["snakemake", "--cores", "2", METRICS], workflow_dir)
    assert references_scored(workflow_dir) == 1
    assert sorted(p.name for p in (workflow_dir / "data/prepared/mine").glob("test.*")) == ["test.src", "test.tgt"]


@pytest.mark.e2e
def test_a_removed_reference_is_never_scored_under_dvc(workflow_dir):
    local_params(workflow_dir)
    dvc_init(workflow_dir)
    with_three_more_references(workflow_dir)
    dvc_repro(workflow_dir, "evaluate_m_encdec")
    assert references_scored(workflow_dir) == 4
    without_references(workflow_dir)
    dvc_repro(workflow_dir, "evaluate_m_encdec")
    assert references_scored(workflow_dir) == 1
    assert not list((workflow_dir / "data/segmented/mine.word").glob("test.ref.*"))


def lines(path: Path) -> int:
    return len(path.read_text().splitlines())


@pytest.mark.e2e
def test_dvc_restores_the_prepared_and_segmented_data_with_their_record(workflow_dir):
    """Train on 80 pairs, then on 10, then on the 80 again: DVC's run cache restores the first run's outputs, and
    the data it restores must be the 80 pairs that ``prepare.json`` describes (the old stages restored only the
    record and left the 10-pair files in place)."""
    local_params(workflow_dir)
    dvc_init(workflow_dir)
    stage = "vocab_mine"
    dvc_repro(workflow_dir, stage)
    assert lines(workflow_dir / "data/prepared/mine/train.src") == 80
    for side in ("src", "tgt"):
        (workflow_dir / f"mydata/short.{side}").write_text(
            "".join((LOCAL / f"train.{side}").read_text().splitlines(True)[:10]))
    edit_params(workflow_dir, lambda files: files["train"].update(source="mydata/short.src",
                                                                   target="mydata/short.tgt"))
    dvc_repro(workflow_dir, stage)
    assert lines(workflow_dir / "data/segmented/mine.word/train.src") == 10
    edit_params(workflow_dir, lambda files: files["train"].update(source="mydata/train.src",
                                                                   target="mydata/train.tgt"))
    restored = dvc_repro(workflow_dir, stage)
    assert "checking out" in restored.lower() or "restored" in restored.lower(), restored  # not re-run
    for directory in ("data/prepared/mine", "data/segmented/mine.word"):
        assert lines(workflow_dir / directory / "train.src") == 80, directory
    assert "up to date" in run(["dvc", "status", stage], workflow_dir).stdout


@pytest.mark.e2e
def test_snakemake_rebuilds_the_data_a_reverted_setting_asks_for(workflow_dir):
    """Snakemake keeps no run cache: reverting the training file re-runs prepare and segment, and every file of the
    directories is the 80-pair data again."""
    local_params(workflow_dir)
    target = "data/vocab/mine.word/vocab.txt"
    run(["snakemake", "--cores", "2", target], workflow_dir)
    for side in ("src", "tgt"):
        (workflow_dir / f"mydata/short.{side}").write_text(
            "".join((LOCAL / f"train.{side}").read_text().splitlines(True)[:10]))
    edit_params(workflow_dir, lambda files: files["train"].update(source="mydata/short.src",
                                                                   target="mydata/short.tgt"))
    run(["snakemake", "--cores", "2", target], workflow_dir)
    assert lines(workflow_dir / "data/segmented/mine.word/train.src") == 10
    edit_params(workflow_dir, lambda files: files["train"].update(source="mydata/train.src",
                                                                   target="mydata/train.tgt"))
    run(["snakemake", "--cores", "2", target], workflow_dir)
    for directory in ("data/prepared/mine", "data/segmented/mine.word"):
        assert lines(workflow_dir / directory / "train.src") == 80, directory
