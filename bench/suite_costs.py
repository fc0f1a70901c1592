"""What each real-data suite costs at its paper's size: data stages measured, a training epoch measured on CPU
and projected for one GPU.

Usage: python bench/suite_costs.py [--write | --check]

Reads the data-stage rehearsal (``results/rehearsal/*.json``, ``bench/rehearse_data.py``), the training
throughput at each paper experiment's own model, batch, vocabulary and lengths (``results/train_speed/cpu.json``,
``bench/train_speed.py --paper``) and params.yaml. Per experiment, one epoch's target tokens are its training
pairs times the dataset's mean target length (``train_speed.MEAN_LENGTHS``); an epoch takes those tokens at the
measured CPU rate, or on one GPU at the rate ``bench/train_speed.py --device cuda --json results/train_speed/FILE``
measured where a file holds the experiment, else at ``paragen.pipeline.resources``' projected GPU rate (a
projection from one measured H100 figure, not a measurement: the SLURM requests use the same rates), plus the
host time to build an epoch's batches measured in the dataset's rehearsal. ``--write`` writes
``results/tables/suite_costs.md`` and the summary block of README.md; ``--check`` fails when either differs
from what the committed measurements give (the test suite runs it); without either, prints the summary.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from paragen.atomic import holds, write_if_changed
from paragen.config import load_config
from paragen.pipeline.resources import (decoder_steps_per_pair, gpu_seconds_per_target_token, measured_gpu_rates,
                                        split_pairs)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from train_speed import MEAN_LENGTHS, PAPER_EXPERIMENTS  # noqa: E402  (a sibling script, not a package)

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "results" / "tables" / "suite_costs.md"
README = ROOT / "README.md"
BEGIN, END = "<!-- suite costs: bench/suite_costs.py --write -->", "<!-- end of suite costs -->"
REHEARSED_AS = {"ew_sew": "ew_sew_hwang", "lcsts_wean": "lcsts_copynet_char"}
"""Datasets whose data stages were rehearsed under another entry: EW-SEW from Hwang et al.'s release (same
pairs scored, 299K kept against Nisioi et al.'s 280K), WEAN's LCSTS characters as CopyNet's (same recipe and
segmentation; a 4,000- instead of a 3,000-character vocabulary)."""


def duration(seconds: float) -> str:
    """Two significant figures at most: the rates move by up to ±20 % between runs (docs/measurements.md)."""
    for unit, size in (("h", 3600), ("min", 60), ("s", 1)):
        if seconds >= size or unit == "s":
            value = seconds / size
            return f"{value:.1f} {unit}" if value < 10 else f"{float(f'{value:.2g}'):.0f} {unit}"
    raise AssertionError("unreachable")


def load(pattern: str) -> list[dict]:
    return [json.loads(path.read_text()) for path in sorted((ROOT / "results").glob(pattern))]


def rehearsal_of(dataset: str, rehearsals: dict[str, dict]) -> dict:
    name = REHEARSED_AS.get(dataset, dataset)
    if name not in rehearsals:
        sys.exit(f"suite_costs: no results/rehearsal/{name}.json for dataset {dataset!r}: run "
                 f"python bench/rehearse_data.py {name} --json results/rehearsal/{name}.json")
    return rehearsals[name]


def batching_seconds(dataset: str, pairs: int, rehearsals: dict[str, dict]) -> float:
    """The host's time to build one epoch's batches: the dataset's own rehearsal, scaled to its pairs."""
    measured = rehearsal_of(dataset, rehearsals)
    wall = next(s["wall_s"] for s in measured["stages"] if s["stage"].startswith("epoch_batches"))
    return wall * pairs / measured["prepared_train_pairs"]


