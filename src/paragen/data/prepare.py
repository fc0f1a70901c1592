"""``paragen prepare DATASET``: raw files -> ``data/prepared/<dataset>/`` as each paper describes.

Output layout per split: ``<split>.src``, ``<split>.tgt`` (the training target, or the first
reference) and, for evaluation splits, ``<split>.ref.<k>`` for every reference k. Counts are
printed beside the paper's and checked against it where the paper gives one; malformed input
(misaligned files, bad UTF-8, empty lines, CRLF, broken LCSTS records) either stops with the file
and line or is cleaned with a count in the log, never silently.
"""

from __future__ import annotations

import logging
import random
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from paragen.data.corpus import MAX_LINE_CHARS, CorpusError, check_aligned, read_raw
from paragen.data.hwang import HWANG_DEFAULT_CLASSES, HWANG_DEFAULT_MIN_SCORE, HWANG_FILES, NISIOI_PAIRS, read_hwang
from paragen.data.lcsts import read_lcsts
from paragen.data.overlap import check_overlap
from paragen.data.prepared_files import Split, publish_prepared

log = logging.getLogger(__name__)


class CountMismatch(CorpusError):
    """A prepared split does not have the size the paper reports."""


def aligned(paths: list[Path], notes: list[str]) -> list[list[str]]:
    columns = [read_raw(p, notes) for p in paths]
    for path, column in zip(paths[1:], columns[1:]):
        check_aligned(paths[0], len(columns[0]), path, len(column))
    return columns


def drop_empty(split: Split) -> Split:
    """Drop pairs where the source or any reference is empty, counting them."""
    keep = [i for i in range(len(split)) if split.sources[i].strip()
            and all(ref[i].strip() for ref in split.references)]
    dropped = len(split) - len(keep)
    return split.select(keep, f"{dropped} pairs with an empty side dropped" if dropped else None)


def drop_overlong(split: Split, limit: int) -> Split:
    """Drop pairs with a side longer than ``limit`` characters, counting them: such a line is not a sentence,
    and `paragen score` refuses it (ROUGE-L's cost grows with the square of its length)."""
    keep = [i for i in range(len(split)) if len(split.sources[i]) <= limit
            and all(len(ref[i]) <= limit for ref in split.references)]
    dropped = len(split) - len(keep)
    return split.select(keep, f"{dropped} pairs with a line over {limit:,} characters dropped (max_line_chars)"
                        if dropped else None)


def deduplicate(split: Split) -> Split:
    """Remove repeated (source, target) pairs, keeping the first (WEAN §3.1.1 for PWKP)."""
    seen: set[tuple[str, ...]] = set()
    keep = []
    for i in range(len(split)):
        key = (split.sources[i], *(ref[i] for ref in split.references))
        if key not in seen:
            seen.add(key)
            keep.append(i)
    return split.select(keep, f"{len(split) - len(keep)} duplicate pairs removed")


_SPECIAL = re.compile(r"[^0-9a-z\s]")


def lowercase_and_strip_specials(text: str) -> str:
    """The simplification report's optional preprocessing (003 §4.1): lowercase, drop special characters."""
    return " ".join(_SPECIAL.sub(" ", text.lower()).split())


def multi_reference(raw: Path, source: str, references: list[str]) -> Split:
    notes: list[str] = []
    columns = aligned([raw / source] + [raw / r for r in references], notes)
    return drop_empty(Split(columns[0], columns[1:], notes))


def parallel(raw: Path, source: str, target: str) -> Split:
    return multi_reference(raw, source, [target])


def turk(raw_root: Path, split: str) -> Split:
    name = {"valid": "tune", "test": "test"}[split]
    return multi_reference(raw_root / "turkcorpus", f"{name}.8turkers.tok.norm",
                           [f"{name}.8turkers.tok.turk.{k}" for k in range(8)])


def _turkcorpus(raw_root: Path, split: str, options: dict) -> Split:
    return turk(raw_root, split)


def _asset(raw_root: Path, split: str, options: dict) -> Split:
    return multi_reference(raw_root / "asset", f"asset.{split}.orig", [f"asset.{split}.simp.{k}" for k in range(10)])


def _pwkp(raw_root: Path, split: str, options: dict) -> Split:
    pairs = parallel(raw_root / "pwkp", f"{split}.src", f"{split}.dst")
    return deduplicate(pairs) if split == "train" else pairs


def _wikilarge(raw_root: Path, split: str, options: dict) -> Split:
    """WikiLarge train; validation and test are the Turk tune/test sets (003 §4.1).

    ``valid_zl`` / ``test_zl`` are Zhang & Lapata's own WikiLarge validation and test files
    (992 / 359, one reference), kept for comparison with the DRESS release.
    """
    if split == "train":
        data = parallel(raw_root / "wikilarge", "train.src", "train.dst")
    elif split in ("valid_zl", "test_zl"):
        name = split.removesuffix("_zl")
        data = parallel(raw_root / "wikilarge", f"{name}.src", f"{name}.dst")
    else:
        data = turk(raw_root, split)
    return data


