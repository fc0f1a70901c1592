"""``results/tables/datasets.{md,csv}``: what each prepared split holds, beside the papers' counts.

One row per dataset and split the papers use: pairs, references per source, tokens, mean source and
target length, vocabulary coverage (share of the split's target tokens inside the vocabulary of the
paper's size built from the training split) and the paper's count. Splits that are not prepared
appear as absent with the reason, so the table never suggests data that is not there.
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from paragen.atomic import write_text
from paragen.markdown_text import write_markdown
from paragen.data.corpus import characters, read_lines
from paragen.data.prepare import RECIPES, TURK_MINI_LABEL

CHARACTER_LEVEL = {"lcsts"}
"""Datasets whose papers count characters, not words (LCSTS is used character-based)."""

VOCABULARY_SIZES = {"pwkp": 50000, "wikilarge": 10000, "lcsts": 4000}
"""The papers' vocabulary sizes: 50,000 (WEAN, PWKP), 10,000 (the transformer report), 4,000 characters (WEAN)."""

ABSENT_REASONS = {
    "train": "training set not mirrored here: `paragen fetch {name}` downloads it where the internet is reachable",
    "lcsts": "LCSTS PART I/II need a licence application (see `paragen fetch lcsts`)",
    "gigaword": "the Rush et al. release must be placed by hand (see `paragen fetch gigaword`)",
}


@dataclass
class Row:
    dataset: str
    split: str
    pairs: int | None
    references: int | None
    tokens: int | None
    mean_source: float | None
    mean_target: float | None
    coverage: float | None
    paper: int | None
    note: str


def tokens(line: str, dataset: str) -> list[str]:
    return characters(line) if dataset in CHARACTER_LEVEL else line.split()


def _absent_reason(name: str, split: str) -> str:
    if name in ("lcsts", "gigaword"):
        return ABSENT_REASONS[name]
    if name == "turk_mini":
        return "built from turkcorpus and asset: needs the local mirror (`paragen evalsets`)"
    return ABSENT_REASONS["train"].format(name=name) if split == "train" else "not prepared (run `paragen prepare`)"


def _vocabulary(directory: Path, name: str) -> set[str] | None:
    train = directory / "train.tgt"
    if not train.exists():
        return None
    counts: Counter[str] = Counter()
    for path in (directory / "train.src", train):
        for line in read_lines(path):
            counts.update(tokens(line, name))
    return {t for t, _ in counts.most_common(VOCABULARY_SIZES.get(name))}


def collect(prepared_root: str | Path = "data/prepared") -> list[Row]:
    rows = []
    for name, recipe in RECIPES.items():
        directory = Path(prepared_root) / name
        vocabulary = _vocabulary(directory, name)
        for split in recipe.splits:
            paper = recipe.paper_counts.get(split)
            target_path = directory / f"{split}.tgt"
            if not target_path.exists():
                rows.append(Row(name, split, None, None, None, None, None, None, paper, _absent_reason(name, split)))
                continue
            targets = read_lines(target_path)
            source_path = directory / f"{split}.src"
            sources = read_lines(source_path) if source_path.exists() else []
            references = len(list(directory.glob(f"{split}.ref.*"))) or 1
            target_tokens = [tokens(t, name) for t in targets]
            source_tokens = [tokens(s, name) for s in sources]
            n_target = sum(map(len, target_tokens))
            coverage = None
            if vocabulary is not None and n_target:
                coverage = 100.0 * sum(t in vocabulary for line in target_tokens for t in line) / n_target
            note = "" if sources else "references only (sources not mirrored)"
            if name == "turk_mini":
                note = TURK_MINI_LABEL
            if vocabulary is None and split != "pairs":
                note = "; ".join(filter(None, [note, "coverage needs the training split"]))
            meta = directory / "prepare.json"
            options = json.loads(meta.read_text()).get("options") if meta.exists() else None
            if options:
                note = "; ".join(filter(None, [note, f"options: {options}"]))
            rows.append(Row(
                name, split, len(targets), references, n_target + sum(map(len, source_tokens)),
                sum(map(len, source_tokens)) / len(sources) if sources else None,
                n_target / len(targets) if targets else None, coverage, paper, note))
    return rows


DRESS_OUTPUT_LINES = {"WikiLarge": 359, "WikiSmall": 100}
"""Published system outputs of the DRESS release: one line per Turk test (359) or PWKP test (100) sentence."""


def collect_system_outputs(raw_root: str | Path = "data/raw") -> list[Row]:
    """One row per fetched DRESS system output (``paragen fetch dress_outputs``), absent ones marked."""
    from paragen.data.registry import dataset_source

    rows = []
    for file in dataset_source("dress_outputs").files:
        test_set, _, system = file.path.split("/")
        path = Path(raw_root) / "dress_outputs" / file.path
        expected = DRESS_OUTPUT_LINES[test_set]
        if not path.exists():
            rows.append(Row("dress_outputs", f"{test_set}/{system}", None, None, None, None, None, None, expected,
                            "not fetched (`paragen fetch dress_outputs`)"))
            continue
        lines = read_lines(path)
        n_tokens = sum(len(line.split()) for line in lines)
        rows.append(Row("dress_outputs", f"{test_set}/{system}", len(lines), None, n_tokens, None,
                        n_tokens / len(lines) if lines else None, None, expected, "system output (one per sentence)"))
    return rows


def _fmt(value: float | int | None, digits: int = 1) -> str:
    if value is None:
        return "—"
    return f"{value:,}" if isinstance(value, int) else f"{value:.{digits}f}"


def to_markdown(rows: list[Row]) -> str:
    lines = ["# Datasets", "",
             "Generated by `paragen datasets-table` from `data/prepared/`. Lengths and tokens are words, "
             "characters for LCSTS; the target length counts the first reference. Coverage: share of target "
             "tokens in the paper-size vocabulary of the training split.", "",
             "| dataset | split | pairs | paper | refs/source | tokens | mean src len | mean tgt len | coverage % | note |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        pairs = "absent" if r.pairs is None else _fmt(r.pairs)
        lines.append(f"| {r.dataset} | {r.split} | {pairs} | {_fmt(r.paper)} | {_fmt(r.references)} | "
                     f"{_fmt(r.tokens)} | {_fmt(r.mean_source)} | {_fmt(r.mean_target)} | {_fmt(r.coverage)} | "
                     f"{r.note} |")
    return "\n".join(lines) + "\n"


def to_csv(rows: list[Row]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    fields = list(Row.__dataclass_fields__)
    writer.writerow(fields)
    for r in rows:
        writer.writerow(["" if getattr(r, f) is None else getattr(r, f) for f in fields])
    return buffer.getvalue()


def write_datasets_table(prepared_root: str | Path = "data/prepared", stem: str = "results/tables/datasets",
                         raw_root: str | Path = "data/raw") -> list[Row]:
    rows = collect(prepared_root) + collect_system_outputs(raw_root)
    write_markdown(f"{stem}.md", to_markdown(rows))
    write_text(f"{stem}.csv", to_csv(rows))
    return rows
