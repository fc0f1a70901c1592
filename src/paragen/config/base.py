"""What every section of params.yaml is built from: strict models, shared types, safe names, the error."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field


Architecture = Literal["encdec", "rnnsearch", "copynet", "wean", "transformer"]
AttentionScore = Literal["dot", "general", "concat", "bahdanau"]
WeanScore = Literal["dot", "general", "concat"]
PositiveInt = Annotated[int, Field(gt=0)]
IntRange = Annotated[tuple[PositiveInt, PositiveInt],
                     BeforeValidator(lambda value: tuple(value) if isinstance(value, list) else value)]
"""A [min, max] pair; YAML writes it as a list."""
Fraction = Annotated[float, Field(gt=0.0, lt=1.0)]


def _unique(values: list) -> list:
    repeated = sorted({v for v in values if values.count(v) > 1}, key=str)
    if repeated:
        raise ValueError(f"{repeated} listed more than once")
    return values


SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")
"""What a dataset, model, training, decoding, experiment, rules, system, table or suite name may be: it becomes
part of file paths (``runs/<experiment>``) and stage commands, so no ``/``, ``.``, spaces or shell characters."""


def _safe_name(name: str) -> str:
    if not SAFE_NAME.fullmatch(name):
        raise ValueError(f"{name!r} is not a usable name: use letters, digits, '_' and '-' only, starting with a "
                         "letter or digit (names become file paths and command arguments)")
    return name


Name = Annotated[str, AfterValidator(_safe_name)]


def _published_file(name: str) -> str:
    """A ``tables.*.paper`` value: the stem of a file in ``paragen/paper_results`` (checked at load time)."""
    from importlib import resources

    known = sorted(p.name[:-5] for p in resources.files("paragen.paper_results").iterdir() if p.name.endswith(".yaml"))
    if name not in known:
        raise ValueError(f"no published-number file {name!r} in paragen/paper_results; allowed values: {known}")
    return name


class ConfigError(ValueError):
    """``params.yaml`` does not match the schema; the message names each bad key."""


class _Strict(BaseModel):
    """Base model that rejects unknown keys and loose types, so a mistake never passes silently.

    Strict types: ``batch_size: true`` is not the integer 1, ``"3"`` is not a number, ``1`` is not a
    boolean (an integer is still a valid float).
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
