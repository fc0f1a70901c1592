"""The Transformer of the simplification report (003 §3.2): each equation by hand, the incremental step
against the parallel decoder, cached against uncached decoding, and its settings."""

from __future__ import annotations

import math

import pytest
import torch
from torch.nn import functional as F

from paragen.data.batching import make_batch
from paragen.config import ConfigError, ModelConfig, parse_config
from paragen.models.seq2seq import State, StepOutput
from paragen.models.transformer import DecoderLayer, EncoderLayer, MultiHeadAttention, sinusoidal_positions
from paragen.decoding.search import beam_search
from paragen.data.vocabulary import BOS_ID, PAD_ID, SPECIALS, Vocabulary

from conftest import TINY_PARAMS, tiny_model

VOCAB = Vocabulary(list(SPECIALS) + ["a", "b", "c", "d"])
SOURCES = [["a", "b", "c", "d", "a"], ["d", "c"]]
TARGETS = [["b", "c", "a"], ["d", "a", "b", "c", "c", "d"]]


def test_sinusoidal_positions_by_hand():
    table = sinusoidal_positions(3, 4)
    # d = 4: rates 10000^(-0/4) = 1 and 10000^(-2/4) = 1/100
    assert table[0].tolist() == pytest.approx([0.0, 1.0, 0.0, 1.0])
    assert table[1].tolist() == pytest.approx([math.sin(1), math.cos(1), math.sin(0.01), math.cos(0.01)])
    assert table[2].tolist() == pytest.approx([math.sin(2), math.cos(2), math.sin(0.02), math.cos(0.02)])


def _identity_attention(heads: int, key_size: int, model_size: int) -> MultiHeadAttention:
    attention = MultiHeadAttention(model_size, heads, key_size, dropout=0.0)
    with torch.no_grad():
        for linear in (attention.query, attention.key, attention.value, attention.output):
            linear.weight.copy_(torch.eye(linear.weight.size(0), linear.weight.size(1)))
    return attention


def test_scaled_dot_product_attention_by_hand():
    # one head, d_k = 2, W^Q = W^K = W^V = W^O = I: query (2, 0), keys/values (1, 0) and (0, 1)
    attention = _identity_attention(heads=1, key_size=2, model_size=2)
    x = torch.tensor([[[2.0, 0.0]]])
    memory = torch.tensor([[[1.0, 0.0], [0.0, 1.0]]])
    output, weights = attention.attend(x, *attention.keys_values(memory), None)
    # scores q.k / sqrt(d_k) = (2/sqrt 2, 0); softmax -> p, 1 - p; output = p (1, 0) + (1 - p) (0, 1)
    p = math.exp(math.sqrt(2)) / (math.exp(math.sqrt(2)) + 1)
    assert weights[0, 0, 0].tolist() == pytest.approx([p, 1 - p])
    assert output[0, 0].tolist() == pytest.approx([p, 1 - p])


def test_heads_attend_in_their_own_subspace_and_masked_keys_get_nothing():
    # two heads of d_k = 1 on d_model = 2, identity projections: head i reads coordinate i only
    attention = _identity_attention(heads=2, key_size=1, model_size=2)
    x = torch.tensor([[[1.0, 0.0]]])
    memory = torch.tensor([[[1.0, 0.0], [0.0, 1.0]]])
    output, _ = attention.attend(x, *attention.keys_values(memory), None)
    e = math.e
    # head 1: scores (1, 0) -> (e, 1)/(e + 1), values (1, 0) -> e/(e + 1); head 2: scores (0, 0), values (0, 1) -> 1/2
    assert output[0, 0].tolist() == pytest.approx([e / (e + 1), 0.5])
    output, weights = attention.attend(x, *attention.keys_values(memory), torch.tensor([True, False])[None, None, None])
    assert output[0, 0].tolist() == pytest.approx([1.0, 0.0])
    assert weights[0, :, 0, 1].tolist() == [0.0, 0.0]


