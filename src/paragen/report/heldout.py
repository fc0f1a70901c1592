"""The lines under a rule-data table that read the closest-epoch hypothesis as a prediction
(:mod:`paragen.scoring.closest_heldout`): per closest-epoch run and copying type, the epoch chosen with that type
left out, its test score, the paper's number and the held-out error beside the selected checkpoint's error, then
both errors' means over the types that have a test score. After each, the same prediction on validation from the
training log of the run the table's cells show (docs/decisions.md S21), which needs no kept weights, with its
reading (its rule written before it was first computed, though not before every number it reads was known). The
test-set prediction is read by the same bar only where the table's ``heldout_readings`` name the ledger entry that
fixed it before the run (S22 at paper scale); elsewhere its errors stand unread (S19 fixed no bar)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from paragen.artifacts import heldout_path
from paragen.data.synthetic import tag_column
from paragen.pipeline.tables import CLOSEST_LABEL, RowPlan, RunPlan, TablePlan, seed_suffix
from paragen.rounding import difference_of_shown, half_up, mean_of_shown, shown
from paragen.training.closest_choice import selected_epoch
from paragen.training.closest_epoch import ValidationPrediction, held_out_on_validation
from paragen.training.train_log import read_log

HEADING = ("Closest epoch as a prediction (each type's epoch chosen on validation with that type left out, its test "
           "score against the paper's number; error = |test − paper|, exact-match points, beside the selected "
           "checkpoint's error; then the same read on the validation lines of the training log, which needs no "
           "kept weights):")


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


SUPPORTED_MAX_ERROR = Decimal("5.0")
"""S21 (validation) and S22 (test, paper scale): the hypothesis is supported where the mean held-out error is at
most this many exact-match points."""


def hypothesis_reading(mean_error: Decimal, selected_error: Decimal) -> str:
    """S21's reading of the shown means: not supported where the held-out mean is not below the selected epoch's
    (the fully trained model does as well: checked first, S21's annotation); else supported at a mean of at most
    5.0 points; else partly supported. A table's ``heldout_readings`` apply the same bar to a row's test errors
    (S22, fixed before the paper-scale run)."""
    if mean_error >= selected_error:
        return "not supported"
    return "supported" if mean_error <= SUPPORTED_MAX_ERROR else "partly supported"


@dataclass(frozen=True)
class Validation:
    """S21's prediction on validation for one closest-epoch run: per type the prediction and its shown errors (at
    the epoch chosen without the type, at the selected epoch), their shown means, and the reading."""

    label: str  # the paper's row, e.g. "RNNSearch"
    seed: str  # " (seed k)" when the row has several seeds, else ""
    run: str  # the run whose log it reads: the one the table's cells show
    epochs: int
    selected: int
    found: dict[str, ValidationPrediction]
    errors: dict[str, Decimal]
    at_selected: dict[str, Decimal]
    mean: Decimal
    mean_selected: Decimal

    @property
    def reading(self) -> str:
        return hypothesis_reading(self.mean, self.mean_selected)


def validation(plan: TablePlan, row: RowPlan, run: RunPlan) -> Validation | str | None:
    """S21's prediction for one closest-epoch run, from the log of the same seed's run of the row the table shows (a
    retrain's own log is not the table's run); a line saying what is missing when that log is not here; None for a
    log without per-type scores."""
    label = _paper_row(plan, row)
    shown_run = next((r for r in plan.rows[label].runs if r.seed == run.seed), None)
    if shown_run is None or shown_run.train_log is None or not Path(shown_run.train_log).exists():
        where = shown_run.train_log if shown_run is not None and shown_run.train_log else f"{label}'s training log"
        return f"{label} on validation: not yet run ({where} missing)"
    rows = read_log(shown_run.train_log)
    selected = selected_epoch(rows)
    columns = {c.key: tag_column(c.key) for c in plan.paper.columns}
    found = held_out_on_validation(rows, plan.paper.rows[label], columns, selected)
    if not found:
        return None
    errors = {key: abs(difference_of_shown(p.valid, p.paper, 1)) for key, p in found.items()}
    at_selected = {key: abs(difference_of_shown(p.selected_valid, p.paper, 1)) for key, p in found.items()}
    mean, mean_selected = (half_up(mean_of_shown(e.values(), 1), 1) for e in (errors, at_selected))
    return Validation(label, seed_suffix(row, run), shown_run.name, len(rows), selected, found, errors, at_selected,
                      mean, mean_selected)


def _paper_row(plan: TablePlan, row: RowPlan) -> str:
    """The paper's row (e.g. "RNNSearch") whose closest-epoch row ``row`` is ("RNNSearch, closest epoch")."""
    return next(key for key in plan.spec.closest_epochs if CLOSEST_LABEL.format(row=key) == row.label)


