"""Archive extraction, case by case: what `paragen.data.fetch.safe_extract` lets through, what it refuses and
in which words, and where it stages its work. Each case is one a slip in the checks would get wrong (the
mutation run over `paragen.data` left these unpinned); the expected outcome of each is stated in the test.
"""

from __future__ import annotations

import io
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from paragen.data import fetch
from paragen.data.fetch import FetchError, safe_extract

from test_fetch import _tar


def _tar_file(path: Path, entries: list[tarfile.TarInfo | tuple[str, bytes]]) -> Path:
    """A plain tar at ``path`` holding ``entries`` (a TarInfo is added as it is, a pair as a regular file)."""
    path.write_bytes(_tar(entries, mode="w"))
    return path


def _link(name: str, target: str, kind: bytes = tarfile.SYMTYPE) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info


def test_a_dot_directory_member_is_the_target_itself_and_extracts(tmp_path):
    """``tar -C dir -cf a.tar .`` writes ``./`` first; it names the target itself (resolved equal to it), so the
    archive extracts. A containment check that only accepts proper descendants refuses it."""
    dot = tarfile.TarInfo("./")
    dot.type = tarfile.DIRTYPE
    archive = _tar_file(tmp_path / "a.tar", [dot, ("./a.txt", b"a")])
    assert safe_extract(archive, tmp_path / "out") == ["a.txt"]
    assert (tmp_path / "out" / "a.txt").read_bytes() == b"a"


def test_a_destination_climbing_out_and_back_in_is_still_refused(tmp_path):
    """``../raw/train.txt`` resolves back inside a target named ``raw``; as a destination it is refused all the
    same, by the check of its name (``..`` first), before anything is written."""
    archive = _tar_file(tmp_path / "a.tar", [("rel/valid.txt", b"v"), ("rel/train.txt", b"t")])
    with pytest.raises(FetchError) as error:
        safe_extract(archive, tmp_path / "raw", {"rel/valid.txt": "valid.txt", "rel/train.txt": "../raw/train.txt"})
    assert str(error.value) == \
        f"{archive}: destination '../raw/train.txt' of member 'rel/train.txt' is outside {tmp_path / 'raw'}"
    assert not (tmp_path / "raw").exists()  # not even the member whose destination was fine


def test_a_refusal_names_the_target_not_the_staging_folder(tmp_path):
    """Members are checked where they are unpacked (a hidden staging folder), but the message names the target
    the user asked for: the staging folder is gone when the message is read."""
    archive = _tar_file(tmp_path / "a.tar", [("../x.txt", b"x")])
    with pytest.raises(FetchError) as error:
        safe_extract(archive, tmp_path / "out")
    assert str(error.value) == f"{archive}: member '../x.txt' would be written outside {tmp_path / 'out'}"


def _dir(name: str) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = tarfile.DIRTYPE
    return info


def test_a_symbolic_link_is_read_from_its_own_folder(tmp_path):
    """A symbolic link's target is relative to the folder the link sits in: ``data/link -> ../top.txt`` points at
    ``top.txt``, inside the target, and extracts. Read from the archive's root it would point outside."""
    archive = _tar_file(tmp_path / "a.tar", [("top.txt", b"t"), _link("data/link", "../top.txt")])
    assert safe_extract(archive, tmp_path / "out") == ["data/link", "top.txt"]
    assert (tmp_path / "out" / "data" / "link").read_bytes() == b"t"


def test_a_hard_link_is_read_from_the_archive_root(tmp_path):
    """A hard link's target is a member name, relative to the archive's root: ``a/b/hard -> top.txt`` extracts
    as a second copy, and ``a/b/hard -> ../evil`` leaves the target (read from ``a/b`` it would land in ``a``)."""
    archive = _tar_file(tmp_path / "a.tar", [("top.txt", b"t"), _link("a/b/hard", "top.txt", tarfile.LNKTYPE)])
    assert safe_extract(archive, tmp_path / "out") == ["a/b/hard", "top.txt"]
    assert (tmp_path / "out" / "a" / "b" / "hard").read_bytes() == b"t"
    bad = _tar_file(tmp_path / "b.tar", [("evil", b"e"), _link("a/b/hard", "../evil", tarfile.LNKTYPE)])
    with pytest.raises(FetchError) as error:
        safe_extract(bad, tmp_path / "out2")
    assert str(error.value) == f"{bad}: link 'a/b/hard' -> '../evil' leaves {tmp_path / 'out2'}"


