"""What the GPU queue has got back so far (``results/gpu_queue/state.json``, committed after each call): which
stages are done, where, and in which order; and the resume state of each training that has not finished.

A stage is *up to date* when the record holds it with the same signature (its command, inputs, outputs and the
values of the params keys it reads: a changed setting makes it stale) and it was done after every stage that
makes one of its inputs (a sequence number orders them, as file times order make's targets, but unlike file
times it does not change when a checkout is copied). Data stages (:data:`~paragen.pipeline.queue_spec.DATA_STEPS`)
are not recorded: they are deterministic, and a machine that has their outputs has them.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from paragen.atomic import write_json
from paragen.config import ConfigError, ParagenConfig
from paragen.pipeline.dvc import lookup
from paragen.pipeline.queue_spec import DATA_STEPS
from paragen.pipeline.stage import Stage

FORMAT = 1


def signature(config: ParagenConfig, stage: Stage) -> str:
    """A digest of what the stage does: its command, inputs, outputs and its params keys' values."""
    dump = config.model_dump()
    values = {key: lookup(dump, key) for key in stage.params}
    blob = json.dumps([stage.cmd, list(stage.deps), list(stage.outs), values], sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


@dataclass
class QueueState:
    """The record (see the module docstring); ``path`` is where it is kept."""

    path: Path
    seq: int = 0
    calls: list[dict[str, Any]] = field(default_factory=list)
    done: dict[str, dict[str, Any]] = field(default_factory=dict)  # stage -> {seq, signature, where, call}
    resume: dict[str, dict[str, Any]] = field(default_factory=dict)  # run -> {epoch, finished, file, sha256, ...}

    @classmethod
    def read(cls, path: str | Path) -> "QueueState":
        """The record at ``path``; an empty one when there is none yet. A file that is not such a record is an
        error naming it."""
        path = Path(path)
        if not path.exists():
            return cls(path)
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            if raw.get("format") != FORMAT:
                raise ValueError(f"format {raw.get('format')!r}, expected {FORMAT}")
            return cls(path, int(raw["seq"]), list(raw["calls"]), dict(raw["done"]), dict(raw["resume"]))
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise ConfigError(f"{path}: not a GPU queue record ({error}); restore it from git") from None

    def write(self) -> None:
        write_json(self.path, {"format": FORMAT, "seq": self.seq, "calls": self.calls, "done": self.done,
                               "resume": self.resume})

    def mark_done(self, config: ParagenConfig, stage: Stage, where: str, call: int | None) -> None:
        self.seq += 1
        self.done[stage.name] = {"seq": self.seq, "signature": signature(config, stage), "where": where,
                                 **({"call": call} if call is not None else {})}

    def up_to_date(self, config: ParagenConfig, stages: Iterable[Stage]) -> set[str]:
        """The names among ``stages`` whose record is current (module docstring); data stages count when their
        outputs are all present here."""
        stages = list(stages)
        producer = {out: s for s in stages for out in s.outs}
        current: set[str] = set()
        for stage in stages:  # dependency order: producers first
            if stage.step in DATA_STEPS:
                if all(Path(out).exists() for out in stage.outs):
                    current.add(stage.name)
                continue
            entry = self.done.get(stage.name)
            if entry is None or entry.get("signature") != signature(config, stage):
                continue
            made = [producer[d] for d in stage.deps if d in producer and producer[d].step not in DATA_STEPS]
            if all(p.name in current and self.done[p.name]["seq"] < entry["seq"] for p in made):
                current.add(stage.name)
        return current


def read_manifest(path: str | Path) -> dict[str, Any]:
    """A call's ``manifest.json`` as JSON, checked to be one (the fields every reader uses)."""
    path = Path(path)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        for key in ("format", "call", "parts", "items", "stages", "device"):
            raw[key]
        if raw["format"] != FORMAT:
            raise ValueError(f"format {raw['format']!r}, expected {FORMAT}")
    except FileNotFoundError:
        raise
    except (ValueError, KeyError, TypeError) as error:
        raise ConfigError(f"{path}: not a GPU queue manifest ({error})") from None
    return raw
