"""What the simplification group's mutation run left unpinned in the rows without training (``paragen system``),
the skip sweep's own run (which seeds, which columns, BPE, 003's protocol only where asked), its written figure,
and the rule reader's messages. Every expected output is written by hand or computed by sacrebleu in the test."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
import sacrebleu
import yaml

from paragen.cli import main
from paragen.config import ConfigError, parse_config
from paragen.simplification.ppdb import RuleError, read_rules
from paragen.simplification.skip_sweep import run_sweep, sweep_figure
from paragen.simplification.systems import skip
from test_systems import _project, _tiny_turk, bpe_turk

RULES = "data/raw/ppdb/ppdb-1.0-xxxl-lexical.synonyms.tsv"
TURK = "data/segmented/turk.word"


def _write(tmp_path: Path, raw: dict) -> None:
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(raw))


@pytest.fixture
def turk(tmp_path, monkeypatch) -> dict:
    """The tiny Turk set of test_systems in a project directory; returns the project's params to edit."""
    monkeypatch.chdir(tmp_path)
    _tiny_turk(tmp_path)
    return _project(suites=["simplification"], data=["turk"])


# --- paragen system ---------------------------------------------------------------------------------------------

def test_a_paraphrase_system_rewrites_the_output_it_names_not_the_source(tmp_path, turk, capsys):
    """``input: simp_skip`` rewrites simp_skip's test output: "recipient" and "commenced" are written here in
    another context than the source's, so reading the source would give "the winner passed away" instead."""
    turk["systems"]["simp_rewrite"] = {"dataset": "turk", "method": "paraphrase", "rules": "ppdb_lexical",
                                       "granularity": "word", "input": "simp_skip"}
    _write(tmp_path, turk)
    Path("runs/simp_skip").mkdir(parents=True)
    Path("runs/simp_skip/test.hyp").write_text("recipient here\ncommenced now\n")
    assert main(["system", "--name", "simp_rewrite"]) == 0
    assert Path("runs/simp_rewrite/test.hyp").read_text() == "winner here\nbegan now\n"
    # an input with another number of lines than the test source is refused, both files and counts named
    Path("runs/simp_skip/test.hyp").write_text("recipient here\n")
    assert main(["system", "--name", "simp_rewrite"]) == 2
    assert (f"runs/simp_skip/test.hyp has 1 lines but {TURK}/test.src has 2: files must be aligned line by line"
            in capsys.readouterr().err)


def test_a_paraphrase_system_logs_how_many_rules_it_read_and_from_where(turk, tmp_path, caplog):
    _write(tmp_path, turk)
    with caplog.at_level(logging.INFO, logger="paragen.simplification.outputs"):
        assert main(["system", "--name", "simp_ppdb_word"]) == 0
    assert f"simp_ppdb_word: 2 word rules from {RULES}" in caplog.messages


def test_the_skip_system_draws_with_its_own_seed(turk, tmp_path):
    """seed 3 and p = 0.5 on the two test sentences, against random.Random(3) by hand: draws below 0.5 drop."""
    import random

    turk["systems"]["simp_skip"].update(probability=0.5, seed=3)
    _write(tmp_path, turk)
    assert main(["system", "--name", "simp_skip"]) == 0
    rng = random.Random(3)
    expected = [" ".join(t for t in line.split() if rng.random() >= 0.5)
                for line in ("the recipient passed away", "it was commenced in 1990")]
    assert Path("runs/simp_skip/test.hyp").read_text().splitlines() == expected


def test_an_oracle_of_a_named_reference_writes_that_reference(turk, tmp_path, capsys):
    """``reference: 1`` is the second reference file; leave-one-out writes the first (test_systems)."""
    turk["systems"]["simp_oracle"]["reference"] = 1
    _write(tmp_path, turk)
    assert main(["system", "--name", "simp_oracle"]) == 0
    assert Path("runs/simp_oracle/test.hyp").read_text() == "the winner passed away\nit started in 1990\n"
    # reference 2 of references 0..1: refused by name (with `>` for `>=` it would reach the list's end)
    turk["systems"]["simp_oracle"]["reference"] = 2
    _write(tmp_path, turk)
    assert main(["system", "--name", "simp_oracle"]) == 2
    assert f"systems.simp_oracle.reference: 2, but {TURK} holds references 0..1" in capsys.readouterr().err


# --- the skip sweep's run ---------------------------------------------------------------------------------------

def test_the_sweep_draws_seeds_upward_from_the_systems_seed(turk):
    """seed 1, seeds 2: the outputs of seeds 1 and 2 (not 1 and 0), BLEU of each computed here by sacrebleu."""
    turk["systems"]["simp_skip"].update(seed=1, seeds=2, sweep=[0.5])
    sources = Path(f"{TURK}/test.src").read_text().splitlines()
    refs = [Path(f"{TURK}/test.ref.{k}").read_text().splitlines() for k in (0, 1)]

    def bleu(seed: int) -> float:
        return sacrebleu.corpus_bleu(skip(sources, 0.5, seed), refs, lowercase=True).score

    assert [bleu(1), bleu(0)] != [bleu(1), bleu(2)]  # so that the downward seeds would be seen
    results = run_sweep(parse_config(turk), "simp_skip", quiet=True)
    assert results[0.5]["bleu"] == pytest.approx([bleu(1), bleu(2)])


