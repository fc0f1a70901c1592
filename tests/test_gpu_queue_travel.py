"""What travels between the checkout and a GPU call (paragen.pipeline.queue_travel): a recorded resume state put
where its training looks for it unless the machine has a later one, refused when it does not match its record;
the data archive, refused when it would write outside data/; the size of what a call sends."""

import subprocess
import tarfile
from pathlib import Path

import pytest
import torch

from paragen.config import ConfigError
from paragen.pipeline.queue_pack import sha256_file
from paragen.pipeline.queue_travel import (DATA_ARCHIVE, data_archive, prepare_travel, restore_resume, travel_size,
                                           unpack_data)


@pytest.fixture(autouse=True)
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


def state(path: Path, epoch: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"train_state": {"epoch": epoch}}, path)


def archive(run: str, epoch: int, store: Path) -> dict:
    """A resume state packed as a call packs it (runs/<run>/resume/...), and its record."""
    state(Path("staging", "runs", run, "resume", "state.pt"), epoch)
    store.mkdir(parents=True, exist_ok=True)
    path = store / f"{run}.tgz"
    with tarfile.open(path, "w:gz") as tar:
        tar.add(Path("staging", "runs", run, "resume"), arcname=f"runs/{run}/resume")
    return {"epoch": epoch, "file": path.name, "sha256": sha256_file(path)}


def epoch_here(run: str) -> int:
    return torch.load(Path("runs", run, "resume", "state.pt"), weights_only=True)["train_state"]["epoch"]


def test_a_recorded_state_is_restored_unless_the_machine_has_one_as_far_on():
    store = Path("store")
    records = {"a": archive("a", 3, store), "b": archive("b", 3, store), "c": archive("c", 3, store)}
    state(Path("runs/b/resume/state.pt"), 5)  # a machine still running from the last call: its own is later
    state(Path("runs/c/resume/state.pt"), 2)  # an older one: replaced
    said = restore_resume(records, store)
    assert said == ["a: resume state of epoch 3 restored from store/a.tgz",
                    "b: this machine's resume state (epoch 5) kept",
                    "c: resume state of epoch 3 restored from store/c.tgz"]
    assert (epoch_here("a"), epoch_here("b"), epoch_here("c")) == (3, 5, 3)


def test_a_state_that_is_absent_or_altered_is_not_used_and_its_training_waits():
    store = Path("store")
    records = {"a": archive("a", 3, store), "b": archive("b", 3, store)}
    (store / "a.tgz").unlink()
    records["b"]["sha256"] = "0" * 64
    assert restore_resume(records, store) == [
        "a: resume state of epoch 3 not here (store/a.tgz); its training waits",
        "b: store/b.tgz does not match its recorded sha256; not used, its training waits"]
    assert not Path("runs").exists()


def test_a_state_holding_files_of_another_run_is_refused():
    store = Path("store")
    record = archive("a", 3, store)
    record["file"] = "a.tgz"
    assert restore_resume({"b": record}, store) == ["b: store/a.tgz holds files outside runs/b/resume/; not used"]


def test_the_data_archive_round_trips_and_writes_nothing_outside_data():
    Path("data/prepared/d").mkdir(parents=True)
    Path("data/prepared/d/train.src").write_text("a b\n")
    assert data_archive(["data/prepared/d", "data/absent", "data/prepared/d"]) == ["data/prepared/d"]
    Path("data/prepared/d/train.src").unlink()
    assert unpack_data() == ["data/prepared/d/train.src"]
    assert Path("data/prepared/d/train.src").read_text() == "a b\n"
    Path("params.yaml").write_text("x")
    with tarfile.open(DATA_ARCHIVE, "w:gz") as tar:
        tar.add("params.yaml")
    with pytest.raises(ConfigError, match=r"data\.tgz: holds \['params\.yaml'\] outside data/; not unpacked"):
        unpack_data()


def test_what_a_call_sends_is_the_checkout_git_shows_and_the_carried_paths():
    subprocess.run(["git", "init", "-q"], check=True)
    Path(".gitignore").write_text("/big/\n/.gpuqueue/\n")
    Path("tracked.txt").write_bytes(b"x" * 1000)
    Path("big").mkdir()
    Path("big/w.bin").write_bytes(b"x" * 5000)  # ignored, not carried: does not travel
    Path("data/prepared/d").mkdir(parents=True)
    Path("data/prepared/d/train.src").write_bytes(b"y" * 300)
    total, sizes = travel_size([])
    assert sizes == {"checkout (tracked and untracked files)": 1000 + len("/big/\n/.gpuqueue/\n") + 300}
    carry, said = prepare_travel(["data/prepared/d"], "results/gpu_queue/resume", wheels=".whl")
    assert carry == [".gpuqueue"]  # the store is not there yet; the wheels are absent
    assert said[0] == ".gpuqueue/data.tgz: 1 data paths (data/prepared/d)"
    assert said[-2].startswith("travels: ") and said[-2].endswith("which fits the 64 MiB a call takes")
    assert said[-1].startswith(".whl: absent")


def test_the_resume_state_estimate_is_what_the_trainer_s_files_weigh(tiny_config, tmp_path):
    """A CopyNet at embedding 64 / hidden 128 over 1,004 words: the state file (weights and Adam's moments after
    a step) and the best epoch's weights, as the trainer saves them, weigh the estimate within 2 % (pickling adds
    a little per tensor); a kept epoch weighs what a best-weights file does."""
    from paragen.models import build_model
    from paragen.pipeline.queue_travel import resume_bytes

    raw = tiny_config.model_dump(exclude_unset=True)
    raw["models"]["copynet"].update(embedding_size=64, hidden_size=128)
    raw["datasets"]["tiny"]["symbols"] = 1000
    from paragen.config import parse_config

    config = parse_config(raw, "test")
    model = build_model(config.models["copynet"], 1004)
    optimizer = torch.optim.Adam(model.parameters())
    sum(p.sum() for p in model.parameters()).backward()
    optimizer.step()
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, tmp_path / "state.pt")
    torch.save({"model": model.state_dict()}, tmp_path / "best.pt")
    saved = (tmp_path / "state.pt").stat().st_size + (tmp_path / "best.pt").stat().st_size
    state, epoch = resume_bytes(config, "t_copynet")
    assert abs(state - saved) / saved < 0.02 and abs(epoch - (tmp_path / "best.pt").stat().st_size) / epoch < 0.02
