"""Your own data (``kind: local``): files checked with one clear line per fault, then the stages of a real corpus
in both engines, ending in a table of your own (no published numbers)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import ROOT

LOCAL = ROOT / "tests" / "fixtures" / "local"
TEST_SRC_SHA256 = "555842659ed76839b1c0b1438225e9ea5e65fe67a24035ae7fd4da26e7a3a0d9"  # sha256sum, by hand
ENV = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
TABLE = "results/tables/mine.md"


def local_params(directory: Path) -> None:
    """The tiny configuration plus a local dataset ``mine`` (the fixture files under mydata/), two experiments on
    it and a table of its own; its files copied into ``directory``."""
    shutil.copytree(LOCAL, directory / "mydata")
    raw = yaml.safe_load((directory / "params.yaml").read_text())
    raw["datasets"]["mine"] = {
        "kind": "local", "vocab_size": 40, "evaluation": {"metrics": ["bleu", "sari"]},
        "files": {"train": {"source": "mydata/train.src", "target": "mydata/train.tgt"},
                  "valid": {"source": "mydata/valid.src", "target": "mydata/valid.tgt",
                            "references": ["mydata/valid.ref1"]},
                  "test": {"source": {"path": "mydata/test.src", "sha256": TEST_SRC_SHA256},
                           "target": "mydata/test.tgt", "references": ["mydata/test.ref1"]}}}
    raw["experiments"]["m_encdec"] = {"dataset": "mine", "model": "encdec", "training": "tiny", "decoding": "beam3"}
    raw["experiments"]["m_wean"] = {"dataset": "mine", "model": "wean", "training": "tiny", "decoding": "beam3"}
    raw["tables"]["mine"] = {"suite": "mine", "paper": "own", "columns": ["bleu", "sari"],
                             "title": "Enc-Dec vs WEAN on my data", "rows": {"Enc-Dec": "m_encdec", "WEAN": "m_wean"}}
    raw.update(suites=["mine"], data=["mine"])
    (directory / "params.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))


def paragen(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "paragen.cli", *args], cwd=cwd, env=ENV, capture_output=True,
                          text=True)


def prepare_error(directory: Path) -> str:
    """``paragen prepare-local``'s error: exit status 2 and one line on stderr, which is returned."""
    result = paragen(["prepare-local", "--dataset", "mine"], directory)
    assert result.returncode == 2, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert not (directory / "data/prepared/mine/prepare.json").exists()  # nothing half-written
    return lines[0]


@pytest.mark.parametrize("break_it, expected", [
    (lambda d: (d / "mydata/train.src").unlink(),
     "mydata/train.src: file not found (datasets.mine.files.train.source)"),
    (lambda d: (d / "mydata/train.tgt").write_text("".join(f"w{i}\n" for i in range(79))),
     "mydata/train.src has 80 lines but mydata/train.tgt has 79: files must be aligned line by line"),
    (lambda d: (d / "mydata/valid.tgt").write_text(""),
     "mydata/valid.tgt: empty file (datasets.mine.files.valid.target); expected one sentence per line"),
    (lambda d: (d / "mydata/valid.src").write_bytes(b"one\ntwo\nthr\xe9e\n" + b"x\n" * 9),
     "mydata/valid.src:3: not valid UTF-8 (invalid continuation byte at byte 3)"),
    (lambda d: (d / "mydata/test.src").write_text((d / "mydata/test.src").read_text().replace("the", "a", 1)),
     "mydata/test.src: sha256 "),
    (lambda d: (d / "mydata/test.ref1").write_text("".join((d / "mydata/test.ref1").read_text().splitlines(True)[:11])),
     "mydata/test.src has 12 lines but mydata/test.ref1 has 11: files must be aligned line by line"),
], ids=["missing", "misaligned", "empty", "bad-utf8", "digest", "reference-lines"])
def test_each_fault_of_a_local_file_is_one_line_naming_it(workflow_dir, break_it, expected):
    local_params(workflow_dir)
    break_it(workflow_dir)
    line = prepare_error(workflow_dir)
    assert line.startswith("paragen prepare-local: error: ") and expected in line, line
    if expected.endswith("sha256 "):
        assert f"differs from the {TEST_SRC_SHA256} given in datasets.mine.files.test.source.sha256" in line


