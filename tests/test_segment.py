import pytest

from paragen.data.corpus import CorpusError
from paragen.data.segment import char_segment, learn_bpe_codes, segment_dataset, segment_lines
from paragen.scoring.files import restore_bpe

from conftest import write_lines

CORPUS = ["the lower the slower", "newest widest lowest", "the newer wider road", "lower newer wider"] * 20


def test_characters_and_jieba_words():
    assert char_segment("我爱 北京") == "我 爱 北 京"
    assert segment_lines(["我爱北京天安门"], "jieba", progress=False) == ["我 爱 北京 天安门"]
    assert segment_lines(["我 爱北京"], "jieba", progress=False) == ["我 爱 北京"]  # spaces are not words
    assert segment_lines(["The  Cat"], "word", lowercase=True, progress=False) == ["the cat"]


def test_bpe_round_trip_and_joint_codes(tmp_path):
    codes = tmp_path / "codes"
    learn_bpe_codes(CORPUS, 20, codes)
    assert len(codes.read_text().splitlines()) > 1
    segmented = segment_lines(["the slowest newer widest"], "bpe", codes, progress=False)[0]
    assert "@@" in segmented
    assert restore_bpe(segmented) == "the slowest newer widest"


def test_parallel_equals_serial(tmp_path):
    codes = tmp_path / "codes"
    learn_bpe_codes(CORPUS, 20, codes)
    lines = [f"{w} lowest newer {i}" for i, w in enumerate(["the", "wider", "slow"] * 300)]
    serial = segment_lines(lines, "bpe", codes, workers=1, progress=False)
    parallel = segment_lines(lines, "bpe", codes, workers=2, chunk=50, progress=False)
    assert parallel == serial and len(parallel) == len(lines)


def test_segment_dataset_learns_on_train_and_applies_to_every_split(tmp_path):
    prepared = tmp_path / "prepared" / "toy"
    write_lines(prepared / "train.src", CORPUS)
    write_lines(prepared / "train.tgt", CORPUS[::-1])
    write_lines(prepared / "test.src", ["the newest road"])
    write_lines(prepared / "test.tgt", ["new road"])
    write_lines(prepared / "test.ref.1", ["newer road"])
    out = segment_dataset("toy", "bpe", merges=15, prepared_root=tmp_path / "prepared", out_root=tmp_path / "seg",
                          workers=1, progress=False)
    assert sorted(p.name for p in out.iterdir()) == ["bpe.codes", "segment.json", "test.ref.1", "test.src", "test.tgt",
                                                     "train.src", "train.tgt"]
    assert restore_bpe((out / "test.src").read_text().strip()) == "the newest road"
    with pytest.raises(CorpusError, match="training split, which is missing"):
        (prepared / "train.src").unlink()
        segment_dataset("toy", "bpe", prepared_root=tmp_path / "prepared", out_root=tmp_path / "seg")
    with pytest.raises(CorpusError, match="not prepared"):
        segment_dataset("absent", "char", prepared_root=tmp_path / "prepared")


def test_training_pairs_with_longer_targets_are_dropped(tmp_path):
    prepared = tmp_path / "prepared" / "giga"
    write_lines(prepared / "train.src", ["a b c", "a", "a b"])
    write_lines(prepared / "train.tgt", ["a", "a b c", "a b"])
    write_lines(prepared / "test.src", ["a"])
    write_lines(prepared / "test.tgt", ["a b c d"])  # test pairs are never filtered
    out = segment_dataset("giga", "word", prepared_root=tmp_path / "prepared", out_root=tmp_path / "seg",
                          workers=1, progress=False, drop_longer_target=True)
    assert (out / "train.src").read_text().splitlines() == ["a b c", "a b"]
    assert (out / "test.tgt").read_text().splitlines() == ["a b c d"]
    import json
    assert json.loads((out / "segment.json").read_text())["dropped_longer_target"] == 1