def strip_specials(data: Split) -> Split:
    """The ``--lowercase-strip-specials`` option, for any recipe (003 §4.1's preprocessing)."""
    data = Split([lowercase_and_strip_specials(s) for s in data.sources],
                 [[lowercase_and_strip_specials(r) for r in ref] for ref in data.references],
                 data.notes + ["lowercased, special characters removed (003 §4.1 option)"])
    return drop_empty(data)


def _ew_sew(raw_root: Path, split: str, options: dict) -> Split:
    """EW-SEW as WEAN used it: Nisioi et al.'s training pairs, Turk tune/test (8 references) to tune and test.

    The training release is already Hwang et al. (2015)'s good and good-partial matches with
    similarity above 0.45 (Nisioi et al., 2017, §3), so no score column is left to filter on.
    """
    if split == "train":
        data = parallel(raw_root / "ew_sew", "train.en", "train.sen")
        data.notes.append("Hwang et al. matches above 0.45, as released filtered by Nisioi et al.")
        return data
    return turk(raw_root, split)


def _ew_sew_hwang(raw_root: Path, split: str, options: dict) -> Split:
    """EW-SEW from Hwang et al.'s scored release, filtered as WEAN says (000 §3.1.1, after Nisioi et al.):
    good and good-partial matches with a score greater than 0.45; Turk tune/test to tune and test.

    WEAN states no duplicate or identical-pair removal for EW-SEW (only for PWKP), so none is done unless
    asked (``deduplicate``, ``drop_identical``). The log gives the pairs per class and after each filter.
    """
    if split != "train":
        return turk(raw_root, split)
    classes = options.get("classes") or list(HWANG_DEFAULT_CLASSES)
    threshold = options.get("min_score", HWANG_DEFAULT_MIN_SCORE)
    sources, targets, notes = [], [], []
    for name in classes:
        if name not in HWANG_FILES:
            raise CorpusError(f"unknown Hwang et al. class {name!r} (--classes; params.yaml: "
                              f"datasets.<name>.alignment_filter.classes); allowed values: {', '.join(HWANG_FILES)}")
        english, simple, scores = read_hwang(raw_root / "ew_sew_hwang" / HWANG_FILES[name], notes)
        kept = [i for i, score in enumerate(scores) if score > threshold]
        notes.append(f"{name}: {len(english):,} pairs, {len(kept):,} with a score above {threshold}")
        sources += [english[i] for i in kept]
        targets += [simple[i] for i in kept]
    data = Split(sources, [targets], notes + [f"{len(sources):,} pairs from {' + '.join(classes)} (Nisioi et al.'s "
                                               f"filtered release: about 280K; a later reproduction: {NISIOI_PAIRS:,})"])
    data = drop_empty(data)
    if options.get("deduplicate"):
        data = deduplicate(data)
    if options.get("drop_identical"):
        keep = [i for i, (s, t) in enumerate(zip(data.sources, data.references[0])) if s != t]
        data = data.select(keep, f"{len(data) - len(keep)} pairs whose two sides are identical removed")
    return data


def _lcsts(raw_root: Path, split: str, options: dict) -> Split:
    """PART I for training; PART II / III kept where the human score is >= 3 (Hu et al. 2015)."""
    part = {"train": "PART_I.txt", "valid": "PART_II.txt", "test": "PART_III.txt"}[split]
    records = list(read_lcsts(raw_root / "lcsts" / part))
    notes = []
    if split != "train":
        kept = [r for r in records if r.human_label is not None and r.human_label >= 3]
        notes.append(f"{len(records) - len(kept)} of {len(records)} records with human score < 3 dropped")
        records = kept
    return Split([r.text for r in records], [[r.summary for r in records]], notes)


GIGAWORD_SAMPLE_SEED = 2018
UNK_TOKENS = ("<unk>", "UNK")


def _count_unk(data: Split) -> str:
    with_unk = sum(any(t in UNK_TOKENS for t in (s + " " + r).split()) for s, r in zip(data.sources, data.references[0]))
    return (f"{with_unk} of {len(data)} pairs contain <unk>/UNK (the release replaced rare words; SPM rebuilt its "
            "sets from LDC Gigaword without that replacement, which needs the LDC corpus)")


