"""Segmentation: BPE (subword-nmt), characters, jieba words, or whitespace words.

- ``bpe``: merges learned jointly on the training source and target (Gigaword: 5,000 merges,
  SPM §5.1), applied to every split with subword-nmt's ``@@`` separator; scoring undoes it
  (``paragen score --remove-bpe``).
- ``char``: one token per non-space character (LCSTS "+C": WEAN, CopyNet).
- ``jieba``: jieba's word segmentation (LCSTS "+W": CopyNet Table 3).
- ``word``: the prepared whitespace tokens, optionally lowercased.

Lines are segmented in parallel over the cores (order kept), with a progress bar.
"""

from __future__ import annotations

import io
import logging
import multiprocessing
import os
from pathlib import Path
from typing import Callable, Literal, Sequence

from paragen.atomic import atomic_open, replaced_directory, write_json
from paragen.data.corpus import CorpusError, characters, read_lines
from paragen.progress import progress_bar

log = logging.getLogger(__name__)
Scheme = Literal["bpe", "char", "jieba", "word"]
SCHEMES = ("bpe", "char", "jieba", "word")

_segmenter: Callable[[str], str] | None = None


def char_segment(line: str) -> str:
    return " ".join(characters(line))


def _make_segmenter(scheme: str, codes: str | None, lowercase: bool) -> Callable[[str], str]:
    if scheme == "char":
        base = char_segment
    elif scheme == "jieba":
        import jieba

        jieba.setLogLevel(logging.WARNING)
        jieba.initialize()
        base = lambda line: " ".join(w for w in jieba.lcut(line.replace(" ", "")) if w.strip())  # noqa: E731
    elif scheme == "bpe":
        from subword_nmt.apply_bpe import BPE

        with open(codes, encoding="utf-8") as handle:
            bpe = BPE(handle)
        base = lambda line: bpe.process_line(line).strip()  # noqa: E731
    elif scheme == "word":
        base = lambda line: " ".join(line.split())  # noqa: E731
    else:
        raise ValueError(f"unknown segmentation {scheme!r}; allowed values: {', '.join(SCHEMES)}")
    return (lambda line: base(line.lower())) if lowercase else base


def _init_worker(scheme: str, codes: str | None, lowercase: bool) -> None:
    global _segmenter
    _segmenter = _make_segmenter(scheme, codes, lowercase)


def _segment_chunk(lines: list[str]) -> list[str]:
    assert _segmenter is not None
    return [_segmenter(line) for line in lines]


def segment_lines(lines: Sequence[str], scheme: str, codes: str | Path | None = None, lowercase: bool = False,
                  workers: int | None = None, chunk: int = 2000, progress: bool = True,
                  desc: str = "segment") -> list[str]:
    """Segment ``lines`` with ``workers`` processes (default: all cores); output order = input order."""
    workers = workers or os.cpu_count() or 1
    codes_str = str(codes) if codes is not None else None
    chunks = [list(lines[i : i + chunk]) for i in range(0, len(lines), chunk)]
    out: list[str] = []
    bar = progress_bar(enabled=progress, total=len(lines), unit="line", desc=desc)
    if workers == 1 or len(chunks) <= 1:
        _init_worker(scheme, codes_str, lowercase)
        for piece in chunks:
            out.extend(_segment_chunk(piece))
            bar.update(len(piece))
    else:
        context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
        with context.Pool(workers, _init_worker, (scheme, codes_str, lowercase)) as pool:
            for piece in pool.imap(_segment_chunk, chunks):
                out.extend(piece)
                bar.update(len(piece))
    bar.close()
    return out


def learn_bpe_codes(lines: Sequence[str], merges: int, codes_path: str | Path) -> None:
    """Learn ``merges`` BPE merge operations from ``lines`` (source and target together for joint BPE)."""
    from subword_nmt.learn_bpe import learn_bpe

    with atomic_open(codes_path) as out:
        learn_bpe(io.StringIO("\n".join(lines) + "\n"), out, merges)


def drop_longer_targets(sources: list[str], targets: list[str]) -> list[int]:
    """Indices of pairs whose segmented target is not longer than the source (SPM §5.4)."""
    return [i for i, (s, t) in enumerate(zip(sources, targets)) if len(t.split()) <= len(s.split())]


