"""Resumption must be exact: an interrupted run ends with the weights of an uninterrupted one."""

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from paragen.config import ModelConfig, TrainingConfig
from paragen.data.corpus import read_split
from paragen.data.synthetic import generate, write_splits
from paragen.training.checkpoint import load_model
from paragen.training.trainer import LOG_FIELDS, train
from paragen.data.vocabulary import Vocabulary

from conftest import ROOT


def _data(tmp_path: Path, tiny_config):
    write_splits(generate(tiny_config.datasets["tiny"]), tmp_path / "data")
    train_data, valid_data = read_split(tmp_path / "data", "train"), read_split(tmp_path / "data", "valid")
    return train_data, valid_data, Vocabulary.build([train_data.sources, train_data.targets])


PER_TYPE = ("valid_em_x_to_0", "valid_em_x_to_x", "valid_em_x_to_xx", "valid_em_xy_to_x", "valid_em_xy_to_xy")
"""The per-rule-type validation exact match the synthetic data's log carries (issue 25), in §5.1's order."""
DEGENERATE = ("valid_empty", "valid_repeated", "valid_lines")
"""Counts of the greedy validation outputs that are empty or one token repeated, and of all of them."""


def _weights(path: Path) -> dict:
    return torch.load(path, weights_only=True)["model"]


def _same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def _run(tmp_path, name, tiny_config, data, max_epochs=4, schedule=None, device="cpu", **kwargs):
    train_data, valid_data, vocab = data
    training = TrainingConfig(batch_size=8, max_epochs=max_epochs, patience=10, valid_max_length=20, seed=5,
                              threads=1, **(schedule or {}))
    model = ModelConfig(architecture="copynet", embedding_size=8, hidden_size=16, dropout=0.3)
    return train(model_config=model, training=training, train_data=train_data, valid_data=valid_data,
                 vocab=vocab, run_dir=tmp_path / name, device=torch.device(device), progress=False, **kwargs)


def test_outputs_and_log(tmp_path, tiny_config):
    data = _data(tmp_path, tiny_config)
    state = _run(tmp_path, "full", tiny_config, data)
    run = tmp_path / "full"
    rows = list(csv.DictReader(open(run / "train_log.csv")))
    assert [int(r["epoch"]) for r in rows] == [1, 2, 3, 4] and tuple(rows[0]) == LOG_FIELDS + PER_TYPE + DEGENERATE
    assert all(float(r["tokens_per_s"]) > 0 for r in rows)
    valid_lines = len(data[1].sources)
    assert all(int(r["valid_lines"]) == valid_lines and 0 <= int(r["valid_empty"]) + int(r["valid_repeated"])
               <= valid_lines for r in rows)
    best = torch.load(run / "best.pt", weights_only=True)
    assert best["epoch"] == state.best_epoch
    model, _ = load_model(run / "best.pt", torch.device("cpu"))
    assert model.copies


@pytest.mark.parametrize("schedule", [None, {"schedule": "inverse_sqrt", "warmup_steps": 3, "learning_rate": 0.01},
                                      {"schedule": "halve_after", "halve_after_epoch": 1}],
                         ids=["constant", "inverse_sqrt", "halve_after"])
