"""Training loop: Adam, gradient clipping, early stopping, resumable checkpoints.

Resumption is exact: the batch order of epoch ``e`` is drawn from a generator
seeded with ``seed + e`` and the global RNG state (dropout) is saved with the
weights after every epoch, so a run killed at any moment (``kill -9``
included) and restarted ends with the same weights as one never interrupted.
The resume state lives in ``<run>/resume/``, which neither engine declares (DVC declares ``<run>/resume.json``,
the digest, persistent and cached: :class:`paragen.pipeline.stage.Stage`), so neither deletes it before a rerun;
it is discarded when its digest no longer matches. The digest covers the model and
training settings and the *content* (sha256) of everything training reads:
training and validation pairs, the vocabulary and any validation reference
files, so regenerated data with the same counts never resumes a stale model.
The stopping rule (``max_epochs``, ``patience``) and the CPU thread count are
left out: they do not choose the trajectory, so raising ``max_epochs`` after a
run ends continues that run instead of starting over. The RNG states saved are
the CPU one, Python's and, on CUDA, every device's (dropout draws from those).

Under ``torchrun`` (:mod:`paragen.training.distributed`) the same loop trains on N processes: each takes a
contiguous share of every batch, DDP sums the gradients so that they equal the one-process gradient, and
rank 0 alone validates and writes; the resume state then keeps every rank's RNG states.
"""

from __future__ import annotations

import contextlib
import csv
import functools
import io
import logging
import math
import platform
import random
import time
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import torch

from paragen.atomic import write_json, atomic_path, write_text
from paragen.data.batching import Batch, batch_at, batch_order, iterate_batches
from paragen.config import DecodingConfig, ModelConfig, TrainingConfig, rules_used
from paragen.data.corpus import ParallelCorpus
from paragen.data.synthetic import tag_column
from paragen.decoding.decode import translate
from paragen.training.compiled import compile_step
from paragen.training.checkpoint import load_torch, restore_rng, resume_digest, rng_states, save_torch, stale_parts
from paragen.training.distributed import DistributedError, World, data_parallel, gradient_weight
from paragen.training.kept_epochs import forget, keeps, publish_epochs, save_epoch
from paragen.models import build_model, vocabulary_for
from paragen.models.seq2seq import Seq2Seq
from paragen.models.critic import RuleTable
from paragen.models.pretrained import EMBEDDINGS_FILE, initialise, vocabulary_tables
from paragen.training.objectives import objective
from paragen.training.schedules import set_rate
from paragen.training.runlock import run_lock
from paragen.metrics.degenerate import count_degenerate
from paragen.training.stopping import (RESUME_DIR, RESUME_RECORD, SESSIONS_FILE, STOPPING_KEYS, TrainState,
                                       replayed_stop)
from paragen.training.sums import DivergedError, EpochSums, divergence, stopped
from paragen.metrics.exact import accuracy_by_tag
from paragen.training.validation import Validator, make_validator
from paragen.data.vocabulary import Vocabulary
from paragen.progress import progress_bar

log = logging.getLogger(__name__)

LOG_FIELDS = ("epoch", "train_loss", "valid_loss", "valid_metric", "wall_time_s", "tokens_per_s", "train_accuracy",
              "valid_accuracy")
"""Columns of train_log.csv; ``training.*.log_metrics`` add ``valid_<metric>`` columns after them."""
POSTFIX_EVERY = 100
"""Batches between two updates of the progress bar's running loss: each update waits for the device."""


def describe_device(device: torch.device, amp: bool = False) -> str:
    """The hardware a run trained on, in words, for the tables' captions (GPU name, with "bf16 autocast" when
    ``training.amp`` ran it so; or CPU model and threads, where amp does nothing)."""
    if device.type == "cuda":
        return torch.cuda.get_device_name(device) + (", bf16 autocast" if amp else "")
    model = next((line.split(":", 1)[1].strip() for line in _read_cpuinfo().splitlines()
                  if line.startswith("model name")), platform.machine())
    return f"CPU {model}, {torch.get_num_threads()} thread(s)"


