"""Decoding speed: test sentences per second of a trained run's beam search, one thread, in rounds.

Usage, from the repository root with the project's .venv active:
    python bench/decode_speed.py --experiment syn_rnnsearch [--sentences 300] [--rounds 3] [--beam 10]

The run's ``best.pt`` decodes the first ``--sentences`` lines of its test split with its own decoding settings
(beam and length penalty from params.yaml; ``--beam`` overrides the beam), ``--rounds`` times, one thread
(decode stages run one thread a job); each round prints its sentences/s and the median is printed when the
rounds agree within 20 % (otherwise the machine was busy). The n-best of the first round is compared with
``runs/<experiment>/test.nbest.jsonl`` where that file was written by the same beam: a faster search that
returns other hypotheses is not faster.

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
    args = parser.parse_args()

    import torch

    import paragen
    from paragen import artifacts
    from paragen.cli.models import _trained_model
    from paragen.config import load_config
    from paragen.data.corpus import read_lines
    from paragen.decoding.decode import translate

    torch.set_num_threads(1)
    config = load_config("params.yaml")
    spec = config.experiments[args.experiment]
    decoding = config.decoding[spec.decoding].model_dump(exclude={"threads"})
    if args.beam:
        decoding["beam_size"] = args.beam
    device = torch.device("cpu")
    model, vocab = _trained_model(config, args.experiment, device)
    data = artifacts.experiment_data(config, args.experiment)
    sources = [line.split() for line in read_lines(Path(data.directory) / "test.src")][:args.sentences]
    rates, first = [], None
    for round_ in range(1, args.rounds + 1):
        start = time.perf_counter()
        results = translate(model, sources, vocab, device=device, **decoding)
        seconds = time.perf_counter() - start
        rates.append(len(sources) / seconds)
        first = first or results
        print(f"round {round_}: {len(sources)} sentences in {seconds:.1f} s, {rates[-1]:.1f} sentences/s")
    print(f"code: {Path(paragen.__file__).parent}; {args.experiment}, beam {decoding['beam_size']}, one thread")
    nbest = Path(artifacts.nbest_path(args.experiment))
    if nbest.exists() and args.beam is None:
        saved = [json.loads(line)["nbest"] for line in nbest.read_text(encoding="utf-8").splitlines()[:len(sources)]]
        same = sum(saved_k == [" ".join(h) for h in r.nbest] for saved_k, r in zip(saved, first))
        print(f"n-best equal to {nbest} on {same} of {len(sources)} sentences")
    if max(rates) <= 1.2 * min(rates):
        print(f"median: {statistics.median(rates):.1f} sentences/s")
    else:
        print("rounds differ by more than 20 %: the machine was busy, no median")


if __name__ == "__main__":
    main()
