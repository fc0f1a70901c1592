"""One call of the GPU queue on the GPU machine (``paragen gpu-queue run``): run the next unfinished jobs until the
deadline, then always pack what came of them (:mod:`paragen.pipeline.queue_pack`).

The call reads the queue (:mod:`~paragen.pipeline.queue_spec`) and the record of what has come back
(:mod:`~paragen.pipeline.queue_state`), puts the recorded resume states in place
(:func:`~paragen.pipeline.queue_travel.restore_resume`), and runs every stage of the selected jobs that is not
up to date in the record, except the tables and figures (``finish`` makes those here): a training always runs
(resuming from its state when there is one), never skipped because a committed output is present. Jobs run in
queue order: consecutive pipeline jobs together (earlier stages first, a job's ``parallel`` capping its
trainings), a command job alone.

What is packed, in this order while it fits: every stage's light outputs (logs, metrics, test outputs: each
file output but weights and folders) and log; the weights or folders of a finished stage that a stage not run
here still reads (``best.pt`` of a training whose decoding did not run); the resume state of each training that
did not finish. The manifest names, per stage, what had to come back for it to count as done.
"""

from __future__ import annotations

import hashlib
import json
import logging
import platform
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paragen.config import ParagenConfig
from paragen.pipeline.queue_pack import Budget, PackItem, pack, sha256_file
from paragen.pipeline.queue_run import Limits, execute
from paragen.pipeline.queue_spec import (CPU_STEPS, DATA_STEPS, GpuQueue, QueueJob, job_config, job_stages,
                                         without_unneeded_data)
from paragen.pipeline.queue_state import FORMAT, QueueState, signature
from paragen.pipeline.queue_travel import (DATA_ARCHIVE, describe_resume, restore_resume, resume_folder, train_run,
                                          unpack_data)
from paragen.pipeline.stage import Stage, shell_command
from paragen.training.kept_epochs import EPOCHS_DIR

log = logging.getLogger(__name__)

LEDGER = "runs/.gpu_queue_ledger.json"
"""Stages this machine completed in earlier calls, with their outputs' digests (runs/ outlives a call only
while the machine stays warm; a tracked output the next call's copy put back no longer matches)."""


def machine() -> str:
    """The machine in words: its GPU (or CPU), for the manifest."""
    import torch

    from paragen.training.trainer import describe_device

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return f"{describe_device(device)}; torch {torch.__version__}; Python {platform.python_version()}"


def light(stage: Stage) -> list[str]:
    """The outputs that always come back: files, but not weights (``*.pt``) or folders a stage owns; all of a
    command job's."""
    if stage.step == "command":
        return list(stage.outs)
    return [o for o in stage.outs if o not in stage.directories and not o.endswith(".pt")]


def fingerprint(paths: list[str]) -> dict[str, str]:
    """sha256 of each file; size and count of the files of each folder (e.g. a run's kept epochs)."""
    found = {}
    for path in paths:
        target = Path(path)
        if target.is_file():
            found[path] = sha256_file(target)
        elif target.is_dir():
            files = sorted(p for p in target.rglob("*") if p.is_file())
            found[path] = f"{len(files)} files, {sum(p.stat().st_size for p in files)} bytes"
    return found


@dataclass
class JobStages:
    job: QueueJob
    stages: list[Stage]
    current: set[str]
    signatures: dict[str, str]
    config: ParagenConfig | None = None


def command_stage(job: QueueJob) -> Stage:
    """A command job as a stage of its own (run alone, its ``outputs`` as the stage's)."""
    return Stage(name=f"command_{job.name}", step="command", cmd=shell_command(*job.command), deps=(),
                 outs=tuple(job.outputs))


def resolve(queue: GpuQueue, state: QueueState, names: list[str] | None, params: str) -> list[JobStages]:
    """The selected jobs (all by default) with their device-side stages and which are up to date."""
    resolved = []
    for job in ([queue.job(n) for n in names] if names else queue.jobs):
        if job.kind == "command":
            stage = command_stage(job)
            current = {stage.name} if state.done.get(stage.name, {}).get("signature") == job_signature(job) else set()
            resolved.append(JobStages(job, [stage], current, {stage.name: job_signature(job)}))
            continue
        config = job_config(job, params)
        stages = [s for s in job_stages(config, job) if s.step not in CPU_STEPS]
        current = state.up_to_date(config, stages)
        stages = without_unneeded_data(stages, current)
        resolved.append(JobStages(job, stages, current, {s.name: signature(config, s) for s in stages}, config))
    return resolved


