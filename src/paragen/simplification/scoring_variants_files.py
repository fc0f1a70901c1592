"""``paragen scoring-variants``' files: the protocol study (:mod:`paragen.simplification.scoring_variants`) and its
leave-one-out check (:mod:`paragen.simplification.protocol_cv`) written together, so neither module imports the
other's writer (protocol_cv ranks with scoring_variants' ranking).

Scoring every setting on the Turk test takes minutes and the Turk files; ranking and cross-validating the scores
takes a second. So the scores go to ``<stem>.csv`` first, and the Markdown and ``<stem>_cv.csv`` are always drawn
from that file as written (:func:`render_scoring_variants`): ``paragen check-tables`` redraws them from the
committed scores and names a hand-edited table."""

from __future__ import annotations

from pathlib import Path

from paragen.atomic import write_text
from paragen.markdown_text import write_markdown
from paragen.simplification.protocol_cv import cv_csv, cv_markdown, leave_one_out
from paragen.simplification.report_protocol import read_turk_test
from paragen.simplification.scoring_variants import (TABLE_STEM, Protocol, from_csv, protocol_grid, rank_by_fit,
                                                     score_variants, to_csv, to_markdown)


def write_scoring_variants(raw: str | Path, stem: str = TABLE_STEM) -> list[Protocol]:
    """Score every protocol on the Turk test under ``raw`` into ``<stem>.csv``, then rank and cross-validate them
    from that file (:func:`render_scoring_variants`); return the protocols best first."""
    test = read_turk_test(raw)
    write_text(f"{stem}.csv", to_csv(score_variants(test), len(test.sources)))
    return render_scoring_variants(stem)


def render_scoring_variants(stem: str = TABLE_STEM) -> list[Protocol]:
    """``<stem>.md`` and ``<stem>_cv.csv`` from the scores in ``<stem>.csv``; the protocols best first."""
    path = Path(f"{stem}.csv")
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no scores to rank (`paragen scoring-variants --raw DIR` writes them)")
    scored, sentences = from_csv(path.read_text(encoding="utf-8"), str(path))
    grid = protocol_grid(scored)
    ranked = rank_by_fit(grid)
    cv = leave_one_out(grid)
    write_markdown(f"{stem}.md", to_markdown(scored, ranked, sentences, cv_markdown(cv)))
    write_text(f"{stem}_cv.csv", cv_csv(cv))
    return ranked
