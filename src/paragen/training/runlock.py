"""One trainer per run directory, and no trainer outliving the workflow engine that started it.

If only Snakemake is killed, a ``paragen train`` it started would otherwise live on (re-parented to
init) and keep writing ``runs/<exp>/`` while a rerun starts a second trainer there: the published
model could come from either. :func:`run_lock` makes the second one refuse, naming the first;
:func:`die_with_parent` makes the first one end with its engine.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
from pathlib import Path
from typing import Iterator

from paragen.locks import OutputLockedError, holder_of, holding

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


RunLockedError = OutputLockedError  # the name the trainer's callers and tests know


@contextlib.contextmanager
def run_lock(run_dir: str | Path) -> Iterator[None]:
    """Create ``run_dir`` and hold its lock (:mod:`paragen.locks`, ``runs/.<exp>.lock``) exclusively while
    training: a second trainer, from either engine, and a decoder of the same run refuse, naming this one."""
    Path(run_dir).mkdir(parents=True, exist_ok=True)
    with holding(run_dir, doing="training"):
        yield


def lock_holder(run_dir: str | Path) -> str | None:
    """Who trains in ``run_dir`` now (the lock file's "pid (command)"), or None when nobody holds its lock."""
    return holder_of(run_dir)


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
