"""Every equation the models implement, pinned on tiny tensors with fixed weights.

Expected values come from formulas written out here (loops over positions and
words, the GRU equations, softmax by exp / sum), never from the module under
test, so deleting a tanh, zeroing a term or splitting a normaliser fails a test.
"""

from __future__ import annotations

import math

import pytest
import torch

from paragen.data.batching import make_batch
from paragen.models.attention import Attention
from paragen.models.outputs import CopyOutput, WeanOutput
from paragen.models.state import Encoded
from paragen.data.vocabulary import BOS_ID, PAD_ID, SPECIALS, UNK_ID, Vocabulary

from conftest import tiny_model

torch.set_default_dtype(torch.float32)


def fix_weights(module: torch.nn.Module, seed: float = 0.3) -> torch.nn.Module:
    """Deterministic, varied weights: sin of the element index, scaled to a moderate range."""
    with torch.no_grad():
        for offset, parameter in enumerate(module.parameters()):
            index = torch.arange(parameter.numel(), dtype=torch.float32)
            parameter.copy_((torch.sin(index * 1.7 + seed + offset) * 0.6).view_as(parameter))
    return module


def softmax(values: list[float]) -> list[float]:
    peak = max(v for v in values if v != -math.inf)
    exps = [math.exp(v - peak) if v != -math.inf else 0.0 for v in values]
    return [e / sum(exps) for e in exps]


def plain(values) -> list[float]:
    """Python floats of a tensor (weights included) or a list: the formulas here never run torch ops."""
    return values.detach().tolist() if isinstance(values, torch.Tensor) else list(values)


def dot(a, b) -> float:
    return sum(x * y for x, y in zip(plain(a), plain(b)))


def matvec(matrix: torch.Tensor, vector) -> list[float]:
    return [dot(row, vector) for row in plain(matrix)]


def sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x))


def gru(cell: torch.nn.GRUCell, x: list[float], h: list[float]) -> list[float]:
    """Cho et al. (2014)'s GRU as PyTorch orders its gates (r, z, n)."""
    size = len(h)
    gi = [a + b for a, b in zip(matvec(cell.weight_ih, x), cell.bias_ih.tolist())]
    gh = [a + b for a, b in zip(matvec(cell.weight_hh, h), cell.bias_hh.tolist())]
    r = [sigmoid(gi[i] + gh[i]) for i in range(size)]
    z = [sigmoid(gi[size + i] + gh[size + i]) for i in range(size)]
    n = [math.tanh(gi[2 * size + i] + r[i] * gh[2 * size + i]) for i in range(size)]
    return [(1 - z[i]) * n[i] + z[i] * h[i] for i in range(size)]


MEMORY = torch.tensor([[[0.5, -1.0, 0.25], [1.5, 0.5, -0.5], [-0.75, 0.2, 0.9]]])  # (1, 3, 3)
MASK = torch.tensor([[True, True, False]])  # the third position is padding
QUERY = torch.tensor([[0.3, -0.8]])  # (1, 2)


def _expected_attention(energies: list[float]) -> tuple[list[float], list[float]]:
    weights = softmax(energies[:2] + [-math.inf])
    context = [sum(weights[j] * float(MEMORY[0, j, d]) for j in range(3)) for d in range(3)]
    return weights, context


@pytest.mark.parametrize("gradients", [True, False], ids=["training", "search"])  # tanh_ or 2σ(2x) − 1 on the CPU
@pytest.mark.parametrize("score", ["general", "concat", "bahdanau"])
def test_attention_scores_and_padding_mask(score, gradients):
    attention = fix_weights(Attention(score, query_size=2, memory_size=3))
    with torch.set_grad_enabled(gradients):
        context, weights = attention(QUERY, MEMORY, MASK)
    s = QUERY[0].tolist()
    if score == "general":  # Luong: s^T W h_j
        energies = [dot(s, matvec(attention.W.weight, MEMORY[0, j])) for j in range(3)]
    else:  # Bahdanau / Luong concat: v^T tanh(W_q s + W_m h_j + b)
        q = matvec(attention.W_q.weight, s)
        energies = []
        for j in range(3):
            m = [a + b for a, b in zip(matvec(attention.W_m.weight, MEMORY[0, j]), attention.W_m.bias.tolist())]
            energies.append(dot(attention.v.weight[0], [math.tanh(a + b) for a, b in zip(q, m)]))
    expected_weights, expected_context = _expected_attention(energies)
    assert weights[0].tolist() == pytest.approx(expected_weights, abs=1e-6)
    assert context[0].tolist() == pytest.approx(expected_context, abs=1e-6)
    assert weights[0, 2].item() == 0.0


