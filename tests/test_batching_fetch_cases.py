"""Batches and sources, case by case: the length-bucketed, seeded batch order; a batch's copy to another device
(host lengths kept; pinned, non-blocking copies on a GPU); extended ids decoded; a split's tags checked against
its sources; and `fetch_file`'s sources, messages and progress. Expected values are worked out by hand below.
"""

from __future__ import annotations

import hashlib
import logging

import pytest
import torch

from paragen.data.batching import batch_at, batch_order, decode_ids, iterate_batches, make_batch
from paragen.data.corpus import CorpusError, read_split
from paragen.data.fetch import Expected, FetchError, HashMismatch, fetch_file, verify
from paragen.data.vocabulary import Vocabulary

from test_fetch import sha


def test_without_a_generator_batches_are_sorted_by_length_inside_windows_of_50_batches():
    """batch_size 1: a window is 50 examples. Lengths 50, 49, ..., 1 for examples 0..49, then 0 for example 50:
    the first window sorts 0..49 by length (49 first), the second holds example 50 alone."""
    lengths = [50 - i for i in range(50)] + [0]
    assert batch_order(lengths, 1, None) == [[i] for i in range(49, -1, -1)] + [[50]]


def test_batches_cut_a_window_every_batch_size_examples():
    """Lengths 3 1 2 1 3, batch_size 2: sorted (stable) 1 3 2 0 4 -> batches [1, 3], [2, 0], [4]."""
    assert batch_order([3, 1, 2, 1, 3], 2, None) == [[1, 3], [2, 0], [4]]


def _seeded(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def test_a_generator_shuffles_examples_and_batches_and_its_seed_fixes_the_order():
    """Twelve examples of one length, batch_size 3: without a generator the batches are 0-2, 3-5, ...; with one,
    the same seed gives the same batches twice (also after other draws from torch's global generator), another
    seed others, and every example is in exactly one batch."""
    lengths = [5] * 12
    plain = batch_order(lengths, 3, None)
    assert plain == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]]
    first = batch_order(lengths, 3, _seeded(7))
    torch.rand(5)  # the global generator moves; a seeded order must not
    assert batch_order(lengths, 3, _seeded(7)) == first != plain
    assert batch_order(lengths, 3, _seeded(8)) != first
    assert sorted(i for batch in first for i in batch) == list(range(12))
    assert any(batch != sorted(batch) or batch[0] % 3 for batch in first)  # examples shuffled, not only batches


def test_the_batch_shuffle_uses_the_seeded_generator_too():
    """Lengths 1..36 (one window, sorted): the examples' shuffle cannot change the batches' contents (12 batches of
    3 consecutive examples), only the batches' order does: it repeats for a seed (also after draws from torch's
    global generator), is not the sorted order, and differs for another seed."""
    lengths = list(range(1, 37))
    first = batch_order(lengths, 3, _seeded(1))
    torch.rand(5)
    assert batch_order(lengths, 3, _seeded(1)) == first
    assert sorted(first) == [[i, i + 1, i + 2] for i in range(0, 36, 3)] != first
    assert batch_order(lengths, 3, _seeded(2)) != first


VOCAB = Vocabulary(["<pad>", "<unk>", "<s>", "</s>", "a", "b"])  # </s> is id 3


def test_a_batch_of_ids_keeps_its_targets_and_the_generator_is_used(monkeypatch):
    """batch_at: examples 2 and 0 with their targets. iterate_batches asks batch_order (a recording stand-in
    here, answering [[2], [0, 1]]) with the source lengths, the batch size and the very generator it was given,
    and yields those batches in that order, targets included."""
    from paragen.data import batching

    sources, targets = [["a"], ["b", "a"], ["a", "b"]], [["b"], ["a"], ["a", "a"]]
    batch = batch_at(sources, targets, VOCAB, [2, 0])
    assert batch.tgt_out.tolist() == [[4, 4, 3], [5, 3, 0]]  # a a </s>, b </s> <pad>
    asked = []
    monkeypatch.setattr(batching, "batch_order", lambda *args: asked.append(args) or [[2], [0, 1]])
    generator = _seeded(3)
    batches = list(iterate_batches(sources, targets, VOCAB, 2, generator))
    assert asked == [([1, 2, 2], 2, generator)] and asked[0][2] is generator
    assert [b.indices for b in batches] == [[2], [0, 1]]
    assert [b.tgt_out.tolist() for b in batches] == [[[4, 4, 3]], [[5, 3], [4, 3]]]


def test_the_first_extended_id_is_the_first_source_oov():
    assert decode_ids([4, len(VOCAB), len(VOCAB) + 1, 3, 5], VOCAB, ["zebra", "yak"]) == ["a", "zebra", "yak"]


def test_to_another_device_keeps_the_lengths_on_the_host():
    """To the meta device (no data, any machine): every tensor moves, and the source lengths stay behind on the
    CPU for packing (src_lengths_host)."""
    batch = make_batch([["a", "b"], ["a"]], [["b"], ["a"]], VOCAB)
    moved = batch.to(torch.device("meta"))
    assert {getattr(moved, n).device.type for n in ("src", "src_ext", "src_lengths", "tgt_in", "tgt_out")} == {"meta"}
    assert moved.src_lengths_host.device.type == "cpu" and moved.src_lengths_host.tolist() == [2, 1]


