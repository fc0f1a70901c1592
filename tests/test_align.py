"""``paragen align``: alignment accuracy and heat-map matrices from files, worked by hand on a scripted model.

The scripted model (tests/scripted.py) attends at step t fully to source position (t + 1) mod length and its
SPM head puts all of q_t on the word ``ids[t]``. With ids = (<unk>, c2, f1) and these pairs:

    line  source          target     gold       attention (step 0, 1)   q words (step 0, 1)
    1     c1 f1 c2        c1 c2      0-0 2-1    1 x, 2 ok              <unk> x (gold c1), c2 ok
    2     f1 c3           c3 f1      1-0 0-1    1 ok, 0 ok             <unk> x (gold c3), c2 x (gold f1)
    3     c9 c1           c9         0-0        1 x                    <unk> ok (c9 is outside the vocabulary)
    4     f1 c1           c1         (none)     not counted            not counted

attention is right on 3 of 5 gold links (60 %), q_t on 2 of 5 (40 %).
"""

from __future__ import annotations

import json

import pytest

from paragen.decoding.align import align_corpus
from paragen.cli import main
from paragen.data.corpus import ParallelCorpus

from conftest import TINY_PARAMS
from scripted import ALIGN_VOCAB, ScriptedAligner

SOURCES = ["c1 f1 c2", "f1 c3", "c9 c1", "f1 c1"]
TARGETS = ["c1 c2", "c3 f1", "c9", "c1"]
GOLD = ["0-0 2-1", "1-0 0-1", "0-0", ""]
IDS = ["<unk>", "c2", "f1"]


def corpus() -> ParallelCorpus:
    return ParallelCorpus([s.split() for s in SOURCES], [t.split() for t in TARGETS])


def gold_links():
    return [[tuple(map(int, link.split("-"))) for link in line.split()] for line in GOLD]


def test_accuracy_and_matrices_by_hand():
    output = align_corpus(ScriptedAligner(IDS), ALIGN_VOCAB, corpus(), gold_links(), [3], batch_size=3)
    accuracy, examples = output.accuracy, output.examples
    assert accuracy["pairs"] == 4 and accuracy["gold_links"] == 5
    assert (accuracy["attention"]["correct"], accuracy["attention"]["total"]) == (3, 5)
    assert accuracy["attention"]["accuracy"] == pytest.approx(60.0)
    assert (accuracy["source_prediction"]["correct"], accuracy["source_prediction"]["total"]) == (2, 5)
    assert accuracy["source_prediction"]["accuracy"] == pytest.approx(40.0)
    (example,) = examples
    # line 3: step 0 attends to position 1; q_0 is all on <unk>, which is how the encoder reads c9 (column 0)
    assert example == {"line": 3, "source": ["c9", "c1"], "target": ["c9"], "gold": [[0, 0]],
                       "attention": [[0.0, 1.0]], "attention_argmax": [1],
                       "source_prediction": [[1.0, 0.0]], "spm_words": ["<unk>"]}


def test_without_gold_only_the_chosen_lines_run():
    output = align_corpus(ScriptedAligner(IDS), ALIGN_VOCAB, corpus(), None, [2, 1])
    accuracy, examples = output.accuracy, output.examples
    assert accuracy is None and output.pairs is None
    assert [e["line"] for e in examples] == [2, 1]
    # line 2 alone in its batch: steps 0 and 1 attend to positions 1 and 0
    assert examples[0]["attention"] == [[0.0, 1.0], [1.0, 0.0]] and examples[0]["gold"] is None
    assert examples[1]["attention_argmax"] == [1, 2]


HEADLINE_PARAMS = """
  hs: {kind: headline_synthetic, train_pairs: 4, valid_pairs: 4, test_pairs: 4}
"""


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """A project with a headline_synthetic experiment whose test split is the table above; the checkpoint is
    replaced by the scripted model."""
    text = TINY_PARAMS.read_text().replace("\ndatasets:\n", "\ndatasets:" + HEADLINE_PARAMS)
    text = text.replace("\nexperiments:\n", "\nexperiments:\n  h_encdec: {dataset: hs, model: encdec, training: tiny, "
                        "decoding: beam3}\n")
    (tmp_path / "params.yaml").write_text(text)
    data = tmp_path / "data" / "prepared" / "hs"
    data.mkdir(parents=True)
    for suffix, lines in (("src", SOURCES), ("tgt", TARGETS), ("align", GOLD)):
        (data / f"test.{suffix}").write_text("\n".join(lines) + "\n")
    (tmp_path / "data" / "vocab").mkdir()
    (tmp_path / "data" / "vocab" / "hs.txt").write_text("\n".join(ALIGN_VOCAB.itos) + "\n")
    (tmp_path / "runs" / "h_encdec").mkdir(parents=True)
    (tmp_path / "runs" / "h_encdec" / "best.pt").write_bytes(b"")
    import paragen.training.checkpoint

    monkeypatch.setattr(paragen.training.checkpoint, "load_model", lambda path, device: (ScriptedAligner(IDS), {}))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_cli_writes_accuracy_and_matrices(workdir, capsys):
    assert main(["align", "--experiment", "h_encdec", "--gold", "data/prepared/hs/test.align", "--out", "acc.json",
                 "--sentences", "3", "--matrices", "mat.json"]) == 0
    result = json.loads((workdir / "acc.json").read_text())
    assert result["attention"]["accuracy"] == pytest.approx(60.0)
    assert result["source_prediction"]["accuracy"] == pytest.approx(40.0)
    assert (result["experiment"], result["split"], result["gold"]) == ("h_encdec", "test", "data/prepared/hs/test.align")
    matrices = json.loads((workdir / "mat.json").read_text())
    assert matrices["sentences"][0]["source_prediction"] == [[1.0, 0.0]]
    assert "attention 60.00, source-side prediction 40.00" in capsys.readouterr().out