def _read_cpuinfo() -> str:
    try:
        return Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def pick_device(requested: str | None = None, world: World = World()) -> torch.device:
    """CUDA when available unless a device is named; under torchrun each process takes cuda:LOCAL_RANK."""
    device = torch.device(requested or ("cuda" if torch.cuda.is_available() else "cpu"))
    if device.type != "cuda" or world.size == 1:
        return device
    if device.index is not None:
        raise DistributedError(f"--device {requested}: under torchrun each process uses cuda:LOCAL_RANK; "
                               "pass --device cuda (or nothing)")
    if world.local_rank >= torch.cuda.device_count():
        raise DistributedError(f"LOCAL_RANK {world.local_rank} needs GPU {world.local_rank}, but this machine "
                               f"has {torch.cuda.device_count()}: lower --nproc-per-node")
    return torch.device("cuda", world.local_rank)


class TrainingError(ValueError):
    """A run cannot continue as configured; the message says what to do."""


def check_stopping_rule(state: TrainState, training: TrainingConfig, resume_dir: Path) -> None:
    """Refuse a resumed run that trained past where the current stopping rule would have stopped it.

    Its later epochs cannot be undone (only the latest and the best weights are kept), so publishing
    it would credit the new setting with epochs it forbids.
    """
    stop = replayed_stop(state.log_rows, training)
    if stop < state.epoch:
        raise TrainingError(
            f"{resume_dir.parent}: already trained {state.epoch} epochs, but max_epochs {training.max_epochs} / "
            f"patience {training.patience} / min_epochs {training.min_epochs} stop at epoch {stop}, and the weights of epoch {stop} were not kept. "
            f"Set them back so that training runs at least {state.epoch} epochs, or delete {resume_dir} to train "
            f"from scratch with the new rule")


