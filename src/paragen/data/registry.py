"""The dataset registry (``sources.yaml``) and ``paragen fetch``.

Every real dataset of the four papers has one entry: upstream URLs, digests, licence, citation,
the papers' expected counts and, where a file cannot be downloaded (LCSTS needs a licence
application; the Gigaword release sits behind an interactive link), exactly where to place it.
Files land in ``data/raw/<dataset>/``; a completion marker is written last, atomically.
"""

from __future__ import annotations

import functools
import gzip
import json
import logging
import os
import shutil
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Literal, Mapping, Sequence

import yaml
from pydantic import BaseModel, ConfigDict, Field

from paragen.atomic import atomic_open, write_json
from paragen.data.fetch import Expected, FetchError, digests, fetch_file, safe_extract, verify

log = logging.getLogger(__name__)
Scope = Literal["all", "eval"]


class ArchiveMember(BaseModel):
    """One file to take out of an archive entry, verified after extraction."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    member: str = Field(description="path inside the archive")
    path: str = Field(description="destination, relative to data/raw/<dataset>/")
    gunzip: bool = Field(False, description="the member is gzip-compressed: store it decompressed")
    sha256: str | None = None


class SourceFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str = Field(description="destination, relative to data/raw/<dataset>/")
    urls: list[str] = Field(default_factory=list)
    mirror: str | None = Field(None, description="path inside a local mirror (docs/datasets.md: a folder holding the public files under these paths)")
    sha256: str | None = None
    git_blob: str | None = None
    size: int | None = Field(None, description="expected bytes: checked always; the only check where no digest "
                             "is published (the sha256 is then recorded on first download)")
    lines: int | None = Field(None, description="expected line count")
    split: Literal["train", "eval"] = "eval"
    extract: list[ArchiveMember] = Field(default_factory=list,
                                         description="an archive: the members to unpack (safe_extract)")

    @property
    def expected(self) -> Expected:
        return Expected(self.sha256, self.git_blob, self.size)

    @property
    def manual(self) -> bool:
        return not self.urls and self.mirror is None


class DatasetSource(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    title: str
    citation: str
    licence: str
    homepage: str
    manual: str | None = Field(None, description="instructions for files that must be placed by hand")
    expected: dict[str, int] = Field(default_factory=dict, description="the papers' counts")
    files: list[SourceFile]


class ManualPlacementRequired(FetchError):
    """Some files can only be placed by hand; the message says which and where."""


def default_mirror() -> str | None:
    """The local mirror commands use unless told otherwise: $PARAGEN_MIRROR, else none (a mirror is an option a
    user sets: a clone has none beside it)."""
    return os.environ.get("PARAGEN_MIRROR") or None


@functools.lru_cache(maxsize=1)
def _packaged_registry() -> Mapping[str, DatasetSource]:
    """``sources.yaml`` parsed once a process: it ships inside the package and does not change while paragen
    runs, and validating params.yaml reads it once per real dataset (13 pure-Python YAML parses, about a second
    of every ``paragen`` command and every Snakemake job)."""
    text = resources.files("paragen.data").joinpath("sources.yaml").read_text(encoding="utf-8")
    raw = yaml.safe_load(text)["datasets"]
    return MappingProxyType({name: DatasetSource.model_validate(entry) for name, entry in raw.items()})


def load_registry() -> dict[str, DatasetSource]:
    """Every registry entry by dataset name: a new dict each call, so a caller that adds or drops entries changes
    no other caller's view (the entries themselves are frozen)."""
    return dict(_packaged_registry())


def dataset_source(name: str) -> DatasetSource:
    registry = load_registry()
    if name not in registry:
        raise FetchError(f"unknown dataset {name!r}; allowed values: {', '.join(sorted(registry))}")
    return registry[name]


def raw_dir(name: str, root: str | Path) -> Path:
    return Path(root) / name


def marker_path(name: str, scope: Scope, root: str | Path) -> Path:
    return raw_dir(name, root) / f".complete-{scope}.json"


RECORDED_DIGESTS = ".recorded-digests.json"
"""Per raw directory: sha256 of files whose digest no one publishes, recorded when first downloaded."""


def _recorded(directory: Path) -> dict[str, dict]:
    path = directory / RECORDED_DIGESTS
    if not path.exists():
        return {}
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise FetchError(f"{path}:{error.lineno}: not valid JSON ({error.msg}); delete it to record the digests "
                         "afresh") from None


def expected_for(directory: Path, file: SourceFile) -> Expected:
    """The registry's expectation, or, for a file without a published digest, the digest recorded earlier.

    A recording made for another size than the registry now expects (the release changed) is ignored.
    """
    expected = file.expected
    recorded = _recorded(directory).get(file.path)
    if not expected.pinned and recorded is not None and expected.size in (None, recorded.get("size")):
        return Expected(recorded["sha256"], None, expected.size)
    return expected


