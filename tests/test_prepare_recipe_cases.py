"""Recipes of `paragen.data.prepare` on raw files written here, a few lines each: WikiLarge's training pairs,
EW-SEW's Turk validation and test sets and its identical-pair filter, PPDB's pair file and its refusals, the
`<unk>` count of SPM's Gigaword sets and the turk-mini label. The mirror holds no WikiLarge training set and
the real files are too large to reason about line by line, so each expected value is read off the lines below.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from paragen.data.corpus import CorpusError
from paragen.data.hwang import read_hwang
from paragen.data.prepare import RECIPES, Split, _count_unk

from conftest import write_lines

LABEL = "turk-mini stand-in suite: NOT the papers' setup (Turk tune + ASSET valid as training data)"


def turk_files(raw: Path, name: str, sources: list[str]) -> None:
    """A Turk split (``tune`` or ``test``): ``sources`` and 8 references, reference k of line i being
    ``"<source> k"``."""
    write_lines(raw / "turkcorpus" / f"{name}.8turkers.tok.norm", sources)
    for k in range(8):
        write_lines(raw / "turkcorpus" / f"{name}.8turkers.tok.turk.{k}", [f"{s} {k}" for s in sources])


def test_wikilarge_trains_on_its_own_pairs_and_tunes_on_turk(tmp_path):
    write_lines(tmp_path / "wikilarge" / "train.src", ["the cat , which was black , sat .", "he left ."])
    write_lines(tmp_path / "wikilarge" / "train.dst", ["the black cat sat .", "he went ."])
    turk_files(tmp_path, "tune", ["a b", "c d"])
    train = RECIPES["wikilarge"].build(tmp_path, "train", {})
    assert train.sources == ["the cat , which was black , sat .", "he left ."]
    assert train.references == [["the black cat sat .", "he went ."]]
    valid = RECIPES["wikilarge"].build(tmp_path, "valid", {})
    assert valid.sources == ["a b", "c d"] and valid.references[7] == ["a b 7", "c d 7"]


def test_ew_sew_validates_and_tests_on_turk(tmp_path):
    turk_files(tmp_path, "test", ["x y", "z"])
    turk_files(tmp_path, "tune", ["t u"])
    test = RECIPES["ew_sew_hwang"].build(tmp_path, "test", {})
    assert test.sources == ["x y", "z"] and len(test.references) == 8 and test.references[0] == ["x y 0", "z 0"]
    assert RECIPES["ew_sew_hwang"].build(tmp_path, "valid", {}).sources == ["t u"]


def test_ew_sew_drops_identical_pairs_only_when_asked_and_notes_crlf_endings(tmp_path):
    """good: 3 lines with CRLF endings, scores 0.9, 0.8, 0.7; the second pair's sides are identical.
    good_partial: 1 line. Asked to drop identical pairs: 3 of 4 kept, the identical one gone, and the notes say
    so, after the CRLF note of the good file."""
    hwang = tmp_path / "ew_sew_hwang"
    write_lines(hwang / "aligned-good-0.67.txt", ["a b c\ta c\t0.9", "same\tsame\t0.8", "d e f\td f\t0.7"], "\r\n")
    write_lines(hwang / "aligned-good_partial-0.53.txt", ["g h i\tg i\t0.5"])
    data = RECIPES["ew_sew_hwang"].build(tmp_path, "train", {"drop_identical": True})
    assert data.sources == ["a b c", "d e f", "g h i"] and data.references == [["a c", "d f", "g i"]]
    assert data.notes[0] == "aligned-good-0.67.txt: 3 CRLF line endings stripped"
    assert data.notes[-1] == "1 pairs whose two sides are identical removed"
    kept = RECIPES["ew_sew_hwang"].build(tmp_path, "train", {})
    assert kept.sources == ["a b c", "same", "d e f", "g h i"]


def test_a_malformed_hwang_line_is_quoted_to_120_characters(tmp_path):
    path = tmp_path / "aligned-good-0.67.txt"
    long_line = "w" * 130 + "\tshort"  # two fields, 136 characters
    write_lines(path, ["a\tb\t0.5", long_line])
    with pytest.raises(CorpusError) as error:
        read_hwang(path, [])
    assert str(error.value) == (f"{path}:2: expected 3 tab-separated fields (English sentence, Simple English "
                                f"sentence, similarity score), found 2: '{'w' * 120}'")


def test_ppdb_pairs_in_column_order_with_the_crlf_note(tmp_path):
    path = tmp_path / "ppdb" / "ppdb-1.0-xxxl-lexical.synonyms.tsv"
    write_lines(path, ["big\tlarge", "small\tlittle"], "\r\n")
    data = RECIPES["ppdb"].build(tmp_path, "train", {})
    assert data.sources == ["big", "small"] and data.references == [["large", "little"]]
    assert data.notes == ["ppdb-1.0-xxxl-lexical.synonyms.tsv: 2 CRLF line endings stripped"]


@pytest.mark.parametrize("bad", ["odd", "a\t", "a\tb\tc"])
def test_a_malformed_ppdb_line_is_named_with_its_number(tmp_path, bad):
    """Line 2 without exactly two non-empty tab-separated words: one field, an empty second word, three fields."""
    path = tmp_path / "ppdb" / "ppdb-1.0-xxxl-lexical.synonyms.tsv"
    write_lines(path, ["big\tlarge", bad, "small\tlittle"])
    with pytest.raises(CorpusError) as error:
        RECIPES["ppdb"].build(tmp_path, "train", {})
    assert str(error.value) == f"{path}:2: expected 'word<TAB>word', found {bad!r}"


def test_unk_pairs_are_counted_over_both_sides():
    """Pair 1 has <unk> in its source, pair 2 UNK as the first word of its target (right after the source's last
    word), pair 3 neither, pair 4 a word that only contains UNK: 2 of 4."""
    data = Split(["a <unk> b", "c d", "e f", "g"], [["x", "UNK y", "z", "UNKNOWN"]], [])
    assert _count_unk(data) == ("2 of 4 pairs contain <unk>/UNK (the release replaced rare words; SPM rebuilt its "
                                "sets from LDC Gigaword without that replacement, which needs the LDC corpus)")


def test_turk_mini_s_test_set_is_turk_s_labelled_as_a_stand_in(tmp_path):
    turk_files(tmp_path, "test", ["x y"])
    data = RECIPES["turk_mini"].build(tmp_path, "test", {})
    assert data.sources == ["x y"] and data.notes == [LABEL]
