"""Preparation on fixtures written in each dataset's true format, and on the real mirror when present."""

from pathlib import Path

import pytest

from paragen.data.corpus import CorpusError
from paragen.data.fetch import FetchError
from paragen.data.lcsts import read_lcsts
from paragen.data.prepare import CountMismatch, prepare_dataset
from paragen.data.registry import fetch_dataset

from conftest import MIRROR


LCSTS = """<doc id=0>
    <human_label>5</human_label>
    <summary>
        可穿戴技术十大设计原则
    </summary>
    <short_text>
        本文总结了十个可穿戴产品的设计原则
    </short_text>
</doc>
<doc id=1>
    <human_label>2</human_label>
    <summary>
        经济学人
    </summary>
    <short_text>
        一篇关于经济的短文
    </short_text>
</doc>
"""


def _write(path: Path, text: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))


def test_lcsts_keeps_human_score_3_and_up(tmp_path):
    _write(tmp_path / "raw/lcsts/PART_III.txt", LCSTS)
    summary = prepare_dataset("lcsts", ["test"], tmp_path / "raw", tmp_path / "out", check_counts=False)
    assert summary["test"]["pairs"] == 1 and "1 of 2 records with human score < 3 dropped" in summary["test"]["notes"]
    assert (tmp_path / "out/lcsts/test.tgt").read_text(encoding="utf-8") == "可穿戴技术十大设计原则\n"


@pytest.mark.parametrize("broken, line, expected", [
    (LCSTS.replace("    </summary>\n", "", 1), 5, "expected </summary>, found '<short_text>'"),
    (LCSTS.replace("<human_label>5</human_label>", "<human_label>9</human_label>"), 2, "outside 1-5"),
    (LCSTS.replace("<doc id=1>", "<doc>"), 10, "expected '<doc id=N>'"),
    (LCSTS[: LCSTS.index("    </short_text>\n</doc>\n<doc id=1>")], 6, "<short_text> opened here but never closed"),
])
def test_broken_lcsts_record_names_file_and_line(tmp_path, broken, line, expected):
    path = tmp_path / "PART_III.txt"
    _write(path, broken)
    with pytest.raises(CorpusError) as error:
        list(read_lcsts(path))
    assert f"{path}:{line}:" in str(error.value) and expected in str(error.value)


def test_pwkp_duplicates_crlf_and_empty_lines_are_counted(tmp_path):
    raw = tmp_path / "raw/pwkp"
    _write(raw / "train.src", b"a b\r\nc d\r\na b\r\n\r\ne f\r\n")
    _write(raw / "train.dst", b"a\r\nc\r\na\r\nx\r\ne\r\n")
    summary = prepare_dataset("pwkp", ["train"], tmp_path / "raw", tmp_path / "out", check_counts=False)
    notes = summary["train"]["notes"]
    assert "train.src: 5 CRLF line endings stripped" in notes
    assert "1 pairs with an empty side dropped" in notes and "1 duplicate pairs removed" in notes
    assert (tmp_path / "out/pwkp/train.src").read_text() == "a b\nc d\ne f\n"


def test_misaligned_files_are_named(tmp_path):
    _write(tmp_path / "raw/pwkp/valid.src", "a\nb\n")
    _write(tmp_path / "raw/pwkp/valid.dst", "a\n")
    with pytest.raises(CorpusError, match=r"valid\.src has 2 lines but .*valid\.dst has 1"):
        prepare_dataset("pwkp", ["valid"], tmp_path / "raw", tmp_path / "out", check_counts=False)


def test_bad_utf8_is_located(tmp_path):
    _write(tmp_path / "raw/pwkp/test.src", b"ok\n\xc3\x28\n")
    _write(tmp_path / "raw/pwkp/test.dst", b"ok\nok\n")
    with pytest.raises(CorpusError, match=r"test\.src:2: not valid UTF-8"):
        prepare_dataset("pwkp", ["test"], tmp_path / "raw", tmp_path / "out", check_counts=False)


