"""Caption sentences of rule-data tables about epochs: which epoch's per-type validation exact match comes
closest to the paper's row, and which epoch each closest-epoch row decodes (``paragen decode --closest-to``)."""

from __future__ import annotations

import json
from pathlib import Path

from paragen import artifacts
from paragen.data.synthetic import tag_column
from paragen.pipeline.tables import TablePlan, seed_suffix
from paragen.rounding import shown
from paragen.training.closest_epoch import closest_epoch, mean_rows
from paragen.training.stopping import TrainingOutcome
from paragen.training.train_log import read_log


def closest_epoch_text(plan: TablePlan, outcomes: dict[str, list[tuple[int | None, TrainingOutcome]]]) -> str:
    """Caption sentence (rule data): per row with published numbers, the epoch whose per-type validation exact
    match is closest to the paper's row, beside the distance at the selected epoch (``outcomes``: the table's
    training outcomes, each judged by the settings its run trained with)."""
    paper = plan.paper
    columns = {c.key: tag_column(c.key) for c in paper.columns}
    parts = []
    for row in plan.trained_rows():
        paths = [Path(run.train_log or "") for run in plan.rows[row].runs]
        if row not in paper.rows or not all(p.exists() for p in paths):
            continue
        logs = [read_log(p) for p in paths]
        best = outcomes[row][0][1].best_epoch if len(logs) == 1 else None
        found = closest_epoch(mean_rows(logs), paper.rows[row], columns, best)
        if found is not None:
            at_best = "" if found.best_epoch_distance is None else \
                f"; {shown(found.best_epoch_distance, 1)} at the selected epoch {best}"
            parts.append(f"{row} epoch {found.epoch} ({shown(found.distance, 1)}{at_best})")
    if not parts:
        return ""
    return (" Epoch whose per-type validation exact match is closest to the paper's row (mean absolute difference "
            "over the five types, points; with several seeds their per-epoch mean): " + ", ".join(parts) + ". The cells "
            "are the selected (best validation) checkpoint's test scores.")


def closest_rows_text(plan: TablePlan) -> str:
    """Caption text: which epoch each closest-epoch row decodes (``paragen decode --closest-to``'s choice files)."""
    parts = []
    for row in plan.closest_rows():
        for run in row.runs:
            path = Path(artifacts.closest_choice_path(run.name))
            if not path.exists():
                continue
            choice = json.loads(path.read_text(encoding="utf-8"))
            seed = seed_suffix(row, run)
            retrain = "retrain_of" in choice
            best = "the retrain's best epoch" if retrain else "the selected epoch"
            at_selected = "" if choice["selected_distance"] is None else \
                f", {shown(choice['selected_distance'], 1)} at {best} {choice['selected_epoch']}"
            how = "" if not retrain else \
                (f" of {run.name}: {choice['retrain_of']} trained again for {choice['epochs_run']} epochs, "
                 f"keeping every epoch's weights, as its own run kept none ({round(choice['training_minutes'])} min "
                 "of training and validation; its trajectory may differ from the full run's where the code or the "
                 "threads differ)")
            last = "" if not retrain or choice["epoch"] != choice["epochs_run"] else \
                ("; its last epoch, so the paper's row may lie later and this row does not test how long the paper "
                 "trained")
            parts.append(f"{row.label}{seed}: epoch {choice['epoch']} of {choice['epochs_run']}{how} "
                         f"({shown(choice['distance'], 1)}{at_selected}{last})")
    if not parts:
        return ""
    return (" Rows \"closest epoch\": the checkpoint of the epoch closest to the paper's row on validation, decoded "
            "on the test set with the row's beam (the test set played no part in the choice): " + "; ".join(parts)
            + ".")
