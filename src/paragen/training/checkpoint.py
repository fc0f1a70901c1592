"""Checkpoints and the resume state: what a run saves, how a saved file is checked before it is trusted, and the
digest that says whether a resume state still belongs to the current settings and data (see
:mod:`paragen.training.trainer` for what resumption promises)."""

from __future__ import annotations

import errno
import hashlib
import json
import random
from pathlib import Path
from typing import Any, Sequence

import torch

from paragen.atomic import atomic_path
from paragen.config import ModelConfig, TrainingConfig
from paragen.data.corpus import ParallelCorpus
from paragen.data.fetch import digests
from paragen.data.vocabulary import Vocabulary
from paragen.models import build_model
from paragen.models.critic import RuleTable
from paragen.models.seq2seq import Seq2Seq


def config_digest(*parts: Any) -> str:
    """Stable digest of the settings a checkpoint was trained with."""
    blob = json.dumps([p.model_dump() if hasattr(p, "model_dump") else p for p in parts], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def corpus_digest(corpus: ParallelCorpus) -> str:
    """sha256 of a corpus's token content: any change to a pair, even at equal counts, changes it."""
    digest = hashlib.sha256()
    for source, target in zip(corpus.sources, corpus.targets):
        digest.update(("\x1f".join(source) + "\t" + "\x1f".join(target) + "\n").encode())
    return digest.hexdigest()[:16]


def resume_digest(model_config: ModelConfig, training: TrainingConfig, train_data: ParallelCorpus,
                  valid_data: ParallelCorpus, vocab: Vocabulary, extra_inputs: Sequence[str | Path] = (),
                  rule_files: Sequence[str | Path] = (), world_size: int = 1) -> dict[str, str]:
    """What a resumable state must have been trained on, part by part (so a mismatch can say which part).

    Settings enter with their non-default values only, so a field added later (with a default) leaves
    existing states resumable; what only changes the log or the stopping point is left out. ``compile`` is in:
    a compiled step draws its dropout masks from inductor's generator, so it is another trajectory. The number of
    training processes is a part (when above one): each has its own dropout stream and RNG state, so
    another number cannot continue the same trajectory.
    """
    trajectory = training.model_dump(exclude={"max_epochs", "patience", "min_epochs", "threads", "log_metrics",
                                              "keep_epochs"},
                                     exclude_defaults=True)
    digest = {
        "model and training settings": config_digest(model_config.model_dump(exclude_defaults=True), trajectory),
        "training data": corpus_digest(train_data),
        "validation data": corpus_digest(valid_data),
        "vocabulary": config_digest(vocab.itos),
        "validation references": config_digest([digests(Path(p))[0][:16] for p in extra_inputs]),
    }
    if rule_files:  # only runs with DMASS or a critic have this part (older states stay resumable)
        digest["rule files"] = config_digest([digests(Path(p))[0][:16] for p in rule_files])
    if world_size > 1:
        digest["world size"] = str(world_size)
    return digest


def save_torch(obj: Any, path: Path) -> None:
    """``torch.save`` atomically; torch's own write failure (a RuntimeError, e.g. on a full disk) becomes one
    OSError naming ``path``."""
    with atomic_path(path) as tmp:
        try:
            torch.save(obj, tmp)
        except RuntimeError as error:
            first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise OSError(errno.EIO, f"could not write ({first}); is the disk full?", str(tmp)) from None


class CheckpointError(ValueError):
    """A checkpoint file cannot be read as plain tensors and data (corrupt, truncated or unsafe)."""


def load_torch(path: str | Path, device: torch.device) -> dict:
    """Load a checkpoint as plain data (``weights_only``): a file from elsewhere cannot run code."""
    try:
        checkpoint = torch.load(path, map_location=device, weights_only=True)
    except FileNotFoundError:
        raise
    except Exception as error:  # torch raises UnpicklingError, RuntimeError, UnicodeDecodeError, EOFError...
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise CheckpointError(f"{path}: not a readable paragen checkpoint ({first_line}); it may be corrupt, "
                              "truncated, or hold objects other than tensors and plain data. Delete it and "
                              "rerun the stage that writes it") from None
    if not isinstance(checkpoint, dict):
        raise CheckpointError(f"{path}: not a paragen checkpoint (holds a {type(checkpoint).__name__})")
    return checkpoint


def load_model(path: str | Path, device: torch.device) -> tuple[Seq2Seq, dict]:
    """Rebuild a model from a checkpoint written by :func:`train`."""
    checkpoint = load_torch(path, device)
    config = ModelConfig.from_checkpoint(checkpoint["model_config"])
    rules = None
    if config.dmass is not None:  # the memory's size comes from the checkpoint (its rules are saved with it)
        weights = checkpoint["model"]
        rules = RuleTable(weights["memory.complex_ids"], weights["memory.simple_ids"],
                          torch.ones(weights["memory.complex_ids"].numel()))
    model = build_model(config, checkpoint["vocab_size"], rules)
    model.load_state_dict(checkpoint["model"])
    return model.to(device), checkpoint


def stale_parts(saved: Any, current: dict[str, str]) -> list[str]:
    """Names of the digest parts that differ, present on one side only included (every part, for a state
    from an older digest format)."""
    if not isinstance(saved, dict):
        return list(current)
    return [name for name in dict.fromkeys([*current, *saved]) if saved.get(name) != current.get(name)]


def rng_states() -> dict[str, Any]:
    """Every random generator training draws from: CPU (and, on CUDA, every device's) and Python's."""
    states: dict[str, Any] = {"rng": torch.get_rng_state(), "py_rng": random.getstate()}
    if torch.cuda.is_available():
        states["cuda_rng"] = torch.cuda.get_rng_state_all()
    return states


def restore_rng(saved: dict[str, Any]) -> None:
    torch.set_rng_state(saved["rng"])
    random.setstate(saved["py_rng"])
    if "cuda_rng" in saved and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(saved["cuda_rng"])
