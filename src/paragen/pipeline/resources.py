"""What each stage asks a cluster for: GPUs, host memory, wall time (GPU resources per rule: docs/cluster.md).

The DAG is built before any data exists, so every size here is an estimate from ``params.yaml`` alone: the
training set's size (the paper's count, or the recipe's estimate), the model's shape, ``max_epochs``, the
decoding settings and ``experiments.*.gpus``. The engines attach the requests to their rules
(``workflow/rules/stages.smk`` passes them as Snakemake's ``resources:``); a cluster profile maps them to
partitions (``workflow/profiles/slurm``), so no rule and no profile names a partition for a rule.

Where a size was measured, the measurement is a table in this module with its date and machine:

- data stages (prepare, segment by scheme, vocabulary): seconds and peak memory per million training pairs,
  from the full-size rehearsal of six datasets (``bench/rehearse_data.py``, ``results/rehearsal/*.json``);
- a training process's data: peak memory per million pairs while building an epoch's batches (same source);
- training speed on a GPU, per experiment: the rate ``bench/train_speed.py --device cuda --json FILE`` measured
  for it, where a file of :data:`RATES_DIR` holds one (``tests/test_resources.py`` works one request out by
  hand); otherwise **projected** from one measurement, 7,000 target tokens/s, the slowest of the four
  paper-scale synthetic models (CopyNet's 7,400) rounded down, training on one H100 while sharing it with the
  other three (``results/logs/copynet_synthetic_paper_scale/h100_old_data/``) at a batch of 64. That decoder
  loop is bound by kernel launches, not arithmetic, so the projection grows with the decoding steps (tokens
  over the batch size), epochs and decoder layers. No FLOP rate is assumed: a model far from launch-bound
  (much wider than the papers') should be measured, and its measurement replaces the projection.

Times are then doubled (validation decoding after each epoch, slower machines) and memory given half again
its measured peak, then rounded up, because a job that outlives its wall time or its memory is killed. No
request exceeds ``max_runtime`` (params.yaml): a training estimated longer asks for that much and goes on in
the next job, since a rerun resumes after the last finished epoch (:func:`train_estimate` says how many jobs).
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from paragen.config import (DecodingConfig, HeadlineSyntheticDataset, LocalDataset, ModelConfig, ParagenConfig,
                            RealDataset, SyntheticDataset)
from paragen.data.vocabulary import SPECIALS

MEASURED_TOKENS_PER_S = 7_000
"""Target tokens per second per decoder layer on one GPU at a batch of :data:`MEASURED_BATCH`: the base of the
projection for an experiment without a measured GPU rate (see the module docstring)."""
MEASURED_BATCH = 64
"""The batch size of that measurement (``training.synthetic_paper.batch_size``)."""
RATES_DIR = Path("results") / "train_speed"
"""``bench/train_speed.py --json`` files, relative to the project root where both engines build the DAG."""
TOKENS_PER_PAIR = 25
"""Target tokens of one training pair: the papers' data run 9 (Gigaword headlines) to 21 (Turk) words."""
SOURCE_TOKENS_PER_PAIR = 40
"""Source tokens of one training pair, which SPM's decoder runs over (:func:`decoder_steps_per_pair`): Gigaword's
sources measured 38.6 BPE units a pair (results/rehearsal/gigaword.json)."""
SAFETY = 2.0
OVERHEAD_MINUTES = 10
"""Start-up: importing torch, reading the data, building the vocabulary and the model."""
DECODE_SENTENCES_PER_S = 30
"""Beam-10 decoding on one CPU thread (trained CopyNet, 300 test sentences in 10.2 s: docs/speed.md); a GPU
is not slower, and decoding is always small next to training."""
UNKNOWN_VOCABULARY = 50_000
"""A real dataset that keeps every token type: sized as the papers' largest vocabulary (WEAN's 50,000)."""
BPE_ALPHABET = 1_000
"""Units of a BPE vocabulary besides its merges (characters, end-of-word forms): an upper bound; Gigaword's
5,000 merges gave 4,887 units in the rehearsal (results/rehearsal/gigaword.json)."""
MEASURED_ON = "2026-11-24, 2 cores (AMD EPYC), 24 GiB"
"""Date and machine of the data-stage rates below (``results/rehearsal/*.json``)."""


