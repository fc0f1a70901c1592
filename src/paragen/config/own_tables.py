"""A table of your own data shows the source as a row: the identity baseline every rewrite is read against.

Copying the input is the first thing a rewriting model learns, and on many corpora it already scores well (ROUGE
of a compression's source against its reference, BLEU of a simplification's source): a model's number means little
until it is set beside the identity's. So every ``paper: own`` table gets, unless ``source_row: false`` or a row is
an identity system on that dataset already, a first row ``source (identity)`` filled by an implicit system
``<dataset>_source`` (``method: identity``), computed and scored on every split the table shows like any row.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paragen.config.runs import SystemConfig

if TYPE_CHECKING:
    from paragen.config.project import ParagenConfig

SOURCE_LABEL = "source (identity)"


def source_system_name(dataset: str) -> str:
    return f"{dataset}_source"


def add_source_rows(config: ParagenConfig) -> set[str]:
    """Declare the implicit identity systems and put their rows first in their tables (called once, on validation);
    returns the names declared (they are not keys of params.yaml: no stage may list them as DVC params). A table
    that names the row already (a configuration dumped and parsed again) keeps it where it is."""
    declared: set[str] = set()
    for table_name, table in config.tables.items():
        if table.paper != "own" or not table.source_row:
            continue
        rows = list(table.rows.values())
        datasets = list(dict.fromkeys(config.dataset_of(r) for r in rows if r in config.experiments or
                                      r in config.systems))
        added: dict[str, str] = {}
        for dataset in datasets:
            if any(_is_identity(config.systems.get(r), dataset) for r in rows):
                continue
            name = source_system_name(dataset)
            if name in config.experiments or (name in config.systems and not _is_identity(config.systems[name],
                                                                                           dataset)):
                raise ValueError(f"tables.{table_name}: the source row of {dataset} is the system {name!r}, a name "
                                 f"params.yaml gives to something else; rename that, or set source_row: false")
            if name not in config.systems:
                config.systems[name] = SystemConfig(dataset=dataset, method="identity")
                declared.add(name)
            label = SOURCE_LABEL if len(datasets) == 1 else f"{SOURCE_LABEL[:-1]}, {dataset})"
            added[label] = name
        if added:
            original = dict(table.rows)
            table.rows.clear()
            table.rows.update({**added, **original})
    return declared


def _is_identity(system: SystemConfig | None, dataset: str) -> bool:
    return system is not None and system.method == "identity" and not system.vocabulary_only and \
        system.dataset == dataset
