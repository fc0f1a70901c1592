"""Every relative link a reader follows from the front page, the docs and the report lands: the file exists and,
where the link names a section, the page has a heading with that anchor (as GitHub makes anchors)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from paragen.markdown_text import github_anchors

from conftest import ROOT

PAGES = sorted([ROOT / "README.md", ROOT / "results" / "REPORT.md", *(ROOT / "docs").glob("*.md")])
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6} (.+?)\s*$")
EXPLICIT = re.compile(r'<a id="([^"]+)"></a>')


def _anchors(page: Path) -> set[str]:
    text = page.read_text(encoding="utf-8")
    fenced, headings = False, []
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (found := HEADING.match(line)):
            headings.append(re.sub(r"[`*]", "", EXPLICIT.sub("", found.group(1))))
    return set(github_anchors(headings)) | set(EXPLICIT.findall(text))


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_relative_links_land(page):
    broken = []
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue  # a web address
        path, _, anchor = target.partition("#")
        landing = (page.parent / path).resolve() if path else page
        if not landing.exists():
            broken.append(f"{target}: no such file")
        elif anchor and landing.suffix == ".md" and anchor not in _anchors(landing):
            broken.append(f"{target}: no such section")
    assert not broken, broken