def validation_line(found: Validation, labels: dict[str, str]) -> str:
    """The line under the table: every type's prediction, the means and the reading."""
    parts = "; ".join(f"{labels.get(key, key)} epoch {p.epoch}{_tie(p.tied)}: {shown(p.valid, 1)} vs "
                      f"{shown(p.paper, 1)}, error {shown(found.errors[key], 1)} (selected "
                      f"{shown(found.at_selected[key], 1)})" for key, p in found.found.items())
    return (f"{found.label}{found.seed} on validation ({found.run}'s log, {found.epochs} epochs, selected epoch "
            f"{found.selected}; the type's validation exact match at the epoch chosen without it): {parts}; mean over "
            f"{len(found.found)} types {shown(found.mean, 1)} (selected {shown(found.mean_selected, 1)}): "
            f"{found.reading} (docs/decisions.md S21)")


def _tie(tied: int) -> str:
    """" (earliest of 3 tied)" where the other types could not tell epochs apart and the tie rule chose."""
    return f" (earliest of {tied} tied)" if tied > 1 else ""


def hypothesis_finding(label: str, seed: str, where: str, mean: Decimal, mean_selected: Decimal, selected: str,
                       entry: str) -> str:
    """A findings line of the closest-epoch hypothesis: the reading, the two means it reads, and the ledger entry
    that fixed the rule (and says what was known before it)."""
    return (f"Closest-epoch hypothesis (the paper's {label} is ours trained less){seed}, {where}: "
            f"{hypothesis_reading(mean, mean_selected)}: held-out mean error {shown(mean, 1)} against "
            f"{shown(mean_selected, 1)} at the {selected} (exact-match points; decisions.md {entry}).")


def validation_finding(found: Validation) -> str:
    """The table's findings line: S21's reading and the two means it reads."""
    return hypothesis_finding(found.label, found.seed, "on validation (greedy decoding)", found.mean,
                              found.mean_selected, f"selected epoch {found.selected}", "S21")


def heldout_lines(plan: TablePlan, labels: dict[str, str]) -> tuple[list[str], list[str]]:
    """The section's lines, one per closest-epoch run and its validation line after it (``labels``: column labels
    of the rule types; a run without its held-out file says what is missing), and the findings lines of the
    validation readings."""
    lines, findings = [], []
    for row in plan.closest_rows():
        for run in row.runs:
            path = Path(heldout_path(run.name))
            if not path.exists():
                lines.append(f"{row.label} ({run.name}): not yet run ({path} missing; `paragen closest-heldout` "
                             "reads the run's train_log.csv and decodes its kept epoch checkpoints)")
            else:
                line, finding = _test_line(json.loads(path.read_text(encoding="utf-8")), plan, row, run, labels)
                lines.append(line)
                findings.extend([finding] if finding else [])
            found = validation(plan, row, run)
            if isinstance(found, Validation):
                lines.append(validation_line(found, labels))
                findings.append(validation_finding(found))
            elif found is not None:
                lines.append(found)
    return lines, findings


def _test_line(result: dict, plan: TablePlan, row: RowPlan, run: RunPlan,
               labels: dict[str, str]) -> tuple[str, str | None]:
    """The test-set prediction of one closest-epoch run (``paragen closest-heldout``'s file), read, with a findings
    line, where the table's ``heldout_readings`` name the ledger entry that fixed the reading before the run (else
    the errors stand unread: S19 fixed no bar); a retrain's line says whose checkpoint the selected
    errors are of, and that epochs past the retrain's are not here."""
    types = result["types"]
    tested = [e for e in types.values() if "test" in e]
    parts = "; ".join(_entry(labels.get(key, key), entry) for key, entry in types.items())
    retrain = result.get("selected_run") not in (None, result.get("run"))
    whose = (f" ({result['run']}: a retrain kept to {result['epochs_run']} epochs, the only kept weights; "
             f"selected = {result['selected_run']}'s checkpoint, the table's cells)") if retrain else ""
    line = f"{result['row']}{seed_suffix(row, run)}, {result['epochs_run']} epochs run{whose}: {parts}"
    if not tested:
        return line, None
    mean, mean_selected = (half_up(mean_of_shown((_error(e, score) for e in tested), 1), 1)
                           for score in ("test", "selected"))
    line += (f"; mean over {len(tested)} type{'s' if len(tested) != 1 else ''} {shown(mean, 1)} "
             f"(selected {shown(mean_selected, 1)})")
    paper_row = _paper_row(plan, row)
    entry = plan.spec.heldout_readings.get(paper_row)
    if entry is None or len(tested) < len(types):
        return line, None  # no bar fixed in advance, or a type without its test score: left unread
    finding = hypothesis_finding(paper_row, seed_suffix(row, run), "on test (each type's epoch chosen without it)",
                                 mean, mean_selected, "selected checkpoint", entry)
    return f"{line}: {hypothesis_reading(mean, mean_selected)} (docs/decisions.md {entry})", finding
