"""Gigaword's and LCSTS's recipes on raw files written here: each Gigaword test set read from its own files,
SPM's validation/test sample from the validation pool (its size limit, its notes, the two samples disjoint),
and LCSTS's reader at the edges of its format (end of file where a tag is expected, blank lines between
records, a block spread over lines, an empty block, a record without a human label). Expected values are read
off the lines below.
"""

from __future__ import annotations

from itertools import islice
from pathlib import Path

import pytest

from paragen.data.corpus import CorpusError
from paragen.data.lcsts import read_lcsts
from paragen.data.prepare import RECIPES

from conftest import write_lines


def gigaword(raw: Path, split: str):
    return RECIPES["gigaword"].build(raw, split, {})


def test_zhou_s_and_rush_s_test_sets_read_their_own_files(tmp_path):
    g = tmp_path / "gigaword"
    write_lines(g / "zhou_test.article.txt", ["z article one", "z article two"])
    write_lines(g / "zhou_test.title.txt", ["z title one", "z title two"])
    write_lines(g / "input.txt", ["rush article"])
    write_lines(g / "test_rush.title.txt", ["rush title"])
    zhou = gigaword(tmp_path, "test_zhou")
    assert zhou.sources == ["z article one", "z article two"] and zhou.references == [["z title one", "z title two"]]
    rush = gigaword(tmp_path, "test_rush")
    assert rush.sources == ["rush article"] and rush.references == [["rush title"]] and rush.notes == []


def test_rush_s_titles_alone_when_the_articles_are_absent(tmp_path):
    """Without input.txt the titles are kept as references of empty sources, and the note says why; CRLF endings
    in the titles are stripped as anywhere else."""
    write_lines(tmp_path / "gigaword" / "test_rush.title.txt", ["t one", "t two"], "\r\n")
    rush = gigaword(tmp_path, "test_rush")
    assert rush.sources == ["", ""] and rush.references == [["t one", "t two"]]
    assert rush.notes == ["references only: input.txt (the test articles) is absent"]


def _pool(raw: Path, pairs: int) -> None:
    write_lines(raw / "gigaword" / "valid.article.filter.txt", [f"article {i}" for i in range(pairs)])
    write_lines(raw / "gigaword" / "valid.title.filter.txt", [f"title {i}" for i in range(pairs)])


def test_spm_s_samples_need_18000_pairs_and_are_disjoint(tmp_path):
    """Exactly 18,000 pool pairs suffice: 8,000 validation and 10,000 test pairs, no pair in both, every pool pair
    in one of them, each pair still aligned; the notes say where they came from and count <unk> (none here)."""
    _pool(tmp_path, 18000)
    valid, test = gigaword(tmp_path, "valid"), gigaword(tmp_path, "test_ours")
    assert (len(valid), len(test)) == (8000, 10000)
    assert set(valid.sources).isdisjoint(test.sources)
    assert len(set(valid.sources) | set(test.sources)) == 18000
    assert all(t == s.replace("article", "title") for s, t in zip(valid.sources, valid.references[0]))
    assert valid.notes[0] == "sampled from the validation split with seed 2018"
    assert valid.notes[1].startswith("0 of 8000 pairs contain <unk>/UNK")
    _pool(tmp_path, 17999)
    with pytest.raises(CorpusError) as error:
        gigaword(tmp_path, "valid")
    assert str(error.value) == (f"{tmp_path / 'gigaword'}/valid.article.filter.txt: 17999 pairs, need 18,000 to "
                                "sample SPM's 8,000 validation and 10,000 test pairs")


RECORD = ["<doc id=7>", "    <human_label>4</human_label>", "    <summary>", "        可穿戴", "        技术",
          "    </summary>", "    <short_text>", "        本文总结", "    </short_text>", "</doc>"]


def test_lcsts_validation_is_part_ii(tmp_path):
    write_lines(tmp_path / "lcsts" / "PART_II.txt", RECORD)
    data = RECIPES["lcsts"].build(tmp_path, "valid", {})
    assert data.sources == ["本文总结"] and data.references == [["可穿戴技术"]]  # the summary's lines joined as is


def test_blank_lines_between_records_are_skipped(tmp_path):
    """A leading blank line and blank lines between records: both records read, once each (at most 5 are taken,
    so a reader that started over would show it rather than run forever)."""
    other = [line.replace("id=7", "id=8").replace("4<", "3<") for line in RECORD]
    path = write_lines(tmp_path / "PART_II.txt", ["", *RECORD, "", "   ", *other])
    records = list(islice(read_lcsts(path), 5))
    assert [(r.doc_id, r.human_label, r.line) for r in records] == [(7, 4, 2), (8, 3, 14)]


def test_a_record_without_a_human_label_has_none(tmp_path):
    path = write_lines(tmp_path / "PART_I.txt", [RECORD[0], *RECORD[2:]])
    [record] = read_lcsts(path)
    assert record.human_label is None and record.summary == "可穿戴技术"


@pytest.mark.parametrize("lines, expected", [
    (RECORD[:1], "2: expected <summary>, found 'end of file'"),  # the file ends after <doc id=N>
    (RECORD[:2], "3: expected <summary>, found 'end of file'"),  # ... after the human label
    (RECORD[:2] + RECORD[6:], "3: expected <summary>, found '<short_text>'"),
    (RECORD[:6], "7: expected <short_text>, found 'end of file'"),
    (RECORD[:3] + RECORD[5:], "4: empty <summary>"),
])
def test_a_broken_record_is_named_by_line_and_what_was_found(tmp_path, lines, expected):
    path = write_lines(tmp_path / "PART_III.txt", lines)
    with pytest.raises(CorpusError) as error:
        list(read_lcsts(path))
    assert str(error.value) == f"{path}:{expected}"
