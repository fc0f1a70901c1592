"""segment_dataset's record and file handling, checked whole (the data group's mutation run left these unpinned):
``segment.json`` with every setting and line count, BPE learned on lowercased text when asked, only split and
reference files segmented, no stale file after a rerun, and the filters' edge cases."""

import json
import logging
import random
from pathlib import Path

import pytest

from paragen.data.corpus import CorpusError
from paragen.data.segment import segment_dataset

from conftest import write_lines

CORPUS = ["The LOWER the Slower", "Newest WIDEST lowest", "the Newer wider ROAD", "LOWER newer Wider"] * 10


def _prepared(tmp_path: Path, name: str = "toy") -> Path:
    prepared = tmp_path / "prepared" / name
    write_lines(prepared / "train.src", CORPUS)
    write_lines(prepared / "train.tgt", CORPUS[::-1])
    write_lines(prepared / "valid.src", ["The Road", "a b"])
    write_lines(prepared / "valid.tgt", ["road", "b"])
    write_lines(prepared / "test.src", ["The NEWEST road"])
    write_lines(prepared / "test.tgt", ["new road"])
    write_lines(prepared / "test.ref.0", ["newer road"])
    (prepared / "prepare.json").write_text('{"pairs": 40}')  # the preparation's record: not a split
    (prepared / "notes.txt").write_text("not a split either\n")
    return prepared


def _segment(tmp_path: Path, scheme: str, **options) -> Path:
    return segment_dataset("toy", scheme, prepared_root=tmp_path / "prepared", out_root=tmp_path / "seg",
                           workers=1, progress=False, **options)


def test_segment_json_records_every_setting_and_each_files_line_count(tmp_path):
    """Written out by hand: 40 training pairs, 2 validation, 1 test with one reference; BPE's merge count only
    for BPE (None for words)."""
    _prepared(tmp_path)
    counts = {"test.ref.0": 1, "test.src": 1, "test.tgt": 1, "train.src": 40, "train.tgt": 40, "valid.src": 2,
              "valid.tgt": 2}
    out = _segment(tmp_path, "bpe", merges=12, lowercase=True)
    assert json.loads((out / "segment.json").read_text()) == {
        "dataset": "toy", "scheme": "bpe", "lowercase": True, "merges": 12, "dropped_longer_target": 0,
        "copy_task": False, "train_sample": None, "train_sample_seed": 1, "files": counts}
    words = _segment(tmp_path, "word", merges=12, name="toy_words", train_sample=3, train_sample_seed=5)
    assert json.loads((words / "segment.json").read_text()) == {
        "dataset": "toy", "scheme": "word", "lowercase": False, "merges": None, "dropped_longer_target": 0,
        "copy_task": False, "train_sample": 3, "train_sample_seed": 5,
        "files": {**counts, "train.src": 3, "train.tgt": 3}}


def test_only_split_and_reference_files_are_segmented(tmp_path):
    """prepare.json and notes.txt sit beside the splits: neither is segmented or copied."""
    _prepared(tmp_path)
    out = _segment(tmp_path, "word")
    assert sorted(p.name for p in out.iterdir()) == ["segment.json", "test.ref.0", "test.src", "test.tgt",
                                                     "train.src", "train.tgt", "valid.src", "valid.tgt"]


def test_bpe_is_learned_on_lowercased_text_when_lowercase(tmp_path):
    """With lowercase the codes hold no capital letter (they were learned on 'the lower the slower' ...); without
    it they do ('LOWER' occurs 20 times, so its pairs are merged early)."""
    _prepared(tmp_path)
    lowered = (_segment(tmp_path, "bpe", merges=30, lowercase=True) / "bpe.codes").read_text()
    cased = (_segment(tmp_path, "bpe", merges=30, name="toy_cased") / "bpe.codes").read_text()
    body = lambda text: "".join(line for line in text.splitlines() if not line.startswith("#"))  # noqa: E731
    assert body(lowered) == body(lowered).lower() and body(cased) != body(cased).lower()
    out = tmp_path / "seg" / "toy.bpe"
    assert "newest" in (out / "test.src").read_text().replace("@@ ", "")  # applied to lowercased text too


