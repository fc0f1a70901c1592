"""What travels between this checkout and a GPU machine besides the tracked files: the resume states the queue
keeps (``resume_store``), the data the jobs read, and how big the whole copy is.

A GPU machine is sent the checkout's tracked files, untracked files git does not ignore, and the ignored paths a
call names (``carry``), 64 MiB in all; it starts bare unless a call finds it still warm from the last one. So a
call restores each training's resume state from the store when the machine has none, or an older one
(:func:`restore_resume`), and ``paragen gpu-queue stage`` packs the data into a carried archive and says, before
the call, whether everything fits (:func:`travel_size`).
"""

from __future__ import annotations

import logging
import shutil
import subprocess
import tarfile
from pathlib import Path
from typing import Any, Iterable

from paragen.artifacts import run_dir
from paragen.atomic import atomic_path
from paragen.pipeline.queue_pack import MiB, member_paths, sha256_file
from paragen.pipeline.stage import Stage
from paragen.training.stopping import RESUME_DIR

log = logging.getLogger(__name__)

TRAVEL_LIMIT = 64 * MiB
"""The most a call sends to the GPU machine: tracked and untracked files and the carried paths together."""
DATA_ARCHIVE = ".gpuqueue/data.tgz"
"""The jobs' prepared data, carried to the GPU machine (git ignores .gpuqueue/)."""


def resume_state_file(run: str) -> Path:
    return Path(run_dir(run)) / RESUME_DIR / "state.pt"


def trained_epochs(run: str) -> int | None:
    """The epochs a run's resume state here has trained (None: no state)."""
    from paragen.training.checkpoint import load_torch

    path = resume_state_file(run)
    if not path.exists():
        return None
    import torch

    return int(load_torch(path, torch.device("cpu"))["train_state"]["epoch"])


def describe_resume(run: str) -> dict[str, Any]:
    """A run's resume state as the record keeps it: epochs trained, whether it has finished, its best epoch."""
    from paragen.training.checkpoint import load_torch

    import torch

    state = load_torch(resume_state_file(run), torch.device("cpu"))["train_state"]
    rows = state.get("log_rows") or []
    return {"epoch": int(state["epoch"]), "finished": bool(state["finished"]), "best_epoch": int(state["best_epoch"]),
            "valid_metric": rows[-1].get("valid_metric") if rows else None}


def train_run(stage: Stage) -> str | None:
    """The run a train stage trains (the run folder of its kept ``resume.json``), None for other stages."""
    return Path(stage.kept[0]).parent.name if stage.step == "train" and stage.kept else None


def resume_folder(stage: Stage) -> str:
    """A train stage's resume state (``runs/<run>/resume``, beside its kept ``resume.json``; no engine's output)."""
    return str(Path(stage.kept[0]).parent / RESUME_DIR)


def restore_resume(records: dict[str, dict[str, Any]], store: Path) -> list[str]:
    """Put each recorded resume state where its training looks for it, unless this machine already has that run's
    state at least as far on (a warm machine keeps its own). Returns one line per run saying what was done."""
    said = []
    for run, entry in records.items():
        archive = store / str(entry.get("file"))
        here = trained_epochs(run)
        if here is not None and here >= int(entry["epoch"]):
            said.append(f"{run}: this machine's resume state (epoch {here}) kept")
            continue
        if not archive.is_file():
            said.append(f"{run}: resume state of epoch {entry['epoch']} not here ({archive}); its training waits")
            continue
        if sha256_file(archive) != entry.get("sha256"):
            said.append(f"{run}: {archive} does not match its recorded sha256; not used, its training waits")
            continue
        prefix = f"{run_dir(run)}/{RESUME_DIR}/"
        if not all(name.startswith(prefix) for name in member_paths(archive)):
            said.append(f"{run}: {archive} holds files outside {prefix}; not used")
            continue
        shutil.rmtree(Path(run_dir(run)) / RESUME_DIR, ignore_errors=True)
        with tarfile.open(archive) as tar:
            tar.extractall(".", filter="data")
        said.append(f"{run}: resume state of epoch {entry['epoch']} restored from {archive}")
    return said


def data_archive(paths: Iterable[str], archive: str | Path = DATA_ARCHIVE) -> list[str]:
    """Pack the data folders and files among ``paths`` that exist here into ``archive`` (gzip tar); returns what
    was packed. The GPU machine unpacks it before the queue runs (bench/gpu_queue.sh)."""
    present = sorted(p for p in dict.fromkeys(paths) if Path(p).exists())
    with atomic_path(archive) as tmp:
        with tarfile.open(tmp, "w:gz") as tar:
            for path in present:
                tar.add(path)
    return present


