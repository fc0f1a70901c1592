"""CopyNet's synthetic rule dataset (Gu et al., 2016, §5.1, Table 1).

A *rule* is a pair of symbol patterns such as ``a b x c d y e f -> g h x m``:
regular symbols drawn from a vocabulary of 1,000, plus the variables x and y.
An *instance* fills the variables with random subsequences of 1-15 symbols
from the same vocabulary. Because the fillers are random, the only way to get
an instance right is to copy them: exactly what the five rule types probe.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from paragen.atomic import atomic_open

if TYPE_CHECKING:  # data sits below config (docs/architecture.md): the schema is for annotations only
    from paragen.config import SyntheticDataset

RULE_TYPES: tuple[str, ...] = ("x->0", "x->x", "x->xx", "xy->x", "xy->xy")
"""The five rule types of Table 1, in the paper's column order (``0`` stands for the empty set)."""

_TARGET_VARIABLES: dict[str, tuple[str, ...]] = {
    "x->0": (),
    "x->x": ("x",),
    "x->xx": ("x", "x"),
    "xy->x": ("x",),
    "xy->xy": ("x", "y"),
}
SPLITS: tuple[str, ...] = ("train", "valid", "test")
VARIABLES: tuple[str, ...] = ("x", "y")
STATISTICS_FILE = "generation.json"
"""Written beside the splits by ``paragen generate``: :func:`statistics` of the generated data."""


@dataclass(frozen=True)
class Rule:
    """Source and target patterns; variables appear as the strings ``"x"`` and ``"y"``."""

    rule_type: str
    source: tuple[str, ...]
    target: tuple[str, ...]

    def apply(self, fillers: dict[str, list[str]]) -> tuple[list[str], list[str]]:
        """Instantiate the rule by substituting each variable with its filler."""
        return fill(self.source, fillers), fill(self.target, fillers)


@dataclass(frozen=True)
class Example:
    """One instance; ``rule`` is its rule's index, ``fillers`` the variables' values, ``redraws`` how many
    ambiguous draws it replaced."""

    source: list[str]
    target: list[str]
    rule_type: str
    rule: int = 0
    fillers: dict[str, list[str]] = field(default_factory=dict)
    redraws: int = 0


def tag_column(tag: str) -> str:
    """The train_log.csv column of one rule type's validation exact match: ``x->xx`` gives ``valid_em_x_to_xx``."""
    return "valid_em_" + tag.replace("->", "_to_")


def fill(pattern: Sequence[str], fillers: dict[str, list[str]]) -> list[str]:
    """``pattern`` with each variable replaced by its filler (regular symbols kept)."""
    out: list[str] = []
    for item in pattern:
        out.extend(fillers[item] if item in fillers else [item])
    return out


def symbol(index: int) -> str:
    """Name of regular symbol ``index``; never equal to a variable name."""
    return f"w{index}"


def _insert_at_random(rng: random.Random, symbols: list[str], variables: tuple[str, ...]) -> tuple[str, ...]:
    """Place each variable at a random position among the regular symbols (variables may end up adjacent)."""
    pattern = list(symbols)
    for variable in variables:
        pattern.insert(rng.randint(0, len(pattern)), variable)
    return tuple(pattern)


def _insert_apart(rng: random.Random, symbols: list[str], variables: tuple[str, ...]) -> tuple[str, ...]:
    """Place the variables in distinct gaps between the regular symbols, so at least one regular symbol
    separates any two of them (§5.1's examples: ``a b y d x e f``); ``symbols`` must have at least
    ``len(variables) - 1`` entries."""
    gaps = sorted(rng.sample(range(len(symbols) + 1), len(variables)))
    pattern = list(symbols)
    for offset, (gap, variable) in enumerate(zip(gaps, variables)):
        pattern.insert(gap + offset, variable)
    return tuple(pattern)


def _target_symbols(rng: random.Random, count: int, source_symbols: list[str], spec: SyntheticDataset) -> list[str]:
    """``count`` target regular symbols, each one of the rule's own source symbols with probability
    ``spec.target_from_source`` (§5.1: ``a b c d x e f -> c d g``), else a fresh draw from the vocabulary."""
    if spec.target_from_source == 0:  # the draws of paragen's rule data before 2026-11-24, call for call
        return [symbol(rng.randrange(spec.symbols)) for _ in range(count)]
    return [rng.choice(source_symbols) if rng.random() < spec.target_from_source
            else symbol(rng.randrange(spec.symbols)) for _ in range(count)]


