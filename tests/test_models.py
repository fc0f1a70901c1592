import pytest
import torch

from paragen.batching import decode_ids, make_batch
from paragen.search import beam_search
from paragen.vocabulary import SPECIALS, Vocabulary

from conftest import ARCHITECTURES, tiny_model

SOURCES = [["a", "b", "zz", "c"], ["d", "yy", "yy"]]  # zz and yy are out of vocabulary
TARGETS = [["b", "zz"], ["yy", "e", "f", "qq"]]  # qq is in neither


@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_output_shapes_and_normalisation(architecture, vocab):
    model = tiny_model(architecture, len(vocab))
    batch = make_batch(SOURCES, TARGETS, vocab)
    log_probs = model(batch)
    width = len(vocab) + (1 if architecture == "copynet" else 0)  # one OOV per sentence (zz, yy)
    assert log_probs.shape == (2, batch.tgt_in.size(1), width)
    total = log_probs.exp().sum(-1)
    assert torch.allclose(total, torch.ones_like(total), atol=1e-5)
    loss, tokens = model.loss(batch)
    assert loss.item() > 0 and tokens == 2 + 1 + 4 + 1


@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_step_matches_teacher_forcing(architecture, vocab):
    assert_steps_match_teacher_forcing(tiny_model(architecture, len(vocab)), make_batch(SOURCES, TARGETS, vocab))


def assert_steps_match_teacher_forcing(model, batch):
    """Decoding step by step gives the teacher-forced distributions; returns the last state."""
    forced = model(batch)
    encoded = model.encode(batch)
    state = model.initial_state(encoded)
    for t in range(batch.tgt_in.size(1)):
        out = model.step(batch.tgt_in[:, t], state, encoded)
        state = out.state
        assert torch.allclose(out.log_probs, forced[:, t], atol=1e-5)
    return state


def test_extended_vocabulary_ids(vocab):
    batch = make_batch(SOURCES, TARGETS, vocab)
    v = len(vocab)
    assert batch.oovs == [["zz"], ["yy"]]
    assert batch.src_ext[0].tolist() == [vocab.id("a"), vocab.id("b"), v, vocab.id("c")]
    assert batch.src[0, 2].item() == vocab.id("<unk>")
    assert batch.tgt_out[0].tolist()[:2] == [vocab.id("b"), v]  # zz copied from the source
    assert batch.tgt_out[1].tolist()[3] == vocab.id("<unk>")  # qq is nowhere: UNK


def test_non_copying_models_score_oov_targets_as_unk(vocab):
    model = tiny_model("rnnsearch", len(vocab))
    batch = make_batch(SOURCES, TARGETS, vocab)
    assert model.target_ids(batch.tgt_out).max().item() < len(vocab)


def test_copynet_emits_source_word_missing_from_vocabulary():
    vocab = Vocabulary(list(SPECIALS) + ["a", "b"])
    model = tiny_model("copynet", len(vocab))
    # Silence the generate mode (except </s>, so the sentence can end): only copying remains.
    with torch.no_grad():
        model.output.generate.project.bias.fill_(-50.0)
        model.output.generate.project.bias[vocab.id("</s>")] = 0.0
    source = ["kappa", "lambda", "mu"]
    batch = make_batch([source], None, vocab)
    hyp = beam_search(model, batch, beam_size=1, max_length=5)[0][0]
    words = decode_ids(hyp.tokens, vocab, batch.oovs[0])
    assert words, "the model produced nothing"
    assert all(w in source for w in words)
    assert not any(w in vocab for w in words)


def test_copy_probabilities_sum_with_generation(vocab):
    model = tiny_model("copynet", len(vocab))
    batch = make_batch(SOURCES, TARGETS, vocab)
    encoded = model.encode(batch)
    out = model.step(batch.tgt_in[:, 0], model.initial_state(encoded), encoded)
    total = out.copy_probs.sum(-1) + out.generate_mass
    assert torch.allclose(total, torch.ones_like(total), atol=1e-5)
    assert (out.copy_probs[1, 3:] == 0).all()  # padding positions are never copied


