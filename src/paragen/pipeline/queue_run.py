"""Run a set of the plan's stages until a deadline: the GPU queue's executor (:mod:`paragen.pipeline.queue_device`
on the GPU machine, ``paragen gpu-queue finish`` here).

Not Snakemake, on purpose: on a copy of the checkout whose committed outputs (``results/metrics/*.json``) are
newer than anything the copy could make, Snakemake's rule "an output present and newer than its inputs is done"
ran nothing (2026-11-26), and a deadline must stop the work and leave time to pack it. Here a stage is done only
when the queue's own record says so (:mod:`paragen.pipeline.queue_state`) or it completed in this run; it runs
when every input it reads is made (by a done stage, or one outside the set) and present. Each stage runs its own
command (``Stage.cmd``, the one both engines run, as an argument vector: no shell), with its output in
``logs/<stage>.log`` as Snakemake keeps it. At the deadline every running stage's process group gets SIGTERM,
then SIGKILL: a training ends at any point without harm, since its resume state is written atomically after every
epoch (:mod:`paragen.training.trainer`).
"""

from __future__ import annotations

import logging
import os
import shlex
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from paragen.pipeline.stage import Stage

log = logging.getLogger(__name__)

POLL_S = 0.2
GRACE_S = 10.0
"""Seconds between SIGTERM and SIGKILL when a stage is stopped."""


def command_argv(stage: Stage, python: str = sys.executable) -> list[str]:
    """The stage's command as an argument vector: ``exec`` dropped (it only matters to a shell), ``paragen`` as
    ``python -m paragen.cli`` (the machine may have no console script)."""
    words = shlex.split(stage.cmd)
    if words and words[0] == "exec":
        words = words[1:]
    if words and words[0] == "paragen":
        words = [python, "-m", "paragen.cli", *words[1:]]
    return words


@dataclass
class Outcome:
    """What one run of :func:`execute` did, stage by stage (names)."""

    completed: list[str] = field(default_factory=list)  # in the order they ended
    stopped: list[str] = field(default_factory=list)  # stopped at the deadline, or ended without their outputs
    failed: dict[str, str] = field(default_factory=dict)  # name -> why
    waiting: dict[str, str] = field(default_factory=dict)  # never started -> why
    seconds: dict[str, float] = field(default_factory=dict)  # wall time of each stage that ran


@dataclass
class _Running:
    stage: Stage
    process: subprocess.Popen
    started: float
    stop_at: float


@dataclass
class Limits:
    """How much may run at once: ``cores`` (each stage takes its ``threads``), ``groups`` (stage name -> group)
    with ``group_limits`` (group -> most at once; a job's ``parallel``), ``exclusive`` stages run alone and
    only when nothing else does, ``timeouts`` (stage name -> seconds) stop a stage after that long and keep it
    from starting with less left."""

    cores: int = 1
    groups: dict[str, str] = field(default_factory=dict)
    group_limits: dict[str, int] = field(default_factory=dict)
    exclusive: frozenset[str] = frozenset()
    timeouts: dict[str, float] = field(default_factory=dict)


def _remove_outputs(stage: Stage) -> None:
    """Remove the files a stage declares before it runs (as Snakemake does), so that an output left by an earlier
    run (an earlier call on the same machine, or a committed file) is never taken for this run's."""
    for out in stage.outs:
        path = Path(out)
        if path.is_file() and out not in stage.directories:
            path.unlink()


