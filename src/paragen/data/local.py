"""``paragen prepare-local``: a ``kind: local`` dataset's own files, checked, into ``data/prepared/<name>/``.

Every file is checked before anything is written, and every refusal is one line naming the file (and line): a
missing or empty file, a digest that differs from the ``sha256`` given, text that is not UTF-8 (or holds NUL
bytes, or a carriage return inside a line), and a file whose line count differs from its split's source file
(targets and each further reference are aligned with the sources line by line). Then the pairs go through the
preparation every real dataset has: pairs with an empty side dropped and counted, ``strip_specials``,
``max_line_chars``, and ``dedup`` on the training split. The output is what a recipe writes (``<split>.src``,
``<split>.tgt``, ``<split>.ref.k`` with several references, ``prepare.json``), so segmentation and everything
after it are shared with the real datasets.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from paragen.data.corpus import CorpusError, check_aligned, read_lines
from paragen.data.fetch import digests
from paragen.data.overlap import check_overlap
from paragen.data.prepare import deduplicate, drop_empty, drop_overlong, strip_specials
from paragen.data.prepared_files import Split, publish_prepared

if TYPE_CHECKING:  # data sits below config (docs/architecture.md): the schema is for annotations only
    from paragen.config.local_data import LocalDataset, LocalFile

log = logging.getLogger(__name__)


def read_checked(file: LocalFile, where: str) -> list[str]:
    """The lines of one local file, refused with its path (and line) when missing, altered, empty or not text;
    ``where`` names its params.yaml key."""
    path = Path(file.path)
    if not path.is_file():
        raise CorpusError(f"{path}: file not found ({where})")
    if file.sha256 is not None:
        actual = digests(path)[0]
        if actual != file.sha256:
            raise CorpusError(f"{path}: sha256 {actual} differs from the {file.sha256} given in {where}.sha256 "
                              "(the file changed, or the digest is another file's)")
    lines = read_lines(path)
    if not lines:
        raise CorpusError(f"{path}: empty file ({where}); expected one sentence per line")
    return lines


def read_local_split(name: str, split: str, dataset: LocalDataset) -> Split:
    """One split's sources and references (target first), aligned line by line, pairs with an empty side
    dropped."""
    files = dataset.files[split]
    key = f"datasets.{name}.files.{split}"
    sources = read_checked(files.source, f"{key}.source")
    references = [read_checked(files.target, f"{key}.target")]
    references += [read_checked(ref, f"{key}.references[{k}]") for k, ref in enumerate(files.references)]
    for file, lines in zip([files.target, *files.references], references):
        check_aligned(files.source.path, len(sources), file.path, len(lines))
    return drop_empty(Split(sources, references))


def prepare_local(name: str, dataset: LocalDataset, out_root: str | Path = "data/prepared") -> dict[str, dict]:
    """Check every split's files, then write them prepared; returns per-split counts and notes (prepare.json).

    ``data/prepared/<name>/`` is replaced whole (:func:`paragen.atomic.replaced_directory`): a reference or split
    that params.yaml no longer lists is gone with it, never scored again. Overlap between the splits is measured
    and refused above ``max_overlap`` (:mod:`paragen.data.overlap`)."""
    splits = {split: read_local_split(name, split, dataset) for split in dataset.files}  # all checked first
    prepared: dict[str, Split] = {}
    summary = {}
    for split, data in splits.items():
        if dataset.strip_specials:
            data = strip_specials(data)
        data = drop_overlong(data, dataset.max_line_chars)
        if dataset.dedup and split == "train":
            data = deduplicate(data)
        if not len(data):
            raise CorpusError(f"datasets.{name}.files.{split}: no pair is left after preparation ({data.notes})")
        for note in data.notes:
            log.info("%s %s: %s", name, split, note)
        print(f"{name} {split}: {len(data):,} pairs, {len(data.references)} reference(s)")
        prepared[split] = data
        summary[split] = {"pairs": len(data), "references": len(data.references), "paper": None, "notes": data.notes}
    overlap = check_overlap(name, prepared, dataset.max_overlap, f"datasets.{name}.max_overlap")
    files = {f.path: f.sha256 or digests(Path(f.path))[0] for s in dataset.files.values() for f in s.files()}
    publish_prepared(Path(out_root) / name, prepared,
                     {"dataset": name, "kind": "local", "files": files, "splits": summary, "overlap": overlap})
    return summary
