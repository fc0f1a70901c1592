"""What the suites' own other seeds say about a matrix cell that is a suite's run (issue 67).

A cell whose experiment is a suite's (docs/decisions.md X5) may have seed replicas that the suite trained and the
matrix did not ask for: the headline stand-in trains its four models on seeds 1-6, the matrix on ``matrix.seeds``.
Where a cell and its column's baseline both have such replicas on the same seeds, their differences on those seeds
are a check of the matrix's reading that costs no training: the table lists them, and the reading names each cell
whose verdict or best rank they contradict.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from paragen.artifacts import metrics_path
from paragen.config import ParagenConfig
from paragen.config.seeds import replica_name
from paragen.report.matrix import TaskResult
from paragen.rounding import half_up, shown_difference
from paragen.report.tables import read_metrics


@dataclass(frozen=True)
class OtherSeeds:
    """One cell against its baseline on the seeds the suite trained beyond the matrix's."""

    task: str
    mechanism: str
    experiment: str
    baseline: str
    seeds: list[int]
    values: list[float]
    baseline_values: list[float]

    @property
    def higher(self) -> int:
        """Seeds on which the cell's shown score is above the baseline's."""
        return sum(half_up(v, 1) > half_up(b, 1) for v, b in zip(self.values, self.baseline_values))

    def differences(self) -> str:
        """"seed 2 -5.6, seed 3 -37.4": shown cell minus shown baseline, per seed."""
        return ", ".join(f"seed {s} {shown_difference(v, b, 1)}"
                         for s, v, b in zip(self.seeds, self.values, self.baseline_values))


def _replica_seeds(experiment: str) -> set[int]:
    """The seeds k of ``<experiment>_seed<k>`` whose metrics file exists."""
    pattern = re.compile(rf"^{re.escape(experiment)}_seed(\d+)\.json$")
    folder = Path(metrics_path(experiment)).parent
    return {int(m[1]) for p in folder.glob(f"{experiment}_seed*.json") if (m := pattern.match(p.name))}


def other_seeds(config: ParagenConfig, results: list[TaskResult]) -> list[OtherSeeds]:
    """Per scored cell whose experiment and baseline both have replicas beyond ``matrix.seeds``, their main metric
    on the seeds both have, in seed order."""
    matrix = config.matrix
    assert matrix is not None
    found = []
    for task in results:
        base = next(c for c in task.cells if c.mechanism == task.baseline)
        if base.status != "scored" or base.experiment is None:
            continue
        base_seeds = _replica_seeds(base.experiment) - set(matrix.seeds)
        for cell in task.cells:
            if cell.status != "scored" or cell.experiment is None or cell is base:
                continue
            seeds = sorted(base_seeds & _replica_seeds(cell.experiment))
            if not seeds:
                continue
            value = [read_metrics(metrics_path(replica_name(cell.experiment, s)), [task.metric])[task.metric]
                     for s in seeds]
            baseline = [read_metrics(metrics_path(replica_name(base.experiment, s)), [task.metric])[task.metric]
                        for s in seeds]
            found.append(OtherSeeds(task.name, cell.mechanism, cell.experiment, base.experiment, seeds, value,
                                    baseline))
    return found


def disagreements(task: TaskResult, found: list[OtherSeeds]) -> list[str]:
    """The cells of ``task`` whose reading the suite's other seeds contradict: "better" or the best rank while the
    cell is above the baseline on fewer than half of them, "worse" while it is above on more than half."""
    best = min((c.rank for c in task.cells if c.rank is not None), default=None)
    cells = {c.mechanism: c for c in task.cells}
    texts = []
    for other in (o for o in found if o.task == task.name):
        cell, count = cells[other.mechanism], len(other.seeds)
        claims = [v for v in (cell.verdict,) if v in ("better", "worse")] + (["best"] if cell.rank == best else [])
        against = [c for c in claims if _contradicted(c, other.higher, count)]
        if against:
            texts.append(f"{other.mechanism} ({' and '.join(against)} here) is above {task.baseline} on "
                         f"{other.higher} of the suite's {count} other seeds")
    return texts


def _contradicted(claim: str, higher: int, count: int) -> bool:
    """"worse" is contradicted by a cell above the baseline on more than half the seeds; "better" and "best" by one
    above it on fewer than half."""
    return 2 * higher > count if claim == "worse" else 2 * higher < count