def unpack_data(archive: str | Path = DATA_ARCHIVE) -> list[str]:
    """Unpack :func:`data_archive`'s archive here, after checking that it writes under ``data/`` alone."""
    from paragen.config import ConfigError
    from paragen.data.fetch import safe_extract

    with tarfile.open(archive) as tar:
        outside = [m.name for m in tar.getmembers()
                   if Path(m.name).parts[:1] != ("data",) or ".." in Path(m.name).parts]
    if outside:
        raise ConfigError(f"{archive}: holds {outside[:3]} outside data/; not unpacked")
    return safe_extract(archive, ".")


def data_paths(stages: Iterable[Stage]) -> list[str]:
    """What a machine needs to skip the data stages: their outputs, and for a fetch stage the folder its marker
    lies in (the fetched files themselves are not declared)."""
    found = []
    for stage in stages:
        for out in stage.outs:
            found.append(str(Path(out).parent) if stage.step == "fetch" else out)
    return found


def travel_size(carried: Iterable[str]) -> tuple[int, dict[str, int]]:
    """Bytes a call sends: the tracked and untracked-not-ignored files (git's view) plus each carried path."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            capture_output=True, check=True).stdout.split(b"\0")
    tree = sum(Path(name.decode()).stat().st_size for name in listed if name and Path(name.decode()).is_file())
    sizes = {"checkout (tracked and untracked files)": tree}
    for path in carried:
        target = Path(path)
        files = [target] if target.is_file() else [p for p in target.rglob("*") if p.is_file()]
        sizes[path] = sum(p.stat().st_size for p in files)
    return sum(sizes.values()), sizes


def ignored(path: str) -> bool:
    """Whether git ignores ``path`` (then only ``carry`` takes it to the GPU machine)."""
    return subprocess.run(["git", "check-ignore", "-q", path], capture_output=True).returncode == 0


def prepare_travel(data: list[str], resume_store: str, wheels: str = ".whl") -> tuple[list[str], list[str]]:
    """Pack ``data`` (the pending jobs' data, :func:`data_paths`) into :data:`DATA_ARCHIVE` and size the next
    call: returns (the paths to carry, lines saying what travels and whether it fits :data:`TRAVEL_LIMIT`)."""
    packed = data_archive(data)
    carry = [p for p in (str(Path(DATA_ARCHIVE).parent), wheels) if Path(p).exists()]
    if Path(resume_store).exists() and ignored(resume_store) and not resume_store.startswith(carry[0] + "/"):
        carry.append(resume_store)
    total, sizes = travel_size(carry)
    lines = [f"{DATA_ARCHIVE}: {len(packed)} data paths ({', '.join(packed) or 'none'})"]
    lines += [f"{name}: {size / MiB:.1f} MiB" for name, size in sizes.items()]
    verdict = "fits" if total <= TRAVEL_LIMIT else f"is {(total - TRAVEL_LIMIT) / MiB:.1f} MiB over"
    lines.append(f"travels: {total / MiB:.1f} MiB, which {verdict} the {TRAVEL_LIMIT // MiB} MiB a call takes")
    if not Path(wheels).exists():
        lines.append(f"{wheels}: absent; a machine whose Python lacks paragen's dependencies needs their wheels there "
                     "(bench/device_wheels.sh)")
    return carry, lines


def resume_bytes(config, experiment: str) -> tuple[int, int] | None:
    """(bytes of a run's resume state without kept epochs, bytes a kept epoch adds), from its model's parameter
    count: float32 weights, Adam's two moments and the best epoch's weights, 16 bytes a parameter (the vocabulary at
    its upper bound, :func:`paragen.pipeline.resources.vocabulary_size`); None where the model cannot be built
    without its data (DMASS's memory holds the rules)."""
    from paragen.models import build_model
    from paragen.pipeline.resources import vocabulary_size

    spec = config.experiments[experiment]
    try:
        model = build_model(config.models[spec.model], vocabulary_size(config, spec.dataset))
    except (TypeError, ValueError, AttributeError):
        return None
    parameters = sum(p.numel() for p in model.parameters())
    return 16 * parameters, 4 * parameters