def experiment_rows(config, speeds: dict[str, dict], rehearsals: dict[str, dict], gpu_rates=None) -> list[dict]:
    """One row per measured experiment, in the suites' table order; ``gpu_rates`` (default: the GPU files of
    results/train_speed/) replace the projected GPU epoch by a measured one where they hold the experiment."""
    gpu_rates = measured_gpu_rates(ROOT / "results" / "train_speed") if gpu_rates is None else gpu_rates
    rows = []
    for table in config.tables.values():
        for experiment in table.rows.values():
            if experiment not in speeds or any(r["experiment"] == experiment for r in rows):
                continue
            if speeds[experiment]["train_tokens_per_s"] <= 0:
                sys.exit(f"suite_costs: {experiment}: a training rate of {speeds[experiment]['train_tokens_per_s']}")
            spec = config.experiments[experiment]
            model, training = config.models[spec.model], config.training[spec.training]
            pairs = split_pairs(config, spec.dataset, "train")
            source_length, target_length = MEAN_LENGTHS[spec.dataset]
            tokens = pairs * target_length
            steps = pairs * decoder_steps_per_pair(model, source_length, target_length)
            batching = batching_seconds(spec.dataset, pairs, rehearsals)
            measured, gpu = speeds[experiment], gpu_rates.get(experiment)
            if gpu is not None and (gpu.batch, gpu.architecture) == (training.batch_size, model.architecture):
                gpu_epoch, gpu_basis = pairs * gpu.target_length / gpu.tokens_per_s + batching, "measured"
            else:
                gpu_epoch = steps * gpu_seconds_per_target_token(model, training.batch_size) + batching
                gpu_basis = "projected"
            rows.append({
                "suite": table.suite, "experiment": experiment, "dataset": spec.dataset, "pairs": pairs,
                "vocabulary": measured["vocabulary"], "tokens": tokens, "epochs": training.max_epochs,
                "cpu_rate": measured["train_tokens_per_s"],
                "cpu_epoch": tokens / measured["train_tokens_per_s"] + batching,
                "gpu_epoch": gpu_epoch, "gpu_basis": gpu_basis})
    return rows


def data_cost(dataset: str, rehearsals: dict[str, dict]) -> tuple[float, float]:
    """Wall time summed and peak memory over a dataset's fetch, prepare, segment and vocabulary stages."""
    stages = [s for s in rehearsal_of(dataset, rehearsals)["stages"] if not s["stage"].startswith("epoch_batches")]
    return sum(s["wall_s"] for s in stages), max(s["peak_rss_mb"] for s in stages)


def render(config, rehearsals: dict[str, dict], speeds: dict[str, dict], header: dict) -> tuple[str, str]:
    rows = experiment_rows(config, speeds, rehearsals)
    # a GPU figure is labelled by what it is: "projected" while no GPU file measured it, else per value
    gpu_label = "projected" if all(r["gpu_basis"] == "projected" for r in rows) else "projected unless marked"
    mark = {"projected": "", "measured": " (measured)"} if gpu_label != "projected" else {"projected": ""}
    full = ["# Cost of the real-data suites at the papers' size", "",
            "Made by `python bench/suite_costs.py --write` from `results/rehearsal/*.json` (data stages, measured on "
            "stand-ins of the real size and format) and `results/train_speed/cpu.json` (training throughput, measured "
            f"with `bench/train_speed.py --paper` on {header['device']}, {header['date']}; random words at each "
            "experiment's own model, batch, vocabulary and mean lengths). An epoch's target tokens are the "
            "training pairs times the mean target length. **CPU epoch** = those tokens at the measured rate; "
            "**GPU epoch** = projected by `paragen.pipeline.resources` (7,000 tokens/s per sequential decoder "
            "layer at a batch of 64, the slowest of four models measured once on a shared H100 (7,400) rounded "
            "down, scaled by the batch: the decoder loop is bound by kernel launches, so no FLOP rate enters), "
            "unless marked measured (a GPU file in `results/train_speed/`); a projection is not a measurement, "
            "and for the Transformer, whose teacher-forced decoder has no step loop, an overestimate. The "
            "cluster requests use the same rates. SPM's decoder runs over "
            "the target continued to the source's length (004 Eq. 9), so its projection counts source-length "
            "steps. Both add the host's time to build an epoch's batches, measured in the dataset's rehearsal. "
            "Rates moved by up to ±20 % between runs, hence two significant figures. Data stages of `ew_sew` "
            "were rehearsed as `ew_sew_hwang` and of `lcsts_wean` as `lcsts_copynet_char` (same pairs or recipe). "
            "Not timed separately: WEAN's dot/concat variants and the critic rows (the same models as a timed row; "
            "the critic objective is not in the timed loss).", "",
            "| suite | experiment | dataset | training pairs | vocabulary | target tokens per epoch | CPU tokens/s "
            f"(measured) | CPU epoch | GPU epoch ({gpu_label}) | max epochs |",
            "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        full.append(f"| {r['suite']} | {r['experiment']} | {r['dataset']} | {r['pairs']:,} | {r['vocabulary']:,} | "
                    f"{r['tokens'] / 1e6:.1f} M | {r['cpu_rate']:,.0f} | {duration(r['cpu_epoch'])} | "
                    f"{duration(r['gpu_epoch'])}{mark[r['gpu_basis']]} | {r['epochs']} |")
    summary = ["| suite | dataset (training pairs) | data stages: wall, memory (measured) | "
               f"epoch, 2 CPU cores (measured rate) | epoch, one GPU ({gpu_label}) |",
               "| --- | --- | --- | --- | --- |"]
    for dataset in dict.fromkeys(r["dataset"] for r in rows):
        mine = [r for r in rows if r["dataset"] == dataset]
        wall, peak = data_cost(dataset, rehearsals)
        cpu = sorted(r["cpu_epoch"] for r in mine)
        gpu = sorted(r["gpu_epoch"] for r in mine)
        measured_gpu = " (measured)" if any(r["gpu_basis"] == "measured" for r in mine) else ""
        proxy = "*" if dataset in REHEARSED_AS else ""  # the full table names the stand-in
        summary.append(f"| `{mine[0]['suite']}` | `{dataset}` ({mine[0]['pairs']:,}) | {duration(wall)}, "
                       f"{peak / 1000:.1f} GB{proxy} | {span(cpu)} | {span(gpu)}{measured_gpu} |")
    return "\n".join(full) + "\n", "\n".join(summary)


