"""The character decoder for unknown words (003 §4.3.1, Luong & Manning's hybrid model): its loss through the
LSTM equations written out, and greedy spelling."""

from __future__ import annotations

import pytest
import torch

from paragen.models.char_decoder import END, INVENTORY, START, CharDecoder, spell_ids


def test_words_are_spelled_as_utf8_bytes_between_start_and_end():
    assert spell_ids("ab") == [START, 97, 98, END]
    assert spell_ids("é") == [START, 0xC3, 0xA9, END]


def test_loss_is_the_summed_nll_of_each_next_symbol_through_the_lstm_equations():
    torch.manual_seed(0)
    decoder = CharDecoder(hidden_size=3, embedding_size=2)
    start = torch.randn(1, 3)
    nll, count = decoder.loss(["ab"], start)
    assert count == 3  # a, b, <end>
    # The LSTM by its equations (gates i, f, g, o; PyTorch's weight layout), from (h_0, c_0) = (h~, h~).
    w_ih, w_hh = decoder.lstm.weight_ih_l0, decoder.lstm.weight_hh_l0
    b = decoder.lstm.bias_ih_l0 + decoder.lstm.bias_hh_l0
    h, c = start[0], start[0]
    expected = 0.0
    sequence = spell_ids("ab")
    for current, following in zip(sequence[:-1], sequence[1:]):
        gates = w_ih @ decoder.embedding.weight[current] + w_hh @ h + b
        i, f, g, o = gates.chunk(4)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h = torch.sigmoid(o) * torch.tanh(c)
        logits = decoder.projection.weight @ h + decoder.projection.bias
        expected -= torch.log_softmax(logits, dim=0)[following].item()
    assert nll.item() == pytest.approx(expected, abs=1e-5)


def test_padding_of_shorter_words_adds_nothing():
    torch.manual_seed(1)
    decoder = CharDecoder(hidden_size=4)
    start = torch.randn(2, 4)
    together, count = decoder.loss(["a", "abcd"], start)
    first, n1 = decoder.loss(["a"], start[:1])
    second, n2 = decoder.loss(["abcd"], start[1:])
    assert count == n1 + n2 == 2 + 5
    assert together.item() == pytest.approx((first + second).item(), abs=1e-5)


def test_a_trained_decoder_spells_the_word_of_its_state():
    torch.manual_seed(2)
    decoder = CharDecoder(hidden_size=16)
    states = torch.randn(2, 16)
    words = ["recipient", "danielson"]
    optimizer = torch.optim.Adam(decoder.parameters(), lr=0.05)
    for _ in range(150):
        optimizer.zero_grad()
        nll, count = decoder.loss(words, states)
        (nll / count).backward()
        optimizer.step()
    assert decoder.spell(states) == words
    assert len(decoder.spell(torch.zeros(1, 16), max_length=3)[0].encode()) <= 3
    assert INVENTORY == 259


VOCAB_WORDS = ["a", "b", "c", "d", "e", "f"]


def _hybrid():
    from paragen.config import ModelConfig
    from paragen.models import build_model

    torch.manual_seed(0)
    config = ModelConfig(architecture="rnnsearch", embedding_size=8, hidden_size=12, cell="lstm", attention="general",
                         input_feeding="attentional", char_decoder=True)
    return build_model(config, len(SPECIALS_) + len(VOCAB_WORDS)).eval()


from paragen.data.vocabulary import SPECIALS as SPECIALS_, Vocabulary  # noqa: E402

VOCAB = Vocabulary(list(SPECIALS_) + VOCAB_WORDS)


def test_the_loss_adds_the_spelling_of_every_unknown_target_word_per_target_token(monkeypatch):
    from paragen.data.batching import make_batch
    from paragen.models.seq2seq import token_nll

    model = _hybrid()
    batch = make_batch([["a", "zz"], ["d"]], [["b", "zz"], ["yy", "e", "qq"]], VOCAB)
    seen = {}
    original = model.char_decoder.loss

    def recording(words, start):
        seen["words"], seen["start"] = words, start
        return original(words, start)

    monkeypatch.setattr(model.char_decoder, "loss", recording)
    result = model.loss(batch)
    assert seen["words"] == ["zz", "yy", "qq"]  # row 0 position 1, row 1 positions 0 and 2 (</s> never)
    _, attentional = model.teacher_forced(batch)
    assert torch.allclose(seen["start"], attentional[[0, 1, 1], [1, 0, 2]])
    words_nll = token_nll(model, batch).total
    char_nll, _ = original(["zz", "yy", "qq"], attentional[[0, 1, 1], [1, 0, 2]])
    assert result.total.item() == pytest.approx(words_nll.item() + char_nll.item() / result.tokens.item(), abs=1e-5)
    assert result.terms["char"].item() == pytest.approx(char_nll.item() / result.tokens.item(), abs=1e-5)


