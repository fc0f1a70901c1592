"""Teacher forcing's CPU fast path (paragen.models.deferred, gru_layer, decoders.Forcing, attention.LoopAttention)
computes the same loss and the same gradient of every parameter as the plain path it replaces: torch's packed
``nn.GRU`` for the encoder, and the decoder step that concatenates its inputs and lets autograd add each step's
weight gradient. Tiny models with their own random (distinct, non-identity) weights, batches with padding."""

import pytest
import torch

from paragen.config import ModelConfig
from paragen.data.batching import make_batch
from paragen.data.vocabulary import Vocabulary
from paragen.models import build_model, encoders, vocabulary_for
from paragen.models.decoders import RecurrentDecoder
from paragen.models.deferred import DeferredGradients, LoopLinears, linear
from paragen.models.gru_layer import gru_over_time
from paragen.models.seq2seq import run_teacher_forced

SOURCES = [["a", "b", "zz", "c", "e"], ["d", "e"], ["f", "a", "c"]]
TARGETS = [["b", "zz", "a"], ["e", "d", "f", "a", "b"], ["c"]]

GRU_CONFIGS = {
    "anchor (general, h~ feeding, bridge)": dict(architecture="rnnsearch", attention="general",
                                                 input_feeding="attentional"),
    "encdec": dict(architecture="encdec"),
    "rnnsearch (Bahdanau, context feeding)": dict(architecture="rnnsearch", attention="bahdanau"),
    "rnnsearch (dot, 2-layer encoder and decoder, sum, encoder-final start)": dict(
        architecture="rnnsearch", attention="dot", encoder_layers=2, decoder_layers=2, bidirectional_merge="sum",
        decoder_init="encoder_final", input_feeding="attentional"),
    "copynet (selective read)": dict(architecture="copynet", attention="bahdanau"),
    "wean (general, q feeding)": dict(architecture="wean", attention="general", wean_score="general",
                                      input_feeding="attentional"),
    "sgate + no attentional bias": dict(architecture="rnnsearch", attention="general", input_feeding="attentional",
                                        selective_gate=True, attentional_bias=False),
}


def _model_and_batch(overrides: dict, dropout: float = 0.0):
    config = ModelConfig(embedding_size=8, hidden_size=12, dropout=dropout, cell="gru", **overrides)
    vocab = vocabulary_for(config, Vocabulary.build([[["a", "b", "c", "d", "e", "f"]]]))
    torch.manual_seed(3)
    return build_model(config, len(vocab)), make_batch(SOURCES, TARGETS, vocab)


def _loss_and_grads(model, batch, plain: bool, monkeypatch, seed: int = 11):
    """Teacher forcing's log-probabilities weighted by fixed random numbers (so no gradient is symmetric), and the
    gradient of every parameter; ``plain``: with the fast path switched off, i.e. the computation it replaces."""
    with monkeypatch.context() as patch:
        if plain:
            patch.setattr(encoders, "steps_here", lambda *_: False)
            patch.setattr(RecurrentDecoder, "forcing", lambda *_: None)
        model.zero_grad()
        torch.manual_seed(seed)  # the same dropout draws in both runs
        run = run_teacher_forced(model, batch, keep_attention=model.decoder.attention is not None)
        weights = torch.randn(run.log_probs.shape, generator=torch.Generator().manual_seed(5))
        finite = torch.isfinite(run.log_probs)
        loss = (run.log_probs.masked_fill(~finite, 0) * weights).sum()
        if run.attention is not None:  # the attention weights' own gradient path, as a model reading them has
            loss = loss + (run.attention * torch.linspace(0.5, 2.0, run.attention.size(-1))).sum()
        loss.backward()
    grads = {name: p.grad.clone() for name, p in model.named_parameters() if p.grad is not None}
    return run.log_probs.detach(), grads


def _assert_same_gradients(got: dict, expected: dict) -> None:
    """Every parameter's gradient in ``expected`` (name -> tensor) equals ``got``'s to 1e-5."""
    for key, want in expected.items():
        torch.testing.assert_close(got[key], want, atol=1e-5, rtol=1e-5, msg=f"gradient of {key}")


