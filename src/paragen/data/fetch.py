"""Downloading dataset files: mirrors first, resumable HTTP, verification, safe extraction.

Design (docs/architecture.md, principle 6):

- a file is looked for in each mirror first (a local directory, see docs/datasets.md, or a
  base URL), then at its upstream URLs;
- HTTP downloads go to ``<file>.part`` and resume with a ``Range`` request after a broken
  transfer (the ``.part`` file survives an interrupted run, so a re-run resumes too);
- the finished file is verified (sha256, or the git blob id where that is all that is published)
  before it is renamed into place; a mismatch deletes the download and names the source and both
  digests, so nothing half-written or wrong is ever left under its final name;
- archives are extracted member by member after checking that no member escapes the target
  directory (absolute paths, ``..``, links pointing outside, device files).
"""

from __future__ import annotations

import hashlib
import http.client
import logging
import os
import posixpath
import shutil
import socket
import tarfile
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Mapping, Sequence

from paragen.progress import progress_bar

log = logging.getLogger(__name__)
CHUNK = 1 << 16


class FetchError(RuntimeError):
    """A file could not be obtained, or what was obtained is not what was expected."""


class HashMismatch(FetchError):
    pass


@dataclass(frozen=True)
class Expected:
    """What a downloaded file must hash to; either digest may be unknown, and where both are, its size may be known."""

    sha256: str | None = None
    git_blob: str | None = None  # sha1 of "blob <size>\\0" + content, as GitHub lists files
    size: int | None = None  # bytes

    @property
    def pinned(self) -> bool:
        """Whether a digest fixes the content (a size alone does not)."""
        return self.sha256 is not None or self.git_blob is not None


def digests(path: Path) -> tuple[str, str]:
    """(sha256, git blob id) of a file, in one pass."""
    sha256 = hashlib.sha256()
    blob = hashlib.sha1(f"blob {path.stat().st_size}\0".encode())
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(CHUNK), b""):
            sha256.update(chunk)
            blob.update(chunk)
    return sha256.hexdigest(), blob.hexdigest()


class SizeMismatch(HashMismatch):
    """Wrong byte count: like a wrong digest, the partial download is discarded, not resumed."""


def verify(path: Path, expected: Expected, source: str) -> None:
    if expected.size is not None and path.stat().st_size != expected.size:
        raise SizeMismatch(f"{source}: size mismatch: expected {expected.size:,} bytes, got {path.stat().st_size:,}")
    if not expected.pinned:
        return
    sha256, blob = digests(path)
    if expected.sha256 is not None and sha256 != expected.sha256:
        raise HashMismatch(f"{source}: sha256 mismatch: expected {expected.sha256}, got {sha256}")
    if expected.git_blob is not None and blob != expected.git_blob:
        raise HashMismatch(f"{source}: git blob id mismatch: expected {expected.git_blob}, got {blob}")


def _part_path(dest: Path) -> Path:
    return dest.with_name(dest.name + ".part")


def unreachable(url: str, error: BaseException) -> str | None:
    """What went wrong when a host cannot be reached at all (retrying would not help), else None.

    ``urlopen`` wraps name-resolution and refused connections in a ``URLError`` whose ``reason`` is the
    socket error; these are said once, in words, instead of being retried as an interrupted transfer.
    """
    reason = error.reason if isinstance(error, urllib.error.URLError) else error
    host = urllib.parse.urlsplit(url).netloc or url
    if isinstance(reason, socket.gaierror):
        return f"cannot resolve the host name {host} (name resolution failed: {reason.strerror or reason}); " \
               "check the network or use a mirror (--mirror)"
    if isinstance(reason, ConnectionRefusedError):
        return f"{host} refused the connection"
    return None