def test_dot_attention():
    attention = Attention("dot", query_size=3, memory_size=3)
    query = torch.tensor([[0.2, 0.4, -0.6]])
    context, weights = attention(query, MEMORY, MASK)
    energies = [dot(query[0], MEMORY[0, j]) for j in range(3)]
    expected_weights, expected_context = _expected_attention(energies)
    assert weights[0].tolist() == pytest.approx(expected_weights, abs=1e-6)
    assert context[0].tolist() == pytest.approx(expected_context, abs=1e-6)


# CopyNet (Gu et al., 2016, §3.2). V = <pad> <unk> <s> </s> a b (6 words); hidden 2, memory 3.
V = 6
A_ID, B_ID = 4, 5
HIDDEN = torch.tensor([[0.4, -0.7], [0.9, 0.1]])  # s_t, (2, 2)
CONTEXT = torch.tensor([[0.1, 0.3, -0.2], [-0.5, 0.6, 0.2]])  # c_t, (2, 3)
COPY_MEMORY = torch.tensor([[[0.5, -1.0, 0.25], [1.5, 0.5, -0.5], [-0.75, 0.2, 0.9], [0.0, 0.0, 0.0]],
                            [[0.3, 0.3, -0.3], [1.0, -0.2, 0.4], [-0.6, 0.8, 0.1], [0.2, -0.9, 0.7]]])
# Sentence 0: "a X a" (X out of vocabulary: extended id 6) + padding; sentence 1: "Y Z b W" (ids 6, 7, 5, 8).
SRC_EXT = torch.tensor([[A_ID, 6, A_ID, PAD_ID], [6, 7, B_ID, 8]])
COPY_MASK = torch.tensor([[True, True, True, False], [True, True, True, True]])


def _copy_encoded() -> Encoded:
    return Encoded(COPY_MEMORY, COPY_MASK, COPY_MEMORY[:, 0], SRC_EXT, width=V + 3,
                   owned_width=torch.tensor([V + 1, V + 3]))


def _copy_scores(layer: CopyOutput, row: int) -> tuple[list[float], list[float]]:
    """ψ_g = W_o tanh(W_h [s; c] + b_h) + b_o over V, and ψ_c(x_j) = tanh(h_j^T W_c) s (Eq. 8)."""
    s, c = HIDDEN[row].tolist(), CONTEXT[row].tolist()
    gen = layer.generate
    h_tilde = [math.tanh(a + b) for a, b in zip(matvec(gen.combine.weight, s + c), gen.combine.bias.tolist())]
    psi_g = [a + b for a, b in zip(matvec(gen.project.weight, h_tilde), gen.project.bias.tolist())]
    psi_c = [dot([math.tanh(v) for v in matvec(layer.W_c.weight, COPY_MEMORY[row, j])], s) for j in range(4)]
    return psi_g, psi_c


def test_copynet_joint_softmax_and_copy_mass():
    """Eq. 4-6: one normaliser Z over both modes; copy mass added to the slot of each source word."""
    layer = fix_weights(CopyOutput(hidden_size=2, memory_size=3, vocab_size=V, dropout=0.0)).eval()
    result = layer(HIDDEN, CONTEXT, encoded=_copy_encoded())
    probs = result.log_probs.exp()
    for row in range(2):
        psi_g, psi_c = _copy_scores(layer, row)
        live = [j for j in range(4) if COPY_MASK[row, j]]
        z = sum(math.exp(v) for v in psi_g) + sum(math.exp(psi_c[j]) for j in live)
        expected = [math.exp(v) / z for v in psi_g] + [0.0] * 3
        for j in live:
            expected[int(SRC_EXT[row, j])] += math.exp(psi_c[j]) / z
        owned = V + (1 if row == 0 else 3)
        assert probs[row, :owned].tolist() == pytest.approx(expected[:owned], abs=1e-6)
        assert result.copy_probs[row].tolist() == pytest.approx(
            [math.exp(psi_c[j]) / z if j in live else 0.0 for j in range(4)], abs=1e-6)
        assert result.generate_mass[row].item() == pytest.approx(sum(math.exp(v) for v in psi_g) / z, abs=1e-6)
    # Sentence 0 has one OOV: extended slots 7 and 8 belong to its batch-mate.
    assert result.log_probs[0, V + 1:].tolist() == [-math.inf, -math.inf]