def record_digest(directory: Path, file: SourceFile) -> str:
    """Record the sha256 of a file no digest is published for (its size was verified); returns the digest."""
    path = directory / file.path
    sha256, _ = digests(path)
    recorded = {**_recorded(directory), file.path: {"sha256": sha256, "size": path.stat().st_size}}
    write_json(directory / RECORDED_DIGESTS, recorded)
    log.warning("%s: no sha256 is published for this file; %s, and its sha256 %s is recorded in %s (later fetches "
                "are checked against it; put it in sources.yaml to pin it for everyone)", path,
                f"its size matched ({file.size:,} bytes)" if file.size else "its size is not published either",
                sha256, directory / RECORDED_DIGESTS)
    return sha256


def unpack_members(archive: Path, directory: Path, members: Sequence[ArchiveMember]) -> None:
    """Extract ``members`` of ``archive`` into ``directory`` through :func:`safe_extract`, then verify them.

    Files already in ``directory`` stay; a member with a known sha256 that does not match is an error.
    """
    safe_extract(archive, directory, {m.member: m.path + (".gz" if m.gunzip else "") for m in members})
    for m in members:
        dest = directory / m.path
        if m.gunzip:
            with gzip.open(dest.with_name(dest.name + ".gz"), "rb") as packed, atomic_open(dest, "wb") as out:
                shutil.copyfileobj(packed, out)
            dest.with_name(dest.name + ".gz").unlink()
        if m.sha256:
            verify(dest, Expected(m.sha256, None), f"{archive}:{m.member}")
        log.info("%s: unpacked from %s", dest, archive.name)


def usable_mirrors(mirrors: Sequence[str]) -> list[str]:
    """Mirrors worth consulting: base URLs, and local directories that exist.

    A local mirror that does not exist is named once, in one warning, and skipped, instead of being
    reported as "not in the mirror" for every file (a mirror named on another machine may be absent here,
    so this is not an error).
    """
    usable = []
    for mirror in mirrors:
        if "://" in mirror or Path(mirror).is_dir():
            usable.append(mirror)
        else:
            what = "is not a directory" if Path(mirror).exists() else "does not exist"
            log.warning("mirror %s %s; skipping it (a mirror is a directory laid out as "
                        "docs/datasets.md describes, or a base URL)", mirror, what)
    return usable


def fetch_dataset(name: str, mirrors: list[str], scope: Scope, root: str | Path = "data/raw", *,
                  progress: bool) -> Path:
    """Fetch every file of ``name`` in ``scope``; returns the completion marker's path.

    Files already present and verified are kept. Files that only a person can provide are
    checked last: if any is missing the error names each path and repeats the dataset's
    instructions, after everything downloadable has been fetched.
    """
    source = dataset_source(name)
    mirrors = usable_mirrors(mirrors)
    directory = raw_dir(name, root)
    marker = marker_path(name, scope, root)
    wanted = [f for f in source.files if scope == "all" or f.split == "eval"]
    missing_manual = []
    obtained = {}
    for file in wanted:
        dest = directory / file.path
        if file.extract and not dest.exists() and all((directory / m.path).exists() for m in file.extract):
            obtained[file.path] = "members already unpacked"
            continue
        expected = expected_for(directory, file)
        if dest.exists():
            try:
                verify(dest, expected, str(dest))
                obtained[file.path] = "present"
                if not expected.pinned:  # placed by hand, or a fetch stopped before recording: record it now
                    record_digest(directory, file)
                continue
            except FetchError as error:
                against = f" (checked against the sha256 recorded in {directory / RECORDED_DIGESTS})" \
                    if expected.sha256 and not file.expected.pinned else ""
                log.warning("%s: present but %s%s; fetching again", dest, str(error).split(": ", 1)[-1], against)
                dest.unlink()
        if file.manual:
            missing_manual.append(dest)
            continue
        obtained[file.path] = fetch_file(dest, expected, file.urls, mirrors, file.mirror, progress=progress)
        if not expected.pinned:
            record_digest(directory, file)
        log.info("%s: %s", dest, obtained[file.path])
    for file in wanted:
        if file.extract and (directory / file.path).exists():
            unpack_members(directory / file.path, directory, file.extract)
    if missing_manual:
        marker.unlink(missing_ok=True)
        raise ManualPlacementRequired(
            f"{name}: {len(missing_manual)} file(s) must be placed by hand:\n  "
            + "\n  ".join(str(p) for p in missing_manual) + f"\n{source.manual or ''}")
    write_json(marker, {"dataset": name, "scope": scope, "files": obtained})
    return marker
