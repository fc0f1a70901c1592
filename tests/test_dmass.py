"""DMASS's memory (003 §3.2.3): what is stored, what is read, by hand; and inside the Transformer."""

from __future__ import annotations

import math

import pytest
import torch
from torch.nn import functional as F

from paragen.data.batching import make_batch
from paragen.config import ModelConfig
from paragen.models.critic import RuleTable
from paragen.models.dmass import DmassMemory
from paragen.models.transformer import Transformer
from paragen.data.vocabulary import SPECIALS, Vocabulary

VOCAB = Vocabulary(list(SPECIALS) + ["the", "recipient", "winner", "big", "large"])
RECIPIENT, WINNER, BIG, LARGE = (VOCAB.id(w) for w in ("recipient", "winner", "big", "large"))
RULES = RuleTable(torch.tensor([RECIPIENT, BIG]), torch.tensor([WINNER, LARGE]), torch.tensor([1.0, 1.0]))


def filled(**options) -> DmassMemory:
    memory = DmassMemory(RULES, layers=1, model_size=2, **options)
    memory.pre[0] = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    memory.post[0] = torch.tensor([[10.0, 0.0], [0.0, 20.0]])
    memory.stored[:] = 1
    memory.updates.fill_(2)
    return memory


def test_read_adds_the_attention_weighted_post_contexts_by_hand():
    memory = filled()
    context = torch.tensor([[[2.0, 0.0]]])
    both = torch.tensor([[True, True]])
    # scores c . c_r = (2, 0); alpha = (e^2, 1) / (e^2 + 1); r = alpha_0 (10, 0) + alpha_1 (0, 20)
    a0 = math.exp(2) / (math.exp(2) + 1)
    assert memory.read(0, context, both)[0, 0].tolist() == pytest.approx([2 + 10 * a0, 20 * (1 - a0)])
    # only rule 2 is a candidate of this sentence: all weight on it
    assert memory.read(0, context, torch.tensor([[False, True]]))[0, 0].tolist() == pytest.approx([2.0, 20.0])
    # no candidate, or a candidate whose slot was never filled: the context passes unchanged
    assert memory.read(0, context, torch.tensor([[False, False]]))[0, 0].tolist() == [2.0, 0.0]
    memory.stored[1] = 0
    assert memory.read(0, context, torch.tensor([[False, True]]))[0, 0].tolist() == [2.0, 0.0]


def test_concat_combination_and_read_warm_up():
    memory = filled(combine="concat")
    with torch.no_grad():
        memory.merge[0].weight.copy_(torch.tensor([[1.0, 0.0, 0.5, 0.0], [0.0, 1.0, 0.0, 0.25]]))
        memory.merge[0].bias.zero_()
    context = torch.tensor([[[0.0, 3.0]]])
    # only rule 2: r = (0, 20); W [c; r] = (0 + 0.5 * 0, 3 + 0.25 * 20)
    assert memory.read(0, context, torch.tensor([[False, True]]))[0, 0].tolist() == pytest.approx([0.0, 8.0])
    late = filled(read_after_updates=3)  # 2 updates so far: reads still off
    assert late.read(0, context, torch.tensor([[True, True]]))[0, 0].tolist() == [0.0, 3.0]


@pytest.mark.parametrize("rule, expected_pre", [("overwrite", [5.0, 6.0]), ("average", [3.0, 4.0])])
def test_update_stores_contexts_where_the_output_is_a_candidates_simple_word(rule, expected_pre):
    memory = DmassMemory(RULES, layers=1, model_size=2, update=rule)
    candidates = memory.candidates(torch.tensor([[VOCAB.id("the"), RECIPIENT], [BIG, VOCAB.id("the")]]))
    assert candidates.tolist() == [[True, False], [False, True]]
    outputs = torch.tensor([[WINNER, VOCAB.id("the"), WINNER], [WINNER, LARGE, LARGE]])
    real = torch.tensor([[True, True, True], [True, True, False]])
    pre = [torch.tensor([[[1.0, 2.0], [9.0, 9.0], [5.0, 6.0]], [[7.0, 7.0], [8.0, 8.0], [0.0, 0.0]]])]
    post = [p * 10 for p in pre]
    # sentence 1: "winner" at positions 0 and 2 (recipient in its source); position 1 is not a rule word.
    # sentence 2: "winner" at 0 is not a candidate (no recipient in its source); "large" at 1; 2 is padding.
    assert memory.update(outputs, real, candidates, pre, post) == 3
    assert memory.stored.tolist() == [2, 1] and int(memory.updates) == 3
    assert memory.pre[0, 0].tolist() == expected_pre  # overwrite: the last; average: mean of (1,2) and (5,6)
    assert memory.post[0, 0].tolist() == [10 * v for v in expected_pre]
    assert memory.pre[0, 1].tolist() == [8.0, 8.0]


