"""Decoding A/B on one machine, read by a paired sign test: several code versions decode in turn, round by round.

Usage, from the repository root with the project's .venv active:
    python bench/decode_paired.py --experiment syn_rnnsearch --version before=/tmp/wt_0e30d00 --version after=.
                                  [--rounds 12] [--sentences 300] [--out FILE]
    python bench/decode_paired.py --read FILE      # the reading of a saved run again, from its round lines

Each ``--version NAME=DIR`` is a checkout of paragen (a git worktree) whose ``runs/`` and ``data/`` hold the
experiment's trained run (link this checkout's in: ``ln -s $PWD/runs $PWD/data DIR/``). In every round each version
decodes the first ``--sentences`` test sentences once, in its own process (``bench/decode_speed.py --rounds 1`` of
this checkout, with ``PYTHONPATH=DIR/src``, run in DIR), one after another, the order rotated by one version each
round, so that a machine getting faster or slower over the run favours no version. Loading torch and the model is
not timed.

Why paired rounds: on this project's shared machines one process's decoding speed moves by up to a quarter within
a minute (docs/measurements.md, 2026-11-27), so medians of separate blocks of rounds, gated on agreeing within
20 %, often decide nothing. Here each round compares the versions minutes apart at most, and the reading is the
number of rounds a version wins: A is faster than B only when A's rate exceeds B's in so many rounds that a fair
coin would do as well with probability at most 0.05 (one-sided sign test; a tie counts as a loss): 10 of 12 rounds
(p = 0.019), 9 of 12 is not enough (p = 0.073).

Every decode also reports how many sentences' n-best lists and top-1 outputs equal the run's own
(``runs/<experiment>/test.nbest.jsonl``): a version that changes what is decoded is read with that beside it.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

from paragen.rounding import p_exact_text

HERE = Path(__file__).resolve().parent
ROUND = re.compile(r"^round\s+(\d+)\s+(\S+)\s+([\d.]+) sentences/s")
RATE = re.compile(r"^round 1: \d+ sentences in [\d.]+ s, ([\d.]+) sentences/s$", re.MULTILINE)
EQUAL = re.compile(r"^(n-best|top-1) equal to \S+ on (\d+) of (\d+) sentences$", re.MULTILINE)
ALPHA = 0.05


def rotation(names: list[str], round_: int) -> list[str]:
    """The order the versions decode in round ``round_`` (0-based): ``names`` shifted left by the round."""
    shift = round_ % len(names)
    return names[shift:] + names[:shift]


def sign_test_p(wins: int, rounds: int) -> float:
    """One-sided sign test: the probability that a fair coin wins at least ``wins`` of ``rounds`` tosses."""
    return sum(math.comb(rounds, k) for k in range(wins, rounds + 1)) / 2 ** rounds


def compare(a: list[float], b: list[float]) -> tuple[int, float, float]:
    """Rounds A's rate beats B's (ties lose), the sign test's p of that, and the median of A's rate over B's."""
    if len(a) != len(b) or not a:
        raise ValueError(f"paired rounds needed, got {len(a)} and {len(b)} rates")
    wins = sum(x > y for x, y in zip(a, b))
    return wins, sign_test_p(wins, len(a)), statistics.median(x / y for x, y in zip(a, b))


def p_text(p: float) -> str:
    """Three decimals, or below 0.001 as :func:`paragen.rounding.p_exact_text` prints it (four significant digits,
    powers of ten below 0.0001): 12 of 12 rounds is p = 1/4,096 = 0.0002441, which three decimals would print as
    the impossible "0.000"."""
    return f"{p:.3f}" if p >= 0.001 else p_exact_text(p)


def verdict(name_a: str, name_b: str, a: list[float], b: list[float]) -> str:
    """One line: how often each version won and what the rule reads from it."""
    wins_a, p_a, ratio = compare(a, b)
    wins_b, p_b, _ = compare(b, a)
    claim = (f"{name_a} faster" if p_a <= ALPHA else f"{name_b} faster" if p_b <= ALPHA else "no claim")
    return (f"{name_a} vs {name_b}: {name_a} wins {wins_a} of {len(a)} rounds (p = {p_text(p_a)}), {name_b} wins "
            f"{wins_b} (p = {p_text(p_b)}); median rate ratio {ratio:.3f} -> {claim}")


