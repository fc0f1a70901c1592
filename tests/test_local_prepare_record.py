"""``kind: local`` preparation in-process (the CLI tests run it in a subprocess, which a mutation run cannot reach):
prepare.json checked whole, ``strip_specials`` and ``max_line_chars`` on a user's files, the refusal when no
pair is left, the summary line, and each refusal of :func:`paragen.data.local.read_checked` word for word.

Every expected value is worked out by hand from the lines each test writes; digests come from hashlib here."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from paragen.data.corpus import CorpusError
from test_local_data_faults import local_config, write_files

FILES = {
    "train.src": ["a b c", "d e f", "g h i"],
    "train.tgt": ["a c", "d f", "g i"],
    "valid.src": ["j k l", "a b c"],          # line 2's source is a training source: overlap train/valid 1, pair 0
    "valid.tgt": ["j l", "a x"],
    "valid.ref1": ["j k", "a b"],
    "test.src": ["m n o", "j k l"],           # line 2: a validation source with its target: valid/test 1 and 1
    "test.tgt": ["m o", "j l"],
    "test.ref1": ["m n", "j k"],
}


def prepared(directory: Path, **settings) -> tuple[Path, dict]:
    """Prepare ``mine`` (the faults tests' dataset over ``directory``, ``settings`` changed) in-process; its
    directory and prepare.json."""
    from paragen.data.local import prepare_local

    dataset = local_config(directory, dedup=False).datasets["mine"].model_copy(update=settings)
    prepare_local("mine", dataset, directory / "prepared")
    out = directory / "prepared" / "mine"
    return out, json.loads((out / "prepare.json").read_text())


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_prepare_json_is_the_whole_record_worked_by_hand(tmp_path):
    """Every key of prepare.json: the dataset, its kind, each file's sha256 (computed by the code when not given),
    per split its pairs, references (target + 1), no paper count, no notes, and the overlap between the splits
    (train/valid: 1 source, 0 pairs, guarded; train/test: 0; valid/test: 1 source, 1 pair, guarded)."""
    write_files(tmp_path, FILES)
    out, record = prepared(tmp_path, max_overlap=1)
    d = tmp_path.as_posix()
    assert record == {
        "dataset": "mine", "kind": "local",
        "files": {f"{d}/{name}": sha256(tmp_path / name) for name in
                  ("train.src", "train.tgt", "valid.src", "valid.tgt", "valid.ref1", "test.src", "test.tgt",
                   "test.ref1")},
        "splits": {"train": {"pairs": 3, "references": 1, "paper": None, "notes": []},
                   "valid": {"pairs": 2, "references": 2, "paper": None, "notes": []},
                   "test": {"pairs": 2, "references": 2, "paper": None, "notes": []}},
        "overlap": {"train/valid": {"sources": 1, "pairs": 0, "guarded": True},
                    "train/test": {"sources": 0, "pairs": 0, "guarded": True},
                    "valid/test": {"sources": 1, "pairs": 1, "guarded": True}}}


def test_overlap_above_max_overlap_is_refused_naming_the_setting(tmp_path):
    """The same files with the default max_overlap 0: valid/test's one shared line is refused."""
    write_files(tmp_path, FILES)
    with pytest.raises(CorpusError, match=r"mine: 1 of the 2 valid lines have a source sentence that is also in "
                                          r"train \(0 identical pairs\).*datasets\.mine\.max_overlap: 1"):
        prepared(tmp_path)


def test_strip_specials_and_max_line_chars_apply_to_a_users_files(tmp_path, capsys):
    """strip_specials lowercases and turns each non-alphanumeric into a space ("A-B c!" -> "a b c"); a pair left
    empty by it ("!!" -> "") is dropped and counted; max_line_chars 6 then drops train line 3 ("ghijkl m", 8
    characters). By hand: train 1 pair left, notes in that order; stdout says "mine train: 1 pairs, 1 reference(s)"."""
    files = {name: list(lines) for name, lines in FILES.items()}
    files["train.src"] = ["A-B c!", "!!", "ghijkl m"]
    files["train.tgt"] = ["A c", "d f", "g"]
    write_files(tmp_path, files)
    out, record = prepared(tmp_path, strip_specials=True, max_line_chars=6, max_overlap=2)
    assert (out / "train.src").read_text().splitlines() == ["a b c"]
    assert (out / "train.tgt").read_text().splitlines() == ["a c"]
    assert record["splits"]["train"]["notes"] == [
        "lowercased, special characters removed (003 §4.1 option)", "1 pairs with an empty side dropped",
        "1 pairs with a line over 6 characters dropped (max_line_chars)"]
    assert "mine train: 1 pairs, 1 reference(s)\n" in capsys.readouterr().out


def test_a_split_with_no_pair_left_is_refused_with_its_notes(tmp_path):
    """max_line_chars 2 leaves no training pair: refused, naming the split and why (3 lines over 2 characters)."""
    write_files(tmp_path, FILES)
    expected = (r"datasets\.mine\.files\.train: no pair is left after preparation "
                r"\(\['3 pairs with a line over 2 characters dropped \(max_line_chars\)'\]\)")
    with pytest.raises(CorpusError, match=expected):
        prepared(tmp_path, max_line_chars=2)
    assert not (tmp_path / "prepared" / "mine").exists()


def test_read_checked_refusals_word_for_word(tmp_path):
    """Missing file, a digest that differs (both digests and the key named), an empty file."""
    from paragen.config.local_data import LocalFile
    from paragen.data.local import read_checked

    missing = tmp_path / "absent.src"
    with pytest.raises(CorpusError) as error:
        read_checked(LocalFile(path=missing.as_posix()), "datasets.mine.files.train.source")
    assert str(error.value) == f"{missing}: file not found (datasets.mine.files.train.source)"
    text = tmp_path / "a.src"
    text.write_text("one\ntwo\n")
    wrong = "0" * 64
    with pytest.raises(CorpusError) as error:
        read_checked(LocalFile(path=text.as_posix(), sha256=wrong), "datasets.mine.files.test.target")
    assert str(error.value) == (f"{text}: sha256 {sha256(text)} differs from the {wrong} given in "
                                "datasets.mine.files.test.target.sha256 (the file changed, or the digest is another "
                                "file's)")
    assert read_checked(LocalFile(path=text.as_posix(), sha256=sha256(text)), "k") == ["one", "two"]
    empty = tmp_path / "e.src"
    empty.write_text("")
    with pytest.raises(CorpusError) as error:
        read_checked(LocalFile(path=empty.as_posix()), "datasets.mine.files.valid.source")
    assert str(error.value) == f"{empty}: empty file (datasets.mine.files.valid.source); expected one sentence per line"


def test_each_target_and_further_reference_is_checked_against_its_source_in_process(tmp_path):
    """valid.ref1 one line short: refused naming the source and that reference with both counts; the same for a
    short target. A reference file of a split is read under its own key (references[0])."""
    files = dict(FILES, **{"valid.ref1": ["j k"]})
    write_files(tmp_path, files)
    d = tmp_path.as_posix()
    with pytest.raises(CorpusError) as error:
        prepared(tmp_path, max_overlap=2)
    assert str(error.value).startswith(f"{d}/valid.src has 2 lines but {d}/valid.ref1 has 1: files must be aligned")
    write_files(tmp_path, dict(FILES, **{"test.tgt": ["m o"]}))
    with pytest.raises(CorpusError) as error:
        prepared(tmp_path, max_overlap=2)
    assert str(error.value).startswith(f"{d}/test.src has 2 lines but {d}/test.tgt has 1: files must be aligned")
    write_files(tmp_path, dict(FILES, **{"test.ref1": []}))
    with pytest.raises(CorpusError) as error:
        prepared(tmp_path, max_overlap=2)
    assert str(error.value) == (f"{d}/test.ref1: empty file (datasets.mine.files.test.references[0]); expected "
                                "one sentence per line")


def test_each_note_is_logged_with_its_dataset_and_split(tmp_path, caplog):
    """The notes of the strip_specials case above, each one log line "mine train: <note>", in order."""
    files = {name: list(lines) for name, lines in FILES.items()}
    files["train.src"] = ["A-B c!", "!!", "ghijkl m"]
    files["train.tgt"] = ["A c", "d f", "g"]
    write_files(tmp_path, files)
    with caplog.at_level("INFO", logger="paragen.data.local"):
        prepared(tmp_path, strip_specials=True, max_line_chars=6, max_overlap=2)
    assert caplog.messages == [
        "mine train: lowercased, special characters removed (003 §4.1 option)",
        "mine train: 1 pairs with an empty side dropped",
        "mine train: 1 pairs with a line over 6 characters dropped (max_line_chars)",
        "mine valid: lowercased, special characters removed (003 §4.1 option)",
        "mine test: lowercased, special characters removed (003 §4.1 option)"]


@pytest.mark.parametrize("missing, key", [("train.src", "train.source"), ("valid.tgt", "valid.target")])
def test_a_missing_source_or_target_is_named_by_its_key(tmp_path, missing, key):
    write_files(tmp_path, {name: lines for name, lines in FILES.items() if name != missing})
    with pytest.raises(CorpusError) as error:
        prepared(tmp_path, max_overlap=2)
    assert str(error.value) == f"{tmp_path / missing}: file not found (datasets.mine.files.{key})"