def test_w_o_maps_concatenated_heads_back_to_d_model():
    attention = MultiHeadAttention(model_size=3, heads=5, key_size=2, dropout=0.0)  # h·d_v = 10 != d_model = 3
    assert attention.output.weight.shape == (3, 10)
    assert [p.shape for p in (attention.query.weight, attention.key.weight, attention.value.weight)] == [(10, 3)] * 3
    assert all(linear.bias is None for linear in (attention.query, attention.key, attention.value, attention.output))


def test_encoder_layer_is_post_norm_residual():
    torch.manual_seed(1)
    layer = EncoderLayer(model_size=4, heads=2, key_size=2, inner_size=6, dropout=0.0).eval()
    x = torch.randn(1, 3, 4)
    mask = torch.tensor([True, True, False])[None, None, None]
    attended, _ = layer.attention.attend(x, *layer.attention.keys_values(x), mask)
    h = F.layer_norm(x + attended, (4,), layer.norm_attention.weight, layer.norm_attention.bias)
    ff = layer.feed_forward
    inner = torch.relu(h @ ff.inner.weight.T + ff.inner.bias)  # ReLU feed-forward, written out
    expected = F.layer_norm(h + inner @ ff.outer.weight.T + ff.outer.bias, (4,), layer.norm_feed_forward.weight,
                            layer.norm_feed_forward.bias)
    assert torch.allclose(layer(x, mask), expected, atol=1e-6)


def test_decoder_layer_self_then_cross_attention_then_feed_forward():
    torch.manual_seed(2)
    layer = DecoderLayer(model_size=4, heads=2, key_size=2, inner_size=6, dropout=0.0).eval()
    x, memory = torch.randn(1, 2, 4), torch.randn(1, 3, 4)
    causal = torch.ones(2, 2, dtype=torch.bool).tril()[None, None]
    cross_mask = torch.ones(1, 1, 1, 3, dtype=torch.bool)
    a, _ = layer.self_attention.attend(x, *layer.self_attention.keys_values(x), causal)
    h1 = F.layer_norm(x + a, (4,), layer.norm_self.weight, layer.norm_self.bias)
    c, _ = layer.cross_attention.attend(h1, *layer.cross_attention.keys_values(memory), cross_mask)
    pre = F.layer_norm(h1 + c, (4,), layer.norm_cross.weight, layer.norm_cross.bias)
    expected = F.layer_norm(pre + layer.feed_forward(pre), (4,), layer.norm_feed_forward.weight,
                            layer.norm_feed_forward.bias)
    output, weights, pre_context = layer(x, *layer.self_attention.keys_values(x), causal,
                                         *layer.cross_attention.keys_values(memory), cross_mask)
    assert torch.allclose(pre_context, pre, atol=1e-6)
    assert torch.allclose(output, expected, atol=1e-6)
    assert weights.shape == (1, 2, 2, 3)


def _multi_head(x, y, wq, wk, wv, wo, heads, may=None):
    """[head_1 … head_h] W^O, head_i = softmax((X W_i^Q)(Y W_i^K)^T / sqrt(d_k)) (Y W_i^V), in plain torch ops.

    W^Q, W^K, W^V are (d_model, h·d_k), W_i^* their d_k columns of head i; W^O is (h·d_k, d_model); ``may``
    (True = may attend) broadcasts to (batch, q_len, k_len)."""
    d_k = wq.size(1) // heads
    joined = []
    for i in range(heads):
        cols = slice(i * d_k, (i + 1) * d_k)
        scores = (x @ wq[:, cols]) @ (y @ wk[:, cols]).transpose(-1, -2) / math.sqrt(d_k)
        if may is not None:
            scores = scores.masked_fill(~may, float("-inf"))
        joined.append(torch.softmax(scores, dim=-1) @ (y @ wv[:, cols]))
    return torch.cat(joined, dim=-1) @ wo


