"""How far rouge-score and the official ROUGE-1.5.5 differ on the same files (SPM's Gigaword ROUGE, issue 11).

Usage: python bench/probes/rouge_agreement.py HYP REF [HYP REF ...]
       python bench/probes/rouge_agreement.py --mirror ../shared/data   (the Gigaword test files of the local mirror)

For each pair, ROUGE-1/2/L F1 (x100) from:
  rouge-score          paragen score's default (words, no stemming)
  rouge-score --stem   the Porter stemmer, as ROUGE-1.5.5's -m
  ROUGE-1.5.5          -n 2 -m -w 1.2 (SPM footnote 8), -m through WordNet's exception lists then Porter:
                       Average_F, the official figure (a bootstrap mean)
  ROUGE-1.5.5 mean     the plain mean of the script's per-sentence F1
  1.5.5 no exceptions  the same with an empty exception database (-m is Porter alone, as published setups
                       without a readable WordNet-2.0.exc.db scored), Average_F and plain mean
then the differences from ROUGE-1.5.5's Average_F, how many sentences' F1 differ by more than 0.01 between
rouge-score --stem and ROUGE-1.5.5, and the first few of those sentences. Needs what `paragen score
--rouge-perl` needs (`paragen rouge-perl-check`).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from paragen.data.corpus import check_aligned, read_lines
from paragen.metrics.rouge import ROUGE_TYPES, sentence_f1
from paragen.metrics.rouge_perl import perl_rouge

BISET = "gigaword/InitialBug_BiSET/FastRerank/PyRouge"
MIRROR_PAIRS = [(f"{BISET}/{hyp}", f"{BISET}/{ref}") for ref in ("task1_ref0.txt", "ref.txt")
                for hyp in ("1775.txt", "dev.out.102", "some.1.txt")]
"""The unnamed BiSET-era system outputs on the 1,951 Rush test titles, against both copies of the titles
(task1_ref0: `<unk>`, `tie-up`; ref: the outputs' own re-tokenisation, `unknown_word`, `tie - up`)."""
EXAMPLES = 5


def _row(name: str, values, reference=None) -> str:
    cells = " ".join(f"{v:7.2f}" for v in values)
    diff = "" if reference is None else "   diff " + " ".join(f"{r - v:+6.2f}" for v, r in zip(values, reference))
    return f"  {name:<20}{cells}{diff}"


def compare(hyp_path: str, ref_path: str) -> None:
    hyps, refs = read_lines(hyp_path), read_lines(ref_path)
    check_aligned(hyp_path, len(hyps), ref_path, len(refs))
    started = time.perf_counter()
    plain = sentence_f1(hyps, refs)
    stemmed = sentence_f1(hyps, refs, stem=True)
    rouge_score_s = time.perf_counter() - started
    started = time.perf_counter()
    perl = perl_rouge(hyps, refs)
    porter = perl_rouge(hyps, refs, exceptions="none")
    perl_s = time.perf_counter() - started
    official = [perl.scores[t] for t in ROUGE_TYPES]
    rows = np.asarray(perl.sentences)
    print(f"{hyp_path}\n  vs {ref_path}: {len(hyps)} sentences (rouge-score {rouge_score_s:.1f} s for both "
          f"settings, ROUGE-1.5.5 {perl_s:.1f} s for both)")
    print(f"  {'':<20}{'R1':>7} {'R2':>7} {'RL':>7}   (ROUGE-1.5.5 Average_F minus the row)")
    print(_row("rouge-score", plain.mean(axis=0), official))
    print(_row("rouge-score --stem", stemmed.mean(axis=0), official))
    print(_row("ROUGE-1.5.5", official))
    print(_row("ROUGE-1.5.5 mean", rows.mean(axis=0), official))
    print(_row("1.5.5 no exceptions", [porter.scores[t] for t in ROUGE_TYPES], official))
    print(_row("  its mean", np.asarray(porter.sentences).mean(axis=0), official))
    differ = np.abs(rows - stemmed) > 0.01
    print("  sentences whose F1 differs by > 0.01 (rouge-score --stem vs ROUGE-1.5.5): "
          + ", ".join(f"{t} {int(differ[:, i].sum())}" for i, t in enumerate(ROUGE_TYPES)))
    for number in np.flatnonzero(differ.any(axis=1))[:EXAMPLES]:
        print(f"    line {number + 1}: hyp {hyps[number]!r}\n      ref {refs[number]!r}\n"
              f"      rouge-score --stem {' '.join(f'{v:6.2f}' for v in stemmed[number])}   "
              f"ROUGE-1.5.5 {' '.join(f'{v:6.2f}' for v in rows[number])}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", help="HYP REF pairs")
    parser.add_argument("--mirror", help="score the Gigaword test outputs of this local mirror (e.g. ../shared/data)")
    args = parser.parse_args()
    if len(args.files) % 2:
        parser.error("give HYP REF pairs")
    pairs = list(zip(args.files[::2], args.files[1::2]))
    if args.mirror:
        pairs += [(str(Path(args.mirror) / hyp), str(Path(args.mirror) / ref)) for hyp, ref in MIRROR_PAIRS]
    if not pairs:
        parser.error("give HYP REF pairs or --mirror")
    for hyp, ref in pairs:
        compare(hyp, ref)
    return 0


if __name__ == "__main__":
    sys.exit(main())