def test_a_rerun_leaves_no_file_of_the_previous_run(tmp_path):
    """A reference dropped from the prepared data must not survive in the segmented folder (it would be scored)."""
    prepared = _prepared(tmp_path)
    out = _segment(tmp_path, "word")
    assert (out / "test.ref.0").exists()
    (prepared / "test.ref.0").unlink()
    out = _segment(tmp_path, "word")
    assert not (out / "test.ref.0").exists()
    assert "test.ref.0" not in json.loads((out / "segment.json").read_text())["files"]


def test_drop_longer_target_logs_its_count_and_leaves_a_split_without_training_alone(tmp_path, caplog):
    """Two training pairs with a longer target (5 > 4 and 2 > 1 words) are dropped and logged; a dataset with no
    training split is segmented as it is (nothing to drop, dropped 0)."""
    prepared = tmp_path / "prepared" / "toy"
    write_lines(prepared / "train.src", ["a b c d", "a", "a b", "x y"])
    write_lines(prepared / "train.tgt", ["a b c d e", "a b", "a b", "x"])
    with caplog.at_level(logging.INFO, logger="paragen.data.segment"):
        out = _segment(tmp_path, "word", drop_longer_target=True)
    assert (out / "train.src").read_text().splitlines() == ["a b", "x y"]
    assert "toy train: 2 pairs with a target longer than the source dropped" in caplog.text
    only_test = tmp_path / "prepared" / "evalonly"
    write_lines(only_test / "test.src", ["a"])
    write_lines(only_test / "test.tgt", ["a b c"])
    out = segment_dataset("evalonly", "word", prepared_root=tmp_path / "prepared", out_root=tmp_path / "seg",
                          workers=1, progress=False, drop_longer_target=True)
    assert (out / "test.tgt").read_text().splitlines() == ["a b c"]
    assert json.loads((out / "segment.json").read_text())["dropped_longer_target"] == 0


def test_train_sample_draws_as_documented_and_needs_a_training_split(tmp_path):
    """The kept pairs are random.Random(seed).sample(range(n), k), sorted (written here independently); a dataset
    without a training split cannot be sampled: the error names the missing file."""
    _prepared(tmp_path)
    out = _segment(tmp_path, "word", name="toy_sample", train_sample=5, train_sample_seed=3)
    keep = sorted(random.Random(3).sample(range(40), 5))
    assert (out / "train.src").read_text().splitlines() == [CORPUS[i] for i in keep]
    assert (out / "train.tgt").read_text().splitlines() == [CORPUS[::-1][i] for i in keep]
    only_test = tmp_path / "prepared" / "evalonly"
    write_lines(only_test / "test.src", ["a"])
    write_lines(only_test / "test.tgt", ["a"])
    with pytest.raises(CorpusError, match=r"evalonly/train.src: 'train.src'"):
        segment_dataset("evalonly", "word", prepared_root=tmp_path / "prepared", out_root=tmp_path / "seg",
                        workers=1, progress=False, train_sample=1)


def test_reference_files_sort_by_number_and_fall_back_to_the_target(tmp_path):
    """test.ref.0, .2, .10 sort as numbers (0, 2, 10; as text .10 would come before .2); valid's references are
    not test's; a split without .ref.k files is scored against its .tgt."""
    from paragen.data.corpus import reference_files

    for name in ("test.ref.10", "test.ref.2", "test.ref.0", "valid.ref.1", "train.tgt"):
        (tmp_path / name).write_text("x\n")
    assert reference_files(tmp_path, "test") == [str(tmp_path / f"test.ref.{k}") for k in (0, 2, 10)]
    assert reference_files(tmp_path, "valid") == [str(tmp_path / "valid.ref.1")]
    assert reference_files(str(tmp_path), "train") == [str(tmp_path / "train.tgt")]