@pytest.mark.parametrize("model_size, heads, key_size", [(4, 2, 2), (3, 2, 4)])
def test_multi_head_attention_with_distinct_projections_by_hand(model_size, heads, key_size):
    """003 §3.2.1: MultiHead(X, Y, Y) = [head_1 … head_h] W^O,
    head_i = softmax(X W_i^Q (Y W_i^K)^T / sqrt(d_k)) Y W_i^V, no biases, masked keys excluded. Distinct random
    W^Q, W^K, W^V, W^O (identity weights hide a swapped projection or a dropped W^O); h·d_k = d_model and
    h·d_k != d_model."""
    g = torch.Generator().manual_seed(5)
    wq, wk, wv = (torch.randn(model_size, heads * key_size, generator=g) * 0.5 for _ in range(3))
    wo = torch.randn(heads * key_size, model_size, generator=g) * 0.5
    attention = MultiHeadAttention(model_size, heads, key_size, dropout=0.0)
    with torch.no_grad():
        for linear, w in zip((attention.query, attention.key, attention.value, attention.output), (wq, wk, wv, wo)):
            linear.weight.copy_(w.T)  # nn.Linear computes x W^T
    x, y = torch.randn(2, 2, model_size, generator=g), torch.randn(2, 3, model_size, generator=g)
    may = torch.tensor([[True, True, True], [True, False, True]])  # sentence 2's second key is padding
    output, _ = attention.attend(x, *attention.keys_values(y), may[:, None, None, :])
    assert torch.allclose(output, _multi_head(x, y, wq, wk, wv, wo, heads, may[:, None, :]), atol=1e-5)


def _attention_of(attention: MultiHeadAttention, x, y, may):
    weights = (attention.query.weight.T, attention.key.weight.T, attention.value.weight.T, attention.output.weight.T)
    return _multi_head(x, y, *weights, attention.heads, may)


def _norm(x, norm):
    return F.layer_norm(x, x.shape[-1:], norm.weight, norm.bias)


def test_each_decoder_layer_reads_the_encoder_through_its_own_cross_attention():
    """003 §3.2.2: decoder layer l attends over the encoder output M with MultiHead(h_l, M, M) under ITS OWN
    encoder–decoder W^Q, W^K, W^V, W^O — not its self-attention's, not another layer's. Two decoder layers with
    different (random) weights; the decoder written out by hand, checked in training (parallel) and by steps."""
    model = tiny_model("transformer", len(VOCAB), decoder_layers=2)
    batch = make_batch(SOURCES, TARGETS, VOCAB)
    memory = model.encode(batch).memory  # the encoder is not under test here
    length = batch.tgt_in.size(1)
    x = model.target_embedding.weight[batch.tgt_in] * math.sqrt(8) + sinusoidal_positions(length, 8)
    causal, source = torch.ones(length, length, dtype=torch.bool).tril(), (batch.src != PAD_ID)[:, None, :]
    for layer in model.decoder_layers:
        x = _norm(x + _attention_of(layer.self_attention, x, x, causal), layer.norm_self)
        x = _norm(x + _attention_of(layer.cross_attention, x, memory, source), layer.norm_cross)
        ff = layer.feed_forward
        x = _norm(x + torch.relu(x @ ff.inner.weight.T + ff.inner.bias) @ ff.outer.weight.T + ff.outer.bias,
                  layer.norm_feed_forward)
    expected = torch.log_softmax(x @ model.projection.weight.T + model.projection.bias, dim=-1)
    assert torch.allclose(model(batch), expected, atol=1e-5)
    encoded = model.encode(batch)
    state = model.initial_state(encoded)
    for t in range(length):
        out = model.step(batch.tgt_in[:, t], state, encoded)
        state = out.state
        assert torch.allclose(out.log_probs, expected[:, t], atol=1e-5), t


def test_scaled_embeddings_start_at_the_scale_of_the_positions():
    import torch.nn as nn

    model = Transformer_(vocab=1000, size=300)
    scaled = model.source_embedding.weight[4:] * math.sqrt(300)
    assert scaled.std().item() == pytest.approx(1.0, abs=0.02)  # like sin/cos entries, not 17 as N(0, 1) would be
    assert model.source_embedding.weight[0].abs().sum().item() == 0.0  # padding row
    assert isinstance(model.target_embedding, nn.Embedding)