def test_copynet_scores_an_oov_target_absent_from_the_source_as_unk():
    vocab = Vocabulary(list(SPECIALS) + ["a", "b"])
    batch = make_batch([["a", "kappa"]], [["kappa", "mu"]], vocab)
    assert batch.tgt_out[0].tolist() == [V, UNK_ID, 3]  # kappa is copied (extended id), mu is nowhere: UNK


def test_copynet_selective_read_and_state_update_input():
    """§3.3: the GRU reads [e(y_{t-1}); c_{t-1}; ζ(y_{t-1})], ζ = Σ_j ρ_tj h_j with ρ ∝ p(x_j, c) where x_j = y_{t-1}."""
    vocab = Vocabulary(list(SPECIALS) + ["a", "b"])
    model = fix_weights(tiny_model("copynet", len(vocab))).eval()
    batch = make_batch([["a", "kappa", "a", "b"]], None, vocab)
    encoded = model.encode(batch)
    state = model.initial_state(encoded)
    previous_copy = torch.tensor([[0.2, 0.3, 0.1, 0.05]])
    state["copy_prev"] = previous_copy
    seen = {}
    model.decoder.cell.register_forward_hook(lambda m, args, out: seen.update(input=args[0].clone()))
    memory = encoded.memory[0].detach()
    for token, positions, embedded in ((A_ID, [0, 2], A_ID), (V, [1], UNK_ID), (B_ID, [3], B_ID)):
        seen.clear()
        out = model.step(torch.tensor([token]), state, encoded)
        total = sum(float(previous_copy[0, j]) for j in positions)
        zeta = [sum(float(previous_copy[0, j]) / total * float(memory[j, d]) for j in positions)
                for d in range(memory.size(1))]
        expected_input = model.decoder.embedding.weight[embedded].tolist() + state["context"][0].tolist() + zeta
        assert seen["input"][0].tolist() == pytest.approx(expected_input, abs=1e-6)
        expected_hidden = gru(model.decoder.cell, expected_input, state["hidden"][0].tolist())
        assert out.state["hidden"][0].tolist() == pytest.approx(expected_hidden, abs=1e-6)
    seen.clear()
    model.step(torch.tensor([BOS_ID]), state, encoded)  # <s> is nowhere in the source: ζ = 0
    assert seen["input"][0, -memory.size(1):].tolist() == [0.0] * memory.size(1)


# WEAN (Ma et al., 2018, §2.3): q_t = tanh(W_c [s_t; c_t]); p(y_t = w_i) = softmax_i f(q_t, e_i).
@pytest.mark.parametrize("score", ["dot", "general", "concat"])
def test_wean_query_scores_and_softmax(score):
    embedding = torch.nn.Embedding(V, 2, padding_idx=PAD_ID)
    layer = fix_weights(WeanOutput(embedding, hidden_size=2, memory_size=3, score=score, dropout=0.0)).eval()
    with torch.no_grad():
        embedding.weight[PAD_ID] = 0.0
    result = layer(HIDDEN, CONTEXT)
    for row in range(2):
        s, c = HIDDEN[row].tolist(), CONTEXT[row].tolist()
        q = [math.tanh(a + b) for a, b in zip(matvec(layer.query.weight, s + c), layer.query.bias.tolist())]
        assert result.attentional[row].tolist() == pytest.approx(q, abs=1e-6)
        scores = []
        for i in range(V):
            e = embedding.weight[i].tolist()
            if score == "dot":  # q^T e_i
                scores.append(dot(q, e))
            elif score == "general":  # q^T W_a e_i, with W_a the transpose of nn.Linear's weight
                scores.append(dot(matvec(layer.W_a.weight, q), e))
            else:  # v^T tanh(W_q q + W_e e_i), no bias (Eq. 5)
                hidden = [math.tanh(a + b) for a, b in zip(matvec(layer.W_q.weight, q), matvec(layer.W_e.weight, e))]
                scores.append(dot(layer.v.weight[0], hidden))
        scores[PAD_ID] = scores[BOS_ID] = -math.inf  # never outputs: outside Eq. 6's softmax
        assert result.log_probs[row].exp().tolist() == pytest.approx(softmax(scores), abs=1e-6)
        assert result.log_probs[row, PAD_ID].item() == result.log_probs[row, BOS_ID].item() == -math.inf


