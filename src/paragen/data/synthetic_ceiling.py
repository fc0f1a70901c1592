"""The best exact match any model can reach on CopyNet's rule data (Gu et al., 2016, §5.1, Table 1).

When x and y sit side by side in a rule's source (``w3 x y w9``), or a filler happens to repeat the
symbols around it, a test source splits into fillers in more than one way, and nothing in the source
says which split was drawn. A model that knows the rule perfectly can then do no better than pick the
most probable reading. Fillers are uniform in length over ``variable_length`` and uniform in symbols, so
every reading whose filler lengths lie in that range is equally probable a priori and, the total filler
length being fixed by the source, equally probable given it; readings that put the same output out
count together. The ceiling of one instance is therefore

    max over outputs t of  #{readings giving t} / #{readings}

and a rule type's ceiling is its mean over the test instances. With ``separate_variables: true``
(the default) every instance has one reading and every ceiling is 100 %; with the generator before
2026-11-24 (``separate_variables: false``) it is what caps the xy → x and xy → xy columns.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Sequence

from paragen.data.synthetic import (RULE_TYPES, Example, Rule, drawn_rules, fill, generate, readings,
                                    variables_adjacent)

if TYPE_CHECKING:
    from paragen.config import SyntheticDataset

ALL_READINGS = 10_000
"""More readings than any instance has (two adjacent 15-symbol fillers split at most 29 ways)."""


def instance_ceiling(rule_source: Sequence[str], rule_target: Sequence[str], source: Sequence[str],
                     variable_length: tuple[int, int]) -> float:
    """Chance (0..1) that the most probable reading of ``source`` under the rule gives the drawn target.

    ``rule_source``/``rule_target`` are the rule's patterns (variables as ``"x"``/``"y"``); readings with
    a filler shorter or longer than ``variable_length`` allows are impossible and not counted.
    """
    low, high = variable_length
    outputs: Counter[tuple[str, ...]] = Counter()
    found = readings(rule_source, source, limit=ALL_READINGS + 1)
    if len(found) > ALL_READINGS:  # a cut list would give a wrong ceiling without a word
        raise ValueError(f"{' '.join(source)!r} has more than {ALL_READINGS} readings under {' '.join(rule_source)!r}")
    for spans in found:
        if all(low <= end - start <= high for start, end in spans.values()):
            outputs[tuple(fill(rule_target, {v: list(source[start:end]) for v, (start, end) in spans.items()}))] += 1
    if not outputs:
        raise ValueError(f"{' '.join(source)!r} does not fit the rule {' '.join(rule_source)!r}")
    return max(outputs.values()) / sum(outputs.values())


def type_ceilings(spec: SyntheticDataset, split: str = "test") -> dict[str, dict[str, float]]:
    """Per rule type of the data ``spec`` generates: rules, rules with adjacent variables, instances of
    ``split`` whose output no reading settles (ceiling below 1), and the ceiling (mean instance ceiling, %)."""
    return ceilings_of(drawn_rules(spec), generate(spec)[split], spec.variable_length)


def ceilings_of(rules: Sequence[Rule], examples: Sequence[Example],
                variable_length: tuple[int, int]) -> dict[str, dict[str, float]]:
    """:func:`type_ceilings` of ``examples`` already generated from ``rules`` (``paragen generate`` has them)."""
    result: dict[str, dict[str, float]] = {}
    for rule_type in RULE_TYPES:
        own = [e for e in examples if e.rule_type == rule_type]
        values = [instance_ceiling(rules[e.rule].source, rules[e.rule].target, e.source, variable_length)
                  for e in own]
        result[rule_type] = {
            "rules": sum(r.rule_type == rule_type for r in rules),
            "adjacent_rules": sum(r.rule_type == rule_type and variables_adjacent(r) for r in rules),
            "instances": len(own),
            "undecidable_instances": sum(v < 1.0 for v in values),
            "ceiling": round(100.0 * sum(values) / len(values), 2) if values else 0.0,
        }
    return result
