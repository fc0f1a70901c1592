"""Beam search keeps a recurrent model's encoder results once per sentence (``Encoded.shared``): a step over them
must give every hypothesis what a step over its own copy gives (the way the search ran before, and still runs for
the Transformer), to float rounding, and the search must return the same hypotheses.

Each comparison feeds the hypotheses of a sentence tokens that differ, most of them words of that sentence's source
(one source repeats a word, so CopyNet's selective read depends on which hypothesis's copy probabilities it reads),
so that a step mixing up rows (a sentence's hypotheses read as another's, as each other's, or beam-major for
sentence-major) cannot agree with the copies."""

from __future__ import annotations

import itertools

import pytest
import torch

from paragen.data.batching import make_batch
from paragen.data.vocabulary import EOS_ID, Vocabulary
from paragen.decoding import search
from paragen.decoding.search import beam_search
from paragen.models.seq2seq import reorder_state
from paragen.models.state import Encoded

from conftest import tiny_model

VOCAB = Vocabulary.build([[["a", "b", "c", "d", "e", "f"]]])
SOURCES = [["a", "b", "zz", "c"], ["d"], ["f", "a", "c", "e", "b"], ["qq", "b", "yy"], ["c", "a", "c", "c"]]
BEAMS = 3
CONFIGURATIONS = [
    ("encdec", {}),
    ("rnnsearch", {}),  # Bahdanau's additive score
    ("rnnsearch", {"attention": "general", "cell": "lstm", "input_feeding": "attentional", "decoder_layers": 2,
                   "encoder_layers": 2}),
    ("rnnsearch", {"attention": "dot", "bidirectional_merge": "sum"}),  # query and memory of one size
    ("copynet", {}),  # copy keys, the extended vocabulary's slots and the selective read
    ("wean", {"input_feeding": "attentional", "cell": "lstm"}),
    ("wean", {"wean_score": "concat"}),
    ("rnnsearch", {"attention": "general", "cell": "lstm", "input_feeding": "attentional", "selective_gate": True,
                   "source_prediction": {"weight_c": 10.0}, "decoder_init": "encoder_final",
                   "bidirectional_merge": "sum"}),  # 004's composition
]
IDS = ["encdec", "rnnsearch", "luong-2-layer", "dot", "copynet", "wean-lstm", "wean-concat", "sgate-spm"]


def test_shared_rows_keep_the_tensors_and_say_how_many_hypotheses_read_each():
    summary = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    encoded = Encoded(summary.unsqueeze(1), torch.ones(2, 1, dtype=torch.bool), summary, torch.zeros(2, 1), 5)
    assert encoded.beams == 1
    shared = encoded.shared(3)
    assert shared.beams == 3 and shared.memory is encoded.memory and shared.summary is summary


@pytest.mark.parametrize("architecture,overrides", CONFIGURATIONS, ids=IDS)
def test_a_step_over_shared_rows_gives_each_hypothesis_what_its_own_copy_gives(architecture, overrides):
    model = tiny_model(architecture, len(VOCAB), **overrides)
    assert model.shares_encoded_rows
    batch = make_batch(SOURCES, None, VOCAB)
    n = len(SOURCES)
    encoded = model.encode(batch)
    rows = torch.arange(n).repeat_interleave(BEAMS)
    copies = encoded.index_select(rows)
    state_copies = model.initial_state(copies)
    shared = encoded.shared(BEAMS)
    state_shared = reorder_state(model.initial_state(encoded), rows)
    generator = torch.Generator().manual_seed(3)
    width = encoded.width  # copying models: extended ids, OOV slots included
    lengths = batch.src_lengths.repeat_interleave(BEAMS)
    for step in range(4):
        # two in three hypotheses read a word of their own source (extended ids: OOVs too), the others any id
        positions = (torch.rand(n * BEAMS, generator=generator) * lengths).long()
        from_source = batch.src_ext.repeat_interleave(BEAMS, dim=0).gather(1, positions.unsqueeze(1)).squeeze(1)
        anything = torch.randint(1, width, (n * BEAMS,), generator=generator)
        tokens = torch.where(torch.rand(n * BEAMS, generator=generator) < 2 / 3, from_source, anything)
        assert tokens.view(n, BEAMS).unique(dim=1).size(1) > 1  # hypotheses of a sentence read different tokens
        ours, theirs = model.step(tokens, state_shared, shared), model.step(tokens, state_copies, copies)
        torch.testing.assert_close(ours.log_probs, theirs.log_probs, atol=1e-5, rtol=1e-5)
        for name in ("attention", "copy_probs", "generate_mass"):
            if getattr(theirs, name) is None:
                assert getattr(ours, name) is None, name
            else:
                torch.testing.assert_close(getattr(ours, name), getattr(theirs, name), atol=1e-6, rtol=1e-5)
        assert ours.state.keys() == theirs.state.keys()
        for key in theirs.state:
            torch.testing.assert_close(ours.state[key], theirs.state[key], atol=1e-6, rtol=1e-5)
        # the next step starts from each path's own state, reordered as beam search would
        order = torch.randperm(n * BEAMS, generator=generator).view(n, BEAMS).argsort(1)
        order = (order + torch.arange(n).unsqueeze(1) * BEAMS).view(-1)  # within each sentence, as the search does
        state_shared, state_copies = reorder_state(ours.state, order), reorder_state(theirs.state, order)


