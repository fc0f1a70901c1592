"""GloVe initialisation (003 §4.3.2): which rows are copied, what an absent file does, what the caption says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
import yaml

from paragen.data.corpus import CorpusError
from paragen.models.pretrained import EmbeddingInit, initialise, vocabulary_tables
from paragen.data.vocabulary import SPECIALS, Vocabulary

from conftest import ROOT, tiny_model

VOCAB = Vocabulary(list(SPECIALS) + ["a", "b", "c"])


def _transformer():
    from paragen.models.transformer import Transformer

    torch.manual_seed(0)
    return Transformer(len(VOCAB), 4, 1, 4, 8, 1, 1, 0.0, False)


def _glove(path: Path) -> Path:
    # GloVe's text format: a word, then its numbers, space-separated; "zz" is not in the vocabulary
    path.write_text("a 1 2 3 4\nzz 9 9 9 9\nb -1 0.5 0 2\n")
    return path


def test_vocabulary_words_get_their_vectors_and_the_rest_stays(tmp_path):
    model = _transformer()
    tables = vocabulary_tables(model, len(VOCAB))
    assert len(tables) == 2  # source and target tables (not shared here)
    before = [t.weight.detach().clone() for t in tables]
    result = initialise(tables, VOCAB, _glove(tmp_path / "glove.txt"))
    for table, old in zip(tables, before):
        assert table.weight[VOCAB.id("a")].tolist() == [1, 2, 3, 4]
        assert table.weight[VOCAB.id("b")].tolist() == [-1, 0.5, 0, 2]
        assert torch.equal(table.weight[VOCAB.id("c")], old[VOCAB.id("c")])  # no vector: its random start
        assert torch.equal(table.weight[: len(SPECIALS)], old[: len(SPECIALS)])
    assert (result.found, result.vocabulary) == (2, 3)
    assert result.describe() == "embeddings initialised from glove.txt for 2 of 3 words"


def test_an_absent_file_means_random_embeddings_said_aloud(tmp_path, caplog):
    model = tiny_model("rnnsearch", len(VOCAB))
    with caplog.at_level("WARNING"):
        result = initialise(vocabulary_tables(model, len(VOCAB)), VOCAB, tmp_path / "missing.txt")
    assert result.source == "random" and result.found == 0
    assert "missing.txt absent; fetch it with `paragen fetch glove`" in result.describe()
    assert "random initial embeddings" in caplog.text


def test_a_vector_of_the_wrong_width_is_named_with_its_line(tmp_path):
    path = tmp_path / "glove.txt"
    path.write_text("a 1 2 3 4\nb 1 2 3\n")
    model = _transformer()
    with pytest.raises(CorpusError, match=r"glove.txt:2: expected 4 numbers after the word 'b'"):
        initialise(vocabulary_tables(model, len(VOCAB)), VOCAB, path)


def test_training_records_the_initialisation_and_the_table_caption_quotes_it(tmp_path, monkeypatch, tiny_config):
    from paragen.pipeline import plan
    from paragen.config import ModelConfig, PretrainedEmbeddings, TrainingConfig, parse_config
    from paragen.data.corpus import read_split
    from paragen.data.synthetic import generate, write_splits
    from paragen.report.captions import describe_embeddings
    from paragen.training.trainer import train

    monkeypatch.chdir(tmp_path)
    write_splits(generate(tiny_config.datasets["tiny"]), Path("data"))
    train_data, valid_data = read_split("data", "train"), read_split("data", "valid")
    vocab = Vocabulary.build([train_data.sources, train_data.targets])
    words = [w for w in vocab.itos if w not in SPECIALS]
    Path("data/raw/glove").mkdir(parents=True)
    Path("data/raw/glove/vectors.txt").write_text(f"{words[0]} 1 2 3 4\n")
    model = ModelConfig(architecture="transformer", embedding_size=4, heads=1, key_size=4, encoder_layers=1,
                        decoder_layers=1, pretrained_embeddings=PretrainedEmbeddings(file="vectors.txt"))
    train(model_config=model, training=TrainingConfig(batch_size=8, max_epochs=1, valid_max_length=10, threads=1),
          train_data=train_data, valid_data=valid_data, vocab=vocab, run_dir=Path("runs/simp_transformer"),
          device=torch.device("cpu"), progress=False)
    recorded = json.loads(Path("runs/simp_transformer/embeddings.json").read_text())
    assert (recorded["found"], recorded["vocabulary"]) == (1, len(words))
    raw = yaml.safe_load((ROOT / "params.yaml").read_text())
    raw.update(suites=["simplification"], data=["turk", "wikilarge"])
    config = parse_config(raw)
    assert describe_embeddings(config, {"base transformer": "simp_transformer", "nmt": "simp_nmt"}) == (
        f" Embeddings: base transformer: embeddings initialised from vectors.txt for 1 of {len(words)} words.")
    stages = {s.name: s for s in plan.stages(config)}
    assert "runs/simp_transformer/embeddings.json" in stages["train_simp_transformer"].outs
    assert "runs/simp_nmt/embeddings.json" not in stages["train_simp_nmt"].outs  # NMT starts from random
    assert "runs/simp_transformer/embeddings.json" in stages["report_simplification"].deps