def _stop(running: _Running) -> None:
    try:
        os.killpg(running.process.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        running.process.wait(GRACE_S)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(running.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        running.process.wait()


def execute(stages: Sequence[Stage], done: set[str], stop_at: float, limits: Limits,
            may_start: Callable[[Stage], bool] = lambda stage: True, log_dir: str | Path = "logs",
            python: str = sys.executable, extra_args: Callable[[Stage], list[str]] = lambda stage: [],
            on_end: Callable[[str, str], None] = lambda name, how: None,
            optional: Callable[[Stage, str], bool] = lambda stage, dep: False) -> Outcome:
    """Run the stages of ``stages`` that are not in ``done``, each when its inputs are ready, in the order given
    (earlier first) as far as ``limits`` allow, until they have all ended or ``stop_at`` (``time.monotonic()``)
    has come. ``may_start`` can hold a stage back (it is then reported waiting); ``extra_args`` adds arguments to
    a stage's command; ``on_end(name, how)`` is told of each stage that ends ("completed", "stopped", "failed");
    ``optional(stage, dep)`` says the stage may run without ``dep`` (a table whose row has not come back yet)."""
    outcome = Outcome()
    producer = {out: s.name for s in stages for out in s.outs}
    finished: set[str] = set(done)
    broken: set[str] = set()
    running: dict[str, _Running] = {}
    pending = [s for s in stages if s.name not in done]
    Path(log_dir).mkdir(parents=True, exist_ok=True)
    # $OUT is the GPU machine's return folder: a stage writing there (bench/gpu_speed.sh does by default) would
    # send files past the pack's budget and count
    environment = {key: value for key, value in os.environ.items() if key != "OUT"}

    def blocker(stage: Stage) -> str | None:
        for dep in stage.deps:
            made_by = producer.get(dep)
            if optional(stage, dep):
                continue
            if made_by in broken:
                return f"needs {dep}, which {made_by} did not make"
            if made_by is not None and made_by not in finished:
                return f"waits for {made_by}"
            if not Path(dep).exists():
                return f"needs {dep}, which is not here" + (f" ({made_by} was done elsewhere)" if made_by else "")
        return None

    def room(stage: Stage) -> bool:
        if any(name in limits.exclusive for name in running) or (stage.name in limits.exclusive and running):
            return False
        if sum(r.stage.threads for r in running.values()) + stage.threads > max(limits.cores, stage.threads):
            return False
        group = limits.groups.get(stage.name)
        if group is not None and group in limits.group_limits:
            return sum(limits.groups.get(n) == group for n in running) < limits.group_limits[group]
        return True

    while True:
        now = time.monotonic()
        for name, run in list(running.items()):
            code = run.process.poll()
            if code is None and now < run.stop_at:
                continue
            if code is None:
                _stop(run)
                how = "stopped"
            elif code == 0 and all(Path(out).exists() for out in run.stage.outs):
                how = "completed"
            elif code == 0 or code < 0 or now >= stop_at:
                how = "stopped"  # ended without its outputs (a training told to stop), or killed
            else:
                how = "failed"
                outcome.failed[name] = f"exit {code}; see {Path(log_dir) / (name + '.log')}"
            del running[name]
            outcome.seconds[name] = round(now - run.started, 1)
            if how == "completed":
                finished.add(name)
                outcome.completed.append(name)
            else:
                broken.add(name)
                if how == "stopped":
                    outcome.stopped.append(name)
            log.info("%s %s after %.0f s", name, how, now - run.started)
            on_end(name, how)
        started_one = False
        for stage in list(pending):
            if now >= stop_at:
                break
            timeout = limits.timeouts.get(stage.name)
            if timeout is not None and now + timeout > stop_at:
                continue
            if blocker(stage) is None and room(stage) and may_start(stage):
                _remove_outputs(stage)
                logfile = open(Path(log_dir) / f"{stage.name}.log", "w", encoding="utf-8")
                with logfile:
                    process = subprocess.Popen(command_argv(stage, python) + extra_args(stage), stdout=logfile,
                                               stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                               start_new_session=True, env=environment)
                limit = stop_at if timeout is None else min(stop_at, now + timeout)
                running[stage.name] = _Running(stage, process, now, limit)
                pending.remove(stage)
                started_one = True
                log.info("started %s", stage.name)
        if not running and not started_one:
            break
        if not started_one:
            time.sleep(POLL_S)
    for stage in pending:
        why = blocker(stage)
        outcome.waiting[stage.name] = why or ("the deadline came" if time.monotonic() >= stop_at else
                                               "held back (no room before the deadline, or not started here)")
    return outcome
