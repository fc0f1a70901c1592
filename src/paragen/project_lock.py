"""One engine at a time per clone: ``snakemake`` and ``dvc repro`` take the project lock before any stage runs.

The per-output locks (:mod:`paragen.locks`) stop two processes writing one output, but not an engine that starts
beside another: ``dvc repro`` (which knows nothing of a ``snakemake`` run and of the outputs that run has not yet
recorded into ``dvc.lock``) would prepare, segment and build vocabularies again under a running trainer, and stop
only at the training stage. So the whole clone has one more lock, ``.paragen-engine.lock`` at its root, an
``flock`` held for as long as an engine runs:

* Snakemake takes it in the Snakefile's ``onstart`` (after it has built the DAG, before its first job; not in a
  dry run) and holds it until it exits (:func:`hold_for_snakemake`). In a DVC repository it also writes itself
  into DVC's own path lock (``.dvc/tmp/rwlock``) as the writer of the whole clone: ``dvc repro`` checks that lock
  for each stage before it deletes the stage's outputs (DVC removes a stage's outputs before running its command,
  too early for a check in the command), so it stops at its first stage, touching nothing, with DVC's message
  "... is busy, it is being blocked by: (PID n): snakemake ...". The entry goes before Snakemake records its
  outputs into ``dvc.lock`` and when it exits; after a ``kill -9`` DVC drops it itself (its PID is gone).
* DVC has no such hook, so the first ``paragen`` command a ``dvc`` process runs takes it and hands it to a small
  process that holds it until that ``dvc`` process exits (:func:`claim_for_stage`); the later stages of the same
  ``dvc`` find it theirs. Every stage of DVC is a ``paragen`` command, so none runs before the check.

The second engine refuses at once in one line naming the first (its process and since when). The kernel drops an
``flock`` when its holder dies, ``kill -9`` included, so the project lock is never stale. Snakemake's own lock
(``.snakemake/locks``) is: after a kill it stops every later run with "Directory cannot be locked". With the
project lock free, no engine is running here, so :func:`clear_stale_snakemake_locks` removes those files and says
so in one line.
"""

from __future__ import annotations

import atexit
import fcntl
import os
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import IO

from paragen.locks import OutputLockedError, engine_of

LOCK_NAME = ".paragen-engine.lock"
_held: IO[str] | None = None  # Snakemake's handle: open, and so locked, until the process exits


class EngineBusyError(OutputLockedError):
    """Another workflow engine runs this clone's stages."""


def _path(root: str | Path) -> Path:
    return Path(root) / LOCK_NAME


def _alive(pid: int) -> bool:
    return Path(f"/proc/{pid}").exists() if Path("/proc").is_dir() else _signal_zero(pid)


