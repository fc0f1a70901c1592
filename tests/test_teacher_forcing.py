"""Teacher forcing runs only what the recurrence reads inside its step loop (the cell, attention, the fed-back h̃ or
q, CopyNet's mode probabilities) and the output layer once over every step; beam search still calls ``step``.
The two must give the same numbers: each model here is compared with a loop that calls ``Seq2Seq.step`` at every
gold position, the computation training used before (and search uses now), on tiny models with their own random
(distinct, non-identity) weights, batches with padding and, for CopyNet, an out-of-vocabulary word."""

import pytest
import torch

from paragen.config import ModelConfig
from paragen.data.batching import fill_targets, make_batch
from paragen.data.vocabulary import Vocabulary
from paragen.models import build_model, vocabulary_for
from paragen.models.seq2seq import run_teacher_forced, stepped_teacher_forced

SOURCES = [["a", "b", "zz", "c", "e"], ["d", "e"], ["f", "a", "c"]]
TARGETS = [["b", "zz", "a"], ["e", "d", "f", "a", "b"], ["c"]]

CONFIGS = {
    "encdec": dict(architecture="encdec"),
    "rnnsearch (Bahdanau, context feeding)": dict(architecture="rnnsearch", attention="bahdanau"),
    "rnnsearch (Luong general, h~ feeding, 2-layer LSTM, encoder-final start)": dict(
        architecture="rnnsearch", attention="general", cell="lstm", input_feeding="attentional", encoder_layers=2,
        decoder_layers=2, bidirectional_merge="sum", decoder_init="encoder_final"),
    "copynet (selective read)": dict(architecture="copynet", attention="bahdanau"),
    "wean (general, q feeding)": dict(architecture="wean", attention="general", wean_score="general",
                                      input_feeding="attentional", cell="lstm"),
    "wean (dot)": dict(architecture="wean", wean_score="dot", input_feeding="attentional"),
    "wean (concat)": dict(architecture="wean", wean_score="concat", input_feeding="attentional"),
    "spm (source-side prediction)": dict(architecture="rnnsearch", attention="general", cell="lstm",
                                         input_feeding="attentional", source_prediction={"weight_c": 10.0}),
    "character decoder": dict(architecture="rnnsearch", attention="general", cell="lstm",
                              input_feeding="attentional", char_decoder=True),
}


def _model_and_batch(overrides: dict):
    config = ModelConfig(embedding_size=8, hidden_size=12, dropout=0.0, **overrides)
    vocab = vocabulary_for(config, Vocabulary.build([[["a", "b", "c", "d", "e", "f"]]]))
    torch.manual_seed(3)
    model = build_model(config, len(vocab)).eval()
    batch = make_batch(SOURCES, TARGETS, vocab)
    if model.source_prediction is not None:  # SPM scores Y', the target continued with <tpad> (004 Eq. 9)
        batch = fill_targets(batch, model.source_prediction.pad_id)
    return model, batch


def stepwise(model, batch):
    """The reference: :func:`stepped_teacher_forced`, search's full ``step`` (the output layer inside the loop) at
    every gold position, as training ran before; attention where the model has it."""
    run = stepped_teacher_forced(model, batch, keep_attention=model.decoder.attention is not None)
    return run.log_probs, run.attentional, run.attention


@pytest.mark.parametrize("name", list(CONFIGS))
def test_teacher_forcing_equals_stepping_the_search_step(name):
    model, batch = _model_and_batch(CONFIGS[name])
    with torch.no_grad():
        run = run_teacher_forced(model, batch, keep_attention=model.decoder.attention is not None)
        log_probs, fed, attention = stepwise(model, batch)
    assert run.log_probs.shape == log_probs.shape
    torch.testing.assert_close(run.log_probs, log_probs, atol=1e-5, rtol=0)  # -inf slots must match as -inf
    if fed is None:
        assert run.attentional is None
    else:
        torch.testing.assert_close(run.attentional, fed, atol=1e-5, rtol=0)
    if attention is not None:
        torch.testing.assert_close(run.attention, attention, atol=1e-5, rtol=0)
    assert torch.isfinite(log_probs).any(-1).all()  # every step scores some word: the comparison is not vacuous


