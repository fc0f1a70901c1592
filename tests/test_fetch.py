"""Downloads against a loopback HTTP server: resume, verification, mirrors, safe extraction."""

from __future__ import annotations

import hashlib
import io
import tarfile
import zipfile

import pytest

from paragen.data.fetch import Expected, FetchError, HashMismatch, digests, fetch_file, safe_extract


PAYLOAD = bytes(range(256)) * 400  # 102,400 bytes


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_download_verifies_and_lands_atomically(server, tmp_path):
    server.files["/data.bin"] = PAYLOAD
    dest = tmp_path / "raw" / "data.bin"
    source = fetch_file(dest, Expected(sha256=sha(PAYLOAD)), [server.url + "/data.bin"], progress=False)
    assert source.endswith("/data.bin") and dest.read_bytes() == PAYLOAD
    assert not (tmp_path / "raw" / "data.bin.part").exists()


def test_truncated_transfer_resumes_with_a_range_request(server, tmp_path):
    server.files["/big.bin"] = PAYLOAD
    server.truncate_once.add("/big.bin")
    dest = tmp_path / "big.bin"
    fetch_file(dest, Expected(sha256=sha(PAYLOAD)), [server.url + "/big.bin"], progress=False)
    assert dest.read_bytes() == PAYLOAD
    assert server.requests[0] == ("/big.bin", None)
    assert server.requests[1] == ("/big.bin", f"bytes={len(PAYLOAD) // 2}-")


def test_a_part_file_left_by_a_killed_run_is_resumed(server, tmp_path):
    server.files["/big.bin"] = PAYLOAD
    dest = tmp_path / "big.bin"
    (tmp_path / "big.bin.part").write_bytes(PAYLOAD[:1000])
    fetch_file(dest, Expected(sha256=sha(PAYLOAD)), [server.url + "/big.bin"], progress=False)
    assert dest.read_bytes() == PAYLOAD and server.requests == [("/big.bin", "bytes=1000-")]


def test_hash_mismatch_names_url_and_both_hashes_and_leaves_nothing(server, tmp_path):
    server.files["/data.bin"] = PAYLOAD
    dest = tmp_path / "data.bin"
    wrong = "0" * 64
    with pytest.raises(FetchError) as error:
        fetch_file(dest, Expected(sha256=wrong), [server.url + "/data.bin"], progress=False)
    message = str(error.value)
    assert f"{server.url}/data.bin" in message and wrong in message and sha(PAYLOAD) in message
    assert list(tmp_path.iterdir()) == []


def test_git_blob_ids_are_checked(server, tmp_path):
    server.files["/a.txt"] = b"hello\n"
    blob = hashlib.sha1(b"blob 6\0hello\n").hexdigest()
    dest = tmp_path / "a.txt"
    fetch_file(dest, Expected(git_blob=blob), [server.url + "/a.txt"], progress=False)
    assert digests(dest)[1] == blob
    with pytest.raises(HashMismatch):
        from paragen.data.fetch import verify
        verify(dest, Expected(git_blob="1" * 40), "a.txt")


def test_local_mirror_is_tried_first(server, tmp_path):
    mirror = tmp_path / "mirror"
    (mirror / "set").mkdir(parents=True)
    (mirror / "set" / "f.txt").write_bytes(b"mirrored\n")
    dest = tmp_path / "out" / "f.txt"
    source = fetch_file(dest, Expected(sha256=sha(b"mirrored\n")), [server.url + "/f.txt"], mirrors=[str(mirror)],
                        mirror_path="set/f.txt", progress=False)
    assert source == str(mirror / "set" / "f.txt") and dest.read_bytes() == b"mirrored\n"
    assert server.requests == []


def test_bad_mirror_copy_falls_back_to_the_url(server, tmp_path):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "f.txt").write_bytes(b"stale\n")
    server.files["/f.txt"] = b"fresh\n"
    dest = tmp_path / "f.txt"
    source = fetch_file(dest, Expected(sha256=sha(b"fresh\n")), [server.url + "/f.txt"], mirrors=[str(mirror)],
                        mirror_path="f.txt", progress=False)
    assert source == server.url + "/f.txt" and dest.read_bytes() == b"fresh\n"


def test_url_mirror_and_missing_file(server, tmp_path):
    server.files["/mirror/x/f.txt"] = b"x\n"
    dest = tmp_path / "f.txt"
    fetch_file(dest, Expected(sha256=sha(b"x\n")), [], mirrors=[server.url + "/mirror"], mirror_path="x/f.txt",
               progress=False)
    assert dest.read_bytes() == b"x\n"
    with pytest.raises(FetchError, match="HTTP 404"):
        fetch_file(tmp_path / "g.txt", Expected(), [server.url + "/absent"], progress=False)


def _tar(entries: list[tarfile.TarInfo | tuple[str, bytes]], mode: str = "w:gz") -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=mode) as tar:
        for entry in entries:
            if isinstance(entry, tarfile.TarInfo):
                tar.addfile(entry)
            else:
                info = tarfile.TarInfo(entry[0])
                info.size = len(entry[1])
                tar.addfile(info, io.BytesIO(entry[1]))
    return buffer.getvalue()


