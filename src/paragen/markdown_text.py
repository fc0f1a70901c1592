"""Markdown that renders literally: what a table, a caption or a model's output says is what GitHub and the HTML
report show.

A CommonMark renderer (GitHub, the Snakemake report, markdown-it) passes anything that looks like an HTML tag
through as raw HTML, which a browser then swallows: a model's ``<unk>`` vanishes from its output and an
unclosed ``c<i>`` italicises the rest of the page. Two helpers keep text literal:

* :func:`literal` for text paragen did not write (a model's output, a reference, a token): every character
  Markdown could read as syntax is backslash-escaped, so nothing in it can format the page;
* :func:`safe_markdown` for a whole generated document, whose own code spans, links and emphasis are meant: a
  ``<`` that could open a tag and an ``&`` that could start an entity are escaped outside code spans and fenced
  blocks, nothing else changes.

:func:`write_markdown` writes a document through :func:`safe_markdown`; every Markdown file under ``results/``
is written by it.
"""

from __future__ import annotations

import re
from pathlib import Path

from paragen.atomic import write_text

_SYNTAX = set("\\`*_[]<&|~")
"""Characters with a meaning inside a line in CommonMark or GitHub's tables and strikethrough; each is ASCII
punctuation, which CommonMark lets a backslash escape. (``>``, ``#``, ``-`` and ``+`` mean something only at a
line's start, where :func:`literal`'s text never stands: it fills table cells and runs on after our words.)"""
_TAG_OPEN = re.compile(r"(?<!\\)<(?=[A-Za-z/!?])")
"""A ``<`` that CommonMark could read as the start of raw HTML (a tag, a comment, a declaration)."""
_ENTITY = re.compile(r"(?<!\\)&(?=#?\w+;)")
"""An ``&`` that CommonMark would read as an entity (``&lt;`` shows as ``<``)."""
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def literal(text: str) -> str:
    """``text`` with every Markdown syntax character backslash-escaped: it renders as written, in a paragraph or
    a table cell (``|`` included). An underscore between two letters or digits (``mini_wean``) is left alone:
    CommonMark never reads it as emphasis."""
    return "".join(f"\\{ch}" if ch in _SYNTAX and not (ch == "_" and _inside_word(text, i)) else ch
                   for i, ch in enumerate(text))


def _inside_word(text: str, i: int) -> bool:
    return 0 < i < len(text) - 1 and text[i - 1].isalnum() and text[i + 1].isalnum()


def code(text: str) -> str:
    """``text`` as an inline code span, delimited by a backtick run longer than any inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _escape_plain(text: str) -> str:
    return _ENTITY.sub(r"\\&", _TAG_OPEN.sub(r"\\<", text))


def _escape_line(line: str) -> str:
    """One line outside fenced blocks: escape the plain stretches, keep code spans (a backtick run closed by a run
    of the same length) as they are; an unmatched run is plain text."""
    out, i = [], 0
    while i < len(line):
        start = line.find("`", i)
        if start < 0:
            out.append(_escape_plain(line[i:]))
            break
        out.append(_escape_plain(line[i:start]))
        run = re.match(r"`+", line[start:]).group(0)
        close = re.compile(rf"(?<!`){run}(?!`)")
        found = close.search(line, start + len(run))
        if found is None:
            out.append(run)
            i = start + len(run)
        else:
            out.append(line[start:found.end()])
            i = found.end()
    return "".join(out)


def safe_markdown(document: str) -> str:
    """``document`` with every ``<`` that could open raw HTML and every ``&`` that could start an entity escaped,
    except inside code spans and fenced code blocks (their text is literal already). Idempotent: an escaped
    character is not escaped again."""
    lines, fence = [], None
    for line in document.split("\n"):
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
            lines.append(line)
        elif opened:
            fence = opened.group(1)
            lines.append(line)
        else:
            lines.append(_escape_line(line))
    return "\n".join(lines)


def github_anchors(headings: list[str]) -> list[str]:
    """The anchor GitHub gives each heading of a page, in order: lower case, every character that is not a letter,
    digit, space, hyphen or underscore dropped, spaces as hyphens; a repeated anchor gets ``-1``, ``-2``, …"""
    seen: dict[str, int] = {}
    anchors = []
    for heading in headings:
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.append(slug if count == 0 else f"{slug}-{count}")
    return anchors


PAGE_STYLE = ("body{font-family:sans-serif;max-width:60em;margin:1em auto;line-height:1.4}"
              "table{border-collapse:collapse}th,td{border:1px solid #bbb;padding:2px 6px;text-align:left}"
              "code{background:#f3f3f3}")


def html_page(title: str, document: str) -> str:
    """A generated Markdown document as one self-contained HTML page (CommonMark with tables; raw HTML in the
    document is shown as text, never passed through)."""
    from markdown_it import MarkdownIt

    import html

    body = MarkdownIt("commonmark", {"html": False}).enable("table").render(safe_markdown(document))
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{PAGE_STYLE}</style></head>\n<body>\n{body}</body></html>\n")


def write_markdown(path: str | Path, document: str) -> None:
    """Write a generated Markdown file atomically, through :func:`safe_markdown`."""
    write_text(path, safe_markdown(document))
