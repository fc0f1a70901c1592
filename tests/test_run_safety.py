"""Results that look right and are not: stale resumes, two trainers in one run, rules ignored on resume."""

from __future__ import annotations

import logging
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from paragen.atomic import write_text
from paragen.config import ModelConfig, TrainingConfig
from paragen.data.corpus import ParallelCorpus, read_split
from paragen.data.registry import usable_mirrors
from paragen.data.synthetic import generate, write_splits
from paragen.training.runlock import RunLockedError, run_lock
from paragen.training.trainer import TrainingError, train
from paragen.data.vocabulary import Vocabulary

MODEL = ModelConfig(architecture="rnnsearch", embedding_size=8, hidden_size=12, dropout=0.2)


def _training(max_epochs: int = 3, patience: int = 10) -> TrainingConfig:
    return TrainingConfig(batch_size=8, max_epochs=max_epochs, patience=patience, valid_max_length=20, seed=3,
                          threads=1)


def _data(tmp_path: Path, tiny_config) -> tuple[ParallelCorpus, ParallelCorpus, Vocabulary]:
    write_splits(generate(tiny_config.datasets["tiny"]), tmp_path / "data")
    train_data, valid = read_split(tmp_path / "data", "train"), read_split(tmp_path / "data", "valid")
    return train_data, valid, Vocabulary.build([train_data.sources, train_data.targets])


def _train(run: Path, data, training: TrainingConfig, **kwargs):
    train_data, valid, vocab = data
    return train(model_config=MODEL, training=training, train_data=train_data, valid_data=valid, vocab=vocab,
                 run_dir=run, device=torch.device("cpu"), progress=False, **kwargs)


def _weights(path: Path) -> dict:
    return torch.load(path, weights_only=True)["model"]


def test_changed_data_at_equal_counts_starts_over(tmp_path, tiny_config, caplog):
    """Regenerated data (another seed, a preprocessing fix) must never resume the old model."""
    train_data, valid, vocab = _data(tmp_path, tiny_config)
    _train(tmp_path / "run", (train_data, valid, vocab), _training(), stop_after_epoch=2)
    # Same number of pairs and the same vocabulary; one training pair's target is reversed.
    changed = ParallelCorpus(train_data.sources, [list(reversed(train_data.targets[0]))] + train_data.targets[1:])
    assert len(changed) == len(train_data) and changed.targets != train_data.targets
    with caplog.at_level(logging.WARNING):
        state = _train(tmp_path / "run", (changed, valid, vocab), _training())
    assert "starting over, not resuming" in caplog.text and "its training data changed" in caplog.text
    assert state.epoch == 3 and len(state.log_rows) == 3
    fresh = _train(tmp_path / "fresh", (changed, valid, vocab), _training())
    assert fresh.log_rows[0]["train_loss"] == state.log_rows[0]["train_loss"]
    for key, value in _weights(tmp_path / "fresh" / "last.pt").items():
        assert torch.equal(value, _weights(tmp_path / "run" / "last.pt")[key]), key


def test_changed_vocabulary_or_validation_data_starts_over(tmp_path, tiny_config, caplog):
    train_data, valid, vocab = _data(tmp_path, tiny_config)
    _train(tmp_path / "run", (train_data, valid, vocab), _training(), stop_after_epoch=1)
    other_valid = ParallelCorpus(valid.sources[1:] + valid.sources[:1], valid.targets[1:] + valid.targets[:1])
    with caplog.at_level(logging.WARNING):
        _train(tmp_path / "run", (train_data, other_valid, vocab), _training(), stop_after_epoch=1)
    assert "its validation data changed" in caplog.text
    swapped = Vocabulary(vocab.itos[:4] + list(reversed(vocab.itos[4:])))
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        _train(tmp_path / "run", (train_data, other_valid, swapped), _training(), stop_after_epoch=1)
    assert "its vocabulary changed" in caplog.text


def test_a_second_trainer_in_the_same_run_directory_refuses(tmp_path, tiny_config):
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time; from paragen.training.runlock import run_lock\n"
        f"with run_lock({str(tmp_path / 'run')!r}):\n    print('locked', flush=True); time.sleep(60)")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(RunLockedError, match=rf"in use by process {holder.pid} .*kill {holder.pid}"):
            _train(tmp_path / "run", _data(tmp_path, tiny_config), _training(max_epochs=1))
    finally:
        holder.kill()
        holder.wait()
    with run_lock(tmp_path / "run"):  # the kernel released the lock of the killed holder
        pass


