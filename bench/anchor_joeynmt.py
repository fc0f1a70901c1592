"""Training speed of paragen against JoeyNMT 2.3.0 at the same configuration, alternately, in one run.

Usage: python bench/anchor_joeynmt.py [--device cpu|cuda] [--amp] [--rounds 2] [--epochs 2]
       [--sentences 20000] [--workdir bench/.joeynmt] [--wheels DIR | --collect-wheels DIR]

Why an anchor: a tokens/s figure means little alone; JoeyNMT is a small, well-known recurrent NMT toolkit whose
training loop is written for speed, so the ratio says whether paragen's per-step loop is competitive.

What it does:
1. Sets up JoeyNMT 2.3.0 in its own virtual environment (``<workdir>/venv``): with ``pip install joeynmt==2.3.0
   importlib_metadata torch==<this torch>`` from the package index, or offline from ``--wheels DIR`` (JoeyNMT
   without its declared dependencies, plus the modules its plain-text training path imports, unpacked beside
   the machine's own torch: a GPU machine without an index; ``--collect-wheels DIR`` downloads them where
   PyPI is reachable). JoeyNMT 2.3.0 needs
   ``importlib_metadata`` and its default ``plateau`` scheduler crashes on torch 2.13, so ``exponential`` is used.
2. Generates JoeyNMT's reverse task once for both: symbols 0..999, lengths uniform in 1..25, the target is the
   source reversed; ``--sentences`` training pairs and 500 validation pairs.
3. Trains both, alternately (JoeyNMT, paragen, JoeyNMT, ...), each from scratch for ``--epochs`` epochs with
   the same model and optimiser: bi-GRU encoder 300, GRU decoder 300, embeddings 150, Luong (general)
   attention with input feeding, bridge initialisation, dropout 0.1, Adam 1e-3, batches of 64 sentences,
   gradient norm clipped at 5; bf16 autocast for paragen and JoeyNMT's fp16 autocast when ``--amp``.
4. Prints every round's target tokens per second of the last epoch for each (JoeyNMT: the median of its 50-step log
   windows in that epoch; paragen: the epoch's ``tokens_per_s`` from ``train_log.csv``). Both count the real (non-pad)
   target tokens including ``</s>`` and exclude validation. Batching differs as each tool does it: paragen
   groups sentences of similar length (less padding), JoeyNMT samples batches at random.
5. Prints the median ratio only when the rounds agree within 20 %; otherwise says the machine was busy.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import torch

JOEYNMT = "joeynmt==2.3.0"
# What JoeyNMT 2.3.0's plain-text training path imports (helpers: tensorboard, importlib_metadata; plotting:
# matplotlib; tokenizers: sentencepiece, subword_nmt; metrics: sacrebleu), with their own requirements. The
# HuggingFace ``datasets`` import and plotly are only reached by other dataset types and the hub interface.
# importlib_metadata 10 imports lazy_importer; tensorboard 2.21 imports google.protobuf.runtime_version, which
# the protobuf<3.21 pin lacks, so tensorboard stays at 2.20.0 (what the online install picks).
OFFLINE_MODULES = ["importlib_metadata", "lazy-importer", "zipp", "tensorboard==2.20.0", "tensorboard-data-server",
                   "absl-py", "grpcio", "markdown", "protobuf<3.21", "werkzeug", "six", "matplotlib", "contourpy",
                   "cycler", "fonttools", "kiwisolver", "pillow", "pyparsing", "python-dateutil", "sentencepiece",
                   "subword-nmt", "mock",
                   "sacrebleu", "portalocker", "regex", "tabulate", "colorama", "lxml", "tqdm", "pyyaml", "wrapt",
                   "future", "packaging", "numpy", "setuptools"]
LOG_LINE = re.compile(r"Epoch\s+(\d+), Step:\s+(\d+), .*Tokens per Sec:\s+([0-9.]+)")
EMBEDDING, HIDDEN, BATCH, LEARNING_RATE, CLIP, DROPOUT = 150, 300, 64, 1e-3, 5.0, 0.1
PARAGEN_MODEL = {"architecture": "rnnsearch", "embedding_size": EMBEDDING, "hidden_size": HIDDEN, "cell": "gru",
                 "attention": "general", "input_feeding": "attentional", "decoder_init": "bridge", "dropout": DROPOUT}
"""paragen's ModelConfig at JoeyNMT's configuration (also timed by ``bench/probes/attention_energies.py``)."""


def generate_reverse_task(folder: Path, train_pairs: int, valid_pairs: int, symbols: int = 1000,
                          max_length: int = 25, seed: int = 42) -> None:
    """``train.{src,tgt}`` and ``dev.{src,tgt}``: random symbol sequences and their reversal (paragen's file
    names, which JoeyNMT reads as the languages ``src`` and ``tgt``)."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    for split, count in (("train", train_pairs), ("dev", valid_pairs)):
        sources = [[str(rng.randrange(symbols)) for _ in range(rng.randint(1, max_length))] for _ in range(count)]
        (folder / f"{split}.src").write_text("".join(" ".join(s) + "\n" for s in sources), encoding="utf-8")
        (folder / f"{split}.tgt").write_text("".join(" ".join(reversed(s)) + "\n" for s in sources),
                                             encoding="utf-8")


