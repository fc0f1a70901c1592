"""Which matrices 004 Figure 4's two figures are drawn from (paragen.report.build.plot_heatmaps): the attention
figure from the attention row's own ``alignment_examples.json``, the q_j figure from the SPM row's, each at the
sentences the table names in its order, each named with its row's training seed. Swapping or duplicating a
source would draw a real figure of the wrong model; the drawing itself is replaced by a recorder here."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import paragen.report.build as build


def _matrices(experiment: str, weight: float) -> None:
    folder = Path(f"runs/{experiment}")
    folder.mkdir(parents=True)
    sentences = [{"line": line, "source": ["a"], "attention": [[weight + line]]} for line in (2, 5, 9)]
    (folder / "alignment_examples.json").write_text(json.dumps({"sentences": sentences}))


def test_each_figure_reads_its_own_rows_matrices_at_the_named_sentences(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _matrices("h_encdec", 0.1)
    _matrices("h_spm", 0.5)
    drawn = []
    monkeypatch.setattr(build, "plot_alignment_heatmaps", lambda *args: drawn.append(args))
    spec = SimpleNamespace(rows={"EncDec": "h_encdec", "EncDec+SPM": "h_spm"},
                           alignment_figure=SimpleNamespace(attention="EncDec", source_prediction="EncDec+SPM",
                                                            sentences=[9, 2]))
    config = SimpleNamespace(training_of=lambda experiment: SimpleNamespace(seed={"h_encdec": 3, "h_spm": 4}[
        experiment]))
    build.plot_heatmaps(config, "t", spec)
    [(attention, prediction, names, seeds, paths)] = drawn
    assert [(e["line"], e["attention"]) for e in attention] == [(9, [[9.1]]), (2, [[2.1]])]
    assert [(e["line"], e["attention"]) for e in prediction] == [(9, [[9.5]]), (2, [[2.5]])]
    assert (names, seeds) == (("EncDec", "EncDec+SPM"), (3, 4))
    assert paths == ("results/figures/t_alignment_attention.png", "results/figures/t_alignment_prediction.png")
