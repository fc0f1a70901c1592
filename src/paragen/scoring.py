"""File-level scoring behind ``paragen score``: reads system outputs, returns a JSON-ready result."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

from paragen.data.corpus import CorpusError, read_lines
from paragen.metrics.exact import accuracy_by_tag


def _aligned(path_a: str | Path, lines_a: list[str], path_b: str | Path, lines_b: list[str]) -> None:
    if len(lines_a) != len(lines_b):
        raise CorpusError(f"line counts differ: {path_a} has {len(lines_a)} lines, {path_b} has {len(lines_b)}")


def read_nbest(path: str | Path) -> list[list[str]]:
    """n-best lists from the JSONL written by ``paragen decode`` (``{"nbest": [...]}`` per line)."""
    lists = []
    for number, line in enumerate(read_lines(path), start=1):
        try:
            entry = json.loads(line)
            hyps = entry["nbest"]
        except (json.JSONDecodeError, KeyError, TypeError):
            raise CorpusError(f"{path}:{number}: expected a JSON object with an \"nbest\" list") from None
        if not isinstance(hyps, list) or not all(isinstance(h, str) for h in hyps):
            raise CorpusError(f"{path}:{number}: \"nbest\" must be a list of strings")
        lists.append(hyps)
    return lists


def score_exact(*, ref_path: str | Path, hyp_path: str | Path, nbest_path: str | Path | None = None,
                tags_path: str | Path | None = None, ks: Sequence[int] = (1,)) -> dict[str, Any]:
    """Exact-match (and top-k, given an n-best file) accuracy in percent, overall and per tag."""
    refs, hyps = read_lines(ref_path), read_lines(hyp_path)
    _aligned(ref_path, refs, hyp_path, hyps)
    nbest = [[h] for h in hyps]
    if nbest_path is not None:
        nbest = read_nbest(nbest_path)
        _aligned(ref_path, refs, nbest_path, nbest)
        for number, (first, hyp) in enumerate(zip(nbest, hyps), start=1):
            if first and first[0] != hyp:
                raise CorpusError(f"{nbest_path}:{number}: first hypothesis differs from line {number} of {hyp_path}")
    tags = read_lines(tags_path) if tags_path is not None else ["all"] * len(refs)
    _aligned(ref_path, refs, tags_path or ref_path, tags)
    ks = sorted(set(ks) | {1}) if nbest_path is not None else [1]
    by_tag = accuracy_by_tag([[h.split() for h in n] for n in nbest], [r.split() for r in refs], tags, ks)
    overall = by_tag.pop("all")
    return {"metric": "exact", "score": overall["top1"], "count": overall["count"], "overall": overall,
            "by_tag": by_tag, "ref": str(ref_path), "hyp": str(hyp_path)}