def _log_csv(rows: list[dict[str, float]]) -> str:
    buffer = io.StringIO()
    extra = [key for row in rows for key in row if key not in LOG_FIELDS]
    writer = csv.DictWriter(buffer, fieldnames=list(LOG_FIELDS) + list(dict.fromkeys(extra)), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


@torch.no_grad()
def validation_loss(model: Seq2Seq, data: ParallelCorpus, vocab: Vocabulary, batch_size: int,
                    device: torch.device) -> tuple[float, float]:
    """Teacher-forced loss per token and token accuracy (%) on the validation split."""
    model.eval()
    sums = EpochSums(device)
    for batch in iterate_batches(data.sources, data.targets, vocab, batch_size):
        result = model.loss(batch.to(device))  # the word NLL, as train_loss reports it (not auxiliary terms)
        sums.add(result, result.terms)
    total, tokens, correct, _ = sums.read()
    return total / max(tokens, 1), 100.0 * correct / max(tokens, 1)


def _epoch_row(model: Seq2Seq, valid_data: ParallelCorpus, vocab: Vocabulary, training: TrainingConfig,
               device: torch.device, validator: Validator | None, monitors: dict[str, Validator], epoch: int,
               sums: Sequence[float], started: float, train_time: float) -> tuple[dict[str, float], float]:
    """Validate after an epoch: its log row and the (unrounded) selection metric. ``sums`` are the epoch's
    summed NLL, target tokens, correctly predicted tokens and critic loss, over every rank."""
    total_loss, total_tokens, total_correct, total_critic = sums
    valid_loss, valid_accuracy = validation_loss(model, valid_data, vocab, training.batch_size, device)
    trained = f"after epoch {epoch} (training loss {total_loss / max(total_tokens, 1):.4g} a token)"
    if not math.isfinite(valid_loss):  # finite training losses, but weights so large that nothing is finite now
        raise DivergedError(f"validation loss is {valid_loss} {trained}")
    outputs = None
    if validator is not None or monitors:
        greedy = DecodingConfig(beam_size=1, nbest=1, max_length=training.valid_max_length,
                                batch_size=training.batch_size, stopping="early")
        hyps = translate(model, valid_data.sources, vocab, device=device, **greedy.model_dump(exclude={"threads"}))
        empty = sum(1 for h in hyps if not h.nbest)
        if empty:  # every score -inf or NaN: a healthy model always ends a sentence by max_length
            raise DivergedError(f"greedy decoding found no output for {empty} of {len(hyps)} validation sentences "
                                f"{trained}")
        outputs = [h.nbest[0] for h in hyps]
    # float(): metrics may come back as numpy scalars, which a weights-only load of the resume state refuses
    metric = float(validator(outputs)) if validator is not None else -valid_loss
    by_tag = exact_match_by_tag(outputs, valid_data) if outputs is not None else {}
    row = {"epoch": epoch, "train_loss": round(total_loss / max(total_tokens, 1), 5),
           "valid_loss": round(valid_loss, 5), "valid_metric": round(metric, 4),
           "wall_time_s": round(time.perf_counter() - started, 2),
           "tokens_per_s": round(total_tokens / max(train_time, 1e-9), 1),
           "train_accuracy": round(100.0 * total_correct / max(total_tokens, 1), 3),
           "valid_accuracy": round(valid_accuracy, 3),
           **{f"valid_{m}": round(float(score(outputs)), 4) for m, score in monitors.items()},
           **{tag_column(tag): round(value, 4) for tag, value in by_tag.items()},
           **(_degenerate_columns(outputs) if outputs is not None else {}),
           **({"train_critic": round(total_critic / max(total_tokens, 1), 5)} if training.critic else {})}
    return row, metric


def _degenerate_columns(outputs: list[list[str]]) -> dict[str, int]:
    """The greedy validation outputs that are empty or one token repeated, and how many there are: a run that
    writes nothing scores 0 without a word, so its training outcome says so (paragen.metrics.degenerate)."""
    counts = count_degenerate(outputs)
    return {"valid_empty": counts.empty, "valid_repeated": counts.repeated, "valid_lines": counts.lines}


def exact_match_by_tag(outputs: list[list[str]], data: ParallelCorpus) -> dict[str, float]:
    """Exact match (%) of the greedy validation outputs within each tag (the synthetic data's rule types);
    empty for data without tags."""
    if data.tags is None:
        return {}
    scores = accuracy_by_tag([[h] for h in outputs], data.targets, data.tags)
    return {tag: float(row["top1"]) for tag, row in scores.items() if tag != "all"}


def autocast(device: torch.device, enabled: bool) -> torch.autocast:
    """bf16 mixed precision on CUDA (docs/architecture.md, principle 8); a no-op context elsewhere."""
    return torch.autocast(device_type=device.type, dtype=torch.bfloat16, enabled=enabled and device.type == "cuda")


def epoch_batches(train_data: ParallelCorpus, lengths: Sequence[int], vocab: Vocabulary, batch_size: int, seed: int,
                  world: World = World()) -> tuple[int, Iterator[tuple[Batch, bool]]]:
    """One epoch's batches (this process's share of each, with the counts DDP weighs it by), in the order the
    generator seeded with ``seed`` draws, and how many there are.

    Built one at a time as training consumes them: an epoch's tensors at once would hold every training pair as
    padded ids (Gigaword's 3.8M pairs: gigabytes). The order is drawn up front, so it is the same either way."""
    generator = torch.Generator().manual_seed(seed)
    shares = [world.share(ids) for ids in batch_order(lengths, batch_size, generator)]
    return len(shares), ((batch_at(train_data.sources, train_data.targets, vocab, ids), counts)
                         for ids, counts in shares)


def _holding_run_lock(train_fn: Callable[..., TrainState]) -> Callable[..., TrainState]:
    """Run ``train_fn`` while holding its ``run_dir``'s lock (:func:`paragen.training.runlock.run_lock`); under
    torchrun rank 0 holds it for all ranks (the others write nothing, and would refuse each other)."""
    @functools.wraps(train_fn)
    def locked(**kwargs: Any) -> TrainState:
        with run_lock(kwargs["run_dir"]) if World.current().main else contextlib.nullcontext():
            return train_fn(**kwargs)
    return locked


@_holding_run_lock
def train(*, model_config: ModelConfig, training: TrainingConfig, train_data: ParallelCorpus,
          valid_data: ParallelCorpus, vocab: Vocabulary, run_dir: str | Path, device: torch.device,
          progress: bool = True, stop_after_epoch: int | None = None,
          validator: Validator | None = None, extra_inputs: Sequence[str | Path] = (),
          monitors: dict[str, Validator | None] | None = None,
          rule_tables: dict[str, RuleTable] | None = None, rule_files: Sequence[str | Path] = (),
          training_name: str | None = None) -> TrainState:
    """Train to completion (or resume a killed run) and publish ``best.pt``, ``last.pt``, ``train_log.csv``.

    ``validator`` scores greedy validation hypotheses for model selection (default: exact match
    against the validation targets; see :mod:`paragen.training.validation`); ``extra_inputs`` are further files
    it reads (validation references), whose content enters the resume digest. ``stop_after_epoch`` ends the
    process-local loop early *without* publishing, the in-process stand-in for an interruption
    used by tests. The run directory is locked for the duration (a second trainer refuses). A non-finite loss or
    gradient stops the run with :class:`DivergedError` before that epoch writes anything; ``training_name`` (the
    name under ``training:``) lets its message name the key to lower.

    In a process group (torchrun, :mod:`paragen.training.distributed`) every rank calls this: ``batch_size`` is the
    global batch, each rank trains on its share, and rank 0 alone validates and writes files.
    """
    world = World.current()
    vocab = vocabulary_for(model_config, vocab)  # batches, the model and its checkpoint share it (SPM: + <tpad>)
    run_dir = Path(run_dir)
    resume_dir = run_dir / RESUME_DIR  # no engine's output: kept across reruns, never cached (pipeline.stage.Stage.kept)
    resume_path, best_path = resume_dir / "state.pt", resume_dir / "best.pt"
    digest = resume_digest(model_config, training, train_data, valid_data, vocab, extra_inputs, rule_files,
                           world.size)
    tables = rule_tables or {}
    for needed in rules_used(model_config, training):
        if needed not in tables:
            raise ValueError(f"rules {needed!r} are needed (dmass or critic) but were not given to train()")
    if training.threads:
        torch.set_num_threads(training.threads)

    torch.manual_seed(training.seed)
    random.seed(training.seed)
    model = build_model(model_config, len(vocab),
                        tables[model_config.dmass.rules] if model_config.dmass else None).to(device)
    critic_rules = tables[training.critic.rules].to(device) if training.critic else None
    if model_config.pretrained_embeddings is not None:  # before any resume: a resumed state overwrites it
        init = initialise(vocabulary_tables(model, len(vocab)), vocab, Path(model_config.pretrained_embeddings.path))
        if world.main:
            write_json(run_dir / EMBEDDINGS_FILE, init.as_json())
    if world.size > 1:  # the same initial weights on every rank (above), but each rank its own dropout stream
        torch.manual_seed(training.seed + world.rank)
        random.seed(training.seed + world.rank)
    optimizer = torch.optim.Adam(model.parameters(), lr=training.learning_rate, betas=training.adam_betas,
                                 eps=training.adam_eps)
    state = TrainState()

    if resume_path.exists():
        # On the CPU: the RNG states must stay CPU byte tensors (a CUDA map_location broke every GPU resume);
        # load_state_dict copies weights and optimiser moments onto the model's device.
        saved = load_torch(resume_path, torch.device("cpu"))
        changed = stale_parts(saved.get("digest"), digest)
        if not changed:
            model.load_state_dict(saved["model"])
            optimizer.load_state_dict(saved["optimizer"])
            state = TrainState(**saved["train_state"])
            check_stopping_rule(state, training, resume_dir)
            state.finished = state.stopped(training)
            restore_rng(saved["rank_rng"][world.rank] if world.size > 1 else saved)
            log.info("resuming %s after epoch %d", run_dir, state.epoch)
        else:
            log.warning("%s: starting over, not resuming %s: its %s changed since it was saved", run_dir.name,
                        resume_path, ", ".join(changed))

    if state.epoch == 0 and world.main:
        forget(resume_dir)  # kept epochs of an abandoned trajectory
    checkpoint_meta = {"model_config": model_config.model_dump(), "vocab_size": len(vocab), "digest": digest}
    if validator is None and training.valid_metric != "neg_loss":
        validator = make_validator(training.valid_metric, valid_data)
    monitors = {m: (monitors or {}).get(m) or make_validator(m, valid_data) for m in training.log_metrics}
    compiles = compile_step(model, training.compile, model_config.architecture)  # before any wrapper: per rank
    compute_loss = data_parallel(model, device, world)
    if not state.finished:
        session: dict[str, Any] = {"first_epoch": state.epoch + 1, "device": describe_device(device, training.amp),
                                   "stopping": {k: getattr(training, k) for k in STOPPING_KEYS}}
        if compiles is not None:
            session["compile"] = training.compile
        if world.size > 1:
            session.update(device=f"{world.size} x {session['device']}", processes=world.size)
        state.sessions = state.sessions + [session]
    lengths = [len(source) for source in train_data.sources]
    while not state.finished:
        if stop_after_epoch is not None and state.epoch >= stop_after_epoch:
            return state
        epoch = state.epoch + 1
        model.train()
        started = time.perf_counter()
        count, batches = epoch_batches(train_data, lengths, vocab, training.batch_size, training.seed + epoch, world)
        epoch_sums = EpochSums(device)
        showing = progress and world.main
        bar = progress_bar(batches, enabled=showing, total=count, desc=f"epoch {epoch}", unit="batch")
        for position, (batch, counts) in enumerate(bar, start=1):
            state.optimizer_steps += 1
            set_rate(optimizer, training, state.optimizer_steps, epoch)
            optimizer.zero_grad()
            with autocast(device, training.amp):
                result = compute_loss(batch.to(device))
                loss, terms = objective(result, batch, training, state.optimizer_steps, model, critic_rules)
            (loss * gradient_weight(result.tokens, counts, world, device)).backward()
            grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), training.clip_norm)
            optimizer.step()
            epoch_sums.watch(position, loss, grad_norm)  # also a rank without a share: its NaN reaches every rank
            if counts:
                epoch_sums.add(result, terms)
            if showing and (position % POSTFIX_EVERY == 0 or position == count):  # short epochs show it once
                running = epoch_sums.mean_loss()
                bar.set_postfix(loss=f"{running:.3f}")
                if world.size == 1 and not math.isfinite(running):
                    break  # diverged: every later batch would be NaN too; the check below names the first one
        local, first_bad = epoch_sums.read_watched()  # the read waits for the queued work
        totals = world.all_sum(local + [float(first_bad > 0)], device)  # every rank's
        sums = totals[:4]
        train_time = time.perf_counter() - started  # so the clock stops when the device has finished
        if totals[4] or not all(math.isfinite(value) for value in sums):  # every rank alike: all stop here
            raise divergence(run_dir, epoch, count, state.epoch, first_bad, epoch_sums, world, device,
                             training_name)
        if world.main:
            try:
                row, metric = _epoch_row(model, valid_data, vocab, training, device, validator, monitors, epoch,
                                         sums, started, train_time)
            except DivergedError as error:  # before this epoch writes anything, as above
                raise stopped(run_dir, str(error), state.epoch, training_name) from None
            log.info("%s epoch %d  train loss %.4f  valid loss %.4f  valid %s %.2f  %.1fs  %.0f tok/s",
                     run_dir.name, epoch, row["train_loss"], row["valid_loss"], training.valid_metric,
                     row["valid_metric"], row["wall_time_s"], row["tokens_per_s"])
            state.log_rows = state.log_rows + [row]
            if compiles is not None:  # inside the epoch's wall time and tokens/s: reported apart here
                log.info("%s epoch %d: %d compilation(s) so far, %.1f s compiling", run_dir.name, epoch,
                         compiles.count, compiles.seconds)
                state.sessions = state.sessions[:-1] + [{**state.sessions[-1], "compilations": compiles.count,
                                                         "compile_s": round(compiles.seconds, 1)}]
            weights = {**checkpoint_meta, "model": model.state_dict(), "epoch": epoch, "valid_metric": metric}
            if state.record(epoch, metric, row["valid_loss"], training.floor_by_loss):
                save_torch(weights, best_path)
            if keeps(training, epoch):
                save_epoch(resume_dir, epoch, weights)
            state.finished = state.stopped(training)
        ranks_rng = world.gather(rng_states())  # after validation, where the next epoch continues from
        if world.main:
            save_torch({"digest": digest, "model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "train_state": state.__dict__,
                        **(ranks_rng[0] if world.size == 1 else {"rank_rng": ranks_rng})}, resume_path)
        state = world.from_main(state)  # rank 0's record and stop decision

    if world.main:
        save_torch({**checkpoint_meta, "model": model.state_dict(), "epoch": state.epoch,
                    "valid_metric": state.log_rows[-1]["valid_metric"]}, run_dir / "last.pt")
        write_text(run_dir / "train_log.csv", _log_csv(state.log_rows))
        write_json(run_dir / SESSIONS_FILE, state.sessions)
        write_json(run_dir / RESUME_RECORD, digest)  # the same settings and data give the same file (pipeline.stage)
        if training.keep_epochs:
            publish_epochs(resume_dir, run_dir)
        # best.pt is published last: its presence marks a completed stage.
        with atomic_path(run_dir / "best.pt") as tmp:
            tmp.write_bytes(best_path.read_bytes())
    world.barrier()  # every rank returns once the run is published
    return state
