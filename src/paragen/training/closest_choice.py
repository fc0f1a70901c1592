"""Which checkpoint the closest-epoch decode reads (``paragen decode --closest-to``), to test on the test set the
hypothesis "the paper's model was trained about this long".

CopyNet §5.1 gives no training length. The epoch whose per-rule-type validation exact match is closest to a
paper's row (:mod:`paragen.training.closest_epoch`) says how long the paper's model may have trained; on
validation alone that is a guess fitted to the paper's numbers (docs/decisions.md S12). This decodes that epoch's
checkpoint (kept by ``training.*.keep_epochs``) on the test set with the row's own beam, and the table shows its
scores as an extra row beside the selected checkpoint's, so the guess meets the paper's test numbers directly.
The choice uses validation only: the test set plays no part in picking the epoch.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from paragen import artifacts
from paragen.config import ConfigError, ParagenConfig
from paragen.config.papers import PaperTable
from paragen.config.seeds import base_of
from paragen.data.synthetic import tag_column
from paragen.training.closest_epoch import closest_epoch
from paragen.training.kept_epochs import epoch_checkpoint
from paragen.training.train_log import read_log


def selected_epoch(rows: list[dict[str, float]]) -> int:
    """The epoch model selection kept: the first with the best validation metric (the trainer keeps a later epoch
    only when it is strictly better)."""
    best = max(row["valid_metric"] for row in rows)
    return int(next(row["epoch"] for row in rows if row["valid_metric"] == best))


def choose(config: ParagenConfig, table_name: str, experiment: str) -> dict[str, Any]:
    """Which kept checkpoint of ``experiment`` (a row of ``table_name`` named in its ``closest_epochs``, or a seed
    replica of one) to decode, with the validation distances behind the choice."""
    table = config.tables[table_name]
    base = base_of(config, experiment)
    label = next((row for row in table.closest_epochs if table.closest_run(row) == base), None)
    if label is None:
        raise ConfigError(f"--closest-to {table_name}: {experiment} is not a row of its closest_epochs "
                          f"({table.closest_epochs})")
    paper = PaperTable.load(table.paper)
    run = Path(artifacts.run_dir(experiment))
    rows = read_log(run / "train_log.csv")
    selected = selected_epoch(rows)
    found = closest_epoch(rows, paper.rows[label], {c.key: tag_column(c.key) for c in paper.columns}, selected)
    if found is None:
        raise ConfigError(f"{run / 'train_log.csv'}: no per-type validation exact match to compare with the paper")
    checkpoint = epoch_checkpoint(run, found.epoch)
    if not checkpoint.exists():
        raise FileNotFoundError(f"{checkpoint}: epoch {found.epoch} is closest to the paper's {label} row but its "
                                f"weights were not kept (training.{config.experiments[experiment].training}."
                                "keep_epochs); retrain with it set")
    retrain = table.closest_run(label) != table.rows[label]
    return {"table": table_name, "row": label, "epoch": found.epoch, "distance": found.distance,
            "selected_epoch": selected, "selected_distance": found.best_epoch_distance, "epochs_run": len(rows),
            "checkpoint": str(checkpoint),
            **({"retrain_of": table.rows[label], "training_minutes": sum(r["wall_time_s"] for r in rows) / 60}
               if retrain else {})}
