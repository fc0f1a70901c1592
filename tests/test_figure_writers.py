"""What the report's figure writers (paragen.report.figures) hand to their builders, read from the figures they
would save (the saving is replaced by a recorder): the curve of the column asked for, its axis label and title
in their places; 004 Figure 4's two figures titled with their own rows and seeds, at their own paths."""

from __future__ import annotations

import pytest

import paragen.report.figures as figures

from conftest import write_lines


@pytest.fixture
def saved(monkeypatch, close_figures):
    kept = []
    monkeypatch.setattr(figures, "save", lambda fig, path: kept.append((fig, str(path))))
    return kept


def test_curves_of_the_column_asked_for_with_label_and_title(tmp_path, saved):
    log = tmp_path / "train_log.csv"
    write_lines(log, ["epoch,valid_metric,valid_exact", "1,-3.0,10.0", "2,-2.5,30.0"])
    figures.plot_curves({"RNNSearch": [log]}, "out.png", "exact match (%)", "Exact match after each epoch (t)",
                        "valid_exact")
    [(fig, path)] = saved
    ax = fig.axes[0]
    assert path == "out.png" and fig._suptitle.get_text() == "Exact match after each epoch (t)"
    assert ax.get_ylabel() == "exact match (%)"
    assert [list(line.get_ydata()) for line in ax.get_lines()] == [[10.0, 30.0]]


def _sentence(line: int) -> dict:
    return {"line": line, "source": ["a", "b"], "target": ["x"], "attention": [[0.3, 0.7]], "attention_argmax": [1],
            "source_prediction": [[0.6, 0.4]], "spm_words": ["b"]}


def test_the_two_alignment_figures_carry_their_own_rows_and_seeds(saved):
    examples = [_sentence(3), _sentence(8)]
    figures.plot_alignment_heatmaps(examples, examples, ("EncDec", "EncDec+SPM"), (2, 5), ("a.png", "p.png"))
    assert [(fig._suptitle.get_text(), path) for fig, path in saved] == [
        ("attention of EncDec (seed 2)", "a.png"), ("source-side prediction q_j of EncDec+SPM (seed 5)", "p.png")]


def test_the_training_panels_of_the_log_given_titled_and_saved_where_asked(tmp_path, saved):
    """One run's log: the validation SARI panel plots its SARI column (30.5, 31.0); the title and path are the
    caller's."""
    log = tmp_path / "train_log.csv"
    write_lines(log, ["epoch,valid_sari,train_loss", "1,30.5,4.0", "2,31.0,3.5"])
    figures.plot_training_panels(log, "panels.png", "nmt (smini_nmt): training log per epoch")
    [(fig, path)] = saved
    assert path == "panels.png" and fig._suptitle.get_text() == "nmt (smini_nmt): training log per epoch"
    assert fig.axes[0].get_title() == "validation SARI"
    assert [list(line.get_ydata()) for line in fig.axes[0].get_lines()] == [[30.5, 31.0]]


def test_copy_and_attention_maps_read_their_own_matrix(saved):
    """The copy map draws copy_probs with a "probability" bar; the attention map draws attention with a "weight"
    bar (each example carries only its own matrix, so reading the other fails); titles and paths as given."""
    base = {"line": 3, "source": ["a", "b"], "output": ["a"], "reference": ["a"], "correct": True}
    figures.plot_copy_heatmap([{**base, "copy_probs": [[0.25, 0.75]], "generate_mass": [0.5]}], "c.png", "copy")
    figures.plot_attention_heatmap([{**base, "attention": [[0.375, 0.625]]}], "a.png", "attention")
    assert [(fig._suptitle.get_text(), path, fig.axes[-1].get_ylabel()) for fig, path in saved] == [
        ("copy", "c.png", "probability"), ("attention", "a.png", "weight")]
    assert [list(fig.axes[0].images[0].get_array().ravel()) for fig, _ in saved] == [[0.25, 0.75], [0.375, 0.625]]