def job_signature(job: QueueJob) -> str:
    """A command job's signature: its command and outputs."""
    return hashlib.sha256(json.dumps([job.command, job.outputs]).encode()).hexdigest()[:16]


def _phases(jobs: list[JobStages]) -> list[list[JobStages]]:
    """Consecutive pipeline jobs run together; a command job alone."""
    phases: list[list[JobStages]] = []
    for entry in jobs:
        if entry.job.kind == "command" or not phases or phases[-1][0].job.kind == "command":
            phases.append([entry])
        else:
            phases[-1].append(entry)
    return phases


def run_call(queue: GpuQueue, out: str | Path, deadline_s: float, pack_s: float, budget: Budget, cores: int,
             jobs: list[str] | None = None, params: str = "params.yaml", stop_after_epoch: int | None = None,
             restart: bool = False) -> dict[str, Any]:
    """Run the queue until ``deadline_s`` seconds from now less ``pack_s`` (kept for packing), then pack into
    ``out``; returns the manifest. ``stop_after_epoch`` stops every training after that epoch, as a deadline would
    (a rehearsal of the cycle on a CPU); ``restart`` lets a training whose recorded resume state is not here start
    over instead of waiting for it."""
    started, wall = time.monotonic(), time.time()
    stop_at = started + deadline_s - pack_s
    state = QueueState.read(queue.state)
    said = []
    if Path(DATA_ARCHIVE).is_file():
        said.append(f"data unpacked from {DATA_ARCHIVE}: {len(unpack_data())} files")
    said += restore_resume(state.resume, Path(queue.resume_store))
    for line in said:
        log.info("%s", line)
    resolved = resolve(queue, state, jobs, params)
    ledger = _read_ledger()
    earlier = {s.name for entry in resolved for s in entry.stages
               if s.name in ledger and ledger[s.name] == fingerprint(list(s.outs)) and s.name not in entry.current}
    record: dict[str, dict[str, Any]] = {}
    held = {train_run(s) for entry in resolved for s in entry.stages if train_run(s) in state.resume
            and not Path(resume_folder(s), "state.pt").exists()} - {None}
    for phase in _phases(resolved):
        stages, done, limits = [], set(), Limits(cores=cores)
        for entry in phase:
            for stage in entry.stages:
                if stage.name in record or any(stage.name == s.name for s in stages):
                    continue
                stages.append(stage)
                record[stage.name] = {"job": entry.job.name, "signature": entry.signatures[stage.name]}
                if stage.name in entry.current or stage.name in earlier:
                    done.add(stage.name)
                    record[stage.name]["how"] = "up to date" if stage.name in entry.current else "completed earlier"
                if stage.step == "train":
                    limits.groups[stage.name] = entry.job.name
            if entry.job.parallel:
                limits.group_limits[entry.job.name] = entry.job.parallel
            if entry.job.kind == "command":
                limits.exclusive = frozenset({entry.stages[0].name})
                limits.timeouts[entry.stages[0].name] = float(entry.job.seconds or 0)
        outcome = execute(stages, done, stop_at, limits,
                          may_start=lambda s: restart or train_run(s) not in held,
                          extra_args=lambda s: ["--stop-after-epoch", str(stop_after_epoch)]
                          if stop_after_epoch is not None and s.step == "train" else [])
        for name in outcome.completed:
            record[name]["how"] = "completed"
        for name in outcome.stopped:
            record[name]["how"] = "stopped"
        for name, why in outcome.failed.items():
            record[name].update(how="failed", why=why)
        for name, why in outcome.waiting.items():
            record[name].update(how="waiting", why=why if train_run_of(stages, name) not in held else
                                "its recorded resume state is not on this machine (carry the resume store)")
        for name, seconds in outcome.seconds.items():
            record[name]["seconds"] = seconds
    _write_ledger(ledger, resolved, record)
    items = pack_items(resolved, record)
    manifest = {"format": FORMAT, "call": {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(wall)),
                                           "seconds": round(time.monotonic() - started, 1), "deadline_s": deadline_s,
                                           "after_calls": len(state.calls), "jobs": [e.job.name for e in resolved]},
                "device": machine(), "python": sys.version.split()[0], "said": said, "stages": record}
    return pack(items, ".", out, budget, manifest)