def http_download(url: str, dest: Path, *, retries: int = 3, timeout: float = 60.0, progress: bool) -> Path:
    """Download ``url`` into ``dest.part``, resuming what is already there; returns the part file.

    A transfer that breaks off is resumed with a ``Range`` request up to ``retries`` times; a host that
    cannot be resolved or refuses the connection fails at once, with that reason.
    """
    part = _part_path(dest)
    part.parent.mkdir(parents=True, exist_ok=True)
    last_error: Exception | None = None
    for attempt in range(1, retries + 2):
        offset = part.stat().st_size if part.exists() else 0
        request = urllib.request.Request(url, headers={"Range": f"bytes={offset}-"} if offset else {})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                if offset and response.status != 206:
                    offset = 0  # the server ignored the range: start over
                length = response.headers.get("Content-Length")
                total = offset + int(length) if length is not None else None
                with open(part, "ab" if offset else "wb") as handle, progress_bar(
                        enabled=progress, total=total, initial=offset, unit="B", unit_scale=True, desc=dest.name) as bar:
                    for chunk in iter(lambda: response.read(CHUNK), b""):
                        handle.write(chunk)
                        bar.update(len(chunk))
            size = part.stat().st_size
            if total is not None and size < total:
                raise http.client.IncompleteRead(b"", total - size)
            return part
        except urllib.error.HTTPError as error:
            if error.code == 416 and part.exists():  # range past the end: the part file is complete
                return part
            raise FetchError(f"{url}: HTTP {error.code} {error.reason}") from None
        except (http.client.IncompleteRead, ConnectionError, TimeoutError, urllib.error.URLError) as error:
            reason = unreachable(url, error)
            if reason is not None:
                raise FetchError(f"{url}: {reason}") from None
            last_error = error
            received = part.stat().st_size if part.exists() else 0
            if attempt <= retries:
                what = f"transfer interrupted at {received:,} bytes" if received else "no data received"
                log.warning("%s: %s (%s); retrying (%d of %d)", url, what, error, attempt, retries)
    raise FetchError(f"{url}: download failed after {retries + 1} attempts: {last_error}")


def _from_local_mirror(source: Path, dest: Path) -> Path | None:
    """Copy a mirrored file to ``dest.part``; None when the mirror does not have it."""
    if not source.is_file():
        return None
    part = _part_path(dest)
    part.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, part)
    return part


def fetch_file(dest: Path, expected: Expected, urls: Sequence[str], mirrors: Sequence[str] = (),
               mirror_path: str | None = None, *, progress: bool) -> str:
    """Obtain ``dest`` from the first source that has it with the right digest; returns that source.

    Sources are tried in order: each mirror (local directory or base URL, joined with
    ``mirror_path``), then ``urls``. A source whose file has the wrong digest is reported and
    skipped; if no source works the error lists every attempt.
    """
    dest = Path(dest)
    candidates: list[tuple[str, str]] = []
    for mirror in mirrors:
        if mirror_path is None:
            continue
        if "://" in mirror:
            candidates.append(("url", mirror.rstrip("/") + "/" + mirror_path))
        else:
            candidates.append(("dir", str(Path(mirror) / mirror_path)))
    candidates += [("url", url) for url in urls]
    if not candidates:
        raise FetchError(f"{dest.name}: no source known (no URL and no mirror copy)")
    failures = []
    for kind, source in candidates:
        try:
            if kind == "dir":
                part = _from_local_mirror(Path(source), dest)
                if part is None:
                    failures.append(f"{source}: not in the mirror")
                    continue
            else:
                part = http_download(source, dest, progress=progress)
            try:
                verify(part, expected, source)
            except HashMismatch:
                part.unlink(missing_ok=True)
                raise
            part.replace(dest)
            return source
        except FetchError as error:
            failures.append(str(error))
            log.warning("%s", error)
    raise FetchError(f"{dest.name}: no source worked:\n  " + "\n  ".join(failures))


def _inside(target: Path, name: str) -> bool:
    """Whether member ``name`` lands inside ``target``: ``sub/../ok.txt`` does, ``../x`` and ``/x`` do not."""
    path = PurePosixPath(name)
    if path.is_absolute():
        return False
    normal = posixpath.normpath(name)
    if normal == ".." or normal.startswith("../"):
        return False
    resolved = (target / normal).resolve()
    return resolved == target.resolve() or target.resolve() in resolved.parents