@pytest.mark.parametrize("gold, message", [
    (["0-0 2-1", "1-0 x", "0-0", ""], "test.align:2: expected links like 3-0"),
    (["0-0 2-2", "1-0 0-1", "0-0", ""], "test.align:1: link 2-2 points past the target (2 tokens)"),
    (["0-0 2-1", "1-0 5-1", "0-0", ""], "test.align:2: link 5-1 points past the source (2 tokens)"),
    (["0-0 1-0", "1-0 0-1", "0-0", ""], "test.align:1: target position 0 has two gold links (0-0 and 1-0)"),
    (["0-0 2-1", "1-0 0-1", "0-0"], "test.align has 3 lines but data/prepared/hs/test.src has 4"),
])
def test_bad_gold_links_name_the_file_and_line(workdir, capsys, gold, message):
    (workdir / "data/prepared/hs/test.align").write_text("\n".join(gold) + "\n")
    assert main(["align", "--experiment", "h_encdec", "--gold", "data/prepared/hs/test.align", "--out", "a.json"]) == 2
    assert message in capsys.readouterr().err
    assert not (workdir / "a.json").exists()


@pytest.mark.parametrize("arguments, message", [
    (["--out", "a.json"], "needs the gold links: give --gold FILE"),
    (["--sentences", "1"], "--sentences and --matrices go together"),
    ([], "nothing to write"),
    (["--sentences", "5", "--matrices", "m.json"], "line 5 is not in data/prepared/hs/test.src (lines 1 to 4)"),
    (["--gold", "missing.align", "--out", "a.json"], "missing.align: file not found"),
    (["--split", "valid", "--sentences", "1", "--matrices", "m.json"], "data/prepared/hs/valid.src: file not found"),
])
def test_bad_requests_are_refused_with_what_to_do(workdir, capsys, arguments, message):
    assert main(["align", "--experiment", "h_encdec", *arguments]) == 2
    assert message in capsys.readouterr().err


def test_line_numbers_must_be_whole_and_positive(workdir, capsys):
    with pytest.raises(SystemExit):
        main(["align", "--experiment", "h_encdec", "--sentences", "1,x", "--matrices", "m.json"])
    assert "expected comma-separated line numbers" in capsys.readouterr().err


def test_aligned_pairs_group_by_hand():
    from paragen.metrics.aligned_pairs import grouped_pairs

    targets = [["calls", "quake", "eu", "tourists"], ["calls", "x", "win"]]
    aligned = [["called", "earthquake", "eu", "people"], ["called", "y", "won"]]
    assert grouped_pairs(targets, aligned) == {
        "identical": [["eu", "eu", 1]],
        "inflection": [["calls", "called", 2]],  # Porter: call / call
        "shorter": [["quake", "earthquake", 1]],  # 5 < 10 characters
        "others": [["tourists", "people", 1], ["win", "won", 1], ["x", "y", 1]],  # win/won: a stem misses it
    }
    with pytest.raises(ValueError, match="pair 2: 3 target tokens but 2 aligned words"):
        grouped_pairs(targets, [aligned[0], ["called", "y"]])


def test_pair_sample_is_seeded_and_capped_at_the_split():
    import random

    from paragen.metrics.aligned_pairs import sample_indices

    assert sample_indices(5, 10, 1) == [0, 1, 2, 3, 4]
    assert sample_indices(100, 3, 7) == sorted(random.Random(7).sample(range(100), 3))


def test_aligned_pairs_of_chosen_pairs_on_the_scripted_model():
    # lines 1 and 2: targets c1 c2 / c3 f1; q_0 says <unk>, q_1 says c2
    output = align_corpus(ScriptedAligner(IDS), ALIGN_VOCAB, corpus(), None, pair_indices=[0, 1])
    assert output.pairs == {"pairs": 2, "tokens": 4, "groups": {
        "identical": [["c2", "c2", 1]], "inflection": [],
        "shorter": [["c1", "<unk>", 1], ["c3", "<unk>", 1]], "others": [["f1", "c2", 1]]}}


def test_cli_writes_the_pairs_of_a_sample_and_refuses_a_model_without_spm(workdir, monkeypatch, capsys):
    assert main(["align", "--experiment", "h_encdec", "--pairs", "pairs.json", "--sample", "9", "--seed", "3"]) == 0
    pairs = json.loads((workdir / "pairs.json").read_text())
    assert (pairs["sample"], pairs["seed"], pairs["pairs"], pairs["tokens"]) == (9, 3, 4, 6)  # all 4 lines, 6 tokens

    class WithoutHead(ScriptedAligner):
        source_prediction = None

    import paragen.training.checkpoint

    monkeypatch.setattr(paragen.training.checkpoint, "load_model", lambda path, device: (WithoutHead(IDS), {}))
    assert main(["align", "--experiment", "h_encdec", "--pairs", "p2.json"]) == 2
    assert "this model has no source-side prediction head" in capsys.readouterr().err
