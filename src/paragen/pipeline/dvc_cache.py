"""Rehash DVC's cache: find objects whose content no longer matches their name.

DVC 3 stores each object under ``<cache>/files/md5/<first 2 hex>/<other 30 hex>`` (directory
listings end in ``.dir``). ``dvc status`` and ``dvc checkout`` trust an object whose size and mtime
are unchanged, so one corrupted in place is restored silently; rehashing is the only check.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Iterator

from paragen.progress import progress_bar


def cache_objects(cache: str | Path) -> Iterator[tuple[Path, str]]:
    """Every object file with the md5 its path names."""
    root = Path(cache) / "files" / "md5"
    for prefix in sorted(root.glob("??")):
        for path in sorted(prefix.iterdir()):
            if path.is_file() and not path.name.endswith((".tmp", ".unpacked")):
                yield path, prefix.name + path.name.removesuffix(".dir")


def md5_of(path: Path) -> str:
    digest = hashlib.md5()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def corrupted_objects(cache: str | Path, progress: bool = False) -> list[tuple[Path, str]]:
    """(object path, actual md5) of every object whose content does not hash to its name."""
    if not (Path(cache) / "files" / "md5").is_dir():
        raise FileNotFoundError(f"{cache}: no DVC 3 cache here (expected {Path(cache) / 'files' / 'md5'})")
    bad = []
    for path, expected in progress_bar(list(cache_objects(cache)), enabled=progress, desc="rehash", unit="object"):
        actual = md5_of(path)
        if actual != expected:
            bad.append((path, actual))
    return bad