@dataclass(frozen=True)
class StageRate:
    """One stage's measured cost per million training pairs: the largest over the rehearsed datasets of at least
    250,000 pairs (below that the process's fixed cost dominates and fits in :data:`CPU_BASE_MB` anyway)."""

    seconds_per_million_pairs: float
    mb_per_million_pairs: float  # peak resident memory, the process included


DATA_STAGE_RATES: dict[str, StageRate] = {
    "prepare": StageRate(30.5, 1518),  # LCSTS: the XML parsed and deduplicated
    "segment word": StageRate(16.4, 709),  # EW-SEW
    "segment bpe": StageRate(77.8, 1509),  # Gigaword: subword-nmt learns 5,000 merges and applies them
    "segment char": StageRate(25.1, 1201),  # LCSTS
    "segment jieba": StageRate(413.1, 1146),  # LCSTS: jieba over 2.4 M texts, the slowest stage measured
    "vocab": StageRate(37.4, 181),  # LCSTS jieba words (time), EW-SEW (memory)
    "epoch batches": StageRate(155.2, 1477),  # LCSTS characters: one epoch's batches, inside training
}
"""Measured on :data:`MEASURED_ON`; ``tests/test_resources.py`` checks each entry against the rehearsal files."""
BYTES_PER_PAIR = DATA_STAGE_RATES["epoch batches"].mb_per_million_pairs
"""Host memory per training pair of a process holding the data and one epoch's batches."""
BASE_MB = 4_000
"""torch with a CUDA context and the process around it."""
BYTES_PER_PARAMETER = 16
"""fp32 weights, gradients and Adam's two moments."""
CPU_BASE_MB = 2_000
DATA_OVERHEAD_MINUTES = 5
"""Start-up of a data stage: importing paragen, checking its inputs' digests."""
MEMORY_MARGIN = 1.5
"""Measured peak memory times this (longer sentences, another machine's allocator)."""


@dataclass(frozen=True)
class Resources:
    """One stage's request; the defaults are a small CPU job."""

    gpus: int = 0
    mem_mb: int = CPU_BASE_MB
    runtime: int = 30  # minutes of wall time

    def __post_init__(self) -> None:
        if self.gpus < 0 or self.mem_mb <= 0 or self.runtime <= 0:
            raise ValueError(f"resources must be positive (gpus may be 0): {self}")

    def snakemake(self) -> dict[str, int]:
        """Snakemake's standard names (``mem_mb``; ``runtime`` in minutes) and ``gpu``, which the SLURM executor
        plugin turns into ``sbatch --gpus=N`` and into its choice of a partition with GPUs."""
        return {"gpu": self.gpus, "mem_mb": self.mem_mb, "runtime": self.runtime}


CPU_STAGE = Resources()
FETCH_STAGE = Resources(runtime=120)
"""Downloads (GloVe is 822 MB) and archive extraction."""


def _round_up(value: float, step: int) -> int:
    return max(step, int(math.ceil(value / step)) * step)


def vocabulary_size(config: ParagenConfig, dataset: str) -> int:
    """Token types a model over this dataset embeds and predicts (an upper bound where the data decide)."""
    spec = config.datasets[dataset]
    if isinstance(spec, SyntheticDataset):
        return spec.symbols + len(SPECIALS)
    if isinstance(spec, HeadlineSyntheticDataset):
        rewritten = math.ceil(spec.content_words * spec.rewrite_fraction)
        return spec.content_words + spec.filler_words + rewritten + len(SPECIALS)
    assert isinstance(spec, RealDataset)
    if spec.vocab_size is None and spec.segmentation == "bpe":
        return spec.merges + BPE_ALPHABET + len(SPECIALS)
    return (spec.vocab_size or UNKNOWN_VOCABULARY) + len(SPECIALS)