def test_wean_never_generates_padding_even_where_its_score_would_win():
    """<pad>'s frozen zero embedding scores 0 under dot: with every other score negative it would be the argmax."""
    embedding = torch.nn.Embedding(V, 2, padding_idx=PAD_ID)
    layer = WeanOutput(embedding, hidden_size=2, memory_size=3, score="dot", dropout=0.0).eval()
    with torch.no_grad():
        layer.query.weight.zero_()
        layer.query.bias.fill_(5.0)  # q = tanh(5) (1, 1)
        embedding.weight.copy_(torch.tensor([[0.0, 0.0], [-1, -1], [-1, -1], [-0.5, -0.5], [-2, -1], [-1, -2]]))
    result = layer(HIDDEN, CONTEXT)
    assert result.log_probs.argmax(-1).tolist() == [3, 3]


# Input feeding (decoders.py): what the cell reads besides e(y_{t-1}).
@pytest.mark.parametrize("feeding", ["context", "attentional"])
def test_input_feeding_by_hand(feeding):
    """Two steps of RNNSearch/Luong computed with the GRU and Bahdanau equations written out."""
    vocab = Vocabulary(list(SPECIALS) + ["a", "b"])
    model = fix_weights(tiny_model("rnnsearch", len(vocab), input_feeding=feeding)).eval()
    batch = make_batch([["a", "b", "a"]], None, vocab)
    encoded = model.encode(batch)
    memory, summary = encoded.memory[0].detach(), encoded.summary[0].tolist()
    dec, out_layer = model.decoder, model.output
    hidden = [math.tanh(v + b) for v, b in zip(matvec(dec.bridge.weight, summary), dec.bridge.bias.tolist())]
    feed = summary if feeding == "context" else [0.0] * 12  # f_0: the summary, or h~_0 = 0 (Luong)
    state = model.initial_state(encoded)
    for token in (BOS_ID, A_ID, B_ID):
        hidden = gru(dec.cell, dec.embedding.weight[token].tolist() + feed, hidden)
        att = dec.attention
        q = matvec(att.W_q.weight, hidden)
        energies = []
        for j in range(3):
            m = [a + b for a, b in zip(matvec(att.W_m.weight, memory[j]), att.W_m.bias.tolist())]
            energies.append(dot(att.v.weight[0], [math.tanh(a + b) for a, b in zip(q, m)]))
        weights = softmax(energies)
        context = [sum(weights[j] * float(memory[j, d]) for j in range(3)) for d in range(memory.size(1))]
        h_tilde = [math.tanh(a + b) for a, b in zip(matvec(out_layer.combine.weight, hidden + context),
                                                     out_layer.combine.bias.tolist())]
        logits = [a + b for a, b in zip(matvec(out_layer.project.weight, h_tilde), out_layer.project.bias.tolist())]
        out = model.step(torch.tensor([token]), state, encoded)
        state = out.state
        assert state["hidden"][0].tolist() == pytest.approx(hidden, abs=1e-5)
        assert out.log_probs[0].exp().tolist() == pytest.approx(softmax(logits), abs=1e-5)
        feed = context if feeding == "context" else h_tilde


def test_attentional_feeding_is_refused_where_the_paper_updates_otherwise():
    from paragen.config import ModelConfig

    with pytest.raises(ValueError, match="copynet keeps its paper's update"):
        ModelConfig(architecture="copynet", input_feeding="attentional")