@pytest.mark.parametrize("name", list(GRU_CONFIGS))
def test_the_fast_path_gives_the_plain_paths_numbers_and_gradients(name, monkeypatch):
    model, batch = _model_and_batch(GRU_CONFIGS[name])
    model.eval()  # no dropout; gradients still flow
    plain, plain_grads = _loss_and_grads(model, batch, True, monkeypatch)
    fast, fast_grads = _loss_and_grads(model, batch, False, monkeypatch)
    torch.testing.assert_close(fast, plain, atol=1e-5, rtol=0)
    assert set(fast_grads) == set(plain_grads) and len(plain_grads) > 10
    _assert_same_gradients(fast_grads, plain_grads)


def test_the_fast_path_is_taken_and_draws_the_same_dropout_in_training(monkeypatch):
    """In training mode with dropout, the same seed gives the same loss and gradients: the fast path draws its
    masks over the same tensors in the same order. And it is the path training takes on the CPU."""
    model, batch = _model_and_batch(GRU_CONFIGS["anchor (general, h~ feeding, bridge)"], dropout=0.3)
    model.train()
    taken = []
    original = RecurrentDecoder.forcing
    monkeypatch.setattr(RecurrentDecoder, "forcing", lambda *a: taken.append(1) or original(*a))
    fast, fast_grads = _loss_and_grads(model, batch, False, monkeypatch)
    assert taken == [1]
    plain, plain_grads = _loss_and_grads(model, batch, True, monkeypatch)
    torch.testing.assert_close(fast, plain, atol=1e-5, rtol=0)
    _assert_same_gradients(fast_grads, plain_grads)


@pytest.mark.parametrize("bidirectional", [True, False], ids=["bidirectional", "forward only"])
@pytest.mark.parametrize("lengths", [[5, 2, 4], [4, 4, 4], [3, 1, 2]], ids=["padded", "no padding", "one token"])
def test_gru_over_time_is_the_packed_nn_gru(lengths, bidirectional):
    """Outputs (zero at padding), final states and every gradient equal torch's packed 2-layer GRU."""
    torch.manual_seed(2)
    rnn = torch.nn.GRU(3, 4, num_layers=2, batch_first=True, bidirectional=bidirectional)
    inputs = torch.randn(3, max(lengths), 3, requires_grad=True)
    host = torch.tensor(lengths)
    packed = torch.nn.utils.rnn.pack_padded_sequence(inputs, host, batch_first=True, enforce_sorted=False)
    out, final = rnn(packed)
    expected, _ = torch.nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=max(lengths))
    ours, our_final = gru_over_time(rnn, inputs, host)
    torch.testing.assert_close(ours, expected, atol=1e-6, rtol=0)
    torch.testing.assert_close(our_final, final, atol=1e-6, rtol=0)
    w_out, w_final = torch.randn(expected.shape), torch.randn(final.shape)
    params = [inputs, *rnn.parameters()]
    reference = torch.autograd.grad((expected * w_out).sum() + (final * w_final).sum(), params)
    grads = torch.autograd.grad((ours * w_out).sum() + (our_final * w_final).sum(), params)
    for got, want in zip(grads, reference):
        torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)


def test_deferred_gradients_are_the_hand_summed_outer_products():
    """y_t = x_t W^T + b over two steps, L = Σ_t c_t · y_t: ∂L/∂W = Σ_t c_t^T x_t and ∂L/∂b = Σ_t c_t, worked out
    here with plain Python; a second backward of the same graph gives them again (the records are not reused)."""
    weight = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], requires_grad=True)
    bias = torch.tensor([0.1, -0.2], requires_grad=True)
    xs = [[1.0, 2.0, -1.0], [0.5, -3.0, 4.0]]
    cs = [[2.0, -1.0], [-0.5, 3.0]]
    loop = LoopLinears()
    layer = torch.nn.Linear(3, 2)
    layer.weight, layer.bias = torch.nn.Parameter(weight.detach().clone()), torch.nn.Parameter(bias.detach().clone())
    loss = sum((loop(layer, torch.tensor([x])) * torch.tensor([c])).sum() for x, c in zip(xs, cs))
    expected_w = [[sum(c[i] * x[j] for x, c in zip(xs, cs)) for j in range(3)] for i in range(2)]
    expected_b = [sum(c[i] for c in cs) for i in range(2)]  # [1.5, 2.0]
    assert expected_w == [[1.75, 5.5, -4.0], [0.5, -11.0, 13.0]]
    loss.backward(retain_graph=True)
    assert layer.weight.grad.tolist() == expected_w and layer.bias.grad.tolist() == expected_b
    layer.zero_grad()
    loss.backward()
    assert layer.weight.grad.tolist() == expected_w and layer.bias.grad.tolist() == expected_b