def test_to_a_gpu_pins_each_tensor_and_copies_without_waiting(monkeypatch):
    """On CUDA each CPU tensor is pinned first and copied with non_blocking=True (recorded here: this machine has
    no GPU); to the CPU nothing is pinned and copies block."""
    calls = []
    monkeypatch.setattr(torch.Tensor, "pin_memory", lambda self: calls.append("pin") or self)
    monkeypatch.setattr(torch.Tensor, "to", lambda self, device, non_blocking=False:
                        calls.append((device.type, non_blocking)) or self)
    make_batch([["a"]], [["b"]], VOCAB).to(torch.device("cuda"))
    assert calls == ["pin", ("cuda", True)] * 5
    calls.clear()
    make_batch([["a"]], [["b"]], VOCAB).to(torch.device("cpu"))
    assert calls == [("cpu", False)] * 5


def test_tags_must_align_with_sources_and_empty_targets_are_refused(tmp_path):
    (tmp_path / "train.src").write_text("a\nb\n")
    (tmp_path / "train.tgt").write_text("x\ny\n")
    assert read_split(tmp_path, "train").tags is None  # no tag file
    (tmp_path / "train.tag").write_text("t1\n")
    with pytest.raises(CorpusError) as error:
        read_split(tmp_path, "train")
    assert str(error.value) == (f"{tmp_path / 'train.tag'} has 1 lines but {tmp_path / 'train.src'} has 2: files "
                                "must be aligned line by line")
    (tmp_path / "train.tag").write_text("t1\nt2\n")
    assert read_split(tmp_path, "train").tags == ["t1", "t2"]
    (tmp_path / "train.tgt").write_text("x\n\n")
    with pytest.raises(CorpusError, match=r"train\.tgt:2: empty line"):
        read_split(tmp_path, "train")


def test_a_mirror_url_with_a_trailing_slash_gives_one_slash(server, tmp_path):
    """Only the trailing slash goes: a mirror folder whose name ends in X keeps it."""
    server.files["/mirrorX/x/f.txt"] = b"x\n"
    fetch_file(tmp_path / "f.txt", Expected(sha256=sha(b"x\n")), [], mirrors=[server.url + "/mirrorX/"],
               mirror_path="x/f.txt", progress=False)
    assert [path for path, _ in server.requests] == ["/mirrorX/x/f.txt"]


def test_every_source_is_tried_and_each_failure_said(server, tmp_path, caplog):
    """A local mirror without the file, then a URL mirror with a wrong copy, then the upstream URL: fetched from
    the last; the wrong copy one warning. With every source failing, the error lists them one per line."""
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    server.files.update({"/m/f.txt": b"wrong\n", "/f.txt": b"right\n"})
    with caplog.at_level(logging.WARNING, logger="paragen.data.fetch"):
        source = fetch_file(tmp_path / "f.txt", Expected(sha256=sha(b"right\n")), [server.url + "/f.txt"],
                            mirrors=[str(mirror), server.url + "/m"], mirror_path="f.txt", progress=False)
    assert source == server.url + "/f.txt"
    assert caplog.messages == [f"{server.url}/m/f.txt: sha256 mismatch: expected {sha(b'right' + bytes([10]))}, "
                               f"got {sha(b'wrong' + bytes([10]))}"]  # a mirror without the file: said at the end
    with pytest.raises(FetchError) as error:
        fetch_file(tmp_path / "g.txt", Expected(), [server.url + "/absent"], mirrors=[str(mirror)],
                   mirror_path="g.txt", progress=False)
    assert str(error.value) == (f"g.txt: no source worked:\n  {mirror / 'g.txt'}: not in the mirror\n  "
                                f"{server.url}/absent: HTTP 404 Not Found")
    with pytest.raises(FetchError) as error:
        fetch_file(tmp_path / "h.txt", Expected(), [], progress=False)
    assert str(error.value) == "h.txt: no source known (no URL and no mirror copy)"


def test_the_progress_setting_reaches_the_download(server, tmp_path, monkeypatch):
    from paragen.data import fetch

    seen = []
    real = fetch.http_download
    monkeypatch.setattr(fetch, "http_download", lambda *a, **k: seen.append(k) or real(*a, **k))
    server.files["/f.txt"] = b"x\n"
    fetch_file(tmp_path / "f.txt", Expected(sha256=sha(b"x\n")), [server.url + "/f.txt"], progress=True)
    assert seen == [{"progress": True}]


def test_a_git_blob_mismatch_names_the_source_and_both_ids(tmp_path):
    path = tmp_path / "a.txt"
    path.write_bytes(b"a\n")
    blob = hashlib.sha1(b"blob 2\0a\n").hexdigest()
    with pytest.raises(HashMismatch) as error:
        verify(path, Expected(git_blob="1" * 40), "https://example.org/a.txt")
    assert str(error.value) == f"https://example.org/a.txt: git blob id mismatch: expected {'1' * 40}, got {blob}"


def test_each_source_oov_in_the_target_takes_its_own_extended_id():
    from paragen.data.batching import extend_target

    assert extend_target(["q", "a", "p", "z"], VOCAB, ["p", "q"]) == [len(VOCAB) + 1, 4, len(VOCAB), 1]  # z: <unk>
