"""``paragen scoring-variants``' files: the protocol study (:mod:`paragen.simplification.scoring_variants`) and its
leave-one-out check (:mod:`paragen.simplification.protocol_cv`) written together, so neither module imports the
other's writer (protocol_cv ranks with scoring_variants' ranking)."""

from __future__ import annotations

from pathlib import Path

from paragen.atomic import write_text
from paragen.markdown_text import write_markdown
from paragen.simplification.protocol_cv import cv_csv, cv_markdown, leave_one_out
from paragen.simplification.report_protocol import read_turk_test
from paragen.simplification.scoring_variants import (TABLE_STEM, Protocol, protocol_grid, rank_by_fit, score_variants,
                                                     to_csv, to_markdown)


def write_scoring_variants(raw: str | Path, stem: str = TABLE_STEM) -> list[Protocol]:
    """Score every protocol on the Turk test under ``raw``, rank them, cross-validate the choice; write
    ``<stem>.md``, ``<stem>.csv`` and ``<stem>_cv.csv``; return the protocols best first."""
    test = read_turk_test(raw)
    scored = score_variants(test)
    grid = protocol_grid(scored)
    ranked = rank_by_fit(grid)
    cv = leave_one_out(grid)
    write_markdown(f"{stem}.md", to_markdown(scored, ranked, len(test.sources), cv_markdown(cv)))
    write_text(f"{stem}.csv", to_csv(scored))
    write_text(f"{stem}_cv.csv", cv_csv(cv))
    return ranked