def test_prepared_local_files_are_the_users_pairs_with_references(workflow_dir):
    local_params(workflow_dir)
    result = paragen(["prepare-local", "--dataset", "mine"], workflow_dir)
    assert result.returncode == 0, result.stderr
    prepared = workflow_dir / "data/prepared/mine"
    assert (prepared / "train.src").read_text() == (LOCAL / "train.src").read_text()
    assert (prepared / "test.ref.0").read_text() == (LOCAL / "test.tgt").read_text()  # the target is reference 0
    assert (prepared / "test.ref.1").read_text() == (LOCAL / "test.ref1").read_text()
    assert not (prepared / "train.ref.0").exists()
    assert "mine test: 12 pairs, 2 reference(s)" in result.stdout


def test_a_local_dataset_is_refused_a_recipes_name_and_a_path_with_wildcards(tiny_config):
    from paragen.config import ConfigError, parse_config

    raw = tiny_config.model_dump(exclude_unset=True)
    files = {s: {"source": f"d/{s}.src", "target": f"d/{s}.tgt"} for s in ("train", "valid", "test")}
    with pytest.raises(ConfigError, match="cannot take the name of the recipe 'pwkp'"):
        parse_config({**raw, "datasets": {**raw["datasets"], "pwkp": {"kind": "local", "files": files}}})
    files["train"]["source"] = "d/my file.src"
    with pytest.raises(ConfigError, match="is not a usable path"):
        parse_config({**raw, "datasets": {**raw["datasets"], "mine": {"kind": "local", "files": files}}})
    files["train"]["source"] = "d/{split}.src"  # refused before the path check reads it: no value holds braces
    with pytest.raises(ConfigError, match="Snakemake would read .* as a wildcard"):
        parse_config({**raw, "datasets": {**raw["datasets"], "mine": {"kind": "local", "files": files}}})
    with pytest.raises(ConfigError, match="a table of your own data"):
        parse_config({**raw, "tables": {**raw["tables"], "mine": {
            "suite": "mine", "paper": "own", "title": "t", "rows": {"A": "t_encdec"}}}})


@pytest.mark.e2e
def test_your_own_data_trains_and_scores_through_snakemake_and_dvc(workflow_dir):
    local_params(workflow_dir)

    def run(args: list[str]) -> subprocess.CompletedProcess:
        result = subprocess.run(args, cwd=workflow_dir, env=ENV, capture_output=True, text=True)
        assert result.returncode == 0, f"{args}:\n{result.stdout}\n{result.stderr}"
        return result

    run(["snakemake", "--cores", "2", TABLE])
    table = (workflow_dir / TABLE).read_text()
    rows = [line for line in table.splitlines() if line.startswith(("| Enc-Dec |", "| WEAN |"))]
    assert len(rows) == 2 and not any("not run" in row or " / " in row for row in rows)  # our numbers alone
    assert "| model | valid BLEU | valid SARI | test BLEU | test SARI |" in table  # every split but train
    assert table.count("no paper reports numbers") == 1  # said once, in the caption
    assert "ROUGE" not in table and "paper / reproduced" not in table
    metrics = yaml.safe_load((workflow_dir / "results/metrics/m_wean.json").read_text())["splits"]
    assert (metrics["test"]["references"], metrics["test"]["count"], metrics["valid"]["count"]) == (2, 12, 12)
    assert "Nothing to be done" in run(["snakemake", "--cores", "2", "--dry-run", TABLE]).stdout
    # a changed file re-runs its dataset's stages, the rows trained on it and the table, and nothing else
    (workflow_dir / "mydata/valid.ref1").write_text((LOCAL / "valid.tgt").read_text())
    dry = run(["snakemake", "--cores", "2", "--dry-run", TABLE]).stdout
    assert {"prepare_mine", "segment_mine", "train_m_wean", "report_mine"} <= set(dry.split())
    (workflow_dir / "mydata/valid.ref1").write_text((LOCAL / "valid.ref1").read_text())

    from paragen.config import load_config
    from paragen.pipeline.dvc import write_dvc_yaml

    for path in ("data", "runs", "results", ".snakemake", "logs"):
        shutil.rmtree(workflow_dir / path, ignore_errors=True)
    run(["git", "init", "-q"])
    run(["dvc", "init", "-q"])
    write_dvc_yaml(load_config(workflow_dir / "params.yaml"), workflow_dir / "dvc.yaml")
    run(["dvc", "repro"])
    assert (workflow_dir / TABLE).read_text() == table  # the same numbers from the other engine
    assert "Data and pipelines are up to date" in run(["dvc", "status"]).stdout
    (workflow_dir / "mydata/train.tgt").write_text((LOCAL / "train.tgt").read_text().replace("cat", "dog"))
    status = run(["dvc", "status"]).stdout
    assert "prepare_mine" in status and "mydata/train.tgt" in status