def make_rule(rng: random.Random, rule_type: str, spec: SyntheticDataset) -> Rule:
    """Draw one rule of ``rule_type`` with ``rule_length`` regular symbols split over both sides."""
    total = rng.randint(*spec.rule_length)
    on_source = rng.randint(1, total - 1)
    source_vars = ("x", "y") if rule_type.startswith("xy") else ("x",)
    source_vars = tuple(rng.sample(source_vars, len(source_vars)))
    target_vars = _TARGET_VARIABLES[rule_type]
    if rule_type == "xy->xy":
        target_vars = tuple(rng.sample(target_vars, 2))
    # the draws in this order keep the old data (both switches off) identical, draw for draw
    source_symbols = [symbol(rng.randrange(spec.symbols)) for _ in range(on_source)]
    place = _insert_apart if spec.separate_variables else _insert_at_random
    source = place(rng, source_symbols, source_vars)
    target = _insert_at_random(rng, _target_symbols(rng, total - on_source, source_symbols, spec), target_vars)
    return Rule(rule_type=rule_type, source=source, target=target)


def rules_per_type(rules: int) -> dict[str, int]:
    """How many of ``rules`` rules each type gets: :func:`make_rules` deals them out in ``RULE_TYPES`` order (20
    rules: 4 a type; 22: 5, 5, 4, 4, 4)."""
    return {t: rules // len(RULE_TYPES) + (i < rules % len(RULE_TYPES)) for i, t in enumerate(RULE_TYPES)}


def make_rules(spec: SyntheticDataset, rng: random.Random) -> list[Rule]:
    """``spec.rules`` rules, the five types taking turns so each gets an equal share."""
    return [make_rule(rng, RULE_TYPES[i % len(RULE_TYPES)], spec) for i in range(spec.rules)]


def variables_adjacent(rule: Rule) -> bool:
    """Whether x and y sit side by side in the source: then no model can tell where x's filler ends."""
    return any(a in VARIABLES and b in VARIABLES for a, b in zip(rule.source, rule.source[1:]))


def readings(pattern: Sequence[str], source: Sequence[str], limit: int = 2) -> list[dict[str, list[int]]]:
    """The ways (at most ``limit``) ``source`` splits into ``pattern``'s regular symbols and non-empty fillers of
    its variables, each as the variables' [start, end) spans in ``source``: one for a recoverable instance."""
    found: list[dict[str, list[int]]] = []

    def walk(p: int, s: int, spans: dict[str, list[int]]) -> None:
        if len(found) >= limit:
            return
        if p == len(pattern):
            if s == len(source):
                found.append(dict(spans))
            return
        if pattern[p] not in VARIABLES:
            if s < len(source) and source[s] == pattern[p]:
                walk(p + 1, s + 1, spans)
            return
        for end in range(s + 1, len(source) + 1):
            walk(p + 1, end, {**spans, pattern[p]: [s, end]})

    walk(0, 0, {})
    return found


def parses(pattern: Sequence[str], source: Sequence[str], limit: int = 2) -> int:
    """How many ways (counted up to ``limit``) ``source`` splits into ``pattern``: 1 for a recoverable instance."""
    return len(readings(pattern, source, limit))


def filler_spans(pattern: Sequence[str], source: Sequence[str]) -> dict[str, list[int]] | None:
    """Each variable's [start, end) in ``source`` when it splits into ``pattern`` one way only, else None."""
    found = readings(pattern, source)
    return found[0] if len(found) == 1 else None


def _rules_then_rng(spec: SyntheticDataset) -> tuple[list[Rule], random.Random]:
    """The dataset's rules, drawn first from its seed, and the generator the instances are drawn from next."""
    rng = random.Random(spec.seed)
    return make_rules(spec, rng), rng


def drawn_rules(spec: SyntheticDataset) -> list[Rule]:
    """The rules :func:`generate` draws for ``spec`` (index = the ``<split>.rule`` value)."""
    return _rules_then_rng(spec)[0]


def rules_json(rules: Sequence[Rule]) -> list[dict[str, object]]:
    """The rules as written to ``generation.json``, for the heat maps."""
    return [{"type": r.rule_type, "source": " ".join(r.source), "target": " ".join(r.target),
             "adjacent_variables": variables_adjacent(r)} for r in rules]


def spans_of_test_lines(directory: str | Path, sources: Sequence[Sequence[str]]) -> list[dict[str, list[int]] | None]:
    """Per test line, its fillers' spans (:func:`filler_spans`) from ``generation.json`` and ``test.rule``; None
    on a line of a rule whose x and y are adjacent (data generated with ``separate_variables: false``)."""
    import json

    directory = Path(directory)
    rules = json.loads((directory / STATISTICS_FILE).read_text(encoding="utf-8"))["rules"]
    ids = (directory / "test.rule").read_text(encoding="utf-8").split()
    if len(ids) != len(sources):
        raise ValueError(f"{directory / 'test.rule'}: {len(ids)} lines but {len(sources)} test sources")
    return [None if rules[int(i)]["adjacent_variables"] else filler_spans(rules[int(i)]["source"].split(), source)
            for i, source in zip(ids, sources)]


def _fillers(rng: random.Random, spec: SyntheticDataset) -> dict[str, list[str]]:
    return {var: [symbol(rng.randrange(spec.symbols)) for _ in range(rng.randint(*spec.variable_length))]
            for var in VARIABLES}


REDRAW_LIMIT = 1000
"""Draws of one instance's fillers before the generator gives up on a rule (never reached in practice: a
filler must repeat the rule's separating symbols in place for a second parse)."""


def generate(spec: SyntheticDataset) -> dict[str, list[Example]]:
    """Every split of the dataset; deterministic for ``spec.seed``.

    Each rule's instances go half to train and half to test (the paper's
    50/50 split), and ``valid_fraction`` of each rule's train half becomes
    validation data, so every split covers every rule. With ``separate_variables``
    an instance whose source splits into fillers in more than one way is redrawn.
    """
    rules, rng = _rules_then_rng(spec)
    splits: dict[str, list[Example]] = {name: [] for name in SPLITS}
    for index, rule in enumerate(rules):
        instances = []
        for _ in range(spec.instances_per_rule):
            fillers = _fillers(rng, spec)
            source, target = rule.apply(fillers)
            redraws = 0
            while spec.separate_variables and parses(rule.source, source) != 1:
                redraws += 1
                if redraws > REDRAW_LIMIT:
                    raise ValueError(f"rule {index} ({' '.join(rule.source)}): no unambiguous instance after "
                                     f"{REDRAW_LIMIT} redraws")
                fillers = _fillers(rng, spec)
                source, target = rule.apply(fillers)
            instances.append(Example(source, target, rule.rule_type, index, fillers, redraws))
        half = spec.instances_per_rule // 2
        train, test = instances[:half], instances[half:]
        n_valid = max(1, round(len(train) * spec.valid_fraction)) if len(train) > 1 else 0
        splits["valid"].extend(train[:n_valid])
        splits["train"].extend(train[n_valid:])
        splits["test"].extend(test)
    rng.shuffle(splits["train"])
    return splits


def statistics(rules: Sequence[Rule], splits: dict[str, list[Example]]) -> dict[str, dict[str, float]]:
    """Per rule type, what ``paragen generate`` reports of ``rules`` (:func:`drawn_rules`) and their instances:
    rules, instances, rules whose variables are adjacent (ambiguous), instances redrawn, and the mean filler, rule
    and sentence lengths."""
    examples = [e for split in splits.values() for e in split]
    result: dict[str, dict[str, float]] = {}
    for rule_type in RULE_TYPES:
        own = [r for r in rules if r.rule_type == rule_type]
        mine = [e for e in examples if e.rule_type == rule_type]
        used = [v for v in VARIABLES if v in own[0].source] if own else []
        fillers = [len(e.fillers[v]) for e in mine for v in used]
        result[rule_type] = {
            "rules": len(own),
            "instances": len(mine),
            "ambiguous_rules": sum(variables_adjacent(r) for r in own),
            "redrawn_instances": sum(e.redraws > 0 for e in mine),
            "mean_filler_length": _mean(fillers),
            "mean_rule_length": _mean([sum(s not in VARIABLES for s in r.source + r.target) for r in own]),
            "mean_source_length": _mean([len(e.source) for e in mine]),
            "mean_target_length": _mean([len(e.target) for e in mine]),
        }
    return result


def _mean(values: Sequence[float]) -> float:
    return round(sum(values) / len(values), 3) if values else 0.0


def write_splits(splits: dict[str, list[Example]], out_dir: str | Path) -> None:
    """Write ``<split>.src``, ``<split>.tgt``, ``<split>.tag`` (rule type) and ``<split>.rule`` (rule index,
    for resampling rules), one example per line."""
    out_dir = Path(out_dir)
    for split, examples in splits.items():
        for suffix, attribute in (("src", "source"), ("tgt", "target"), ("tag", "rule_type"), ("rule", "rule")):
            with atomic_open(out_dir / f"{split}.{suffix}") as handle:
                for ex in examples:
                    value = getattr(ex, attribute)
                    handle.write((" ".join(value) if isinstance(value, list) else str(value)) + "\n")
