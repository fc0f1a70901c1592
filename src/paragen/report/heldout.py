"""The lines under a rule-data table that read the closest-epoch hypothesis as a prediction
(:mod:`paragen.scoring.closest_heldout`): per closest-epoch run and copying type, the epoch chosen with that type
left out, its test score, the paper's number and the held-out error beside the selected checkpoint's error, then
both errors' means over the types that have a test score."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

from paragen.artifacts import heldout_path
from paragen.pipeline.tables import TablePlan
from paragen.rounding import difference_of_shown, mean_of_shown, shown

HEADING = ("Closest epoch as a prediction (each type's epoch chosen on validation with that type left out, its test "
           "score against the paper's number; error = |test − paper|, exact-match points, beside the selected "
           "checkpoint's error):")


def _error(entry: dict, score: str) -> Decimal:
    """|shown score − shown paper|: the error a reader computes from the numbers printed (and from the table's cell
    for the selected checkpoint), not the rounding of the unrounded error (63.75 vs 69.4 reads 63.8 vs 69.4, error
    5.6, where |63.75 − 69.4| = 5.65 would print 5.7)."""
    return abs(difference_of_shown(entry[score], entry["paper"], 1))


def _entry(label: str, entry: dict) -> str:
    if "test" not in entry:
        return f"{label} epoch {entry['epoch']}: not decoded ({entry['checkpoint']} is not here)"
    return (f"{label} epoch {entry['epoch']}: {shown(entry['test'], 1)} vs {shown(entry['paper'], 1)}, error "
            f"{shown(_error(entry, 'test'), 1)} (selected {shown(_error(entry, 'selected'), 1)})")


def heldout_lines(plan: TablePlan, labels: dict[str, str]) -> list[str]:
    """One line per closest-epoch run (``labels``: column labels of the rule types); a run without its held-out
    file says what is missing."""
    lines = []
    for row in plan.closest_rows():
        for run in row.runs:
            path = Path(heldout_path(run.name))
            if not path.exists():
                lines.append(f"{row.label} ({run.name}): not yet run ({path} missing; `paragen closest-heldout` "
                             "reads the run's train_log.csv and decodes its kept epoch checkpoints)")
                continue
            result = json.loads(path.read_text(encoding="utf-8"))
            types = result["types"]
            tested = [e for e in types.values() if "test" in e]
            seed = f" (seed {run.seed})" if len(row.runs) > 1 else ""
            parts = "; ".join(_entry(labels.get(key, key), entry) for key, entry in types.items())
            mean = "" if not tested else (
                f"; mean over {len(tested)} type{'s' if len(tested) != 1 else ''} "
                f"{shown(mean_of_shown((_error(e, 'test') for e in tested), 1), 1)} "
                f"(selected {shown(mean_of_shown((_error(e, 'selected') for e in tested), 1), 1)})")
            lines.append(f"{result['row']}{seed}, {result['epochs_run']} epochs run: {parts}{mean}")
    return lines