def joeynmt_config(data: Path, model_dir: Path, epochs: int, cuda: bool, amp: bool, seed: int = 42) -> str:
    """JoeyNMT's YAML for the shared configuration (see the module docstring)."""
    side = "\n".join(["        level: word", "        max_length: 25", "        voc_limit: 2000",
                      "        voc_min_freq: 1", "        tokenizer_type: none"])
    recurrent = (f"        rnn_type: gru\n        embeddings: {{embedding_dim: {EMBEDDING}, scale: false}}\n"
                 f"        hidden_size: {HIDDEN}\n        dropout: {DROPOUT}\n        num_layers: 1\n")
    return f"""name: paragen_anchor
joeynmt_version: "2.3.0"
data:
    train: "{data / 'train'}"
    dev: "{data / 'dev'}"
    dataset_type: plain
    src:
        lang: src
{side}
    trg:
        lang: tgt
{side}
testing:
    beam_size: 1
    batch_size: 64
    batch_type: sentence
    eval_metrics: [bleu]
    max_output_length: 30
training:
    random_seed: {seed}
    optimizer: adam
    learning_rate: {LEARNING_RATE}
    learning_rate_min: 1.0e-8
    clip_grad_norm: {CLIP}
    batch_size: {BATCH}
    batch_type: sentence
    scheduling: exponential
    decrease_factor: 1.0
    epochs: {epochs}
    validation_freq: 100000000
    logging_freq: 50
    early_stopping_metric: loss
    model_dir: "{model_dir}"
    overwrite: true
    shuffle: true
    use_cuda: {str(cuda).lower()}
    fp16: {str(amp).lower()}
    num_workers: 0
    keep_best_ckpts: 1
model:
    initializer: xavier_uniform
    bias_initializer: zeros
    encoder:
        type: recurrent
        bidirectional: true
{recurrent}    decoder:
        type: recurrent
{recurrent}        hidden_dropout: {DROPOUT}
        input_feeding: true
        init_hidden: bridge
        attention: luong
"""