def test_every_model_of_params_yaml_can_train_on_a_local_dataset(tmp_path):
    """Each model of the project's params.yaml (Seq2seq, WEAN, CopyNet, Transformer, +DMASS, critic losses, EncDec,
    selective gate, SPM), with the training it is declared with, gets train/decode/evaluate stages on ``mine``."""
    from paragen.config import load_config, parse_config
    from paragen.pipeline.plan import build_plan

    raw = load_config(ROOT / "params.yaml").model_dump(exclude_unset=True)
    shutil.copy(ROOT / "tests/fixtures/tiny_params.yaml", tmp_path / "params.yaml")
    local_params(tmp_path)
    mine = yaml.safe_load((tmp_path / "params.yaml").read_text())["datasets"]["mine"]
    pairs = dict.fromkeys((e["model"], e["training"]) for e in raw["experiments"].values())
    raw["datasets"]["mine"] = mine
    raw["tables"] = {}
    for i, (model, training) in enumerate(pairs):  # one table each: their curves select by different metrics
        raw["experiments"][f"own_{i}"] = {"dataset": "mine", "model": model, "training": training, "decoding": "beam5"}
        raw["tables"][f"mine_{i}"] = {"suite": "mine", "paper": "own", "columns": ["bleu", "sari"], "title": "t",
                                      "rows": {f"{model} / {training}": f"own_{i}"}}
    raw.update(suites=["mine"], data=["mine"])
    config = parse_config(raw)
    plan = build_plan(config)
    names = {s.name for s in plan.stages}
    assert all({f"train_own_{i}", f"evaluate_own_{i}"} <= names for i in range(len(pairs))), sorted(names)
    assert all(row.runnable for table in plan.tables.values() for row in table.rows.values())
    built = {(config.models[m].architecture, bool(config.models[m].dmass), bool(config.training[t].critic),
              bool(config.models[m].source_prediction), bool(config.models[m].selective_gate)) for m, t in pairs}
    assert {("wean", False, False, False, False), ("copynet", False, False, False, False),
            ("rnnsearch", False, False, False, False), ("transformer", True, False, False, False),
            ("transformer", False, True, False, False), ("rnnsearch", False, False, True, True),
            ("encdec", False, False, False, False)} <= built, built


def readme_own_data() -> tuple[str, dict[str, dict], str]:
    """README.md's "Train on your own data": the section, the entries it tells a user to add (by params.yaml
    section: its indented lines under "# under KEY:") and the one command it tells them to run."""
    readme = (ROOT / "README.md").read_text()
    start = readme.index("## Train on your own data")
    section = readme[start:readme.index("\n## ", start)]
    indented = [line[4:] for line in section.splitlines() if line.startswith("    ")]
    commands = [line for line in indented if line.startswith("snakemake ")]
    assert len(commands) == 1, commands
    key, blocks = None, {}
    for line in indented:
        if line.startswith("# under "):
            key = line.removeprefix("# under ").rstrip(":")
        elif line not in commands:
            blocks.setdefault(key, []).append(line)
    return section, {key: yaml.safe_load("\n".join(lines)) for key, lines in blocks.items()}, commands[0]