def split_pairs(config: ParagenConfig, dataset: str, split: str) -> int:
    """Pairs in a split before it exists: computed for synthetic data, the recipe's count for real data."""
    spec = config.datasets[dataset]
    if isinstance(spec, SyntheticDataset):
        half = spec.rules * spec.instances_per_rule // 2  # each rule's instances go half to train, half to test
        valid = round(half * spec.valid_fraction)  # out of the train half
        return {"train": half - valid, "valid": valid, "test": half}[split]
    if isinstance(spec, HeadlineSyntheticDataset):
        return {"train": spec.train_pairs, "valid": spec.valid_pairs, "test": spec.test_pairs}[split]
    if isinstance(spec, LocalDataset):
        return _line_count(Path(spec.files[split].source.path))
    from paragen.data.prepare import RECIPES

    assert isinstance(spec, RealDataset)
    recipe = spec.recipe or dataset
    count = RECIPES[recipe].expected_count(split)
    if count is None:
        raise ValueError(f"datasets.{dataset}: recipe {recipe!r} has no paper count or estimate of its {split!r} "
                         "split to size cluster requests with; add one to its Recipe in paragen/data/prepare.py")
    return count


UNSEEN_LOCAL_PAIRS = 100_000
"""Pairs assumed for a local split whose file is not there yet (the prepare stage will say it is missing)."""


def _line_count(path: Path) -> int:
    """Lines of a local file (newline bytes, read in 1 MiB chunks), or :data:`UNSEEN_LOCAL_PAIRS` without one."""
    if not path.is_file():
        return UNSEEN_LOCAL_PAIRS
    with open(path, "rb") as handle:
        return max(1, sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b"")))


def multiply_adds_per_token(model: ModelConfig, vocabulary: int) -> int:
    """Weights one target token passes through in training, roughly (a source token per target token assumed);
    the output layer over the vocabulary included, the embedding lookups not."""
    if model.architecture == "transformer":
        d, heads = model.embedding_size, model.heads * model.key_size
        feedforward = 2 * d * model.feedforward_width
        encoder = model.encoder_layers * (4 * d * heads + feedforward)
        decoder = model.decoder_layers * (8 * d * heads + feedforward)
        return encoder + decoder + vocabulary * d
    gates = 4 if model.cell == "lstm" else 3
    hidden, embedding = model.hidden_size, model.embedding_size
    directions = 2 if model.bidirectional else 1
    memory = hidden * directions if model.bidirectional_merge == "concat" else hidden
    encoder = directions * gates * hidden * (embedding + hidden) \
        + (model.encoder_layers - 1) * directions * gates * hidden * (memory + hidden)
    decoder = gates * hidden * (embedding + memory + hidden) + (model.decoder_layers - 1) * gates * hidden * 2 * hidden
    attention = 2 * memory * hidden if model.architecture != "encdec" else 0
    output = vocabulary * (embedding if model.architecture == "wean" else hidden)
    return encoder + decoder + attention + output


def parameters(model: ModelConfig, vocabulary: int) -> int:
    """A rough parameter count: the per-token weights plus the embedding tables."""
    tables = 1 if model.share_embeddings else 2
    return multiply_adds_per_token(model, vocabulary) + tables * vocabulary * model.embedding_size


def _host_mb(pairs: int, model: ModelConfig, vocabulary: int) -> int:
    return BASE_MB + int(pairs * BYTES_PER_PAIR) // 10**6 + parameters(model, vocabulary) * BYTES_PER_PARAMETER // 10**6


def gpu_seconds_per_target_token(model: ModelConfig, batch_size: int, gpus: int = 1) -> float:
    """**Projected** training time of one target token on ``gpus`` GPUs sharing every batch.

    The decoder loop is bound by kernel launches: a step costs about the same for any batch, so the measured
    :data:`MEASURED_TOKENS_PER_S` (at a batch of :data:`MEASURED_BATCH`) scales with each process's share of the
    batch, per sequential decoder layer (teacher forcing runs a Transformer's layers in parallel over the
    target). Under that bound more GPUs do not shorten an epoch: each runs every step on a smaller share."""
    sequential_layers = 1 if model.architecture == "transformer" else model.decoder_layers
    share = math.ceil(batch_size / gpus)
    return sequential_layers * MEASURED_BATCH / (MEASURED_TOKENS_PER_S * share) / gpus


def decoder_steps_per_pair(model: ModelConfig, source_tokens: float, target_tokens: float) -> float:
    """Teacher-forced decoder steps of one pair: its target, or under SPM the target continued with <tpad> to the
    source's length (004 Eq. 9)."""
    return max(source_tokens, target_tokens) if model.source_prediction is not None else target_tokens


