"""``kind: local`` datasets: the user's own parallel files, through the same stages as a real corpus.

A local dataset names, per split, a source file, a target file and (valid/test) further reference files, each
optionally with its sha256. ``paragen prepare-local`` checks and copies them into ``data/prepared/<name>/``
(:mod:`paragen.data.local`); from there segmentation, vocabulary, training, decoding, scoring and the report are
those of every real dataset, with the same options (``segmentation``, ``vocab_size``, ``evaluation``, ...).
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, field_validator, model_validator

from paragen.config.base import Name, _Strict, _unique
from paragen.config.datasets import Evaluation, RealDataset

LOCAL_PATH = re.compile(r"[A-Za-z0-9._+/-]+")
"""What a local file's path may contain: it becomes an input of both engines (Snakemake reads ``{`` as a
wildcard, DVC a path), so letters, digits and ``. _ + / -`` only."""

REQUIRED_SPLITS = ("train", "valid", "test")


def _local_path(path: str) -> str:
    if not LOCAL_PATH.fullmatch(path):
        raise ValueError(f"{path!r} is not a usable path: use letters, digits and . _ + / - only (no spaces, "
                         "quotes, braces or wildcards); relative to the repository root, or absolute")
    return path


class LocalFile(_Strict):
    """One file of a local dataset and, optionally, the sha256 it must have (checked before it is read)."""

    path: Annotated[str, AfterValidator(_local_path)] = Field(
        description="one sentence per line, UTF-8; relative to the repository root, or absolute")
    sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")] | None = Field(
        None, description="expected digest (`sha256sum FILE`); a file that differs is refused")


def _as_file(value: Any) -> Any:
    """A bare path is a :class:`LocalFile` without a digest."""
    return {"path": value} if isinstance(value, str) else value


class LocalSplit(_Strict):
    """The files of one split: sources and targets aligned line by line; further references for valid/test."""

    source: LocalFile = Field(description="the input sentences, one per line")
    target: LocalFile = Field(description="the reference (valid/test: the first of several)")
    references: list[LocalFile] = Field(
        default_factory=list, description="further references of the same sentences, each aligned with the source")

    @field_validator("source", "target", mode="before")
    @classmethod
    def _one(cls, value: Any) -> Any:
        return _as_file(value)

    @field_validator("references", mode="before")
    @classmethod
    def _many(cls, value: Any) -> Any:
        return [_as_file(v) for v in value] if isinstance(value, list) else value

    def files(self) -> list[LocalFile]:
        return [self.source, self.target, *self.references]


class LocalEvaluation(Evaluation):
    """A local dataset's scoring: the real datasets' metrics, plus exact match, which your own task may be judged
    by (a rewrite with one right answer) while none of the papers' corpora is."""

    metrics: list[Literal["bleu", "sari", "rouge", "oddgen", "exact"]] = Field(  # type: ignore[assignment]
        ["bleu"], min_length=1, description="oddgen: 004 §6.1's odd-generation counts against the first reference; "
        "exact: % of outputs equal to the first reference token for token (case and all; BPE restored), which gives "
        "a table of your own an exact-match column")


class LocalDataset(RealDataset):
    """Your own corpus (``kind: local``): ``files`` per split instead of a registry download and a recipe."""

    kind: Literal["local"] = Field(  # type: ignore[assignment]
        description="selects this type: your own files, checked and prepared by `paragen prepare-local`")
    fetch: list[str] = Field(default_factory=list, max_length=0, description="none: the files are local")
    splits: list[str] = Field(default_factory=list, description="the keys of files (set from them)")
    files: dict[Name, LocalSplit] = Field(description="split -> its files; train, valid and test are required, "
                                          "further test splits may be added (decoded and scored like test)")
    dedup: bool = Field(False, description="drop repeated (source, target) pairs of the training split")
    evaluation: LocalEvaluation = Field(  # type: ignore[assignment]
        default_factory=LocalEvaluation, description="how `paragen evaluate` scores the outputs of each test split")
    test_splits: Annotated[list[str], Field(min_length=1), AfterValidator(_unique)] | None = Field(  # type: ignore
        None, description="the splits an experiment decodes and scores, each one of files; null: every split but "
        "train (valid, test and any further one), so a table of your own shows each")

    @model_validator(mode="after")
    def _test_splits_are_splits(self) -> "LocalDataset":  # replaces RealDataset's check: splits come from files
        missing = [s for s in REQUIRED_SPLITS if s not in self.files]
        if missing:
            raise ValueError(f"files: splits {missing} are missing; train, valid and test are required "
                             f"(given: {list(self.files)})")
        if "splits" in self.model_fields_set and self.splits != list(self.files):
            raise ValueError(f"splits: leave it out, it is the keys of files ({list(self.files)})")
        if self.recipe is not None or self.alignment_filter is not None:
            raise ValueError("recipe and alignment_filter belong to downloaded datasets, not to kind: local")
        if self.files["train"].references:
            raise ValueError("files.train.references: training uses one target per source")
        object.__setattr__(self, "splits", list(self.files))
        if self.test_splits is None:  # a user's own table shows how the model does on every split
            object.__setattr__(self, "test_splits", [s for s in self.files if s != "train"])
        for split in self.test_splits:
            if split not in self.files:
                raise ValueError(f"test_splits: {split!r} is not one of files; allowed values: {list(self.files)}")
        return self

    def paths(self) -> list[str]:
        """Every file of every split, once, in order: what the prepare stage depends on."""
        return list(dict.fromkeys(f.path for split in self.files.values() for f in split.files()))


def check_local_dataset(name: str) -> None:
    """A local dataset is prepared into ``data/prepared/<name>/``: its name must not be a recipe's, whose
    preparation writes there too."""
    from paragen.data.prepare import RECIPES

    if name in RECIPES:
        raise ValueError(f"datasets.{name}: a local dataset cannot take the name of the recipe {name!r} (both "
                         f"would be prepared into data/prepared/{name}/); rename it")
