"""What a GPU call decides to bring back (paragen.pipeline.queue_device.pack_items): light outputs always, the
weights a stage not run there still reads, of a run's kept epochs only the one a closest-epoch decode chooses, and
the resume state of every training that did not finish, after the light outputs."""

import pytest
import torch

from paragen.pipeline.plan import build_plan
from paragen.pipeline.queue_device import JobStages, needed, pack_items
from paragen.pipeline.queue_spec import QueueJob

from test_closest_epoch_rows import _config, _run


@pytest.fixture
def config(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _run(tmp_path)  # t_encdec's log: epoch 2 is closest to the paper's Enc-Dec row (worked there by hand)
    return _config()


def test_of_the_kept_epochs_only_the_closest_decode_s_choice_comes_back(config):
    stages = {s.name: s for s in build_plan(config).stages}
    closest = stages["closest_t_encdec"]
    assert needed(config, "runs/t_encdec/epochs", [closest]) == ["runs/t_encdec/epochs/epoch2.pt"]
    assert needed(config, "runs/t_encdec/epochs", []) == []
    assert needed(config, "runs/t_encdec/best.pt", [stages["decode_t_encdec"]]) == ["runs/t_encdec/best.pt"]
    # another reader of the folder (none in the plan, a stand-in here): the folder comes back whole
    assert needed(config, "runs/t_encdec/epochs", [closest, stages["decode_t_encdec"]]) == ["runs/t_encdec/epochs"]


def test_a_finished_training_owes_its_light_outputs_and_what_undone_readers_need(config, tmp_path):
    plan = {s.name: s for s in build_plan(config).stages}
    names = ["train_t_encdec", "decode_t_encdec", "score_t_encdec", "closest_t_encdec", "train_t_copynet"]
    stages = [plan[n] for n in names]
    (tmp_path / "runs/t_copynet/resume").mkdir(parents=True)
    torch.save({"train_state": {"epoch": 1, "finished": False, "best_epoch": 1, "log_rows": [{"valid_metric": 3.0}]}},
               tmp_path / "runs/t_copynet/resume/state.pt")  # the trainer's resume state, as far as it is read here
    record = {"train_t_encdec": {"how": "completed"}, "decode_t_encdec": {"how": "completed"},
              "score_t_encdec": {"how": "stopped"}, "closest_t_encdec": {"how": "waiting"},
              "train_t_copynet": {"how": "stopped"}}
    job = QueueJob(name="tiny", why="test", targets=["score_t_encdec"])
    items = pack_items([JobStages(job, stages, set(), {}, config)], record)
    assert [(i.name, i.kind) for i in items] == [("outputs_tiny", "outputs"), ("weights_train_t_encdec", "weights"),
                                                 ("resume_t_copynet", "resume")]
    assert items[2].paths == ["runs/t_copynet/resume"]
    assert items[2].info == {"run": "t_copynet", "stage": "train_t_copynet", "epoch": 1, "finished": False,
                             "best_epoch": 1, "valid_metric": 3.0}
    assert items[1].paths == ["runs/t_encdec/epochs/epoch2.pt"]  # best.pt: its decoding ran there
    assert record["train_t_encdec"]["required"] == ["runs/t_encdec/train_log.csv", "runs/t_encdec/sessions.json",
                                                     "runs/t_encdec/epochs/epoch2.pt"]
    assert record["decode_t_encdec"]["required"] == ["runs/t_encdec/test.hyp", "runs/t_encdec/test.nbest.jsonl"]
    assert "required" not in record["score_t_encdec"]  # stopped: owes nothing, runs again
