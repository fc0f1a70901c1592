"""An epoch's numbers kept on the training device (issue 29: no host-device wait per batch), and what a
diverged epoch says: the trainer (:mod:`paragen.training.trainer`) reads them once per epoch."""

from __future__ import annotations

import math
from pathlib import Path

import torch

from paragen.models.seq2seq import Loss
from paragen.training.distributed import World


class EpochSums:
    """An epoch's summed word NLL, target tokens, correctly predicted tokens and critic loss, kept as one float64
    tensor on the training device, so that no batch waits for the GPU to report its loss (issue 29's host-device
    synchronisation); :meth:`read` brings them back once.

    The arithmetic is what summing Python floats did: each batch's float32 mean NLL, widened to float64, times
    its token count, added in batch order; train_loss comes out bit for bit the same.

    The first batch whose loss or gradient norm is not finite is kept the same way (:meth:`watch`), so a
    diverged epoch is caught by the one read at its end and named to the batch without a wait per batch.
    """

    def __init__(self, device: torch.device) -> None:
        self.values = torch.zeros(4, dtype=torch.float64, device=device)
        self.first_bad = torch.zeros((), dtype=torch.int64, device=device)
        """1-based position of the epoch's first batch with a non-finite loss or gradient norm; 0: none yet."""
        self.bad_values = torch.zeros(2, dtype=torch.float64, device=device)
        """That batch's loss and gradient norm."""

    def add(self, result: Loss, terms: dict[str, torch.Tensor]) -> None:
        tokens = result.tokens.to(torch.float64)
        critic = terms["critic"].to(torch.float64) * tokens if "critic" in terms else tokens.new_zeros(())
        self.values += torch.stack([terms["nll"].to(torch.float64) * tokens, tokens,
                                    result.correct.to(torch.float64), critic])

    def watch(self, position: int, loss: torch.Tensor, grad_norm: torch.Tensor) -> None:
        """Note batch ``position`` if it is the first whose ``loss`` or ``grad_norm`` is not finite (on the device:
        ``torch.where``, no wait)."""
        values = torch.stack([loss.detach().to(torch.float64), grad_norm.detach().to(torch.float64)])
        first = (self.first_bad == 0) & ~torch.isfinite(values).all()
        self.first_bad = torch.where(first, position, self.first_bad)
        self.bad_values = torch.where(first, values, self.bad_values)

    def read(self) -> list[float]:
        """[NLL sum, tokens, correct, critic sum] as Python floats: one wait for the device."""
        return self.values.tolist()

    def read_watched(self) -> tuple[list[float], int]:
        """:meth:`read` and the first non-finite batch (0: none), in the same one wait for the device."""
        values = torch.cat([self.values, self.first_bad.to(torch.float64).reshape(1)]).tolist()
        return values[:4], int(values[4])

    def mean_loss(self) -> float:
        """The epoch's mean token NLL so far (for the progress bar): one wait for the device."""
        total, tokens = self.values[:2].tolist()
        return total / max(tokens, 1.0)


class DivergedError(ValueError):
    """Training diverged: a batch's loss or gradient norm was not finite (inf or NaN), or the weights after an
    epoch give a non-finite validation loss or no greedy output at all (a learning rate of 1e30 sends them to
    ~1e30 while an encoder-decoder's training loss stays finite, ~1e31 a token).

    Raised after the epoch's batches and before anything of that epoch is written, so the resume state and
    ``resume/best.pt`` keep the last good epoch and a published ``best.pt``/``last.pt`` stays as it was: the
    weights after a non-finite step are NaN (Adam and clipping carry it into every weight), and validating such
    weights used to crash (an ``IndexError`` in the trainer's ``_epoch_row``: greedy decoding found no output).
    A ``ValueError``, so ``paragen train`` reports it in one line. A rerun resumes from the kept epoch
    only with the same settings; a lowered learning rate changes the resume digest and trains from scratch."""


def divergence(run_dir: Path, epoch: int, count: int, last_good: int, first_bad: int, sums: EpochSums, world: World,
               device: torch.device, training_name: str | None) -> DivergedError:
    """A diverged epoch: the first non-finite batch over every rank (each rank names its own; one all-reduce),
    its loss or gradient norm, in :func:`stopped`'s message."""
    firsts = world.all_sum([float(first_bad) if rank == world.rank else 0.0 for rank in range(world.size)], device)
    batch = int(min((f for f in firsts if f), default=0))
    loss, norm = sums.bad_values.tolist()
    if batch and batch == first_bad:
        what = f"loss is {loss}" if not math.isfinite(loss) else f"gradient norm is {norm} (loss {loss:.4g})"
    else:
        what = "loss is not finite"
    where = f"epoch {epoch}, batch {batch} of {count}" if batch else f"epoch {epoch}"
    return stopped(run_dir, f"training {what} at {where}", last_good, training_name)


def stopped(run_dir: Path, what: str, last_good: int, training_name: str | None) -> DivergedError:
    """The one line: the run, what went wrong where, what was kept and which setting to change."""
    kept = (f"the last good checkpoint (epoch {last_good}) is kept" if last_good else
            "no epoch had finished, so no checkpoint was written")
    key = f"training.{training_name}.learning_rate" if training_name else "training.<name>.learning_rate"
    return DivergedError(f"{run_dir}: {what}; stopped, {kept}; lower {key}")
