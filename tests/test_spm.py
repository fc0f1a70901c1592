"""Kiyono et al. (2018, paper 004): EncDec as its appendix, +sGate (Zhou et al. 2017), +SPM, GroundHog's beam.

Every expected number is worked out here, by hand or by loops over plain floats (the LSTM, attention and
softmax written out), never by the module under test; the weights are fixed, the tensors tiny.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
import torch

from paragen.data.batching import fill_targets, make_batch
from paragen.config import ModelConfig, load_config
from paragen.decoding.decode import translate
from paragen.models import build_model, vocabulary_for
from paragen.models.selective_gate import SelectiveGate
from paragen.models.source_prediction import source_counts, source_loss
from paragen.decoding.search import beam_search
from paragen.data.vocabulary import BOS_ID, EOS_ID, PAD_ID, SPECIALS, TARGET_PAD, Vocabulary

from conftest import ROOT, tiny_model
from scripted import A, B, FakeBatch, ScriptedModel
from test_equations import dot, fix_weights, lstm, matvec, sigmoid, softmax

VOCAB = Vocabulary(list(SPECIALS) + ["a", "b", "c"])
A_ID, B_ID, C_ID = 4, 5, 6
ENCDEC_004 = dict(cell="lstm", attention="general", input_feeding="attentional", bidirectional_merge="sum",
                  decoder_init="encoder_final", attentional_bias=False)
"""004's EncDec switches on the attentional RNN (Appendix A-C): tiny_model adds embedding 8, hidden 12."""
SPM = dict(source_prediction={"weight_c": 10.0})


def spm_vocab() -> Vocabulary:
    return vocabulary_for(ModelConfig(architecture="rnnsearch", input_feeding="attentional", **SPM), VOCAB)


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
    (dict(architecture="wean", input_feeding="attentional", **SPM), "needs architecture rnnsearch"),
    (dict(input_feeding="context", **SPM), "input_feeding: attentional"),
    (dict(source_prediction={"weight_c": 0.0}), "greater than 0"),
])
def test_impossible_004_settings_are_named(settings, message):
    with pytest.raises(ValueError, match=message):
        ModelConfig(**{"architecture": "rnnsearch", **settings})


# --- SPM: Y', ℓ_src, the objective -------------------------------------------------------------------------------

def test_target_pad_is_a_vocabulary_entry_apart_from_batch_padding():
    vocab = spm_vocab()
    pad = vocab.id(TARGET_PAD)
    assert pad == len(VOCAB) == 7 and pad != PAD_ID
    assert vocab.itos[: len(VOCAB)] == VOCAB.itos  # every id of the vocabulary file keeps its meaning
    with pytest.raises(ValueError, match="already holds <tpad>"):
        vocab.with_target_pad()
    built = Vocabulary.build([[["a", TARGET_PAD, "a"]]])
    assert TARGET_PAD not in built  # a literal <tpad> in a corpus never takes the special's place
    assert vocabulary_for(ModelConfig(architecture="rnnsearch"), VOCAB) is VOCAB


def test_y_prime_continues_the_target_with_tpad_up_to_the_source_length():
    """Y' = y_1..y_J </s> <tpad>... of length I (004 §4.1); unchanged where J + 1 >= I; batch padding after."""
    vocab = spm_vocab()
    T = vocab.id(TARGET_PAD)
    batch = make_batch([["a", "b", "c", "a", "b"], ["c", "a"]], [["b", "a"], ["a", "b", "c"]], vocab)
    filled = fill_targets(batch, T)
    assert filled.tgt_out.tolist() == [[B_ID, A_ID, EOS_ID, T, T], [A_ID, B_ID, C_ID, EOS_ID, PAD_ID]]
    assert filled.tgt_in.tolist() == [[BOS_ID, B_ID, A_ID, EOS_ID, T], [BOS_ID, A_ID, B_ID, C_ID, PAD_ID]]
    assert batch.tgt_out.size(1) == 4  # the batch itself is untouched


def test_l_trg_of_y_prime_counts_tpad_but_not_batch_padding():
    vocab = spm_vocab()
    T = vocab.id(TARGET_PAD)
    model = fix_weights(tiny_model("rnnsearch", len(vocab), **ENCDEC_004, **SPM)).eval()
    batch = make_batch([["a", "b", "c", "a", "b"], ["c", "a"]], [["b", "a"], ["a", "b", "c"]], vocab)
    result = model.loss(batch)
    assert result.tokens == 5 + 4
    log_probs, _ = model.teacher_forced(fill_targets(batch, T))
    gold = [[B_ID, A_ID, EOS_ID, T, T], [A_ID, B_ID, C_ID, EOS_ID]]
    nll = [-log_probs[b, j, y].item() for b, row in enumerate(gold) for j, y in enumerate(row)]
    assert result.terms["nll"].item() == pytest.approx(sum(nll) / 9, abs=1e-5)
    without = fix_weights(tiny_model("rnnsearch", len(VOCAB), **ENCDEC_004)).eval()
    assert without.loss(make_batch([["a", "b", "c", "a", "b"], ["c", "a"]], [["b", "a"], ["a", "b", "c"]],
                                   VOCAB)).tokens == 3 + 4  # EncDec scores Y alone


