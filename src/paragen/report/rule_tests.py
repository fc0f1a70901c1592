"""How a table shows a comparison over rules (rule data): the sign-flip test's p beside the smallest p the rule
count allows (and, where rules are tied, the higher floor the ties leave), and either the rule-resampling interval
(at ``INTERVAL_MIN_RULES`` rules or more) or the per-rule differences (:mod:`paragen.metrics.randomization`).

A comparison file written before the sign-flip test (its rule parts have no ``p_floor``) carries only the rule
bootstrap's p, which is not valid at a handful of rules; such a part is shown with its scores and "no exact test",
never with that p.
"""

from __future__ import annotations

from typing import Any

from paragen.metrics.randomization import INTERVAL_MIN_RULES
from paragen.rounding import exact_text, p_exact_text, shown, signed, versus_text

NO_EXACT_TEST = "no exact test (the comparison file predates the sign-flip test over rules: rerun `paragen compare`)"


def has_exact_test(test: dict[str, Any]) -> bool:
    """Whether a rule part of a comparison file carries the sign-flip test (files from before issue 67 do not)."""
    return "p_floor" in test


def favour_text(test: dict[str, Any], row: str, baseline: str) -> str:
    """"3 of 4 rules favour CopyNet, 1 favours RNNSearch"; tied rules named last."""
    rules, ties, against = test["groups"], test["ties"], test["favour_a"]
    favour = test["favour_b"]
    text = f"{favour} of {rules} rule{'s' if rules != 1 else ''} favour{'s' if favour == 1 else ''} {row}"
    if against:
        text += f", {against} favour{'s' if against == 1 else ''} {baseline}"
    if ties:
        text += f", {ties} tied"
    return text


def floor_with_ties(test: dict[str, Any]) -> float:
    """The smallest p an enumerated test can give with its tied rules: a tie (difference 0) reads the same under
    either sign, so the most extreme sum is reached by 2^t of the 2^n assignments and no p falls below 2^-(n - t).
    Equal to ``p_floor`` without ties. (A drawn test has more untied rules than are enumerated, and its own floor,
    1 / (1 + draws), is the one its p can reach: :func:`paragen.metrics.randomization.sign_flip_test`.)"""
    return max(test["p_floor"], 2.0 ** -(test["groups"] - test["ties"]))


def p_with_floor(test: dict[str, Any]) -> str:
    """"exact p = 0.0625 (smallest possible with 4 rules: 0.0625)"; with tied rules "exact p = 0.007813 (smallest
    possible with 8 rules: 0.003906, with 1 tied: 0.007813)"; for a drawn test "p = 1.0e-05 (100,000 random sign
    assignments, seed 12345; smallest possible: 1.0e-05)"."""
    method = test["sign_flip"]
    if method["method"] == "exhaustive":
        rules = f"{test['groups']} rule{'s' if test['groups'] != 1 else ''}"
        floor, tied = test["p_floor"], floor_with_ties(test)
        ties = f", with {test['ties']} tied: {p_exact_text(tied)}" if tied > floor else ""
        return (f"exact p = {p_exact_text(test['p_value'])} (smallest possible with {rules}: "
                f"{p_exact_text(floor)}{ties})")
    return (f"p = {p_exact_text(test['p_value'])} ({method['assignments']:,} random sign assignments, seed "
            f"{method['seed']}; smallest possible: {p_exact_text(test['p_floor'])})")


def spread_text(test: dict[str, Any]) -> str:
    """Inside the scores' parentheses: the interval of the difference where there are enough rules for it, else
    the per-rule differences (shown to one decimal, half up)."""
    rules = test["groups"]
    if rules >= INTERVAL_MIN_RULES:
        low, high = test["delta_ci95"]
        return f"; difference 95 % interval {shown(low, 1)} to {shown(high, 1)}, {rules} rules"
    if not has_exact_test(test):
        return f"; {rules} rule{'s' if rules != 1 else ''}"
    return "; per rule " + ", ".join(signed(d, 1) for d in test["rule_differences"])


def rule_part_text(test: dict[str, Any], label: str, row: str, baseline: str) -> str:
    """"x → x: 92.5 vs 85.5 (+7.0; per rule +3.0, +5.0, +10.0, +10.0): 4 of 4 rules favour CopyNet, exact p =
    0.0625 (smallest possible with 4 rules: 0.0625)"; a part without the exact test: its scores alone."""
    scores = versus_text(test["score_b"], test["score_a"], spread_text(test))
    if not has_exact_test(test):
        return f"{label}: {scores}"
    return f"{label}: {scores}: {favour_text(test, row, baseline)}, {p_with_floor(test)}"


def method_text(test: dict[str, Any]) -> str:
    """The CSV's ``p_method``: "sign flip, exhaustive (16 assignments)" or "sign flip, monte carlo (100000
    assignments, seed 12345)"."""
    method = test["sign_flip"]
    seed = f", seed {method['seed']}" if "seed" in method else ""
    return f"sign flip, {method['method']} ({method['assignments']} assignments{seed})"


def rule_record(test: dict[str, Any]) -> dict[str, Any]:
    """The CSV fields of one rule part beyond the scores: the sign-flip p, its lower-tail p and floor, the method,
    the counts and per-rule differences (exact), and the interval only where the table shows it."""
    interval = test.get("delta_ci95") if test["groups"] >= INTERVAL_MIN_RULES else None
    fields: dict[str, Any] = {"ci95_low": "" if interval is None else exact_text(interval[0]),
                              "ci95_high": "" if interval is None else exact_text(interval[1]),
                              "samples": test["samples"] if interval is not None else ""}
    if not has_exact_test(test):
        return {**fields, "p_value": "", "note": NO_EXACT_TEST}
    return {**fields, "p_value": exact_text(test["p_value"]), "p_value_lower": exact_text(test["p_value_lower"]),
            "p_floor": exact_text(test["p_floor"]), "p_method": method_text(test),
            "favour_row": test["favour_b"], "favour_baseline": test["favour_a"], "ties": test["ties"],
            "rule_differences": " ".join(exact_text(d) for d in test["rule_differences"])}