def test_count_mismatch_is_an_error_unless_waived(tmp_path):
    _write(tmp_path / "raw/pwkp/test.src", "a\n")
    _write(tmp_path / "raw/pwkp/test.dst", "b\n")
    with pytest.raises(CountMismatch, match="1 pairs after preparation, the paper reports 100"):
        prepare_dataset("pwkp", ["test"], tmp_path / "raw", tmp_path / "out")
    assert not (tmp_path / "out/pwkp/test.src").exists()
    assert prepare_dataset("pwkp", ["test"], tmp_path / "raw", tmp_path / "out", check_counts=False)["test"]["pairs"] == 1


def test_wikilarge_option_lowercases_and_strips_specials(tmp_path):
    turk = tmp_path / "raw/turkcorpus"
    _write(turk / "test.8turkers.tok.norm", "The Cat -LRB- big -RRB- sat .\n")
    for k in range(8):
        _write(turk / f"test.8turkers.tok.turk.{k}", "The cat sat .\n")
    prepare_dataset("wikilarge", ["test"], tmp_path / "raw", tmp_path / "out",
                    {"lowercase_strip_specials": True})
    assert (tmp_path / "out/wikilarge/test.src").read_text() == "the cat lrb big rrb sat\n"
    assert (tmp_path / "out/wikilarge/test.ref.7").read_text() == "the cat sat\n"


def test_unknown_split_lists_allowed(tmp_path):
    with pytest.raises(CorpusError, match=r"allowed values: \['valid', 'test'\]"):
        prepare_dataset("asset", ["train"], tmp_path, tmp_path)


@pytest.mark.skipif(not (MIRROR / "turkcorpus").is_dir(), reason=f"public-data mirror not found at {MIRROR}")
def test_real_evaluation_sets_have_the_papers_counts(tmp_path):
    raw = tmp_path / "raw"
    for name in ("turkcorpus", "asset", "pwkp", "wikilarge", "lcsts", "gigaword", "ppdb"):
        try:
            fetch_dataset(name, [str(MIRROR)], "eval", raw, progress=False)
        except FetchError:
            pass  # LCSTS PART II and the Gigaword release are placed by hand; PART III is fetched
    counts = {}
    for name, splits in (("turkcorpus", ["valid", "test"]), ("asset", ["valid", "test"]),
                         ("pwkp", ["valid", "test"]), ("wikilarge", ["valid", "test", "valid_zl", "test_zl"]),
                         ("lcsts", ["test"]),
                         ("gigaword", ["test_rush"]), ("ppdb", None), ("turk_mini", None)):
        for split, row in prepare_dataset(name, splits, raw, tmp_path / "out").items():
            counts[f"{name}.{split}"] = (row["pairs"], row["references"])
    assert counts == {"turkcorpus.valid": (2000, 8), "turkcorpus.test": (359, 8), "asset.valid": (2000, 10),
                      "asset.test": (359, 10), "pwkp.valid": (205, 1), "pwkp.test": (100, 1),
                      "wikilarge.valid": (2000, 8), "wikilarge.test": (359, 8), "wikilarge.valid_zl": (992, 1),
                      "wikilarge.test_zl": (359, 1), "lcsts.test": (725, 1),
                      "gigaword.test_rush": (1951, 1), "ppdb.pairs": (210372, 1),
                      "turk_mini.train": (32400, 1), "turk_mini.valid": (200, 8), "turk_mini.test": (359, 8)}


def test_gigaword_samples_disjoint_valid_and_test_from_the_validation_split(tmp_path):
    raw = tmp_path / "raw/gigaword"
    n = 18500
    _write(raw / "valid.article.filter.txt", "".join(f"article number {i} about UNK\n" if i % 10 == 0
                                                     else f"article number {i}\n" for i in range(n)))
    _write(raw / "valid.title.filter.txt", "".join(f"title {i}\n" for i in range(n)))
    summary = prepare_dataset("gigaword", ["valid", "test_ours"], tmp_path / "raw", tmp_path / "out")
    assert summary["valid"]["pairs"] == 8000 and summary["test_ours"]["pairs"] == 10000
    valid = set((tmp_path / "out/gigaword/valid.src").read_text().splitlines())
    test = set((tmp_path / "out/gigaword/test_ours.src").read_text().splitlines())
    assert not valid & test
    assert any("contain <unk>/UNK" in note for note in summary["valid"]["notes"])
    again = tmp_path / "again"
    prepare_dataset("gigaword", ["valid"], tmp_path / "raw", again)
    assert (again / "gigaword/valid.src").read_text() == (tmp_path / "out/gigaword/valid.src").read_text()


