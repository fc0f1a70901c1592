"""The lines under a table that report its paired tests (``paragen compare``'s files), seed by seed.

On rule data the unit is the rule (``clustered`` in the file: lines of one rule succeed or fail together, so
resampling lines overstates the evidence): the p is the sign-flip test's over rules (exact up to
``EXHAUSTIVE_MAX_RULES`` rules, seeded Monte Carlo beyond), printed with the
smallest p the rule count allows, and the line bootstrap's p is not reported (:mod:`paragen.report.rule_tests`).
Scores and differences are rounded half up (:mod:`paragen.rounding`), the difference shown being the shown
scores' difference.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from paragen.artifacts import comparison_path
from paragen.config import Comparison, ParagenConfig, TableConfig
from paragen.config.tables import seed_span
from paragen.pipeline.tables import ABSENT, TablePlan
from paragen.metrics.randomization import EXHAUSTIVE_MAX_RULES, INTERVAL_MIN_RULES, MONTE_CARLO_DRAWS
from paragen.rounding import exact_difference, exact_text, versus_text
from paragen.report.rule_tests import NO_EXACT_TEST, has_exact_test, rule_part_text, rule_record
from paragen.report.sanity import baseline_void

METRIC_NAMES = {"exact": "exact match", "bleu": "BLEU", "sari": "SARI", "rouge2": "ROUGE-2", "rouge": "ROUGE-2",
                "oddgen": "sentences without odd generation (%)"}


def p_text(p_value: float, samples: int) -> str:
    """A bootstrap p-value. None of ``samples`` resamples against the row is read at the resampling's resolution,
    1/samples, the smallest p it can show, with the count beside it: never a p below that ("p < 0.001" from 1,000
    resamples claims what they cannot show), nor an inequality that reads as a bound."""
    if p_value == 0:
        return f"p = {1 / samples:.3g} (0 of {samples:,} resamples: the smallest p they can show)"
    return f"p = {p_value:.3f}"


def scores_text(test: dict, detail: str = "") -> str:
    """"94.7 vs 81.5 (+13.2)": row vs baseline, one decimal, the difference of the two numbers shown; ``detail``
    goes inside the parentheses after the difference."""
    return versus_text(test["score_b"], test["score_a"], detail)


def seed_text(test: dict, seed: int | None) -> str:
    """One split of one seed: row score vs baseline score, the difference and p."""
    where = "" if seed is None else f" (seed {seed})"
    return f"{scores_text(test)}, {p_text(test['p_value'], test['samples'])}{where}"


def rule_seed_text(result: dict, seed: int | None, labels: dict[str, str], row: str, baseline: str) -> str:
    """One seed's test over rules, all types then each type (:func:`paragen.report.rule_tests.rule_part_text`)."""
    clustered = result["clustered"]
    where = "" if seed is None else f"seed {seed}: "
    parts = [("all types", clustered["overall"])] + [(labels.get(tag, tag), test)
                                                    for tag, test in clustered["by_type"].items()]
    text = where + "; ".join(rule_part_text(test, label, row, baseline) for label, test in parts)
    return text if has_exact_test(clustered["overall"]) else f"{text}; {NO_EXACT_TEST}"


def rules_method(row: str, baseline: str, samples: int) -> str:
    """What the rule-data line's tests are, in its parentheses."""
    return (f"sign-flip test over the test rules, one-sided for {row} better than {baseline}: every sign assignment up "
            f"to {EXHAUSTIVE_MAX_RULES} rules, {MONTE_CARLO_DRAWS:,} seeded random ones beyond; the difference's 95 % "
            f"interval from {samples:,} resamples of the rules where there are at least {INTERVAL_MIN_RULES} rules, "
            "else the per-rule differences")