def Transformer_(vocab: int, size: int):
    from paragen.models.transformer import Transformer

    torch.manual_seed(0)
    return Transformer(vocab, size, 5, 64, 4 * size, 1, 1, 0.0, False)


def test_sentences_longer_than_the_position_table_are_refused():
    from paragen.models.transformer import Transformer

    model = Transformer(len(VOCAB), 8, 2, 4, 16, 1, 1, 0.0, False, max_positions=4)
    with pytest.raises(ValueError, match="a source sentence of 5 tokens exceeds the Transformer's 4 positions"):
        model.encode(make_batch([["a", "b", "c", "d", "a"]], None, VOCAB))


def test_embeddings_are_scaled_by_sqrt_d_model_plus_positions():
    model = tiny_model("transformer", len(VOCAB))
    ids = torch.tensor([[VOCAB.id("a"), VOCAB.id("b")]])
    got = model._embed(model.source_embedding, ids, torch.tensor([[0, 1]]))
    expected = model.source_embedding.weight[ids] * math.sqrt(8) + sinusoidal_positions(2, 8)
    assert torch.allclose(got, expected, atol=1e-6)


def test_each_step_equals_the_parallel_decoder():
    model = tiny_model("transformer", len(VOCAB), encoder_layers=2, decoder_layers=2)
    batch = make_batch(SOURCES, TARGETS, VOCAB)
    parallel = model(batch)
    encoded = model.encode(batch)
    state = model.initial_state(encoded)
    for t in range(batch.tgt_in.size(1)):
        out = model.step(batch.tgt_in[:, t], state, encoded)
        state = out.state
        assert torch.allclose(out.log_probs, parallel[:, t], atol=1e-5), t
    assert state["self_k0"].shape == (2, 2, batch.tgt_in.size(1), 4)


def test_a_position_never_sees_later_target_tokens():
    model = tiny_model("transformer", len(VOCAB))
    batch = make_batch(SOURCES, TARGETS, VOCAB)
    before = model(batch)
    batch.tgt_in[1, 4:] = VOCAB.id("a")  # change the later target tokens of sentence 2
    after = model(batch)
    assert torch.allclose(after[1, :4], before[1, :4], atol=1e-6)
    assert not torch.allclose(after[1, 4:], before[1, 4:])


class Uncached(torch.nn.Module):
    """The same model decoding without caches: every step reruns the decoder over the whole prefix."""

    copies = False

    def __init__(self, model):
        super().__init__()
        self.model, self.vocab_size = model, model.vocab_size

    def encode(self, batch):
        self._batch = batch
        return self.model.encode(batch)

    def initial_state(self, encoded) -> State:
        return {"prefix": torch.zeros(encoded.memory.size(0), 0, dtype=torch.long)}

    def step(self, tokens, state, encoded) -> StepOutput:
        prefix = torch.cat([state["prefix"], tokens.unsqueeze(1)], dim=1)
        m = self.model
        x = m._embed(m.target_embedding, m.target_ids(prefix), torch.arange(prefix.size(1)).expand_as(prefix))
        causal = torch.ones(prefix.size(1), prefix.size(1), dtype=torch.bool).tril()[None, None]
        for index, layer in enumerate(m.decoder_layers):
            x, _, _ = layer(x, *layer.self_attention.keys_values(x), causal, encoded.projections[f"cross_k{index}"],
                            encoded.projections[f"cross_v{index}"], encoded.mask[:, None, None, :])
        log_probs = torch.log_softmax(m.projection(x[:, -1]), dim=-1)
        return StepOutput(log_probs, {"prefix": prefix}, None, None, None)