def test_a_device_or_pipe_is_refused_by_name(tmp_path):
    fifo = tarfile.TarInfo("data/pipe")
    fifo.type = tarfile.FIFOTYPE
    archive = _tar_file(tmp_path / "a.tar", [fifo])
    with pytest.raises(FetchError) as error:
        safe_extract(archive, tmp_path / "out")
    assert str(error.value) == f"{archive}: member 'data/pipe' is a device or pipe; refusing to extract"


def test_modes_pass_through_tarfile_s_data_filter(tmp_path):
    """The ``data`` filter clears setuid/setgid/sticky and group/other write bits: a member stored with mode 04777
    lands as 0755 (without the filter, tarfile would set 04777 as stored)."""
    info = tarfile.TarInfo("run.sh")
    info.size, info.mode = 2, 0o4777
    archive = tmp_path / "a.tar"
    with tarfile.open(archive, "w") as tar:
        tar.addfile(info, io.BytesIO(b"#!"))
    safe_extract(archive, tmp_path / "out")
    assert stat.S_IMODE((tmp_path / "out" / "run.sh").stat().st_mode) == 0o755


def test_the_target_s_missing_parents_are_made(tmp_path):
    archive = _tar_file(tmp_path / "a.tar", [("a.txt", b"a")])
    target = tmp_path / "not" / "yet" / "there"
    assert safe_extract(archive, target) == ["a.txt"]
    assert (target / "a.txt").read_bytes() == b"a"


def test_work_is_staged_in_a_hidden_folder_beside_the_target(tmp_path, monkeypatch):
    """Unpacking goes to ``.<target>.extract.*`` in the target's own folder: a run killed mid-way leaves a hidden
    folder named after what it was extracting (not a ``tmp*`` one), and the final moves are renames on one
    file system. The folder is gone afterwards."""
    seen = []
    extractall = tarfile.TarFile.extractall

    def recording(self, path, *args, **kwargs):
        seen.append(Path(path))
        return extractall(self, path, *args, **kwargs)

    monkeypatch.setattr(tarfile.TarFile, "extractall", recording)
    archive = _tar_file(tmp_path / "a.tar", [("a.txt", b"a")])
    safe_extract(archive, tmp_path / "raw")
    [staging] = seen
    assert staging.parent == tmp_path and staging.name.startswith(".raw.extract.")
    assert not staging.exists()


def test_a_refusal_names_the_archive_file(tmp_path):
    archive = _tar_file(tmp_path / "named.tar", [("/abs.txt", b"x")])
    with pytest.raises(FetchError) as error:
        safe_extract(archive, tmp_path / "out")
    assert str(error.value).startswith(f"{archive}: member '/abs.txt' would be written outside")


