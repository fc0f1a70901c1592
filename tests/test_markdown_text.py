"""Markdown that renders literally (paragen.markdown_text), checked by rendering it with a CommonMark renderer
(markdown-it-py, as GitHub and the HTML report read it): a model's ``<unk>`` stays on the page, our own code spans
and links still work, and no committed Markdown under results/ holds a raw HTML token. Expected renderings are
written out by hand or come from the standard library's ``html.escape`` of the input."""

from __future__ import annotations

import html

import pytest
from markdown_it import MarkdownIt

from paragen.markdown_text import code, literal, safe_markdown, write_markdown

from conftest import ROOT

COMMONMARK = MarkdownIt("commonmark").enable("table")


def _raw_html(text: str) -> list[str]:
    """Every raw HTML token a CommonMark renderer would pass through to the browser."""
    found = []
    for token in COMMONMARK.parse(text):
        if token.type == "html_block":
            found.append(token.content.strip())
        found += [child.content for child in token.children or [] if child.type == "html_inline"]
    return found


def _paragraph(text: str) -> str:
    rendered = COMMONMARK.render(text)
    assert rendered.startswith("<p>") and rendered.endswith("</p>\n"), rendered
    return rendered[3:-5]


@pytest.mark.parametrize("text", [
    "composed mainly of the <unk> military and the <unk> , a <unk> militia group",
    "c<i> and <tpad> and </s> <s>",
    "a | b * c _d_ [e](f) `g` ~~h~~ \\ i & j &amp; k",
    "a > b # c",
    "mini_wean_copy _x_ *y* **z**",
])
def test_literal_text_renders_exactly_as_written(text):
    assert _paragraph(literal(text)) == html.escape(text, quote=False)
    assert not _raw_html(literal(text))


def test_literal_leaves_an_underscore_inside_a_word_alone():
    assert literal("mini_wean_copy") == "mini_wean_copy"
    assert literal("_x_ a_") == "\\_x\\_ a\\_"


def test_literal_text_in_a_table_cell_stays_in_its_cell():
    row = f"| 1 | {literal('a | <unk> b')} |"
    rendered = COMMONMARK.render("| line | text |\n| --- | --- |\n" + row + "\n")
    assert "<td>a | &lt;unk&gt; b</td>" in rendered


def test_safe_markdown_escapes_tags_and_entities_outside_code_and_keeps_our_own_markdown():
    document = "The data: c<i> and `c<i>`, [a link](docs/x.md), **bold**, p < 0.001, x &lt; y, AT&T."
    safe = safe_markdown(document)
    assert safe == ("The data: c\\<i> and `c<i>`, [a link](docs/x.md), **bold**, p < 0.001, x \\&lt; y, AT&T.")
    assert _paragraph(safe) == ('The data: c&lt;i&gt; and <code>c&lt;i&gt;</code>, <a href="docs/x.md">a link</a>, '
                                '<strong>bold</strong>, p &lt; 0.001, x &amp;lt; y, AT&amp;T.')
    assert safe_markdown(safe) == safe  # idempotent


def test_safe_markdown_leaves_fenced_blocks_and_double_backtick_spans_alone():
    document = "```\n<unk> in a fence\n```\n``a ` <b> ``\n~~~~\n<x>\n~~~~\n<y>"
    assert safe_markdown(document) == "```\n<unk> in a fence\n```\n``a ` <b> ``\n~~~~\n<x>\n~~~~\n\\<y>"
    assert not _raw_html(safe_markdown(document))


def test_an_unmatched_backtick_is_plain_text_and_what_follows_it_is_escaped():
    assert safe_markdown("a ` <unk> b") == "a ` \\<unk> b"


def test_code_spans_hold_backticks():
    assert code("<unk>") == "`<unk>`"
    assert code("a`b") == "``a`b``"
    assert code("`x") == "`` `x ``"
    assert _paragraph(code("a`b")) == "<code>a`b</code>"


def test_write_markdown_writes_the_safe_form(tmp_path):
    write_markdown(tmp_path / "t.md", "<unk> `<unk>`\n")
    assert (tmp_path / "t.md").read_text(encoding="utf-8") == "\\<unk> `<unk>`\n"


COMMITTED = sorted((ROOT / "results").rglob("*.md"))


def test_the_committed_results_markdown_is_found():
    names = {p.relative_to(ROOT).as_posix() for p in COMMITTED}
    assert {"results/REPORT.md", "results/tables/turk_mini_examples.md",
            "results/tables/headline_synthetic.md"} <= names


@pytest.mark.parametrize("path", COMMITTED, ids=[p.relative_to(ROOT).as_posix() for p in COMMITTED])
def test_committed_results_markdown_renders_literally(path):
    """No raw HTML token: every special token (<unk>, <tpad>, c<i>) is escaped or in a code span."""
    assert not _raw_html(path.read_text(encoding="utf-8"))


def test_a_tables_html_page_shows_its_table_and_no_raw_html():
    """The page the Snakemake report shows: the Markdown's table as an HTML table, a model's <unk> as text (escaped
    once, by html), a raw tag in the document as text too, and the title escaped."""
    from paragen.markdown_text import html_page

    page = html_page("T <1>", "# T\n\n| model | text |\n| --- | --- |\n| a | " + literal("the <unk> x") + " |\n\n<b>bold</b>\n")
    assert "<title>T &lt;1&gt;</title>" in page
    assert "<td>a</td>\n<td>the &lt;unk&gt; x</td>" in page
    assert "<b>bold</b>" not in page and "&lt;b&gt;bold&lt;/b&gt;" in page
