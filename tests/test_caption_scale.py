"""The caption's scale sentence (:func:`paragen.report.captions.describe_scale`): data, model sizes and beams,
word for word, for each kind of data.

Configurations are built from plain objects (datasets with pydantic's ``model_construct``, so the caption's
``isinstance`` checks see the real classes); every expected sentence is written out by hand from them."""

from __future__ import annotations

from types import SimpleNamespace

from paragen.config import HeadlineSyntheticDataset, RealDataset, SyntheticDataset
from paragen.report.captions import describe_scale


def _rnn(cell: str, bidirectional: bool, layers: tuple[int, int], hidden: int, embedding: int, dropout: float):
    return SimpleNamespace(architecture="rnnsearch", cell=cell, bidirectional=bidirectional, encoder_layers=layers[0],
                           decoder_layers=layers[1], hidden_size=hidden, embedding_size=embedding, dropout=dropout)


MODELS = {
    "rnn_a": _rnn("gru", True, (1, 1), 16, 8, 0.1),
    "rnn_b": _rnn("gru", True, (1, 1), 16, 8, 0.1),  # the same size as rnn_a: named together
    "uni": _rnn("lstm", False, (2, 1), 32, 16, 0.0),
    "tf": SimpleNamespace(architecture="transformer", encoder_layers=3, decoder_layers=2, embedding_size=64, heads=4,
                          key_size=16, feedforward_width=256, dropout=0.2),
}
MODELS_TEXT = ("rnn_a, rnn_b: bi-GRU 1+1 layers, hidden 16 / embedding 8, dropout 0.1; "
               "uni: LSTM 2+1 layers, hidden 32 / embedding 16, dropout 0.0; "
               "tf: Transformer 3+2 layers, d_model 64, 4 heads x d_k 16, feed-forward 256, dropout 0.2; "
               "beam 1, 5, 10.")
"""rnn_a and rnn_b share one size; models in the order the rows first use them; beams sorted as numbers (a string
sort would give 1, 10, 5)."""


def _config(datasets: dict) -> SimpleNamespace:
    first, second = list(datasets)[0], list(datasets)[-1]
    experiments = {"e1": (first, "rnn_a", "b5"), "e2": (second, "rnn_b", "b5"), "e3": (first, "uni", "b1"),
                   "e4": (second, "tf", "b5"), "e5": (first, "rnn_a", "b10")}
    return SimpleNamespace(
        datasets=datasets, models=MODELS,
        decoding={"b1": SimpleNamespace(beam_size=1), "b5": SimpleNamespace(beam_size=5),
                  "b10": SimpleNamespace(beam_size=10)},
        experiments={name: SimpleNamespace(dataset=d, model=m, decoding=b) for name, (d, m, b) in experiments.items()})


ROWS = ["e1", "e2", "e3", "e4", "e5"]


def _real(segmentation: str, vocab_size: int | None, perl: bool, exceptions: str = "wordnet") -> RealDataset:
    evaluation = SimpleNamespace(rouge_perl=perl, rouge_perl_exceptions=exceptions)
    return RealDataset.model_construct(segmentation=segmentation, vocab_size=vocab_size, evaluation=evaluation)


def test_real_data_names_each_dataset_its_tokens_and_vocabulary_then_the_models():
    config = _config({"gw": _real("bpe", 30000, False), "lc": _real("char", None, False)})
    assert describe_scale(config, ROWS) == (
        "Data: gw: bpe tokens, vocabulary 30000; lc: char tokens, vocabulary all. Models: " + MODELS_TEXT)


def test_rouge_perl_settings_are_those_of_the_first_dataset_scored_with_it():
    """gw does not score with ROUGE-1.5.5; lc does, with WordNet's exception lists, and spm without: the sentence
    is lc's (the first with rouge_perl), not spm's."""
    config = _config({"gw": _real("bpe", 30000, False), "lc": _real("char", None, True, "wordnet"),
                      "spm": _real("word", 50, True, "none")})
    config.experiments["e2"].dataset = "lc"  # e2 now on lc, e4 on spm, e1, e3 and e5 on gw
    assert describe_scale(config, ROWS) == (
        "Data: gw: bpe tokens, vocabulary 30000; lc: char tokens, vocabulary all; spm: word tokens, vocabulary 50. "
        "ROUGE-1.5.5's -m: WordNet 2.0 exception lists, then Porter stemming. Models: " + MODELS_TEXT)


def test_rouge_perl_without_exception_lists_says_porter_alone():
    config = _config({"gw": _real("bpe", 30000, True, "none")})
    assert describe_scale(config, ROWS) == (
        "Data: gw: bpe tokens, vocabulary 30000. ROUGE-1.5.5's -m: Porter stemming alone, no WordNet exception "
        "lists (the setting that reproduced a published Gigaword score; docs/measurements.md). Models: "
        + MODELS_TEXT)


def test_headline_stand_in_names_its_pairs_lengths_types_and_seed():
    data = HeadlineSyntheticDataset.model_construct(train_pairs=12000, valid_pairs=500, test_pairs=400,
                                                    source_length=(8, 20), content_words=300, filler_words=50,
                                                    max_target_length=6, seed=9)
    assert describe_scale(_config({"hs": data}), ROWS) == (
        "Data: 12,000 / 500 / 400 train / valid / test pairs, 8-20-token sources from 300 content and 50 filler "
        "types, headlines of at most 6 words, seed 9. Models: " + MODELS_TEXT)


def test_rule_data_names_its_scale_the_first_rows_cell_and_each_size_once_in_order():
    """Rows e2 (a bi-LSTM of hidden 16 / embedding 4), e3 (LSTM 32 / 16), e1 (bi-GRU 16 / 8): the encoder cell is
    the first row's (LSTM), the sizes are sorted (16 / 4 before 16 / 8 before 32 / 16), not in row order. Rows e1,
    e3, e5: the cell is e1's (GRU), e5's size repeats e1's and is named once."""
    data = SyntheticDataset.model_construct(rules=20, instances_per_rule=50, symbols=100, seed=3)
    config = _config({"rules": data})
    config.models = {**MODELS, "small": _rnn("lstm", True, (1, 1), 16, 4, 0.0)}
    config.experiments["e2"].model = "small"
    assert describe_scale(config, ["e2", "e3", "e1"]) == (
        "Scale: 20 rules × 50 instances (paper: 200 × 200), 100 symbols, seed 3; bi-LSTM encoder, "
        "hidden 16 / embedding 4, hidden 16 / embedding 8, hidden 32 / embedding 16; beam 1, 5.")
    assert describe_scale(config, ["e1", "e3", "e5"]) == (
        "Scale: 20 rules × 50 instances (paper: 200 × 200), 100 symbols, seed 3; bi-GRU encoder, "
        "hidden 16 / embedding 8, hidden 32 / embedding 16; beam 1, 5, 10.")