def span(values: list[float]) -> str:
    low, high = duration(values[0]), duration(values[-1])
    return low if low == high else f"{low} – {high}"


def readme_with(path: Path, summary: str) -> str:
    text = path.read_text()
    if BEGIN not in text or END not in text:
        sys.exit(f"suite_costs: {path} has no {BEGIN} ... {END} block")
    head, rest = text.split(BEGIN, 1)
    return head + BEGIN + "\n" + summary + "\n" + END + rest.split(END, 1)[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true")
    mode.add_argument("--check", action="store_true")
    parser.add_argument("--params", default=str(ROOT / "params.yaml"))
    parser.add_argument("--speeds", type=Path, default=ROOT / "results" / "train_speed" / "cpu.json",
                        help="bench/train_speed.py --paper's figures on 2 CPU cores")
    parser.add_argument("--readme", type=Path, default=README, help="the README whose block --write/--check keep")
    parser.add_argument("--table", type=Path, default=TABLE, help="the per-experiment table --write/--check keep")
    args = parser.parse_args()
    config = load_config(args.params)
    rehearsals = {r["dataset"]: r for r in load("rehearsal/*.json")}
    if not rehearsals or not args.speeds.is_file():
        sys.exit(f"suite_costs: needs results/rehearsal/*.json and {args.speeds}")
    measured = json.loads(args.speeds.read_text())
    speeds = {r["name"]: r for r in measured["results"]}
    missing = [e for e in PAPER_EXPERIMENTS if e not in speeds]
    if missing:
        sys.exit(f"suite_costs: {args.speeds} has no figures for {', '.join(missing)}: run "
                 "python bench/train_speed.py --paper --json ...")
    table, summary = render(config, rehearsals, speeds, measured)
    readme = readme_with(args.readme, summary)
    if args.check:
        stale = [str(p) for p, text in ((args.table, table), (args.readme, readme)) if not holds(p, text)]
        if stale:
            print(f"suite_costs: {', '.join(stale)} differ from the measurements; run "
                  "python bench/suite_costs.py --write", file=sys.stderr)
            return 1
        return 0
    if args.write:
        for path, text in ((args.table, table), (args.readme, readme)):
            write_if_changed(path, text)
        return 0
    print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
