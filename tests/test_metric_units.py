"""Every score names its unit: the caption's units sentence and the CSV's ``unit`` column say, per metric, what it
counts (scale, tokens, references), read from what the scorer chose (metrics files) or, before any run, from the
dataset's evaluation settings. Expected texts are written out by hand."""

from __future__ import annotations

from paragen.config.datasets import Evaluation
from paragen.config.papers import Column
from paragen.report.units import column_units, family, metric_unit, units_sentence

BLEU = {"metric": "bleu", "signature": "nrefs:8|case:lc|eff:no|tok:13a|smooth:exp|version:2.6.0", "tokenize": "13a",
        "tokenize_chosen": "auto: --tokenize 13a"}
ROUGE_WORDS_AUTO = {"metric": "rouge", "unit": "word", "unit_chosen": "auto: --rouge-unit word", "stemmed": False,
                    "implementation": "rouge-score"}
ROUGE_CHARS_SET = {"metric": "rouge", "unit": "char", "unit_chosen": "--rouge-unit char", "stemmed": False,
                   "implementation": "rouge-score"}


def test_a_columns_metric_is_its_path_after_any_split():
    assert family(Column("bleu", "BLEU", "bleu/score")) == "bleu"
    assert family(Column("test/r1", "test ROUGE-1", "splits/test/rouge/score/rouge1")) == "rouge"
    assert family(Column("x->0", "x → ∅", "by_tag/x->0/top1")) == "by_tag"
    assert family(Column("sari_003", "SARI (003)", "report_protocol/sari/score")) == "report_protocol"


def test_bleu_names_case_tokenizer_and_whether_bpe_was_undone():
    assert metric_unit("bleu", BLEU, Evaluation(), bpe=True) == (
        "BLEU 0-100, corpus level, on lowercased sacrebleu 13a tokens (auto) of the outputs with BPE undone, against "
        "every reference")
    cased = {**BLEU, "signature": "nrefs:1|case:mixed|tok:zh", "tokenize": "zh", "tokenize_chosen": "--tokenize zh"}
    assert metric_unit("bleu", cased, Evaluation(), bpe=False) == (
        "BLEU 0-100, corpus level, on sacrebleu zh tokens of the outputs, against every reference")
    assert metric_unit("bleu", None, Evaluation(lowercase=False), bpe=False) == (
        "BLEU 0-100, corpus level, on sacrebleu 13a tokens, zh for CJK text (auto) of the outputs, against every "
        "reference")


def test_rouge_says_words_or_characters_and_who_chose_them():
    assert metric_unit("rouge", ROUGE_WORDS_AUTO, Evaluation(), bpe=True) == (
        "rouge-score F1 0-100 on words (auto: chosen by the references' script) of the outputs with BPE undone, "
        "against the first reference only")
    assert metric_unit("rouge", ROUGE_CHARS_SET, Evaluation(), bpe=False) == (
        "rouge-score F1 0-100 on characters (set in params.yaml) of the outputs, against the first reference only")
    assert metric_unit("rouge", None, Evaluation(), bpe=False) == (
        "rouge-score F1 0-100 on characters for CJK text, else words (auto) of the outputs, against the first reference "
        "only")
    assert metric_unit("rouge", None, Evaluation(rouge_unit="word", rouge_perl=True), bpe=False) == (
        "ROUGE-1.5.5 F1 0-100 on words, Porter-stemmed (-m), against the first reference only")


def test_the_default_rouge_unit_is_chosen_by_script_not_characters():
    assert Evaluation().rouge_unit == "auto"


def test_the_caption_names_each_metric_once_in_column_order(tiny_config):
    columns = [Column("test/bleu", "test BLEU", "splits/test/bleu/score"),
               Column("valid/bleu", "valid BLEU", "splits/valid/bleu/score"),
               Column("test/r1", "test ROUGE-1", "splits/test/rouge/score/rouge1"),
               Column("test/r2", "test ROUGE-2", "splits/test/rouge/score/rouge2")]
    scored = [{"splits": {"test": {"bleu": BLEU, "rouge": ROUGE_WORDS_AUTO}}}]
    units = column_units(tiny_config, columns, [], scored)
    assert units["test/r1"] == units["test/r2"] and units["test/bleu"] == units["valid/bleu"]
    sentence = units_sentence(columns, units)
    assert sentence == (
        " Units: BLEU 0-100, corpus level, on lowercased sacrebleu 13a tokens (auto) of the outputs, against every "
        "reference; ROUGE-1/2/L: rouge-score F1 0-100 on words (auto: chosen by the references' script) of the "
        "outputs, against the first reference only.")
