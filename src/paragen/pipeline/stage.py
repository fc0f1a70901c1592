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
    # Written and kept across reruns: the training resume state, which a rerun must find to resume. DVC declares it
    # `persist: true, cache: false` (kept, never cached; and a stage with a persistent output is never restored
    # from DVC's run cache, so `dvc repro` runs `paragen train`, which refuses while the other engine trains the
    # run, instead of checking cached weights out into it). Snakemake cannot declare it: it deletes every output
    # before a job. A digest of the settings and data guards it (paragen.training.checkpoint), so a stale one is
    # discarded, never resumed.
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