def comparison_line(config: ParagenConfig, table: TableConfig, comparison: Comparison,
                    runs: tuple[tuple[str, str, int], ...], block: str, labels: dict[str, str] | None,
                    rule_data: bool, judged: bool, short: bool = False) -> str:
    """"CopyNet vs RNNSearch, exact match on test (1,000 resamples): 84.0 vs 70.0 (+14.0), p = 0.001 (0 of 1,000
    resamples: ...); ..."
    (``runs``: the (row run, baseline run, seed) triples the plan compares; ``block``: which seeds, when the table
    has confirmation seeds: "design seeds 1–3"; ``labels``: column labels of rule types, "x->0" -> "x → ∅";
    ``rule_data``: the rows learn rule data, where a file without rule resampling is flagged; ``judged``: the runs
    are confirmation seeds, whose line ends with the verdict of the table's criterion).
    A file with rule-resampling results is reported by them (and tallied by their overall p). ``short``: the
    finding alone (each seed's overall test, the tally, the verdict), for the table's findings."""
    head = f"{comparison.row} vs {comparison.baseline}" + (f", {block}" if block else "")
    if not runs:
        return f"{head}: {ABSENT}"  # trained rows run unless their dataset is not switched on
    metric = METRIC_NAMES[config.comparison_metric(table, comparison)]
    seeded = len(runs) > 1
    per_split: dict[str, list[str]] = {}
    overall: dict[str, list[str]] = {}  # each seed's all-types or sentence test: the short form
    significant, tests, rules = 0, 0, False
    for a, b, seed in runs:
        path = Path(comparison_path(a, b))
        if not path.exists():
            return f"{head}: not yet run ({path} missing)"
        result = json.loads(path.read_text(encoding="utf-8"))
        if "clustered" in result:
            clustered, rules = result["clustered"], True
            per_split.setdefault(clustered["split"], []).append(
                rule_seed_text(result, seed if seeded else None, labels or {}, comparison.row, comparison.baseline))
            overall.setdefault(clustered["split"], []).append(
                ("" if not seeded else f"seed {seed}: ")
                + rule_part_text(clustered["overall"], "all types", comparison.row, comparison.baseline))
            if has_exact_test(clustered["overall"]):
                significant += clustered["overall"]["p_value"] < 0.05
                tests += 1
            continue
        for split, test in result["splits"].items():
            per_split.setdefault(split, []).append(seed_text(test, seed if seeded else None))
            overall.setdefault(split, []).append(seed_text(test, seed if seeded else None))
            significant += test["p_value"] < 0.05
            tests += 1
    samples = (rules_method(comparison.row, comparison.baseline, comparison.samples) if rules else
               f"{comparison.samples:,} resamples of the test sentences")
    if rule_data and not rules:
        samples += (" — lines, not rules: the lines of one rule are not independent, so this p overstates the "
                    "evidence (the comparison predates rule resampling; rerun it to resample rules)")
    body = " | ".join(f"{metric} on {split}: " + "; ".join(texts) for split, texts in per_split.items())
    tally = f" {comparison.row} is better at p < 0.05 in {significant} of {tests} tests." if seeded else ""
    void = void_text(table, comparison, runs)
    ending = (verdict(table, significant) if judged else "") + (f" **{void[0].upper()}{void[1:]}.**" if void else "")
    if short:
        return f"{head}: {short_body(metric, overall, rules, rule_data)}.{tally}{ending}"
    return f"{head} ({samples}; score of {comparison.row} vs {comparison.baseline}): {body}.{tally}{ending}"


def short_body(metric: str, overall: dict[str, list[str]], rules: bool, rule_data: bool) -> str:
    """The short form's tests: per split, what was resampled and each seed's overall test."""
    unit = "sign-flip test over rules" if rules else \
        "lines resampled, not rules: this p overstates the evidence" if rule_data else "sentences resampled"
    return " | ".join(f"{metric} on {split} ({unit}): " + "; ".join(texts) for split, texts in overall.items())


def void_text(table: TableConfig, comparison: Comparison, runs: tuple[tuple[str, str, int], ...]) -> str:
    """Why the comparison claims nothing (its baseline misses ``comparison.sanity``'s bound), or ""."""
    if comparison.sanity is None or not runs:
        return ""
    return baseline_void(comparison.sanity, comparison.baseline, [b for _, b, _ in runs],
                         f"the comparison {comparison.row} vs {comparison.baseline} ({table.title})")


def verdict(table: TableConfig, significant: int) -> str:
    """The confirmation block's outcome by the criterion fixed before its seeds ran (``confirmation.required``)."""
    block = table.confirmation
    assert block is not None
    outcome = "confirmed" if significant >= block.required else "not confirmed"
    return (f" Criterion fixed before these seeds ran: better at p < 0.05 in at least {block.required} of "
            f"{len(block.seeds)}: **{outcome}**.")


def comparison_blocks(plan: TablePlan) -> list[tuple[Comparison, tuple[tuple[str, str, int], ...], str, bool]]:
    """(comparison, its compared runs, block label, judged) in the order the table reports them: one block per
    comparison; with confirmation seeds, the design seeds' block then the confirmation seeds' (judged) block."""
    if not plan.confirmations:
        return [(c, runs, "", False) for c, runs in plan.comparisons]
    blocks = []
    for (c, runs), (_, confirming) in zip(plan.comparisons, plan.confirmations):
        blocks.append((c, runs, f"design {seed_span([s for *_, s in runs])}", False))
        blocks.append((c, confirming, f"confirmation {seed_span([s for *_, s in confirming])}", True))
    return blocks


