"""Packing a call's results into the few, size-limited files a GPU machine can send back, and reading them here.

Each item (a job's light outputs, one training's resume state, one run's weights, a benchmark's files) becomes
one gzip tar *member*; the members are chosen in priority order while they fit the budget (what does not fit is
listed as left behind, with its size), laid end to end in one byte stream, and the stream is cut into parts of at
most ``part_bytes``. ``manifest.json`` lists every part and member with its size and sha256, so the receiving
side checks each part, the whole stream and each member before it unpacks anything (:func:`read_pack`); a part
that is missing, truncated or altered stops the unpacking, naming it, before any file is written.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paragen.atomic import atomic_path, write_json
from paragen.config import ConfigError

MiB = 1 << 20
PART_PREFIX = "pack.part"
SAFE_FILE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
"""What a returned file may be called (the device returns no other name)."""


@dataclass(frozen=True)
class Budget:
    """What may come back from one call: ``total`` bytes of parts, each at most ``part`` bytes, at most
    ``parts`` of them (the device: 8 files of 16 MiB, 64 MiB together; the manifest and the log take two)."""

    total: int = 60 * MiB
    part: int = 15 * MiB
    parts: int = 6

    @property
    def usable(self) -> int:
        return min(self.total, self.part * self.parts)


@dataclass
class PackItem:
    """One member: ``paths`` (files or folders, relative to the checkout's root) under ``name``."""

    name: str
    kind: str  # outputs | weights | resume | command
    paths: list[str]
    info: dict[str, Any] = field(default_factory=dict)


def sha256_file(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _member(item: PackItem, root: Path, folder: Path) -> Path:
    path = folder / f"{item.name}.tgz"
    with tarfile.open(path, "w:gz", compresslevel=6) as tar:
        for relative in item.paths:
            if (root / relative).exists():
                tar.add(root / relative, arcname=relative)
    return path


def pack(items: list[PackItem], root: str | Path, out: str | Path, budget: Budget,
         manifest: dict[str, Any]) -> dict[str, Any]:
    """Write the parts of ``items`` that fit ``budget`` (in the order given) and ``manifest.json`` (``manifest``
    plus ``items``, ``left`` and ``parts``) into ``out``; returns the manifest written."""
    root, out = Path(root), Path(out)
    out.mkdir(parents=True, exist_ok=True)
    chosen, left, offset = [], [], 0
    with tempfile.TemporaryDirectory(prefix=".gpu-queue-pack.", dir=root) as staging:
        members = []
        for item in items:
            member = _member(item, root, Path(staging))
            size = member.stat().st_size
            entry = {"name": item.name, "kind": item.kind, "paths": item.paths, "bytes": size, **item.info}
            if offset + size > budget.usable:
                left.append(entry)
                member.unlink()
                continue
            chosen.append({**entry, "offset": offset, "sha256": sha256_file(member)})
            members.append(member)
            offset += size
        parts, whole, index = [], hashlib.sha256(), 0
        buffer = b""
        for member in members + [None]:
            if member is not None:
                with open(member, "rb") as handle:
                    buffer += handle.read()
            while len(buffer) >= budget.part or (member is None and buffer):
                piece, buffer = buffer[:budget.part], buffer[budget.part:]
                name = f"{PART_PREFIX}{index:02d}"
                with atomic_path(out / name) as tmp:
                    tmp.write_bytes(piece)
                whole.update(piece)
                parts.append({"name": name, "bytes": len(piece), "sha256": hashlib.sha256(piece).hexdigest()})
                index += 1
    written = {**manifest, "items": chosen, "left": left, "parts": parts, "stream_sha256": whole.hexdigest(),
               "stream_bytes": offset}
    write_json(out / "manifest.json", written)
    return written


def _safe_part(files: Path, name: Any) -> Path:
    if not isinstance(name, str) or not SAFE_FILE.fullmatch(name):
        raise ConfigError(f"{files / 'manifest.json'}: part name {name!r} is not a plain file name")
    return files / name


def read_pack(files: str | Path, manifest: dict[str, Any], folder: str | Path) -> dict[str, Path]:
    """Check every part against ``manifest`` (size, sha256), the joined stream and each member, and write the
    members into ``folder``: {item name: its .tgz}. Nothing is written if any check fails."""
    files, folder = Path(files), Path(folder)
    whole = hashlib.sha256()
    with tempfile.TemporaryFile() as stream:
        for part in manifest["parts"]:
            path = _safe_part(files, part.get("name"))
            if not path.is_file():
                raise ConfigError(f"{path}: part missing (the call returned {sorted(p.name for p in files.iterdir())})")
            data = path.read_bytes()
            if len(data) != part.get("bytes") or hashlib.sha256(data).hexdigest() != part.get("sha256"):
                raise ConfigError(f"{path}: {len(data)} bytes whose sha256 differs from the manifest's "
                                  f"({part.get('bytes')} bytes): truncated or altered")
            whole.update(data)
            stream.write(data)
        if whole.hexdigest() != manifest.get("stream_sha256"):
            raise ConfigError(f"{files}: the parts joined do not give the manifest's stream (parts out of order?)")
        members: dict[str, Path] = {}
        folder.mkdir(parents=True, exist_ok=True)
        for item in manifest["items"]:
            name = item.get("name")
            if not isinstance(name, str) or not SAFE_FILE.fullmatch(name):
                raise ConfigError(f"{files / 'manifest.json'}: item name {name!r} is not a plain name")
            stream.seek(int(item["offset"]))
            data = stream.read(int(item["bytes"]))
            if hashlib.sha256(data).hexdigest() != item.get("sha256"):
                raise ConfigError(f"{files}: member {name} does not match its sha256 in the manifest")
            members[name] = folder / f"{name}.tgz"
            members[name].write_bytes(data)
    return members


ALLOWED_ROOTS = ("runs", "results", "logs")
"""Where a returned member may write: run folders, committed results and stage logs (never code or config)."""


def member_paths(member: Path) -> list[str]:
    """The file names inside a member, refused when one lies outside :data:`ALLOWED_ROOTS` or is not a plain
    file or folder."""
    with tarfile.open(member) as tar:
        names = []
        for entry in tar.getmembers():
            parts = Path(entry.name).parts
            if not parts or parts[0] not in ALLOWED_ROOTS or ".." in parts or Path(entry.name).is_absolute():
                raise ConfigError(f"{member}: member {entry.name!r} is outside {', '.join(ALLOWED_ROOTS)}")
            if not (entry.isfile() or entry.isdir()):
                raise ConfigError(f"{member}: member {entry.name!r} is not a plain file or folder")
            if entry.isfile():
                names.append(entry.name)
    return names


def copy_member(member: Path, destination: Path) -> None:
    """Keep a member as it came (a resume state, unpacked only on the machine that resumes it)."""
    with atomic_path(destination) as tmp:
        shutil.copyfile(member, tmp)
