"""This side of the GPU queue: take in what a call sent back (``paragen gpu-queue unpack``), then make on the CPU
what follows the GPU's stages (``paragen gpu-queue finish``): the decoding a call did not reach, scoring, the
paired comparisons, the tables and figures.

Unpacking checks every part and member against the call's manifest before writing anything, writes the members'
files into the checkout (run folders, results, logs: nothing else is accepted), keeps each resume state whole in
the queue's resume store for the next call, records the call (``results/gpu_queue/calls/<n>/``) and marks done
every stage whose required outputs all arrived and whose signature here is the one it ran with. Finishing never
trains: a training that has not finished waits for the next GPU call, and a table is made with the rows that are
back (the others say "not yet run"), again after each call.
"""

from __future__ import annotations

import logging
import shlex
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from paragen.artifacts import table_outputs
from paragen.config import ConfigError
from paragen.data.fetch import safe_extract
from paragen.pipeline.queue_device import command_stage, job_signature
from paragen.pipeline.queue_pack import copy_member, member_paths, read_pack
from paragen.pipeline.queue_run import Limits, execute
from paragen.pipeline.queue_spec import CPU_STEPS, DATA_STEPS, GpuQueue, job_config, job_stages
from paragen.pipeline.queue_state import QueueState, read_manifest, signature
from paragen.pipeline.queue_travel import resume_bytes, train_run
from paragen.pipeline.stage import Stage, shell_command

log = logging.getLogger(__name__)

CALLS_DIR = "results/gpu_queue/calls"


def _this_side(queue: GpuQueue, params: str, mirrors: list[str] | None) -> dict[str, tuple[Any, Stage]]:
    """Every stage of every job as this checkout plans it: name -> (config, stage); command jobs as theirs."""
    found: dict[str, tuple[Any, Stage]] = {}
    for job in queue.jobs:
        if job.kind == "command":
            found[command_stage(job).name] = (job, command_stage(job))
            continue
        config = job_config(job, params, mirrors)
        for stage in job_stages(config, job):
            found.setdefault(stage.name, (config, stage))
    return found


def unpack_call(queue: GpuQueue, files: str | Path, params: str = "params.yaml") -> list[str]:
    """Take in one call's returned files (the folder holding ``manifest.json`` and its parts); returns what was
    done, one line each."""
    files = Path(files)
    manifest = read_manifest(files / "manifest.json")
    state = QueueState.read(queue.state)
    call = len(state.calls) + 1
    planned = _this_side(queue, params, None)
    said, arrived = [], set()
    with tempfile.TemporaryDirectory(prefix=".gpu-queue-unpack.", dir=".") as folder:
        members = read_pack(files, manifest, folder)
        for item in manifest["items"]:
            member = members[item["name"]]
            names = member_paths(member)
            if item["kind"] == "resume":
                run = str(item["run"])
                if not all(n.startswith(f"runs/{run}/resume/") for n in names):
                    raise ConfigError(f"{files}: resume member {item['name']} holds files outside runs/{run}/resume/")
                store = Path(queue.resume_store)
                if int(state.resume.get(run, {}).get("epoch", -1)) > int(item["epoch"]):
                    said.append(f"{run}: a resume state after epoch {state.resume[run]['epoch']} is kept already; "
                                f"this call's (epoch {item['epoch']}) is older and left out")
                    continue
                old = state.resume.get(run, {}).get("file")
                target = f"{run}.call{call}.tgz"
                copy_member(member, store / target)
                if old and old != target:
                    (store / old).unlink(missing_ok=True)
                state.resume[run] = {"epoch": item["epoch"], "finished": item["finished"],
                                     "best_epoch": item["best_epoch"], "valid_metric": item.get("valid_metric"),
                                     "file": target, "sha256": item["sha256"], "bytes": item["bytes"], "call": call}
                said.append(f"{run}: resume state after epoch {item['epoch']} kept in {store / target}")
                continue
            safe_extract(member, ".")
            arrived.update(names)
            arrived.update(item["paths"])
    for name, entry in manifest["stages"].items():
        if entry.get("how") not in ("completed", "completed earlier"):
            continue
        missing = [p for p in entry.get("required", []) if p not in arrived]
        here = planned.get(name)
        if here is None:
            said.append(f"{name}: not a stage of this checkout's queue; not recorded")
        elif missing:
            said.append(f"{name}: completed there, but {', '.join(missing)} did not come back (left: "
                        f"{[i['name'] for i in manifest['left']]}); it runs again")
        else:
            config, stage = here
            ours = job_signature(config) if stage.step == "command" else signature(config, stage)
            if ours != entry.get("signature"):
                said.append(f"{name}: ran with other settings than this checkout's (params.yaml or the queue "
                            "changed since the call); not recorded")
                continue
            state.mark_done(config, stage, "device", call) if stage.step != "command" else \
                _mark_command(state, stage, ours, call)
            run = train_run(stage)
            if run and run in state.resume:
                (Path(queue.resume_store) / state.resume.pop(run)["file"]).unlink(missing_ok=True)
    record = Path(CALLS_DIR, str(call))
    record.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(files / "manifest.json", record / "manifest.json")
    if (files / "queue.log").is_file():
        shutil.copyfile(files / "queue.log", record / "queue.log")
    state.calls.append({"call": call, "device": manifest["device"], "started": manifest["call"].get("started"),
                        "record": str(record), "left": [i["name"] for i in manifest["left"]]})
    state.write()
    counts = {how: sum(1 for e in manifest["stages"].values() if e.get("how") == how)
              for how in ("completed", "stopped", "failed", "waiting")}
    said.insert(0, f"call {call} on {manifest['device']}: " + ", ".join(f"{n} {how}" for how, n in counts.items())
                + (f"; left on the machine (did not fit): {[i['name'] for i in manifest['left']]}"
                   if manifest["left"] else ""))
    return said