def test_a_trainer_dies_with_the_engine_that_started_it(tmp_path):
    """The engine is killed with SIGKILL; its child asked for PR_SET_PDEATHSIG and must end too."""
    child_code = ("import time; from paragen.training.runlock import die_with_parent; die_with_parent(); "
                  "print('ready', flush=True); time.sleep(60)")
    engine_code = (f"import subprocess, sys; child = subprocess.Popen([sys.executable, '-c', {child_code!r}], "
                   "stdout=subprocess.PIPE, text=True); print(child.pid, flush=True); "
                   "print(child.stdout.readline().strip(), flush=True); import time; time.sleep(60)")
    engine = subprocess.Popen([sys.executable, "-c", engine_code], stdout=subprocess.PIPE, text=True)
    child_pid = int(engine.stdout.readline())
    assert engine.stdout.readline().strip() == "ready"
    os.kill(engine.pid, signal.SIGKILL)
    engine.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(child_pid, 0)
        except ProcessLookupError:
            break
        if Path(f"/proc/{child_pid}/stat").read_text().split()[2] == "Z":
            break  # exited, waiting only to be reaped by init
        time.sleep(0.05)
    else:
        os.kill(child_pid, signal.SIGKILL)
        pytest.fail("the child outlived its killed parent")


def test_a_lower_epoch_limit_on_resume_is_refused_not_ignored(tmp_path, tiny_config):
    data = _data(tmp_path, tiny_config)
    _train(tmp_path / "run", data, _training(max_epochs=3))
    with pytest.raises(TrainingError, match="already trained 3 epochs, but max_epochs 2 / patience 10 / min_epochs 0 stop at "
                                            "epoch 2"):
        _train(tmp_path / "run", data, _training(max_epochs=2))
    assert _train(tmp_path / "run", data, _training(max_epochs=3)).epoch == 3  # the same rule republishes


@pytest.mark.parametrize("umask", [0o022, 0o002, 0o077])
def test_written_files_honour_the_umask(tmp_path, umask):
    previous = os.umask(umask)
    try:
        write_text(tmp_path / "out.txt", "x")
        (tmp_path / "plain.txt").write_text("x")
    finally:
        os.umask(previous)
    mode = stat.S_IMODE((tmp_path / "out.txt").stat().st_mode)
    assert mode == 0o666 & ~umask == stat.S_IMODE((tmp_path / "plain.txt").stat().st_mode)


def test_a_missing_mirror_is_named_once_and_skipped(tmp_path, caplog):
    (tmp_path / "a_file").write_text("x")
    with caplog.at_level(logging.WARNING):
        usable = usable_mirrors([str(tmp_path / "nope"), str(tmp_path), "http://127.0.0.1:9/m",
                                 str(tmp_path / "a_file")])
    assert usable == [str(tmp_path), "http://127.0.0.1:9/m"]
    assert caplog.text.count("does not exist; skipping it") == 1
    assert caplog.text.count("is not a directory; skipping it") == 1


def test_fetch_names_a_missing_mirror_once_before_downloading(tmp_path, monkeypatch, capsys, caplog):
    from paragen import cli
    from paragen.data import registry

    calls = []
    monkeypatch.setattr(registry, "fetch_dataset", lambda name, mirrors, *a, **k: calls.append(mirrors) or
                        tmp_path / name)
    with caplog.at_level(logging.WARNING):
        assert cli.main(["fetch", "turkcorpus", "asset", "--mirror", str(tmp_path / "nope"), "--quiet"]) == 0
    assert calls == [[], []] and caplog.text.count(str(tmp_path / "nope")) == 1


def test_verify_cache_names_an_object_corrupted_in_place(tmp_path, capsys):
    import hashlib

    from paragen.cli import main

    cache = tmp_path / "cache"
    good, bad = b"good artifact\n", b"artifact that will rot\n"
    for content in (good, bad):
        md5 = hashlib.md5(content).hexdigest()
        (cache / "files" / "md5" / md5[:2]).mkdir(parents=True, exist_ok=True)
        (cache / "files" / "md5" / md5[:2] / md5[2:]).write_bytes(content)
    assert main(["verify-cache", "--cache", str(cache), "--quiet"]) == 0
    rotten = cache / "files" / "md5" / hashlib.md5(bad).hexdigest()[:2] / hashlib.md5(bad).hexdigest()[2:]
    mtime = rotten.stat().st_mtime_ns
    rotten.write_bytes(b"artifact that will ROT\n")  # same size
    os.utime(rotten, ns=(mtime, mtime))  # and the same mtime: what dvc status cannot see
    assert main(["verify-cache", "--cache", str(cache), "--quiet"]) == 2
    out, err = capsys.readouterr()
    assert f"{rotten}: content hashes to {hashlib.md5(b'artifact that will ROT' + bytes([10])).hexdigest()}" in out
    assert "1 corrupted object(s)" in err


def test_a_generated_file_is_rewritten_only_when_its_text_changes(tmp_path):
    from paragen.atomic import holds, write_if_changed

    path = tmp_path / "sub" / "generated.md"
    assert not holds(path, "")  # absent is never up to date, not even for empty text
    assert write_if_changed(path, "a\n") is True and path.read_text() == "a\n"
    before = path.stat().st_mtime_ns
    time.sleep(0.01)
    assert write_if_changed(path, "a\n") is False and path.stat().st_mtime_ns == before  # untouched
    assert holds(path, "a\n") and not holds(path, "a") and not holds(path, "b\n")
    assert write_if_changed(path, "b\n") is True and path.read_text() == "b\n"
    assert [p.name for p in path.parent.iterdir()] == ["generated.md"]  # no temporary left beside it
