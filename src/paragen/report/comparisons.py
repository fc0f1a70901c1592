"""The lines under a table that report its paired bootstrap tests (``paragen compare``'s files), seed by seed."""

from __future__ import annotations

import json
from pathlib import Path

from paragen.artifacts import comparison_path
from paragen.config import Comparison, ParagenConfig, TableConfig
from paragen.pipeline.tables import ABSENT, TablePlan

METRIC_NAMES = {"exact": "exact match", "bleu": "BLEU", "sari": "SARI", "rouge2": "ROUGE-2", "rouge": "ROUGE-2",
                "oddgen": "sentences without odd generation (%)"}


def p_text(p_value: float, samples: int) -> str:
    """A bootstrap p-value; 0 of ``samples`` resamples reads as below their resolution, not as zero."""
    return f"p < {1 / samples:.3g}" if p_value == 0 else f"p = {p_value:.3f}"


def seed_text(test: dict, seed: int | None) -> str:
    """One split of one seed: row score vs baseline score, the difference and p."""
    where = "" if seed is None else f" (seed {seed})"
    return (f"{test['score_b']:.1f} vs {test['score_a']:.1f} ({test['delta']:+.1f}), "
            f"{p_text(test['p_value'], test['samples'])}{where}")


def comparison_line(config: ParagenConfig, table: TableConfig, comparison: Comparison,
                    runs: tuple[tuple[str, str, int], ...]) -> str:
    """"CopyNet vs RNNSearch, exact match on test (1,000 resamples): 84.0 vs 70.0 (+14.0), p < 0.001; ..."
    (``runs``: the (row run, baseline run, seed) triples the plan compares)."""
    head = f"{comparison.row} vs {comparison.baseline}"
    if not runs:
        return f"{head}: {ABSENT}"  # trained rows run unless their dataset is not switched on
    metric = METRIC_NAMES[config.comparison_metric(table, comparison)]
    seeded = len(runs) > 1
    per_split: dict[str, list[str]] = {}
    significant, tests = 0, 0
    for a, b, seed in runs:
        path = Path(comparison_path(a, b))
        if not path.exists():
            return f"{head}: not yet run ({path} missing)"
        result = json.loads(path.read_text(encoding="utf-8"))
        for split, test in result["splits"].items():
            per_split.setdefault(split, []).append(seed_text(test, seed if seeded else None))
            significant += test["p_value"] < 0.05
            tests += 1
    samples = f"{comparison.samples:,} resamples of the test sentences"
    body = " | ".join(f"{metric} on {split}: " + "; ".join(texts) for split, texts in per_split.items())
    tally = f" {comparison.row} is better at p < 0.05 in {significant} of {tests} tests." if seeded else ""
    return f"{head} ({samples}; score of {comparison.row} vs {comparison.baseline}): {body}.{tally}"


def comparison_lines(config: ParagenConfig, plan: TablePlan) -> list[str]:
    return [comparison_line(config, plan.spec, c, runs) for c, runs in plan.comparisons]
