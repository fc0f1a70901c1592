"""Where a model's exact-match errors on CopyNet's rule data sit: by rule, by filler length, by kind (issue 25).

Usage: python bench/probes/synthetic_errors.py DATA_DIR HYP [HYP ...]
       e.g. python bench/probes/synthetic_errors.py data/prepared/synthetic_paper runs/synp_copynet/test.hyp

DATA_DIR is a generated dataset (`paragen generate`: test.src, test.tgt, test.rule, generation.json). For each
output file and rule type it prints the exact match, how the type's rules spread (rules all right, at least
90 %, below 50 %; the worst three rules with their patterns), the exact match by the source's total filler
length (a filler copied wrong grows likelier with length), and what the wrong lines got wrong:

  shape   the output does not fit the rule's target pattern (a regular symbol missing, extra or wrong);
  filler  it fits the pattern, but with fillers other than the source's (a copy that stops early, runs on,
          or changes a symbol);
  split   the test source has several readings (x and y adjacent: data made with separate_variables false) and
          the output is what another of them gives: a well-formed guess at the undecidable split, and wrong.

On data made with ``separate_variables: false`` it also splits each type's exact match between rules whose x
and y are adjacent and the others: the direct test of how much the undecidable instances cost a model
(``bench/synthetic_ceiling.py`` predicts it from the ceiling).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

from paragen.data.corpus import CorpusError, check_aligned, read_lines
from paragen.data.synthetic import RULE_TYPES, STATISTICS_FILE, VARIABLES, fill, readings
from paragen.data.synthetic_ceiling import ALL_READINGS

LENGTH_BUCKETS = ((1, 10), (11, 20), (21, 30))
"""Total filler symbols of a source (x alone: 1-15; x and y: 2-30)."""


def error_kind(rule_source: list[str], rule_target: list[str], source: list[str], output: list[str]) -> str:
    """``split``, ``filler`` or ``shape`` for a wrong ``output`` (see the module docstring)."""
    found = readings(rule_source, source, limit=ALL_READINGS)
    if len(found) > 1 and any(fill(rule_target, {v: source[start:end] for v, (start, end) in spans.items()}) == output
                              for spans in found):
        return "split"
    return "filler" if readings(rule_target, output, limit=1) else "shape"


def _share(right: list[bool]) -> dict[str, float]:
    """Lines of a group and the exact match over them (%, one decimal)."""
    return {"lines": len(right), "exact_match": round(100.0 * sum(right) / len(right), 1)}


def report(data_dir: Path, hyp_path: Path) -> dict[str, dict[str, object]]:
    """Per rule type: exact match, rule spread, exact match per filler-length bucket, error kinds."""
    rules = json.loads((data_dir / STATISTICS_FILE).read_text(encoding="utf-8"))["rules"]
    sources = [line.split() for line in read_lines(data_dir / "test.src")]
    targets = [line.split() for line in read_lines(data_dir / "test.tgt")]
    ids = [int(i) for i in read_lines(data_dir / "test.rule")]
    outputs = [line.split() for line in read_lines(hyp_path)]
    check_aligned(data_dir / "test.src", len(sources), hyp_path, len(outputs))
    check_aligned(data_dir / "test.src", len(sources), data_dir / "test.rule", len(ids))
    by_rule: dict[int, list[bool]] = defaultdict(list)
    by_length: dict[tuple[str, tuple[int, int]], list[bool]] = defaultdict(list)
    by_adjacency: dict[tuple[str, bool], list[bool]] = defaultdict(list)
    kinds: dict[str, dict[str, int]] = {t: defaultdict(int) for t in RULE_TYPES}
    for source, target, rule_id, output in zip(sources, targets, ids, outputs):
        rule = rules[rule_id]
        right = output == target
        by_rule[rule_id].append(right)
        filler_length = len(source) - sum(s not in VARIABLES for s in rule["source"].split())
        bucket = next(b for b in LENGTH_BUCKETS if b[0] <= filler_length <= b[1])
        by_length[(rule["type"], bucket)].append(right)
        by_adjacency[(rule["type"], bool(rule.get("adjacent_variables")))].append(right)
        if not right:
            kinds[rule["type"]][error_kind(rule["source"].split(), rule["target"].split(), source, output)] += 1
    result: dict[str, dict[str, object]] = {}
    for rule_type in RULE_TYPES:
        mine = {i: v for i, v in by_rule.items() if rules[i]["type"] == rule_type}
        rates = {i: 100.0 * sum(v) / len(v) for i, v in mine.items()}
        lines = [x for v in mine.values() for x in v]
        result[rule_type] = {
            "exact_match": round(100.0 * sum(lines) / len(lines), 2) if lines else 0.0,
            "rules": len(rates),
            "rules_all_right": sum(r == 100.0 for r in rates.values()),
            "rules_at_least_90": sum(r >= 90.0 for r in rates.values()),
            "rules_below_50": sum(r < 50.0 for r in rates.values()),
            "worst_rules": [{"rule": i, "exact_match": round(rates[i], 1), "pattern": f"{rules[i]['source']} -> "
                             f"{rules[i]['target']}"} for i in sorted(rates, key=lambda i: (rates[i], i))[:3]],
            "by_filler_length": {f"{lo}-{hi}": _share(v) for (t, (lo, hi)), v in sorted(by_length.items())
                                 if t == rule_type and v},
            "errors": dict(kinds[rule_type]),
            "by_variables": {("adjacent" if adjacent else "apart"): _share(v)
                             for (t, adjacent), v in sorted(by_adjacency.items()) if t == rule_type and v},
        }
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("hyps", type=Path, nargs="+")
    parser.add_argument("--json", type=Path, help="also write the figures (one object per output file)")
    args = parser.parse_args(argv)
    everything = {}
    for hyp in args.hyps:
        try:
            everything[str(hyp)] = figures = report(args.data_dir, hyp)
        except (CorpusError, OSError, KeyError, ValueError) as error:
            print(f"synthetic_errors: {error}", file=sys.stderr)
            return 1
        print(f"== {hyp}")
        for rule_type, row in figures.items():
            lengths = ", ".join(f"{k}: {v['exact_match']:.1f} ({v['lines']})" for k, v in row["by_filler_length"].items())
            print(f"{rule_type:7} EM {row['exact_match']:6.2f}  rules {row['rules']}: all right {row['rules_all_right']}, "
                  f">=90 % {row['rules_at_least_90']}, <50 % {row['rules_below_50']}  errors {row['errors']}")
            print(f"        by filler length {lengths}")
            if "adjacent" in row["by_variables"]:
                split = ", ".join(f"{k}: {v['exact_match']:.1f} ({v['lines']})" for k, v in row["by_variables"].items())
                print(f"        x and y {split}")
            for worst in row["worst_rules"]:
                print(f"        rule {worst['rule']:3d} {worst['exact_match']:5.1f} %  {worst['pattern']}")
    if args.json:
        from paragen.atomic import write_if_changed

        write_if_changed(args.json, json.dumps(everything, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
