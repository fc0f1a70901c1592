"""`paragen.data.prepare.prepare_dataset` as `paragen evalsets` calls it (default folders, default overlap limit,
unavailable splits skipped), what it prints and logs per split, and the refusals of the readers under it
(`read_raw`, LCSTS's labels and closing tags, turk-mini's alignment with ASSET). Raw files are written here, a few
lines each; expected values are read off them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from paragen.data.corpus import CorpusError, read_raw
from paragen.data.lcsts import read_lcsts
from paragen.data.prepare import RECIPES, prepare_dataset

from conftest import write_lines
from test_gigaword_lcsts_cases import RECORD
from test_prepare_recipe_cases import LABEL, turk_files


def pwkp(raw: Path, split: str, pairs: list[tuple[str, str]]) -> None:
    write_lines(raw / "pwkp" / f"{split}.src", [s for s, _ in pairs])
    write_lines(raw / "pwkp" / f"{split}.dst", [t for _, t in pairs])


def test_the_default_folders_are_data_raw_and_data_prepared(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pwkp(Path("data/raw"), "test", [("a b", "a")])
    prepare_dataset("pwkp", ["test"], check_counts=False)
    assert (tmp_path / "data" / "prepared" / "pwkp" / "test.src").read_text() == "a b\n"


def test_by_default_no_source_may_be_shared_between_splits(tmp_path):
    pwkp(tmp_path, "valid", [("a b", "a"), ("c d", "c")])
    pwkp(tmp_path, "test", [("c d", "d")])
    with pytest.raises(CorpusError, match="--max-overlap"):
        prepare_dataset("pwkp", ["valid", "test"], tmp_path, tmp_path / "out", check_counts=False)
    prepare_dataset("pwkp", ["valid", "test"], tmp_path, tmp_path / "out", check_counts=False, max_overlap=1)


def test_an_unknown_dataset_lists_every_recipe():
    with pytest.raises(CorpusError) as error:
        prepare_dataset("nope")
    assert str(error.value) == ("unknown dataset 'nope'; allowed values: asset, ew_sew, ew_sew_hwang, gigaword, "
                                "lcsts, ppdb, pwkp, turk, turk_mini, turkcorpus, wikilarge")


def test_an_unavailable_split_is_reported_and_the_next_one_prepared(tmp_path, capsys):
    """pwkp's valid files are absent, its test files present: valid is reported on stderr, test prepared after it,
    and stdout's line for test gives the paper's count (100)."""
    pwkp(tmp_path, "test", [("a b", "a")])
    summary = prepare_dataset("pwkp", ["valid", "test"], tmp_path, tmp_path / "out", check_counts=False,
                              skip_unavailable=True)
    assert list(summary) == ["test"]
    out, err = capsys.readouterr()
    assert err == f"pwkp valid: not prepared: {tmp_path / 'pwkp'}/valid.src: file not found (run `paragen fetch` " \
                  "first)\n"
    assert out == "pwkp test: 1 pairs, 1 reference(s) (paper: 100)\n"


def test_a_split_without_a_paper_count_prints_none_and_notes_are_logged(tmp_path, capsys, caplog):
    turk_files(tmp_path, "test", ["x y"])
    with caplog.at_level("INFO", logger="paragen.data.prepare"):
        prepare_dataset("turk_mini", ["test"], tmp_path, tmp_path / "out")
    assert capsys.readouterr().out == "turk_mini test: 1 pairs, 8 reference(s)\n"
    assert caplog.messages[0] == f"turk_mini test: {LABEL}"


def test_a_missing_raw_file_says_to_fetch_it(tmp_path):
    with pytest.raises(CorpusError) as error:
        read_raw(tmp_path / "absent.txt", [])
    assert str(error.value) == f"{tmp_path / 'absent.txt'}: file not found (run `paragen fetch` first)"


@pytest.mark.parametrize("lines, expected", [
    ([RECORD[0], "    <human_label>x</human_label>", *RECORD[2:]],
     "2: expected '<human_label>1-5</human_label>', found '<human_label>x</human_label>'"),
    ([RECORD[0], "    <human_label>6</human_label>", *RECORD[2:]], "2: human label 6 outside 1-5"),
    (RECORD[:-1], "10: expected </doc>, found 'end of file'"),
    (RECORD[:-1] + RECORD, "10: expected </doc>, found '<doc id=7>'"),
])
def test_lcsts_labels_and_closing_tags(tmp_path, lines, expected):
    path = write_lines(tmp_path / "PART_II.txt", lines)
    with pytest.raises(CorpusError) as error:
        list(read_lcsts(path))
    assert str(error.value) == f"{path}:{expected}"


def test_turk_mini_holds_out_the_last_200_tune_sentences_and_needs_asset_aligned(tmp_path):
    """201 Turk tune sentences: the first one (x 8 Turk + 10 ASSET references) trains, the last 200 validate,
    labelled as the stand-in; with one ASSET sentence too few the recipe refuses, naming both counts."""
    turk_files(tmp_path, "tune", [f"s{i}" for i in range(201)])
    for k in range(10):
        write_lines(tmp_path / "asset" / f"asset.valid.simp.{k}", [f"A{i} {k}" for i in range(201)])
    write_lines(tmp_path / "asset" / "asset.valid.orig", [f"s{i}" for i in range(201)])
    valid = RECIPES["turk_mini"].build(tmp_path, "valid", {})
    assert valid.sources == [f"s{i}" for i in range(1, 201)] and valid.notes == [LABEL]
    train = RECIPES["turk_mini"].build(tmp_path, "train", {})
    assert train.sources == ["s0"] * 18 and train.references[0][7:9] == ["s0 7", "a0 0"]
    write_lines(tmp_path / "asset" / "asset.valid.orig", [f"s{i}" for i in range(200)])
    for k in range(10):
        write_lines(tmp_path / "asset" / f"asset.valid.simp.{k}", [f"A{i} {k}" for i in range(200)])
    with pytest.raises(CorpusError) as error:
        RECIPES["turk_mini"].build(tmp_path, "valid", {})
    assert str(error.value) == "ASSET valid has 200 sentences, Turk tune 201: they must align"