def _mark_command(state: QueueState, stage: Stage, ours: str, call: int) -> None:
    state.seq += 1
    state.done[stage.name] = {"seq": state.seq, "signature": ours, "where": "device", "call": call}


def finish(queue: GpuQueue, params: str = "params.yaml", mirrors: list[str] | None = None, cores: int = 1,
           jobs: list[str] | None = None) -> list[str]:
    """Run here, never training, every stage of the (selected) pipeline jobs that is not up to date and can run,
    for the jobs something came back for from a GPU call; a table when something it reads is newer than it, also
    when some of its rows have not come back (they read "not yet run")."""
    state = QueueState.read(queue.state)
    stages: list[Stage] = []
    configs: dict[str, Any] = {}
    current: set[str] = set()
    declared: dict[str, tuple[str, ...]] = {}
    said = []
    for job in ([queue.job(n) for n in jobs] if jobs else queue.jobs):
        if job.kind == "command":
            continue
        config = job_config(job, params, mirrors)
        own = job_stages(config, job)
        declared.update({s.name: s.outs for s in own})
        if not any(state.done.get(s.name, {}).get("where") == "device" for s in own):
            said.append(f"{job.name}: nothing back from a GPU call yet; its tables stay as they are")
            continue
        current |= state.up_to_date(config, own)
        for stage in own:
            if stage.name not in configs:
                configs[stage.name] = config
                stages.append(stage)
    unreachable = _unreachable(stages, current)
    stages = [_tables_only(s) if s.step in CPU_STEPS and any(_maker(stages, d) in unreachable for d in s.deps)
              else s for s in stages]
    made = {out: s.name for s in stages for out in s.outs}
    fresh: set[str] = set()

    def newer(table: Stage) -> bool:
        """Something a table reads was made (or came back) after the queue last made the table."""
        last = state.done.get(table.name, {}).get("seq", 0)
        return any(made.get(dep) in fresh or state.done.get(made.get(dep, ""), {}).get("seq", 0) > last
                   for dep in table.deps)

    work = [s for s in stages if s.name not in current | unreachable and s.step not in DATA_STEPS + CPU_STEPS]
    if not work and not any(newer(s) for s in stages if s.step in CPU_STEPS):
        return said + ["nothing new to make here (no stage that can run here is out of date, and no table's "
                       "inputs changed since the queue last made it)"]
    removed: list[str] = []

    def table_may_start(table: Stage) -> bool:
        """A table is made when something it reads is newer; what it reads from rows not back yet is an earlier
        run's (a committed metrics file, say) and is removed first, so that the table shows those rows as not
        yet run instead of mixing that run with this one (git keeps the files)."""
        if not newer(table):
            return False
        stale = [dep for dep in table.deps if _maker(stages, dep) in unreachable]
        if "--tables-only" in table.cmd:  # its figures and examples show every row: an earlier run's go too
            stale += [out for out in declared[table.name] if out not in table.outs]
        for path in stale:
            if Path(path).is_file():
                Path(path).unlink()
                removed.append(path)
        return True

    # the data first: a table reads data files (its caption's ceiling, its examples) that it does not declare
    data = execute([s for s in stages if s.step in DATA_STEPS], current, float("inf"), Limits(cores=cores))
    outcome = execute(stages, current | set(data.completed), float("inf"), Limits(cores=cores),
                      may_start=lambda s: s.step != "train" and (s.step not in CPU_STEPS or table_may_start(s)),
                      optional=lambda s, dep: s.step in CPU_STEPS and _maker(stages, dep) in unreachable,
                      on_end=lambda name, how: fresh.add(name) if how == "completed" else None)
    said += [f"{name}: made here" for name in data.completed]
    said += [f"{path}: removed, an earlier run's output of a row not back yet (git keeps it)" for path in removed]
    said += [f"{name}: failed, {why}" for name, why in data.failed.items()]
    for name in outcome.completed:  # a table made with some rows missing is recorded too: it is made again
        stage = next(s for s in stages if s.name == name)  # when a row comes back (newer), not at every finish
        state.mark_done(configs[name], stage, "cpu", None)
        whole = all(Path(dep).exists() for dep in stage.deps)
        said.append(f"{name}: made here" + ("" if whole else " (some rows not back yet)"))
    said += [f"{name}: failed, {why}" for name, why in outcome.failed.items()]
    steps = {s.name: s.step for s in stages}
    said += [f"{name}: not run, {why}" for name, why in outcome.waiting.items() if steps[name] != "train"]
    trainings = [name for name in outcome.waiting if steps[name] == "train"]
    if trainings:
        said.append(f"waiting for a GPU call (never trained here): {', '.join(trainings)}")
    state.write()
    return said