def train_run_of(stages: list[Stage], name: str) -> str | None:
    return next((train_run(s) for s in stages if s.name == name), None)


def pack_items(resolved: list[JobStages], record: dict[str, dict[str, Any]]) -> list[PackItem]:
    """What to bring back, in priority order (module docstring), and per stage what must arrive for it to be done
    (``record[stage]["required"]``)."""
    everything = [s for entry in resolved for s in entry.stages]
    completed = {n for n, r in record.items() if r.get("how") in ("completed", "completed earlier")}
    readers: dict[str, list[str]] = {}
    for stage in everything:
        for dep in stage.deps:
            readers.setdefault(dep, []).append(stage.name)
    by_name = {s.name: s for s in everything}
    outputs: list[PackItem] = []
    heavy: list[PackItem] = []
    seen: set[str] = set()
    for entry in resolved:
        paths = []
        for stage in entry.stages:
            if stage.name in seen:  # a stage two jobs need (their data, a shared run) is packed with the first
                continue
            seen.add(stage.name)
            ran = record[stage.name].get("how") not in (None, "up to date")
            if ran and Path("logs", f"{stage.name}.log").exists():
                paths.append(f"logs/{stage.name}.log")
            if stage.name in completed and stage.step not in DATA_STEPS:  # data is made, or carried, where needed
                wanted = [path for o in stage.outs if o not in light(stage)
                          for path in needed(entry.config, o, [by_name[r] for r in readers.get(o, [])
                                                               if r not in completed
                                                               and record.get(r, {}).get("how") != "up to date"])]
                record[stage.name]["required"] = light(stage) + wanted
                paths += light(stage)
                if wanted:
                    heavy.append(PackItem(f"weights_{stage.name}", "weights", wanted, {"stage": stage.name}))
            run = train_run(stage)
            if run and stage.name not in completed and Path(resume_folder(stage), "state.pt").exists():
                heavy.append(PackItem(f"resume_{run}", "resume", [resume_folder(stage)],
                                      {"run": run, "stage": stage.name, **describe_resume(run)}))
        if paths:
            outputs.append(PackItem(f"outputs_{entry.job.name}", "outputs", paths, {"job": entry.job.name}))
    return outputs + heavy


def needed(config: ParagenConfig | None, output: str, readers: list[Stage]) -> list[str]:
    """What of ``output`` the stages ``readers`` (not run here) need to come back: nothing without readers; of a
    run's kept epochs (a folder of one checkpoint per epoch, 12 MB each at paper scale) only the epoch a
    closest-epoch decode chooses (paragen.training.closest_choice, from the training log alone), when every reader
    is such a decode; otherwise the whole output."""
    if not readers:
        return []
    if config is None or Path(output).name != EPOCHS_DIR or not all("--closest-to" in r.cmd for r in readers):
        return [output]
    from paragen.training.closest_choice import choose

    chosen = []
    for reader in readers:
        words = shlex.split(reader.cmd)
        table, run = words[words.index("--closest-to") + 1], words[words.index("--experiment") + 1]
        try:
            chosen.append(choose(config, table, run)["checkpoint"])
        except (ValueError, OSError, KeyError) as error:  # no choice can be made here: the whole folder
            log.warning("%s: %s; its kept epochs come back whole", reader.name, error)
            return [output]
    return list(dict.fromkeys(chosen))


def _read_ledger() -> dict[str, dict[str, str]]:
    try:
        return json.loads(Path(LEDGER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _write_ledger(ledger: dict[str, dict[str, str]], resolved: list[JobStages],
                  record: dict[str, dict[str, Any]]) -> None:
    from paragen.atomic import write_json

    for entry in resolved:
        for stage in entry.stages:
            if record.get(stage.name, {}).get("how") == "completed":
                ledger[stage.name] = fingerprint(list(stage.outs))
    write_json(LEDGER, ledger)
