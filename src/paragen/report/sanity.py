"""Whether a baseline works at all (docs/decisions.md X2, X11, T11): a comparison with a baseline that does not
is reported as void, not claimed. The bound is a system scored on the same test set (e.g. the in-vocabulary
identity: the source copied with the words the model's vocabulary can write); the baseline must reach a stated
share of it."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from paragen.artifacts import metrics_path
from paragen.config.tables import BaselineSanity
from paragen.rounding import shown
from paragen.report.tables import read_metrics


def baseline_void(check: BaselineSanity, baseline: str, runs: Sequence[str], where: str) -> str:
    """Why comparisons with ``baseline`` (its seed ``runs``, their mean) are void, or "" when it reaches
    ``check.fraction`` of ``check.system``'s score; ``where``: the params key that asks, named when the bound's
    metrics file is missing."""
    path = metrics_path(check.system)
    if not Path(path).exists():
        raise FileNotFoundError(f"{path}: the bound {check.system} of {where} is missing (run `paragen system "
                                f"--name {check.system}` and `paragen evaluate --experiment {check.system}`)")
    bound = read_metrics(path, [check.metric])[check.metric]
    reached = [read_metrics(metrics_path(run), [check.metric])[check.metric] for run in runs]
    mean = sum(reached) / len(reached)
    if mean >= check.fraction * bound:
        return ""
    return (f"void: the baseline {baseline} scores {check.metric.upper()} {shown(mean, 1)}, below "
            f"{check.fraction:.0%} of {check.system}'s {shown(bound, 1)} on the same test set, so it does not work and "
            "no comparison with it is claimed")
