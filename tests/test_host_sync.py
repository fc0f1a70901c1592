"""The training step leaves its numbers on the device (issue 29): what replaced the per-batch float()/int()."""

import struct

import pytest
import torch

from paragen.data.batching import make_batch
from paragen.data.vocabulary import SPECIALS, Vocabulary
from paragen.models.encoders import RNNEncoder
from paragen.models.seq2seq import Loss
from paragen.training.distributed import World, gradient_weight
from paragen.training.trainer import EpochSums


def as_float32(value: float) -> float:
    """The nearest float32, widened back: what a model's float32 mean NLL holds (independent of torch)."""
    return struct.unpack("f", struct.pack("f", value))[0]


def test_epoch_sums_add_as_python_floats_did():
    means, tokens, correct, critic = [0.1, 2.3, 0.7], [3, 5, 7], [1, 2, 3], [0.5, 0.3, 0.125]
    sums = EpochSums(torch.device("cpu"))
    for m, t, c, k in zip(means, tokens, correct, critic):
        result = Loss(torch.tensor(m), torch.tensor(t), torch.tensor(c), {"nll": torch.tensor(m)})
        sums.add(result, {"nll": torch.tensor(m), "critic": torch.tensor(k)})
    nll = 0.0
    for m, t in zip(means, tokens):  # the old loop: float(mean) * int(tokens), summed in batch order
        nll += as_float32(m) * t
    critic_sum = as_float32(0.5) * 3 + as_float32(0.3) * 5 + as_float32(0.125) * 7
    assert sums.read() == [nll, 15.0, 6.0, critic_sum]  # bit for bit
    assert sums.mean_loss() == nll / 15


def test_epoch_sums_without_a_critic_count_zero():
    sums = EpochSums(torch.device("cpu"))
    sums.add(Loss(torch.tensor(1.5), torch.tensor(4), torch.tensor(2), {"nll": torch.tensor(1.5)}),
             {"nll": torch.tensor(1.5)})
    assert sums.read() == [6.0, 4.0, 2.0, 0.0]


def test_one_process_gradient_weight_never_reads_the_token_count():
    unreadable = torch.tensor(7, device="meta")  # int() of a meta tensor raises: reading it would be a sync
    with pytest.raises(Exception):
        int(unreadable)
    assert gradient_weight(unreadable, True, World(), torch.device("cpu")) == 1.0


def test_batch_keeps_its_source_lengths_on_the_host_for_packing():
    vocab = Vocabulary(list(SPECIALS) + ["a", "b", "c"])
    batch = make_batch([["a", "b", "c"], ["b"]], [["a"], ["c", "a"]], vocab).to(torch.device("cpu"))
    assert batch.src_lengths_host.tolist() == [3, 1] and batch.src_lengths_host.device.type == "cpu"
    torch.manual_seed(3)
    encoder = RNNEncoder(torch.nn.Embedding(len(vocab), 4), 5, layers=1, bidirectional=True, cell="gru", dropout=0.0)
    with_host = encoder(batch.src, batch.src_lengths, batch.src_lengths_host)
    without = encoder(batch.src, batch.src_lengths)
    assert torch.equal(with_host.memory, without.memory)
