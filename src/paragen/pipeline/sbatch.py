"""``python -m paragen.pipeline.sbatch [--params FILE] [--stages]``: the sbatch options of one job running the
whole DAG (the largest memory and GPU request of its stages, their summed wall time up to ``max_runtime``), or
with ``--stages`` every stage's request and, for trainings, the estimate behind it (see docs/cluster.md)."""

from __future__ import annotations

import argparse
import sys

from paragen.config import load_config
from paragen.pipeline.plan import build_plan
from paragen.pipeline.resources import SAFETY, measured_gpu_rates, serial, train_estimate


def hours(minutes: float) -> str:
    return f"{minutes / 60:.1f} h" if minutes >= 60 else f"{minutes:.0f} min"


def stage_lines(config, stages) -> list[str]:
    """One line per stage: GPUs, memory, wall time; a training adds its estimate, whether it is measured or
    projected, and, when ``max_runtime`` caps it, how many jobs it takes. Capping is where a reader must act, so
    it is said in words, not left to a comparison of two numbers."""
    rates = measured_gpu_rates()
    lines = [f"max_runtime {config.max_runtime} min ({hours(config.max_runtime)}); requests per stage:"]
    for stage in stages:
        request = stage.resources
        line = f"{stage.name}: gpus {request.gpus}, mem {request.mem_mb} MB, runtime {request.runtime} min"
        if stage.step == "train":
            experiment = stage.name.removeprefix("train_")
            estimate = train_estimate(config, experiment, rates)
            line += f"; estimate {hours(estimate.minutes)} for {estimate.epochs} epochs ({estimate.basis})"
            jobs = estimate.jobs(config.max_runtime)
            if jobs is None:
                line += (f"; CAPPED at max_runtime, and one epoch ({hours(SAFETY * estimate.epoch_seconds / 60)} doubled) "
                         "does not fit in a job: raise max_runtime")
            elif jobs > 1:
                line += (f"; CAPPED at max_runtime: about {jobs} jobs, each resuming after the last finished epoch "
                         "(rerun the same command)")
        lines.append(line)
    return lines


def main(argv: list[str] | None = None) -> int:
    """Print ``--mem=... --time=... [--gpus=...]`` for one sbatch job that runs every stage in turn, or with
    ``--stages`` each stage's request."""
    parser = argparse.ArgumentParser(prog="python -m paragen.pipeline.sbatch", description=__doc__)
    parser.add_argument("--params", default="params.yaml")
    parser.add_argument("--stages", action="store_true", help="list every stage's request and training estimates")
    args = parser.parse_args(argv)
    config = load_config(args.params)
    stages = build_plan(config).stages
    if args.stages:
        print("\n".join(stage_lines(config, stages)))
        return 0
    whole = serial(s.resources for s in stages)
    runtime = min(whole.runtime, config.max_runtime)
    if runtime < whole.runtime:
        print(f"sbatch: the stages' wall times sum to {hours(whole.runtime)}, capped at max_runtime "
              f"({config.max_runtime} min): submit the same job again until dvc repro has nothing left to run "
              "(training resumes after its last finished epoch)", file=sys.stderr)
    print(f"--mem={whole.mem_mb} --time={runtime}" + (f" --gpus={whole.gpus}" if whole.gpus else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
