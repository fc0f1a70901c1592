"""Decoding speed: test sentences per second of a trained run's beam search, one thread, in rounds.

Usage, from the repository root with the project's .venv active:
    python bench/decode_speed.py --experiment syn_rnnsearch [--sentences 300] [--rounds 3] [--beam 10]
                                 [--device cuda]

The run's ``best.pt`` decodes the first ``--sentences`` lines of its test split with its own decoding settings
(beam and length penalty from params.yaml; ``--beam`` overrides the beam), ``--rounds`` times, one thread
(decode stages run one thread a job); each round prints its sentences/s and the median is printed when the
rounds agree within 20 % (otherwise the machine was busy). ``--device cuda`` decodes on a GPU (the host side
still one thread), after one untimed decode of the first 32 sentences that loads the GPU's kernels. The n-best
of the first round is compared with ``runs/<experiment>/test.nbest.jsonl`` where that file was written by the
same beam (and, alone, the top-1 outputs that are scored): a faster search that returns other hypotheses is not
faster.

``--write-nbest FILE`` decodes once and writes the n-best lists as ``paragen decode`` writes them: the reference
for a run that was trained but never decoded (put it at ``runs/<experiment>/test.nbest.jsonl``).

``--profile`` decodes once under ``torch.profiler`` and prints the 15 operators with the most self CPU time.

``--count`` decodes once under an operator counter instead of timing (any machine, no GPU needed): per decoder
step, the computing aten operators inside the model's ``step`` and in the search around it, and the host reads
(``item``/``bool``/``int`` of a tensor, and ``tolist`` calls), each of which waits for the GPU on a GPU. With
``--check-every N`` the search runs as it does on a GPU (no host checks, done sentences leave every N steps), so
the count describes a GPU's search on a CPU. Launch-bound GPU decoding costs about one launch per operator and
one wait per read. ``--host-checks`` makes the search read back at every step on any device, as it does on a CPU.

Before and after a change: run it from a worktree of the older commit with this checkout's runs/ and data/
linked in (the older code must load the same checkpoint), e.g.
    git worktree add /tmp/before OLD && ln -s $PWD/runs $PWD/data /tmp/before/
    (cd /tmp/before && PYTHONPATH=src python $OLDPWD/bench/decode_speed.py --experiment syn_rnnsearch)
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--experiment", required=True)
    parser.add_argument("--sentences", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--beam", type=int, default=None)
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    reads = parser.add_mutually_exclusive_group()  # how often the search reads back which sentences are done
    reads.add_argument("--check-every", type=int, default=None,
                       help="beam_search's check_every, with host_checks off (default: the search's own choice)")
    reads.add_argument("--host-checks", action="store_true",
                       help="beam_search's host_checks on: a read at every step, as the search does on a CPU")
    parser.add_argument("--count", action="store_true", help="count operators and host reads instead of timing")
    parser.add_argument("--write-nbest", type=Path, metavar="FILE",
                        help="decode once and write the n-best as `paragen decode` does (JSON lines), then stop: a "
                             "reference for a run that was never decoded")
    parser.add_argument("--profile", action="store_true",
                        help="decode once under torch.profiler and print the operators by self CPU time")
    args = parser.parse_args()

    import torch

    import paragen
    from paragen import artifacts
    from paragen.cli.models import _trained_model
    from paragen.config import load_config
    from paragen.data.corpus import read_lines
    from paragen.decoding import decode
    from paragen.decoding.decode import translate

    reading = ({"host_checks": False, "check_every": args.check_every} if args.check_every is not None
               else {"host_checks": True} if args.host_checks else {})  # --host-checks: the CPU's way, any device
    if reading:
        search = decode.beam_search
        decode.beam_search = lambda *a, **k: search(*a, **k, **reading)

    torch.set_num_threads(1)
    config = load_config("params.yaml")
    spec = config.experiments[args.experiment]
    decoding = config.decoding[spec.decoding].model_dump(exclude={"threads"})
    if args.beam:
        decoding["beam_size"] = args.beam
    device = torch.device(args.device)
    model, vocab = _trained_model(config, args.experiment, device)
    data = artifacts.experiment_data(config, args.experiment)
    sources = [line.split() for line in read_lines(Path(data.directory) / "test.src")][:args.sentences]
    if args.count:
        count_operators(model, lambda: translate(model, sources, vocab, device=device, **decoding))
        return
    if args.write_nbest:
        from paragen.atomic import atomic_open  # in every version this bench is run against (0e30d00 on)

        results = translate(model, sources, vocab, device=device, **decoding)
        with atomic_open(args.write_nbest) as handle:  # `paragen decode`'s lines (paragen.cli.models)
            handle.writelines(json.dumps({"nbest": [" ".join(h) for h in r.nbest], "scores": r.scores},
                                         ensure_ascii=False) + "\n" for r in results)
        print(f"code: {Path(paragen.__file__).parent}; {len(results)} n-best lists written to {args.write_nbest}")
        return
    if args.profile:
        from torch.profiler import ProfilerActivity, profile

        with profile(activities=[ProfilerActivity.CPU]) as profiled:
            translate(model, sources, vocab, device=device, **decoding)
        print(f"code: {Path(paragen.__file__).parent}; {args.experiment}, {len(sources)} sentences, beam "
              f"{decoding['beam_size']}, one thread")
        print(profiled.key_averages().table(sort_by="self_cpu_time_total", row_limit=15))
        return
    if device.type == "cuda":  # CUDA context, kernel loading and the allocator's first blocks: not the search
        translate(model, sources[:32], vocab, device=device, **decoding)
    rates, first = [], None
    for round_ in range(1, args.rounds + 1):
        start = time.perf_counter()
        results = translate(model, sources, vocab, device=device, **decoding)
        seconds = time.perf_counter() - start
        rates.append(len(sources) / seconds)
        first = first or results
        print(f"round {round_}: {len(sources)} sentences in {seconds:.1f} s, {rates[-1]:.1f} sentences/s")
    print(f"code: {Path(paragen.__file__).parent}; {args.experiment}, beam {decoding['beam_size']}, one thread, "
          f"device {torch.cuda.get_device_name() if device.type == 'cuda' else 'cpu'}")
    nbest = Path(artifacts.nbest_path(args.experiment))
    if nbest.exists() and args.beam is None:
        saved = [json.loads(line)["nbest"] for line in nbest.read_text(encoding="utf-8").splitlines()[:len(sources)]]
        same = sum(saved_k == [" ".join(h) for h in r.nbest] for saved_k, r in zip(saved, first))
        top = sum(saved_k[:1] == [" ".join(h) for h in r.nbest[:1]] for saved_k, r in zip(saved, first))
        if max(map(len, saved), default=0) == decoding["nbest"]:  # lists of another n-best cannot be equal
            print(f"n-best equal to {nbest} on {same} of {len(sources)} sentences")
        print(f"top-1 equal to {nbest} on {top} of {len(sources)} sentences")
    if max(rates) <= 1.2 * min(rates):
        print(f"median: {statistics.median(rates):.1f} sentences/s")
    else:
        print("rounds differ by more than 20 %: the machine was busy, no median")


def count_operators(model, decode) -> None:
    """Print computing operators per decoder step inside ``model.step`` and around it, and host reads per step,
    over one call of ``decode``."""
    import torch

    from op_count import OperatorCounter  # this folder is on sys.path

    class SplitCounter(OperatorCounter):
        def __init__(self) -> None:
            super().__init__()
            self.inside = False
            self.step_computing = self.reads = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.step_computing += self.inside and not func.is_view
            self.reads += func is torch.ops.aten._local_scalar_dense.default
            return super().__torch_dispatch__(func, types, args, kwargs)

    counter, steps, lists = SplitCounter(), [0], [0]
    step, tolist = model.step, torch.Tensor.tolist

    def counted_step(*args, **kwargs):
        steps[0] += 1
        counter.inside = True
        try:
            return step(*args, **kwargs)
        finally:
            counter.inside = False

    def counted_tolist(self):
        lists[0] += 1
        return tolist(self)

    model.step, torch.Tensor.tolist = counted_step, counted_tolist
    try:
        with counter:
            decode()
    finally:
        model.step, torch.Tensor.tolist = step, tolist
    n = max(steps[0], 1)
    print(f"decoder steps {steps[0]}; per step: computing operators {counter.computing / n:.1f} "
          f"(in the model's step {counter.step_computing / n:.1f}, in the search "
          f"{(counter.computing - counter.step_computing) / n:.1f}), host reads {(counter.reads + lists[0]) / n:.2f} "
          f"(item/bool {counter.reads / n:.2f}, tolist {lists[0] / n:.2f})")


if __name__ == "__main__":
    main()
