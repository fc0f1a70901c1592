"""The best exact match a model can reach on CopyNet's rule data, per rule type (issue 25).

Usage: python bench/synthetic_ceiling.py [--dataset synthetic_paper] [--params params.yaml] [--seeds 20]
                                         [--json results/synthetic_ceiling/synthetic_paper.json]

Generates the dataset twice, as params.yaml draws it (x and y apart) and as paragen drew it before
2026-11-24 (``separate_variables: false, target_from_source: 0``), and prints per rule type the rules, the
rules whose x and y are adjacent, the test instances whose output no reading settles, and the ceiling
(``paragen.data.synthetic_ceiling``: the mean over test instances of the most probable reading's chance).
A model that knows every rule and copies perfectly reaches the ceiling (an expected accuracy: a test set
can land a little above it by chance). One that gets a fraction s of settled instances right reaches about
s x ceiling, if it copies as well on rules with adjacent variables as on the others, picks splits within the
filler-length range and keeps s across rule draws; that is how a table made on one generator predicts the
other's.
With ``--seeds N`` it also draws the old generator's data from seeds 1..N and prints each type's ceiling as
mean, standard deviation and range over the draws: how far one draw of 40 rules per type can land from another.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

from paragen.atomic import write_if_changed
from paragen.config import SyntheticDataset
from paragen.config.loading import load_config
from paragen.data.synthetic import RULE_TYPES
from paragen.data.synthetic_ceiling import type_ceilings

OLD_GENERATOR = {"separate_variables": False, "target_from_source": 0.0}
"""The switches that give paragen's rule data before 2026-11-24, draw for draw (docs/synthetic.md)."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--params", default="params.yaml")
    parser.add_argument("--dataset", default="synthetic_paper")
    parser.add_argument("--seeds", type=int, default=0, help="also the old generator's ceilings over seeds 1..N")
    parser.add_argument("--json", help="also write the figures here (unchanged files are left alone)")
    args = parser.parse_args(argv)
    spec = load_config(args.params).datasets.get(args.dataset)
    if not isinstance(spec, SyntheticDataset):
        print(f"{args.params}: {args.dataset!r} is not a synthetic dataset", file=sys.stderr)
        return 2
    settings = {"params.yaml": spec, "before 2026-11-24": spec.model_copy(update=OLD_GENERATOR)}
    figures = {}
    for name, setting in settings.items():
        started = time.perf_counter()
        figures[name] = type_ceilings(setting)
        print(f"{args.dataset}, {name} ({time.perf_counter() - started:.1f} s):")
        print(f"  {'type':8} {'rules':>5} {'adjacent':>8} {'test':>6} {'undecidable':>11} {'ceiling %':>9}")
        for rule_type in RULE_TYPES:
            row = figures[name][rule_type]
            print(f"  {rule_type:8} {row['rules']:5d} {row['adjacent_rules']:8d} {row['instances']:6d} "
                  f"{row['undecidable_instances']:11d} {row['ceiling']:9.2f}")
    spread = _spread(settings["before 2026-11-24"], args.seeds) if args.seeds > 0 else {}
    if args.json:
        write_if_changed(args.json, json.dumps({"dataset": args.dataset, "settings": figures,
                                                "before 2026-11-24 over seeds": spread}, indent=1) + "\n")
    return 0


def _spread(spec: SyntheticDataset, seeds: int) -> dict[str, dict[str, float]]:
    """Each rule type's ceiling over the draws of seeds 1..``seeds``: mean, sd, min, max (printed too)."""
    draws = [type_ceilings(spec.model_copy(update={"seed": seed})) for seed in range(1, seeds + 1)]
    print(f"{spec.rules} rules, before 2026-11-24, seeds 1..{seeds}: ceiling % mean ± sd (min–max)")
    spread = {}
    for rule_type in RULE_TYPES:
        values = [draw[rule_type]["ceiling"] for draw in draws]
        spread[rule_type] = {"mean": round(statistics.fmean(values), 2),
                             "sd": round(statistics.stdev(values), 2) if len(values) > 1 else 0.0,
                             "min": min(values), "max": max(values), "seeds": seeds}
        row = spread[rule_type]
        print(f"  {rule_type:8} {row['mean']:6.2f} ± {row['sd']:5.2f} ({row['min']:.2f}–{row['max']:.2f})")
    return spread


if __name__ == "__main__":
    sys.exit(main())
