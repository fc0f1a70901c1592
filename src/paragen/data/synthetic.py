"""CopyNet's synthetic rule dataset (Gu et al., 2016, §5.1, Table 1).

A *rule* is a pair of symbol patterns such as ``a b x c d y e f -> g h x m``:
regular symbols drawn from a vocabulary of 1,000, plus the variables x and y.
An *instance* fills the variables with random subsequences of 1-15 symbols
from the same vocabulary. Because the fillers are random, the only way to get
an instance right is to copy them: exactly what the five rule types probe.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from paragen.atomic import atomic_open
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


@dataclass(frozen=True)
class Rule:
    """Source and target patterns; variables appear as the strings ``"x"`` and ``"y"``."""

    rule_type: str
    source: tuple[str, ...]
    target: tuple[str, ...]

    def apply(self, fillers: dict[str, list[str]]) -> tuple[list[str], list[str]]:
        """Instantiate the rule by substituting each variable with its filler."""
        return _fill(self.source, fillers), _fill(self.target, fillers)


@dataclass(frozen=True)
class Example:
    source: list[str]
    target: list[str]
    rule_type: str


def _fill(pattern: tuple[str, ...], fillers: dict[str, list[str]]) -> list[str]:
    out: list[str] = []
    for item in pattern:
        out.extend(fillers[item] if item in fillers else [item])
    return out


def symbol(index: int) -> str:
    """Name of regular symbol ``index``; never equal to a variable name."""
    return f"w{index}"


def _insert_at_random(rng: random.Random, symbols: list[str], variables: tuple[str, ...]) -> tuple[str, ...]:
    """Place each variable at a random position among the regular symbols."""
    pattern = list(symbols)
    for variable in variables:
        pattern.insert(rng.randint(0, len(pattern)), variable)
    return tuple(pattern)


def make_rule(rng: random.Random, rule_type: str, spec: SyntheticDataset) -> Rule:
    """Draw one rule of ``rule_type`` with ``rule_length`` regular symbols split over both sides."""
    total = rng.randint(*spec.rule_length)
    on_source = rng.randint(1, total - 1)
    draw = lambda n: [symbol(rng.randrange(spec.symbols)) for _ in range(n)]  # noqa: E731
    source_vars = ("x", "y") if rule_type.startswith("xy") else ("x",)
    source_vars = tuple(rng.sample(source_vars, len(source_vars)))
    target_vars = _TARGET_VARIABLES[rule_type]
    if rule_type == "xy->xy":
        target_vars = tuple(rng.sample(target_vars, 2))
    return Rule(
        rule_type=rule_type,
        source=_insert_at_random(rng, draw(on_source), source_vars),
        target=_insert_at_random(rng, draw(total - on_source), target_vars),
    )


def make_rules(spec: SyntheticDataset, rng: random.Random) -> list[Rule]:
    """``spec.rules`` rules, the five types taking turns so each gets an equal share."""
    return [make_rule(rng, RULE_TYPES[i % len(RULE_TYPES)], spec) for i in range(spec.rules)]


def generate(spec: SyntheticDataset) -> dict[str, list[Example]]:
    """Every split of the dataset; deterministic for ``spec.seed``.

    Each rule's instances go half to train and half to test (the paper's
    50/50 split), and ``valid_fraction`` of each rule's train half becomes
    validation data, so every split covers every rule.
    """
    rng = random.Random(spec.seed)
    splits: dict[str, list[Example]] = {name: [] for name in SPLITS}
    for rule in make_rules(spec, rng):
        instances = []
        for _ in range(spec.instances_per_rule):
            fillers = {
                var: [symbol(rng.randrange(spec.symbols)) for _ in range(rng.randint(*spec.variable_length))]
                for var in ("x", "y")
            }
            source, target = rule.apply(fillers)
            instances.append(Example(source, target, rule.rule_type))
        half = spec.instances_per_rule // 2
        train, test = instances[:half], instances[half:]
        n_valid = max(1, round(len(train) * spec.valid_fraction)) if len(train) > 1 else 0
        splits["valid"].extend(train[:n_valid])
        splits["train"].extend(train[n_valid:])
        splits["test"].extend(test)
    rng.shuffle(splits["train"])
    return splits


def write_splits(splits: dict[str, list[Example]], out_dir: str | Path) -> None:
    """Write ``<split>.src``, ``<split>.tgt`` and ``<split>.tag`` (rule type), one example per line."""
    out_dir = Path(out_dir)
    for split, examples in splits.items():
        for suffix, field in (("src", "source"), ("tgt", "target"), ("tag", "rule_type")):
            with atomic_open(out_dir / f"{split}.{suffix}") as handle:
                for ex in examples:
                    value = getattr(ex, field)
                    handle.write((value if isinstance(value, str) else " ".join(value)) + "\n")