@pytest.mark.parametrize("cell", ["gru", "lstm"])
@pytest.mark.parametrize("architecture", ["rnnsearch", "copynet", "wean"])
def test_recurrent_state_stays_float32_under_bf16_autocast(architecture, cell):
    """CUDA autocast would run GRU/LSTM cells in bf16; CPU autocast reproduces that path."""
    vocab = Vocabulary(list(SPECIALS) + ["a", "b"])
    model = tiny_model(architecture, len(vocab), cell=cell, decoder_layers=2, encoder_layers=2)
    batch = make_batch([["a", "b", "a"], ["b"]], [["a"], ["b", "b"]], vocab)
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        encoded = model.encode(batch)
        state = model.initial_state(encoded)
        for _ in range(3):
            state = model.step(torch.tensor([A_ID, B_ID]), state, encoded).state
        assert torch.nn.Linear(2, 2)(torch.ones(1, 2)).dtype == torch.bfloat16  # autocast is really on
    assert encoded.memory.dtype == torch.float32
    for key in ("hidden", "cell", "upper_hidden", "upper_cell"):
        if key in state:
            assert state[key].dtype == torch.float32, key


def lstm(cell: torch.nn.LSTMCell, x: list[float], h: list[float], c: list[float]) -> tuple[list[float], list[float]]:
    """Hochreiter & Schmidhuber's LSTM with PyTorch's gate order (i, f, g, o)."""
    size = len(h)
    gates = [a + b + d + e for a, b, d, e in zip(matvec(cell.weight_ih, x), cell.bias_ih.tolist(),
                                                 matvec(cell.weight_hh, h), cell.bias_hh.tolist())]
    i = [sigmoid(v) for v in gates[:size]]
    f = [sigmoid(v) for v in gates[size:2 * size]]
    g = [math.tanh(v) for v in gates[2 * size:3 * size]]
    o = [sigmoid(v) for v in gates[3 * size:]]
    c_new = [f[k] * c[k] + i[k] * g[k] for k in range(size)]
    return [o[k] * math.tanh(c_new[k]) for k in range(size)], c_new


def test_stacked_lstm_decoder_by_hand():
    """WEAN §3.1.3's 2-layer decoder: layer 2 reads layer 1's output; s_t (what attention queries) is layer 2's."""
    vocab = Vocabulary(list(SPECIALS) + ["a", "b"])
    model = fix_weights(tiny_model("rnnsearch", len(vocab), cell="lstm", decoder_layers=2, attention="general"))
    model.eval()
    encoded = model.encode(make_batch([["b", "a"]], None, vocab))
    dec, memory, summary = model.decoder, encoded.memory[0].detach(), encoded.summary[0].tolist()
    start = [math.tanh(v + b) for v, b in zip(matvec(dec.bridge.weight, summary), dec.bridge.bias.tolist())]
    (h1, c1), (h2, c2), feed = (start, [0.0] * 12), (start, [0.0] * 12), summary
    state = model.initial_state(encoded)
    for token in (BOS_ID, B_ID, A_ID):
        h1, c1 = lstm(dec.cell, dec.embedding.weight[token].tolist() + feed, h1, c1)
        h2, c2 = lstm(dec.upper[0], h1, h2, c2)
        weights = softmax([dot(h2, matvec(dec.attention.W.weight, memory[j])) for j in range(2)])
        feed = [sum(weights[j] * float(memory[j, d]) for j in range(2)) for d in range(memory.size(1))]
        state = model.step(torch.tensor([token]), state, encoded).state
        assert state["hidden"][0].tolist() == pytest.approx(h1, abs=1e-5)
        assert state["cell"][0].tolist() == pytest.approx(c1, abs=1e-5)
        assert state["upper_hidden"][0, 0].tolist() == pytest.approx(h2, abs=1e-5)
        assert state["upper_cell"][0, 0].tolist() == pytest.approx(c2, abs=1e-5)
        assert state["context"][0].tolist() == pytest.approx(feed, abs=1e-5)


# Found by mutation testing (bench/mutation.sh): each test below fails on a change that survived before.

