"""Human evaluation in WEAN Table 3's layout: a blind rating sheet out, filled sheets in.

Ratings cannot be computed, but the bookkeeping around them can be made hard to get wrong:
:func:`export_sheet` writes one CSV row per (sentence, system) output, shuffled with a seed and
with no system names (so raters are blind), plus a key file that maps item ids back;
:func:`ingest_sheets` reads any number of filled copies, checks every rating (an integer on the
scale, named by file and line when it is not), and computes per-system means of each dimension
and of all of them ("All"), with paired t-tests (scipy) of the best system against each other
over the sentences both were rated on, as in WEAN §3.1.5.
"""

from __future__ import annotations

import csv
import io
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
from scipy import stats

from paragen.atomic import write_text
from paragen.data.corpus import CorpusError, check_aligned, read_lines

DIMENSIONS = ("fluency", "adequacy", "simplicity")
SCALE = (1, 5)


def export_sheet(sources: Sequence[str], systems: dict[str, Sequence[str]], sheet: str | Path, key: str | Path,
                 seed: int = 1, sample: int | None = None) -> int:
    """Write the blind sheet and its key; returns the number of items. ``sample`` picks that many sentences."""
    for name, lines in systems.items():
        check_aligned("source", len(sources), name, len(lines))
    indices = list(range(len(sources)))
    rng = random.Random(seed)
    if sample is not None and sample < len(indices):
        indices = sorted(rng.sample(indices, sample))
    items = [(index, name) for index in indices for name in systems]
    rng.shuffle(items)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["item", "source", "output", *DIMENSIONS])
    for number, (index, name) in enumerate(items, start=1):
        writer.writerow([number, sources[index], systems[name][index], *([""] * len(DIMENSIONS))])
    write_text(key, json.dumps({"dimensions": list(DIMENSIONS), "scale": list(SCALE), "seed": seed,
                                "items": {str(n): {"system": name, "sentence": index}
                                          for n, (index, name) in enumerate(items, start=1)}}, indent=1) + "\n")
    write_text(sheet, buffer.getvalue())
    return len(items)


@dataclass(frozen=True)
class HumanEvalResult:
    systems: list[str]
    means: dict[str, dict[str, float]]  # system -> dimension (and "all") -> mean rating
    p_values: dict[str, dict[str, float]]  # other system -> dimension -> p of the best system against it
    best: str
    raters: int


def _rating(value: str, path: Path, line: int, dimension: str) -> int:
    try:
        rating = int(value)
    except ValueError:
        rating = None
    if rating is None or not SCALE[0] <= rating <= SCALE[1]:
        raise CorpusError(f"{path}:{line}: {dimension} must be an integer {SCALE[0]}-{SCALE[1]}, got {value!r}")
    return rating


def read_sheet(path: str | Path, key: dict) -> dict[tuple[str, int], dict[str, int]]:
    """(system, sentence) -> dimension -> rating, from one filled sheet."""
    path = Path(path)
    ratings: dict[tuple[str, int], dict[str, int]] = {}
    text = "\n".join(read_lines(path))
    rows = csv.DictReader(io.StringIO(text))
    missing = [c for c in ("item", *DIMENSIONS) if c not in (rows.fieldnames or [])]
    if missing:
        expected = ", ".join(("item", "source", "output", *DIMENSIONS))
        raise CorpusError(f"{path}:1: missing column(s) {missing}; expected {expected}")
    for line, row in enumerate(rows, start=2):
        entry = key["items"].get(row["item"])
        if entry is None:
            raise CorpusError(f"{path}:{line}: item {row['item']!r} is not in the key (a sheet from another export?)")
        ratings[(entry["system"], entry["sentence"])] = {d: _rating(row[d].strip(), path, line, d) for d in DIMENSIONS}
    if len(ratings) != len(key["items"]):
        raise CorpusError(f"{path}: {len(ratings)} of {len(key['items'])} items rated; every item needs a rating")
    return ratings


def ingest_sheets(key_path: str | Path, sheets: Sequence[str | Path]) -> HumanEvalResult:
    if not sheets:
        raise CorpusError("at least one filled sheet is needed")
    key = json.loads(Path(key_path).read_text(encoding="utf-8"))
    per_sheet = [read_sheet(sheet, key) for sheet in sheets]
    systems = sorted({entry["system"] for entry in key["items"].values()})
    # Per system and sentence: each dimension averaged over raters.
    scores = {s: {} for s in systems}
    for (system, sentence) in per_sheet[0]:
        scores[system][sentence] = {d: float(np.mean([r[(system, sentence)][d] for r in per_sheet]))
                                    for d in DIMENSIONS}
    for system in systems:
        for values in scores[system].values():
            values["all"] = float(np.mean([values[d] for d in DIMENSIONS]))
    dims = (*DIMENSIONS, "all")
    means = {s: {d: float(np.mean([v[d] for v in scores[s].values()])) for d in dims} for s in systems}
    best = max(systems, key=lambda s: means[s]["all"])
    p_values = {}
    for other in systems:
        if other == best:
            continue
        shared = sorted(set(scores[best]) & set(scores[other]))
        p_values[other] = {}
        for d in dims:
            a, b = [scores[best][i][d] for i in shared], [scores[other][i][d] for i in shared]
            p = stats.ttest_rel(a, b).pvalue if len(shared) > 1 and np.any(np.subtract(a, b)) else 1.0
            p_values[other][d] = float(p)
    return HumanEvalResult(systems, means, p_values, best, len(per_sheet))


def to_markdown(result: HumanEvalResult, title: str) -> str:
    header = "| system | Fluency | Adequacy | Simplicity | All | p vs best (F / A / S / All) |"
    lines = [f"# {title}", "", header, "| --- | --- | --- | --- | --- | --- |"]
    for system in result.systems:
        m = result.means[system]
        p = result.p_values.get(system)
        p_text = "best" if p is None else " / ".join(f"{p[d]:.3g}" for d in (*DIMENSIONS, "all"))
        lines.append(f"| {system} | {m['fluency']:.2f} | {m['adequacy']:.2f} | {m['simplicity']:.2f} | "
                     f"{m['all']:.2f} | {p_text} |")
    lines += ["", f"Mean ratings ({SCALE[0]}-{SCALE[1]}) over {result.raters} rater sheet(s); 'All' is the mean of "
              "the three dimensions. p: paired t-test (scipy.stats.ttest_rel) of the best system against each other "
              "one over the sentences both were rated on, per-sentence ratings averaged over raters."]
    return "\n".join(lines) + "\n"