def test_interrupted_run_resumes_to_identical_weights(tmp_path, tiny_config, schedule):
    data = _data(tmp_path, tiny_config)
    _run(tmp_path, "full", tiny_config, data, schedule=schedule)
    stopped = _run(tmp_path, "resumed", tiny_config, data, schedule=schedule, stop_after_epoch=2)
    assert stopped.epoch == 2 and not (tmp_path / "resumed" / "best.pt").exists()  # nothing published
    _run(tmp_path, "resumed", tiny_config, data, schedule=schedule)
    for name in ("last.pt", "best.pt"):
        assert _same(_weights(tmp_path / "full" / name), _weights(tmp_path / "resumed" / name))
    assert (tmp_path / "full" / "train_log.csv").read_text().count("\n") == 5


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device (CI has none; run on a GPU machine)")
def test_interrupted_run_resumes_to_identical_weights_on_cuda(tmp_path, tiny_config, monkeypatch):
    """The same exactness on a GPU (bf16 autocast, cuDNN GRUs, CUDA RNG states in the resume file).

    Deterministic kernels are demanded, since atomics-based ones (embedding backward) would make even two
    uninterrupted runs differ; cuBLAS needs its workspace setting for that, made before the first CUDA call.
    """
    monkeypatch.setenv("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    torch.use_deterministic_algorithms(True)
    try:
        data = _data(tmp_path, tiny_config)
        _run(tmp_path, "full", tiny_config, data, device="cuda")
        _run(tmp_path, "resumed", tiny_config, data, device="cuda", stop_after_epoch=2)
        _run(tmp_path, "resumed", tiny_config, data, device="cuda")
    finally:
        torch.use_deterministic_algorithms(False)
    sessions = json.loads((tmp_path / "resumed" / "sessions.json").read_text())
    assert [s["first_epoch"] for s in sessions] == [1, 3]
    assert {s["device"] for s in sessions} == {torch.cuda.get_device_name(0) + ", bf16 autocast"}  # amp: default on
    for name in ("last.pt", "best.pt"):
        assert _same(_weights(tmp_path / "full" / name), _weights(tmp_path / "resumed" / name))


def test_raising_max_epochs_continues_a_finished_run(tmp_path, tiny_config):
    data = _data(tmp_path, tiny_config)
    _run(tmp_path, "full", tiny_config, data)
    short = _run(tmp_path, "extended", tiny_config, data, max_epochs=2)
    assert short.finished and short.epoch == 2 and (tmp_path / "extended" / "best.pt").exists()
    longer = _run(tmp_path, "extended", tiny_config, data)  # the stopping rule is not part of the digest
    assert longer.epoch == 4 and len(longer.log_rows) == 4
    assert _same(_weights(tmp_path / "full" / "last.pt"), _weights(tmp_path / "extended" / "last.pt"))
    full_log = (tmp_path / "full" / "train_log.csv").read_text().splitlines()
    extended_log = (tmp_path / "extended" / "train_log.csv").read_text().splitlines()
    assert [row.split(",")[:4] for row in full_log] == [row.split(",")[:4] for row in extended_log]


def test_changed_settings_discard_the_resume_state(tmp_path, tiny_config, caplog):
    data = _data(tmp_path, tiny_config)
    _run(tmp_path, "run", tiny_config, data, stop_after_epoch=1)
    train_data, valid_data, vocab = data
    other = TrainingConfig(batch_size=8, max_epochs=1, patience=10, valid_max_length=20, seed=6, threads=1)
    state = train(model_config=ModelConfig(architecture="copynet", embedding_size=8, hidden_size=16),
                  training=other, train_data=train_data, valid_data=valid_data, vocab=vocab,
                  run_dir=tmp_path / "run", device=torch.device("cpu"), progress=False)
    assert state.epoch == 1 and "its model and training settings changed" in caplog.text


def test_kill_9_then_resume_matches_uninterrupted(tmp_path):
    """The real CLI, killed with SIGKILL after its first epoch checkpoint, then run again."""
    params = (ROOT / "tests" / "fixtures" / "tiny_params.yaml").read_text()
    params = params.replace("max_epochs: 2, patience: 2", "max_epochs: 6, patience: 6")
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    cli = [sys.executable, "-m", "paragen.cli"]
    for name in ("a", "b"):
        work = tmp_path / name
        work.mkdir()
        (work / "params.yaml").write_text(params)
        for command in (["generate", "--dataset", "tiny"], ["vocab", "--dataset", "tiny"]):
            subprocess.run(cli + command, cwd=work, check=True, env=env, capture_output=True)
    train_cmd = cli + ["train", "--experiment", "t_copynet", "--quiet"]
    subprocess.run(train_cmd, cwd=tmp_path / "a", check=True, env=env, capture_output=True)

    victim = subprocess.Popen(train_cmd, cwd=tmp_path / "b", env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    resume_state = tmp_path / "b" / "runs" / "t_copynet" / "resume" / "state.pt"
    deadline = time.monotonic() + 120
    while not resume_state.exists() and victim.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    victim.send_signal(signal.SIGKILL)
    victim.wait()
    assert victim.returncode == -signal.SIGKILL, "training finished before it could be killed"
    assert not (tmp_path / "b" / "runs" / "t_copynet" / "best.pt").exists()
    subprocess.run(train_cmd, cwd=tmp_path / "b", check=True, env=env, capture_output=True)
    for name in ("last.pt", "best.pt"):
        assert _same(_weights(tmp_path / "a" / "runs" / "t_copynet" / name),
                     _weights(tmp_path / "b" / "runs" / "t_copynet" / name))


def test_learning_rate_schedules_by_hand():
    from paragen.training.schedules import rate_multiplier, set_rate

    warm = TrainingConfig(schedule="inverse_sqrt", warmup_steps=4)
    # rises linearly to 1 at step 4, then (step / 4)^-0.5: step 16 -> 1/2, step 64 -> 1/4
    assert [rate_multiplier(warm, s, 1) for s in (1, 2, 4, 16, 64)] == [0.25, 0.5, 1.0, 0.5, 0.25]
    halve = TrainingConfig(schedule="halve_after", halve_after_epoch=9)
    assert [rate_multiplier(halve, 100, e) for e in (1, 9, 10, 11, 12)] == [1, 1, 0.5, 0.25, 0.125]
    assert rate_multiplier(TrainingConfig(), 12345, 30) == 1.0
    optimizer = torch.optim.Adam([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
    assert set_rate(optimizer, TrainingConfig(learning_rate=0.002, schedule="halve_after", halve_after_epoch=1),
                    step=7, epoch=3) == pytest.approx(0.0005)
    assert optimizer.param_groups[0]["lr"] == pytest.approx(0.0005)


def test_adam_settings_reach_the_optimiser(tmp_path, tiny_config):
    data = _data(tmp_path, tiny_config)
    _run(tmp_path, "vaswani", tiny_config, data, max_epochs=1,
         schedule={"adam_betas": [0.9, 0.98], "adam_eps": 1e-9, "schedule": "inverse_sqrt", "warmup_steps": 2})
    saved = torch.load(tmp_path / "vaswani" / "resume" / "state.pt", weights_only=True)
    group = saved["optimizer"]["param_groups"][0]
    assert tuple(group["betas"]) == (0.9, 0.98) and group["eps"] == 1e-9
    steps = saved["train_state"]["optimizer_steps"]
    assert steps > 2 and group["lr"] == pytest.approx(1e-3 * (steps / 2) ** -0.5)


def test_the_log_reports_token_accuracy_and_extra_validation_metrics(tmp_path, tiny_config):
    data = _data(tmp_path, tiny_config)
    _run(tmp_path, "monitored", tiny_config, data, max_epochs=2, schedule={"log_metrics": ["exact_match", "bleu"]})
    rows = list(csv.DictReader(open(tmp_path / "monitored" / "train_log.csv")))
    assert tuple(rows[0]) == LOG_FIELDS + ("valid_exact_match", "valid_bleu") + PER_TYPE + DEGENERATE
    for row in rows:
        assert 0.0 <= float(row["train_accuracy"]) <= 100.0 and 0.0 <= float(row["valid_accuracy"]) <= 100.0
        # the selection metric is exact match too, from the same greedy outputs
        assert float(row["valid_exact_match"]) == float(row["valid_metric"])


def test_sari_validator_by_hand():
    from paragen.data.corpus import ParallelCorpus
    from paragen.training.validation import make_validator

    # source "a b c", output "a b", reference "a": add 0, keep (2/3)/4, delete (2/3 + 2/3 + 1 + 0)/4 (worked
    # out in tests/test_scoring_variants.py) -> SARI = 100 (1/6 + 7/12) / 3 = 25
    validator = make_validator("sari", ParallelCorpus([["a", "b", "c"]], [["a"]]), [["a"]])
    assert validator([["a", "b"]]) == pytest.approx(25.0)


def test_logging_more_metrics_or_spelling_out_a_default_keeps_the_run_resumable(tmp_path, tiny_config, caplog):
    from paragen.training.checkpoint import resume_digest

    data = _data(tmp_path, tiny_config)
    train_data, valid_data, vocab = data
    base = TrainingConfig(batch_size=8, seed=5)
    model = ModelConfig(architecture="copynet", embedding_size=8, hidden_size=16)
    digest = resume_digest(model, base, train_data, valid_data, vocab)
    same = [(model, TrainingConfig(batch_size=8, seed=5, log_metrics=["bleu"])),
            (model, TrainingConfig(batch_size=8, seed=5, schedule="constant", adam_eps=1e-8)),
            (ModelConfig(architecture="copynet", embedding_size=8, hidden_size=16, heads=5), base)]
    for m, t in same:
        assert resume_digest(m, t, train_data, valid_data, vocab) == digest
    changed = resume_digest(model, TrainingConfig(batch_size=8, seed=5, schedule="inverse_sqrt"), train_data,
                            valid_data, vocab)
    assert changed["model and training settings"] != digest["model and training settings"]


def test_each_training_process_records_its_first_epoch_and_device(tmp_path, tiny_config):
    """sessions.json names the hardware and shows where a run was split (tables quote it in captions)."""
    data = _data(tmp_path, tiny_config)
    _run(tmp_path, "split", tiny_config, data, stop_after_epoch=2)
    _run(tmp_path, "split", tiny_config, data)
    _run(tmp_path, "split", tiny_config, data)  # already finished: no training, no new session
    sessions = json.loads((tmp_path / "split" / "sessions.json").read_text())
    assert [s["first_epoch"] for s in sessions] == [1, 3]
    assert all(s["device"].startswith("CPU ") and s["device"].endswith("1 thread(s)") for s in sessions)


def test_a_gpu_session_says_when_it_trained_under_bf16_autocast(monkeypatch):
    """training.amp changes the numbers a GPU run gives (bf16 matrix products): the caption must say so; on the CPU
    amp does nothing and is not mentioned."""
    from paragen.training.trainer import describe_device

    monkeypatch.setattr(torch.cuda, "get_device_name", lambda device=None: "NVIDIA H200")
    assert describe_device(torch.device("cuda"), amp=True) == "NVIDIA H200, bf16 autocast"
    assert describe_device(torch.device("cuda"), amp=False) == "NVIDIA H200"
    assert "bf16" not in describe_device(torch.device("cpu"), amp=True)


def test_a_run_whose_metrics_are_numpy_scalars_still_resumes(tmp_path, tiny_config):
    """SARI and BLEU come back as numpy floats; the resume state must stay loadable with weights_only=True."""
    import numpy as np

    data = _data(tmp_path, tiny_config)
    scores = iter(np.float64(v) for v in (1.0, 2.0, 3.0, 4.0))
    _run(tmp_path, "np", tiny_config, data, stop_after_epoch=2, validator=lambda outputs: next(scores))
    state = _run(tmp_path, "np", tiny_config, data, validator=lambda outputs: next(scores))
    assert [row["valid_metric"] for row in state.log_rows] == [1.0, 2.0, 3.0, 4.0]


def test_exact_match_by_rule_type_counted_by_hand():
    from paragen.data.corpus import ParallelCorpus
    from paragen.training.trainer import exact_match_by_tag, tag_column

    data = ParallelCorpus(sources=[["s"]] * 5, targets=[["a"], ["b"], ["c"], ["d"], ["e"]],
                          tags=["x->x", "x->x", "xy->xy", "xy->xy", "xy->xy"])
    outputs = [["a"], ["z"], ["c"], ["d"], ["e", "e"]]  # x->x: 1 of 2 right; xy->xy: 2 of 3
    scores = exact_match_by_tag(outputs, data)
    assert scores == pytest.approx({"x->x": 50.0, "xy->xy": 200 / 3})
    assert tag_column("xy->xy") == "valid_em_xy_to_xy" and tag_column("x->0") == "valid_em_x_to_0"
    assert exact_match_by_tag(outputs, ParallelCorpus(data.sources, data.targets)) == {}


def test_the_log_carries_each_rule_types_validation_accuracy(tmp_path, tiny_config):
    data = _data(tmp_path, tiny_config)
    _run(tmp_path, "typed", tiny_config, data, max_epochs=3)
    rows = list(csv.DictReader(open(tmp_path / "typed" / "train_log.csv")))
    tags = data[1].tags
    counts = {t: tags.count(t) for t in set(tags)}
    columns = {t: "valid_em_" + t.replace("->", "_to_") for t in counts}
    for row in rows:
        # the overall selection metric is the count-weighted mean of the per-type accuracies
        overall = sum(counts[t] * float(row[c]) for t, c in columns.items()) / len(tags)
        assert overall == pytest.approx(float(row["valid_metric"]), abs=0.01)
        for c in columns.values():
            # each type's accuracy is k / count for a whole number of right outputs k
            hits = float(row[c]) * counts[next(t for t in columns if columns[t] == c)] / 100
            assert hits == pytest.approx(round(hits), abs=0.01)


def test_each_session_records_the_stopping_rule_it_trained_under(tmp_path, tiny_config):
    data = _data(tmp_path, tiny_config)
    _run(tmp_path, "rule", tiny_config, data, max_epochs=2)
    sessions = json.loads((tmp_path / "rule" / "sessions.json").read_text())
    assert sessions[0]["stopping"] == {"max_epochs": 2, "patience": 10, "min_epochs": 0,
                                       "floor_by_loss": False}