@pytest.mark.parametrize("name", ["copynet (selective read)", "spm (source-side prediction)", "character decoder"])
def test_the_loss_is_the_stepwise_loss(name, monkeypatch):
    """The whole objective (the word NLL, SPM's ℓ_src from h̃, the character decoder's spelling NLL from h̃) is the
    same whether teacher forcing hoists the output layer or steps it."""
    model, batch = _model_and_batch(CONFIGS[name])
    if model.char_decoder is not None:  # spell a word: the character decoder only scores <unk> targets
        vocab = vocabulary_for(model_config := ModelConfig(embedding_size=8, hidden_size=12, dropout=0.0,
                                                            **CONFIGS[name]), Vocabulary.build([[["a", "b"]]]))
        torch.manual_seed(3)
        model = build_model(model_config, len(vocab)).eval()
        batch = make_batch(SOURCES, TARGETS, vocab)
    with torch.no_grad():
        hoisted = model.loss(batch)
        reference_log_probs, reference_fed, _ = stepwise(model, batch if model.source_prediction is None
                                                         else fill_targets(batch, model.source_prediction.pad_id))
        monkeypatch.setattr(model, "teacher_forced", lambda _: (reference_log_probs, reference_fed))
        if model.char_decoder is None and model.source_prediction is None:  # token_nll calls forward
            monkeypatch.setattr(model, "forward", lambda _: reference_log_probs)
        reference = model.loss(batch)
    torch.testing.assert_close(hoisted.total, reference.total, atol=1e-5, rtol=0)
    assert hoisted.terms.keys() == reference.terms.keys()
    for key in hoisted.terms:
        torch.testing.assert_close(hoisted.terms[key], reference.terms[key], atol=1e-5, rtol=0)
    if model.char_decoder is not None:
        assert hoisted.terms["char"] > 0  # the spelling loss is in the comparison


def test_wean_concat_scores_one_step_at_a_time():
    """concat's tanh over (query, word) pairs is (batch, vocab, embedding) per step; every step at once would be
    (batch, tgt_len, vocab, embedding), tgt_len times the memory of the stepped form."""
    model, batch = _model_and_batch(CONFIGS["wean (concat)"])
    shapes = []
    model.output.v.register_forward_hook(lambda module, args, out: shapes.append(tuple(args[0].shape)))
    with torch.no_grad():
        run_teacher_forced(model, batch)
    assert shapes and all(len(shape) == 3 for shape in shapes)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_in_training_every_dropout_sees_the_same_elements_as_stepping(name):
    """Dropout makes training mode random, so the numbers cannot be compared; what can: each dropout module draws
    masks over exactly as many elements in the hoisted loop as in the stepped one (none is skipped or doubled)."""
    config = {**CONFIGS[name]}
    model_config = ModelConfig(embedding_size=8, hidden_size=12, dropout=0.3, **config)
    vocab = vocabulary_for(model_config, Vocabulary.build([[["a", "b", "c", "d", "e", "f"]]]))
    torch.manual_seed(3)
    model = build_model(model_config, len(vocab)).train()
    batch = make_batch(SOURCES, TARGETS, vocab)
    if model.source_prediction is not None:
        batch = fill_targets(batch, model.source_prediction.pad_id)
    counted = {}
    for module_name, module in model.named_modules():
        if isinstance(module, torch.nn.Dropout):
            module.register_forward_hook(lambda m, args, out, key=module_name: counted.__setitem__(
                key, counted.get(key, 0) + args[0].numel()))
    with torch.no_grad():
        run_teacher_forced(model, batch)
        hoisted = dict(counted)
        counted.clear()
        stepwise(model, batch)
    assert hoisted == counted and sum(hoisted.values()) > 0
