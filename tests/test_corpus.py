import pytest

from paragen.data.corpus import CorpusError, read_split


def _write(directory, split, src, tgt):
    (directory / f"{split}.src").write_bytes(src)
    (directory / f"{split}.tgt").write_bytes(tgt)


def test_crlf_is_stripped(tmp_path):
    _write(tmp_path, "train", b"a b\r\nc\r\n", b"x\r\ny z\r\n")
    corpus = read_split(tmp_path, "train")
    assert corpus.sources == [["a", "b"], ["c"]] and corpus.targets == [["x"], ["y", "z"]]


def test_misaligned_files_are_named(tmp_path):
    _write(tmp_path, "train", b"a\nb\nc\n", b"x\ny\n")
    with pytest.raises(CorpusError, match=r"train\.src has 3 lines but .*train\.tgt has 2"):
        read_split(tmp_path, "train")


def test_empty_line_is_located(tmp_path):
    _write(tmp_path, "train", b"a\n\nc\n", b"x\ny\nz\n")
    with pytest.raises(CorpusError, match=r"train\.src:2: empty line"):
        read_split(tmp_path, "train")


def test_missing_file(tmp_path):
    with pytest.raises(CorpusError, match="file not found"):
        read_split(tmp_path, "test")