@dataclass(frozen=True)
class MeasuredRate:
    """One experiment's training throughput as ``bench/train_speed.py`` measured it on a GPU."""

    tokens_per_s: float  # the references' target tokens a second (SPM's <tpad> continuation is work, not counted)
    target_length: float  # mean target tokens a pair at which it was measured
    batch: int
    architecture: str
    device: str
    date: str


def measured_gpu_rates(directory: Path | None = None) -> dict[str, MeasuredRate]:
    """Per experiment, the slowest training rate that a ``*.json`` of ``directory`` (:data:`RATES_DIR`) measured
    on a GPU. Files measured on a CPU (``cpu.json``, the README's cost table) are skipped: training stages run
    on GPUs, and a CPU's rate says nothing about one."""
    folder = RATES_DIR if directory is None else directory
    files = sorted(folder.glob("*.json")) if folder.is_dir() else []
    return _rates_of(tuple((str(path), path.stat().st_mtime_ns) for path in files))


@functools.lru_cache(maxsize=8)
def _rates_of(files: tuple[tuple[str, int], ...]) -> dict[str, MeasuredRate]:
    """Read once per DAG, not once per stage (the modification times make an edited file read again)."""
    rates: dict[str, MeasuredRate] = {}
    for name, _ in files:
        try:
            measured = json.loads(Path(name).read_text(encoding="utf-8"))
            if str(measured["device"]).startswith("CPU"):
                continue
            for row in measured["results"]:
                rate = MeasuredRate(float(row["train_tokens_per_s"]), float(row["target_length"]), int(row["batch"]),
                                    str(row["architecture"]), str(measured["device"]), str(measured["date"]))
                if rate.tokens_per_s > 0 and (row["name"] not in rates
                                              or rate.tokens_per_s < rates[row["name"]].tokens_per_s):
                    rates[row["name"]] = rate
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"{name}: not a `bench/train_speed.py --json` file ({type(error).__name__}: {error})") \
                from None
    return rates


@dataclass(frozen=True)
class TrainEstimate:
    """A training stage's wall time before ``max_runtime`` caps it, and what the figure rests on."""

    pairs: int  # training pairs
    epoch_seconds: float  # one epoch at the rate below, plus the host's time to build its batches
    epochs: int  # max_epochs: early stopping may end sooner
    minutes: int  # start-up + SAFETY x epochs x epoch_seconds, rounded up to 10 minutes
    basis: str  # "measured: ..." or "projected: ..."

    def jobs(self, max_runtime: int) -> int | None:
        """Jobs of ``max_runtime`` minutes the training needs at the doubled rate: each resumes after the last
        finished epoch and loses the one under way when the cluster stops it. None: not one epoch fits a job,
        so the training would never get on (raise ``max_runtime``)."""
        if self.minutes <= max_runtime:
            return 1
        per_job = math.floor((max_runtime - OVERHEAD_MINUTES) * 60 / (SAFETY * self.epoch_seconds))
        return math.ceil(self.epochs / per_job) if per_job >= 1 else None


def train_estimate(config: ParagenConfig, experiment: str, rates: dict[str, MeasuredRate] | None = None
                   ) -> TrainEstimate:
    """``max_epochs`` epochs of this experiment, each its training pairs' decoder work at the experiment's measured
    GPU rate (:func:`measured_gpu_rates`, when measured at its own batch and architecture) or else at the
    launch-bound projection (:func:`gpu_seconds_per_target_token`, :data:`TOKENS_PER_PAIR` target tokens a pair),
    plus the host's batching; doubled, with start-up. A rate measured on one GPU stands for several too: under
    the launch bound more GPUs do not shorten an epoch."""
    spec = config.experiments[experiment]
    model, training = config.models[spec.model], config.training[spec.training]
    pairs = split_pairs(config, spec.dataset, "train")
    batching = DATA_STAGE_RATES["epoch batches"].seconds_per_million_pairs * pairs / 10**6  # on the host, per epoch
    rate = (measured_gpu_rates() if rates is None else rates).get(experiment)
    if rate is not None and (rate.batch, rate.architecture) == (training.batch_size, model.architecture):
        epoch = pairs * rate.target_length / rate.tokens_per_s + batching
        basis = f"measured: {rate.tokens_per_s:,.0f} target tokens/s on {rate.device} ({rate.date})"
    else:
        steps = decoder_steps_per_pair(model, SOURCE_TOKENS_PER_PAIR, TOKENS_PER_PAIR)
        epoch = pairs * steps * gpu_seconds_per_target_token(model, training.batch_size, spec.gpus) + batching
        basis = (f"projected: {MEASURED_TOKENS_PER_S:,} target tokens/s per decoder layer at a batch of "
                 f"{MEASURED_BATCH} (one H100 measurement), scaled to a batch of {training.batch_size}")
    minutes = _round_up(OVERHEAD_MINUTES + SAFETY * training.max_epochs * epoch / 60, 10)
    return TrainEstimate(pairs, epoch, training.max_epochs, minutes, basis)


