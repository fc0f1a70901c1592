"""The vocabulary's own rules, each on a few tokens counted by hand: ranking (count, then alphabetical), the
size cut, ``min_count``, specials and ``<tpad>`` never ranked, the file round trip (with or without a final
newline, non-ASCII tokens), and each refusal word for word."""

from pathlib import Path

import pytest

from paragen.data.vocabulary import BOS_ID, EOS_ID, PAD_ID, SPECIALS, TARGET_PAD, UNK_ID, Vocabulary, target_pad_id

# counts: b 3, a 3, c 2, é 2, d 1; "<s>" and "<tpad>" in the text are never ranked
CORPUS = [[["b", "a", "c", "b"], ["a", "é", "<s>"]], [["b", "a", "c", "é", "d", TARGET_PAD]]]


def test_ranking_is_by_count_then_alphabetical_and_specials_stay_first():
    """a and b tie at 3 (a first), c and é tie at 2 (c < é in code points), d last."""
    assert Vocabulary.build(CORPUS).itos == [*SPECIALS, "a", "b", "c", "é", "d"]
    assert (PAD_ID, UNK_ID, BOS_ID, EOS_ID) == (0, 1, 2, 3)


def test_the_size_counts_the_four_specials_and_min_count_drops_rare_tokens():
    """max_size 6: four specials and the two most frequent; max_size 3 (fewer than the specials): specials only;
    min_count 2 drops d (1); min_count 3 keeps a and b."""
    assert Vocabulary.build(CORPUS, max_size=6).itos == [*SPECIALS, "a", "b"]
    assert Vocabulary.build(CORPUS, max_size=3).itos == list(SPECIALS)
    assert Vocabulary.build(CORPUS, min_count=2).itos == [*SPECIALS, "a", "b", "c", "é"]
    assert Vocabulary.build(CORPUS, min_count=3).itos == [*SPECIALS, "a", "b"]


def test_ids_and_unknown_tokens():
    vocab = Vocabulary.build(CORPUS)
    assert vocab.encode(["d", "zz", "a", "<s>"]) == [8, UNK_ID, 4, BOS_ID]
    assert "é" in vocab and "zz" not in vocab and len(vocab) == 9


def test_target_pad_is_appended_last_once():
    vocab = Vocabulary.build(CORPUS).with_target_pad()
    assert vocab.itos[-1] == TARGET_PAD and vocab.id(TARGET_PAD) == 9 == target_pad_id(len(vocab))
    with pytest.raises(ValueError, match="the vocabulary already holds <tpad>"):
        vocab.with_target_pad()


def test_file_round_trip_with_or_without_a_final_newline(tmp_path):
    vocab = Vocabulary.build(CORPUS)
    path = tmp_path / "vocab.txt"
    vocab.save(path)
    assert path.read_bytes() == "<pad>\n<unk>\n<s>\n</s>\na\nb\nc\né\nd\n".encode("utf-8")
    assert Vocabulary.load(path).itos == vocab.itos
    path.write_bytes("<pad>\n<unk>\n<s>\n</s>\na\nb".encode("utf-8"))  # no final newline: b is still read
    assert Vocabulary.load(path).itos == [*SPECIALS, "a", "b"]


def test_refusals_word_for_word(tmp_path):
    missing = tmp_path / "data" / "vocab.txt"
    with pytest.raises(FileNotFoundError) as error:
        Vocabulary.load(missing)
    assert str(error.value) == (f"{missing}: vocabulary not found; `paragen vocab` (synthetic data) or `paragen "
                                "vocab-build` (real data, the vocab_<dataset> stage) writes it: run the pipeline "
                                "up to it (`snakemake <that file>`)")
    with pytest.raises(ValueError) as error:
        Vocabulary(["<unk>", "<pad>", "<s>", "</s>", "a"])
    assert str(error.value) == ("a vocabulary must start with ('<pad>', '<unk>', '<s>', '</s>'), got "
                                "('<unk>', '<pad>', '<s>', '</s>')")
    with pytest.raises(ValueError) as error:
        Vocabulary([*SPECIALS, *"gfedcbag", "f", "e"])  # g, f, e repeated
    assert str(error.value) == "duplicate tokens in vocabulary: ['e', 'f', 'g']"
    blank = tmp_path / "blank.txt"
    blank.write_text("<pad>\n<unk>\n<s>\n</s>\na\n\nb\n")  # line 6 is empty: a damaged file
    with pytest.raises(ValueError) as error:
        Vocabulary.load(blank)
    assert str(error.value) == f"{blank}:6: empty line; a vocabulary file holds one token per line"


def test_a_vocabulary_of_more_than_five_duplicates_names_the_first_five(tmp_path: Path):
    tokens = [*SPECIALS] + [f"t{i}" for i in range(7)] * 2
    with pytest.raises(ValueError) as error:
        Vocabulary(tokens)
    assert str(error.value) == "duplicate tokens in vocabulary: ['t0', 't1', 't2', 't3', 't4']"


def test_vocabularies_per_side_go_to_out_dir_and_count_sizes_without_specials(tmp_path: Path):
    """train.src counts a 3, b 2, c 1; train.tgt x 2, a 1, y 1. Size 1 per side: specials + a, and specials + x;
    written to out_dir (the segmented folder stays untouched), returned in the order src, tgt. With train.src
    missing, the refusal lists that file alone."""
    from paragen.data.corpus import CorpusError
    from paragen.data.vocabularies import build_vocabularies

    segmented, out = tmp_path / "seg", tmp_path / "vocab"
    segmented.mkdir()
    out.mkdir()
    (segmented / "train.src").write_text("a b a\nc a b\n")
    (segmented / "train.tgt").write_text("x y\nx a\n")
    assert build_vocabularies(segmented, 1, shared=False, out_dir=out) == [out / "vocab.src.txt", out / "vocab.tgt.txt"]
    assert Vocabulary.load(out / "vocab.src.txt").itos == [*SPECIALS, "a"]
    assert Vocabulary.load(out / "vocab.tgt.txt").itos == [*SPECIALS, "x"]
    assert sorted(p.name for p in segmented.iterdir()) == ["train.src", "train.tgt"]
    assert build_vocabularies(segmented, None, shared=True, out_dir=out) == [out / "vocab.txt"]
    assert Vocabulary.load(out / "vocab.txt").itos == [*SPECIALS, "a", "b", "x", "c", "y"]  # a 4, b 2, x 2
    (segmented / "train.src").unlink()
    with pytest.raises(CorpusError) as error:
        build_vocabularies(segmented, 1, shared=True)
    assert str(error.value) == f"vocabularies are built on the training split, which is missing: {segmented}/train.src"
