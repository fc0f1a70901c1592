"""One trainer per run directory, and no trainer outliving the workflow engine that started it.

If only Snakemake is killed, a ``paragen train`` it started would otherwise live on (re-parented to
init) and keep writing ``runs/<exp>/`` while a rerun starts a second trainer there: the published
model could come from either. :func:`run_lock` makes the second one refuse, naming the first;
:func:`die_with_parent` makes the first one end with its engine.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import signal
import sys
from pathlib import Path
from typing import Iterator

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


class RunLockedError(RuntimeError):
    """Another live process is training in this run directory."""


@contextlib.contextmanager
def run_lock(run_dir: str | Path) -> Iterator[None]:
    """Hold ``run_dir/train.lock`` exclusively for the block; the kernel drops it if the process dies."""
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    path = run_dir / "train.lock"
    handle = open(path, "a+", encoding="utf-8")
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            pid = holder.split()[0] if holder[:1].isdigit() else None
            stop = f"stop it with `kill {pid}` (a rerun resumes after its last finished epoch) or wait for it" \
                if pid else "wait for it"
            raise RunLockedError(f"{run_dir} is being trained by process {holder}; {stop}") from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()} ({' '.join(sys.argv)})\n")
        handle.flush()
        yield
    finally:
        handle.close()  # releases the lock


def lock_holder(run_dir: str | Path) -> str | None:
    """Who trains in ``run_dir`` now (the lock file's "pid (command)"), or None when nobody holds its lock."""
    path = Path(run_dir) / "train.lock"
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


def die_with_parent(sig: int = signal.SIGTERM) -> bool:
    """Ask Linux to send ``sig`` to this process when its parent dies; False where that is not available.

    If the parent is already gone (we were re-parented before asking), exit at once.
    """
    if not sys.platform.startswith("linux"):
        return False
    parent = os.getppid()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0) != 0:
        return False
    if os.getppid() != parent:
        os.kill(os.getpid(), sig)
    return True