def test_a_step_base_gets_its_own_gradient_and_direct_reads_of_the_weight_are_added():
    """``linear``'s per-step base receives ∂L/∂y; an ordinary operator that also reads the deferred weight adds its
    gradient to the summed one: here L = Σ y + Σ W, so ∂L/∂W = 1 + Σ_t (x_t summed over the batch)."""
    weight = torch.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)
    deferred = DeferredGradients(weight)
    base = torch.tensor([[0.3, -0.4]], requires_grad=True)
    x = torch.tensor([[2.0, -1.0]])
    loss = linear(x, deferred, base).sum() + linear(x * 3, deferred, base).sum() + deferred.weight.sum()
    loss.backward()
    assert base.grad.tolist() == [[2.0, 2.0]]
    assert weight.grad.tolist() == [[1 + 2 + 6, 1 - 1 - 3], [1 + 2 + 6, 1 - 1 - 3]]


def test_a_trained_batch_leaves_nothing_alive(monkeypatch):
    """Once a batch's loss has been backpropagated and dropped, none of its deferred-gradient holders survives:
    a holder referred to by its own autograd node's context would keep the batch's whole graph (activations
    included) alive, and training memory would grow batch after batch (it did: about 3 MB a batch of 64)."""
    import gc
    import weakref

    import paragen.models.deferred as deferred

    alive = []
    original = deferred.DeferredGradients.__init__

    def recording(self, *args, **kwargs):
        original(self, *args, **kwargs)
        alive.append(weakref.ref(self))

    monkeypatch.setattr(deferred.DeferredGradients, "__init__", recording)
    model, batch = _model_and_batch(GRU_CONFIGS["anchor (general, h~ feeding, bridge)"])
    model.train()
    model.loss(batch).total.backward()
    gc.collect()
    assert len(alive) >= 5  # encoder and decoder recurrences, attention memory and keys, the attentional layer
    assert [ref for ref in alive if ref() is not None] == []


@pytest.mark.parametrize("score", ["bahdanau", "concat"])
def test_additive_scores_and_their_gradients_are_v_tanh_of_the_sum(score):
    """The additive score, computed with an in-place tanh and a matrix-vector product, is v^T tanh(W_q s + k_j)
    written out here with the layers' weights, and so are its gradients (float64, torch's numerical check too)."""
    from paragen.models.attention import Attention

    torch.manual_seed(4)
    attention = Attention(score, 3, 5).double()
    query = torch.randn(2, 3, dtype=torch.float64, requires_grad=True)
    keys = torch.randn(2, 4, 3, dtype=torch.float64, requires_grad=True)
    w_q, v = attention.W_q.weight, attention.v.weight[0]
    expected = torch.stack([torch.stack([torch.tanh(w_q @ query[b] + keys[b, j]) @ v for j in range(4)])
                            for b in range(2)])
    scores = attention.energies(query, keys)
    torch.testing.assert_close(scores, expected, atol=1e-12, rtol=0)
    weights = torch.randn(2, 4, dtype=torch.float64)
    got = torch.autograd.grad((scores * weights).sum(), [query, keys, w_q, attention.v.weight])
    want = torch.autograd.grad((expected * weights).sum(), [query, keys, w_q, attention.v.weight])
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, atol=1e-12, rtol=0)
    assert torch.autograd.gradcheck(attention.energies, (query, keys))