def joeynmt_environment(workdir: Path, wheels: Path | None) -> tuple[Path, dict[str, str]]:
    """The interpreter and environment variables that run JoeyNMT, installed on first use.

    Online: a virtual environment of its own (``<workdir>/venv``) with JoeyNMT, its declared dependencies and
    this process's torch version. Offline (``wheels``): the wheels are unpacked into ``<workdir>/site`` and
    JoeyNMT runs on this interpreter with that folder on its path, so it uses the machine's torch (the CUDA
    build on a GPU machine) and the machine's numpy, matplotlib, sacrebleu, ...
    """
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    if wheels is not None:
        site = workdir / "site"
        if not (site / "joeynmt").exists():
            subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-index", "--no-deps", "--no-compile",
                            "--target", str(site), *map(str, sorted(wheels.glob("*.whl")))], check=True)
        python, env["PYTHONPATH"] = Path(sys.executable), str(site)
    else:
        python = workdir / "venv" / "bin" / "python"
        if not python.exists():
            subprocess.run([sys.executable, "-m", "venv", str(workdir / "venv")], check=True)
            torch_version = torch.__version__.split("+")[0]
            subprocess.run([str(python), "-m", "pip", "install", "-q", JOEYNMT, "importlib_metadata",
                            f"torch=={torch_version}"], check=True)
        env.pop("PYTHONPATH", None)
    probe = subprocess.run([str(python), "-c", "import joeynmt.training"], capture_output=True, text=True, env=env)
    if probe.returncode != 0:
        raise RuntimeError(f"JoeyNMT cannot be imported from {python}: {probe.stderr.strip().splitlines()[-1:]}")
    return python, env


def collect_wheels(folder: Path) -> None:
    """Download into ``folder`` the cp312 x86-64 wheels of JoeyNMT and the modules of OFFLINE_MODULES that a GPU
    image holding torch, numpy, pyyaml, tqdm, matplotlib and sacrebleu lacks (run where PyPI is reachable)."""
    on_image = {"matplotlib", "contourpy", "cycler", "fonttools", "kiwisolver", "pillow", "pyparsing",
                "python-dateutil", "sacrebleu", "portalocker", "regex", "tabulate", "colorama", "lxml", "tqdm",
                "pyyaml", "wrapt", "packaging", "numpy"}
    folder.mkdir(parents=True, exist_ok=True)
    platform = ["--python-version", "3.12", "--implementation", "cp", "--platform", "manylinux_2_28_x86_64",
                "--platform", "manylinux_2_17_x86_64", "--platform", "manylinux2014_x86_64", "--platform", "any"]
    for name in [JOEYNMT] + [m for m in OFFLINE_MODULES if m not in on_image]:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                        *platform, "-d", str(folder), name], check=True)


def joeynmt_rate(log: str, epoch: int) -> float:
    """Median of JoeyNMT's 'Tokens per Sec' log windows within ``epoch`` (1-based)."""
    rates = [float(m.group(3)) for m in LOG_LINE.finditer(log) if int(m.group(1)) == epoch]
    if not rates:
        raise RuntimeError(f"no 'Tokens per Sec' line for epoch {epoch} in JoeyNMT's log")
    return statistics.median(rates)


def run_joeynmt(python: Path, env: dict[str, str], data: Path, workdir: Path, args: argparse.Namespace) -> float:
    model_dir = workdir / "joey_model"
    config = workdir / "joey.yaml"
    config.write_text(joeynmt_config(data, model_dir, args.epochs, args.device == "cuda", args.amp, args.seed),
                      encoding="utf-8")
    done = subprocess.run([python, "-m", "joeynmt", "train", str(config), "--skip-test"], capture_output=True,
                          text=True, env=env)
    log = done.stdout + done.stderr
    if done.returncode != 0:
        raise RuntimeError(f"JoeyNMT failed (rc {done.returncode}):\n{log[-3000:]}")
    shutil.rmtree(model_dir, ignore_errors=True)
    return joeynmt_rate(log, args.epochs)


