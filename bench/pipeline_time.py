"""Time the embedded default end to end, as a new user runs it: a fresh clone, `snakemake --cores all`.

Usage (from the repository root, with the project's environment active):

    python bench/pipeline_time.py            # clones HEAD into a temporary directory
    python bench/pipeline_time.py --keep     # keep the clone to inspect its results/
    python bench/pipeline_time.py --rev 8f1c921   # time an older commit on this machine, for comparison
    python bench/pipeline_time.py --table matrix --config 'suites=[matrix]' 'data=[turk_mini_matrix]' \
        'mirrors=[/path/to/mirror]'        # another suite from nothing (here: the default matrix)

The clone runs its own code (its ``src/`` first on PYTHONPATH), not the installed paragen.

Prints the wall time of the whole run and of each training job (from the
per-epoch logs), plus the reproduced table. Nothing in the repository changes.
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="keep the temporary clone")
    parser.add_argument("--cores", default="all")
    parser.add_argument("--rev", default="HEAD", help="commit to time (default HEAD)")
    parser.add_argument("--config", nargs="+", default=[], metavar="KEY=VALUE",
                        help="passed to snakemake --config (e.g. suites=[matrix]); default: the embedded default")
    parser.add_argument("--table", default="copynet_synthetic", help="the table printed at the end")
    args = parser.parse_args()
    root = Path(__file__).resolve().parent.parent
    workdir = Path(tempfile.mkdtemp(prefix="paragen-bench-"))
    clone = workdir / "paragen"
    subprocess.run(["git", "clone", "-q", str(root), str(clone)], check=True)
    subprocess.run(["git", "-C", str(clone), "checkout", "-q", args.rev], check=True)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(clone / "src"),
                                                                     os.environ.get("PYTHONPATH")]))}
    started = time.perf_counter()
    command = ["snakemake", "--cores", args.cores] + (["--config", *args.config] if args.config else [])
    result = subprocess.run(command, cwd=clone, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        print(result.stdout[-3000:], result.stderr[-3000:], sep="\n", file=sys.stderr)
        print(f"snakemake failed after {elapsed:.1f} s", file=sys.stderr)
        return 1
    print(f"{' '.join(command)} in a fresh clone of {args.rev}: {elapsed:.1f} s ({elapsed / 60:.2f} min)")
    for log in sorted(clone.glob("runs/*/train_log.csv")):
        rows = list(csv.DictReader(open(log)))
        train_s = sum(float(r["wall_time_s"]) for r in rows)
        print(f"  {log.parent.name:16s} {len(rows):3d} epochs  {train_s:7.1f} s training  "
              f"best valid {max(float(r['valid_metric']) for r in rows):.1f}")
    print((clone / f"results/tables/{args.table}.md").read_text())
    if args.keep:
        print(f"clone kept at {clone}")
    else:
        shutil.rmtree(workdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
