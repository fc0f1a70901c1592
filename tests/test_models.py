import pytest
import torch

from paragen.data.batching import decode_ids, make_batch
from paragen.decoding.search import beam_search
from paragen.data.vocabulary import SPECIALS, Vocabulary

from conftest import ARCHITECTURES, tiny_model

SOURCES = [["a", "b", "zz", "c"], ["d", "yy", "yy"]]  # zz and yy are out of vocabulary
TARGETS = [["b", "zz"], ["yy", "e", "f", "qq"]]  # qq is in neither


@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_output_shapes_and_loss_is_mean_token_nll(architecture, vocab):
    model = tiny_model(architecture, len(vocab))
    batch = make_batch(SOURCES, TARGETS, vocab)
    log_probs = model(batch)
    width = len(vocab) + (1 if architecture == "copynet" else 0)  # one OOV per sentence (zz, yy)
    assert log_probs.shape == (2, batch.tgt_in.size(1), width)
    result = model.loss(batch)
    loss, tokens = result.total, result.tokens
    assert tokens == 2 + 1 + 4 + 1
    gold = model.target_ids(batch.tgt_out)
    picked = [-log_probs[b, t, gold[b, t]].item() for b in range(2) for t in range(gold.size(1)) if gold[b, t] != 0]
    assert loss.item() == pytest.approx(sum(picked) / len(picked), abs=1e-6)
    # token accuracy: real target positions whose highest-scoring id is the gold one, counted in the test
    hits = sum(int(log_probs[b, t].argmax().item() == gold[b, t].item())
               for b in range(2) for t in range(gold.size(1)) if gold[b, t] != 0)
    assert result.correct == hits
    assert set(result.terms) == {"nll"} and result.terms["nll"].item() == pytest.approx(loss.item())
    # on the device as 0-d tensors, not Python numbers: reading one would wait for a GPU every batch
    assert all(isinstance(v, torch.Tensor) and v.dim() == 0 and not v.requires_grad
               for v in (result.tokens, result.correct, *result.terms.values()))


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


def test_wean_has_no_vocabulary_sized_output_matrix(vocab):
    wean = tiny_model("wean", len(vocab))
    rnnsearch = tiny_model("rnnsearch", len(vocab))
    wean_output = sum(p.numel() for p in wean.output.parameters() if p is not wean.decoder.embedding.weight)
    rnn_output = sum(p.numel() for p in rnnsearch.output.parameters())
    assert all(len(vocab) not in p.shape for n, p in wean.output.named_parameters() if not n.startswith("embedding"))
    assert wean_output < rnn_output


@pytest.mark.parametrize("architecture", ["rnnsearch", "transformer"])
def test_stacked_decoder_beam_search_reorders_every_layer(vocab, architecture):
    """Beam search over a batch equals beam search per sentence: reordering keeps each layer's state aligned, and
    padding (the shorter sentence's) is masked wherever the encoder and decoder attend."""
    model = tiny_model(architecture, len(vocab), cell="lstm", decoder_layers=2, encoder_layers=2)
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
    full = model.loss(batch).total
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        mixed = model.loss(batch).total
    assert mixed.dtype == torch.float32  # log-softmax and the loss stay in float32
    assert mixed.item() == pytest.approx(full.item(), rel=0.05)
    mixed.backward()
    full_model = tiny_model(architecture, len(vocab), cell="lstm", decoder_layers=2)
    full_model.loss(batch).total.backward()
    for (name, p), q in zip(model.named_parameters(), full_model.parameters()):
        if p.grad is not None:
            # per parameter, within bf16's precision as it compounds through a few layers (the Transformer's
            # LayerNorms over 8 dims reach about 11 %), and finite
            assert torch.isfinite(p.grad).all(), name
            assert (p.grad - q.grad).norm() <= 0.15 * q.grad.norm() + 1e-3, name


def test_autocast_is_only_enabled_on_cuda():
    from paragen.training.trainer import autocast

    assert not autocast(torch.device("cpu"), True)._enabled
    assert not autocast(torch.device("cuda"), False)._enabled