def test_gigaword_rush_test_without_articles_is_references_only(tmp_path):
    _write(tmp_path / "raw/gigaword/test_rush.title.txt", "a title\nanother\n")
    summary = prepare_dataset("gigaword", ["test_rush"], tmp_path / "raw", tmp_path / "out", check_counts=False)
    assert summary["test_rush"]["pairs"] == 2 and "references only" in summary["test_rush"]["notes"][0]
    assert not (tmp_path / "out/gigaword/test_rush.src").exists()
    with pytest.raises(CorpusError, match="need 18,000"):
        _write(tmp_path / "raw/gigaword/valid.article.filter.txt", "a\n")
        _write(tmp_path / "raw/gigaword/valid.title.filter.txt", "b\n")
        prepare_dataset("gigaword", ["valid"], tmp_path / "raw", tmp_path / "out")


def test_turk_mini_holds_out_validation_sentences_and_is_labelled(tmp_path):
    raw = tmp_path / "raw"
    n = 205
    _write(raw / "turkcorpus/tune.8turkers.tok.norm", "".join(f"source {i} -lrb- x -rrb-\n" for i in range(n)))
    for k in range(8):
        _write(raw / f"turkcorpus/tune.8turkers.tok.turk.{k}", "".join(f"turk {k} of {i}\n" for i in range(n)))
    _write(raw / "asset/asset.valid.orig", "".join(f"Source {i} (x)\n" for i in range(n)))
    for k in range(10):
        _write(raw / f"asset/asset.valid.simp.{k}", "".join(f"Asset {k} of {i} (y).\n" for i in range(n)))
    summary = prepare_dataset("turk_mini", ["train", "valid"], raw, tmp_path / "out")
    assert summary["train"]["pairs"] == 5 * 18 and summary["valid"]["pairs"] == 200
    assert "NOT the papers' setup" in summary["train"]["notes"][0]
    train_src = (tmp_path / "out/turk_mini/train.src").read_text().splitlines()
    valid_src = set((tmp_path / "out/turk_mini/valid.src").read_text().splitlines())
    assert not set(train_src) & valid_src
    targets = (tmp_path / "out/turk_mini/train.tgt").read_text().splitlines()
    assert targets[8] == "asset 0 of 0 -lrb- y -rrb- ."  # ASSET written in Turk's conventions


def test_over_long_lines_are_dropped_and_counted_through_the_cli(tmp_path, caplog):
    from paragen.cli import main

    raw = tmp_path / "raw/pwkp"
    _write(raw / "train.src", "a b\n" + "x" * 31 + "\nc d\n")
    _write(raw / "train.dst", "a\nshort\n" + "y " * 20 + "\n")
    with caplog.at_level("INFO"):
        code = main(["prepare", "pwkp", "--split", "train", "--raw-root", str(tmp_path / "raw"),
                     "--out-root", str(tmp_path / "out"), "--no-check", "--max-line-chars", "30"])
    assert code in (0, None)
    assert (tmp_path / "out/pwkp/train.src").read_text() == "a b\n"  # 31-char source and 40-char target dropped
    assert "2 pairs with a line over 30 characters dropped (max_line_chars)" in caplog.text


def test_the_line_limit_is_a_params_yaml_key_passed_to_prepare():
    import yaml

    from paragen.config import parse_config
    from paragen.pipeline.data_stages import real_data_stages

    raw = yaml.safe_load(Path("params.yaml").read_text())
    raw["data"] = ["pwkp"]
    raw["datasets"]["pwkp"]["max_line_chars"] = 123
    (stage,) = [s for s in real_data_stages(parse_config(raw)) if s.name == "prepare_pwkp"]
    assert "--max-line-chars 123" in stage.cmd