def test_l_src_by_hand():
    """ℓ_src = ||Σ_{j<=I} q_j - x̃||² / C (Eq. 11): source "a b", q_1 all on a, q_2 half a half b, C = 10:
    q̃ - x̃ = (1.5 - 1, 0.5 - 1) on (a, b), squared norm 0.5, ℓ_src = 0.05. A third step (past I) is ignored."""
    q = torch.zeros(1, 3, 7)
    q[0, 0, A_ID] = 1.0
    q[0, 1, A_ID] = q[0, 1, B_ID] = 0.5
    q[0, 2, C_ID] = 1.0  # j = 3 > I = 2
    lengths = torch.tensor([2])
    counts = source_counts(torch.tensor([[A_ID, B_ID]]), lengths, 7)
    assert counts.tolist() == [[0, 0, 0, 0, 1, 1, 0]]
    assert source_loss(q, counts, lengths, 10.0).tolist() == pytest.approx([0.05], abs=1e-7)


def test_source_counts_are_the_bag_of_words_without_padding():
    """x̃ counts the source as the encoder reads it: repeated words twice, OOV words as <unk>, no padding."""
    vocab = spm_vocab()
    batch = make_batch([["a", "zz", "a", "c"], ["b"]], None, vocab)
    counts = source_counts(batch.src, batch.src_lengths, len(vocab))
    expected = [[0.0] * len(vocab) for _ in range(2)]
    for row, sentence in enumerate([["a", "<unk>", "a", "c"], ["b"]]):
        for word in sentence:
            expected[row][vocab.id(word)] += 1
    assert counts.tolist() == expected


def test_objective_is_l_trg_of_y_prime_plus_l_src_over_one_token_count():
    """Eq. 12 per batch: (Σ NLL over Y' + Σ_sentences ℓ_src) / tokens of Y', with ℓ_src from
    q_j = softmax(W_q z_j + b_q) (Eq. 6) written out here; the SPM head is trained by it."""
    vocab = spm_vocab()
    T = vocab.id(TARGET_PAD)
    model = fix_weights(tiny_model("rnnsearch", len(vocab), selective_gate=True, **ENCDEC_004, **SPM)).eval()
    sources, targets = [["a", "b", "c", "a", "b"], ["c", "a"]], [["b", "a"], ["a", "b", "c"]]
    batch = make_batch(sources, targets, vocab)
    result = model.loss(batch)
    log_probs, z = model.teacher_forced(fill_targets(batch, T))
    gold = [[B_ID, A_ID, EOS_ID, T, T], [A_ID, B_ID, C_ID, EOS_ID]]
    nll = sum(-log_probs[b, j, y].item() for b, row in enumerate(gold) for j, y in enumerate(row))
    head = model.source_prediction.project
    l_src = 0.0
    for b, sentence in enumerate(sources):
        q_sum = [0.0] * len(vocab)
        for j in range(len(sentence)):  # j = 1..I
            q = softmax(add(matvec(head.weight, z[b, j]), head.bias.tolist()))
            q_sum = add(q_sum, q)
        x = [float(sentence.count(word)) for word in vocab.itos]
        l_src += sum((a - b) ** 2 for a, b in zip(q_sum, x)) / 10.0
    assert result.total.item() == pytest.approx((nll + l_src) / 9, abs=1e-5)
    assert result.terms["nll"].item() == pytest.approx(nll / 9, abs=1e-5)
    assert result.terms["src"].item() == pytest.approx(l_src / 9, abs=1e-5)
    result.total.backward()
    assert head.weight.grad.abs().sum().item() > 0


# --- decoding: EncDec's search, <tpad> never produced ------------------------------------------------------------

DECODE_SOURCES = [["a", "b", "c", "zz"], ["c"], ["b", "b", "a"]]


