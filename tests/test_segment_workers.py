"""How segmentation spreads over processes, what it shows while it runs and what it says when it refuses:
`paragen.data.segment.segment_lines` and the calls `segment_dataset` makes. The segmented text is the same
whichever way it runs (`tests/test_segment.py`), so these check the way itself, with recording stand-ins for
the process pool, the progress bar and the machine's core count.
"""

from __future__ import annotations

import logging
import multiprocessing
from types import SimpleNamespace

import pytest

from paragen.data import segment
from paragen.data.corpus import CorpusError
from paragen.data.segment import sample_training, segment_dataset, segment_lines

from conftest import write_lines

LINES = ["The Cat", "A  Dog", "Big Bird", "Red Fox", "Old Owl"]  # 5 lines: 3 chunks of at most 2
SEGMENTED = ["the cat", "a dog", "big bird", "red fox", "old owl"]  # "word" scheme, lowercased


@pytest.fixture
def machine(monkeypatch):
    """Records the process pools made (method, processes) and the bars drawn (their arguments and updates);
    ``machine.cores`` stands for os.cpu_count() as segment.py reads it, on a POSIX system."""
    record = SimpleNamespace(pools=[], bars=[], cores=4)
    fork = multiprocessing.get_context("fork")  # the real one, taken before get_context is replaced

    class Context:
        def __init__(self, method):
            self.method = method

        def Pool(self, processes, initializer, initargs):  # noqa: N802 (multiprocessing's name)
            record.pools.append((self.method, processes))
            return fork.Pool(2, initializer, initargs)

    class Bar:
        def __init__(self, **kwargs):
            self.kwargs, self.updates, self.closed = kwargs, [], False
            record.bars.append(self)

        def update(self, n):
            self.updates.append(n)

        def close(self):
            self.closed = True

    monkeypatch.setattr(segment, "os", SimpleNamespace(cpu_count=lambda: record.cores, name="posix"))
    monkeypatch.setattr(segment.multiprocessing, "get_context", Context)
    monkeypatch.setattr(segment, "progress_bar", lambda **kwargs: Bar(**kwargs))
    monkeypatch.setattr(segment, "_segmenter", None)  # no segmenter left in this process by an earlier test
    return record


def test_one_worker_or_one_chunk_runs_in_this_process(machine):
    assert segment_lines(LINES, "word", lowercase=True, workers=1, chunk=2) == SEGMENTED  # 3 chunks, 1 worker
    assert segment_lines(LINES, "word", lowercase=True, workers=2, chunk=5) == SEGMENTED  # 2 workers, 1 chunk
    assert machine.pools == []


def test_several_workers_and_chunks_run_in_a_pool_of_that_many_forked_processes(machine):
    """Each worker makes its own segmenter (the pool's initializer): a forked worker must not rely on one the
    parent happened to hold, so the parent holds none here."""
    assert segment_lines(LINES, "word", lowercase=True, workers=3, chunk=2) == SEGMENTED
    assert segment_lines(LINES[:4], "word", lowercase=True, workers=2, chunk=2) == SEGMENTED[:4]  # 2 chunks
    assert machine.pools == [("fork", 3), ("fork", 2)]


def test_the_default_is_every_core_and_one_when_the_count_is_unknown(machine):
    segment_lines(LINES, "word", chunk=2)
    assert machine.pools == [("fork", 4)]
    machine.cores = None  # os.cpu_count() may return None
    segment_lines(LINES, "word", chunk=2)
    assert machine.pools == [("fork", 4)]  # one worker: no pool


def test_spawn_where_fork_does_not_exist(machine, monkeypatch):
    monkeypatch.setattr(segment, "os", SimpleNamespace(cpu_count=lambda: 4, name="nt"))
    segment_lines(LINES, "word", lowercase=True, workers=2, chunk=2)
    assert machine.pools == [("spawn", 2)]


@pytest.mark.parametrize("workers", [1, 2])
def test_the_bar_counts_lines_and_is_named(machine, workers):
    segment_lines(LINES, "word", workers=workers, chunk=2, progress=False, desc="train.src")
    [bar] = machine.bars
    assert bar.kwargs == {"enabled": False, "total": 5, "unit": "line", "desc": "train.src"}
    assert bar.updates == [2, 2, 1] and bar.closed


