"""Taking in a GPU call's files (paragen.pipeline.queue_finish.unpack_call) without running anything: a stage counts
as done only when every output it owes came back and it ran with this checkout's settings; resume states are kept
whole, the furthest-trained one winning; a training done drops its resume state."""

import json
import os
import shutil
from pathlib import Path

import pytest

from paragen.pipeline.queue_device import command_stage, job_signature
from paragen.pipeline.queue_finish import unpack_call
from paragen.pipeline.queue_pack import Budget, PackItem, pack
from paragen.pipeline.queue_spec import job_config, job_stages, load_queue
from paragen.pipeline.queue_state import QueueState, signature

from conftest import TINY_PARAMS

QUEUE = """jobs:
  - {name: tiny, why: test, targets: [results/tables/copynet_synthetic.md]}
  - {name: bench, why: test, kind: command, command: [python3, -c, pass], outputs: [results/bench.txt], seconds: 9}
"""


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """A checkout with the tiny configuration and a two-job queue; ``machine`` beside it writes the call's files."""
    here = tmp_path / "here"
    (here / "workflow").mkdir(parents=True)
    shutil.copy(TINY_PARAMS, here / "params.yaml")
    (here / "workflow" / "gpu_queue.yaml").write_text(QUEUE)
    monkeypatch.chdir(here)
    return here


def call(machine: Path, stages: dict, items: list[PackItem], files: dict[str, str], budget=Budget()) -> Path:
    """A call's returned folder: ``files`` written on the machine, ``items`` packed from them."""
    for name, text in files.items():
        (machine / name).parent.mkdir(parents=True, exist_ok=True)
        (machine / name).write_text(text)
    out = machine.parent / (machine.name + "_out")
    pack(items, machine, out, budget, {"format": 1, "call": {"started": "t"}, "device": "GPU X", "stages": stages})
    return out


def signatures():
    queue = load_queue()
    config = job_config(queue.jobs[0])
    return queue, config, {s.name: signature(config, s) for s in job_stages(config, queue.jobs[0])}


def test_a_stage_is_done_only_when_what_it_owes_came_back_and_its_settings_are_this_checkout_s(checkout, tmp_path):
    queue, config, signed = signatures()
    log = ["runs/t_encdec/train_log.csv", "runs/t_encdec/sessions.json"]
    stages = {
        "train_t_encdec": {"how": "completed", "signature": signed["train_t_encdec"],
                           "required": log + ["runs/t_encdec/best.pt"]},  # its decoding did not run there
        "train_t_copynet": {"how": "completed", "signature": "0" * 16, "required": ["runs/t_copynet/train_log.csv"]},
        "train_t_wean": {"how": "completed", "signature": signed["train_t_wean"],
                         "required": ["runs/t_wean/train_log.csv"]},
        "decode_t_wean": {"how": "failed", "signature": signed["decode_t_wean"], "why": "exit 1"},
        "command_bench": {"how": "completed", "signature": job_signature(queue.jobs[1]),
                          "required": ["results/bench.txt"]},
    }
    files = {p: "x" for p in log + ["runs/t_copynet/train_log.csv", "runs/t_wean/train_log.csv", "results/bench.txt"]}
    files["runs/t_encdec/best.pt"] = os.urandom(2500).hex()  # about 2,700 bytes compressed: over the budget
    items = [PackItem("outputs_tiny", "outputs", log + ["runs/t_copynet/train_log.csv", "runs/t_wean/train_log.csv"]),
             PackItem("outputs_bench", "outputs", ["results/bench.txt"]),
             PackItem("weights_train_t_encdec", "weights", ["runs/t_encdec/best.pt"])]
    out = call(tmp_path / "machine", stages, items, files, Budget(total=600, part=15 << 20, parts=6))
    said = unpack_call(queue, out)
    assert said[0] == ("call 1 on GPU X: 4 completed, 0 stopped, 1 failed, 0 waiting; left on the machine (did not "
                       "fit): ['weights_train_t_encdec']")
    assert "train_t_encdec: completed there, but runs/t_encdec/best.pt did not come back (left: " \
        "['weights_train_t_encdec']); it runs again" in said
    assert "train_t_copynet: ran with other settings than this checkout's (params.yaml or the queue changed since " \
        "the call); not recorded" in said
    state = QueueState.read("results/gpu_queue/state.json")
    assert set(state.done) == {"train_t_wean", "command_bench"}
    assert state.done["train_t_wean"] == {"seq": 1, "signature": signed["train_t_wean"], "where": "device", "call": 1}
    assert Path("runs/t_wean/train_log.csv").read_text() == "x" and not Path("runs/t_encdec/best.pt").exists()
    assert json.loads(Path("results/gpu_queue/calls/1/manifest.json").read_text())["device"] == "GPU X"
    assert state.calls == [{"call": 1, "device": "GPU X", "started": "t", "record": "results/gpu_queue/calls/1",
                            "left": ["weights_train_t_encdec"]}]


def resume_item(run, epoch):
    return PackItem(f"resume_{run}", "resume", [f"runs/{run}/resume"],
                    {"run": run, "epoch": epoch, "finished": False, "best_epoch": epoch, "valid_metric": 1.0})


def test_resume_states_are_kept_whole_the_furthest_one_winning_and_dropped_when_the_training_is_done(checkout,
                                                                                                   tmp_path):
    queue, config, signed = signatures()
    state_file = {"runs/t_copynet/resume/state.pt": "epoch 3"}
    out = call(tmp_path / "m1", {}, [resume_item("t_copynet", 3)], state_file)
    assert "t_copynet: resume state after epoch 3 kept in results/gpu_queue/resume/t_copynet.call1.tgz" in \
        unpack_call(queue, out)
    assert not Path("runs/t_copynet/resume").exists()  # kept whole for the machine, not unpacked here
    out = call(tmp_path / "m2", {}, [resume_item("t_copynet", 2)], {"runs/t_copynet/resume/state.pt": "epoch 2"})
    assert "t_copynet: a resume state after epoch 3 is kept already; this call's (epoch 2) is older and left out" in \
        unpack_call(queue, out)
    assert QueueState.read(queue.state).resume["t_copynet"]["file"] == "t_copynet.call1.tgz"
    done = {"train_t_copynet": {"how": "completed", "signature": signed["train_t_copynet"],
                                "required": ["runs/t_copynet/train_log.csv"]}}
    out = call(tmp_path / "m3", done, [PackItem("outputs_tiny", "outputs", ["runs/t_copynet/train_log.csv"])],
               {"runs/t_copynet/train_log.csv": "log"})
    unpack_call(queue, out)
    state = QueueState.read(queue.state)
    assert state.resume == {} and "train_t_copynet" in state.done
    assert list(Path("results/gpu_queue/resume").iterdir()) == []
    assert [c["call"] for c in state.calls] == [1, 2, 3]
    assert command_stage(queue.jobs[1]).name == "command_bench"


def test_finish_makes_nothing_and_rebuilds_no_table_before_anything_came_back(checkout):
    """A committed table stays as it is until one of its rows is back: nothing can run here (every row waits for
    its training), so no table is made again with its rows "not yet run"."""
    from paragen.pipeline.queue_finish import finish

    queue = load_queue()
    assert finish(queue) == ["tiny: nothing back from a GPU call yet; its tables stay as they are",
                             "nothing new to make here (no stage that can run here is out of date, and no table's "
                             "inputs changed since the queue last made it)"]
    assert not Path("logs").exists() and not Path("results").exists()