def test_archive_extraction(tmp_path):
    archive = tmp_path / "a.tar.bz2"
    archive.write_bytes(_tar([("data/train.src", b"a\n"), ("data/train.dst", b"b\n")], mode="w:bz2"))
    names = safe_extract(archive, tmp_path / "out")
    assert sorted(names) == ["data/train.dst", "data/train.src"]
    assert (tmp_path / "out" / "data" / "train.src").read_bytes() == b"a\n"
    zipped = tmp_path / "z.zip"
    with zipfile.ZipFile(zipped, "w") as zf:
        zf.writestr("PART_III.txt", "<doc id=1>\n")
    safe_extract(zipped, tmp_path / "zout")
    assert (tmp_path / "zout" / "PART_III.txt").exists()


@pytest.mark.parametrize("name", ["../evil.txt", "/tmp/evil.txt", "data/../../evil.txt"])
def test_path_traversal_members_are_refused(tmp_path, name):
    archive = tmp_path / "bad.tar.gz"
    archive.write_bytes(_tar([("ok.txt", b"fine"), (name, b"owned")]))
    with pytest.raises(FetchError, match="outside"):
        safe_extract(archive, tmp_path / "out")
    assert not (tmp_path / "out").exists() and not (tmp_path / "evil.txt").exists()


def test_links_leaving_the_target_are_refused(tmp_path):
    link = tarfile.TarInfo("data/passwd")
    link.type = tarfile.SYMTYPE
    link.linkname = "../../etc/passwd"
    archive = tmp_path / "link.tar"
    archive.write_bytes(_tar([link], mode="w"))
    with pytest.raises(FetchError, match="leaves"):
        safe_extract(archive, tmp_path / "out")
    zipped = tmp_path / "bad.zip"
    with zipfile.ZipFile(zipped, "w") as zf:
        zf.writestr("../../evil.txt", "x")
    with pytest.raises(FetchError, match="outside"):
        safe_extract(zipped, tmp_path / "zout")


def test_corrupted_archive_leaves_no_partial_tree(tmp_path):
    data = _tar([("data/a.txt", b"a" * 5000), ("data/b.txt", b"b" * 5000)])
    archive = tmp_path / "broken.tar.gz"
    archive.write_bytes(data[: len(data) // 2])
    with pytest.raises(FetchError, match="corrupted|not a tar"):
        safe_extract(archive, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["broken.tar.gz"]


def test_extraction_keeps_files_already_in_the_target_and_normalises_harmless_paths(tmp_path):
    target = tmp_path / "raw"
    target.mkdir()
    (target / "keep.txt").write_text("mine")
    (target / "ok.txt").write_text("old")
    archive = tmp_path / "a.tar.gz"
    archive.write_bytes(_tar([("sub/../ok.txt", b"new"), ("sub/x.txt", b"x")]))
    assert safe_extract(archive, target) == ["ok.txt", "sub/x.txt"]
    assert (target / "keep.txt").read_text() == "mine"  # not deleted
    assert (target / "ok.txt").read_text() == "new" and (target / "sub" / "x.txt").read_text() == "x"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.tar.gz", "raw"]  # no staging left behind


def test_named_members_only_and_a_missing_member_is_named(tmp_path):
    archive = tmp_path / "a.tar.gz"
    archive.write_bytes(_tar([("rel/train.txt", b"t"), ("rel/other.txt", b"o")]))
    assert safe_extract(archive, tmp_path / "raw", {"rel/train.txt": "train.txt"}) == ["train.txt"]
    assert sorted(p.name for p in (tmp_path / "raw").iterdir()) == ["train.txt"]
    with pytest.raises(FetchError, match="expected member\\(s\\) missing: rel/valid.txt"):
        safe_extract(archive, tmp_path / "raw", {"rel/valid.txt": "valid.txt"})


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # closed again: nothing listens there


def test_an_unreachable_host_is_said_once_in_words_and_not_retried(tmp_path, caplog, monkeypatch):
    import socket
    import urllib.error
    import urllib.request

    attempts = []

    def no_dns(request, timeout):  # what urlopen raises when name resolution fails
        attempts.append(request.full_url)
        raise urllib.error.URLError(socket.gaierror(socket.EAI_NONAME, "Name or service not known"))

    monkeypatch.setattr(urllib.request, "urlopen", no_dns)
    with caplog.at_level("WARNING"), pytest.raises(FetchError) as error:
        fetch_file(tmp_path / "x.bin", Expected(sha256="0" * 64), ["http://data.example.org/x.bin"], progress=False)
    assert attempts == ["http://data.example.org/x.bin"]  # not retried
    assert "cannot resolve the host name data.example.org (name resolution failed: Name or service not known)" \
        in str(error.value)
    assert len(caplog.records) == 1 and "interrupted" not in caplog.text  # one line per source
    monkeypatch.undo()

    port = _free_port()
    with pytest.raises(FetchError, match=f"127.0.0.1:{port} refused the connection"):
        fetch_file(tmp_path / "y.bin", Expected(sha256="0" * 64), [f"http://127.0.0.1:{port}/y.bin"], progress=False)