@pytest.mark.parametrize("stopping", ["shrinking", "bound"])
def test_encdec_with_spm_decodes_exactly_like_encdec_with_the_same_weights(stopping):
    """EncDec has no <tpad> row: with <tpad>'s probability 0 both define one distribution over V, and the SPM
    head, filled with NaN, would poison any step that computed it (§4.3: decoding never does)."""
    vocab = spm_vocab()
    T = vocab.id(TARGET_PAD)
    encdec = fix_weights(tiny_model("rnnsearch", len(VOCAB), selective_gate=True, **ENCDEC_004)).eval()
    spm = tiny_model("rnnsearch", len(vocab), selective_gate=True, **ENCDEC_004, **SPM).eval()
    targets = dict(spm.named_parameters())
    with torch.no_grad():
        for name, parameter in encdec.named_parameters():
            targets[name][: parameter.size(0)].copy_(parameter)  # vocabulary-sized tables: the first len(V) rows
        spm.output.project.weight[T] = 0.0
        spm.output.project.bias[T] = float("-inf")
        spm.source_prediction.project.weight.fill_(float("nan"))
    options = dict(beam_size=3, max_length=8, length_penalty=1.0, nbest=3, stopping=stopping)
    expected = beam_search(encdec, make_batch(DECODE_SOURCES, None, VOCAB), **options)
    got = beam_search(spm, make_batch(DECODE_SOURCES, None, vocab), **options)
    for mine, theirs in zip(got, expected):
        assert [h.tokens for h in mine] == [h.tokens for h in theirs]
        assert [h.score for h in mine] == pytest.approx([h.score for h in theirs], abs=1e-5)


def test_tpad_is_never_generated_even_where_the_model_prefers_it():
    vocab = spm_vocab()
    T = vocab.id(TARGET_PAD)
    model = fix_weights(tiny_model("rnnsearch", len(vocab), **ENCDEC_004, **SPM)).eval()
    with torch.no_grad():
        model.output.project.bias[T] = 50.0
    batch = make_batch(DECODE_SOURCES, None, vocab)
    encoded = model.encode(batch)
    first = model.step(torch.full((3,), BOS_ID), model.initial_state(encoded), encoded)
    assert first.log_probs.argmax(-1).tolist() == [T, T, T]  # what the model prefers
    for beam in (1, 4):
        for hyps in beam_search(model, batch, beam_size=beam, max_length=6, nbest=beam, stopping="shrinking"):
            assert all(T not in h.tokens for h in hyps)
    for result in translate(model, DECODE_SOURCES, vocab, beam_size=2, max_length=6, length_penalty=1.0, nbest=2,
                            batch_size=2, device=torch.device("cpu")):
        assert all(TARGET_PAD not in hyp for hyp in result.nbest)


def test_training_publishes_an_spm_checkpoint_that_decodes(tmp_path, tiny_config):
    """The one trainer reads the model's vocabulary (the dataset's plus <tpad>): checkpoint, batches and model
    agree, and the decoded checkpoint never writes <tpad>."""
    from paragen.config import TrainingConfig
    from paragen.data.corpus import read_split
    from paragen.data.synthetic import generate, write_splits
    from paragen.training.checkpoint import load_model
    from paragen.training.trainer import train

    write_splits(generate(tiny_config.datasets["tiny"]), tmp_path / "data")
    train_data, valid_data = read_split(tmp_path / "data", "train"), read_split(tmp_path / "data", "valid")
    vocab = Vocabulary.build([train_data.sources, train_data.targets])
    spec = ModelConfig(architecture="rnnsearch", embedding_size=8, hidden_size=16, encoder_layers=2, decoder_layers=2,
                       dropout=0.3, selective_gate=True, **ENCDEC_004, **SPM)
    training = TrainingConfig(batch_size=16, max_epochs=1, patience=2, valid_max_length=10, seed=1, threads=1)
    train(model_config=spec, training=training, train_data=train_data, valid_data=valid_data, vocab=vocab,
          run_dir=tmp_path / "run", device=torch.device("cpu"), progress=False)
    model, checkpoint = load_model(tmp_path / "run" / "best.pt", torch.device("cpu"))
    assert checkpoint["vocab_size"] == len(vocab) + 1 and model.never_generated == (len(vocab),)
    sources = [list(s) for s in valid_data.sources[:4]]
    for result in translate(model, sources, vocabulary_for(spec, vocab), beam_size=3, max_length=10,
                            length_penalty=1.0, nbest=3, batch_size=4, device=torch.device("cpu"),
                            stopping="shrinking"):
        assert all(TARGET_PAD not in hyp for hyp in result.nbest)


# --- params.yaml: Table 2's four models and a test-size one ----------------------------------------------------

GIGA = ("encdec_giga", "encdec_sgate_giga", "encdec_spm_giga", "encdec_sgate_spm_giga")


