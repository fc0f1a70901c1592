"""What a user's clone reads must stand on its own: no path outside the repository (a clone has no ../shared/),
no issue numbers of our tracker, the four papers cited with links, and no mirror switched on by default."""

import re

import pytest
import yaml

from conftest import ROOT

USER_FILES = sorted([ROOT / "README.md", ROOT / "CITATION.cff", ROOT / "params.yaml",
                     *(ROOT / "docs").glob("*.md"),  # development.md too: README links it
                     *(p for p in (ROOT / "workflow").rglob("*") if p.is_file())])
OUTSIDE = re.compile(r"\.\./shared|shared/papers|shared/data|shared/DESIGN|shared/tools|\bissue \d+|\blent\b",
                     re.IGNORECASE)

PAPERS = {  # identifiers a reader can follow, and the title each citation must carry
    "WEAN (Ma et al., NAACL 2018)": (("N18-1018", "1803.01465"), "Generating Words by Querying Distributed Word"),
    "CopyNet (Gu et al., ACL 2016)": (("P16-1154", "1603.06393"), "Incorporating Copying Mechanism"),
    "SPM (Kiyono et al., 2017)": (("1712.08302",), "Source-side Prediction for Neural Headline Generation"),
    "Transformer + PPDB (Wang, Kurohara, Liang)": ((), "Wikipedia Sentence Simplification"),
}


def test_user_facing_files_name_no_path_outside_the_repository():
    assert len(USER_FILES) > 10  # README, CITATION, params.yaml, the docs, the profiles and report templates
    found = [f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
             for path in USER_FILES for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if OUTSIDE.search(line)]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("name", ["README.md", "CITATION.cff"])
def test_the_four_papers_are_cited_with_links(name):
    text = (ROOT / name).read_text(encoding="utf-8")
    for paper, (identifiers, title) in PAPERS.items():
        assert title in text, (name, paper)
        for identifier in identifiers:
            assert identifier in text, (name, paper, identifier)
    for author in ("Kurohara", "Kiyono", "Takase", "Nagata", "Xuancheng", "Zhengdong"):
        assert author in text, (name, author)
    if name == "README.md":
        links = re.findall(r"\]\((https://[^)]+)\)", text.split("## Papers", 1)[1].split("\n## ", 1)[0])
        assert {"https://aclanthology.org/N18-1018/", "https://arxiv.org/abs/1803.01465",
                "https://aclanthology.org/P16-1154/", "https://arxiv.org/abs/1603.06393",
                "https://arxiv.org/abs/1712.08302"} <= set(links)


def test_citation_file_lists_the_four_papers_as_references():
    references = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))["references"]
    assert len(references) == 4
    urls = {ref.get("url") for ref in references}
    assert {"https://aclanthology.org/N18-1018/", "https://aclanthology.org/P16-1154/",
            "https://arxiv.org/abs/1712.08302"} <= urls
    report = next(ref for ref in references if ref["title"] == "Wikipedia Sentence Simplification")
    assert report["type"] == "report" and "url" not in report  # a course report: no stable link is known
    assert [a["family-names"] for a in report["authors"]] == ["Wang", "Kurohara", "Liang"]


def test_no_mirror_is_on_by_default():
    """A mirror is a directory the user has; the default configuration must download from upstream."""
    from paragen.config import ParagenConfig

    assert yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))["mirrors"] == []
    assert ParagenConfig.model_fields["mirrors"].get_default(call_default_factory=True) == []


CODE_FILES = sorted([*(ROOT / "src").rglob("*.py"), *(ROOT / "bench").rglob("*.py"), *(ROOT / "bench").rglob("*.sh"),
                     ROOT / "Snakefile", *(p for p in (ROOT / "workflow").rglob("*") if p.is_file())])
DESIGN_BRIEF = re.compile(r"\bDESIGN\b")
"""The project's design brief lives outside the repository: a docstring citing it sends the reader nowhere."""


def test_code_cites_only_documents_in_the_repository():
    assert len(CODE_FILES) > 100
    brief = [f"{path.relative_to(ROOT)}:{number}" for path in CODE_FILES
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if DESIGN_BRIEF.search(line)]
    assert not brief, "cite docs/architecture.md (its principles) or the page that holds the rule: " + ", ".join(brief)
    cited = {(path.relative_to(ROOT), match) for path in CODE_FILES
             for match in re.findall(r"\bdocs/[\w./-]+?\.md\b", path.read_text(encoding="utf-8"))}
    missing = sorted(f"{path}: {doc}" for path, doc in cited if not (ROOT / doc).is_file())
    assert not missing, missing
