"""Training tokens/s and decoding sentences/s, per model configuration or per experiment of params.yaml.

Usage: python bench/train_speed.py [--models seq2seq_mini wean_mini ...] [--vocab 10000] [--length 25]
       python bench/train_speed.py --experiments pwkp_wean giga_spm ... [--batches 10] [--json FILE]
       python bench/train_speed.py --paper [--json results/train_speed/cpu.json]
       (common: [--device cuda] [--amp] [--threads N] [--decode-sentences N])

Runs on a generated corpus (random words), so the figures depend only on the model, the vocabulary size, the
sentence lengths and the device. ``--models`` uses one vocabulary size and lengths uniform in
[0.375·length, 1.125·length] (mean 0.75·length). ``--experiments`` (``--paper``: one experiment per model configuration and dataset of the four
papers' real-data tables) takes each experiment's model, its training batch size, its decoding settings and
its dataset's vocabulary size (``paragen.pipeline.resources.vocabulary_size``), with source and target lengths
uniform in [mean/2, 3·mean/2] around the dataset's measured means (:data:`MEAN_LENGTHS`). DMASS gets a
random rule table of ``--rules`` lexical rules. The critic objectives (003 §3.3) are not timed: this bench
times the model's word loss, forward and backward.

Training: full forward/backward/Adam steps over length-bucketed batches (the trainer's own batching), bf16
autocast when --amp and CUDA; the first batch is a warm-up and is not timed (with ``--compile``, the first three:
the compilations, whose count and seconds are reported apart; a recompilation after them falls inside the timed
batches, so those are counted too and a second rate leaves their seconds out; a model whose compiled step fails
to compile is reported with the compiler's error and the others still run). Tokens/s counts the references'
target tokens; ``scored_tokens_per_s`` counts what the model scores, which for SPM includes the <tpad>
continuation of the target to the source's length (004 Eq. 9), so its decoder runs source-length steps. Decoding: beam search over
--decode-sentences sentences after one warm-up batch. Prints one line per model; ``--json`` also writes the
figures with the date, the machine and the settings (``bench/suite_costs.py`` reads them).
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import torch

from paragen.atomic import write_text
from paragen.config import DecodingConfig, ModelConfig, load_config
from paragen.data.batching import iterate_batches
from paragen.data.vocabulary import PAD_ID, SPECIALS, Vocabulary
from paragen.decoding.decode import translate
from paragen.models import build_model, vocabulary_for
from paragen.models.critic import RuleTable
from paragen.pipeline.resources import vocabulary_size
from paragen.training.trainer import autocast, describe_device, pick_device
from paragen.training.compiled import compile_step

PAPER_EXPERIMENTS = (
    "pwkp_seq2seq", "pwkp_wean", "ewsew_seq2seq", "ewsew_wean",  # 002 WEAN Tables 1 and 2
    "lcsts_seq2seq", "lcsts_wean",  # 002 WEAN Table 3, characters
    "lcstsc_rnnsearch", "lcstsc_copynet", "lcstsw_rnnsearch", "lcstsw_copynet",  # 001 CopyNet Table 3
    "simp_nmt", "simp_transformer", "simp_dmass",  # 003 Table 1 (the critic rows train simp_transformer's model)
    "giga_encdec", "giga_sgate", "giga_spm", "giga_sgate_spm",  # 004 Table 2, BPE
)
MEAN_LENGTHS: dict[str, tuple[float, float]] = {
    # (source, target) tokens per pair after segmentation, measured 2026-11-24 on real text: word counts of the
    # mirror's validation files (../shared/data: PWKP ori.valid, NTS dev.en/dev.sen, WikiLarge ori.valid),
    # characters of LCSTS PART_III (108.1 / 18.3); jieba words and Gigaword BPE units: the rehearsal's source
    # tokens per pair (results/rehearsal/*.json: 63.3 and 38.6) with the target scaled by the same ratio to
    # the characters (LCSTS) or the words (Gigaword's 30.5 / 8.1) of the mirror's files.
    "pwkp": (26.1, 20.7),
    "ew_sew": (21.9, 19.3),
    "wikilarge": (25.4, 18.7),
    "lcsts_wean": (108.1, 18.3),
    "lcsts_copynet_char": (108.1, 18.3),
    "lcsts_copynet_word": (63.3, 10.7),
    "gigaword": (38.6, 10.3),
}


@dataclass(frozen=True)
class Setting:
    """What one measurement runs: a model configuration at a vocabulary size, batch size and lengths."""

    name: str
    model: ModelConfig
    decoding: DecodingConfig
    vocabulary: int  # token types, the special symbols included
    batch: int
    source_length: float  # mean tokens
    target_length: float
    sentences: int  # generated pairs: one pass over them, the first batch untimed


def corpus(n: int, mean: float, words: list[str], rng: random.Random) -> list[list[str]]:
    low, high = max(1, round(mean / 2)), max(1, round(1.5 * mean))
    return [[rng.choice(words) for _ in range(rng.randint(low, high))] for _ in range(n)]


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def random_rules(count: int, vocabulary: int, generator: torch.Generator) -> RuleTable:
    """``count`` lexical rules between random non-special words (DMASS's memory reads one slot per rule)."""
    first = len(SPECIALS)
    return RuleTable(torch.randint(first, vocabulary, (count,), generator=generator),
                     torch.randint(first, vocabulary, (count,), generator=generator), torch.rand(count, generator=generator))


def bench(setting: Setting, args: argparse.Namespace, device: torch.device) -> dict:
    """Training tokens/s over every batch of one pass but the first (a warm-up), beam-search sentences/s."""
    rng = random.Random(0)
    words = [f"w{i}" for i in range(setting.vocabulary - len(SPECIALS))]
    vocab = vocabulary_for(setting.model, Vocabulary(list(SPECIALS) + words))
    sources = corpus(setting.sentences, setting.source_length, words, rng)
    targets = corpus(setting.sentences, setting.target_length, words, rng)
    torch.manual_seed(0)
    rules = random_rules(args.rules, len(vocab), torch.Generator().manual_seed(0)) \
        if setting.model.dmass is not None else None
    model = build_model(setting.model, len(vocab), rules).to(device)
    compiles = compile_step(model, args.compile, setting.model.architecture)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    batches = list(iterate_batches(sources, targets, vocab, setting.batch, torch.Generator().manual_seed(0)))
    warmup = 1 if compiles is None else 3  # a compiled step compiles again on the first new shape (dynamic)
    if len(batches) <= warmup:
        sys.exit(f"train_speed: {setting.name}: {len(batches)} batches, not more than the {warmup} warm-up ones")
    model.train()
    tokens, scored, started = 0, 0, 0.0
    compiled_before = (0, 0.0)  # compilations and their seconds when the timing starts
    for i, batch in enumerate(batches):
        if i == warmup:
            sync(device)
            started, tokens, scored = time.perf_counter(), 0, 0
            compiled_before = (0, 0.0) if compiles is None else (compiles.count, compiles.seconds)
        optimizer.zero_grad()
        tokens += int((batch.tgt_out != PAD_ID).sum())  # the references' tokens, counted on the CPU: no wait
        with autocast(device, args.amp):
            result = model.loss(batch.to(device))
        result.total.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        optimizer.step()
        scored = scored + result.tokens  # SPM also scores the <tpad> continuation to the source length (004 Eq. 9)
    scored = int(scored)  # one wait for the device
    sync(device)
    seconds = time.perf_counter() - started
    train_rate, scored_rate = tokens / seconds, scored / seconds
    timed_compiles = 0 if compiles is None else compiles.count - compiled_before[0]
    timed_compile_s = 0.0 if compiles is None else compiles.seconds - compiled_before[1]
    decode_rate = None
    if args.decode_sentences:
        decoding = setting.decoding
        options = dict(beam_size=args.beam or decoding.beam_size, max_length=decoding.max_length,
                       length_penalty=decoding.length_penalty, nbest=1, batch_size=decoding.batch_size, device=device)
        translate(model, sources[: min(decoding.batch_size, args.decode_sentences)], vocab, **options)  # warm-up
        sync(device)
        started = time.perf_counter()
        translate(model, sources[: args.decode_sentences], vocab, **options)
        sync(device)
        decode_rate = args.decode_sentences / (time.perf_counter() - started)
    return {"name": setting.name, "architecture": setting.model.architecture, "vocabulary": len(vocab),
            "batch": setting.batch, "source_length": setting.source_length, "target_length": setting.target_length,
            "parameters_m": round(sum(p.numel() for p in model.parameters()) / 1e6, 2),
            "train_tokens_per_s": round(train_rate, 1), "scored_tokens_per_s": round(scored_rate, 1),
            "timed_batches": len(batches) - warmup, "compile": args.compile,
            "compilations": None if compiles is None else compiles.count,
            "compile_s": None if compiles is None else round(compiles.seconds, 1),
            # recompilations after the warm-up fall inside the timed batches: counted, and left out of the last rate
            "compilations_timed": None if compiles is None else timed_compiles,
            "compile_s_timed": None if compiles is None else round(timed_compile_s, 1),
            "train_tokens_per_s_without_compiling": None if compiles is None else
            round(tokens / max(seconds - timed_compile_s, 1e-9), 1),
            "beam": args.beam or setting.decoding.beam_size,
            "decode_sentences_per_s": None if decode_rate is None else round(decode_rate, 2)}


def settings(args: argparse.Namespace) -> list[Setting]:
    config = load_config(args.params)
    if args.experiments:
        result = []
        for name in args.experiments:
            if name not in config.experiments:
                sys.exit(f"train_speed: no experiment {name!r} in {args.params}")
            spec = config.experiments[name]
            if spec.dataset not in MEAN_LENGTHS:
                sys.exit(f"train_speed: no measured lengths for dataset {spec.dataset!r}: add it to MEAN_LENGTHS")
            source, target = MEAN_LENGTHS[spec.dataset]
            batch = config.training[spec.training].batch_size
            result.append(Setting(name, config.models[spec.model], config.decoding[spec.decoding],
                                  vocabulary_size(config, spec.dataset), batch, source, target,
                                  batch * (args.batches + 1)))
        return result
    decoding = DecodingConfig(beam_size=args.beam or 5, max_length=2 * args.length, length_penalty=1.0, nbest=1,
                              batch_size=args.batch)
    return [Setting(name, config.models[name], decoding, args.vocab + len(SPECIALS), args.batch,
                    0.75 * args.length, 0.75 * args.length, args.sentences) for name in args.models]


def line(figures: dict) -> str:
    decode = (f"  decode (beam {figures['beam']}) {figures['decode_sentences_per_s']:7.1f} sentences/s"
              if figures["decode_sentences_per_s"] is not None else "")
    return (f"{figures['name']:18s} {figures['parameters_m']:7.2f}M params  vocab {figures['vocabulary']:6d}  "
            f"batch {figures['batch']:4d}  train {figures['train_tokens_per_s']:9.0f} tokens/s{decode}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--params", default="params.yaml")
    parser.add_argument("--models", nargs="+", default=["seq2seq_mini", "wean_mini"])
    parser.add_argument("--experiments", nargs="+", help="experiments of params.yaml, at their own settings")
    parser.add_argument("--paper", action="store_true", help="the papers' real-data experiments (PAPER_EXPERIMENTS)")
    parser.add_argument("--vocab", type=int, default=10000, help="--models: vocabulary size besides the specials")
    parser.add_argument("--sentences", type=int, default=2048, help="--models: training sentences (one pass)")
    parser.add_argument("--batches", type=int, default=10, help="--experiments: timed training batches")
    parser.add_argument("--decode-sentences", type=int, default=256, help="0: no decoding")
    parser.add_argument("--length", type=int, default=25, help="--models: maximum sentence length in tokens")
    parser.add_argument("--batch", type=int, default=64, help="--models: batch size")
    parser.add_argument("--beam", type=int, default=None, help="default: the experiment's, or 5 with --models")
    parser.add_argument("--rules", type=int, default=10_000, help="DMASS: lexical rules in its memory")
    parser.add_argument("--device", default=None, help="default: cuda if available, else cpu")
    parser.add_argument("--amp", action="store_true", help="bf16 autocast (CUDA only)")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    parser.add_argument("--compile", choices=["off", "default", "reduce-overhead"], default="off",
                        help="training.*.compile for the timed models: the decoder step under torch.compile (three "
                             "untimed warm-up batches instead of one; compile time reported apart)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    if args.batches < 1 or args.decode_sentences < 0:
        parser.error("--batches must be at least 1 (one more is run untimed first) and --decode-sentences not negative")
    if args.paper:
        args.experiments = list(PAPER_EXPERIMENTS)
    if args.threads:
        torch.set_num_threads(args.threads)
    device = pick_device(args.device)
    header = {"date": datetime.date.today().isoformat(), "device": describe_device(device),
              "machine": platform.machine(), "threads": torch.get_num_threads(),
              "amp": bool(args.amp and device.type == "cuda"), "torch": torch.__version__}
    print(", ".join(f"{k} {v}" for k, v in header.items()), flush=True)
    results = []
    for setting in settings(args):
        try:
            figures = bench(setting, args, device)
        except Exception as error:  # noqa: BLE001 - a compiler failure is a figure of its own; eager ones stop the run
            if args.compile == "off":
                raise
            reason = f"{type(error).__name__}: {str(error).strip().splitlines()[0] if str(error).strip() else ''}"
            results.append({"name": setting.name, "compile": args.compile, "error": reason[:500]})
            print(f"{setting.name:18s} compile {args.compile} failed: {reason[:200]}", flush=True)
            continue
        finally:
            if args.compile != "off":
                torch._dynamo.reset()  # each model compiles from scratch: no graph or recompile budget carried over
        results.append(figures)
        print(line(figures), flush=True)
    if args.json:
        write_text(args.json, json.dumps({**header, "results": results}, indent=1) + "\n")


if __name__ == "__main__":
    main()
