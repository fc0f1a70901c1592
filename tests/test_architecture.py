"""The layout's promises (docs/architecture.md): no module over ~400 lines, no import circle, and no package
importing a higher layer (data and models never import the pipeline or the report).

The import graph is read from the source with ``ast`` (run-time imports, including those inside functions;
``if TYPE_CHECKING:`` blocks are left out since they never run)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conftest import ROOT

SRC = ROOT / "src"
MAX_LINES = 400

LAYERS = [
    {"paragen", "paragen.atomic", "paragen.progress", "paragen.safe_yaml", "paragen.text_script",
     "paragen.figure_style", "paragen.markdown_text", "paragen.rounding"},  # foundation: no paragen imports
    {"paragen.data", "paragen.metrics"},
    {"paragen.config"},
    {"paragen.artifacts"},
    {"paragen.models"},
    {"paragen.decoding"},
    {"paragen.training"},
    {"paragen.scoring", "paragen.simplification"},
    {"paragen.pipeline"},
    {"paragen.report"},
    {"paragen.cli"},
]
"""Lowest first: a module may import its own layer or a lower one."""


def _modules() -> dict[str, Path]:
    found = {}
    for path in SRC.rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path], annotations: bool = False) -> set[str]:
    """The paragen modules ``name`` imports; ``annotations``: also those under ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = set() if annotations else {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
               and getattr(node.test, "id", getattr(node.test, "attr", None)) == "TYPE_CHECKING"
               for body in node.body for n in ast.walk(body)}
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name in modules)
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[:len(package) - node.level + 1] + ([node.module] if node.module else [])) \
                if node.level else node.module
            subs = [f"{base}.{a.name}" for a in node.names]
            found.update(s for s in subs if s in modules)  # `from package import module`
            if any(s not in modules for s in subs) and base in modules:
                found.add(base)
    found.discard(name)
    return found


def _graph(annotations: bool = False) -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules, annotations) for name, path in modules.items()}


def _layer(module: str) -> int:
    for depth in (2, 1):
        prefix = ".".join(module.split(".")[:depth])
        for i, layer in enumerate(LAYERS):
            if prefix in layer:
                return i
    raise AssertionError(f"{module} belongs to no layer: add its package to LAYERS and docs/architecture.md")


def test_no_source_file_is_over_about_400_lines():
    long = {str(p.relative_to(ROOT)): n for p in SRC.rglob("*.py") if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long, f"split these modules: {long}"


ANNOTATION_CIRCLE = ["paragen.config", "paragen.config.cross_checks", "paragen.config.loading",
                     "paragen.config.matrix", "paragen.config.own_tables", "paragen.config.project",
                     "paragen.config.seeds"]
"""The one circle of names only: ParagenConfig's cross-section checks and expansions live in ``config.seeds``,
``config.matrix``, ``config.own_tables`` and ``config.cross_checks``, whose functions take a ParagenConfig; they
annotate it, they never import it when run. The sections' own modules (tables, runs, datasets, ...) stay out."""


@pytest.mark.parametrize("annotations", [False, True], ids=["run-time", "with-type-checking"])
def test_no_import_circle(annotations):
    """No circle among the imports that run, nor once the annotation-only ones are counted: two modules that need
    each other's names, even for annotations, hold one job between them."""
    graph = _graph(annotations)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    if annotations:
        circles = [c for c in circles if c != ANNOTATION_CIRCLE]
    assert not circles, f"import circles: {circles}"


def test_no_module_imports_a_higher_layer():
    upward = [f"{a} (layer {_layer(a)}) imports {b} (layer {_layer(b)})"
              for a, targets in _graph().items() for b in targets if _layer(b) > _layer(a)]
    assert not upward, "\n".join(upward)


def test_the_graph_reader_sees_function_level_imports_and_skips_type_checking(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from paragen.report import build\n"
                      "def f():\n    from paragen.pipeline import plan\n    import paragen.atomic\n")
    modules = {"paragen.report.build": source, "paragen.pipeline.plan": source, "paragen.atomic": source,
               "paragen.pipeline": source}
    assert _imports("paragen.data.m", source, modules) == {"paragen.pipeline.plan", "paragen.atomic"}