def test_without_003s_protocol_the_sweep_has_only_the_standard_columns(turk):
    turk["datasets"]["turk"]["evaluation"] = {"metrics": ["sari", "bleu"]}
    turk["systems"]["simp_skip"].update(seeds=1, sweep=[0.0])
    results = run_sweep(parse_config(turk), "simp_skip", quiet=True)
    assert list(results[0.0]) == ["sari", "bleu"]


def test_a_rouge_sweep_gets_one_column_per_rouge_score(turk):
    """ROUGE's score is a dict: each entry is its own column, named rouge_<entry>. p = 1 leaves every output
    empty, which shares nothing with the references: every column 0."""
    turk["datasets"]["turk"]["evaluation"] = {"metrics": ["rouge"]}
    turk["systems"]["simp_skip"].update(seeds=1, sweep=[1.0])
    results = run_sweep(parse_config(turk), "simp_skip", quiet=True)
    assert list(results[1.0]) == ["rouge_rouge1", "rouge_rouge2", "rouge_rougeL"]
    assert all(values == [0.0] for values in results[1.0].values())


def test_a_bpe_sweep_restores_words_before_scoring(tmp_path, monkeypatch):
    """p = 0 returns the BPE source; only with the "@@ " joins undone does it equal the word reference (BLEU 100;
    the BPE tokens themselves score below 50, test_systems)."""
    monkeypatch.chdir(tmp_path)
    raw = bpe_turk(tmp_path, seeds=1, sweep=[0.0])
    assert run_sweep(parse_config(raw), "simp_skip", quiet=True)[0.0]["bleu"] == pytest.approx([100.0])


def test_the_sweep_refuses_a_system_without_a_sweep_naming_those_with_one(turk):
    turk["systems"]["simp_skip_fixed"] = {"dataset": "turk", "method": "skip", "probability": 0.5, "seed": 1}
    config = parse_config(turk)
    for name in ("simp_identity", "simp_skip_fixed", "nope"):
        with pytest.raises(ConfigError) as error:
            run_sweep(config, name, quiet=True)
        assert str(error.value) == f"{name!r} is not a skip system with a sweep; allowed values: ['simp_skip']"


def test_the_sweep_reports_its_progress_by_name_and_unit(turk, caplog):
    turk["systems"]["simp_skip"].update(seeds=1, sweep=[0.0, 1.0])
    with caplog.at_level(logging.INFO, logger="paragen.progress"):
        run_sweep(parse_config(turk), "simp_skip", quiet=False)
    assert any(m.startswith("simp_skip sweep: 2/2 output (100 %)") for m in caplog.messages)
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="paragen.progress"):
        run_sweep(parse_config(turk), "simp_skip", quiet=True)
    assert caplog.messages == []


def test_the_written_sweep_figure_is_titled_by_its_row_and_stars_the_published_point(turk, tmp_path, monkeypatch,
                                                                                     caplog):
    """`paragen skip-sweep` draws the figure of the row it was asked for, with 003 Table 1's skip row (p = 0.5,
    SARI 21.62, BLEU 8.97 in the project's transcription) as the star."""
    from paragen import figure_style

    turk["systems"]["simp_skip"].update(seeds=2, sweep=[0.0, 1.0])
    _write(tmp_path, turk)
    drawn = []
    monkeypatch.setattr(figure_style, "save", lambda fig, path: drawn.append((fig, path)))
    with caplog.at_level(logging.INFO, logger="paragen.progress"):
        assert main(["skip-sweep", "--name", "simp_skip", "--quiet"]) == 0
    assert caplog.messages == []  # --quiet reaches the sweep: no progress line
    [(fig, path)] = drawn
    assert path == "results/figures/simp_skip_sweep.png"
    assert fig._suptitle.get_text() == "Skip baseline (simp_skip): mean ± sd over 2 seeds per p"
    stars = [(ax.get_title(), list(line.get_ydata())) for ax in fig.axes for line in ax.lines
             if line.get_marker() == "*"]
    assert stars == [("SARI", [21.62]), ("BLEU", [8.97])]
    markdown = Path("results/tables/simp_skip_sweep.md").read_text().splitlines()
    assert markdown[0] == "# Skip baseline (simp_skip): metrics against the drop probability"
    assert "; 2 seeds per p (1..2), scored" in markdown[2]


# --- the sweep figure -------------------------------------------------------------------------------------------