def test_wean_has_no_vocabulary_sized_output_matrix(vocab):
    wean = tiny_model("wean", len(vocab))
    rnnsearch = tiny_model("rnnsearch", len(vocab))
    wean_output = sum(p.numel() for p in wean.output.parameters() if p is not wean.decoder.embedding.weight)
    rnn_output = sum(p.numel() for p in rnnsearch.output.parameters())
    assert all(len(vocab) not in p.shape for n, p in wean.output.named_parameters() if not n.startswith("embedding"))
    assert wean_output < rnn_output


@pytest.mark.parametrize("score", ["dot", "general", "concat"])
def test_wean_scores(score, vocab):
    model = tiny_model("wean", len(vocab), wean_score=score)
    log_probs = model(make_batch(SOURCES, TARGETS, vocab))
    assert torch.isfinite(log_probs).all()


@pytest.mark.parametrize("attention", ["dot", "general", "concat", "bahdanau"])
def test_attention_scores(attention, vocab):
    # dot attention needs query and memory of one size: a unidirectional encoder of the decoder's width.
    model = tiny_model("rnnsearch", len(vocab), attention=attention, bidirectional=attention != "dot")
    log_probs = model(make_batch(SOURCES, TARGETS, vocab))
    assert torch.isfinite(log_probs).all()


def test_lstm_cells(vocab):
    model = tiny_model("copynet", len(vocab), cell="lstm")
    total = model(make_batch(SOURCES, TARGETS, vocab)).exp().sum(-1)
    assert torch.allclose(total, torch.ones_like(total), atol=1e-5)


STACKED = [dict(cell="lstm", decoder_layers=2, encoder_layers=2), dict(cell="gru", decoder_layers=3)]


@pytest.mark.parametrize("architecture", ARCHITECTURES)
@pytest.mark.parametrize("options", STACKED)
def test_stacked_decoder_step_matches_teacher_forcing(architecture, options, vocab):
    model = tiny_model(architecture, len(vocab), **options)
    assert model.decoder.layers == options["decoder_layers"]
    state = assert_steps_match_teacher_forcing(model, make_batch(SOURCES, TARGETS, vocab))
    assert state["upper_hidden"].shape == (2, options["decoder_layers"] - 1, 12)


def test_stacked_decoder_beam_search_reorders_every_layer(vocab):
    """Beam search over a batch equals beam search per sentence: reordering keeps each layer's state aligned."""
    model = tiny_model("rnnsearch", len(vocab), cell="lstm", decoder_layers=2)
    together = beam_search(model, make_batch(SOURCES, None, vocab), beam_size=3, max_length=6, nbest=3)
    for source, hyps in zip(SOURCES, together):
        alone = beam_search(model, make_batch([source], None, vocab), beam_size=3, max_length=6, nbest=3)[0]
        assert [h.tokens for h in hyps] == [h.tokens for h in alone]
        assert [round(h.score, 4) for h in hyps] == [round(h.score, 4) for h in alone]


def test_shared_embeddings_are_one_table(vocab):
    model = tiny_model("wean", len(vocab), share_embeddings=True)
    assert model.encoder.embedding is model.decoder.embedding is model.output.embedding
    separate = tiny_model("wean", len(vocab))
    assert separate.encoder.embedding is not separate.decoder.embedding
    count = lambda m: sum(p.numel() for p in m.parameters())  # noqa: E731
    assert count(separate) - count(model) == len(vocab) * 8


@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_models_train_under_bf16_autocast(architecture, vocab):
    """The CUDA bf16 path, exercised with CPU autocast: same loss to bf16 precision, finite gradients."""
    model = tiny_model(architecture, len(vocab), cell="lstm", decoder_layers=2)  # eval mode: no dropout
    batch = make_batch(SOURCES, TARGETS, vocab)
    full, _ = model.loss(batch)
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        mixed, _ = model.loss(batch)
    assert mixed.dtype == torch.float32  # log-softmax and the loss stay in float32
    assert mixed.item() == pytest.approx(full.item(), rel=0.05)
    mixed.backward()
    assert all(torch.isfinite(p.grad).all() for p in model.parameters() if p.grad is not None)


def test_autocast_is_only_enabled_on_cuda():
    from paragen.training import autocast

    assert not autocast(torch.device("cpu"), True)._enabled
    assert not autocast(torch.device("cuda"), False)._enabled