def test_the_readmes_own_data_example_is_a_valid_configuration_with_one_name_per_role():
    """The entries README.md tells a user to add, added to the project's params.yaml with the command's switches,
    give the stages of a local dataset, a small row on it and a table of its own; dataset, experiment, table and
    suite have distinct names, and the command's `suites=[...]` names the table's suite, `data=[...]` the dataset."""
    import shlex

    from paragen.config import load_config, parse_config
    from paragen.pipeline.plan import build_plan

    section, entries, command = readme_own_data()
    assert set(entries) == {"datasets", "experiments", "tables"}
    (dataset,), (experiment,), (table,) = (list(entries[key]) for key in ("datasets", "experiments", "tables"))
    spec, row = entries["tables"][table], entries["experiments"][experiment]
    suite = spec["suite"]
    assert len({dataset, experiment, table, suite}) == 4, (dataset, experiment, table, suite)
    assert row["dataset"] == dataset and list(spec["rows"].values()) == [experiment] and spec["paper"] == "own"
    assert (row["model"], row["training"]) == ("small", "small")  # the CPU preset, not a paper's model
    switches = dict(arg.split("=", 1) for arg in shlex.split(command) if "=" in arg)
    assert switches == {"suites": f"[{suite}]", "data": f"[{dataset}]"}, command
    raw = load_config(ROOT / "params.yaml").model_dump(exclude_unset=True)
    for key, added in entries.items():
        raw[key].update(added)
    raw.update({key: yaml.safe_load(value) for key, value in switches.items()})
    plan = build_plan(parse_config(raw))
    assert {f"prepare_{dataset}", f"segment_{dataset}", f"vocab_{dataset}", f"train_{experiment}",
            f"decode_{experiment}_valid", f"decode_{experiment}_test", f"evaluate_{experiment}",
            f"report_{table}"} <= {s.name for s in plan.stages}
    prepare = next(s for s in plan.stages if s.name == f"prepare_{dataset}")
    assert "mydata/test.ref1" in prepare.deps and prepare.cmd.startswith("paragen prepare-local")
    assert "dvc.lock" in section and "paragen dvc-commit" in section  # what the --config form leaves unrecorded


def test_the_small_preset_is_a_one_layer_bigru_rnnsearch_that_trains_briefly():
    """models.small and training.small (README: a first try on a CPU) are RNNSearch at embedding 64 / hidden 128
    with one layer a side and a few epochs; their parameters at a 1,000-word vocabulary stay within RNNSearch's
    count (Bahdanau et al., 2015) worked out from those sizes, and far below the papers' models'."""
    from paragen.config import load_config
    from paragen.models import build_model

    config = load_config(ROOT / "params.yaml")
    model, training = config.models["small"], config.training["small"]
    assert (model.architecture, model.cell, model.attention, model.bidirectional) == ("rnnsearch", "gru",
                                                                                     "bahdanau", True)
    assert (model.encoder_layers, model.decoder_layers, model.embedding_size, model.hidden_size) == (1, 1, 64, 128)
    assert training.max_epochs <= 10 and training.patience < training.max_epochs
    e, h, v = 64, 128, 1000

    def gru(inputs: int) -> int:  # three gates, each with input and recurrent weights and two biases
        return 3 * (inputs * h + h * h + 2 * h)

    bound = (v * e  # one embedding table for both sides
             + 2 * gru(e)  # the bidirectional encoder
             + gru(e + 2 * h)  # the decoder reads the previous word and the context of both directions
             + h * h + 2 * h * h + h + h  # attention: query and memory projections (bias), the scoring vector
             + 2 * h * h + h  # the decoder's first state from the encoder's
             + 3 * h * h + h + h * v + v)  # the output: [state; context] -> h, then h -> the vocabulary
    count = sum(p.numel() for p in build_model(model, v).parameters())
    assert count <= bound < 700_000
    assert count * 5 < sum(p.numel() for p in build_model(config.models["wean_simp"], v).parameters())


def test_cluster_requests_size_a_local_split_by_its_lines(tmp_path, monkeypatch):
    from paragen.config import load_config
    from paragen.pipeline.resources import UNSEEN_LOCAL_PAIRS, split_pairs

    shutil.copy(ROOT / "tests/fixtures/tiny_params.yaml", tmp_path / "params.yaml")
    local_params(tmp_path)
    monkeypatch.chdir(tmp_path)
    config = load_config("params.yaml")
    assert (split_pairs(config, "mine", "train"), split_pairs(config, "mine", "test")) == (80, 12)  # wc -l
    (tmp_path / "mydata/train.src").unlink()
    assert split_pairs(config, "mine", "train") == UNSEEN_LOCAL_PAIRS
