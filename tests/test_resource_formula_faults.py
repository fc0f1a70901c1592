"""The training request's formulas (paragen.pipeline.resources, docs/cluster.md), worked out by hand on an example
chosen so that each fault the audit named gives another rounded request (issue 41): the per-GPU share of a batch,
host memory per process, and 16 bytes per trained parameter. ``tests/test_resources.py``'s worked example runs one
GPU with a model of a few hundred thousand parameters, where all three faults round to the same 5,000 MB / 30 min.

The example: the tiny configuration's synthetic dataset grown to 50 rules x 400 instances of 30 symbols, half to
train less 20 % validation = 10,000 - 2,000 = **8,000 training pairs** (10,000 test), a vocabulary of 30 + 4
specials = **34**; an Enc-Dec (no attention) with a bidirectional GRU encoder, embedding 512, hidden 2,048, one layer
a side; batch 8, 10 epochs, ``gpus: 2``. No measured rate (the projection): ``rates={}``.

Parameters, as docs/cluster.md counts them (per-token weights plus the embedding tables), by hand:
encoder 2 directions x 3 gates x 2,048 x (512 + 2,048) = 31,457,280; decoder reading [e; c; s] with c the
concatenated 4,096-wide encoder state: 3 x 2,048 x (512 + 4,096 + 2,048) = 40,894,464; output 34 x 2,048 = 69,632;
two embedding tables 2 x 34 x 512 = 34,816: **72,456,192**.
"""

from __future__ import annotations

import math

import pytest
import yaml

from conftest import TINY_PARAMS

PAIRS, TEST_PAIRS, EPOCHS, BATCH, GPUS = 8_000, 10_000, 10, 8, 2
PARAMETERS = 31_457_280 + 40_894_464 + 69_632 + 34_816
assert PARAMETERS == 72_456_192


def config(gpus: int = GPUS):
    from paragen.config import parse_config

    raw = yaml.safe_load(TINY_PARAMS.read_text())
    raw["datasets"]["tiny"].update(rules=50, instances_per_rule=400, symbols=30, valid_fraction=0.2)
    raw["models"]["big"] = {"architecture": "encdec", "embedding_size": 512, "hidden_size": 2048}
    raw["training"]["ten"] = {"batch_size": BATCH, "max_epochs": EPOCHS, "patience": 2, "seed": 1, "threads": 1}
    raw["experiments"]["t_big"] = {"dataset": "tiny", "model": "big", "training": "ten", "decoding": "beam3",
                                   "gpus": gpus}
    return parse_config(raw)


def round_up(value: float, step: int) -> int:
    return math.ceil(value / step) * step


def host_mb_per_process(pairs: int, bytes_per_parameter: int) -> int:
    """docs/cluster.md: 4 GB, plus 1,477 bytes per pair (one epoch's batches, results/rehearsal), plus the bytes
    of every parameter (fp32 weights, gradients and Adam's two moments: 4 x 4 = 16)."""
    return 4000 + pairs * 1477 // 10**6 + PARAMETERS * bytes_per_parameter // 10**6


def train_minutes(seconds_per_target_token: float) -> int:
    """docs/cluster.md: 10 min + 2 x epochs x (pairs x 25 target tokens x the time of one + 155.2 s per million
    pairs of batching), rounded up to 10 minutes."""
    epoch = PAIRS * 25 * seconds_per_target_token + 155.2 * PAIRS / 10**6
    return round_up(10 + 2 * EPOCHS * epoch / 60, 10)


def test_host_memory_is_asked_for_each_of_the_gpu_processes():
    """One training process runs per GPU (torchrun), each holding the data and the model. By hand, per process:
    4,000 + 8,000 x 1,477 / 1e6 (11) + 72,456,192 x 16 / 1e6 (1,159) = 5,170 MB.

    Correct (2 processes): 10,340 -> 11,000 MB. Faulty (one process counted): 5,170 -> 6,000 MB; faulty with 4
    bytes per parameter: 2 x (4,000 + 11 + 289) = 8,600 -> 9,000 MB."""
    from paragen.pipeline.resources import train_resources

    per_process = host_mb_per_process(PAIRS, 16)
    assert per_process == 5170
    expected = round_up(GPUS * per_process, 1000)
    assert expected == 11_000
    assert round_up(per_process, 1000) == 6000 and round_up(GPUS * host_mb_per_process(PAIRS, 4), 1000) == 9000
    request = train_resources(config(), "t_big", rates={})
    assert (request.gpus, request.mem_mb) == (2, expected)


def test_sixteen_bytes_per_trained_parameter():
    """fp32 weights + gradients + Adam's two moments: 16 bytes a parameter. With one GPU: 4,000 + 11 + 1,159 = 5,170
    -> 6,000 MB (4 bytes: 4,000 + 11 + 289 = 4,300 -> 5,000 MB). Decoding the 10,000 test sentences on one GPU
    (the same per-process formula over the test pairs): 4,000 + 14 + 1,159 = 5,173 -> 6,000 MB (4 bytes: 4,303 ->
    5,000 MB).

    Correct: train 6,000 MB, decode 6,000 MB. Faulty (4 bytes): 5,000 and 5,000 MB."""
    from paragen.pipeline.resources import decode_resources, train_resources

    one = config(gpus=1)
    assert round_up(host_mb_per_process(PAIRS, 16), 1000) == 6000
    assert round_up(host_mb_per_process(PAIRS, 4), 1000) == 5000
    assert train_resources(one, "t_big", rates={}).mem_mb == round_up(host_mb_per_process(PAIRS, 16), 1000)
    assert decode_resources(one, "t_big").mem_mb == round_up(host_mb_per_process(TEST_PAIRS, 16), 1000) == 6000


def test_each_gpu_runs_its_share_of_the_batch():
    """docs/cluster.md's projection: a target token costs decoder layers x 64 / (7,000 tokens/s x the batch per GPU)
    / GPUs, the launch-bound decoder step costing the same for any batch. With 2 GPUs each runs 8 / 2 = 4
    sentences: 64 / (7,000 x 4) / 2 = 1/875 s a token; an epoch is 8,000 x 25 / 875 = 228.571 s + 1.242 s of
    batching = 229.813 s; 10 + 2 x 10 x 229.813 / 60 = 86.6 -> 90 min, the same as on one GPU (64 / (7,000 x 8) =
    1/875 s): more GPUs do not shorten the projection.

    Correct: 90 min at gpus 2 (and 90 at gpus 1). Faulty (each GPU taken to run the whole batch of 8):
    64 / (7,000 x 8) / 2 = 1/1,750 s, epoch 115.527 s, 10 + 38.5 = 48.5 -> 50 min."""
    from paragen.pipeline.resources import train_estimate, train_resources

    per_gpu = BATCH // GPUS
    expected = train_minutes(64 / (7000 * per_gpu) / GPUS)
    assert expected == 90 and train_minutes(64 / (7000 * BATCH) / GPUS) == 50
    assert train_minutes(64 / (7000 * BATCH)) == expected  # one GPU, whole batch
    assert train_resources(config(), "t_big", rates={}).runtime == expected
    assert train_resources(config(gpus=1), "t_big", rates={}).runtime == expected
    estimate = train_estimate(config(), "t_big", {})
    assert estimate.pairs == PAIRS
    assert estimate.epoch_seconds == pytest.approx(PAIRS * 25 / 875 + 155.2 * PAIRS / 10**6)
