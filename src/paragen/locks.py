"""One lock per output, shared by both engines: a stage refuses while another process writes what it writes.

Snakemake's lock (``.snakemake/locks``) and DVC's (``.dvc/tmp/rwlock``) each know only their own engine, so
``dvc repro`` could start writing ``runs/<exp>/`` while ``snakemake`` trained the same experiment. Every paragen
command that writes a run directory, a prepared, segmented or vocabulary directory or a table therefore holds an
``flock`` on a lock file *beside* that output (``runs/.<exp>.lock``, ``data/prepared/.<dataset>.lock``,
``results/tables/.<table>.lock``): beside, not inside, so the lock is never part of a directory an engine
declares and caches. The kernel drops the lock when its process dies (``kill -9`` included), so a crash never
leaves a stale lock to clear by hand.

Writers hold it exclusively; readers that must not see a half-written output (decoding a run that is training)
hold it shared, so two decoders of one run can work side by side but neither runs beside its trainer. The lock
file names its holder: the process, its command and the engine that started it (the nearest ancestor that is
``snakemake`` or ``dvc``), which the refusal repeats.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sys
from pathlib import Path
from typing import Iterator


class OutputLockedError(RuntimeError):
    """Another live process writes (or reads, for a writer) this output."""


def lock_file(target: str | Path) -> Path:
    """The lock file of ``target`` (a file or directory path): a hidden file beside it."""
    target = Path(target)
    return target.parent / f".{target.name}.lock"


def engine_of(pid: int) -> str | None:
    """``"snakemake (pid N)"`` or ``"dvc (pid N)"`` for the nearest ancestor of ``pid`` running that engine, else
    None (a command run by hand). Linux's /proc only; elsewhere None."""
    seen = 0
    while pid > 1 and seen < 32:
        seen += 1
        try:
            words = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return None
        names = {Path(w.decode(errors="replace")).name for w in words[:3] if w}
        for engine in ("snakemake", "dvc"):
            if engine in names:
                return f"{engine} (pid {pid})"
        pid = int(stat.rsplit(")", 1)[1].split()[1])  # field 4, the parent; the name in () may hold spaces
    return None


def describe_self() -> str:
    """What the lock file says of its holder: ``"1234 (paragen train ...) under snakemake (pid 99)"``."""
    engine = engine_of(os.getppid())
    return f"{os.getpid()} ({' '.join(sys.argv)})" + (f" under {engine}" if engine else "")


@contextlib.contextmanager
def holding(target: str | Path, shared: bool = False, doing: str = "writing") -> Iterator[None]:
    """Hold ``target``'s lock for the block, exclusively (a writer) or ``shared`` (a reader); refuse at once,
    naming the holder, when another process holds it in a conflicting way."""
    path = lock_file(target)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = open(path, "a+", encoding="utf-8")
    try:
        try:
            fcntl.flock(handle, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process reading it (a decode or an alignment)"
            pid = holder.split()[0] if holder[:1].isdigit() else None
            stop = f"wait for it, or stop it with `kill {pid}`" if pid else "wait for it"
            resumes = "; a stopped training resumes after its last finished epoch" if doing == "training" else ""
            raise OutputLockedError(f"{target} is in use by process {holder}; not {doing} it at the same time "
                                    f"({stop}{resumes})") from None
        if not shared:
            handle.seek(0)
            handle.truncate()
            handle.write(describe_self() + "\n")
            handle.flush()
        try:
            yield
        finally:
            if not shared:  # a reader's refusal must not name a writer that has finished
                handle.seek(0)
                handle.truncate()
    finally:
        handle.close()  # releases the lock


def holder_of(target: str | Path) -> str | None:
    """Who holds ``target``'s lock exclusively now (the lock file's description), or None."""
    path = lock_file(target)
    if not path.exists():
        return None
    with open(path, "a+", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            return handle.read().strip() or "another process"
        fcntl.flock(handle, fcntl.LOCK_UN)
    return None