def _signal_zero(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _engine_pid(description: str) -> int | None:
    """The engine's pid in a holder's description (``"dvc (pid 123) since ..."``)."""
    try:
        return int(description.split("(pid ", 1)[1].split(")", 1)[0])
    except (IndexError, ValueError):
        return None


def _try_lock(path: Path) -> tuple[IO[str] | None, str]:
    """(the locked handle, "") or (None, what the holder wrote). A holder whose engine has just exited gets up to
    three seconds to let go (DVC's keeper looks twice a second)."""
    deadline = time.monotonic() + 3.0
    while True:
        handle = open(path, "a+", encoding="utf-8")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return handle, ""
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            handle.close()
            pid = _engine_pid(holder)
            if pid is not None and not _alive(pid) and time.monotonic() < deadline:
                time.sleep(0.2)
                continue
            return None, holder


def _refusal(holder: str, starting: str) -> EngineBusyError:
    pid = _engine_pid(holder)
    stop = f", or stop it (`kill {pid}`; a stopped training resumes after its last finished epoch)" if pid else ""
    return EngineBusyError(f"{holder} is running this project's stages; not starting {starting} beside it (both "
                           f"would write the same outputs): wait for it to finish{stop}")


def _describe(engine: str, pid: int) -> str:
    return f"{engine} (pid {pid}) since {datetime.now().isoformat(timespec='seconds')}"


def hold_for_snakemake(root: str | Path = ".") -> None:
    """Snakemake's ``onstart``: take the project lock for the rest of this process, or refuse naming its holder."""
    global _held
    if _held is not None:
        return
    handle, holder = _try_lock(_path(root))
    if handle is None:
        raise _refusal(holder, f"snakemake (pid {os.getpid()})")
    handle.seek(0)
    handle.truncate()
    description = _describe("snakemake", os.getpid())
    handle.write(description + "\n")
    handle.flush()
    _held = handle
    _dvc_path_lock(root, f"{description}, paragen's project lock: one engine at a time; wait for it, or stop it")
    atexit.register(release_for_snakemake, Path(root).resolve())


def _dvc_path_lock(root: str | Path, holder: str | None) -> None:
    """Write (``holder``: the text DVC shows) or remove this process's write lock on the whole clone in DVC's path
    lock file, through DVC's own editor of it (its guard lock, its schema). Nothing outside a DVC repository, or
    where this DVC has no such editor."""
    tmp = Path(root) / ".dvc" / "tmp"
    if not tmp.parent.is_dir():
        return
    try:
        from dvc.fs import localfs
        from dvc.rwlock import _edit_rwlock
    except ImportError:  # pragma: no cover - a DVC without the path lock: the project lock alone
        return
    tmp.mkdir(exist_ok=True)
    key = str(Path(root).resolve())
    with _edit_rwlock(str(tmp), localfs, False) as lock:
        mine = lock["write"].get(key, {}).get("pid") == os.getpid()
        if holder is not None:
            lock["write"][key] = {"pid": os.getpid(), "cmd": holder}
        elif mine:
            del lock["write"][key]
            if not lock["write"]:
                del lock["write"]


def release_for_snakemake(root: str | Path = ".") -> None:
    """Snakemake's ``onsuccess`` / ``onerror``: take this process out of DVC's path lock (it is about to record its
    outputs into dvc.lock through DVC, or to exit); the project lock goes when the process ends."""
    if _held is not None:
        _dvc_path_lock(root, None)


def claim_for_stage(root: str | Path = ".") -> None:
    """A ``paragen`` command's first step: under ``dvc``, make sure this ``dvc`` process holds the project lock
    (taking it, and starting its keeper, at its first stage), else refuse naming the engine that holds it. Under
    Snakemake the engine holds it already (a cluster job's command may run on another machine); a command run by
    hand takes nothing (the per-output locks still apply)."""
    engine = engine_of(os.getppid())
    if engine is None or not engine.startswith("dvc"):
        return
    dvc_pid = _engine_pid(engine)
    assert dvc_pid is not None
    path = _path(root)
    handle, holder = _try_lock(path)
    if handle is None:
        if _engine_pid(holder) == dvc_pid and holder.startswith("dvc"):
            return  # a later stage of the dvc that holds it
        raise _refusal(holder, f"dvc (pid {dvc_pid})")
    try:
        handle.seek(0)
        handle.truncate()
        handle.write(_describe("dvc", dvc_pid) + "\n")
        handle.flush()
        subprocess.Popen([sys.executable, "-m", "paragen.project_lock", str(dvc_pid), str(handle.fileno())],
                         pass_fds=(handle.fileno(),), start_new_session=True, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True)
    finally:
        handle.close()  # the keeper holds the same open file, and so the lock, from here on


def clear_stale_snakemake_locks(root: str | Path = ".") -> str | None:
    """Snakemake's lock files left by a run that was killed, removed when no engine holds the project lock (no
    ``snakemake`` past its ``onstart``, no ``dvc`` running stages); the one line to print, or None."""
    locks = Path(root) / ".snakemake" / "locks"
    files = sorted(locks.glob("*")) if locks.is_dir() else []
    if not files:
        return None
    handle, _ = _try_lock(_path(root))
    if handle is None:
        return None  # an engine runs: its locks are live (Snakemake's own check then speaks)
    try:
        for file in files:
            file.unlink(missing_ok=True)
    finally:
        handle.close()
    return (f"paragen: removed Snakemake's lock ({len(files)} file(s) in .snakemake/locks) left by a run that was "
            "stopped (kill, power loss): no snakemake or dvc runs this project now")


def _keep(dvc_pid: int, fd: int) -> None:
    """The keeper: hold the inherited lock until the ``dvc`` process exits."""
    while _alive(dvc_pid):
        time.sleep(0.5)
    os.close(fd)


if __name__ == "__main__":
    _keep(int(sys.argv[1]), int(sys.argv[2]))