def test_params_yaml_holds_the_four_models_of_table_2():
    config = load_config(ROOT / "params.yaml")
    for name, gated, predicts in zip(GIGA, (False, True, False, True), (False, False, True, True)):
        spec = config.models[name]
        model = build_model(spec, len(vocabulary_for(spec, VOCAB)))
        assert (spec.encoder_layers, spec.decoder_layers, spec.cell, spec.attention, spec.dropout) == (2, 2, "lstm",
                                                                                                      "general", 0.3)
        assert model.encoder.memory_size == spec.hidden_size  # summed directions
        assert model.decoder.bridge is None and model.output.combine.bias is None
        assert (model.encoder.gate is not None) == gated
        assert (model.source_prediction is not None) == predicts
        if predicts:
            assert model.source_prediction.weight_c == 10.0
            assert model.never_generated == (len(VOCAB),)


def test_the_tiny_variant_trains():
    """params.yaml's test-size sGate+SPM model, in training mode (dropout on): its objective falls on one batch."""
    spec = load_config(ROOT / "params.yaml").models["encdec_sgate_spm_tiny"]
    vocab = vocabulary_for(spec, VOCAB)
    torch.manual_seed(0)
    model = build_model(spec, len(vocab)).train()
    batch = make_batch([["a", "b", "c", "a"], ["c", "b", "zz"]], [["a", "c"], ["b"]], vocab)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    losses = []
    for _ in range(30):
        optimizer.zero_grad()
        result = model.loss(batch)
        result.total.backward()
        optimizer.step()
        losses.append(result.total.item())
    assert set(result.terms) == {"nll", "src"}
    assert losses[-1] < 0.5 * losses[0]


# --- GroundHog's shrinking beam with length normalisation (004 §3) ----------------------------------------------

E = EOS_ID
# Beam 3, traced by hand (ln .4 = -.916, ln .35 = -1.050, ln .25 = -1.386, ln .6 = -.511, ln .9 = -.105,
# ln .8 = -.223, ln .2 = -1.609, ln .5 = -.693):
#  step 1: </s> -.916, a -1.050, b -1.386 all rank inside the beam: </s> finishes, the beam shrinks to 2 (a, b).
#  step 2: bb -1.492 and aa -1.561 fill the beam of 2; a</s> -2.254 ranks third, outside it: it neither finishes
#          nor survives.
#  step 3: bbb -1.715 and aa</s> -1.784 fill the beam of 2 (bb</s> -3.101 is outside): aa</s> finishes, the beam
#          shrinks to 1 (bbb).
#  step 4: bbb</s> -2.408 finishes: the beam is empty, the search ends (before max_length 5) with exactly 3.
#  log p / length: aa</s> -.595, bbb</s> -.602, </s> -.916; unnormalised, </s> comes first.
#  `early` keeps 3 alive throughout: a</s> finishes at step 2 and bb</s> at step 3, and it returns aa</s>, </s>,
#  bb</s> (-1.034).
SHRINK = {(): {E: .4, A: .35, B: .25}, (A,): {A: .6, E: .3, B: .1}, (B,): {B: .9, E: .05, A: .05},
          (A, A): {E: .8, A: .2}, (B, B): {E: .2, B: .8}}
DEFAULT = {E: .5, A: .25, B: .25}


@pytest.mark.parametrize("alpha", [1.0, 0.0])
def test_shrinking_beam_with_length_normalisation_traced_by_hand(alpha):
    model = ScriptedModel(SHRINK, DEFAULT, max_length=5)
    hyps = beam_search(model, FakeBatch(1), beam_size=3, max_length=5, length_penalty=alpha, nbest=3,
                       stopping="shrinking")[0]
    log_p = {(E,): math.log(.4), (A, A, E): math.log(.35) + math.log(.6) + math.log(.8),
             (B, B, B, E): math.log(.25) + math.log(.9) + math.log(.8) + math.log(.5)}
    order = [(A, A, E), (B, B, B, E), (E,)] if alpha == 1.0 else [(E,), (A, A, E), (B, B, B, E)]
    assert [h.tokens for h in hyps] == order
    assert [h.score for h in hyps] == pytest.approx([log_p[t] / len(t) ** alpha for t in order], abs=1e-6)
    assert model.steps == 4
    early = beam_search(ScriptedModel(SHRINK, DEFAULT, max_length=5), FakeBatch(1), beam_size=3, max_length=5,
                        length_penalty=1.0, nbest=3, stopping="early")[0]
    assert [h.tokens for h in early] == [(A, A, E), (E,), (B, B, E)]
