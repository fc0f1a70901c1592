"""Checks across sections of ``params.yaml`` that need the whole :class:`~paragen.config.project.ParagenConfig`
(run by its validator once every section is parsed): the systems against the datasets, rules and experiments, and
a table's validation curves against its rows' trainings. They annotate ParagenConfig and never import it when run
(the annotation-only circle tests/test_architecture.py allows)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paragen.config.datasets import RealDataset

if TYPE_CHECKING:
    from paragen.config.project import ParagenConfig


def check_systems(config: ParagenConfig) -> None:
    """Systems are named apart from experiments, on a real dataset with a test split, with known rules, and rewrite
    a known row of the same dataset without a cycle."""
    clash = sorted(set(config.systems) & set(config.experiments))
    if clash:
        raise ValueError(f"systems: {clash} also named under experiments:; a row name must say which it is")
    for name, system in config.systems.items():
        dataset = config.datasets.get(system.dataset)
        if not isinstance(dataset, RealDataset) or "test" not in dataset.splits:
            real = sorted(n for n, d in config.datasets.items() if isinstance(d, RealDataset) and "test" in d.splits)
            raise ValueError(f"systems.{name}.dataset: {system.dataset!r} is not a real dataset with a test "
                             f"split; allowed values: {real}")
        if system.rules is not None and system.rules not in config.rules:
            raise ValueError(f"systems.{name}.rules: unknown rules {system.rules!r}; allowed values: "
                             f"{sorted(config.rules)}")
        if system.input != "source":
            if system.input not in config.experiments and system.input not in config.systems:
                raise ValueError(f"systems.{name}.input: {system.input!r} is neither 'source' nor an experiment "
                                 f"or system; allowed values: {['source', *sorted(config.experiments), *sorted(config.systems)]}")
            chain, current = [name], system.input
            while current not in chain and current in config.systems and config.systems[current].input != "source":
                chain.append(current)
                current = config.systems[current].input
            if current in chain:
                raise ValueError(f"systems.{name}.input: the inputs form a cycle: " + " -> ".join(chain + [current]))
            if config.dataset_of(system.input) != system.dataset:
                raise ValueError(f"systems.{name}.input: {system.input!r} decodes the test set of dataset "
                                 f"{config.dataset_of(system.input)!r}, not {system.dataset!r} (its segmentation and "
                                 "references may differ): rewrite an output of the same dataset")


def check_curves(config: ParagenConfig) -> None:
    """A scores table draws its trained rows' validation curves on one axis: the rows select checkpoints by one
    metric, or every row's training logs one metric in common (``log_metrics``)."""
    for name, table in config.tables.items():
        trained = {label: e for label, e in table.rows.items() if e in config.experiments}
        trainings = {config.experiments[e].training: config.training[config.experiments[e].training]
                     for e in trained.values()}
        if table.kind != "scores" or len({t.valid_metric for t in trainings.values()}) < 2:
            continue
        logged = [set(t.log_metrics) for t in trainings.values()]
        if set.intersection(*logged):
            continue
        by = ", ".join(f"training.{n}: {t.valid_metric}" for n, t in trainings.items())
        raise ValueError(f"tables.{name}: its rows select checkpoints by different metrics ({by}), and its "
                         "validation curves need one metric on one axis: give every one of these trainings the "
                         "same log_metrics entry (e.g. log_metrics: [bleu] in each), or one valid_metric")
