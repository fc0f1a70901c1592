"""Atomic file output: a crashed stage never leaves a complete-looking artifact.

Every artifact is written to a temporary file in the destination directory and
renamed into place, which POSIX guarantees to be atomic on one file system.
``mkstemp`` creates its file with mode 0600; the published file gets the mode
any normally created file would (0666 less the umask), so group members sharing
a project directory, a DVC cache or a remote can read it.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import IO, Any, Iterator


def current_umask() -> int:
    """The process umask (reading it means setting it, so it is set straight back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; rename it onto ``path`` on success."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        yield tmp
        os.chmod(tmp, 0o666 & ~current_umask())
        os.replace(tmp, path)
    except OSError as error:  # e.g. a full disk: name the file being written, not the temporary one (or none)
        if error.filename in (None, str(tmp), tmp):
            raise OSError(error.errno, f"{error.strerror or error} (writing {path}; nothing was published)",
                          str(path)) from None
        raise
    finally:
        tmp.unlink(missing_ok=True)


@contextlib.contextmanager
def atomic_open(path: str | Path, mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO[Any]]:
    """Open a temporary file for writing; it replaces ``path`` only if the block succeeds."""
    if "b" in mode:
        encoding = None
    with atomic_path(path) as tmp:
        with open(tmp, mode, encoding=encoding) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())


@contextlib.contextmanager
def replaced_directory(path: str | Path) -> Iterator[Path]:
    """Yield an empty temporary directory beside ``path``; when the block succeeds it replaces ``path`` whole.

    A stage that owns a directory (``data/prepared/<dataset>/``, ``data/segmented/<name>.<scheme>/``) writes it
    through this, so the directory holds exactly what the last run wrote: a reference, split or BPE file an
    earlier configuration produced cannot survive to be read by a later stage, and a crash publishes nothing
    (the old directory stays as it was). The swap is two renames on one file system, so a reader sees the old
    directory, then briefly none, then the new one, never a mixture."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
    try:
        yield staging
        os.chmod(staging, 0o777 & ~current_umask())
        retired = path.parent / f".{path.name}.{os.getpid()}.old"
        if retired.exists():
            shutil.rmtree(retired)
        if path.is_symlink() or path.is_file():
            path.unlink()
        elif path.exists():
            os.rename(path, retired)
        os.rename(staging, path)
        shutil.rmtree(retired, ignore_errors=True)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def write_text(path: str | Path, text: str) -> None:
    with atomic_open(path) as handle:
        handle.write(text)


def holds(path: str | Path, text: str) -> bool:
    """True when ``path`` exists and its content is exactly ``text`` (a generated file that is up to date)."""
    path = Path(path)
    return path.is_file() and path.read_text(encoding="utf-8") == text


def write_if_changed(path: str | Path, text: str) -> bool:
    """Write ``text`` to ``path`` atomically unless it already holds it; True when the file changed."""
    if holds(path, text):
        return False
    write_text(path, text)
    return True


def write_json(path: str | Path, data: Any) -> None:
    write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
