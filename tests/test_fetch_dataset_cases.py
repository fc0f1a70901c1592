"""`paragen.data.registry.fetch_dataset` case by case on a registry of one or two small files: the completion
marker (where it is, what it records per file), what is logged, a present file that fails its check, members
already unpacked, the recorded digest of a file nobody publishes one for, and the mirror and registry refusals.
Expected values are worked out by hand from the bytes below; digests come from hashlib here.
"""

from __future__ import annotations

import io
import json
import logging
import tarfile

import pytest

from paragen.data import registry
from paragen.data.fetch import Expected, FetchError
from paragen.data.registry import (DatasetSource, SourceFile, dataset_source, expected_for,
                                   fetch_dataset, usable_mirrors)

from test_fetch import sha

A, B = b"line one\n", b"line two\n"
RECORDED_DIGESTS = ".recorded-digests.json"  # where a raw folder keeps the digests nobody publishes


def register(monkeypatch, **datasets: list[dict]) -> None:
    """Make the registry hold exactly ``datasets`` (name -> its file entries, as sources.yaml writes them)."""
    sources = {name: DatasetSource.model_validate({"title": "t", "citation": "c", "licence": "l", "homepage": "h",
                                                   "expected": {"test": 1}, "files": files})
               for name, files in datasets.items()}
    monkeypatch.setattr(registry, "load_registry", lambda: sources)


@pytest.fixture
def served(server, monkeypatch):
    """The loopback server holding a.txt and b.txt, and a registry ``toy`` of the two (eval split, pinned by
    sha256) beside an empty ``other``; the server is returned (``served.url``, ``served.requests``)."""
    server.files.update({"/set/a.txt": A, "/set/b.txt": B})
    register(monkeypatch, other=[], toy=[{"path": name, "urls": [f"{server.url}/set/{name}"], "sha256": sha(data),
                                          "split": "eval"} for name, data in (("a.txt", A), ("b.txt", B))])
    return server


def test_the_marker_sits_in_the_dataset_s_folder_and_records_each_file_s_source(served, tmp_path, caplog):
    with caplog.at_level(logging.INFO, logger="paragen.data.registry"):
        marker = fetch_dataset("toy", [], "eval", tmp_path, progress=False)
    url = served.url + "/set/"
    assert marker == tmp_path / "toy" / ".complete-eval.json"
    assert json.loads(marker.read_text()) == {"dataset": "toy", "scope": "eval",
                                              "files": {"a.txt": url + "a.txt", "b.txt": url + "b.txt"}}
    assert caplog.messages == [f"{tmp_path / 'toy' / 'a.txt'}: {url}a.txt",
                               f"{tmp_path / 'toy' / 'b.txt'}: {url}b.txt"]
    fetch_dataset("toy", [], "eval", tmp_path, progress=False)  # both present: kept, none fetched again
    assert json.loads(marker.read_text())["files"] == {"a.txt": "present", "b.txt": "present"}
    assert len(served.requests) == 2


def test_the_default_root_is_data_raw(served, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    from pathlib import Path

    assert fetch_dataset("toy", [], "eval", progress=False) == Path("data/raw/toy/.complete-eval.json")
    assert (tmp_path / "data" / "raw" / "toy" / "a.txt").read_bytes() == A


def test_the_progress_setting_reaches_each_download(served, tmp_path, monkeypatch):
    seen = []
    real = registry.fetch_file
    monkeypatch.setattr(registry, "fetch_file", lambda *a, **k: seen.append(k) or real(*a, **k))
    fetch_dataset("toy", [], "eval", tmp_path, progress=True)
    assert seen == [{"progress": True}, {"progress": True}]


def test_a_present_file_that_fails_its_check_is_said_and_fetched_again(served, tmp_path, caplog):
    """a.txt present with other bytes: one warning with the check's own words (the file's path said once, though
    the folder's name holds a space), then it is downloaded again."""
    root = tmp_path / "raw data"
    (root / "toy").mkdir(parents=True)
    (root / "toy" / "a.txt").write_bytes(b"stale\n")
    with caplog.at_level(logging.WARNING, logger="paragen.data.registry"):
        fetch_dataset("toy", [], "eval", root, progress=False)
    assert caplog.messages == [f"{root / 'toy' / 'a.txt'}: present but sha256 mismatch: expected {sha(A)}, got "
                               f"{sha(b'stale' + bytes([10]))}; fetching again"]
    assert (root / "toy" / "a.txt").read_bytes() == A


def test_a_recorded_digest_is_named_when_a_present_file_fails_it(server, monkeypatch, tmp_path, caplog):
    """A file nobody publishes a digest for (size 9 only): its sha256 was recorded at its first fetch; a present
    copy of the same size with other bytes fails against the recording, and the warning says so."""
    server.files["/u.txt"] = A
    register(monkeypatch, unpub=[{"path": "u.txt", "urls": [server.url + "/u.txt"], "size": 9, "split": "eval"}])
    fetch_dataset("unpub", [], "eval", tmp_path, progress=False)
    recorded = json.loads((tmp_path / "unpub" / RECORDED_DIGESTS).read_text())
    assert recorded == {"u.txt": {"sha256": sha(A), "size": 9}}
    (tmp_path / "unpub" / "u.txt").write_bytes(b"line 1wo\n")  # 9 bytes, other content
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="paragen.data.registry"):
        fetch_dataset("unpub", [], "eval", tmp_path, progress=False)
    assert caplog.messages[0] == (
        f"{tmp_path / 'unpub' / 'u.txt'}: present but sha256 mismatch: expected {sha(A)}, got "
        f"{sha(b'line 1wo' + bytes([10]))} (checked against the sha256 recorded in "
        f"{tmp_path / 'unpub' / RECORDED_DIGESTS}); fetching again")


