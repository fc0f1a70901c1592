"""Open the Snakemake HTML report in a real headless browser: every figure must load, and three screenshots show
what a reader sees (the results as the report first lists them, one table opened, one figure opened).

Usage, from the repository root after a run (the report is built from the outputs that exist):
    snakemake --cores 1 --report report.html
    python bench/report_browser.py report.html [--out docs/img] [--figure NAME]

It installs nothing. It needs Debian's chromium package (`apt-get install chromium`; another Chromium is
named with PARAGEN_CHROMIUM=/path/to/chrome) and the Python package playwright (`pip install -e '.[browser]'`),
used only to drive that browser: no browser is downloaded. Exit status 1 when a figure does not load (its
<img> finished with no pixels), 2 when a requirement is missing.

Screenshots (1280 x 900): <out>/report_first_screen.png (the report's results: its first paper's tables, the
first screen a reader who opens "Results" sees), <out>/report_table.png (a table's HTML page opened from the
results list: the report shows HTML, and offers Markdown, CSV and LaTeX as downloads; --table picks it by file
name, default the first listed) and <out>/report_figure.png (a figure opened, shown from its top; --figure picks
it, default the first validation-curve figure listed).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

VIEWPORT = {"width": 1280, "height": 900}
LOADED = "img => img.complete && img.naturalWidth > 0"
TO_TOP = "() => document.querySelectorAll('*').forEach(e => { if (e.scrollTop) e.scrollTop = 0; })"
"""Scroll every scrolled element back to its top: opening a figure can leave its view scrolled down."""


def requirements() -> tuple[str, object]:
    """The Chromium executable and playwright's sync API, or exit 2 saying what is missing."""
    chromium = os.environ.get("PARAGEN_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    missing = []
    if not chromium:
        missing.append("a Chromium browser: apt-get install chromium (or PARAGEN_CHROMIUM=/path/to/chrome)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
        missing.append("the Python package playwright: pip install -e '.[browser]'")
    if missing:
        print("report_browser: missing " + "; ".join(missing), file=sys.stderr)
        raise SystemExit(2)
    return chromium, sync_playwright


def _open(page, uri: str, path: list[str]) -> None:
    """Open the report afresh and follow the menu entries of ``path`` (the report routes inside one page)."""
    page.goto(uri)
    page.wait_for_load_state("networkidle")
    for label in path:
        page.get_by_text(label, exact=True).first.click()
        page.wait_for_timeout(200)


def _files(page, uri: str, path: list[str]) -> list[tuple[list[str], str]]:
    """(menu path, file name) of every result file under the menu entry ``path``: a level lists either files (a
    table of results/ paths) or further entries (a paper, then a table)."""
    _open(page, uri, path)
    files = [f for f in page.locator("table td").all_inner_texts() if f.startswith("results/")]
    if files:
        return [(path, f) for f in files]
    entries = page.locator("li > a.block > span").all_inner_texts()
    return [found for entry in entries for found in _files(page, uri, path + [entry])]


def _show(page, uri: str, path: list[str], name: str) -> None:
    """Open the file ``name`` from its results list (its eye icon)."""
    _open(page, uri, path)
    page.get_by_text(name, exact=True).locator("xpath=..").locator("a[iconname=eye]").click()
    page.wait_for_timeout(300)


def check_report(report: Path, out: Path, figure: str | None, table: str | None = None) -> list[str]:
    """Open every figure of the report; returns the figures whose image did not load. Writes the three
    screenshots (the results, a table, a figure)."""
    chromium, sync_playwright = requirements()
    out.mkdir(parents=True, exist_ok=True)
    uri = report.resolve().as_uri()
    broken = []
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport=VIEWPORT)
        found = _files(page, uri, ["Results"])
        figures = [(path, name) for path, name in found if name.endswith(".png")]
        tables = [(path, name) for path, name in found if name.endswith(".html")]
        if not figures or not tables:
            print(f"report_browser: the report lists {len(figures)} figure(s) and {len(tables)} table page(s); "
                  "a screenshot of each needs one", file=sys.stderr)
            raise SystemExit(1)
        _open(page, uri, tables[0][0][:2])  # the first paper's tables: the results a reader opens first
        page.screenshot(path=str(out / "report_first_screen.png"))
        table_path, table_name = next(((p, n) for p, n in tables if Path(n).name == table), tables[0])
        _show(page, uri, table_path, table_name)
        page.wait_for_timeout(500)
        page.screenshot(path=str(out / "report_table.png"))
        curves = [Path(n).name for _, n in figures if n.endswith("_valid_curves.png")]
        chosen = figure or (curves or [Path(figures[0][1]).name])[0]
        for path, name in figures:
            _show(page, uri, path, name)
            image = page.locator("img").last
            image.wait_for(state="attached", timeout=10_000)
            page.wait_for_timeout(300)
            if not image.evaluate(LOADED):
                broken.append(name)
            elif Path(name).name == chosen:
                page.evaluate(TO_TOP)
                page.screenshot(path=str(out / "report_figure.png"))
        print(f"{len(figures)} figure(s) opened, {len(broken)} did not load; a table opened ({Path(table_name).name}); "
              f"screenshots in {out}")
        browser.close()
    return broken


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("report", type=Path, help="the HTML report (snakemake --report report.html)")
    parser.add_argument("--out", type=Path, default=Path("docs/img"), help="where the screenshots go")
    parser.add_argument("--figure", help="file name of the figure to screenshot (default: the first listed)")
    parser.add_argument("--table", help="file name of the Markdown table to screenshot (default: the first listed)")
    args = parser.parse_args()
    if not args.report.is_file():
        print(f"report_browser: {args.report}: no such report; build it with "
              f"snakemake --cores 1 --report {args.report}", file=sys.stderr)
        raise SystemExit(2)
    broken = check_report(args.report, args.out, args.figure, args.table)
    for name in broken:
        print(f"did not load: {name}", file=sys.stderr)
    raise SystemExit(1 if broken else 0)


if __name__ == "__main__":
    main()
