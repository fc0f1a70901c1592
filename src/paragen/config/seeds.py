"""Seed replicas: the same experiment trained again from other seeds, so tables can show mean ± sd.

With ``seeds: N`` (or ``--config seeds=N``) every trained experiment ``E`` whose training seed is ``s`` runs N
times: ``E`` itself with seed ``s`` (the single-seed run, at its usual paths, so going from one seed to three
retrains nothing) and the replicas ``E_seed<s+1>`` ... ``E_seed<s+N-1>``. A replica is an ordinary experiment
(``ExperimentConfig`` with ``seed`` set) with its own run directory and metrics, so training, decoding, scoring,
alignment and both engines handle it with no special case; only the report gathers a row's replicas.

A replica's name alone says what it is, so ``paragen train --experiment E_seed2`` works whatever ``seeds``
params.yaml holds (Snakemake's ``--config seeds=3`` reaches only the DAG, not the commands' own params file).
"""

from __future__ import annotations

import re
from statistics import mean, stdev
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from paragen.config import ParagenConfig

_REPLICA = re.compile(r"^(?P<base>.+)_seed(?P<seed>-?\d+)$")


def replica_name(experiment: str, seed: int) -> str:
    return f"{experiment}_seed{seed}"


def is_replica(config: ParagenConfig, name: str) -> bool:
    """Whether ``name`` is a seed replica (``E_seed<k>`` of a declared ``E``, trained with seed k)."""
    match = _REPLICA.match(name)
    return (match is not None and match["base"] in config.experiments and name in config.experiments
            and config.experiments[name].seed == int(match["seed"]))


def base_of(config: ParagenConfig, name: str) -> str:
    """The declared experiment a seed replica repeats (``E`` of ``E_seed<k>``); ``name`` itself otherwise."""
    match = _REPLICA.match(name)
    return match["base"] if is_replica(config, name) and match is not None else name


def same_seed_run(config: ParagenConfig, run: str, experiment: str) -> str:
    """The run of ``experiment`` trained with ``run``'s seed: its replica when ``run`` is a replica, else
    ``experiment`` itself (e.g. the table's own RNNSearch run beside a closest-epoch retrain of it)."""
    return replica_name(experiment, config.experiments[run].seed) if is_replica(config, run) else experiment  # type: ignore[arg-type]


def base_seed(config: ParagenConfig, experiment: str) -> int:
    spec = config.experiments[experiment]
    return spec.seed if spec.seed is not None else config.training[spec.training].seed


def replica_runs(config: ParagenConfig, experiment: str) -> list[tuple[str, int | None]]:
    """``experiment`` and its seed replicas with the training seed of each, first seed first (just the experiment
    itself with one seed; seed None for a row that is not a trained experiment)."""
    if experiment not in config.experiments:
        return [(experiment, None)]
    first = base_seed(config, experiment)
    return [(experiment, first)] + [(replica_name(experiment, first + k), first + k)
                                    for k in range(1, config.seed_count)]


def replicas(config: ParagenConfig, experiment: str) -> list[str]:
    """The run names of :func:`replica_runs`."""
    return [run for run, _ in replica_runs(config, experiment)]


def replica_seeds(config: ParagenConfig, experiment: str) -> list[int | None]:
    """The training seeds of :func:`replica_runs`, in the same order."""
    return [seed for _, seed in replica_runs(config, experiment)]


def confirmation_runs(config: ParagenConfig, experiment: str, seeds: Sequence[int]) -> list[tuple[str, int]]:
    """The replicas ``E_seed<k>`` a table's confirmation block trains, one per confirmation seed (none for a row that
    is not a trained experiment)."""
    if experiment not in config.experiments:
        return []
    return [(replica_name(experiment, seed), seed) for seed in seeds]


def _declare(config: ParagenConfig, experiment: str, seed: int) -> str:
    name = replica_name(experiment, seed)
    declared = config.experiments.get(name)
    if declared is not None and declared.seed != seed:
        raise ValueError(f"experiments.{name}: the name of the seed-{seed} replica of {experiment} is taken by "
                         "another experiment; rename it")
    config.experiments.setdefault(name, config.experiments[experiment].model_copy(update={"seed": seed}))
    return name


def add_replicas(config: ParagenConfig) -> None:
    """Declare the replicas ``seeds`` asks for, for every declared experiment, and those of every table's
    confirmation seeds (called once, on validation). A confirmation seed among a row's own seeds is refused: it
    would not be a seed that played no part in the design (checked for the active tables: ``seeds`` may grow
    past another suite's confirmation seeds)."""
    originals = [e for e in config.experiments if config.experiments[e].seed is None]
    confirmed = [(name, experiment, table.confirmation.seeds) for name, table in config.tables.items()
                 if table.confirmation is not None for experiment in table.experiments() if experiment in originals]
    active = config.active_tables()
    for name, experiment, seeds in confirmed:
        own = replica_seeds(config, experiment)
        clash = sorted(set(own) & set(seeds))
        if clash and name in active:
            raise ValueError(f"tables.{name}.confirmation.seeds: {clash} are among the seeds {experiment} is "
                             f"trained with already ({own}, from its training seed and `seeds`); choose others")
    if config.seed_count > 1:
        for experiment in originals:
            for _, seed in replica_runs(config, experiment)[1:]:
                _declare(config, experiment, seed)
    for _, experiment, seeds in confirmed:
        for _, seed in confirmation_runs(config, experiment, seeds):
            _declare(config, experiment, seed)


def with_replica(config: ParagenConfig, name: str) -> ParagenConfig:
    """``config`` knowing the experiment ``name`` when it is a replica name (``E_seed<k>`` of a declared ``E``),
    whatever ``seeds`` says; otherwise ``config`` unchanged (an unknown name is reported by the caller)."""
    match = _REPLICA.match(name)
    if name in config.experiments or match is None or match["base"] not in config.experiments:
        return config
    copy = config.model_copy(update={"experiments": dict(config.experiments)})
    _declare(copy, match["base"], int(match["seed"]))
    return copy


def mean_sd(values: Sequence[float]) -> tuple[float, float | None]:
    """Mean and sample standard deviation (n − 1; None for one value): the spread a reader expects of a few seeds."""
    return mean(values), (stdev(values) if len(values) > 1 else None)