def train_resources(config: ParagenConfig, experiment: str, rates: dict[str, MeasuredRate] | None = None
                    ) -> Resources:
    """``experiments.*.gpus`` GPUs (torchrun shares the epochs among them), wall time for ``max_epochs`` epochs
    (:func:`train_estimate`) up to ``max_runtime``, host memory for each process's copy of the data and model."""
    spec = config.experiments[experiment]
    estimate = train_estimate(config, experiment, rates)
    host_mb = _host_mb(estimate.pairs, config.models[spec.model], vocabulary_size(config, spec.dataset))
    return Resources(gpus=spec.gpus, mem_mb=_round_up(spec.gpus * host_mb, 1000),
                     runtime=min(estimate.minutes, config.max_runtime))


def decode_resources(config: ParagenConfig, experiment: str, split: str = "test") -> Resources:
    """One GPU (beam search runs on one device), the test split decoded (one of a dataset's ``test_splits``) at
    the measured beam-10 rate scaled by the beam."""
    spec = config.experiments[experiment]
    model, decoding = config.models[spec.model], config.decoding[spec.decoding]
    vocabulary = vocabulary_size(config, spec.dataset)
    sentences = split_pairs(config, spec.dataset, split)
    seconds = SAFETY * sentences * _beam_factor(decoding) / DECODE_SENTENCES_PER_S
    return Resources(gpus=1, mem_mb=_round_up(_host_mb(sentences, model, vocabulary), 1000),
                     runtime=min(_round_up(OVERHEAD_MINUTES + seconds / 60, 10), config.max_runtime))


def _beam_factor(decoding: DecodingConfig) -> float:
    return max(1.0, decoding.beam_size / 10) * max(1.0, decoding.max_length / 80)


@dataclass(frozen=True)
class DataRequests:
    """The requests of one dataset's three data stages."""

    prepare: Resources
    segment: Resources
    vocab: Resources


def data_resources(config: ParagenConfig, dataset: str) -> DataRequests:
    """prepare / segment / vocabulary of a real or local dataset's splits: CPU only, sized from the measured
    per-million-pair rates (:data:`DATA_STAGE_RATES`) over all its splits' pairs."""
    spec = config.datasets[dataset]
    assert isinstance(spec, RealDataset)
    millions = sum(split_pairs(config, dataset, split) for split in spec.splits) / 10**6
    return DataRequests(*(data_stage_request(DATA_STAGE_RATES[key], millions, config.max_runtime)
                          for key in ("prepare", f"segment {spec.segmentation}", "vocab")))


def data_stage_request(rate: StageRate, millions: float, max_runtime: int | None = None) -> Resources:
    """Measured time doubled plus start-up (at most ``max_runtime``), measured memory times :data:`MEMORY_MARGIN`
    over the base."""
    runtime = _round_up(DATA_OVERHEAD_MINUTES + SAFETY * rate.seconds_per_million_pairs * millions / 60, 10)
    return Resources(mem_mb=_round_up(CPU_BASE_MB + MEMORY_MARGIN * rate.mb_per_million_pairs * millions, 1000),
                     runtime=runtime if max_runtime is None else min(runtime, max_runtime))


def serial(requests: Iterable[Resources]) -> Resources:
    """One job that runs these stages one after another (``dvc repro`` inside ``sbatch``): the most GPUs and
    memory any stage asks for, the sum of their wall times."""
    requests = list(requests)
    if not requests:
        raise ValueError("no stages to run")
    return Resources(gpus=max(r.gpus for r in requests), mem_mb=max(r.mem_mb for r in requests),
                     runtime=sum(r.runtime for r in requests))