def _gigaword(raw_root: Path, split: str, options: dict) -> Split:
    """Rush et al.'s split; SPM's own valid/test sampled from the validation split (SPM §5.1)."""
    raw = raw_root / "gigaword"
    if split == "train":
        return parallel(raw, "train.article.txt", "train.title.txt")
    if split in ("valid", "test_ours"):
        pool = parallel(raw, "valid.article.filter.txt", "valid.title.filter.txt")
        if len(pool) < 18000:
            raise CorpusError(f"{raw}/valid.article.filter.txt: {len(pool)} pairs, need 18,000 to sample "
                              "SPM's 8,000 validation and 10,000 test pairs")
        order = random.Random(GIGAWORD_SAMPLE_SEED).sample(range(len(pool)), 18000)
        chosen = order[:8000] if split == "valid" else order[8000:]
        data = pool.select(chosen, f"sampled from the validation split with seed {GIGAWORD_SAMPLE_SEED}")
        data.notes.append(_count_unk(data))
        return data
    if split == "test_zhou":
        return parallel(raw, "zhou_test.article.txt", "zhou_test.title.txt")
    titles = read_raw(raw / "test_rush.title.txt", [])
    if not (raw / "input.txt").exists():
        return Split(["" for _ in titles], [titles], ["references only: input.txt (the test articles) is absent"])
    return parallel(raw, "input.txt", "test_rush.title.txt")


def _ppdb(raw_root: Path, split: str, options: dict) -> Split:
    notes: list[str] = []
    lines = read_raw(raw_root / "ppdb" / "ppdb-1.0-xxxl-lexical.synonyms.tsv", notes)
    sources, targets = [], []
    for number, line in enumerate(lines, start=1):
        parts = line.split("\t")
        if len(parts) != 2 or not all(parts):
            raise CorpusError(f"{raw_root / 'ppdb'}/ppdb-1.0-xxxl-lexical.synonyms.tsv:{number}: "
                              f"expected 'word<TAB>word', found {line!r}")
        sources.append(parts[0])
        targets.append(parts[1])
    return Split(sources, [targets], notes)


TURK_MINI_VALID = 200
TURK_MINI_LABEL = "turk-mini stand-in suite: NOT the papers' setup (Turk tune + ASSET valid as training data)"


def to_turk_conventions(text: str) -> str:
    """ASSET text as Turk's legacy files are written: lowercased, 13a-tokenised, -lrb- / -rrb-."""
    from paragen.metrics.sari import normalise

    return normalise(text, lowercase=True).replace("(", "-lrb-").replace(")", "-rrb-")


def _turk_mini(raw_root: Path, split: str, options: dict) -> Split:
    """A small real-data training set that fits this project's machines, never a paper's.

    The 2,000 Turk tune sentences and their 8 Turk + 10 ASSET references become training pairs,
    except the last 200 sentences, held out (with their 8 Turk references) for validation so
    that early stopping never sees training sentences; the test set is the Turk test set.
    """
    if split == "test":
        data = turk(raw_root, "test")
        data.notes.append(TURK_MINI_LABEL)
        return data
    tune = turk(raw_root, "valid")
    asset = _asset(raw_root, "valid", options)
    if len(asset) != len(tune):
        raise CorpusError(f"ASSET valid has {len(asset)} sentences, Turk tune {len(tune)}: they must align")
    cut = len(tune) - TURK_MINI_VALID
    if split == "valid":
        return Split(tune.sources[cut:], [ref[cut:] for ref in tune.references], [TURK_MINI_LABEL])
    sources, targets = [], []
    for i in range(cut):
        for ref in tune.references:
            sources.append(tune.sources[i])
            targets.append(ref[i])
        for ref in asset.references:
            sources.append(tune.sources[i])
            targets.append(to_turk_conventions(ref[i]))
    return Split(sources, [targets], [TURK_MINI_LABEL, f"{cut} sentences x {len(tune.references)} Turk + "
                                      f"{len(asset.references)} ASSET references; {TURK_MINI_VALID} held out"])


@dataclass(frozen=True)
class Recipe:
    splits: tuple[str, ...]
    build: Callable[[Path, str, dict], Split]
    paper_counts: dict[str, int]  # split -> count the paper reports
    informational: frozenset[str] = frozenset()  # counts shown but not asserted (they depend on later steps)
    estimates: dict[str, int] = field(default_factory=dict)  # split -> approximate count where no paper gives one

    def expected_count(self, split: str) -> int | None:
        """How many pairs a split holds before it is built: the paper's count, else the estimate, else None.

        Only cluster requests are sized from it (:mod:`paragen.pipeline.resources`); nothing checks a split against an
        estimate, and the datasets table shows paper counts only."""
        return self.paper_counts.get(split, self.estimates.get(split))