def ending_sooner(model, push: float):
    """``model`` with </s> made likelier (its output bias raised by ``push``; WEAN's </s> embedding scaled by
    1 + 3 ``push``), so that sentences end at different steps and leave the batch while others search on."""
    with torch.no_grad():
        if hasattr(model.output, "embedding"):
            model.output.embedding.weight[EOS_ID] *= 1 + 3 * push
        else:
            getattr(model.output, "generate", model.output).project.bias[EOS_ID] += push
    return model


@pytest.mark.parametrize("architecture,overrides,push", [(*CONFIGURATIONS[1], 0.5), (*CONFIGURATIONS[4], 0.7),
                                                         (*CONFIGURATIONS[5], 0.7), (*CONFIGURATIONS[7], 1.0)],
                         ids=[IDS[i] for i in (1, 4, 5, 7)])
def test_the_search_over_shared_rows_returns_the_hypotheses_of_the_search_over_copies(architecture, overrides, push,
                                                                                       monkeypatch):
    model = ending_sooner(tiny_model(architecture, len(VOCAB), **overrides), push)
    copying = ending_sooner(tiny_model(architecture, len(VOCAB), **overrides), push)  # the same weights (seed 0)
    copying.shares_encoded_rows = False  # each hypothesis with its own copy
    batch = make_batch(SOURCES, None, VOCAB)
    partly_left = []  # times some sentences left the batch while at least two others stayed
    set_aside = search._set_aside

    def counting(results, kept, sentences, leaving):
        partly_left.append(0 < int(leaving.sum()) < len(sentences) - 1)
        return set_aside(results, kept, sentences, leaving)

    monkeypatch.setattr(search, "_set_aside", counting)
    compared = 0
    for beam, nbest, stopping, host_checks in itertools.product([1, 4], [1, 3], ["early", "bound", "shrinking"],
                                                                [True, False]):
        if nbest > beam:
            continue
        ours = beam_search(model, batch, beam, 9, 1.0, nbest, stopping, host_checks=host_checks, check_every=2)
        theirs = beam_search(copying, batch, beam, 9, 1.0, nbest, stopping, host_checks=host_checks, check_every=2)
        setting = (beam, nbest, stopping, host_checks)
        assert [[h.tokens for h in s] for s in ours] == [[h.tokens for h in s] for s in theirs], setting
        for mine, other in zip(itertools.chain(*ours), itertools.chain(*theirs)):
            assert mine.log_prob == pytest.approx(other.log_prob, abs=1e-5), setting
            assert mine.score == pytest.approx(other.score, abs=1e-5), setting
        compared += 1
    assert compared == 3 * 3 * 2  # (1, 1), (4, 1), (4, 3) x 3 stopping rules x host checks on and off
    assert any(partly_left)  # shared rows were selected by sentence while others searched on
    assert any(len(s) == 3 for s in ours)  # the last setting kept several hypotheses per sentence


def test_the_initial_state_is_made_per_sentence_before_the_rows_are_shared():
    model = tiny_model("copynet", len(VOCAB))
    encoded = model.encode(make_batch(SOURCES, None, VOCAB))
    assert model.initial_state(encoded)["hidden"].size(0) == len(SOURCES)
    with pytest.raises(ValueError, match="call it before Encoded.shared"):
        model.initial_state(encoded.shared(BEAMS))


def test_the_transformer_keeps_a_copy_per_hypothesis():
    assert not getattr(tiny_model("transformer", len(VOCAB)), "shares_encoded_rows", False)
