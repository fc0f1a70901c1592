"""The matrix's generated paragraph (paragen.report.matrix_render.paragraph), word for word on hand-built results.

The expected sentences are written out here from the rule the paragraph states (docs/matrix.md), not taken from a
run of the code: which mechanisms share the best rank, the verdicts per direction, the cells not run, a task
with nothing run, a void column, and the chance count 2 P(Binomial(seeds, 0.05) >= required) per tested cell."""

from __future__ import annotations

from types import SimpleNamespace

from paragen.report.matrix import TaskResult
from paragen.report.matrix_render import paragraph

from conftest import matrix_cell


def _config(seeds: list[int], required: int) -> SimpleNamespace:
    return SimpleNamespace(matrix=SimpleNamespace(seeds=seeds, required=lambda: required))


def _results() -> list[TaskResult]:
    copy = TaskResult("copy", "Copy", "accuracy", "attention", [
        matrix_cell("copy", "attention", rank=4, verdict="baseline"),
        matrix_cell("copy", "A", rank=1, verdict="better", tested=True),
        matrix_cell("copy", "B", rank=1, verdict="worse", tested=True),
        matrix_cell("copy", "C", rank=3, verdict="no difference shown", tested=True),
        matrix_cell("copy", "F", rank=2, verdict="better", tested=True),
        matrix_cell("copy", "D", status="not run"),
        matrix_cell("copy", "E", status="not run"),
    ])
    empty = TaskResult("empty", "Empty", "accuracy", "attention", [matrix_cell("empty", "A", status="not run")])
    void = TaskResult("void", "Void", "BLEU", "attention", [
        matrix_cell("void", "X", rank=2, verdict="better", tested=True),
        matrix_cell("void", "Y", rank=1, verdict="worse", tested=True),
        matrix_cell("void", "Z", status="not run"),
    ], void="void: its baseline does not work")
    return [copy, empty, void]


def test_one_seed_paragraph_word_for_word():
    """Faulty variants give other text: 'best A' alone (a tie dropped), the void column's better/worse listed or a
    best cell named (a void column is not ranked), the Void sentence missing after the Empty one (a loop that stops at the first task without runs), '6 cell(s)'
    counted with the void column, '0.1 a cell' instead of 2 x 0.05 = 0.100, no one-seed warning."""
    expected = (
        "Copy: best A and B. Better than attention: A, F. Worse than attention: B. "
        "No difference shown from attention: C. Not run: D, E. "
        "Empty: no cell has run. "
        "Void: not ranked, and its verdicts are void: its baseline does not work. Not run: Z. "
        "4 cell(s) tested against their task's baseline (1 seed; a verdict needs p < 0.05 or > 0.95 in 1 of 1): "
        "2 better, 1 worse; with no true difference anywhere about 0.4 verdict(s) would come by chance "
        "(0.100 a cell). "
        "With one seed a verdict is one training run's: run-to-run variation alone can give it "
        "(matrix.seeds: [1, 2, 3] repeats every cell).")
    assert paragraph(_config([1], 1), _results()) == expected


def test_two_seeds_plural_and_no_one_seed_warning():
    """Two seeds, both needed: 2 x 0.05^2 = 0.005 a cell, 4 x 0.005 = 0.02 -> 'about 0.0'; 'seeds' plural; the
    one-seed sentence absent (a variant testing seeds == 2 would add it, one testing seeds > 2 would say 'seed')."""
    text = paragraph(_config([1, 2], 2), _results())
    assert text.endswith(
        "4 cell(s) tested against their task's baseline (2 seeds; a verdict needs p < 0.05 or > 0.95 in 2 of 2): "
        "2 better, 1 worse; with no true difference anywhere about 0.0 verdict(s) would come by chance "
        "(0.005 a cell).")
    assert "With one seed" not in text
