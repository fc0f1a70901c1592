"""The plan: one object, built once from a validated ``params.yaml``, that both engines and the report read.

:func:`build_plan` resolves the stages of the DAG in dependency order (the Snakefile defines one rule per stage,
``dvc.yaml`` is rendered from them) and a :class:`~paragen.pipeline.tables.TablePlan` per active table (rows ->
experiments -> seed runs -> metric files, runnable or why not, figures); ``paragen report`` reads the same
table plans, so the report never re-derives what the DAG decided.
"""

from __future__ import annotations

from dataclasses import dataclass

from paragen.config import ParagenConfig, RealDataset
from paragen.pipeline.data_stages import real_data_stages, synthetic_data_stages
from paragen.pipeline.experiment_stages import (closest_epoch_stages, comparison_stages, experiment_stages,
                                               system_stages)
from paragen.pipeline.matrix_stages import matrix_stages
from paragen.pipeline.report_stages import index_stage, report_stage, scoring_variants_stages
from paragen.pipeline.stage import Stage
from paragen.pipeline.tables import TablePlan, table_plan, trace_of


@dataclass(frozen=True)
class Plan:
    """The resolved DAG of one configuration: its stages and the plan of each active table."""

    config: ParagenConfig
    stages: tuple[Stage, ...]
    tables: dict[str, TablePlan]

    def final_outputs(self) -> list[str]:
        """What the default target (Snakemake's ``rule all``) asks for."""
        return final_outputs(list(self.stages))


def build_plan(config: ParagenConfig) -> Plan:
    """Every stage the active tables and the real datasets in ``data`` need, in dependency order, and the plan
    of each active table."""
    tables = {name: table_plan(config, name) for name in config.active_tables()}
    experiments = config.active_experiments()
    synthetic = [ds for ds in dict.fromkeys(config.experiments[e].dataset for e in experiments)
                 if not isinstance(config.datasets[ds], RealDataset)]
    result = synthetic_data_stages(config, synthetic) + real_data_stages(config)
    retrains = config.retrain_only_runs()
    for exp in experiments:
        result += experiment_stages(config, exp, trace_of(config, exp), exp in retrains)
    for system in config.active_systems():
        result += system_stages(config, system)
    result += comparison_stages(config, tables)
    result += closest_epoch_stages(config, tables)
    result += [report_stage(config, table) for table in tables.values()]
    result += scoring_variants_stages(config, tables)
    result += matrix_stages(config)
    result.append(index_stage(config, result))
    return Plan(config, tuple(result), tables)


def stages(config: ParagenConfig) -> list[Stage]:
    """The stages of :func:`build_plan`, as a list (what the tests and ``python -m paragen.pipeline.sbatch``
    walk)."""
    return list(build_plan(config).stages)


def final_outputs(all_stages: list[Stage]) -> list[str]:
    """What the default target (Snakemake's ``rule all``) asks for: the tables, figures and prepared data."""
    return [p for s in all_stages if s.step in ("report", "index", "segment", "vocab") for p in s.outs]
