"""End to end on the tiny configuration: the real CLI, the real Snakefile and `dvc repro`."""

import base64
import csv
import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from paragen.config import load_config
from paragen.pipeline.dvc import write_dvc_yaml

from conftest import MIRROR, ROOT, copy_workflow

pytestmark = pytest.mark.e2e

ENV = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
RESULTS = ["results/tables/copynet_synthetic.md", "results/tables/copynet_synthetic.csv",
           "results/tables/copynet_synthetic.tex", "results/tables/copynet_synthetic_comparisons.csv",
           "results/tables/copynet_synthetic.html", "results/tables/copynet_synthetic_examples.json",
           "results/tables/copynet_synthetic_examples.md", "results/figures/copynet_synthetic_valid_curves.png",
           "results/figures/copynet_synthetic_copy_heatmap.png", "results/figures/copynet_synthetic_loss_curves.png",
           "results/figures/copynet_synthetic_type_curves.png",
           "results/REPORT.md",
           "results/metrics/t_copynet.json", "results/metrics/t_copynet.headline.json"]


def run(args, cwd, check=True):
    result = subprocess.run(args, cwd=cwd, env=ENV, capture_output=True, text=True)
    if check and result.returncode != 0:
        raise AssertionError(f"{args} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return result


def change_copynet_hidden_size(directory: Path) -> None:
    params = directory / "params.yaml"
    text = params.read_text()
    assert "copynet: {architecture: copynet, embedding_size: 8, hidden_size: 16}" in text
    params.write_text(text.replace("copynet: {architecture: copynet, embedding_size: 8, hidden_size: 16}",
                                   "copynet: {architecture: copynet, embedding_size: 8, hidden_size: 20}"))


def check_results(directory: Path) -> None:
    for path in RESULTS:
        assert (directory / path).stat().st_size > 0, path
    rows = list(csv.DictReader(open(directory / "results/tables/copynet_synthetic.csv")))
    assert {r["row"] for r in rows} == {"Enc-Dec", "CopyNet", "WEAN"} and len(rows) == 15
    assert all(r["reproduced"] != "" for r in rows)  # every cell comes from a run
    assert all(r["paper"] == "" for r in rows if r["row"] == "WEAN")
    report = (directory / "results/REPORT.md").read_text()
    assert "copynet_synthetic_copy_heatmap.png" in report and "| CopyNet |" in report
    assert "copynet_synthetic_type_curves.png" in report
    # issue 67: with 1 rule a type no cell shows a rule-resampling interval, and the caption says why; issue 25:
    # the caption names the closest epochs
    assert "ci95_low" not in rows[0]
    table = (directory / "results/tables/copynet_synthetic.md").read_text()
    assert "No cell shows an interval from resampling rules: 1 rule a type, fewer than the 20" in table
    assert "closest to the paper's row" in table and "CopyNet epoch" in table
    stats = json.loads((directory / "data/prepared/tiny/generation.json").read_text())
    assert all(stats["by_type"][t]["ambiguous_rules"] == 0 for t in stats["by_type"])


def test_snakemake_reports_a_yaml_mistake_with_paragens_message(workflow_dir):
    params = workflow_dir / "params.yaml"
    lines = params.read_text().splitlines()
    number = next(i for i, line in enumerate(lines) if line.startswith("suites:"))
    lines[number] = "suites: [synthetic"
    params.write_text("\n".join(lines) + "\n")
    result = run(["snakemake", "--cores", "1", "--dry-run"], workflow_dir, check=False)
    assert result.returncode != 0
    assert "paragen: params.yaml:" in result.stderr and "not valid YAML: expected ',' or ']'" in result.stderr
    assert f"flow sequence that starts at line {number + 1}, column 9" in result.stderr
    assert "Traceback" not in result.stderr and "not valid JSON or YAML" not in result.stderr


@pytest.fixture(scope="module")
def snakemake_tiny(tmp_path_factory) -> Path:
    """The tiny configuration run once by the real Snakefile in a git + DVC repository, for the tests below (the
    last of them edits params.yaml and puts it back)."""
    directory = copy_workflow(tmp_path_factory.mktemp("snakemake"))
    run(["git", "init", "-q"], directory)
    run(["dvc", "init", "-q"], directory)
    write_dvc_yaml(load_config(directory / "params.yaml"), directory / "dvc.yaml")
    run(["snakemake", "--cores", "2"], directory)
    return directory


def test_snakemake_runs_everything_then_nothing(snakemake_tiny):
    check_results(snakemake_tiny)
    again = run(["snakemake", "--cores", "2", "--dry-run"], snakemake_tiny)
    assert "Nothing to be done" in again.stdout + again.stderr
    # recording into dvc.lock again (what onsuccess does) leaves every output's time as it was (issue 24: DVC's
    # re-linking gave them new times, in DVC's order, and the next run planned finished jobs again)
    outputs = [p for p in (snakemake_tiny / "runs").rglob("*") if p.is_file() and "resume" not in p.parts]
    outputs += [p for p in (snakemake_tiny / "results").rglob("*") if p.is_file()]
    before = {p: p.stat().st_mtime_ns for p in outputs}
    run(["paragen", "dvc-commit"], snakemake_tiny)
    assert {p: p.stat().st_mtime_ns for p in outputs} == before
    again = run(["snakemake", "--cores", "2", "--dry-run"], snakemake_tiny)
    assert "Nothing to be done" in again.stdout + again.stderr
    # the Snakefile recorded its outputs into dvc.lock: a user switching to DVC retrains nothing
    assert "up to date" in run(["dvc", "status"], snakemake_tiny).stdout


def report_contents(path: Path) -> tuple[dict, dict]:
    """(results, categories) as a Snakemake HTML report embeds them: JSON in its `var results = ...` and
    `var categories = ...` script lines."""
    text = path.read_text(encoding="utf-8")
    decoder = json.JSONDecoder()
    return tuple(decoder.raw_decode(text, re.search(rf"var {name} = (?=\{{)", text).end())[0]
                 for name in ("results", "categories"))


def test_snakemake_report_shows_every_table_and_figure_with_its_caption(snakemake_tiny):
    run(["snakemake", "--report", "report.html"], snakemake_tiny)
    results, categories = report_contents(snakemake_tiny / "report.html")
    written = {str(p.relative_to(snakemake_tiny)) for p in (snakemake_tiny / "results").glob("*/*")
               if p.parent.name in ("tables", "figures") and not p.name.startswith(".")}  # not lock files
    assert written == {p for p in RESULTS if p.startswith(("results/tables/", "results/figures/"))}
    assert set(results) == written  # every table and figure, each once
    assert list(categories) == ["CopyNet (Gu et al., 2016)"]  # the tiny table fills CopyNet Table 1
    assert {p for paths in categories["CopyNet (Gu et al., 2016)"].values() for p in paths} == written
    assert list(categories["CopyNet (Gu et al., 2016)"]) == ["tiny test table"]  # its title, from params.yaml
    for path, entry in results.items():
        embedded = base64.b64decode(entry["data_uri"].split(";base64,", 1)[1])
        assert embedded == (snakemake_tiny / path).read_bytes(), path  # self-contained: the file itself
        caption = html.unescape(re.sub(r"<[^>]+>", "", entry["caption"]))
        assert caption.startswith("tiny test table. "), (path, caption)
    caption = {path: html.unescape(entry["caption"]) for path, entry in results.items()}
    assert "Exact-match test accuracy (%). Published numbers: Gu et al. (2016), CopyNet, Table 1." in \
        caption["results/tables/copynet_synthetic.md"]
    assert "validation exact-match accuracy (%) after each training epoch, one line per trained row (Enc-Dec, " \
        "CopyNet, WEAN)" in caption["results/figures/copynet_synthetic_valid_curves.png"]
    assert "Copy-mode heat map of CopyNet" in caption["results/figures/copynet_synthetic_copy_heatmap.png"]


def test_snakemake_reruns_only_what_a_changed_hyperparameter_touches(snakemake_tiny):
    params = snakemake_tiny / "params.yaml"
    original = params.read_text()
    try:
        change_copynet_hidden_size(snakemake_tiny)
        planned = run(["snakemake", "--cores", "2", "--dry-run"], snakemake_tiny).stdout
    finally:
        params.write_text(original)
    jobs = set(re.findall(r"^(?:local)?rule (\w+):", planned, flags=re.M))
    assert jobs == {"train_t_copynet", "decode_t_copynet", "score_t_copynet", "compare_t_copynet_vs_t_encdec",
                    "report_copynet_synthetic", "index", "all"}


def test_more_seeds_train_only_the_new_replicas_and_cells_become_mean_and_sd(workflow_dir):
    """One seed, then `--config seeds=2`: seed 1's runs are reused (only the seed-2 replicas train), each cell is
    the mean of the two seeds with the per-seed values in the CSV, and the bootstrap test runs per seed."""
    run(["snakemake", "--cores", "2"], workflow_dir)
    single = {(r["row"], r["column"]): r["reproduced"]
              for r in csv.DictReader(open(workflow_dir / "results/tables/copynet_synthetic.csv"))}
    planned = run(["snakemake", "--cores", "2", "--dry-run", "--config", "seeds=2"], workflow_dir).stdout
    jobs = set(re.findall(r"^(?:local)?rule (\w+):", planned, flags=re.M))
    assert {j for j in jobs if j.startswith("train_")} == {"train_t_encdec_seed2", "train_t_copynet_seed2",
                                                            "train_t_wean_seed2"}
    run(["snakemake", "--cores", "2", "--config", "seeds=2"], workflow_dir)
    rows = list(csv.DictReader(open(workflow_dir / "results/tables/copynet_synthetic.csv")))
    assert len(rows) == 15
    for row in rows:
        first, second = (float(v) for v in row["per_seed"].split(";"))
        assert row["seeds"] == "1;2" and first == float(single[(row["row"], row["column"])])  # the CSV is exact
        assert float(row["reproduced"]) == pytest.approx((first + second) / 2, abs=0.006)
        assert float(row["sd"]) == pytest.approx(abs(first - second) / 2 ** 0.5, abs=0.006)
        assert len(row["best_epoch"].split(";")) == 2
    table = (workflow_dir / "results/tables/copynet_synthetic.md").read_text()
    assert " ± " in table and "- CopyNet (seed 2): best epoch" in table
    # rule data: the sign-flip test over the 5 rules, per seed, each p beside its floor 1/32 (and the floor its tied
    # rules leave, where some are tied); no line bootstrap
    assert re.search(r"CopyNet vs Enc-Dec \(sign-flip test over the test rules.*seed 1: all types: .*exact p = [\d.]+ "
                     r"\(smallest possible with 5 rules: 0\.03125(, with [1-5] tied: [\d.]+)?\).*; seed 2: all "
                     r"types: .*exact p = [\d.]+ \(smallest possible with 5 rules: 0\.03125(, with [1-5] tied: "
                     r"[\d.]+)?\)", table)
    assert "resampling lines" not in table
    assert (workflow_dir / "results/metrics/t_copynet_seed2.vs.t_encdec_seed2.json").exists()


def test_dvc_repro_runs_everything_then_nothing_then_only_what_changed(workflow_dir):
    run(["git", "init", "-q"], workflow_dir)
    run(["dvc", "init", "-q"], workflow_dir)
    write_dvc_yaml(load_config(workflow_dir / "params.yaml"), workflow_dir / "dvc.yaml")
    run(["dvc", "repro"], workflow_dir)
    check_results(workflow_dir)
    assert "up to date" in run(["dvc", "status"], workflow_dir).stdout
    again = run(["dvc", "repro"], workflow_dir).stdout
    assert "Running stage" not in again
    header = run(["dvc", "metrics", "show"], workflow_dir).stdout.splitlines()[0].split()
    assert header == ["Path", "count", "exact"], header  # headline numbers; per-rule details stay in <exp>.json
    plots = json.loads(run(["dvc", "plots", "show", "--json"], workflow_dir).stdout)["data"]
    assert list(plots) == ["copynet_synthetic_valid_curves"]  # one plot per table, every row's curve in it
    files = {row["filename"] for row in plots["copynet_synthetic_valid_curves"][0]["content"]["data"]["values"]}
    assert len(files) == 3, files
    check_rendered_plots(workflow_dir)

    change_copynet_hidden_size(workflow_dir)
    status = run(["dvc", "status"], workflow_dir).stdout
    changed = set(re.findall(r"^(\w+):", status, flags=re.M))
    assert changed == {"train_t_copynet"}, status
    assert re.search(r"modified:\s+models.copynet$", status, flags=re.M), status


def test_dvc_push_then_a_fresh_clone_pulls_and_rebuilds_nothing(tmp_path):
    """A directory remote: repro and push here; a clone of the commit pulls data/ and runs/ and is up to date."""
    origin = copy_workflow(tmp_path / "origin")
    remote = tmp_path / "remote"
    run(["git", "init", "-q"], origin)
    run(["dvc", "init", "-q"], origin)
    run(["dvc", "remote", "add", "--default", "store", str(remote)], origin)
    write_dvc_yaml(load_config(origin / "params.yaml"), origin / "dvc.yaml")
    run(["dvc", "repro"], origin)
    run(["git", "add", "--all"], origin)
    run(["git", "-c", "user.name=paragen", "-c", "user.email=paragen@localhost", "commit", "-q", "-m", "tiny"], origin)
    pushed = run(["dvc", "push"], origin).stdout
    assert re.search(r"^\d+ files? pushed", pushed, flags=re.M), pushed
    assert not run(["git", "status", "--porcelain"], origin).stdout  # the commit holds all DVC needs

    clone = tmp_path / "clone"
    run(["git", "clone", "-q", str(origin), str(clone)], tmp_path)
    cached = ("runs/t_copynet/best.pt", "runs/t_wean/test.nbest.jsonl", "data/prepared/tiny/train.src",
              "data/vocab/tiny.txt")
    assert not any((clone / path).exists() for path in cached) and not (clone / ".dvc" / "cache").exists()
    run(["dvc", "pull"], clone)
    for path in cached:
        assert (clone / path).read_bytes() == (origin / path).read_bytes(), path
    assert "Data and pipelines are up to date." in run(["dvc", "status"], clone).stdout
    rerun = run(["dvc", "repro"], clone).stdout
    assert "Running stage" not in rerun and "didn't change, skipping" in rerun, rerun
    check_results(clone)


def check_rendered_plots(directory: Path) -> None:
    """`dvc plots show` renders every experiment's validation curve: each run's per-epoch values, as its
    train_log.csv holds them, are in the page's Vega-Lite data."""
    run(["dvc", "plots", "show", "-o", "rendered_plots"], directory)
    page = (directory / "rendered_plots" / "index.html").read_text(encoding="utf-8")
    specs = re.findall(r"var spec = (\{.*\});\n", page)
    assert len(specs) == 1, page[:2000]  # the tiny table's plot
    values = json.loads(specs[0])["data"]["values"]
    for experiment in ("t_encdec", "t_copynet", "t_wean"):
        log = list(csv.DictReader(open(directory / "runs" / experiment / "train_log.csv")))
        drawn = [(v["epoch"], v["valid_metric"]) for v in values if v["filename"].split("/")[-2] == experiment]
        assert drawn == [(r["epoch"], r["valid_metric"]) for r in log] and drawn, (experiment, drawn)


def test_generate_refuses_a_real_dataset(tmp_path):
    from paragen.cli import main

    params = (Path(__file__).parent / "fixtures/tiny_params.yaml").read_text()
    params = params.replace("datasets:\n", "datasets:\n  turk_mini: {kind: real, fetch: [turkcorpus], "
                            "splits: [test]}\n", 1)
    (tmp_path / "params.yaml").write_text(params)
    assert main(["generate", "--params", str(tmp_path / "params.yaml"), "--dataset", "turk_mini"]) == 2


def test_cli_rejects_bad_params_with_the_key(tmp_path):
    (tmp_path / "params.yaml").write_text((Path(__file__).parent / "fixtures/tiny_params.yaml").read_text()
                                          .replace("beam_size: 3", "beam_size: 0"))
    result = run(["paragen", "generate", "--dataset", "tiny"], tmp_path, check=False)
    assert result.returncode == 2
    assert "decoding.beam3.beam_size" in result.stderr
    assert not (tmp_path / "data").exists()



@pytest.mark.skipif(not (MIRROR / "turkcorpus").is_dir(), reason=f"public-data mirror not found at {MIRROR}")
def test_real_data_stages_under_both_engines(workflow_dir):
    """fetch -> prepare -> segment -> vocab -> datasets table for turk-mini, from the mirror."""
    params = (workflow_dir / "params.yaml").read_text()
    params += (f"data: [turk_mini]\nmirrors: [{MIRROR}]\n")
    params = params.replace("datasets:\n", "datasets:\n  turk_mini: {kind: real, fetch: [turkcorpus, asset], "
                            "fetch_scope: eval, splits: [train, valid, test], vocab_size: 5000}\n", 1)
    (workflow_dir / "params.yaml").write_text(params)
    targets = ["results/tables/datasets.md", "data/vocab/turk_mini.word/vocab.txt"]
    run(["snakemake", "--cores", "2", *targets], workflow_dir)
    table = (workflow_dir / "results/tables/datasets.md").read_text()
    assert "| turk_mini | train | 32,400 |" in table and "NOT the papers' setup" in table
    assert len((workflow_dir / "data/vocab/turk_mini.word/vocab.txt").read_text().splitlines()) == 5000 + 4
    assert "Nothing to be done" in run(["snakemake", "--cores", "2", "--dry-run", *targets], workflow_dir).stdout

    for path in ("data", "results", ".snakemake"):
        subprocess.run(["rm", "-rf", str(workflow_dir / path)], check=True)
    run(["git", "init", "-q"], workflow_dir)
    run(["dvc", "init", "-q"], workflow_dir)
    write_dvc_yaml(load_config(workflow_dir / "params.yaml"), workflow_dir / "dvc.yaml")
    run(["dvc", "repro", "datasets_table", "vocab_turk_mini"], workflow_dir)
    assert "| turk_mini | test | 359 |" in (workflow_dir / "results/tables/datasets.md").read_text()


@pytest.mark.skipif(not (MIRROR / "ppdb").is_dir(), reason=f"public-data mirror not found at {MIRROR}")
def test_rows_without_training_through_the_real_snakefile(workflow_dir):
    """003's identity, PPDB paraphrase and oracle rows: fetch -> prepare -> system -> evaluate -> table, from the mirror."""
    import yaml

    raw = yaml.safe_load((workflow_dir / "params.yaml").read_text())
    project = yaml.safe_load((ROOT / "params.yaml").read_text())
    raw["datasets"]["turk"] = project["datasets"]["turk"]
    raw["rules"] = project["rules"]
    raw["systems"] = {name: project["systems"][name] for name in ("simp_identity", "simp_ppdb_word", "simp_oracle")}
    raw["tables"]["simplification"] = {**project["tables"]["simplification"], "not_comparable": {}, "rows": {
        "identity": "simp_identity", "paraphrase (word)": "simp_ppdb_word", "oracle": "simp_oracle"}}
    raw.update(suites=["simplification"], data=["turk"], mirrors=[str(MIRROR)])
    (workflow_dir / "params.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
    committed = workflow_dir / "results/tables/published_outputs.csv"  # the table's SBMT-SARI row reads it
    committed.parent.mkdir(parents=True)
    committed.write_text((ROOT / "results/tables/published_outputs.csv").read_text())
    run(["snakemake", "--cores", "2", "results/tables/simplification.md"], workflow_dir)
    table = (workflow_dir / "results/tables/simplification.md").read_text()
    oracle = next(line for line in table.splitlines() if line.startswith("| oracle |"))
    # standard columns: leave-one-out (never a reference against itself); 003's protocol: the .simp sentence
    assert "| 91.15 / 73.19 (-17.96) |" in oracle and oracle.endswith("| 91.15 / 100.00 (+8.85) |")
    identity = next(line for line in table.splitlines() if line.startswith("| identity |"))
    assert "not run" not in identity and "—" not in identity.split("|")[2]
    assert "PPDB 1.0 XXXL lexical synonym pairs" in table and "Test sentences: 359." in table
    assert "| 25.95 / 25.93 (-0.02) | 61.47 / 61.47 (+0.00) |" in identity  # 003's protocol gives it back
    assert "Nothing to be done" in run(["snakemake", "--cores", "2", "--dry-run",
                                        "results/tables/simplification.md"], workflow_dir).stdout