def test_copy_task_makes_every_target_its_source_and_drops_references(tmp_path):
    """turk-mini's copy-task sanity run: each split is scored against its own source, so no reference may survive
    (a kept test.ref.k would be read instead of test.tgt) and every target must be the segmented source."""
    prepared = tmp_path / "prepared" / "turk"
    write_lines(prepared / "train.src", ["The cat sat", "A dog ran"])
    write_lines(prepared / "train.tgt", ["cat sat", "dog ran"])
    write_lines(prepared / "test.src", ["The bird sang"])
    write_lines(prepared / "test.tgt", ["bird sang"])
    write_lines(prepared / "test.ref.0", ["bird sang"])
    write_lines(prepared / "test.ref.1", ["a bird sang"])
    out = segment_dataset("turk", "word", lowercase=True, prepared_root=tmp_path / "prepared",
                          out_root=tmp_path / "seg", workers=1, progress=False, name="turk_copy", copy_task=True)
    assert out.name == "turk_copy.word"
    assert sorted(p.name for p in out.iterdir()) == ["segment.json", "test.src", "test.tgt", "train.src", "train.tgt"]
    assert (out / "train.tgt").read_text().splitlines() == ["the cat sat", "a dog ran"]
    assert (out / "test.tgt").read_text().splitlines() == ["the bird sang"]
    import json
    assert json.loads((out / "segment.json").read_text())["copy_task"] is True
    plain = segment_dataset("turk", "word", prepared_root=tmp_path / "prepared", out_root=tmp_path / "seg",
                            workers=1, progress=False)
    assert (plain / "test.tgt").read_text().splitlines() == ["bird sang"] and (plain / "test.ref.1").exists()


def test_vocabularies_of_a_given_size_shared_or_separate(tmp_path):
    from paragen.data.vocabularies import build_vocabularies
    from paragen.data.vocabulary import SPECIALS, Vocabulary

    write_lines(tmp_path / "train.src", ["a a a b b c", "a d"])
    write_lines(tmp_path / "train.tgt", ["x x b", "a"])
    [shared] = build_vocabularies(tmp_path, 2, shared=True)
    assert Vocabulary.load(shared).itos == list(SPECIALS) + ["a", "b"]  # a: 5, b: 3, then x: 2 is cut
    src, tgt = build_vocabularies(tmp_path, None, shared=False)
    assert Vocabulary.load(src).itos[4:] == ["a", "b", "c", "d"] and Vocabulary.load(tgt).itos[4:] == ["x", "a", "b"]
    (tmp_path / "train.tgt").unlink()
    with pytest.raises(CorpusError, match="training split, which is missing"):
        build_vocabularies(tmp_path, 10, shared=True)


def test_train_sample_keeps_that_many_aligned_training_pairs_in_order_and_nothing_else_changes(tmp_path):
    """datasets.*.train_sample (the matrix's cheaper turk-mini): training pairs i stay pairs (source i with target
    i), in their order, without repeats; validation and test untouched; more than the split holds is refused."""
    prepared = tmp_path / "prepared" / "turk"
    write_lines(prepared / "train.src", [f"s{i}" for i in range(10)])
    write_lines(prepared / "train.tgt", [f"t{i}" for i in range(10)])
    write_lines(prepared / "test.src", ["x", "y"])
    write_lines(prepared / "test.tgt", ["X", "Y"])
    out = segment_dataset("turk", "word", prepared_root=tmp_path / "prepared", out_root=tmp_path / "seg", workers=1,
                          progress=False, name="turk_sample", train_sample=4, train_sample_seed=7)
    sources = (out / "train.src").read_text().splitlines()
    targets = (out / "train.tgt").read_text().splitlines()
    indices = [int(s[1:]) for s in sources]
    assert len(sources) == 4 and targets == [f"t{i}" for i in indices]
    assert indices == sorted(set(indices))  # in the corpus's order, no pair twice
    assert (out / "test.src").read_text().splitlines() == ["x", "y"]
    other = segment_dataset("turk", "word", prepared_root=tmp_path / "prepared", out_root=tmp_path / "seg",
                            workers=1, progress=False, name="turk_other", train_sample=4, train_sample_seed=8)
    assert (other / "train.src").read_text().splitlines() != sources  # the seed draws (C(10,4) = 210 draws)
    with pytest.raises(CorpusError, match=r"train.src: train_sample asks for 11 training pairs; the training split "
                                          r"has 10"):
        segment_dataset("turk", "word", prepared_root=tmp_path / "prepared", out_root=tmp_path / "seg", workers=1,
                        progress=False, name="turk_big", train_sample=11)
    assert not (tmp_path / "seg" / "turk_big.word").exists()  # no partial output
