"""Read a decoding A/B by the rule fixed before it ran: which version is faster, per run, in one call's passes.

Usage:
    python bench/decode_ab.py results/decode_speed/<call>/summary.txt [more summary.txt ...]

Each ``summary.txt`` is what ``bash bench/gpu_decode.sh run`` writes: one line per pass, run and version, with
the median sentences/s when the decode's rounds agreed within 20 %. The rule (docs/measurements.md, 2026-11-27
evening): A is faster than B on a run only if A's median exceeds B's in every pass; a pass in which either has no
median leaves the pair undecided. With several files, each is read on its own and a pair is claimed only where
every file decides it the same way. Versions named ``X+host-checks`` and ``X-host-checks`` are the same.
"""

from __future__ import annotations

import argparse
import itertools
import re
from pathlib import Path

LINE = re.compile(r"^pass (\d+)\s+(\S+)\s+(\S+)\s+rounds .*?(?:median: ([\d.]+) sentences/s|no median|exit)")


def read_summary(path: Path) -> dict[tuple[str, str], dict[int, float | None]]:
    """``{(run, version): {pass: median or None}}`` from one summary file; other lines (the GPU's name) skipped."""
    medians: dict[tuple[str, str], dict[int, float | None]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        match = LINE.match(line)
        if match:
            pass_, run, version, median = match.groups()
            version = version.replace("+", "-")
            medians.setdefault((run, version), {})[int(pass_)] = float(median) if median else None
    return medians


def verdict(a: dict[int, float | None], b: dict[int, float | None]) -> str:
    """">" if A's median beats B's in every pass, "<" if B's beats A's in every pass, else "undecided"."""
    passes = sorted(set(a) | set(b))
    if not passes or any(a.get(p) is None or b.get(p) is None for p in passes):
        return "undecided"
    if all(a[p] > b[p] for p in passes):
        return ">"
    if all(a[p] < b[p] for p in passes):
        return "<"
    return "undecided"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("summaries", nargs="+", type=Path)
    args = parser.parse_args()
    calls = [read_summary(path) for path in args.summaries]
    for path, call in zip(args.summaries, calls):
        medians = [median for passes in call.values() for median in passes.values()]
        print(f"{path.parent.name}/{path.name}: {sum(m is None for m in medians)} of {len(medians)} decodes "
              "without a median")
    keys = sorted(set().union(*calls))
    runs = sorted({run for run, _ in keys})
    for run in runs:
        versions = sorted({version for r, version in keys if r == run})
        for a, b in itertools.combinations(versions, 2):
            each = [verdict(call.get((run, a), {}), call.get((run, b), {})) for call in calls]
            claim = each[0] if len(set(each)) == 1 and each[0] != "undecided" else "no claim"
            shown = {">": f"{a} faster", "<": f"{b} faster"}.get(claim, "no claim")
            print(f"{run:14} {a:22} vs {b:22} per call: {', '.join(each):30} -> {shown}")


if __name__ == "__main__":
    main()