def test_a_pass_that_skips_the_sum_leaves_no_records_behind(monkeypatch):
    """A gradient asked for the source embedding alone runs the steps' backward but not the sums after the loop;
    the next full backward must count each step once (not twice), and nothing of the batch may stay alive."""
    import gc
    import weakref

    model, batch = _model_and_batch(GRU_CONFIGS["anchor (general, h~ feeding, bridge)"])
    model.eval()
    _, plain = _loss_and_grads(model, batch, True, monkeypatch)
    model.zero_grad()
    run = run_teacher_forced(model, batch, keep_attention=True)
    weights = torch.randn(run.log_probs.shape, generator=torch.Generator().manual_seed(5))
    loss = (run.log_probs * weights).sum() + (run.attention * torch.linspace(0.5, 2.0, run.attention.size(-1))).sum()
    torch.autograd.grad(loss, [model.encoder.embedding.weight], retain_graph=True)
    loss.backward()
    _assert_same_gradients({name: p.grad for name, p in model.named_parameters()}, plain)
    alive = weakref.ref(run.log_probs)
    del run, loss
    model.zero_grad()
    torch.autograd.grad((run_teacher_forced(model, batch).log_probs * weights).sum(),
                        [model.encoder.embedding.weight])  # the sums never run in this pass
    gc.collect()
    assert alive() is None


def test_a_frozen_decoder_cell_records_nothing(monkeypatch):
    """With the decoder's GRU frozen, its deferred weights need no gradient: no step records for them, the other
    parameters' gradients are the plain path's, and nothing of the batch stays alive."""
    import gc
    import weakref

    import paragen.models.deferred as deferred

    model, batch = _model_and_batch(GRU_CONFIGS["anchor (general, h~ feeding, bridge)"])
    model.eval()
    model.decoder.cell.requires_grad_(False)
    _, plain = _loss_and_grads(model, batch, True, monkeypatch)
    holders = []
    original = deferred.DeferredGradients.__init__
    monkeypatch.setattr(deferred.DeferredGradients, "__init__",
                        lambda self, *a: original(self, *a) or holders.append(weakref.ref(self)))
    _, fast = _loss_and_grads(model, batch, False, monkeypatch)
    assert set(fast) == set(plain) and not any(key.startswith("decoder.cell.") for key in fast)
    _assert_same_gradients(fast, plain)
    gc.collect()
    assert holders and [ref for ref in holders if ref() is not None] == []


def test_an_empty_source_is_refused_as_packing_refuses_it():
    rnn = torch.nn.GRU(3, 4, batch_first=True, bidirectional=True)
    with pytest.raises(ValueError, match=r"every source needs at least one token; lengths \[2, 0\] include 0"):
        gru_over_time(rnn, torch.randn(2, 2, 3), torch.tensor([2, 0]))


@pytest.mark.parametrize("name", ["copynet (selective read)", "wean (general, q feeding)",
                                  "rnnsearch (dot, 2-layer encoder and decoder, sum, encoder-final start)"])
def test_training_mode_with_dropout_matches_for_other_models(name, monkeypatch):
    """Dropout between stacked decoder layers, CopyNet's selective read and WEAN's query, in training mode: the
    same draws and the same numbers (a 2-layer encoder with dropout while training keeps torch's nn.GRU)."""
    model, batch = _model_and_batch(GRU_CONFIGS[name], dropout=0.3)
    model.train()
    fast, fast_grads = _loss_and_grads(model, batch, False, monkeypatch)
    plain, plain_grads = _loss_and_grads(model, batch, True, monkeypatch)
    torch.testing.assert_close(fast, plain, atol=1e-5, rtol=0)
    _assert_same_gradients(fast_grads, plain_grads)


def test_the_fast_path_is_off_without_gradients_under_autocast_and_for_lstm_decoders(monkeypatch):
    model, batch = _model_and_batch(GRU_CONFIGS["anchor (general, h~ feeding, bridge)"])
    embedded = torch.zeros(3, 2, 8)
    assert model.decoder.forcing(embedded, model.encode(batch)) is not None
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert model.decoder.forcing(embedded, model.encode(batch)) is None
    asked = []
    monkeypatch.setattr(RecurrentDecoder, "forcing", lambda *a: asked.append(1))
    with torch.no_grad():
        run_teacher_forced(model, batch)  # validation: the plain step
    assert asked == []
    lstm = build_model(ModelConfig(embedding_size=8, hidden_size=12, dropout=0.0, cell="lstm",
                                   architecture="rnnsearch"), 20)
    monkeypatch.undo()
    assert lstm.decoder.forcing(embedded, lstm.encode(batch)) is None
