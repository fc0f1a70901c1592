"""`paragen dvc-commit` refuses what would make dvc.lock lie, and names the stages it could not record."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from paragen.config import ConfigError, load_config
from paragen.pipeline.dvc_record import complete_stages, record_after_snakemake, record_into_dvc_lock
from paragen.pipeline.plan import stages
from paragen.pipeline.dvc import write_dvc_yaml

from conftest import TINY_PARAMS


def test_refuses_outside_a_dvc_repository_and_with_a_stale_dvc_yaml(tmp_path: Path):
    config = load_config(TINY_PARAMS)
    with pytest.raises(ConfigError, match="not a DVC repository"):
        record_into_dvc_lock(config, root=tmp_path)
    (tmp_path / ".dvc").mkdir()
    with pytest.raises(ConfigError, match="dvc.yaml is out of date with params.yaml: run `paragen dvc-yaml`"):
        record_into_dvc_lock(config, root=tmp_path)


def test_only_stages_whose_outputs_all_exist_are_complete(tmp_path: Path):
    config = load_config(TINY_PARAMS)
    first = stages(config)[0]
    for out in first.outs[:-1]:
        (tmp_path / out).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / out).write_text("x")
    complete, incomplete = complete_stages(config, tmp_path)
    assert complete == [] and first.name in incomplete  # one output missing
    (tmp_path / first.outs[-1]).write_text("x")
    complete, _ = complete_stages(config, tmp_path)
    assert complete == [first.name]


def test_a_stage_whose_outputs_exist_but_an_input_does_not_is_not_complete(tmp_path: Path):
    """In a fresh clone results/metrics/*.json are committed but runs/ is not: after a partial Snakemake run
    `dvc commit` was asked to record such score stages, refused, and (with --quiet) left an empty message."""
    config = load_config(TINY_PARAMS)
    score = next(s for s in stages(config) if s.step == "score")
    for path in score.outs:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("x")
    complete, incomplete = complete_stages(config, tmp_path)
    assert score.name in incomplete and score.name not in complete
    for path in score.deps:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        if not (tmp_path / path).exists():
            (tmp_path / path).write_text("x")
    assert score.name in complete_stages(config, tmp_path)[0]


def test_nothing_to_record_runs_no_dvc_command(tmp_path: Path):
    config = load_config(TINY_PARAMS)
    (tmp_path / ".dvc").mkdir()
    write_dvc_yaml(config, tmp_path / "dvc.yaml")
    recorded, skipped = record_into_dvc_lock(config, root=tmp_path)
    assert recorded == [] and skipped == [s.name for s in stages(config)]
    assert not (tmp_path / "dvc.lock").exists()


def test_a_run_with_config_overrides_is_not_recorded(tmp_path: Path):
    shutil.copy(TINY_PARAMS, tmp_path / "params.yaml")
    assert record_after_snakemake({}, root=tmp_path) == "not a DVC repository: dvc.lock not written"
    (tmp_path / ".dvc").mkdir()
    overridden = {**yaml.safe_load(TINY_PARAMS.read_text()), "scale": "paper"}
    assert "this run used --config overrides that params.yaml does not hold" in \
        record_after_snakemake(overridden, root=tmp_path)
    same = yaml.safe_load(TINY_PARAMS.read_text())
    assert record_after_snakemake(same, root=tmp_path) == (
        f"outputs not recorded into dvc.lock: {tmp_path / 'dvc.yaml'} is out of date with params.yaml: "
        "run `paragen dvc-yaml` first")
