"""How long torch's CPU kernels take for the additive attention score's tanh, and for what search computes instead.

Usage, from the repository root with the project's .venv active:
    python bench/probes/tanh_speed.py [--shapes 320x20x128 320x35x128 100x20x128] [--repeats 200]

For each shape, (rows, source positions, attention size) as a beam-10 decoder step over 32 sentences makes it,
one thread: the microseconds of an in-place ``tanh_``, of ``sigmoid_`` alone, and of 2σ(2x) − 1 in place (what
``paragen.models.attention._tanh_in_place`` runs without gradients on the CPU), each over a fresh copy of the same
normal draws (the copy's own time subtracted), median over ``--repeats`` timings; then the largest absolute
difference between the two tanh values on a million normal draws (scaled by 3). Read with docs/speed.md.
"""

from __future__ import annotations

import argparse
import statistics
import time


def shape(text: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(part) for part in text.split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected sizes joined by 'x', e.g. 320x20x128: {text!r}") from None
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"sizes must be positive: {text!r}")
    return sizes


def median_microseconds(work, repeats: int) -> float:
    work()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shapes", type=shape, nargs="+", default=[(320, 20, 128), (320, 35, 128), (100, 20, 128)])
    parser.add_argument("--repeats", type=int, default=200)
    args = parser.parse_args()

    import torch

    torch.set_num_threads(1)
    generator = torch.Generator().manual_seed(0)
    print(f"torch {torch.__version__}, CPU capability {torch.backends.cpu.get_cpu_capability()}, one thread")
    for sizes in args.shapes:
        source = torch.randn(*sizes, generator=generator)
        work = torch.empty_like(source)
        copy = median_microseconds(lambda: work.copy_(source), args.repeats)
        kernels = {
            "tanh_": lambda: work.copy_(source).tanh_(),
            "sigmoid_": lambda: work.copy_(source).sigmoid_(),
            "2*sigmoid(2x)-1 in place": lambda: work.copy_(source).mul_(2).sigmoid_().mul_(2).sub_(1),
        }
        timed = {name: median_microseconds(run, args.repeats) - copy for name, run in kernels.items()}
        instead = timed["2*sigmoid(2x)-1 in place"]
        ratio = f"{timed['tanh_'] / instead:.1f}" if instead > 0 else "n/a (too small to time)"
        print("x".join(map(str, sizes)) + ": " + ", ".join(f"{name} {us:.0f} us" for name, us in timed.items())
              + f"; tanh_ / in place {ratio}")
    draws = torch.randn(1_000_000, generator=generator) * 3
    difference = (torch.tanh(draws) - draws.clone().mul_(2).sigmoid_().mul_(2).sub_(1)).abs().max().item()
    print(f"largest |tanh(x) - (2 sigmoid(2x) - 1)| over 1,000,000 draws of 3 N(0, 1): {difference:.2e}")


if __name__ == "__main__":
    main()
