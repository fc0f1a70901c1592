"""Several training processes (torchrun, DDP) train the model one process trains with the same global batch.

The two-process runs use gloo on CPU, as docs/cluster.md says. Expected weights come from the one-process run, a
separate code path (no process group, no DDP). Dropout is off wherever two runs are compared across process
counts (each rank has its own dropout stream, so no one-process run draws the same masks); it is on (0.3) in
the resume test, which compares two-process runs with each other and so also checks every rank's RNG state.
"""

import csv
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from paragen.data.batching import batch_at, batch_order
from paragen.config import ModelConfig, TrainingConfig, load_config
from paragen.data.corpus import ParallelCorpus, read_split
from paragen.data.synthetic import generate, write_splits
from paragen.training.distributed import DistributedError, World
from paragen.models import build_model
from paragen.training.checkpoint import resume_digest, stale_parts
from paragen.training.trainer import pick_device, train
from paragen.data.vocabulary import Vocabulary

from conftest import TINY_PARAMS

TRAIN_PAIRS, BATCH = 46, 5  # 9 batches of 5 (shares of 3 and 2) and one of 1 (rank 1's share is empty)
EPOCHS = 3


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _dataset():
    """The tiny synthetic dataset with 50 training pairs (the test configuration's has 25)."""
    return load_config(TINY_PARAMS).datasets["tiny"].model_copy(update={"instances_per_rule": 24})


def _data(data_dir: Path, vocab_size: int | None = None) -> tuple[ParallelCorpus, ParallelCorpus, Vocabulary]:
    full = read_split(data_dir, "train")
    train_data = ParallelCorpus(full.sources[:TRAIN_PAIRS], full.targets[:TRAIN_PAIRS])
    vocab = Vocabulary.build([train_data.sources, train_data.targets], vocab_size)
    return train_data, read_split(data_dir, "valid"), vocab


def _settings(dropout: float, chars: bool = False) -> tuple[ModelConfig, TrainingConfig]:
    model = ModelConfig(architecture="copynet", embedding_size=8, hidden_size=16, dropout=dropout) if not chars \
        else ModelConfig(architecture="rnnsearch", embedding_size=8, hidden_size=16, attention="general",
                         input_feeding="attentional", char_decoder=True)
    return model, TrainingConfig(batch_size=BATCH, max_epochs=EPOCHS, patience=10, valid_max_length=20, seed=5,
                                 threads=1)


def _train(data_dir: Path, run_dir: Path, dropout: float = 0.0, chars: bool = False, **kwargs) -> None:
    """copynet; with ``chars``, rnnsearch with a character decoder and a vocabulary small enough that some
    shares have an <unk> target word and others none (the character decoder's parameters then go unused)."""
    train_data, valid_data, vocab = _data(data_dir, 25 if chars else None)
    model, training = _settings(dropout, chars)
    train(model_config=model, training=training, train_data=train_data, valid_data=valid_data, vocab=vocab,
          run_dir=run_dir, device=torch.device("cpu"), progress=False, **kwargs)


def _worker(rank: int, size: int, port: int, work: Path) -> None:
    """One rank, as torchrun would start it: the environment, the CLI's process group, then train()."""
    from paragen.training.distributed import process_group

    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank), WORLD_SIZE=str(size),
                      LOCAL_RANK=str(rank))
    world = World.from_env()
    seen: list[tuple[list[int], bool]] = []
    share = World.share

    def recording(self: World, ids):
        mine, counts = share(self, ids)
        seen.append((mine, counts))
        return mine, counts

    World.share = recording  # this process only: what each rank trains on
    with process_group(world, torch.device("cpu")):
        assert World.current() == world
        _train(work / "data", work / "two", dropout=0.0)
        (work / f"seen.{rank}.json").write_text(json.dumps(seen))
        _train(work / "data", work / "dropout", dropout=0.3)
        _train(work / "data", work / "resumed", dropout=0.3, stop_after_epoch=1)  # interrupted, nothing published
        _train(work / "data", work / "resumed", dropout=0.3)  # resumes from the state rank 0 saved
        _train(work / "data", work / "chars_two", chars=True)


def _weights(path: Path) -> dict[str, torch.Tensor]:
    return torch.load(path, weights_only=True)["model"]