@pytest.mark.parametrize("stopping", ["early", "bound", "shrinking"])
def test_cached_decoding_equals_uncached(stopping):
    model = tiny_model("transformer", len(VOCAB), decoder_layers=2)
    batch = make_batch(SOURCES, None, VOCAB)
    cached = beam_search(model, batch, beam_size=3, max_length=6, nbest=3, stopping=stopping)
    uncached = beam_search(Uncached(model), batch, beam_size=3, max_length=6, nbest=3, stopping=stopping)
    for a, b in zip(cached, uncached):
        assert [h.tokens for h in a] == [h.tokens for h in b]
        assert [h.score for h in a] == pytest.approx([h.score for h in b], abs=1e-5)


def test_transformer_settings_are_checked():
    assert ModelConfig(architecture="transformer", embedding_size=300, heads=5, key_size=64).feedforward_size is None
    with pytest.raises(ValueError, match="cell: not a setting of the transformer"):
        ModelConfig(architecture="transformer", cell="lstm")
    with pytest.raises(ValueError, match=r"heads, key_size: not a setting of rnnsearch \(a recurrent model\)"):
        ModelConfig(architecture="rnnsearch", heads=4, key_size=8)
    import yaml

    raw = yaml.safe_load(TINY_PARAMS.read_text())
    raw["models"]["copynet"]["heads"] = 4
    with pytest.raises(ConfigError, match="models.copynet"):
        parse_config(raw)


def test_greedy_step_starts_from_bos_alone():
    model = tiny_model("transformer", len(VOCAB))
    batch = make_batch(SOURCES, None, VOCAB)
    encoded = model.encode(batch)
    state = model.initial_state(encoded)
    assert state["self_k0"].shape[2] == 0 and state["position"].tolist() == [0, 0]
    out = model.step(torch.full((2,), BOS_ID), state, encoded)
    assert out.state["position"].tolist() == [1, 1]
    assert out.attention.shape == (2, batch.src.size(1))
    assert out.attention[1, 2:].tolist() == [0.0, 0.0, 0.0]  # sentence 2 has 2 source tokens: padding gets none


def test_trains_with_the_warm_up_schedule_and_reloads_from_its_checkpoint(tmp_path, tiny_config):
    from paragen.config import TrainingConfig
    from paragen.data.corpus import read_split
    from paragen.data.synthetic import generate, write_splits
    from paragen.training.checkpoint import load_model
    from paragen.training.trainer import train

    write_splits(generate(tiny_config.datasets["tiny"]), tmp_path / "data")
    train_data, valid_data = read_split(tmp_path / "data", "train"), read_split(tmp_path / "data", "valid")
    vocab = Vocabulary.build([train_data.sources, train_data.targets])
    config = ModelConfig(architecture="transformer", embedding_size=16, heads=2, key_size=8, encoder_layers=1,
                         decoder_layers=1, dropout=0.1)
    training = TrainingConfig(batch_size=8, max_epochs=2, patience=5, valid_max_length=20, seed=3, threads=1,
                              schedule="inverse_sqrt", warmup_steps=5, learning_rate=0.005, adam_betas=(0.9, 0.98))
    state = train(model_config=config, training=training, train_data=train_data, valid_data=valid_data, vocab=vocab,
                  run_dir=tmp_path / "run", device=torch.device("cpu"), progress=False)
    rows = state.log_rows
    assert rows[1]["train_loss"] < rows[0]["train_loss"]  # it learns
    model, _ = load_model(tmp_path / "run" / "best.pt", torch.device("cpu"))
    assert type(model).__name__ == "Transformer" and model.model_size == 16


def test_checkpoints_stay_readable_when_the_other_kinds_defaults_change():
    stored = ModelConfig(architecture="rnnsearch", hidden_size=16).model_dump()
    stored["heads"] = 7  # as if the Transformer's default head count had been 7 when this was saved
    assert ModelConfig.from_checkpoint(stored).hidden_size == 16
    with pytest.raises(ValueError, match="heads: not a setting of rnnsearch"):
        ModelConfig.model_validate(stored)
