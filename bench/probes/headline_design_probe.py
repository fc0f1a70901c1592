"""Probe one design of the headline stand-in: EncDec and EncDec+SPM (one seed) on generated data, in a scratch clone.

    python bench/probes/headline_design_probe.py --scratch /tmp/probe --design '{"duplicate_share": 0.6}'

Clones this repository into ``--scratch`` (your checkout is never touched), overrides the listed parameters of
``datasets.headline_small`` in the clone's params.yaml, and runs through snakemake what the two rows need (generate,
vocab, train, decode, evaluate, align, and the odd-generation comparison of EncDec+SPM with EncDec). Prints ROUGE,
odd-generation counts, alignment accuracy and the paired bootstrap, and the wall time. Used to choose the default
design (docs/measurements.md, 2026-11-24).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
TARGETS = ("results/metrics/hs_encdec.json", "results/metrics/hs_spm.json", "results/metrics/hs_encdec.alignment.json",
           "results/metrics/hs_spm.alignment.json", "results/metrics/hs_spm.vs.hs_encdec.json")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--design", required=True, help="JSON object of datasets.headline_small parameters to set")
    parser.add_argument("--scratch", required=True, type=Path, help="an absent or empty directory for the clone")
    args = parser.parse_args()
    design = json.loads(args.design)
    if args.scratch.exists() and any(args.scratch.iterdir()):
        parser.error(f"--scratch {args.scratch}: not empty; the probe clones the repository there")
    subprocess.run(["git", "clone", "-q", str(ROOT), str(args.scratch)], check=True)
    params = args.scratch / "params.yaml"
    raw = yaml.safe_load(params.read_text(encoding="utf-8"))
    unknown = sorted(set(design) - set(raw["datasets"]["headline_small"]) - {
        "merge_fraction", "merge_size", "context_fraction", "duplicate_share", "reverse_share"})
    if unknown:
        parser.error(f"--design: unknown parameters {unknown}")
    raw["datasets"]["headline_small"].update(design)
    raw["tables"]["headline_synthetic"]["comparisons"] = [{"row": "EncDec+SPM", "baseline": "EncDec",
                                                           "metric": "oddgen"}]
    params.write_text(yaml.safe_dump(raw, sort_keys=False), encoding="utf-8")
    start = time.time()
    subprocess.run(["snakemake", "--cores", "2", "--config", "suites=[headline_synthetic]", "seeds=1", "--", *TARGETS],
                   cwd=args.scratch, check=True, stdout=subprocess.DEVNULL)
    print(f"design {design}: {time.time() - start:.0f} s")
    metrics = args.scratch / "results/metrics"
    for exp in ("hs_encdec", "hs_spm"):
        scored = json.loads((metrics / f"{exp}.json").read_text())
        aligned = json.loads((metrics / f"{exp}.alignment.json").read_text())
        spm = aligned.get("source_prediction")
        print(f"{exp}: ROUGE {', '.join(f'{k} {v:.1f}' for k, v in scored['rouge']['score'].items())}; "
              f"odd generation {scored['oddgen']['score']}; attention alignment {aligned['attention']['accuracy']:.1f}"
              + (f"; SPM alignment {spm['accuracy']:.1f}" if spm else ""))
    test = json.loads((metrics / "hs_spm.vs.hs_encdec.json").read_text())["splits"]["test"]
    print(f"sentences without odd generation: EncDec {test['score_a']:.1f} %, EncDec+SPM {test['score_b']:.1f} %, "
          f"p = {test['p_value']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
