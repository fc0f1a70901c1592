"""The GPU queue's definition (``workflow/gpu_queue.yaml``): an ordered list of jobs, each a named set of pipeline
targets (or one benchmark command), and the stages each job needs.

A GPU machine at hand for minutes at a time cannot finish this project's GPU work in one go, so the work is a queue
that any number of short calls work through in order (:mod:`paragen.pipeline.queue_run` runs it, the
``paragen gpu-queue`` commands drive it, docs/cluster.md says how). A job is either

- ``pipeline``: the stages of the plan (:func:`paragen.pipeline.plan.build_plan`, the same stages Snakemake and
  DVC run) that its ``targets`` need, under its own view of params.yaml (``config``: the ``--config`` overrides a
  Snakemake run would get), plus the train, decode and score stages of ``experiments`` that no table shows (a seed
  replica such as ``smini_nmt_seed2``); or
- ``command``: one argument vector (a benchmark), run alone on the machine, whose ``outputs`` come back.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, model_validator

from paragen.config import ConfigError, ParagenConfig, parse_config, read_params
from paragen.config.base import Name, PositiveInt, _Strict
from paragen.config.loading import _format_errors, read_yaml
from paragen.config.seeds import with_replica
from paragen.pipeline.experiment_stages import experiment_stages
from paragen.pipeline.plan import build_plan
from paragen.pipeline.stage import Stage

QUEUE_FILE = "workflow/gpu_queue.yaml"
OVERRIDABLE = ("suites", "scale", "seeds", "data")
"""The params.yaml keys a job may set for its plan, as ``snakemake --config`` would (the stage commands read
params.yaml itself and take these through their own flags, so no other key can reach them)."""
DATA_STEPS = ("fetch", "prepare", "segment", "vocab", "generate")
"""Stages whose outputs are deterministic inputs: a machine that has them (carried, or made by an earlier call)
does not make them again."""
CPU_STEPS = ("report", "index")
"""Stages only ``paragen gpu-queue finish`` runs, on this side: the tables and figures read every row, and rows
come back from different calls."""
RELATIVE = "a path inside the checkout (no '..', not absolute)"


def _relative(path: str) -> str:
    parts = Path(path).parts
    if not parts or Path(path).is_absolute() or ".." in parts:
        raise ValueError(f"{path!r} is not {RELATIVE}")
    return path


class QueueJob(_Strict):
    """One job of the queue."""

    name: Name = Field(description="the job's name (letters, digits, '_' and '-')")
    why: str = Field(description="what the job gives and why it is where it is in the order (docs/decisions.md)")
    kind: Literal["pipeline", "command"] = Field("pipeline", description="pipeline targets or one command")
    config: dict[str, Any] = Field(default_factory=dict, description="params.yaml overrides for the job's plan: "
                                   f"{', '.join(OVERRIDABLE)}")
    targets: list[str] = Field(default_factory=list, description="output paths or stage names the job makes")
    experiments: list[Name] = Field(default_factory=list, description="runs trained, decoded and scored though "
                                    "no table of the job shows them (seed replicas: E_seed<k>)")
    parallel: PositiveInt | None = Field(None, description="trainings of this job at once (default: as many as "
                                         "the cores allow)")
    command: list[str] = Field(default_factory=list, description="kind command: the argument vector, run from the "
                               "checkout's root (no shell)")
    outputs: list[str] = Field(default_factory=list, description="kind command: files or folders it writes, "
                               "brought back when it ends")
    seconds: PositiveInt | None = Field(None, description="kind command: the longest it runs; it is not started "
                                        "with less time left, and is stopped after it")

    @model_validator(mode="after")
    def _consistent(self) -> "QueueJob":
        unknown = sorted(set(self.config) - set(OVERRIDABLE))
        if unknown:
            raise ValueError(f"config: {unknown} cannot be set per job; allowed keys: {list(OVERRIDABLE)}")
        for path in self.outputs:
            _relative(path)
        if self.kind == "pipeline":
            if self.command or self.outputs or self.seconds:
                raise ValueError("command, outputs and seconds belong to kind: command")
            if not self.targets and not self.experiments:
                raise ValueError("a pipeline job needs targets or experiments")
        else:
            if not self.command or not self.outputs or self.seconds is None:
                raise ValueError("kind: command needs command, outputs and seconds")
            if self.targets or self.experiments or self.config or self.parallel:
                raise ValueError("targets, experiments, config and parallel belong to kind: pipeline")
        return self


class GpuQueue(_Strict):
    """The whole queue file."""

    jobs: list[QueueJob] = Field(min_length=1, description="in the order they run")
    resume_store: str = Field("results/gpu_queue/resume", description="where the resume states that came back "
                              "are kept between calls (tracked: they travel with the checkout and outlive the "
                              "session)")
    state: str = Field("results/gpu_queue/state.json", description="what has come back (paragen gpu-queue unpack)")

    @model_validator(mode="after")
    def _unique_names(self) -> "GpuQueue":
        names = [job.name for job in self.jobs]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"jobs: {repeated} named more than once")
        _relative(self.resume_store)
        _relative(self.state)
        return self

    def job(self, name: str) -> QueueJob:
        found = next((job for job in self.jobs if job.name == name), None)
        if found is None:
            raise ConfigError(f"no job {name!r} in the queue; allowed values: {[j.name for j in self.jobs]}")
        return found


def load_queue(path: str | Path = QUEUE_FILE) -> GpuQueue:
    """Read and validate the queue file (bounded safe YAML; errors name the file and key)."""
    raw = read_yaml(path)
    try:
        return GpuQueue.model_validate(raw if isinstance(raw, dict) else {"jobs": raw})
    except ValidationError as error:
        raise ConfigError(_format_errors(error, str(path))) from None


def job_config(job: QueueJob, params: str | Path = "params.yaml", mirrors: list[str] | None = None) -> ParagenConfig:
    """params.yaml as the job's plan sees it: its ``config`` overrides and, on this side, ``mirrors`` (machine
    specific: where the real data's public files are copied)."""
    raw = read_params(params)
    overrides = dict(job.config) | ({"mirrors": list(mirrors)} if mirrors else {})
    given = ", ".join(f"{k}={v}" for k, v in overrides.items())
    config = parse_config({**raw, **overrides}, f"{params} with job {job.name}" + (f" ({given})" if given else ""))
    for name in job.experiments:
        config = with_replica(config, name)
        if name not in config.experiments:
            raise ConfigError(f"job {job.name}: experiments: unknown experiment {name!r}")
    return config


