"""The own-data trial a new user makes, from README.md alone, timed.

Usage: python bench/probes/own_data_trial.py CLONE     (CLONE: a fresh `git clone` of this repository, paragen installed)

Writes a toy corpus into CLONE/mydata/ (3,000 / 200 / 200 pairs: sources of content and filler words, targets
that drop the fillers and rewrite 60 content words, a second test reference that only drops the fillers), adds
the entries README.md's "Train on your own data" tells a user to add to CLONE/params.yaml, runs the command it
gives in CLONE, and prints the wall time and the table. docs/measurements.md records what it printed.
"""

from __future__ import annotations

import random
import shlex
import subprocess
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from test_local_data import readme_own_data  # noqa: E402  (the README's blocks, parsed once for tests and here)

SIZES = {"train": 3000, "valid": 200, "test": 200}


def write_corpus(directory: Path, seed: int = 7) -> None:
    """Pairs with one right answer per source, so a small model can learn them in a few epochs."""
    rng = random.Random(seed)
    syllables = ["ka", "lo", "mi", "ne", "ru", "ta", "vo", "si", "pe", "du", "ba", "gi", "zo", "fe", "hu"]
    words = sorted({"".join(rng.choice(syllables) for _ in range(rng.randint(2, 3))) for _ in range(900)})[:400]
    fillers, content = words[:30], words[30:]
    simple = {w: "s" + w[:3] for w in content[:60]}
    directory.mkdir(parents=True, exist_ok=True)
    for split, count in SIZES.items():
        rows = []
        for _ in range(count):
            source = [rng.choice(fillers) if rng.random() < 0.3 else rng.choice(content)
                      for _ in range(rng.randint(6, 16))]
            kept = [w for w in source if w not in fillers] or source[:1]
            rows.append((source, [simple.get(w, w) for w in kept], kept))
        for suffix, column in (("src", 0), ("tgt", 1)) + ((("ref1", 2),) if split == "test" else ()):
            (directory / f"{split}.{suffix}").write_text("".join(" ".join(r[column]) + "\n" for r in rows))


def main() -> None:
    clone = Path(sys.argv[1]).resolve()
    write_corpus(clone / "mydata")
    _, entries, command = readme_own_data()
    params = clone / "params.yaml"
    raw = yaml.safe_load(params.read_text())
    for key, added in entries.items():
        raw[key].update(added)
    params.write_text(yaml.safe_dump(raw, sort_keys=False))
    started = time.monotonic()
    subprocess.run(shlex.split(command), cwd=clone, check=True)
    wall = time.monotonic() - started
    table = next(iter(entries["tables"]))
    print(f"own-data trial: `{command}` took {wall:.1f} s wall ({wall / 60:.2f} min)")
    print((clone / "results/tables" / f"{table}.md").read_text())


if __name__ == "__main__":
    main()
