"""bench/probes/precision_probe.py's two pieces: the autocast it puts in the trainer's place (bf16 on the CPU, where
``training.amp`` does nothing) and the work folder it trains in (the experiment's training stopped after the
asked epochs, nothing else changed, the checkout's data linked)."""

import sys

import torch
import yaml

from conftest import ROOT, TINY_PARAMS

sys.path.insert(0, str(ROOT / "bench" / "probes"))
from precision_probe import cpu_bf16_autocast, prepare_workdir  # noqa: E402


def test_the_probe_autocasts_a_cpu_matmul_to_bf16_and_the_trainer_does_not():
    from paragen.training.trainer import autocast

    a, b = torch.randn(2, 3), torch.randn(3, 2)
    with cpu_bf16_autocast(torch.device("cpu"), True):
        assert (a @ b).dtype == torch.bfloat16
    with autocast(torch.device("cpu"), True):  # the trainer's: amp on the CPU is a no-op
        assert (a @ b).dtype == torch.float32


def test_the_work_folder_stops_the_experiments_training_after_the_epochs_asked(tmp_path):
    params = tmp_path / "checkout" / "params.yaml"
    params.parent.mkdir()
    params.write_text(TINY_PARAMS.read_text())
    (params.parent / "data").mkdir()
    written = prepare_workdir(params, "t_wean", 2, tmp_path / "work")
    raw, original = yaml.safe_load(written.read_text()), yaml.safe_load(TINY_PARAMS.read_text())
    assert raw["training"]["tiny"]["max_epochs"] == 2
    raw["training"]["tiny"]["max_epochs"] = original["training"]["tiny"]["max_epochs"]
    assert raw == original  # nothing else changed
    assert (tmp_path / "work" / "data").resolve() == (params.parent / "data").resolve()


def test_fp32_turns_the_experiments_amp_off_and_nothing_else(tmp_path):
    written = prepare_workdir(TINY_PARAMS, "t_wean", 3, tmp_path / "work", fp32=True)
    training = yaml.safe_load(written.read_text())["training"]["tiny"]
    assert training["amp"] is False and training["max_epochs"] == 3


def test_seed_sets_the_trainings_seed_where_the_experiment_names_none(tmp_path):
    original = yaml.safe_load(TINY_PARAMS.read_text())
    assert "seed" not in original["experiments"]["t_wean"]
    written = prepare_workdir(TINY_PARAMS, "t_wean", 3, tmp_path / "work", seed=7)
    original["training"]["tiny"].update(seed=7, max_epochs=3)
    assert yaml.safe_load(written.read_text()) == original  # the seed and the epochs, nothing else


def test_seed_sets_the_experiments_own_seed_where_it_names_one(tmp_path):
    params = tmp_path / "params.yaml"
    raw = yaml.safe_load(TINY_PARAMS.read_text())
    raw["experiments"]["t_wean"]["seed"] = 3
    params.write_text(yaml.safe_dump(raw, sort_keys=False))
    written = yaml.safe_load(prepare_workdir(params, "t_wean", 2, tmp_path / "work", seed=9).read_text())
    assert written["experiments"]["t_wean"]["seed"] == 9
    assert written["training"]["tiny"].get("seed") == raw["training"]["tiny"].get("seed")