def as_copy_task(files: dict[str, list[str]]) -> dict[str, list[str]]:
    """Segmented files (name -> lines) with each ``<split>.tgt`` replaced by ``<split>.src`` and the
    ``<split>.ref.k`` files dropped; a split without a source keeps nothing (it could not be copied)."""
    splits = [name[:-len(".src")] for name in files if name.endswith(".src")]
    result: dict[str, list[str]] = {}
    for split in splits:
        result[f"{split}.src"] = files[f"{split}.src"]
        result[f"{split}.tgt"] = list(files[f"{split}.src"])
    return result


def sample_training(files: dict[str, list[str]], size: int, seed: int) -> dict[str, list[str]]:
    """``files`` with ``size`` training pairs drawn without replacement (``random.Random(seed)``), in their order.

    Raises ValueError when the training split has fewer pairs than asked for."""
    import random

    count = len(files["train.src"])
    if size > count:
        raise ValueError(f"train_sample asks for {size} training pairs; the training split has {count}")
    keep = sorted(random.Random(seed).sample(range(count), size))
    return {name: ([lines[i] for i in keep] if name.startswith("train.") else lines) for name, lines in files.items()}


def segment_dataset(dataset: str, scheme: str, *, merges: int = 5000, lowercase: bool = False,
                    prepared_root: str | Path = "data/prepared", out_root: str | Path = "data/segmented",
                    workers: int | None = None, progress: bool = True, drop_longer_target: bool = False,
                    name: str | None = None, copy_task: bool = False, train_sample: int | None = None,
                    train_sample_seed: int = 1) -> Path:
    """Segment every prepared split of ``dataset`` into ``data/segmented/<name>.<scheme>/``.

    ``name`` (default: ``dataset``) lets one prepared dataset be segmented under several names.

    ``drop_longer_target`` removes training pairs whose target is longer than the source after
    segmentation, as SPM does after BPE (0.1 % of Gigaword train); the count is logged and recorded.

    ``copy_task`` makes every split's target its own source and drops its references (so a split is scored
    against its source): a configuration trained on it shows whether it can copy sentences it never saw.

    ``train_sample`` keeps that many training pairs (:func:`sample_training`), after the other filters.
    """
    source_dir = Path(prepared_root) / dataset
    if not source_dir.is_dir():
        raise CorpusError(f"{source_dir}: not prepared (run `paragen prepare {dataset}`)")
    out_dir = Path(out_root) / f"{name or dataset}.{scheme}"
    files = sorted(p for p in source_dir.iterdir() if p.suffix in (".src", ".tgt") or ".ref." in p.name)
    with replaced_directory(out_dir) as staging:  # exactly this run's files: no stale split, reference or codes
        codes = None
        if scheme == "bpe":
            train = [source_dir / "train.src", source_dir / "train.tgt"]
            missing = [str(p) for p in train if not p.exists()]
            if missing:
                raise CorpusError(f"BPE is learned on the training split, which is missing: {', '.join(missing)}")
            codes = staging / "bpe.codes"
            lines = [line.lower() if lowercase else line for path in train for line in read_lines(path)]
            learn_bpe_codes(lines, merges, codes)
        segmented = {path.name: segment_lines(read_lines(path), scheme, codes, lowercase, workers,
                                              progress=progress, desc=path.name) for path in files}
        dropped = 0
        if drop_longer_target and "train.src" in segmented:
            keep = drop_longer_targets(segmented["train.src"], segmented["train.tgt"])
            dropped = len(segmented["train.src"]) - len(keep)
            for name in ("train.src", "train.tgt"):
                segmented[name] = [segmented[name][i] for i in keep]
            log.info("%s train: %d pairs with a target longer than the source dropped", dataset, dropped)
        if train_sample is not None:
            try:
                segmented = sample_training(segmented, train_sample, train_sample_seed)
            except (KeyError, ValueError) as error:
                raise CorpusError(f"{source_dir}/train.src: {error}") from None
        if copy_task:
            segmented = as_copy_task(segmented)
        for name, lines in segmented.items():
            with atomic_open(staging / name) as handle:
                handle.writelines(line + "\n" for line in lines)
            log.info("%s: %d lines", out_dir / name, len(lines))
        write_json(staging / "segment.json", {"dataset": dataset, "scheme": scheme, "lowercase": lowercase,
                                              "merges": merges if scheme == "bpe" else None,
                                              "dropped_longer_target": dropped, "copy_task": copy_task,
                                              "train_sample": train_sample, "train_sample_seed": train_sample_seed,
                                              "files": {n: len(lines) for n, lines in segmented.items()}})
    return out_dir
