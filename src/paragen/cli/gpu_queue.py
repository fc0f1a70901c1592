"""``paragen gpu-queue``: the GPU work as a queue that short calls of a GPU machine work through
(docs/cluster.md, "A GPU for minutes at a time"); the logic is :mod:`paragen.pipeline.queue_device` (there) and
:mod:`paragen.pipeline.queue_finish` (here)."""

from __future__ import annotations

import argparse
import logging
import os
from pathlib import Path

from paragen.cli.args import input_dir, input_file, non_negative_int, output_dir, positive_int
from paragen.cli.common import Commands
from paragen.config import ConfigError
from paragen.pipeline.queue_pack import MiB, Budget
from paragen.pipeline.queue_spec import QUEUE_FILE, load_queue

ACTIONS = ("run", "unpack", "finish", "status", "stage", "forget")


def _seconds(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of seconds") from None
    if not 0 < seconds < 86400:
        raise argparse.ArgumentTypeError(f"{value}: expected seconds between 0 and 86400")
    return seconds


def cmd_gpu_queue(args: argparse.Namespace) -> None:
    queue = load_queue(args.queue)
    if args.action == "run":
        _run(args, queue)
        return
    from paragen.pipeline import queue_finish

    if args.action == "unpack":
        if args.files is None:
            raise ConfigError("gpu-queue unpack: --files names the folder a call's files came back to")
        said = queue_finish.unpack_call(queue, args.files, args.params)
        if not args.no_finish:
            said += queue_finish.finish(queue, args.params, args.mirror, args.cores, args.jobs)
    elif args.action == "finish":
        said = queue_finish.finish(queue, args.params, args.mirror, args.cores, args.jobs)
    elif args.action == "forget":
        said = queue_finish.forget(queue, args.names)
    elif args.action == "stage":
        said = _stage(args, queue)
    else:
        said = queue_finish.status(queue, args.params, args.sizes)
    for line in said:
        print(line)


def _run(args: argparse.Namespace, queue) -> None:
    from paragen.pipeline.queue_device import run_call

    if args.out is None:
        raise ConfigError("gpu-queue run: --out (or $OUT) names the folder to pack into")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(out / "queue.log", encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    logging.getLogger("paragen").addHandler(handler)
    budget = Budget(total=args.total_mib * MiB, part=args.part_mib * MiB, parts=args.parts)
    manifest = run_call(queue, out, args.deadline, args.pack_seconds, budget, args.cores, args.jobs, args.params,
                        args.stop_after_epoch, args.restart)
    counts: dict[str, int] = {}
    for entry in manifest["stages"].values():
        counts[entry.get("how", "?")] = counts.get(entry.get("how", "?"), 0) + 1
    print(f"gpu-queue: {manifest['device']}: " + ", ".join(f"{n} {how}" for how, n in counts.items()))
    for item in manifest["items"]:
        print(f"  packed {item['name']} ({item['bytes'] / MiB:.1f} MiB)")
    for item in manifest["left"]:
        print(f"  LEFT ON THE MACHINE (over the budget): {item['name']} ({item['bytes'] / MiB:.1f} MiB)")


def _stage(args: argparse.Namespace, queue) -> list[str]:
    from paragen.pipeline.queue_spec import (CPU_STEPS, DATA_STEPS, data_frontier, job_config, job_stages,
                                             without_unneeded_data)
    from paragen.pipeline.queue_state import QueueState
    from paragen.pipeline.queue_travel import data_paths, prepare_travel

    state = QueueState.read(queue.state)
    data = []
    for job in queue.jobs:
        if job.kind == "pipeline":
            config = job_config(job, args.params, args.mirror)
            stages = [s for s in job_stages(config, job) if s.step not in CPU_STEPS]
            current = state.up_to_date(config, stages)
            # what the stages still to run read, and what was made from downloads (a stage may read a prepared
            # file it does not declare); the downloads themselves only where a stage reads them (rule files)
            made = [s for s in without_unneeded_data(stages, current) if s.step in DATA_STEPS and s.step != "fetch"]
            data += data_paths(data_frontier(stages, current) + made)
    carry, said = prepare_travel(data, queue.resume_store, args.wheels)
    return said + [f"carry: {carry}", f"command: bash bench/gpu_queue.sh {int(args.deadline)}"]


def register(commands: Commands) -> None:
    """Add ``gpu-queue`` to ``paragen``'s parser."""
    def writes(args: argparse.Namespace) -> list[tuple[str, bool]]:
        return [] if args.action in ("run", "status") else [(load_queue(args.queue).state, False)]

    p = commands.add("gpu-queue", cmd_gpu_queue, "run the GPU work queue (workflow/gpu_queue.yaml) in short calls "
                     "of a GPU machine: run (there), unpack, finish, status, stage, forget (here)", writes=writes)
    p.add_argument("action", choices=ACTIONS, help="run: the next unfinished jobs until --deadline, then pack into "
                   "--out; unpack: take in a call's files, then finish; finish: the stages after the GPU's, on this "
                   "CPU (never training); status: what is done; stage: pack the data and size the next call; forget: "
                   "make stages or jobs again")
    p.add_argument("names", nargs="*", help="forget: stage or job names")
    p.add_argument("--queue", default=QUEUE_FILE, type=input_file, help=f"the queue (default {QUEUE_FILE})")
    p.add_argument("--files", type=input_dir, help="unpack: the folder a call's files came back to")
    p.add_argument("--no-finish", action="store_true", help="unpack: take the files in, but do not finish (by "
                   "default unpack then does what finish does)")
    p.add_argument("--out", type=output_dir, default=os.environ.get("OUT"),
                   help="run: where to pack (default $OUT, the GPU machine's return folder)")
    p.add_argument("--deadline", type=_seconds, default=540.0,
                   help="run: seconds from now by which packing must be done (stage: the call's, for its command)")
    p.add_argument("--pack-seconds", type=_seconds, default=60.0, help="run: seconds kept for packing (default 60)")
    p.add_argument("--jobs", nargs="+", help="run, unpack, finish: only these jobs, in this order (default: the "
                   "queue's)")
    p.add_argument("--cores", type=positive_int, default=os.cpu_count() or 1,
                   help="stages at once, each taking its threads (default: this machine's cores)")
    p.add_argument("--total-mib", type=positive_int, default=60, help="run: MiB of parts at most (default 60)")
    p.add_argument("--part-mib", type=positive_int, default=15, help="run: MiB per part at most (default 15)")
    p.add_argument("--parts", type=positive_int, default=6, help="run: parts at most (default 6)")
    p.add_argument("--stop-after-epoch", type=non_negative_int,
                   help="run: stop every training after this epoch, as a deadline would (a rehearsal on a CPU)")
    p.add_argument("--restart", action="store_true",
                   help="run: a training whose recorded resume state is not here starts over instead of waiting")
    p.add_argument("--mirror", action="append", help="unpack, finish, stage: a local mirror of the real data's files "
                   "(as --config mirrors=[...]; repeatable)")
    p.add_argument("--wheels", default=".whl", help="stage: the wheels folder carried to the machine")
    p.add_argument("--sizes", action="store_true", help="status: each training's resume state, in MiB")