def _check_member_name(archive: Path, name: str, staging: Path, target: Path) -> None:
    """Refuse a member of a tar or zip ``archive`` whose ``name`` would land outside ``staging`` (where it is
    unpacked), naming ``target`` (where the user will look) in the message."""
    if not _inside(staging, name):
        raise FetchError(f"{archive}: member {name!r} would be written outside {target}")


def _check_tar(archive: Path, tar: tarfile.TarFile, staging: Path, target: Path) -> None:
    """Refuse a member of ``tar`` that lands outside ``staging``, a link that leaves it, or a device or pipe."""
    for member in tar.getmembers():
        _check_member_name(archive, member.name, staging, target)
        if member.issym() or member.islnk():
            base = PurePosixPath(member.name).parent if member.issym() else PurePosixPath(".")
            if PurePosixPath(member.linkname).is_absolute() or not _inside(staging, str(base / member.linkname)):
                raise FetchError(f"{archive}: link {member.name!r} -> {member.linkname!r} leaves {target}")
        elif not (member.isfile() or member.isdir()):
            raise FetchError(f"{archive}: member {member.name!r} is a device or pipe; refusing to extract")


def safe_extract(archive: str | Path, target: str | Path, members: Mapping[str, str] | None = None) -> list[str]:
    """Extract a tar (any compression) or zip archive into ``target`` after checking every member.

    Everything is unpacked into a staging directory beside ``target`` first, so a corrupted archive
    never leaves a partial tree; then each file is moved into ``target``, replacing a file of the
    same name but leaving every other file already there. With ``members`` (member path in the
    archive -> destination relative to ``target``) only those are kept, and a member missing from
    the archive is an error naming it. Returns the destination paths written, relative to ``target``.
    """
    archive, target = Path(archive), Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.extract.", dir=target.parent))
    try:
        try:
            if tarfile.is_tarfile(archive):
                with tarfile.open(archive) as tar:
                    _check_tar(archive, tar, staging, target)
                    entries = tar.getmembers()
                    for entry in entries:  # "sub/../ok.txt" -> "ok.txt": checked inside, written there
                        entry.name = posixpath.normpath(entry.name)
                    tar.extractall(staging, members=entries, filter="data")
            elif zipfile.is_zipfile(archive):
                with zipfile.ZipFile(archive) as zf:
                    for info in zf.infolist():
                        _check_member_name(archive, info.filename, staging, target)
                        if (info.external_attr >> 16) & 0o170000 == 0o120000:
                            raise FetchError(f"{archive}: member {info.filename!r} is a symbolic link; refusing")
                    bad = zf.testzip()
                    if bad is not None:
                        raise FetchError(f"{archive}: member {bad!r} is corrupted (CRC mismatch)")
                    for info in zf.infolist():
                        info.filename = posixpath.normpath(info.filename) + ("/" if info.is_dir() else "")
                        zf.extract(info, staging)
            else:
                raise FetchError(f"{archive}: not a tar or zip archive (truncated or corrupted download?)")
        except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError) as error:
            raise FetchError(f"{archive}: corrupted archive: {error}") from None
        unpacked = sorted(p.relative_to(staging).as_posix() for p in staging.rglob("*") if p.is_file())
        if members is None:
            moves = {name: name for name in unpacked}
        else:
            moves = {posixpath.normpath(src): dest for src, dest in members.items()}
            missing = sorted(src for src in moves if src not in unpacked)
            if missing:
                raise FetchError(f"{archive}: expected member(s) missing: {', '.join(missing)}")
        for src, dest in moves.items():  # every destination checked before the first move
            if not _inside(target, dest):
                raise FetchError(f"{archive}: destination {dest!r} of member {src!r} is outside {target}")
        for src, dest in moves.items():
            (target / dest).parent.mkdir(parents=True, exist_ok=True)
            os.replace(staging / src, target / dest)
        return sorted(moves.values())
    finally:
        shutil.rmtree(staging, ignore_errors=True)