def _model(memory: DmassMemory) -> Transformer:
    torch.manual_seed(0)
    return Transformer(len(VOCAB), 8, 2, 4, 16, 1, 2, 0.0, False, memory=memory)


def test_training_forward_updates_the_memory_with_layer_contexts():
    memory = DmassMemory(RULES, layers=2, model_size=8)
    model = _model(memory)
    with torch.no_grad():
        model.projection.bias[WINNER] = 50.0  # the model now outputs "winner" everywhere
    batch = make_batch([["the", "recipient"], ["the", "big"]], [["the", "winner"], ["large"]], VOCAB)
    captured = []
    model.decoder_layers[1].register_forward_hook(lambda module, args, out: captured.append(out))
    model.eval()
    model(batch)  # no update outside training; memory empty, so reads change nothing
    assert int(memory.updates) == 0
    model.train()
    model(batch)
    # sentence 1 has recipient: its 3 real target positions (the, winner, </s>) output "winner"
    assert memory.stored.tolist() == [3, 0]
    output, _, pre_context = captured[0]
    assert torch.allclose(memory.pre[1, 0], pre_context[0, 2], atol=1e-6)  # overwrite: the last position
    assert torch.allclose(memory.post[1, 0], output[0, 2], atol=1e-6)


def test_decoding_steps_read_the_memory_as_the_parallel_decoder_does():
    memory = DmassMemory(RULES, layers=2, model_size=8)
    torch.manual_seed(3)
    memory.pre.normal_()
    memory.post.normal_()
    memory.stored[:] = 1
    model = _model(memory).eval()
    batch = make_batch([["the", "recipient", "big"], ["big"]], [["the", "winner", "large"], ["large"]], VOCAB)
    parallel = model(batch)
    plain = _model(None).eval()
    assert not torch.allclose(parallel, plain(batch), atol=1e-3)  # the memory is read
    assert_steps_equal_parallel(model, batch, parallel)


def test_each_decoder_layer_reads_its_own_slots_and_feeds_pre_context_plus_read_forward():
    """003 §3.2.3, layer l: α = softmax(c · c_r^(l)), r = Σ_r α_r post_r^(l) over layer l's OWN slots;
    "add r_context to c_current, and feed this new value into feed forward layer": post-context =
    LayerNorm((c + r) + FFN(c + r)), the sublayer's residual included. Two decoder layers whose memories differ;
    each layer checked by hand."""
    memory = DmassMemory(RULES, layers=2, model_size=8)
    g = torch.Generator().manual_seed(6)
    memory.pre.copy_(torch.randn(2, 2, 8, generator=g) * 0.3)
    memory.post.copy_(torch.randn(2, 2, 8, generator=g))
    memory.stored[:] = 1
    model = _model(memory).eval()
    outputs = []
    for layer in model.decoder_layers:
        layer.register_forward_hook(lambda module, args, out: outputs.append(out))
    model(make_batch([["the", "recipient", "big"], ["big"]], [["the", "winner", "large"], ["large"]], VOCAB))
    usable = torch.tensor([[True, True], [False, True]])[:, None, :]  # sentence 2 has "big" only

    def read(c, slots):
        return torch.softmax((c @ memory.pre[slots].T).masked_fill(~usable, float("-inf")), dim=-1) @ memory.post[slots]

    for index, (layer, (output, _, c)) in enumerate(zip(model.decoder_layers, outputs)):
        fed = c + read(c, index)
        assert not torch.allclose(fed, c + read(c, 1 - index), atol=1e-2)  # the other layer's slots would differ
        ff = layer.feed_forward
        inner = torch.relu(fed @ ff.inner.weight.T + ff.inner.bias)
        expected = F.layer_norm(fed + inner @ ff.outer.weight.T + ff.outer.bias, (8,), layer.norm_feed_forward.weight,
                                layer.norm_feed_forward.bias)
        assert torch.allclose(output, expected, atol=1e-5), index


def assert_steps_equal_parallel(model, batch, parallel):
    """Decoding one position at a time gives the teacher-forced parallel decoder's log-probabilities."""
    encoded = model.encode(batch)
    state = model.initial_state(encoded)
    for t in range(batch.tgt_in.size(1)):
        out = model.step(batch.tgt_in[:, t], state, encoded)
        state = out.state
        assert torch.allclose(out.log_probs, parallel[:, t], atol=1e-5)


def test_memory_is_saved_with_the_model():
    memory = filled()
    state = memory.state_dict()
    assert {"pre", "post", "stored", "updates", "complex_ids", "simple_ids"} <= set(state)


