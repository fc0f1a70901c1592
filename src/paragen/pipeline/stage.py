"""One step of the DAG, independent of the engine that runs it (docs/architecture.md, principle 1).

The stage builders (:mod:`paragen.pipeline.data_stages`, :mod:`~paragen.pipeline.experiment_stages`,
:mod:`~paragen.pipeline.report_stages`) return :class:`Stage` objects; the Snakefile defines one rule per stage
and ``dvc.yaml`` is rendered from the same list (:mod:`paragen.pipeline.dvc`), so the two engines cannot drift
apart (``tests/test_engines_agree.py``).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

from paragen.config import HeadlineSyntheticDataset, RealDataset
from paragen.pipeline.report_items import ReportItem
from paragen.pipeline.resources import CPU_STAGE, Resources

PARAMS_FILE = "params.yaml"


@dataclass(frozen=True)
class Stage:
    """One step of the DAG, independent of the engine that runs it."""

    name: str  # unique, a valid identifier (Snakemake rule names)
    step: str  # generate | vocab | train | decode | score | report | index
    cmd: str
    deps: tuple[str, ...]
    outs: tuple[str, ...]
    params: tuple[str, ...] = ()  # dotted keys of params.yaml
    metrics: tuple[str, ...] = ()  # outs DVC shows with `dvc metrics show`
    threads: int = 1
    uncached: tuple[str, ...] = field(default=())  # outs kept in git (results/), not the DVC cache
    report: tuple[ReportItem, ...] = ()  # outs a person reads: Snakemake's --report shows them; DVC ignores this
    resources: Resources = CPU_STAGE  # what a cluster job for it asks for (Snakemake's resources:; DVC ignores it)
    directories: tuple[str, ...] = ()  # outs that are whole directories the stage owns (Snakemake: directory())
    # DVC-only persistent outputs: the training's resume.json, the digest of the settings and data it trained on.
    # The resume state itself (runs/<exp>/resume/, which a rerun must find to resume) is no engine's output: its
    # content differs between two runs of the same settings (epochs kept, RNG states), so as an output it made
    # `dvc status` call a restored commit modified and `dvc repro` retrain it. resume.json is the same for the same
    # settings and data, cached, so `git checkout` + `dvc checkout` restore it with the rest; being persistent, it
    # keeps train stages out of DVC's run cache, so `dvc repro` runs `paragen train` (which takes the project lock,
    # paragen.project_lock) instead of checking cached weights out beside another engine. Snakemake does not
    # declare it: it deletes every output before a job. A stale resume state is discarded by its digest
    # (paragen.training.checkpoint), never resumed.
    kept: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        stray = [item.path for item in self.report if item.path not in self.outs]
        if stray:
            raise ValueError(f"stage {self.name}: report items {stray} are not among its outputs {list(self.outs)}")
        stray = [path for path in self.directories if path not in self.outs]
        if stray:
            raise ValueError(f"stage {self.name}: directories {stray} are not among its outputs {list(self.outs)}")


def shell_command(*words: str) -> str:
    """One shell command line, every word quoted (``shlex.join``): names and paths from params.yaml are input,
    and a mirror such as ``../data;touch X`` must reach paragen as one argument, never run."""
    return shlex.join(words)


def set_keys(name: str, spec: RealDataset | HeadlineSyntheticDataset, keys: tuple[str, ...]) -> tuple[str, ...]:
    """The params keys among ``keys`` that params.yaml actually sets: DVC refuses keys absent from the file."""
    return tuple(f"datasets.{name}.{key}" for key in keys if key in spec.model_fields_set)