RECIPES: dict[str, Recipe] = {
    "turkcorpus": Recipe(("valid", "test"), _turkcorpus, {"valid": 2000, "test": 359}),
    # The same Turk files under their own name, for a DAG dataset with its own preprocessing (003's
    # lowercasing and special-character removal), so `paragen evalsets` (turkcorpus, untouched) cannot
    # overwrite it.
    "turk": Recipe(("valid", "test"), _turkcorpus, {"valid": 2000, "test": 359}),
    "asset": Recipe(("valid", "test"), _asset, {"valid": 2000, "test": 359}),
    "pwkp": Recipe(("train", "valid", "test"), _pwkp, {"train": 89042, "valid": 205, "test": 100}),
    "wikilarge": Recipe(("train", "valid", "test", "valid_zl", "test_zl"), _wikilarge,
                        {"train": 296402, "valid": 2000, "test": 359, "valid_zl": 992, "test_zl": 359}),
    # WEAN §3.1.1 gives EW-SEW's training set only as "about 150K good matches and 130K good partial matches".
    "ew_sew": Recipe(("train", "valid", "test"), _ew_sew, {"valid": 2000, "test": 359},
                     estimates={"train": 280_000}),
    "ew_sew_hwang": Recipe(("train", "valid", "test"), _ew_sew_hwang, {"valid": 2000, "test": 359},
                           estimates={"train": 280_000}),
    "lcsts": Recipe(("train", "valid", "test"), _lcsts, {"train": 2400591, "valid": 8685, "test": 725}),
    # Gigaword train: 3,778,230 is the count after SPM's BPE filter (`paragen segment --drop-longer-target`).
    "gigaword": Recipe(("train", "valid", "test_ours", "test_rush", "test_zhou"), _gigaword,
                       {"train": 3778230, "valid": 8000, "test_ours": 10000, "test_rush": 1951, "test_zhou": 2000},
                       frozenset({"train"})),
    "ppdb": Recipe(("pairs",), _ppdb, {"pairs": 210372}),
    # No paper: 1,800 Turk tune sentences x (8 Turk + 10 ASSET references) train, 200 held out, the Turk test.
    "turk_mini": Recipe(("train", "valid", "test"), _turk_mini, {},
                        estimates={"train": 32_400, "valid": TURK_MINI_VALID, "test": 359}),
}


def prepare_dataset(name: str, splits: list[str] | None = None, raw_root: str | Path = "data/raw",
                    out_root: str | Path = "data/prepared", options: dict | None = None,
                    check_counts: bool = True, max_line_chars: int = MAX_LINE_CHARS,
                    skip_unavailable: bool = False, max_overlap: int = 0) -> dict[str, dict]:
    """Prepare the requested splits (default: all) into ``out_root/<name>/``; returns per-split counts and notes.

    The directory is replaced whole (:func:`paragen.atomic.replaced_directory`): it holds exactly the splits and
    references this call wrote, so a split or reference an earlier call wrote cannot be read afterwards, and a
    failing split publishes nothing. ``skip_unavailable`` leaves out (and reports) a split whose raw files are
    missing instead of failing (``paragen evalsets``). Overlap between the splits is measured and refused above
    ``max_overlap`` (:func:`paragen.data.overlap.check_overlap`)."""
    if name not in RECIPES:
        raise CorpusError(f"unknown dataset {name!r}; allowed values: {', '.join(sorted(RECIPES))}")
    recipe = RECIPES[name]
    options = options or {}
    unknown = set(splits or ()) - set(recipe.splits)
    if unknown:
        raise CorpusError(f"{name}: unknown split(s) {sorted(unknown)}; allowed values: {list(recipe.splits)}")
    built: dict[str, Split] = {}
    summary = {}
    for split in splits or recipe.splits:
        try:
            data = recipe.build(Path(raw_root), split, options)
        except CorpusError as error:
            if not skip_unavailable:
                raise
            print(f"{name} {split}: not prepared: {error}", file=sys.stderr)
            continue
        if options.get("lowercase_strip_specials"):
            data = strip_specials(data)
        data = drop_overlong(data, max_line_chars)
        expected = recipe.paper_counts.get(split)
        for note in data.notes:
            log.info("%s %s: %s", name, split, note)
        print(f"{name} {split}: {len(data):,} pairs, {len(data.references)} reference(s)"
              + (f" (paper: {expected:,})" if expected is not None else ""))
        if check_counts and expected is not None and len(data) != expected and not options \
                and split not in recipe.informational:
            raise CountMismatch(f"{name} {split}: {len(data):,} pairs after preparation, the paper reports "
                                f"{expected:,}; the raw files may differ from the papers' (pass --no-check to keep them)")
        built[split] = data
        summary[split] = {"pairs": len(data), "references": len(data.references), "paper": expected,
                          "notes": data.notes}
    overlap = check_overlap(name, built, max_overlap, "--max-overlap")
    publish_prepared(Path(out_root) / name, built,
                     {"dataset": name, "options": options, "splits": summary, "overlap": overlap})
    return summary
