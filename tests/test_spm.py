"""Kiyono et al. (2018, paper 004): EncDec as its appendix, +sGate (Zhou et al. 2017).

Every expected number is worked out here, by hand or by loops over plain floats (the LSTM, attention and
softmax written out), never by the module under test; the weights are fixed, the tensors tiny.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
import torch

from paragen.batching import make_batch
from paragen.config import ModelConfig
from paragen.models.selective_gate import SelectiveGate
from paragen.vocabulary import BOS_ID, SPECIALS, Vocabulary

from conftest import tiny_model
from test_equations import dot, fix_weights, lstm, matvec, sigmoid, softmax

VOCAB = Vocabulary(list(SPECIALS) + ["a", "b", "c"])
A_ID, B_ID, C_ID = 4, 5, 6
ENCDEC_004 = dict(cell="lstm", attention="general", input_feeding="attentional", bidirectional_merge="sum",
                  decoder_init="encoder_final", attentional_bias=False)
"""004's EncDec switches on the attentional RNN (Appendix A-C): tiny_model adds embedding 8, hidden 12."""
def add(a: list[float], b: list[float]) -> list[float]:
    return [x + y for x, y in zip(a, b)]


# --- the bidirectional LSTM encoder, written out ---------------------------------------------------------------

def _direction(rnn: torch.nn.LSTM, layer: int, reverse: bool) -> SimpleNamespace:
    """One direction of one layer of nn.LSTM, shaped like the LSTMCell the ``lstm`` helper reads."""
    suffix = f"_l{layer}" + ("_reverse" if reverse else "")
    names = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
    return SimpleNamespace(**{name: getattr(rnn, name + suffix) for name in names})


def _run(cell, inputs: list[list[float]], size: int) -> tuple[list[list[float]], list[list[float]]]:
    h, c, hs, cs = [0.0] * size, [0.0] * size, [], []
    for x in inputs:
        h, c = lstm(cell, x, h, c)
        hs.append(h)
        cs.append(c)
    return hs, cs


def bi_lstm(rnn: torch.nn.LSTM, inputs: list[list[float]], layers: int) -> list[dict[str, list[list[float]]]]:
    """Per layer: forward and backward hidden and cell states at each position of one unpadded sentence.
    Layer l + 1 reads [→h_i; ←h_i] of layer l, as nn.LSTM stacks (no dropout in eval mode)."""
    size, result = rnn.hidden_size, []
    for layer in range(layers):
        fh, fc = _run(_direction(rnn, layer, False), inputs, size)
        bh, bc = (list(reversed(states)) for states in _run(_direction(rnn, layer, True), inputs[::-1], size))
        result.append({"fh": fh, "fc": fc, "bh": bh, "bc": bc})
        inputs = [f + b for f, b in zip(fh, bh)]  # list concatenation: [→h_i; ←h_i]
    return result


def embedded(model, sentence: list[str], vocab: Vocabulary = VOCAB) -> list[list[float]]:
    return [model.encoder.embedding.weight[vocab.id(w)].tolist() for w in sentence]


SOURCES = [["a", "b", "c"], ["c", "a"]]


def test_directions_are_summed_eq_16_and_zeroing_one_leaves_the_other():
    """h_i = →h_i + ←h_i: the memory is H wide; with one direction's weights at zero its states are 0
    (every gate 0.5, candidate tanh(0) = 0), so the memory is exactly the other direction's states."""
    model = fix_weights(tiny_model("rnnsearch", len(VOCAB), **ENCDEC_004)).eval()
    rnn = model.encoder.rnn
    batch = make_batch(SOURCES, None, VOCAB)
    assert model.encoder.memory_size == 12
    memory = model.encoder(batch.src, batch.src_lengths).memory
    trained = {name: value.clone() for name, value in rnn.state_dict().items()}
    for row, sentence in enumerate(SOURCES):
        states = bi_lstm(rnn, embedded(model, sentence), 1)[0]
        for i in range(len(sentence)):
            assert memory[row, i].tolist() == pytest.approx(add(states["fh"][i], states["bh"][i]), abs=1e-5)
    for zeroed, kept in (("_reverse", "fh"), ("", "bh")):
        with torch.no_grad():
            for name, parameter in rnn.named_parameters():
                if name.endswith("_l0" + zeroed):
                    parameter.zero_()
        alone = model.encoder(batch.src, batch.src_lengths).memory
        for row, sentence in enumerate(SOURCES):
            states = bi_lstm(rnn, embedded(model, sentence), 1)[0]
            for i in range(len(sentence)):
                assert alone[row, i].tolist() == pytest.approx(states[kept][i], abs=1e-5)
        assert not torch.allclose(alone, memory)
        rnn.load_state_dict(trained)  # both directions back before zeroing the other one