def test_an_unknown_scheme_names_the_allowed_ones(machine):
    with pytest.raises(ValueError) as error:
        segment_lines(["a"], "morfessor", workers=1)
    assert str(error.value) == "unknown segmentation 'morfessor'; allowed values: bpe, char, jieba, word"


def test_a_sample_of_every_training_pair_is_allowed():
    files = {"train.src": ["a", "b", "c"], "train.tgt": ["x", "y", "z"], "test.src": ["t"]}
    assert sample_training(files, 3, seed=5) == files
    with pytest.raises(ValueError, match="asks for 4 training pairs; the training split has 3"):
        sample_training(files, 4, seed=5)


def _prepared(tmp_path):
    prepared = tmp_path / "prepared" / "toy"
    write_lines(prepared / "train.src", ["a b c", "a", "a b"])
    write_lines(prepared / "train.tgt", ["a", "a b c", "a b"])
    write_lines(prepared / "test.src", ["a b"])
    return tmp_path / "prepared"


def test_segment_dataset_passes_its_workers_quietness_and_file_names_on(machine, tmp_path):
    """``paragen segment --workers 2 --quiet`` segments each file with 2 workers and no bar, the bar (when shown)
    named after the file."""
    segment_dataset("toy", "word", prepared_root=_prepared(tmp_path), out_root=tmp_path / "seg", workers=2,
                    progress=False)
    assert sorted((bar.kwargs["desc"], bar.kwargs["enabled"]) for bar in machine.bars) == \
        [("test.src", False), ("train.src", False), ("train.tgt", False)]
    assert machine.pools == []  # 3 lines a file: one chunk each
    calls = []
    real = segment.segment_lines

    def recording(lines, scheme, codes, lowercase, workers, **kwargs):
        calls.append((workers, kwargs))
        return real(lines, scheme, codes, lowercase, workers, **kwargs)

    segment.segment_lines = recording
    try:
        segment_dataset("toy", "word", prepared_root=tmp_path / "prepared", out_root=tmp_path / "seg", workers=2,
                        progress=False)
    finally:
        segment.segment_lines = real
    assert sorted(calls, key=lambda c: c[1]["desc"]) == [
        (2, {"progress": False, "desc": "test.src"}), (2, {"progress": False, "desc": "train.src"}),
        (2, {"progress": False, "desc": "train.tgt"})]


def test_segment_dataset_logs_what_it_dropped_and_wrote(machine, tmp_path, caplog):
    with caplog.at_level(logging.INFO, logger="paragen.data.segment"):
        out = segment_dataset("toy", "word", prepared_root=_prepared(tmp_path), out_root=tmp_path / "seg",
                              workers=1, progress=False, drop_longer_target=True)
    assert caplog.messages == [
        "toy train: 1 pairs with a target longer than the source dropped",  # "a" -> "a b c"
        f"{out / 'test.src'}: 1 lines", f"{out / 'train.src'}: 2 lines", f"{out / 'train.tgt'}: 2 lines"]


def test_bpe_without_a_training_split_names_every_missing_file(tmp_path):
    prepared = tmp_path / "prepared" / "toy"
    write_lines(prepared / "test.src", ["a"])
    with pytest.raises(CorpusError) as error:
        segment_dataset("toy", "bpe", prepared_root=tmp_path / "prepared", out_root=tmp_path / "seg", workers=1,
                        progress=False)
    assert str(error.value) == ("BPE is learned on the training split, which is missing: "
                                f"{prepared / 'train.src'}, {prepared / 'train.tgt'}")


def test_characters_jieba_words_and_case_by_default(machine):
    """char: one token per character, spaces dropped. jieba: the spaces removed before cutting, so "北 京" is the
    word 北京 again. Case is kept unless lowercasing is asked for. The bar, by default, is shown and named
    "segment"."""
    assert segment_lines(["我爱 北京"], "char", workers=1) == ["我 爱 北 京"]
    assert segment_lines(["我爱北 京"], "jieba", workers=1) == ["我 爱 北京"]
    assert segment_lines(["The Cat"], "word", workers=1) == ["The Cat"]
    assert [bar.kwargs for bar in machine.bars][-1] == {"enabled": True, "total": 1, "unit": "line",
                                                        "desc": "segment"}