def _unpadded_gru_run(rnn: torch.nn.GRU, embedded: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The GRU over one sentence alone (no padding, no packing): its outputs and final states per direction."""
    outputs, final = rnn(embedded.unsqueeze(0))
    return outputs[0], final[:, 0]


@pytest.mark.parametrize("bidirectional", [True, False])
def test_encoder_memory_and_summary_are_the_states_of_each_sentence_alone(bidirectional):
    """Gu et al. §3.1 / Cho et al.: memory h_1..h_S; the summary joins the forward state after the last real
    token with the backward state at the first (for one direction: the last state), padding ignored."""
    vocab = Vocabulary(list(SPECIALS) + ["a", "b"])
    model = fix_weights(tiny_model("copynet", len(vocab), bidirectional=bidirectional)).eval()
    sources = [["a", "b", "a", "b"], ["b", "a"], ["b"]]
    batch = make_batch(sources, None, vocab)
    encoded = model.encoder(batch.src, batch.src_lengths)
    memory, summary = encoded.memory, encoded.summary
    for row, sentence in enumerate(sources):
        alone = model.encoder.embedding(torch.tensor(vocab.encode(sentence)))
        outputs, final = _unpadded_gru_run(model.encoder.rnn, alone)
        length = len(sentence)
        assert memory[row, :length].reshape(-1).tolist() == pytest.approx(outputs.reshape(-1).tolist(), abs=1e-6)
        assert memory[row, length:].abs().sum().item() == 0.0  # padding positions carry nothing
        assert summary[row].tolist() == pytest.approx(final.reshape(-1).tolist(), abs=1e-6)


def test_enc_dec_sees_the_source_only_through_the_summary():
    """Enc-Dec (CopyNet Table 1, row 1) has no attention: changing the memory but not the summary changes
    nothing, while RNNSearch's output moves."""
    from dataclasses import replace

    vocab = Vocabulary(list(SPECIALS) + ["a", "b"])
    batch = make_batch([["a", "b", "a"]], None, vocab)
    for architecture, should_move in (("encdec", False), ("rnnsearch", True)):
        model = fix_weights(tiny_model(architecture, len(vocab))).eval()
        encoded = model.encode(batch)
        other = replace(encoded, memory=encoded.memory.flip(1) + 0.5, projections={})
        first = model.step(torch.tensor([BOS_ID]), model.initial_state(encoded), encoded).log_probs
        second = model.step(torch.tensor([BOS_ID]), model.initial_state(other), other).log_probs
        assert (not torch.allclose(first, second)) == should_move, architecture


def test_each_sentence_owns_the_vocabulary_and_exactly_its_own_oov_slots():
    """len(V) + the sentence's own OOV count, whatever its ids or its batch-mates'."""
    vocab = Vocabulary(list(SPECIALS) + ["a", "b"])
    model = tiny_model("copynet", len(vocab))
    batch = make_batch([["a"], ["kappa", "b", "mu", "kappa"], ["a", "nu"]], None, vocab)
    encoded = model.encode(batch)
    assert encoded.width == V + 2
    assert encoded.owned_width.tolist() == [V, V + 2, V + 1]
    reordered = encoded.index_select(torch.tensor([2, 0, 0, 1]))
    assert reordered.owned_width.tolist() == [V + 1, V, V, V + 2]  # beam reordering keeps each row's width


def test_copynet_trains_a_copied_oov_word_on_its_extended_slot():
    """An OOV target word found in the source is the copy target (its extended id), not UNK (Eq. 4-6)."""
    vocab = Vocabulary(list(SPECIALS) + ["a", "b"])
    model = fix_weights(tiny_model("copynet", len(vocab))).eval()
    batch = make_batch([["a", "kappa"]], [["kappa"]], vocab)
    assert model.target_ids(batch.tgt_out)[0].tolist() == [V, 3]
    log_probs = model(batch)
    result = model.loss(batch)
    loss, tokens = result.total, result.tokens
    assert tokens == 2
    assert loss.item() == pytest.approx(-(log_probs[0, 0, V].item() + log_probs[0, 1, 3].item()) / 2, abs=1e-6)


def test_a_one_token_target_loss_is_that_tokens_nll():
    vocab = Vocabulary(list(SPECIALS) + ["a", "b"])
    model = fix_weights(tiny_model("rnnsearch", len(vocab))).eval()
    batch = make_batch([["a", "b"]], [[]], vocab)  # the target is </s> alone
    result = model.loss(batch)
    loss, tokens = result.total, result.tokens
    assert tokens == 1
    assert loss.item() == pytest.approx(-model(batch)[0, 0, 3].item(), abs=1e-6)


def test_selective_read_at_step_two_uses_the_copy_probabilities_of_step_one():
    """ρ_2j ∝ p(x_j, c | s_1) for x_j = y_1 (§3.3): the state carries step 1's copy probabilities forward."""
    vocab = Vocabulary(list(SPECIALS) + ["a", "b"])
    model = fix_weights(tiny_model("copynet", len(vocab))).eval()
    batch = make_batch([["a", "b", "a"]], None, vocab)
    encoded = model.encode(batch)
    first = model.step(torch.tensor([BOS_ID]), model.initial_state(encoded), encoded)
    seen = {}
    model.decoder.cell.register_forward_hook(lambda m, args, out: seen.update(input=args[0].clone()))
    model.step(torch.tensor([A_ID]), first.state, encoded)
    p = first.copy_probs[0].tolist()
    memory = encoded.memory[0].tolist()
    zeta = [(p[0] * memory[0][d] + p[2] * memory[2][d]) / (p[0] + p[2]) for d in range(len(memory[0]))]
    assert seen["input"][0, -len(zeta):].tolist() == pytest.approx(zeta, abs=1e-6)


def test_step_reports_the_attention_weights_it_used():
    """α_tj (Bahdanau et al. Eq. 6) per source position: a distribution over the real tokens, zero on padding,
    and the context fed to the next step is Σ_j α_tj h_j; Enc-Dec has none."""
    vocab = Vocabulary(list(SPECIALS) + ["a", "b"])
    batch = make_batch([["a", "b", "a"], ["b"]], None, vocab)
    model = fix_weights(tiny_model("rnnsearch", len(vocab))).eval()
    encoded = model.encode(batch)
    out = model.step(torch.tensor([BOS_ID, BOS_ID]), model.initial_state(encoded), encoded)
    weights = out.attention.tolist()
    assert sum(weights[0]) == pytest.approx(1.0, abs=1e-6) and weights[1][0] == pytest.approx(1.0, abs=1e-6)
    assert weights[1][1:] == [0.0, 0.0]
    memory = encoded.memory.tolist()
    context = [sum(weights[0][j] * memory[0][j][d] for j in range(3)) for d in range(len(memory[0][0]))]
    assert out.state["context"][0].tolist() == pytest.approx(context, abs=1e-6)
    encdec = tiny_model("encdec", len(vocab)).eval()
    encoded = encdec.encode(batch)
    assert encdec.step(torch.tensor([BOS_ID, BOS_ID]), encdec.initial_state(encoded), encoded).attention is None


@pytest.mark.parametrize("cell,gates", [("gru", 3), ("lstm", 4)])
@pytest.mark.parametrize("layers", [1, 2])
@pytest.mark.parametrize("bidirectional", [True, False])
def test_encoder_is_the_configured_recurrent_network(cell, gates, layers, bidirectional):
    """Parameter count by hand: per layer and direction, gates x (input x h + h x h + 2 h); layer 2 reads
    both directions of layer 1. Dropout acts between layers only (none for one layer)."""
    embedding, hidden = 8, 12
    model = tiny_model("rnnsearch", 10, cell=cell, encoder_layers=layers, bidirectional=bidirectional,
                       dropout=0.25)
    directions = 2 if bidirectional else 1
    expected = 0
    for layer in range(layers):
        inputs = embedding if layer == 0 else hidden * directions
        expected += directions * gates * (inputs * hidden + hidden * hidden + 2 * hidden)
    assert sum(p.numel() for p in model.encoder.rnn.parameters()) == expected
    assert model.encoder.memory_size == hidden * directions
    assert model.encoder.rnn.dropout == (0.25 if layers > 1 else 0.0)


def test_impossible_model_settings_are_named():
    from paragen.config import ModelConfig
    from paragen.models import common

    with pytest.raises(ValueError, match="dot attention needs equal sizes, got query 4, memory 6"):
        Attention("dot", 4, 6)
    with pytest.raises(ValueError, match="unknown attention score 'cosine'; allowed: dot, general, concat, bahdanau"):
        Attention("cosine", 4, 4)
    with pytest.raises(ValueError, match="unknown WEAN score 'cosine'; allowed: dot, general, concat"):
        WeanOutput(torch.nn.Embedding(6, 4), 4, 4, "cosine", 0.0)
    # a configuration built without validation: the decoder still refuses to feed a vector that does not exist
    config = ModelConfig.model_construct(**{**ModelConfig(architecture="encdec").model_dump(),
                                            "input_feeding": "attentional"})
    encoder = common.encoder(config, 10)
    with pytest.raises(ValueError, match="encdec: its output layer has no attentional vector to feed"):
        common.decoder(config, encoder, 10, attend=False)