def _max_difference(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> float:
    assert a.keys() == b.keys()
    return max(float((a[k].double() - b[k].double()).abs().max()) for k in a)


@pytest.fixture(scope="module")
def two_processes(tmp_path_factory) -> Path:
    """One-process reference, then two ranks (gloo) training the same settings; the work directory."""
    work = tmp_path_factory.mktemp("ddp")
    write_splits(generate(_dataset()), work / "data")
    _train(work / "data", work / "one", dropout=0.0)
    _train(work / "data", work / "chars_one", chars=True)
    torch.multiprocessing.spawn(_worker, args=(2, _free_port(), work), nprocs=2, join=True)
    return work


@pytest.mark.parametrize("run", ["", "chars_"], ids=["copynet", "char_decoder"])
def test_two_processes_train_the_one_process_weights(two_processes, run):
    work = two_processes
    for name in ("best.pt", "last.pt"):
        difference = _max_difference(_weights(work / f"{run}one" / name), _weights(work / f"{run}two" / name))
        assert difference <= 1e-5, f"{name}: max abs difference {difference}"
    if run:  # the character decoder was used by one rank and not the other in some steps, by neither in others
        train_data, _, vocab = _data(work / "data", 25)
        lengths = [len(source) for source in train_data.sources]
        spelled = {tuple(any(word not in vocab for i in World(rank, 2).share(ids)[0] for word in train_data.targets[i])
                         for rank in (0, 1))
                   for epoch in range(1, EPOCHS + 1)
                   for ids in batch_order(lengths, BATCH, torch.Generator().manual_seed(5 + epoch))}
        assert {(True, False), (False, True), (False, False)} <= spelled
        return
    one = list(csv.DictReader(open(work / "one" / "train_log.csv")))
    two = list(csv.DictReader(open(work / "two" / "train_log.csv")))
    assert len(one) == len(two) == EPOCHS
    for a, b in zip(one, two):  # the log reports the global batch: same losses, same validation
        assert float(a["train_loss"]) == pytest.approx(float(b["train_loss"]), abs=2e-5)
        assert a["train_accuracy"] == b["train_accuracy"] and a["valid_metric"] == b["valid_metric"]
    sessions = json.loads((work / "two" / "sessions.json").read_text())
    assert [s.get("processes") for s in sessions] == [2] and sessions[0]["device"].startswith("2 x CPU ")
    assert "processes" not in json.loads((work / "one" / "sessions.json").read_text())[0]


def test_each_rank_trained_on_its_own_share_of_every_batch(two_processes):
    work = two_processes
    seen = [json.loads((work / f"seen.{rank}.json").read_text()) for rank in (0, 1)]
    assert len(seen[0]) == len(seen[1]) == EPOCHS * 10  # the same number of steps on both ranks
    for epoch in range(EPOCHS):
        generator = torch.Generator().manual_seed(5 + epoch + 1)
        lengths = [len(s) for s in _data(work / "data")[0].sources]
        for step, ids in enumerate(batch_order(lengths, BATCH, generator)):
            (first, counts0), (second, counts1) = (seen[r][epoch * 10 + step] for r in (0, 1))
            if len(ids) == 1:  # rank 1 has no share: it runs rank 0's sentence with weight 0
                assert counts0 and not counts1 and first == second == ids
            else:
                assert counts0 and counts1 and first + second == ids and not set(first) & set(second)
                assert len(first) - len(second) in (0, 1)


def test_a_resumed_two_process_run_ends_as_an_uninterrupted_one(two_processes):
    work = two_processes
    for name in ("best.pt", "last.pt"):
        uninterrupted, resumed = _weights(work / "dropout" / name), _weights(work / "resumed" / name)
        assert all(torch.equal(uninterrupted[k], resumed[k]) for k in uninterrupted)
    # dropout was on: the dropout run really differs from the dropout-free one
    assert _max_difference(_weights(work / "dropout" / "last.pt"), _weights(work / "two" / "last.pt")) > 1e-3
    saved = torch.load(work / "resumed" / "resume" / "state.pt", weights_only=True)
    assert len(saved["rank_rng"]) == 2 and not torch.equal(saved["rank_rng"][0]["rng"], saved["rank_rng"][1]["rng"])
    sessions = json.loads((work / "resumed" / "sessions.json").read_text())
    assert [s["first_epoch"] for s in sessions] == [1, 2]


def test_the_share_weights_give_the_global_token_mean_gradient(tmp_path):
    """grad L = (1/N) sum_r N (T_r / T) grad L_r, L_r the token mean over rank r's share (what DDP averages)."""
    write_splits(generate(_dataset()), tmp_path / "data")
    train_data, _, vocab = _data(tmp_path / "data")
    torch.manual_seed(0)
    model = build_model(_settings(0.0)[0], len(vocab))
    ids = list(range(7))  # sentences of different lengths: the shares have different token counts

    def loss(share: list[int]):
        return model.loss(batch_at(train_data.sources, train_data.targets, vocab, share))

    def gradient(loss: torch.Tensor) -> torch.Tensor:
        model.zero_grad()
        loss.backward()
        return torch.cat([p.grad.flatten() for p in model.parameters() if p.grad is not None])

    whole = loss(ids)
    expected = gradient(whole.total)
    shares = [World(rank, 2).share(ids)[0] for rank in (0, 1)]
    tokens = [loss(share).tokens for share in shares]
    assert tokens[0] != tokens[1] and sum(tokens) == whole.tokens
    averaged = sum(gradient(loss(share).total * 2 * t / whole.tokens) for share, t in zip(shares, tokens)) / 2
    assert torch.allclose(averaged, expected, atol=1e-6)
    unweighted = sum(gradient(loss(share).total) for share in shares) / 2  # a plain mean of the ranks' means
    assert not torch.allclose(unweighted, expected, atol=1e-4)


def test_shares_are_contiguous_and_cover_the_batch():
    ids = [9, 3, 7, 1, 4, 8, 2]
    shares = [World(rank, 3).share(ids) for rank in range(3)]
    assert shares == [([9, 3, 7], True), ([1, 4], True), ([8, 2], True)]
    assert World(0, 1).share(ids) == (ids, True)
    assert [World(rank, 4).share([5, 6]) for rank in range(4)] == [([5], True), ([6], True), ([5], False),
                                                                   ([5], False)]


def test_the_torchrun_environment():
    assert World.from_env({}) == World()
    assert World.from_env({"RANK": "3", "WORLD_SIZE": "4", "LOCAL_RANK": "1"}) == World(3, 4, 1)
    with pytest.raises(DistributedError, match="RANK, WORLD_SIZE set but not LOCAL_RANK"):
        World.from_env({"RANK": "0", "WORLD_SIZE": "2"})
    with pytest.raises(DistributedError, match="inconsistent"):
        World.from_env({"RANK": "2", "WORLD_SIZE": "2", "LOCAL_RANK": "0"})
    with pytest.raises(DistributedError, match="must be integers"):
        World.from_env({"RANK": "a", "WORLD_SIZE": "2", "LOCAL_RANK": "0"})
    assert pick_device("cpu", World(1, 2, 1)) == torch.device("cpu")
    with pytest.raises(DistributedError, match="pass --device cuda"):
        pick_device("cuda:1", World(1, 2, 1))
    if torch.cuda.device_count() < 8:
        with pytest.raises(DistributedError, match="lower --nproc-per-node"):
            pick_device("cuda", World(7, 8, 7))


def test_a_state_saved_by_another_number_of_processes_is_not_resumed(tmp_path):
    write_splits(generate(_dataset()), tmp_path / "data")
    train_data, valid_data, vocab = _data(tmp_path / "data")
    model, training = _settings(0.0)
    one = resume_digest(model, training, train_data, valid_data, vocab)
    assert "world size" not in one  # one-process states saved before this part existed stay resumable
    two, four = (resume_digest(model, training, train_data, valid_data, vocab, world_size=n) for n in (2, 4))
    assert stale_parts(two, one) == stale_parts(one, two) == ["world size"] == stale_parts(two, four)
    assert stale_parts(two, two) == []


@pytest.mark.e2e
def test_torchrun_runs_the_cli_on_two_processes(tmp_path):
    """``torchrun --standalone --nproc-per-node 2 -m paragen.cli train`` against ``paragen train``."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    cli = [sys.executable, "-m", "paragen.cli"]
    torchrun = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2", "-m",
                "paragen.cli"]
    for name, launcher in (("one", cli), ("two", torchrun)):
        work = tmp_path / name
        work.mkdir()
        (work / "params.yaml").write_text(TINY_PARAMS.read_text())
        for command in (["generate", "--dataset", "tiny"], ["vocab", "--dataset", "tiny"]):
            subprocess.run(cli + command, cwd=work, check=True, env=env, capture_output=True)
        done = subprocess.run(launcher + ["train", "--experiment", "t_copynet", "--device", "cpu", "--quiet"],
                              cwd=work, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-3000:]
    for name in ("best.pt", "last.pt"):
        difference = _max_difference(_weights(tmp_path / "one" / "runs" / "t_copynet" / name),
                                     _weights(tmp_path / "two" / "runs" / "t_copynet" / name))
        assert difference <= 1e-5, f"{name}: max abs difference {difference}"
    sessions = json.loads((tmp_path / "two" / "runs" / "t_copynet" / "sessions.json").read_text())
    assert [s.get("processes") for s in sessions] == [2]