def run_paragen(data: Path, workdir: Path, args: argparse.Namespace) -> float:
    from paragen.config import ModelConfig, TrainingConfig
    from paragen.data.corpus import read_split
    from paragen.training.trainer import train
    from paragen.data.vocabulary import Vocabulary

    train_data, valid_data = read_split(data, "train"), read_split(data, "dev")
    vocab = Vocabulary.build([train_data.sources, train_data.targets])
    model = ModelConfig(**PARAGEN_MODEL)
    training = TrainingConfig(learning_rate=LEARNING_RATE, batch_size=BATCH, max_epochs=args.epochs,
                              patience=args.epochs, clip_norm=CLIP, valid_metric="neg_loss", amp=args.amp,
                              seed=args.seed)
    run_dir = workdir / "paragen_run"
    shutil.rmtree(run_dir, ignore_errors=True)
    state = train(model_config=model, training=training, train_data=train_data, valid_data=valid_data,
                  vocab=vocab, run_dir=run_dir, device=torch.device(args.device), progress=False)
    shutil.rmtree(run_dir, ignore_errors=True)
    return float(state.log_rows[-1]["tokens_per_s"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--amp", action="store_true", help="mixed precision in both (CUDA only)")
    parser.add_argument("--rounds", type=int, default=2, help="alternations JoeyNMT, paragen")
    parser.add_argument("--epochs", type=int, default=2, help="epochs per training; the last one is measured")
    parser.add_argument("--sentences", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=42,
                        help="seed of the generated data and of both trainings; another value gives a confirming "
                             "run on data that played no part in earlier choices")
    parser.add_argument("--workdir", type=Path, default=Path("bench/.joeynmt"))
    parser.add_argument("--wheels", type=Path, default=None, help="install JoeyNMT offline from these wheels")
    parser.add_argument("--collect-wheels", type=Path, default=None,
                        help="only download the wheels an offline GPU machine needs into this folder, then exit")
    args = parser.parse_args()
    if args.collect_wheels is not None:
        collect_wheels(args.collect_wheels)
        return
    args.workdir = args.workdir.resolve()
    args.workdir.mkdir(parents=True, exist_ok=True)
    python, env = joeynmt_environment(args.workdir, args.wheels.resolve() if args.wheels else None)
    data = args.workdir / "reverse"
    generate_reverse_task(data, args.sentences, 500, seed=args.seed)
    device = torch.device(args.device)
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else f"CPU, {torch.get_num_threads()} threads"
    print(f"device {name}; torch {torch.__version__}; amp {args.amp}; {args.sentences} pairs, batch {BATCH}; "
          f"epoch {args.epochs} of {args.epochs} measured; seed {args.seed}", flush=True)
    ratios = []
    for round_ in range(1, args.rounds + 1):
        started = time.perf_counter()
        joey = run_joeynmt(python, env, data, args.workdir, args)
        middle = time.perf_counter()
        ours = run_paragen(data, args.workdir, args)
        ratios.append(ours / joey)
        print(f"round {round_}: JoeyNMT {joey:8.0f} tokens/s ({middle - started:.0f} s)   paragen {ours:8.0f} "
              f"tokens/s ({time.perf_counter() - middle:.0f} s)   ratio {ours / joey:.2f}", flush=True)
    print(summary(ratios), flush=True)


AGREEMENT = 0.20
"""Rounds whose ratios differ by more than this (relative to the smallest) measured a busy machine."""


def summary(ratios: list[float]) -> str:
    """The median ratio when the rounds agree within :data:`AGREEMENT`; otherwise a statement that they do not
    (one CPU round beside other work gave 3.30x and a quiet one 1.72x: their median, 2.51, meant nothing)."""
    if not ratios:
        raise ValueError("no rounds were run")
    low, high = min(ratios), max(ratios)
    if high > low * (1 + AGREEMENT):
        listed = ", ".join(f"{r:.2f}" for r in ratios)
        return (f"paragen / JoeyNMT: the rounds disagree by {100 * (high / low - 1):.0f} % (ratios {listed}): the "
                "machine was busy during some of them; no median is given, run again on a quiet machine")
    return (f"paragen / JoeyNMT training tokens/s: median ratio {statistics.median(ratios):.2f} over {len(ratios)} "
            "rounds")


if __name__ == "__main__":
    main()