def test_decoder_starts_from_each_encoder_layers_final_states_eq_18():
    """→z_0 = →h_I + ←h_1 per layer (the LSTM cells likewise), I the sentence's own last token; z_0 = 0; the
    memory is the top layer's summed states."""
    model = fix_weights(tiny_model("rnnsearch", len(VOCAB), encoder_layers=2, decoder_layers=2,
                                   **ENCDEC_004)).eval()
    assert model.decoder.bridge is None
    batch = make_batch(SOURCES, None, VOCAB)
    encoded = model.encode(batch)
    state = model.initial_state(encoded)
    for row, sentence in enumerate(SOURCES):
        bottom, top = bi_lstm(model.encoder.rnn, embedded(model, sentence), 2)
        last = len(sentence) - 1
        assert state["hidden"][row].tolist() == pytest.approx(add(bottom["fh"][last], bottom["bh"][0]), abs=1e-5)
        assert state["cell"][row].tolist() == pytest.approx(add(bottom["fc"][last], bottom["bc"][0]), abs=1e-5)
        assert state["upper_hidden"][row, 0].tolist() == pytest.approx(add(top["fh"][last], top["bh"][0]), abs=1e-5)
        assert state["upper_cell"][row, 0].tolist() == pytest.approx(add(top["fc"][last], top["bc"][0]), abs=1e-5)
        for i in range(len(sentence)):
            assert encoded.memory[row, i].tolist() == pytest.approx(add(top["fh"][i], top["bh"][i]), abs=1e-5)
    assert state["feed"].abs().sum().item() == 0.0


def test_decoder_steps_by_hand_eq_17_19_20_21_and_3():
    """Two steps of 004's decoder: →z_j = LSTM([E_t y_{j-1}; z_{j-1}], →z_{j-1}) (Eq. 17),
    α_j ∝ exp(h_i^T W_α →z_j) (Eq. 19), c_j = Σ α_j[i] h_i (Eq. 20), z_j = tanh(W_s[→z_j; c_j]) with no bias
    (Eq. 21; the paper's [c_j; →z_j] only permutes W_s's columns), o_j = softmax(W_o z_j + b_o) (Eq. 3)."""
    model = fix_weights(tiny_model("rnnsearch", len(VOCAB), **ENCDEC_004)).eval()
    assert model.output.combine.bias is None
    sentence = ["b", "a", "c"]
    encoded = model.encode(make_batch([sentence], None, VOCAB))
    states = bi_lstm(model.encoder.rnn, embedded(model, sentence), 1)[0]
    memory = [add(f, b) for f, b in zip(states["fh"], states["bh"])]
    z_dec, cell = add(states["fh"][-1], states["bh"][0]), add(states["fc"][-1], states["bc"][0])  # Eq. 18
    z, dec, out = [0.0] * 12, model.decoder, model.output
    state = model.initial_state(encoded)
    for token in (BOS_ID, B_ID):
        z_dec, cell = lstm(dec.cell, dec.embedding.weight[token].tolist() + z, z_dec, cell)
        alpha = softmax([dot(z_dec, matvec(dec.attention.W.weight, h)) for h in memory])
        context = [sum(alpha[i] * memory[i][d] for i in range(3)) for d in range(12)]
        before_tanh = matvec(out.combine.weight, z_dec + context)
        assert max(abs(v) for v in before_tanh) > 0.3  # tanh is far from the identity here: dropping it fails
        z = [math.tanh(v) for v in before_tanh]
        o = softmax(add(matvec(out.project.weight, z), out.project.bias.tolist()))
        step = model.step(torch.tensor([token]), state, encoded)
        state = step.state
        assert step.attention[0].tolist() == pytest.approx(alpha, abs=1e-5)
        assert state["feed"][0].tolist() == pytest.approx(z, abs=1e-5)  # input feeding of z_j (Luong)
        assert step.log_probs[0].exp().tolist() == pytest.approx(o, abs=1e-5)