def test_the_sweep_figure_draws_mean_and_sd_as_read_from_its_results():
    """Two seeds per p: SARI 20 ± 1.4142 at p = 0 (19, 21), 30 ± 2.8284 at p = 1 (28, 32). The axis must show
    both ends of the error bars (18.59 below, 32.83 above), a metric without a label keeps its own name, and with
    no published point no star is drawn."""
    results = {0.0: {"sari": [19.0, 21.0], "len": [5.0, 5.0]}, 1.0: {"sari": [28.0, 32.0], "len": [0.0, 0.0]}}
    fig = sweep_figure("simp_skip", results, None)
    sari, length = [ax for ax in fig.axes if ax.get_visible()]
    assert (sari.get_title(), length.get_title()) == ("SARI", "len")
    assert (sari.get_xlabel(), length.get_xlabel()) == ("drop probability p", "drop probability p")
    assert (sari.get_ylabel(), length.get_ylabel()) == ("score on the test set", "")
    assert fig._suptitle.get_text() == "Skip baseline (simp_skip): mean ± sd over 2 seeds per p"
    [container] = sari.containers
    line, caps, (bars,) = container
    assert list(line.get_ydata()) == [20.0, 30.0]
    ends = [value for segment in bars.get_segments() for value in segment[:, 1]]
    assert ends == pytest.approx([20 - 2 ** 0.5, 20 + 2 ** 0.5, 30 - 8 ** 0.5, 30 + 8 ** 0.5])
    assert container.get_label() == "standard scoring" and line.get_markersize() == 4
    assert caps[0].get_markersize() == 6  # capsize 3: matplotlib draws a cap 2 × capsize points wide
    low, high = sari.get_ylim()
    assert low < 20 - 2 ** 0.5 and high > 30 + 8 ** 0.5
    assert not any(line.get_marker() == "*" for ax in fig.axes for line in ax.lines)
    assert fig.get_size_inches()[1] == pytest.approx(2.8 + 0.9)  # one row of panels 2.8 in high, 0.9 in for text


def test_the_sweep_figures_published_star_and_legend():
    from matplotlib.colors import to_rgba

    results = {p: {"sari": [20.0 + p], "sari_003": [19.0 + p]} for p in (0.0, 1.0)}
    fig = sweep_figure("simp_skip", results, (0.5, {"sari": 21.62}))
    [star] = [line for line in fig.axes[0].lines if line.get_marker() == "*"]
    assert (star.get_linestyle(), star.get_markersize(), to_rgba(star.get_color())) == ("None", 12, (0, 0, 0, 1))
    dashed = [c[0] for c in fig.axes[0].containers if c.get_label() == "003's protocol"]
    assert len(dashed) == 1 and dashed[0].get_linestyle() != "-"
    legend = fig.legends[0]
    assert sorted(t.get_text() for t in legend.get_texts()) == ["003 Table 1 (p = 0.5)", "003's protocol",
                                                                "standard scoring"]
    assert legend._ncols == 3


# --- the rule reader's messages ---------------------------------------------------------------------------------

def test_a_rule_line_not_in_utf8_is_named_with_its_line_and_byte(tmp_path):
    path = tmp_path / "rules.tsv"
    path.write_bytes(b"a\tb\nc\t\xffd\n")
    with pytest.raises(RuleError) as error:
        list(read_rules(path, "pairs"))
    assert str(error.value) == f"{path}:2: not UTF-8 text (invalid start byte at byte 2 of the line)"


def test_a_long_bad_rule_line_is_quoted_to_200_characters(tmp_path):
    path = tmp_path / "rules.tsv"
    line = "x" * 300
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(RuleError) as error:
        list(read_rules(path, "pairs"))
    assert str(error.value).endswith(f" (pairs format): {'x' * 200!r}")


def test_only_the_line_break_is_stripped_from_a_rule(tmp_path):
    path = tmp_path / "rules.tsv"
    path.write_bytes(b"tax\tlevyX\r\n")
    [rule] = read_rules(path, "pairs")
    assert (rule.complex, rule.simple) == (("tax",), ("levyX",))


@pytest.mark.parametrize("blank, listed", [
    (10, "1, 2, 3, 4, 5, 6, 7, 8, 9, 10"),
    (11, "1, 2, 3, 4, 5, 6, 7, 8, 9, 10 ..."),
    (12, "1, 2, 3, 4, 5, 6, 7, 8, 9, 10 ..."),
])
def test_skipped_rules_are_counted_and_their_first_ten_lines_listed(tmp_path, caplog, blank, listed):
    path = tmp_path / "rules.tsv"
    path.write_text("a\t \n" * blank + "c\td\n", encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="paragen.simplification.ppdb"):
        rules = list(read_rules(path, "pairs"))
    assert [(r.complex, r.simple) for r in rules] == [(("c",), ("d",))]
    assert caplog.messages == [f"{path}: {blank} rule(s) skipped, a side with no token once split on whitespace "
                               f"(lines {listed})"]


def test_a_one_word_rule_applies_where_a_two_word_rule_sets_the_longest_match():
    """With a two-word rule the lookup tries lengths 2 then 1 at each position; stepping by 2 would try only "c a"
    at the start and skip the one-word rule "c" -> "d". Expected by hand: "c a b" -> "d x"."""
    from paragen.simplification.paraphrase import Paraphraser
    from paragen.simplification.ppdb import Rule

    paraphraser = Paraphraser([Rule(("a", "b"), ("x",), 1.0), Rule(("c",), ("d",), 1.0)])
    assert paraphraser.apply(["c", "a", "b"]) == ["d", "x"]