def compared_by_rule(plan: TablePlan) -> bool:
    """Whether a comparison file of the table compares by rule (rule data: the heading over the lines says so)."""
    paths = [Path(comparison_path(a, b)) for _, runs, _, _ in comparison_blocks(plan) for a, b, _ in runs]
    return any("clustered" in json.loads(p.read_text(encoding="utf-8")) for p in paths if p.exists())


def comparison_lines(config: ParagenConfig, plan: TablePlan, short: bool = False) -> list[str]:
    """One line per comparison; with confirmation seeds, one for the design seeds and one for the confirmation
    seeds (trained once after the design was fixed), each labelled. ``short``: the findings' form."""
    labels = {column.key: column.label for column in plan.paper.columns}
    return [comparison_line(config, plan.spec, c, runs, block, labels, plan.by_type, judged, short)
            for c, runs, block, judged in comparison_blocks(plan)]


CSV_FIELDS = ("table", "row", "baseline", "metric", "block", "seed", "split", "unit", "scope", "score_row",
              "score_baseline", "difference", "ci95_low", "ci95_high", "p_value", "p_value_lower", "p_floor",
              "p_method", "favour_row", "favour_baseline", "ties", "rule_differences", "samples", "groups", "lines",
              "note")
"""``unit``: the unit of the test (``rules``: the sign-flip test over rules; ``sentences``: the line bootstrap, not
used on rule data); ``scope``: ``all`` or a rule type's tag; ``difference``: the row's score minus the baseline's;
``ci95_*``: the difference's rule-resampling interval, only where there are at least
:data:`~paragen.metrics.randomization.INTERVAL_MIN_RULES` rules (``samples``: its resamples); ``p_value``: one-sided,
the row better (``p_value_lower``: the row worse); ``p_floor``: the smallest p the rule count and method allow;
``favour_*``, ``ties``: rules by the sign of their difference; ``rule_differences``: per rule, row − baseline in
points; ``groups``: rules; ``note``: why a comparison has no numbers."""


def _record(base: dict, seed: int, split: str, unit: str, scope: str, test: dict) -> dict:
    record = {**base, "seed": seed, "split": split, "unit": unit, "scope": scope,
              "score_row": exact_text(test["score_b"]), "score_baseline": exact_text(test["score_a"]),
              "difference": exact_difference(test["score_b"], test["score_a"]), "groups": test.get("groups", ""),
              "lines": test.get("lines", "")}
    if unit == "rules":
        fields = rule_record(test)
        return {**record, **fields, "note": "; ".join(filter(None, [base.get("note"), fields.get("note")]))}
    interval = test.get("delta_ci95") or (None, None)
    return {**record, "ci95_low": "" if interval[0] is None else exact_text(interval[0]),
            "ci95_high": "" if interval[1] is None else exact_text(interval[1]),
            "p_value": exact_text(test["p_value"]), "samples": test["samples"]}


def comparison_records(config: ParagenConfig, plan: TablePlan) -> list[dict]:
    """Every test the lines under the table report, as numbers (exact, not rounded), in the same order: per block
    and seed, on rule data the rule-resampling tests (all types, then each type) before the line bootstrap."""
    records = []
    for comparison, runs, block, _ in comparison_blocks(plan):
        base = {"table": plan.name, "row": comparison.row, "baseline": comparison.baseline,
                "metric": config.comparison_metric(plan.spec, comparison), "block": block}
        if not runs:
            records.append({**base, "note": ABSENT})
        elif all(Path(comparison_path(a, b)).exists() for a, b, _ in runs):
            base["note"] = void_text(plan.spec, comparison, runs)
        for a, b, seed in runs:
            path = Path(comparison_path(a, b))
            if not path.exists():
                records.append({**base, "seed": seed, "note": f"not yet run ({path} missing)"})
                continue
            result = json.loads(path.read_text(encoding="utf-8"))
            clustered = result.get("clustered")
            if clustered is not None:  # rule data: the test over rules alone (lines are not independent)
                records += [_record(base, seed, clustered["split"], "rules", scope, test) for scope, test in
                            [("all", clustered["overall"]), *clustered["by_type"].items()]]
                continue
            records += [_record(base, seed, split, "sentences", "all", test)
                        for split, test in result["splits"].items()]
    return records


def comparisons_csv(records: list[dict]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, CSV_FIELDS, restval="", lineterminator="\n")
    writer.writeheader()
    writer.writerows(records)
    return buffer.getvalue()