def job_stages(config: ParagenConfig, job: QueueJob) -> list[Stage]:
    """The stages the job's targets and experiments need, in dependency order (every producer before its readers).
    A target is an output path or a stage name of the job's plan; anything else is refused, naming it."""
    plan_stages = list(build_plan(config).stages)
    known = {s.name for s in plan_stages}
    for name in job.experiments:
        plan_stages += [s for s in experiment_stages(config, name, None) if s.name not in known]
    by_name = {s.name: s for s in plan_stages}
    producer = {out: s.name for s in plan_stages for out in s.outs}
    wanted = [f"train_{e}" for e in job.experiments] + [s.name for e in job.experiments for s in plan_stages
                                                         if s.name in (f"decode_{e}", f"evaluate_{e}", f"score_{e}")]
    for target in job.targets:
        name = target if target in by_name else producer.get(target)
        if name is None:
            raise ConfigError(f"job {job.name}: target {target!r} is neither an output nor a stage of its plan "
                              f"(config {job.config or 'none'}); e.g. {sorted(s.outs[0] for s in plan_stages)[:3]}")
        wanted.append(name)
    needed: set[str] = set()
    todo = list(wanted)
    while todo:
        name = todo.pop()
        if name in needed:
            continue
        needed.add(name)
        todo += [producer[dep] for dep in by_name[name].deps if dep in producer]
    return [s for s in plan_stages if s.name in needed]


def producers(stages: list[Stage]) -> dict[str, Stage]:
    """Output path -> the stage among ``stages`` that writes it."""
    return {out: s for s in stages for out in s.outs}


def data_frontier(stages: list[Stage], current: set[str]) -> list[Stage]:
    """The data stages whose outputs the stages still to run read directly: what a machine needs, carried or made,
    to run them (their own inputs, e.g. the downloads a prepared dataset came from, are not needed then)."""
    made = producers(stages)
    found: dict[str, Stage] = {}
    for stage in stages:
        if stage.step not in DATA_STEPS and stage.name not in current:
            for dep in stage.deps:
                maker = made.get(dep)
                if maker is not None and maker.step in DATA_STEPS:
                    found.setdefault(maker.name, maker)
    return [s for s in stages if s.name in found]


def without_unneeded_data(stages: list[Stage], current: set[str]) -> list[Stage]:
    """``stages`` less the data stages nothing still to run needs: a present prepared dataset needs no download,
    and a machine that cannot download must not try."""
    made = producers(stages)
    keep = {s.name for s in stages if s.step not in DATA_STEPS}
    todo = [dep for s in stages if s.step not in DATA_STEPS and s.name not in current for dep in s.deps]
    while todo:
        maker = made.get(todo.pop())
        if maker is None or maker.name in keep:
            continue
        keep.add(maker.name)
        if maker.name not in current:
            todo += list(maker.deps)
    return [s for s in stages if s.name in keep]