def test_decoding_spells_each_unk_of_the_top_output(monkeypatch):
    from paragen.decoding.decode import translate

    model = _hybrid()
    with torch.no_grad():
        model.output.project.bias[VOCAB.id("<unk>")] = 30.0  # the word decoder now says <unk> at every step
    monkeypatch.setattr(model.char_decoder, "spell", lambda start: [f"w{i}" for i in range(start.size(0))])
    out = translate(model, [["a", "b"]], VOCAB, beam_size=2, max_length=3, length_penalty=1.0, nbest=2, batch_size=4,
                    device=torch.device("cpu"))
    assert out[0].nbest[0] == ["w0", "w1", "w2"]  # three <unk>s (max_length 3), spelled in order
    assert "<unk>" in out[0].nbest[1]  # only the top output is spelled


def test_the_character_decoder_needs_luong_input_feeding():
    from paragen.config import ModelConfig

    with pytest.raises(ValueError, match="char_decoder: needs the attentional vector"):
        ModelConfig(architecture="rnnsearch", char_decoder=True)
    with pytest.raises(ValueError, match="char_decoder: needs the attentional vector"):
        ModelConfig(architecture="copynet", char_decoder=True)


def test_a_hybrid_model_trains_and_reloads_with_its_character_decoder(tmp_path, tiny_config):
    from paragen.config import ModelConfig, TrainingConfig
    from paragen.data.corpus import read_split
    from paragen.data.synthetic import generate, write_splits
    from paragen.training.checkpoint import load_model
    from paragen.training.trainer import train

    write_splits(generate(tiny_config.datasets["tiny"]), tmp_path / "data")
    train_data, valid_data = read_split(tmp_path / "data", "train"), read_split(tmp_path / "data", "valid")
    # a vocabulary without the rarer half of the words: their targets are <unk> and get spelled
    full = Vocabulary.build([train_data.sources, train_data.targets])
    vocab = Vocabulary(full.itos[: len(SPECIALS_) + (len(full) - len(SPECIALS_)) // 2])
    config = ModelConfig(architecture="rnnsearch", embedding_size=8, hidden_size=16, cell="lstm", attention="general",
                         input_feeding="attentional", char_decoder=True)
    state = train(model_config=config, training=TrainingConfig(batch_size=8, max_epochs=1, valid_max_length=20,
                                                               threads=1),
                  train_data=train_data, valid_data=valid_data, vocab=vocab, run_dir=tmp_path / "run",
                  device=torch.device("cpu"), progress=False)
    assert state.epoch == 1
    model, _ = load_model(tmp_path / "run" / "best.pt", torch.device("cpu"))
    assert model.char_decoder is not None


def test_validation_loss_is_the_word_nll_like_the_training_loss():
    from paragen.data.batching import make_batch
    from paragen.data.corpus import ParallelCorpus
    from paragen.models.seq2seq import token_nll
    from paragen.training.trainer import validation_loss

    model = _hybrid()
    sources, targets = [["a", "zz"], ["d"]], [["b", "zz"], ["yy", "e", "qq"]]
    loss, _ = validation_loss(model, ParallelCorpus(sources, targets), VOCAB, 8, torch.device("cpu"))
    words_only = token_nll(model, make_batch(sources, targets, VOCAB)).total.item()
    assert loss == pytest.approx(words_only, abs=1e-5)  # the spelling term is trained, not reported as loss


def test_the_byte_lstm_keeps_a_float32_state_under_bf16_autocast():
    """Like the word decoder's cell and the encoder, the byte LSTM's recurrence runs in float32 under bf16 autocast
    (CPU autocast casts ``nn.LSTM`` to bf16 as CUDA's does, so the CPU can check it); the projection keeps bf16."""
    torch.manual_seed(3)
    decoder = CharDecoder(hidden_size=6, embedding_size=4)
    seen = []
    decoder.lstm.register_forward_hook(lambda module, args, output: seen.append(output[0].dtype))
    start = torch.randn(2, 6)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        decoder.loss(["ab", "c"], start)
        decoder.spell(start, max_length=2)
    assert seen and set(seen) == {torch.float32}