def _tables_only(stage: Stage) -> Stage:
    """A report stage that writes the table files alone (``paragen report --tables-only``): its figures and
    examples table read every row's test outputs, and some rows are not back yet."""
    words = shlex.split(stage.cmd)
    if "--table" not in words:
        return stage
    tables = set(table_outputs(words[words.index("--table") + 1]))
    return replace(stage, cmd=shell_command(*words, "--tables-only"), report=(),
                   outs=tuple(o for o in stage.outs if o in tables or o in stage.directories))


def _maker(stages: list[Stage], path: str) -> str | None:
    return next((s.name for s in stages if path in s.outs), None)


def _unreachable(stages: list[Stage], current: set[str]) -> set[str]:
    """Stages that cannot run here: a training not done, and whatever reads what such a stage makes."""
    producer = {out: s.name for s in stages for out in s.outs}
    found: set[str] = set()
    for stage in stages:  # dependency order
        if stage.name in current:
            continue
        if stage.step == "train" or any(producer.get(dep) in found for dep in stage.deps):
            found.add(stage.name)
    return found


def status(queue: GpuQueue, params: str = "params.yaml", sizes: bool = False) -> list[str]:
    """One line per job: how many of its stages are done, which trainings wait with a resume state and where; with
    ``sizes`` the size of each training's resume state (:func:`~paragen.pipeline.queue_travel.resume_bytes`)."""
    state = QueueState.read(queue.state)
    lines = []
    for job in queue.jobs:
        if job.kind == "command":
            done = command_stage(job).name in state.done
            lines.append(f"{job.name}: command {'done' if done else 'not run yet'}")
            continue
        config = job_config(job, params)
        stages = job_stages(config, job)
        current = state.up_to_date(config, stages)
        waiting = [s for s in stages if s.name not in current]
        trainings = [train_run(s) for s in waiting if train_run(s)]
        resumed = [f"{r} (epoch {state.resume[r]['epoch']})" for r in trainings if r in state.resume]
        lines.append(f"{job.name}: {len(stages) - len(waiting)} of {len(stages)} stages done"
                     + (f"; trainings to run: {', '.join(trainings)}" if trainings else "")
                     + (f"; resume states kept: {', '.join(resumed)}" if resumed else ""))
        if sizes:
            lines += [f"  {run}: resume state {_size(config, run)}" for run in trainings]
    return lines


def _size(config: Any, run: str) -> str:
    from paragen.pipeline.queue_pack import MiB

    found = resume_bytes(config, run)
    if found is None:
        return "size unknown (the model needs its data to be built)"
    state, epoch = found
    kept = config.training_of(run).keep_epochs
    return f"about {state / MiB:.0f} MiB" + (f", and {epoch / MiB:.0f} MiB for each kept epoch" if kept else "")


def forget(queue: GpuQueue, names: list[str]) -> list[str]:
    """Mark stages (or every stage of a job) not done, so that the next call makes them again; a training's
    resume state is dropped too, so it starts over."""
    state = QueueState.read(queue.state)
    said = []
    for name in names:
        targets = [name]
        if any(job.name == name for job in queue.jobs):
            targets = [s for s in state.done if s == f"command_{name}"] or \
                [s.name for s in job_stages(job_config(queue.job(name)), queue.job(name))]
        for target in targets:
            if state.done.pop(target, None) is not None:
                said.append(f"{target}: to be made again")
            run = target[len("train_"):] if target.startswith("train_") else None
            if run in state.resume:
                entry = state.resume.pop(run)
                (Path(queue.resume_store) / entry["file"]).unlink(missing_ok=True)
                said.append(f"{run}: resume state dropped (the training starts over)")
    state.write()
    return said
