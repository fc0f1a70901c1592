"""``training.*.keep_epochs``: chosen epochs' weights published as runs/<exp>/epochs/epoch<k>.pt, surviving a
resumption, dropped with an abandoned trajectory, and declared by the train stage."""

import torch

from test_training import _data, _run, _same, _weights


def test_kept_epochs_are_the_weights_of_those_epochs_and_survive_a_resumption(tmp_path, tiny_config):
    """Three epochs, keep 1 and 3: epoch3.pt holds last.pt's weights (the last epoch), epoch1.pt other weights,
    no epoch2.pt; a run stopped after epoch 1 and resumed publishes the same two files, weight for weight."""
    data = _data(tmp_path, tiny_config)
    _run(tmp_path, "full", tiny_config, data, max_epochs=3, schedule={"keep_epochs": [1, 3]})
    epochs = tmp_path / "full" / "epochs"
    assert sorted(p.name for p in epochs.iterdir()) == ["epoch1.pt", "epoch3.pt"]
    assert _same(_weights(epochs / "epoch3.pt"), _weights(tmp_path / "full" / "last.pt"))
    assert not _same(_weights(epochs / "epoch1.pt"), _weights(epochs / "epoch3.pt"))
    assert torch.load(epochs / "epoch1.pt", weights_only=True)["epoch"] == 1
    _run(tmp_path, "resumed", tiny_config, data, max_epochs=3, schedule={"keep_epochs": [1, 3]}, stop_after_epoch=1)
    assert not (tmp_path / "resumed" / "epochs").exists()  # nothing published before the run ends
    _run(tmp_path, "resumed", tiny_config, data, max_epochs=3, schedule={"keep_epochs": [1, 3]})
    for name in ("epoch1.pt", "epoch3.pt"):
        assert _same(_weights(epochs / name), _weights(tmp_path / "resumed" / "epochs" / name))


def test_a_run_that_starts_over_drops_the_epochs_it_kept_before(tmp_path, tiny_config):
    """Stopped after epoch 2, then started again with another learning rate (the resume digest differs, so training
    starts over) and run for one epoch: only the new trajectory's epoch1.pt is published, not the old epoch2.pt."""
    data = _data(tmp_path, tiny_config)
    _run(tmp_path, "run", tiny_config, data, max_epochs=3, schedule={"keep_epochs": "all"}, stop_after_epoch=2)
    assert (tmp_path / "run" / "resume" / "epochs" / "epoch2.pt").exists()
    _run(tmp_path, "run", tiny_config, data, max_epochs=1, schedule={"keep_epochs": "all", "learning_rate": 0.01})
    epochs = tmp_path / "run" / "epochs"
    assert sorted(p.name for p in epochs.iterdir()) == ["epoch1.pt"]
    assert _same(_weights(epochs / "epoch1.pt"), _weights(tmp_path / "run" / "last.pt"))


def test_the_train_stage_declares_the_kept_epochs_directory(tiny_config):
    from paragen.config import parse_config
    from paragen.pipeline.plan import stages

    raw = tiny_config.model_dump(exclude_unset=True)
    plain = {s.name: s for s in stages(parse_config(raw, "tiny"))}["train_t_copynet"]
    assert "runs/t_copynet/epochs" not in plain.outs
    raw["training"]["tiny"]["keep_epochs"] = "all"
    train = {s.name: s for s in stages(parse_config(raw, "tiny"))}["train_t_copynet"]
    assert "runs/t_copynet/epochs" in train.outs and train.directories == ("runs/t_copynet/epochs",)