# --- sGate ----------------------------------------------------------------------------------------------------

def test_selective_gate_values_with_set_weights():
    """sGate_i = σ(W_s h_i + U_s s + b), h'_i = h_i ⊙ sGate_i, on H = 2 with s = [→h_n; ←h_1] 2H = 4 wide."""
    gate = SelectiveGate(memory_size=2, sentence_size=4)
    W, b = [[0.5, -1.0], [0.25, 0.75]], [0.1, -0.2]
    U = [[0.2, 0.4, -0.3, 0.1], [-0.5, 0.6, 0.2, -0.1]]
    with torch.no_grad():
        gate.W.weight.copy_(torch.tensor(W))
        gate.W.bias.copy_(torch.tensor(b))
        gate.U.weight.copy_(torch.tensor(U))
    h = [[1.0, -0.5], [0.2, 0.8]]
    s = [0.3, -0.6, 0.9, 0.1]
    values = gate.gate(torch.tensor([h]), torch.tensor([s]))[0]
    gated = gate(torch.tensor([h]), torch.tensor([s]))[0]
    # by hand: 0.5 + 0.5 + 0.1 + (0.06 - 0.24 - 0.27 + 0.01) = 0.66, σ(0.66) = 0.659261
    assert values[0, 0].item() == pytest.approx(0.659261, abs=1e-6)
    for i in range(2):
        for k in range(2):
            expected = sigmoid(dot(W[k], h[i]) + b[k] + dot(U[k], s))
            assert values[i, k].item() == pytest.approx(expected, abs=1e-6)
            assert gated[i, k].item() == pytest.approx(h[i][k] * expected, abs=1e-6)


def test_encoder_gates_the_summed_memory_by_the_unsummed_sentence_vector():
    """With summed directions, s = [→h_I; ←h_1] stays 2H wide (U_s is H x 2H); attention reads the gated memory,
    the decoder starts from the ungated final states (as SEASS's code does)."""
    model = fix_weights(tiny_model("rnnsearch", len(VOCAB), selective_gate=True, **ENCDEC_004)).eval()
    gate = model.encoder.gate
    assert tuple(gate.U.weight.shape) == (12, 24) and tuple(gate.W.weight.shape) == (12, 12)
    batch = make_batch(SOURCES, None, VOCAB)
    out = model.encoder(batch.src, batch.src_lengths)
    for row, sentence in enumerate(SOURCES):
        states = bi_lstm(model.encoder.rnn, embedded(model, sentence), 1)[0]
        s = states["fh"][-1] + states["bh"][0]  # concatenation
        for i in range(len(sentence)):
            h = add(states["fh"][i], states["bh"][i])
            g = [sigmoid(a + b + c) for a, b, c in zip(matvec(gate.W.weight, h), gate.W.bias.tolist(),
                                                       matvec(gate.U.weight, s))]
            assert out.memory[row, i].tolist() == pytest.approx([x * y for x, y in zip(h, g)], abs=1e-5)
        ungated = add(states["fh"][-1], states["bh"][0])
        assert out.summary[row].tolist() == pytest.approx(ungated, abs=1e-5)
        assert out.finals["hidden"][row, 0].tolist() == pytest.approx(ungated, abs=1e-5)


# --- the switches' checks ------------------------------------------------------------------------------------

@pytest.mark.parametrize("settings,message", [
    (dict(bidirectional=False, bidirectional_merge="sum"), "needs bidirectional: true"),
    (dict(decoder_init="encoder_final", encoder_layers=2, decoder_layers=1),
     r"encoder_layers \(2\) and decoder_layers \(1\)"),
    (dict(decoder_init="encoder_final"), "bidirectional_merge: sum"),
    (dict(architecture="copynet", attentional_bias=False), "not of copynet"),
    (dict(architecture="encdec", selective_gate=True), "encdec has no attention"),
])
def test_impossible_004_settings_are_named(settings, message):
    with pytest.raises(ValueError, match=message):
        ModelConfig(**{"architecture": "rnnsearch", **settings})