@pytest.mark.parametrize("mode", ["alternate", "sum"])
def test_dmass_and_critic_train_and_resume_exactly(tmp_path, tiny_config, mode):
    import csv

    from paragen.config import CriticConfig, DmassConfig, TrainingConfig
    from paragen.data.corpus import read_split
    from paragen.data.synthetic import generate, write_splits
    from paragen.training.checkpoint import load_model
    from paragen.training.trainer import train

    write_splits(generate(tiny_config.datasets["tiny"]), tmp_path / "data")
    train_data, valid_data = read_split(tmp_path / "data", "train"), read_split(tmp_path / "data", "valid")
    vocab = Vocabulary.build([train_data.sources, train_data.targets])
    words = [w for w in vocab.itos if w not in SPECIALS][:4]
    from paragen.simplification.ppdb import Rule

    tables = {"toy": RuleTable.from_rules([Rule((words[0],), (words[1],), 2.0), Rule((words[2],), (words[3],), 1.0)],
                                          vocab)}
    model = ModelConfig(architecture="transformer", embedding_size=16, heads=2, key_size=8, encoder_layers=1,
                        decoder_layers=1, dropout=0.1, dmass=DmassConfig(rules="toy"))
    training = TrainingConfig(batch_size=8, max_epochs=2, patience=5, valid_max_length=20, seed=3, threads=1,
                              critic=CriticConfig(rules="toy", mode=mode, weight=0.5))

    def run(name, **kwargs):
        return train(model_config=model, training=training, train_data=train_data, valid_data=valid_data,
                     vocab=vocab, run_dir=tmp_path / name, device=torch.device("cpu"), progress=False,
                     rule_tables=tables, **kwargs)

    run("full")
    run("resumed", stop_after_epoch=1)
    run("resumed")
    full = torch.load(tmp_path / "full" / "last.pt", weights_only=True)["model"]
    resumed = torch.load(tmp_path / "resumed" / "last.pt", weights_only=True)["model"]
    assert full.keys() == resumed.keys() and all(torch.equal(full[k], resumed[k]) for k in full)
    assert int(full["memory.updates"]) == int(full["memory.stored"].sum())  # every update lands in a slot
    rows = list(csv.DictReader(open(tmp_path / "full" / "train_log.csv")))
    assert "train_critic" in rows[0]
    reloaded, _ = load_model(tmp_path / "full" / "best.pt", torch.device("cpu"))
    assert reloaded.memory is not None and reloaded.memory.complex_ids.tolist() == tables["toy"].complex_ids.tolist()
    with pytest.raises(ValueError, match="rules 'toy' are needed"):
        train(model_config=model, training=training, train_data=train_data, valid_data=valid_data, vocab=vocab,
              run_dir=tmp_path / "none", device=torch.device("cpu"), progress=False)


def test_halving_update_of_the_released_code_by_hand():
    memory = DmassMemory(RULES, layers=1, model_size=2, update="halve")
    candidates = torch.tensor([[True, False]])
    outputs = torch.tensor([[WINNER, WINNER, WINNER]])
    pre = [torch.tensor([[[1.0, 2.0], [5.0, 6.0], [9.0, 10.0]]])]
    memory.update(outputs, torch.ones(1, 3, dtype=torch.bool), candidates, pre, pre)
    # first write copies (1, 2); then ((1,2) + (5,6)) / 2 = (3, 4); then ((3,4) + (9,10)) / 2 = (6, 7)
    assert memory.pre[0, 0].tolist() == [6.0, 7.0]  # a running mean would give (5, 6)


def test_released_code_placement_reads_at_the_top_keyed_by_layer_zero():
    torch.manual_seed(4)
    memory = DmassMemory(RULES, layers=2, model_size=8, combine="concat", placement="top", trigger="gold")
    assert memory.pre.shape == (1, 2, 8)  # one memory, not one per layer
    model = Transformer(len(VOCAB), 8, 2, 4, 16, 1, 2, 0.0, False, memory=memory)
    batch = make_batch([["the", "recipient"]], [["the", "winner"]], VOCAB)
    captured = []
    model.decoder_layers[0].register_forward_hook(lambda module, args, out: captured.append(out[2]))
    model.train()
    model(batch)
    # gold trigger: "winner" is the gold target at position 1, whatever the model predicts
    assert memory.stored.tolist() == [1, 0]
    assert torch.allclose(memory.pre[0, 0], captured[0][0, 1], atol=1e-6)  # keyed by layer 0's pre-context
    model.eval()
    assert_steps_equal_parallel(model, batch, model(batch))
