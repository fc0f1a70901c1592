"""Paraphrase rules from the PPDB family, read into one form (003 §3.1, §3.2.3).

The simplification report applies PPDB rules as a baseline and feeds them to DMASS and the critic
loss. Four file formats carry such rules; each parser turns a line into a :class:`Rule` (complex
side, simple side, weight) and names the file and line of anything it cannot read:

- ``pairs``: PPDB 1.0 lexical synonym pairs as EASSE ships them, ``word<TAB>word``. No weight: every
  rule gets weight 1 (tables say so). The pairs are undirected synonyms; column 1 is taken as the
  complex side.
- ``simpleppdb``: SimplePPDB (Pavlick & Callison-Burch 2016), five tab-separated columns: paraphrase
  score, simplification score, syntactic tag (``[NN]``), input phrase, output phrase. The weight is
  the simplification score (column 2).
- ``ppdb2``: PPDB 2.0, ``[LHS] ||| phrase ||| paraphrase ||| features ||| alignment`` (an optional
  sixth field holds the entailment relation). The weight is the ``PPDB2.0Score`` feature, or 1 when
  the line has none.
- ``dmass``: the rule lists of Zhao et al.'s DMASS/DCSS code, ``X=>complex=>simple=>weight``.

A rule is *lexical* when both sides are one token and *phrasal* otherwise (the report tests word,
phrase and both).
"""

from __future__ import annotations

import gzip
import logging
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Literal

log = logging.getLogger(__name__)
RuleFormat = Literal["pairs", "simpleppdb", "ppdb2", "dmass"]
Granularity = Literal["word", "phrase", "both"]
FORMATS: tuple[str, ...] = ("pairs", "simpleppdb", "ppdb2", "dmass")
UNWEIGHTED = 1.0
"""The weight of a rule whose file gives none (PPDB 1.0 pairs; a PPDB 2.0 line without PPDB2.0Score)."""


class RuleError(ValueError):
    """A rule file that cannot be read; the message names file, line and what was expected."""


class _BlankSide(ValueError):
    """A side with no token once split on whitespace (the real PPDB 1.0 pairs hold a few control-character
    "words", e.g. line 59,175 is ``\x16<TAB>\x1d``): such a rule is skipped and counted, not fatal."""


@dataclass(frozen=True)
class Rule:
    complex: tuple[str, ...]
    simple: tuple[str, ...]
    weight: float

    @property
    def lexical(self) -> bool:
        return len(self.complex) == 1 and len(self.simple) == 1

    def fits(self, granularity: Granularity) -> bool:
        return granularity == "both" or (granularity == "word") == self.lexical


def _phrase(text: str) -> tuple[str, ...]:
    """The side's tokens; :class:`_BlankSide` when it has none (read_rules logs its line, not a message)."""
    tokens = tuple(text.split())
    if not tokens:
        raise _BlankSide
    return tokens


def _number(text: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"the {what} {text!r} is not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"the {what} {text!r} is not a finite number")
    return value


def _pairs(line: str) -> Rule:
    fields = line.split("\t")
    if len(fields) != 2:
        raise ValueError(f"expected 2 tab-separated fields 'complex<TAB>simple', found {len(fields)}")
    return Rule(_phrase(fields[0]), _phrase(fields[1]), UNWEIGHTED)


def _simpleppdb(line: str) -> Rule:
    fields = line.split("\t")
    if len(fields) != 5:
        raise ValueError("expected 5 tab-separated fields 'paraphrase score<TAB>simplification score<TAB>[TAG]"
                         f"<TAB>input<TAB>output', found {len(fields)}")
    _number(fields[0], "paraphrase score")
    weight = _number(fields[1], "simplification score")
    if not (fields[2].startswith("[") and fields[2].endswith("]")):
        raise ValueError(f"expected a syntactic tag like [NN] in field 3, found {fields[2]!r}")
    return Rule(_phrase(fields[3]), _phrase(fields[4]), weight)


def _ppdb2(line: str) -> Rule:
    fields = [f.strip() for f in line.split("|||")]
    if len(fields) not in (5, 6):
        raise ValueError("expected 'LHS ||| phrase ||| paraphrase ||| features ||| alignment' (5 fields, or 6 with "
                         f"the entailment relation), found {len(fields)}")
    weight = UNWEIGHTED
    for feature in fields[3].split():
        name, equals, value = feature.partition("=")
        if not equals:
            raise ValueError(f"expected features as name=value, found {feature!r}")
        if name == "PPDB2.0Score":
            weight = _number(value, "PPDB2.0Score")
    return Rule(_phrase(fields[1]), _phrase(fields[2]), weight)


def _dmass(line: str) -> Rule:
    fields = line.split("=>")
    if len(fields) != 4:
        raise ValueError(f"expected 'X=>complex=>simple=>weight' (4 fields), found {len(fields)}")
    return Rule(_phrase(fields[1]), _phrase(fields[2]),
                _number(fields[3], "weight"))


PARSERS: dict[str, Callable[[str], Rule]] = {"pairs": _pairs, "simpleppdb": _simpleppdb, "ppdb2": _ppdb2,
                                             "dmass": _dmass}


def _open(path: Path):
    """Binary lines (each decoded on its own, so a bad byte is reported with its line)."""
    return gzip.open(path, "rb") if path.suffix == ".gz" else path.open("rb")


def read_rules(path: str | Path, fmt: RuleFormat) -> Iterator[Rule]:
    """Every rule of the file, in file order; blank lines are skipped, anything else unreadable is an error."""
    if fmt not in PARSERS:
        raise RuleError(f"unknown rule format {fmt!r}; allowed values: {', '.join(FORMATS)}")
    path = Path(path)
    parse = PARSERS[fmt]
    blank: list[int] = []
    with _open(path) as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError as error:
                raise RuleError(f"{path}:{number}: not UTF-8 text ({error.reason} at byte {error.start} of the "
                                "line)") from None
            if not line.strip():
                continue
            try:
                yield parse(line)
            except _BlankSide:
                blank.append(number)
            except ValueError as error:
                raise RuleError(f"{path}:{number}: {error} ({fmt} format): {line[:200]!r}") from None
    if blank:
        log.warning("%s: %d rule(s) skipped, a side with no token once split on whitespace (lines %s)", path,
                    len(blank), ", ".join(map(str, blank[:10])) + (" ..." if len(blank) > 10 else ""))


def load_rules(path: str | Path, fmt: RuleFormat, granularity: Granularity = "both") -> list[Rule]:
    """The file's rules of one granularity, identity rules (complex == simple) left out."""
    return [r for r in read_rules(path, fmt) if r.fits(granularity) and r.complex != r.simple]
