"""Paired bootstrap that resamples rules, not sentences, between two systems' exact match on rule data (issue 40).

Every test line of CopyNet's rule data is an instance of a rule, and a rule's instances succeed or fail together,
so lines are not independent: resampling lines (:func:`paragen.metrics.bootstrap.paired_bootstrap`) treats 4 rules
of 100 instances each as 400 independent draws and its p-value is anti-conservative. Here each resample draws as
many rules as there are, with replacement, the same rules for both systems, and takes all their lines; per copying
type only that type's rules are resampled. The p-value keeps the line bootstrap's convention: the fraction of
resamples in which system B does not score higher than system A.

:func:`clustered_comparison`, what the comparison stage writes, keeps this bootstrap's interval only and takes its
p-value from the exact sign-flip test over the same rules (:mod:`paragen.metrics.randomization`, issue 67): with 4
rules a type the bootstrap's p reaches 0 whenever one system wins every rule, below what 4 units can show.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from paragen.metrics.bootstrap import draw_groups, group_sums, percentile_interval
from paragen.metrics.randomization import rule_sign_flip


@dataclass(frozen=True)
class ClusterBootstrapResult:
    score_a: float  # accuracy (%) of the full set, not of a resample
    score_b: float
    delta_low: float  # percentile interval of the resampled score_b - score_a
    delta_high: float
    p_value: float
    samples: int
    seed: int
    groups: int
    lines: int
    level: float = 0.95

    @property
    def delta(self) -> float:
        return self.score_b - self.score_a

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready; the interval's key names its level (``delta_ci95`` at 0.95)."""
        return {"score_a": self.score_a, "score_b": self.score_b, "delta": self.delta,
                f"delta_ci{100 * self.level:g}": [self.delta_low, self.delta_high], "p_value": self.p_value,
                "samples": self.samples, "seed": self.seed, "groups": self.groups, "lines": self.lines}


def paired_cluster_bootstrap(correct_a: np.ndarray, correct_b: np.ndarray, groups: Sequence[str],
                             samples: int = 1000, seed: int = 12345, level: float = 0.95) -> ClusterBootstrapResult:
    """Paired bootstrap of exact match (``correct_a``, ``correct_b``: 0/1 per line, ``[N]``) over the groups (rules)
    the N lines belong to.

    Per group the hits of A and B and its size (``[G, 2]`` and ``[G]``); a ``[samples, G]`` matrix of drawn group
    indices serves both systems, so each resample compares A and B on the same rules. A resample's accuracy is
    its drawn groups' hits over their lines (a rule drawn twice counts twice); B does not beat A where its hits
    are not more than A's (same denominator, so counts are compared exactly, with no float ties).
    """
    a, b = np.asarray(correct_a, dtype=float), np.asarray(correct_b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"systems differ in length: {a.shape} vs {b.shape} sentences")
    hits, sizes = group_sums(np.stack([a, b], axis=1), list(groups))
    drawn = draw_groups(len(sizes), samples, seed)
    gain = (hits[:, 1] - hits[:, 0])[drawn].sum(axis=1)  # [samples]: B's hits minus A's in each resample
    low, high = percentile_interval(100.0 * gain / sizes[drawn].sum(axis=1), level)
    return ClusterBootstrapResult(100.0 * float(a.mean()), 100.0 * float(b.mean()), low, high,
                                  float(np.mean(gain <= 0)), samples, seed, len(sizes), len(a), level)


def rule_test(correct_a: np.ndarray, correct_b: np.ndarray, groups: Sequence[str], samples: int = 1000,
              seed: int = 12345, level: float = 0.95) -> dict[str, Any]:
    """One part of :func:`clustered_comparison`: the scores, the rule-resampling interval of the difference
    (``delta_ci95``, ``samples``, ``seed``) and, as ``p_value``, the exact sign-flip test over the same rules with its
    floor, per-rule differences and counts (:func:`paragen.metrics.randomization.rule_sign_flip`)."""
    interval = paired_cluster_bootstrap(correct_a, correct_b, groups, samples, seed, level).as_dict()
    del interval["p_value"]  # the bootstrap's p is not valid at a handful of rules; the sign-flip test's replaces it
    hits, sizes = group_sums(np.stack([np.asarray(correct_a, dtype=float), np.asarray(correct_b, dtype=float)],
                                      axis=1), list(groups))
    return {**interval, **rule_sign_flip(hits, sizes)}


def clustered_comparison(correct_a: np.ndarray, correct_b: np.ndarray, tags: Sequence[str], groups: Sequence[str],
                         samples: int = 1000, seed: int = 12345, level: float = 0.95) -> dict[str, Any]:
    """:func:`rule_test` over all lines and per tag (copying type), each tag taking its own groups only:
    ``{"unit": "rule", "overall": {...}, "by_type": {tag: {...}}}``, tags in order of first line.

    A group must lie within one tag (a rule has one copying type); otherwise "a type's rules" is not defined."""
    a, b = np.asarray(correct_a, dtype=float), np.asarray(correct_b, dtype=float)
    if not len(a) == len(b) == len(tags) == len(groups):
        raise ValueError(f"{len(a)} and {len(b)} sentences, {len(tags)} tags, {len(groups)} group labels: "
                         "one per line each")
    type_of: dict[str, str] = {}
    for number, (tag, group) in enumerate(zip(tags, groups), start=1):
        if type_of.setdefault(group, tag) != tag:
            raise ValueError(f"line {number}: group {group!r} is tagged {tag!r} here but {type_of[group]!r} earlier: "
                             "each group (rule) must have one tag (copying type)")
    by_type = {}
    for tag in dict.fromkeys(tags):
        ids = np.array([i for i, t in enumerate(tags) if t == tag])
        by_type[tag] = rule_test(a[ids], b[ids], [groups[i] for i in ids], samples, seed, level)
    overall = rule_test(a, b, groups, samples, seed, level)
    return {"unit": "rule", "overall": overall, "by_type": by_type}
