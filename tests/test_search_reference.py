"""The device-side beam search returns exactly what the host-side search before it returned (tests/reference_search.py,
an independent copy of that code): the same hypotheses, log-probabilities and scores, in the same order, for every
stopping rule, several beams, n-best sizes and length exponents, on small models with their own random weights
(a copying model with out-of-vocabulary source words, a Luong-fed WEAN, a Transformer), and also when the finished
sentences leave the batch only every few steps (how it runs on a GPU: ``host_checks=False``). In the comparisons
each hypothesis reads its own copy of the encoder's results, as in the reference (``copying_model``)."""

import itertools

import pytest
import torch

from paragen.data.batching import make_batch
from paragen.data.vocabulary import Vocabulary
from paragen.decoding.search import beam_search

from conftest import tiny_model
from reference_search import reference_beam_search

VOCAB = Vocabulary.build([[["a", "b", "c", "d", "e", "f"]]])
SOURCES = [["a", "b", "zz", "c"], ["d"], ["f", "a", "c", "e", "b"], ["qq", "b"], ["c", "c", "a"]]


def copying_model(architecture: str, **overrides):
    """A tiny model whose hypotheses each read their own copy of the encoder's results, as the reference gives
    them; shared rows (a recurrent model's default) round the same sums in another order, so they are compared
    with copies to float rounding instead (tests/test_shared_encoded_rows.py)."""
    model = tiny_model(architecture, len(VOCAB), **overrides)
    model.shares_encoded_rows = False
    return model


@pytest.mark.parametrize("architecture,overrides", [
    ("copynet", {}), ("wean", {"input_feeding": "attentional", "cell": "lstm"}), ("transformer", {})])
def test_the_search_returns_what_the_host_side_search_returned(architecture, overrides):
    model = copying_model(architecture, **overrides)
    batch = make_batch(SOURCES, None, VOCAB)
    settings = itertools.product([1, 3, 4], [1, 2, 3], ["early", "bound", "shrinking"], [0.0, 1.0])
    compared = 0
    for beam, nbest, stopping, alpha in settings:
        if nbest > beam:
            continue
        expected = reference_beam_search(model, batch, beam, 7, alpha, nbest, stopping)
        for host_checks in (True, False):
            got = beam_search(model, batch, beam, 7, alpha, nbest, stopping, host_checks=host_checks, check_every=3)
            assert got == expected, (beam, nbest, stopping, alpha, host_checks)
        compared += 1
    assert compared == 7 * 3 * 2  # (beam, nbest) pairs with nbest <= beam, x 3 stopping rules x 2 exponents
    assert any(len(h) > 1 for h in expected)  # the last setting returned several hypotheses per sentence


def test_a_step_reads_nothing_back_when_host_checks_are_off(monkeypatch):
    """With ``host_checks=False`` the only reads are the leave-the-batch checks every ``check_every`` steps and the
    final n-best: counted by patching the two ways a tensor reaches Python (bool() and tolist())."""
    model = tiny_model("encdec", len(VOCAB))
    batch = make_batch(SOURCES, None, VOCAB)
    reads = {"bool": 0, "tolist": 0}
    original_bool, original_tolist = torch.Tensor.__bool__, torch.Tensor.tolist

    def counting_bool(self):
        reads["bool"] += 1
        return original_bool(self)

    def counting_tolist(self):
        reads["tolist"] += 1
        return original_tolist(self)

    monkeypatch.setattr(torch.Tensor, "__bool__", counting_bool)
    monkeypatch.setattr(torch.Tensor, "tolist", counting_tolist)
    beam_search(model, batch, 3, 12, 1.0, 2, "bound", host_checks=False, check_every=4)
    assert reads["tolist"] <= 4  # the final read: lengths, log-probabilities, scores, tokens
    assert reads["bool"] <= 2 * (12 // 4)  # all done? any done? every 4th step, at most


@pytest.mark.parametrize("max_length", [1, 2])
def test_the_shortest_searches_match_too_and_return_no_empty_hypotheses(max_length):
    """At max_length 1 or 2 a sentence may finish fewer hypotheses than nbest: both searches return the same ones,
    and none is empty."""
    model = copying_model("copynet")
    batch = make_batch(SOURCES, None, VOCAB)
    for stopping in ("early", "bound", "shrinking"):
        expected = reference_beam_search(model, batch, 4, max_length, 1.0, 3, stopping)
        for host_checks in (True, False):
            got = beam_search(model, batch, 4, max_length, 1.0, 3, stopping, host_checks=host_checks, check_every=3)
            assert got == expected, (max_length, stopping, host_checks)
        assert all(len(h.tokens) > 0 for hyps in expected for h in hyps)