def test_a_recorded_digest_keeps_the_registry_s_size(tmp_path):
    """The expectation made from a recording (size 9, as the registry publishes) is its digest with the registry's
    size beside it; a recording made for another size (8: the release changed) is ignored; a recording file that
    is not JSON is refused, naming it and the line."""
    recording, file = tmp_path / RECORDED_DIGESTS, SourceFile(path="u.txt", size=9)
    recording.write_text(json.dumps({"u.txt": {"sha256": "ab" * 32, "size": 9}}))
    assert expected_for(tmp_path, file) == Expected("ab" * 32, None, 9)
    recording.write_text(json.dumps({"u.txt": {"sha256": "ab" * 32, "size": 8}}))
    assert expected_for(tmp_path, file) == Expected(None, None, 9)
    recording.write_text("{not json")
    with pytest.raises(FetchError) as error:
        expected_for(tmp_path, file)
    assert str(error.value) == (f"{recording}:1: not valid JSON (Expecting property name enclosed in double "
                                "quotes); delete it to record the digests afresh")


def test_an_archive_whose_members_are_unpacked_is_not_fetched_again(server, monkeypatch, tmp_path):
    """An archive entry whose archive is gone but whose members are there (unpacked earlier, archive deleted) is
    complete: no request, recorded as such; the entry after it is still fetched."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        info = tarfile.TarInfo("rel/m.txt")
        info.size = 2
        tar.addfile(info, io.BytesIO(b"m\n"))
    server.files.update({"/r.tar.gz": buffer.getvalue(), "/b.txt": B})
    register(monkeypatch, arch=[
        {"path": "r.tar.gz", "urls": [server.url + "/r.tar.gz"], "sha256": sha(buffer.getvalue()), "split": "eval",
         "extract": [{"member": "rel/m.txt", "path": "m.txt"}]},
        {"path": "b.txt", "urls": [server.url + "/b.txt"], "sha256": sha(B), "split": "eval"}])
    (tmp_path / "arch").mkdir()
    (tmp_path / "arch" / "m.txt").write_bytes(b"m\n")
    marker = fetch_dataset("arch", [], "eval", tmp_path, progress=False)
    assert len(server.requests) == 1  # b.txt only
    assert json.loads(marker.read_text())["files"] == {"r.tar.gz": "members already unpacked",
                                                       "b.txt": server.url + "/b.txt"}


def test_an_unknown_dataset_lists_the_registry_s_names(served):
    with pytest.raises(FetchError) as error:
        dataset_source("nope")
    assert str(error.value) == "unknown dataset 'nope'; allowed values: other, toy"


def test_mirrors_missing_or_not_folders_are_skipped_with_one_warning_each(tmp_path, caplog):
    a_file = tmp_path / "mirror.txt"
    a_file.write_text("x")
    with caplog.at_level(logging.WARNING, logger="paragen.data.registry"):
        usable = usable_mirrors(["http://mirror.example.org/data", str(tmp_path), str(a_file), str(tmp_path / "no")])
    assert usable == ["http://mirror.example.org/data", str(tmp_path)]
    tail = "; skipping it (a mirror is a directory laid out as docs/datasets.md describes, or a base URL)"
    assert caplog.messages == [f"mirror {a_file} is not a directory" + tail,
                               f"mirror {tmp_path / 'no'} does not exist" + tail]


def test_files_to_place_by_hand_are_listed_one_a_line(monkeypatch, tmp_path):
    """Two manual files and no instructions in the registry: both paths, one a line, and nothing after them."""
    from paragen.data.registry import ManualPlacementRequired

    register(monkeypatch, hand=[{"path": n, "urls": [], "split": "eval"} for n in ("x.txt", "y.txt")])  # no manual
    with pytest.raises(ManualPlacementRequired) as error:
        fetch_dataset("hand", [], "eval", tmp_path, progress=False)
    assert str(error.value) == f"hand: 2 file(s) must be placed by hand:\n  {tmp_path / 'hand' / 'x.txt'}\n  " \
                               f"{tmp_path / 'hand' / 'y.txt'}\n"