def _zip(path: Path, members: list[tuple[zipfile.ZipInfo | str, bytes]]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for info, data in members:
            zf.writestr(info, data)
    return path


def test_a_zip_symbolic_link_is_refused(tmp_path):
    """A zip stores a member's Unix mode in the high 16 bits of ``external_attr``; 0o120777 is a symbolic link."""
    link = zipfile.ZipInfo("data/link")
    link.external_attr = 0o120777 << 16
    archive = _zip(tmp_path / "a.zip", [(link, b"../../etc/passwd")])
    with pytest.raises(FetchError) as error:
        safe_extract(archive, tmp_path / "out")
    assert str(error.value) == f"{archive}: member 'data/link' is a symbolic link; refusing"
    plain = zipfile.ZipInfo("data/file")
    plain.external_attr = 0o100644 << 16  # a regular file's mode: extracted
    assert safe_extract(_zip(tmp_path / "b.zip", [(plain, b"f")]), tmp_path / "out") == ["data/file"]


def test_a_zip_member_with_a_wrong_checksum_is_named(tmp_path):
    archive = _zip(tmp_path / "a.zip", [("first.txt", b"fine"), ("second.txt", b"payload")])
    data = bytearray(archive.read_bytes())
    data[data.index(b"payload")] ^= 0xFF  # stored uncompressed: flip one byte of the member's data
    archive.write_bytes(bytes(data))
    with pytest.raises(FetchError) as error:
        safe_extract(archive, tmp_path / "out")
    assert str(error.value) == f"{archive}: member 'second.txt' is corrupted (CRC mismatch)"
    assert not (tmp_path / "out").exists()


def test_zip_folders_stay_folders(tmp_path):
    """A zip's folder entry ``data/`` (normalised, its trailing slash kept) is made as a folder that the member
    ``data/./a.txt`` (normalised to ``data/a.txt``) then lands in."""
    archive = _zip(tmp_path / "a.zip", [("data/", b""), ("data/./a.txt", b"a")])
    assert safe_extract(archive, tmp_path / "out") == ["data/a.txt"]
    assert (tmp_path / "out" / "data").is_dir()
    assert sorted(p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*")) == \
        ["data", "data/a.txt"]


def test_neither_tar_nor_zip_is_said_so(tmp_path):
    archive = tmp_path / "x.tar.gz"
    archive.write_bytes(b"<html>404 not found</html>\n" * 40)
    with pytest.raises(FetchError) as error:
        safe_extract(archive, tmp_path / "out")
    assert str(error.value) == f"{archive}: not a tar or zip archive (truncated or corrupted download?)"


def test_every_missing_member_is_listed_and_a_destination_outside_is_refused(tmp_path):
    archive = _tar_file(tmp_path / "a.tar", [("rel/train.txt", b"t")])
    with pytest.raises(FetchError) as error:
        safe_extract(archive, tmp_path / "raw", {"rel/valid.txt": "v", "rel/test.txt": "t"})
    assert str(error.value) == f"{archive}: expected member(s) missing: rel/test.txt, rel/valid.txt"
    with pytest.raises(FetchError) as error:
        safe_extract(archive, tmp_path / "raw", {"rel/train.txt": "../train.txt"})
    assert str(error.value) == \
        f"{archive}: destination '../train.txt' of member 'rel/train.txt' is outside {tmp_path / 'raw'}"
    assert not (tmp_path / "train.txt").exists()


def test_an_unresolvable_host_message_ends_with_what_to_do():
    import socket
    import urllib.error

    error = urllib.error.URLError(socket.gaierror(socket.EAI_NONAME, "Name or service not known"))
    assert fetch.unreachable("http://data.example.org/x.bin", error) == (
        "cannot resolve the host name data.example.org (name resolution failed: Name or service not known); "
        "check the network or use a mirror (--mirror)")
    refused = fetch.unreachable("http://h.example.org/x", ConnectionRefusedError())
    assert refused == "h.example.org refused the connection"
    assert fetch.unreachable("http://h.example.org/x", TimeoutError()) is None


def test_a_staging_folder_that_cannot_be_removed_does_not_fail_the_extraction(tmp_path, monkeypatch):
    """The staging folder is removed on a best-effort basis: if a file system refuses (a network share, a file
    held open on Windows), the files already moved into the target stand and no error replaces the result."""
    import os

    rmdir = os.rmdir

    def refusing(path, *args, **kwargs):
        if ".extract." in str(path):
            raise PermissionError(13, "Permission denied", str(path))
        return rmdir(path, *args, **kwargs)

    monkeypatch.setattr(os, "rmdir", refusing)
    archive = _tar_file(tmp_path / "a.tar", [("a.txt", b"a")])
    assert safe_extract(archive, tmp_path / "out") == ["a.txt"]
    assert (tmp_path / "out" / "a.txt").read_bytes() == b"a"