def read_rounds(text: str) -> dict[str, list[float]]:
    """Each version's rates in round order, from the round lines this bench prints (and ``--out`` keeps)."""
    rates: dict[str, list[float]] = {}
    for match in map(ROUND.match, text.splitlines()):
        if match:
            rates.setdefault(match.group(2), []).append(float(match.group(3)))
    if not rates:
        raise ValueError("no round lines ('round  N  NAME  RATE sentences/s') to read")
    return rates


def reading(rates: dict[str, list[float]]) -> list[str]:
    """Each version's median rate and range, then every pair's verdict, in the order the versions came."""
    names = list(rates)
    lines = [f"{name}: median {statistics.median(rates[name]):.1f} sentences/s over {len(rates[name])} rounds "
             f"({min(rates[name]):.1f}-{max(rates[name]):.1f})" for name in names]
    return lines + [verdict(a, b, rates[a], rates[b]) for i, a in enumerate(names) for b in names[i + 1:]]


def parse_decode(output: str) -> tuple[float, dict[str, str]]:
    """Sentences/s and the equality counts ("n-best", "top-1": "k/n") from one ``decode_speed.py --rounds 1``."""
    rate = RATE.search(output)
    if rate is None:
        raise ValueError(f"no 'round 1: ... sentences/s' line in the decode's output:\n{output}")
    return float(rate.group(1)), {kind: f"{same}/{total}" for kind, same, total in EQUAL.findall(output)}


def decode_once(directory: Path, experiment: str, sentences: int) -> tuple[float, dict[str, str]]:
    """One timed decode with the code of ``directory``, in a process of its own."""
    command = [sys.executable, str(HERE / "decode_speed.py"), "--experiment", experiment, "--rounds", "1",
               "--sentences", str(sentences)]
    environment = {**os.environ, "PYTHONPATH": str(directory / "src")}
    done = subprocess.run(command, cwd=directory, env=environment, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"decode in {directory} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return parse_decode(done.stdout)


def version(text: str) -> tuple[str, Path]:
    name, sep, directory = text.partition("=")
    if not sep or not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise argparse.ArgumentTypeError(f"expected NAME=DIR with NAME of letters, digits, '_', '.', '-': {text!r}")
    path = Path(directory).resolve()
    if not (path / "src" / "paragen").is_dir():
        raise argparse.ArgumentTypeError(f"{path} is not a paragen checkout (no src/paragen)")
    return name, path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--read", type=Path, help="print the reading of a saved run's file and stop")
    parser.add_argument("--experiment")
    parser.add_argument("--version", type=version, action="append", dest="versions")
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--sentences", type=int, default=300)
    parser.add_argument("--out", type=Path, help="also write every line printed here to this file")
    args = parser.parse_args()
    if args.read:
        print("\n".join(reading(read_rounds(args.read.read_text(encoding="utf-8")))))
        return
    if not args.experiment or not args.versions:
        parser.error("--experiment and --version are needed to run (or --read FILE)")
    names = [name for name, _ in args.versions]
    if len(set(names)) != len(names) or len(names) < 2:
        parser.error("give at least two versions, each with its own name")
    where = dict(args.versions)
    lines: list[str] = []

    def say(text: str) -> None:
        print(text, flush=True)
        lines.append(text)

    say(f"{args.experiment}: {args.sentences} sentences, {args.rounds} rounds; "
        + ", ".join(f"{name} = {where[name]}" for name in names))
    rates: dict[str, list[float]] = {name: [] for name in names}
    for round_ in range(args.rounds):
        for name in rotation(names, round_):
            rate, equal = decode_once(where[name], args.experiment, args.sentences)
            rates[name].append(rate)
            say(f"round {round_ + 1:2d}  {name:12} {rate:7.1f} sentences/s  "
                + "  ".join(f"{kind} equal {count}" for kind, count in equal.items()))
    for line in reading(rates):
        say(line)
    if args.out:
        from paragen.atomic import write_text

        write_text(args.out, "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
