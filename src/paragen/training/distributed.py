"""Training on several processes (``torchrun``): who this process is, its share of a batch, and the few
collectives the one trainer needs.

The contract is that N processes train the model one process would train with the same settings:

* **Batches.** ``training.*.batch_size`` stays the *global* batch: :func:`paragen.data.batching.batch_order`
  draws the same length-bucketed batches on every rank (same seed), and rank r trains on the r-th of N
  contiguous shares of each (:meth:`World.share`: sizes differ by at most one sentence, the first
  ``B mod N`` ranks take one more). Contiguous shares of a length-sorted batch keep each rank's padding as
  low as the batch's.
* **Gradients.** paragen minimises a token mean: L = (1/T) sum of the batch's token losses, T its target
  tokens. Rank r computes L_r over its own T_r tokens; DDP then *averages* the N gradients. Backpropagating
  L_r * N * T_r / T (:func:`gradient_weight`, T summed over ranks every step) makes that average
  (1/N) sum_r N (T_r/T) grad L_r = grad L, the one-process gradient, whatever the shares' token counts.
* **Gradient sync.** The models compute their training loss in ``loss()``, not ``forward()``, and DDP only
  arms its gradient all-reduce for computations that pass through the wrapped module's ``forward``;
  :class:`LossForward` makes ``forward`` be ``loss`` so the library's own bucketed all-reduce (overlapped
  with the backward pass on GPUs, and aware of parameters a step leaves unused) does the sync rather than
  a hand-written loop over parameters after ``backward``.
* **Randomness.** Every rank builds the model from ``seed`` (and DDP starts all from rank 0's weights);
  dropout then draws from a stream of each rank's own (seed + rank). Rank 0 gathers every rank's RNG
  states into the resume state and each rank restores its own, which is why the number of processes is
  part of the resume digest.
* **Everything else** (validation, checkpoints, the log, the resume state) is done by rank 0 alone; the
  others wait for its decisions (:meth:`World.from_main`).

Limits: the weighting is exact for objectives whose every term is a mean over the loss's token count T
(the NLL, SPM's l_src, the character decoder's spelling NLL, the critic loss of models without SPM). The
critic loss averages over the gold target tokens, which differ from T only with SPM (no experiment
combines them); there its share would be weighted by the wrong count. All ranks read the resume state
from the run directory, so they must share a file system (one machine, as ``torchrun --standalone``).
"""

from __future__ import annotations

import contextlib
import datetime
import os
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping, Sequence

import torch
import torch.distributed as dist

from paragen.data.batching import Batch

TORCHRUN_VARIABLES = ("RANK", "WORLD_SIZE", "LOCAL_RANK")
"""What ``torchrun`` sets in each process it starts (with MASTER_ADDR and MASTER_PORT, read by torch)."""

TIMEOUT = datetime.timedelta(hours=1)
"""How long a rank waits in a collective: the other ranks wait while rank 0 validates (greedy decoding of
the whole validation split) and writes checkpoints, which can outlast NCCL's 10-minute default."""


class DistributedError(ValueError):
    """The torchrun environment is inconsistent or asks for a device this machine lacks."""


@dataclass(frozen=True)
class World:
    """This process's place among the training processes (one process: rank 0 of 1)."""

    rank: int = 0
    size: int = 1
    local_rank: int = 0

    @property
    def main(self) -> bool:
        """Rank 0: the one process that validates and writes files."""
        return self.rank == 0

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> "World":
        """The world ``torchrun`` describes in the environment; one process when it describes none."""
        environ = os.environ if environ is None else environ
        present = [name for name in TORCHRUN_VARIABLES if name in environ]
        if not present:
            return cls()
        if len(present) < len(TORCHRUN_VARIABLES):
            missing = [name for name in TORCHRUN_VARIABLES if name not in environ]
            raise DistributedError(f"{', '.join(present)} set but not {', '.join(missing)}: start several "
                                   "training processes with torchrun, which sets all of them")
        try:
            rank, size, local_rank = (int(environ[name]) for name in TORCHRUN_VARIABLES)
        except ValueError:
            raise DistributedError("RANK, WORLD_SIZE and LOCAL_RANK must be integers, got "
                                   + ", ".join(f"{n}={environ[n]!r}" for n in TORCHRUN_VARIABLES)) from None
        if not (size >= 1 and 0 <= rank < size and 0 <= local_rank <= rank):
            raise DistributedError(f"inconsistent torchrun environment: RANK={rank}, WORLD_SIZE={size}, "
                                   f"LOCAL_RANK={local_rank} (need 0 <= LOCAL_RANK <= RANK < WORLD_SIZE)")
        return cls(rank, size, local_rank)

    @classmethod
    def current(cls) -> "World":
        """The world of the process group this process joined (one process when it joined none)."""
        if not (dist.is_available() and dist.is_initialized()):
            return cls()
        local_rank = int(os.environ.get("LOCAL_RANK", dist.get_rank()))
        return cls(dist.get_rank(), dist.get_world_size(), local_rank)

    def share(self, ids: Sequence[int]) -> tuple[list[int], bool]:
        """This rank's contiguous share of a global batch, and whether it counts.

        A batch of fewer sentences than ranks leaves some ranks without a share; they run the batch's first
        sentence instead, with weight 0 (:func:`gradient_weight`), because every rank must take part in
        every gradient all-reduce.
        """
        base, extra = divmod(len(ids), self.size)
        start = self.rank * base + min(self.rank, extra)
        mine = list(ids[start : start + base + (1 if self.rank < extra else 0)])
        return (mine, True) if mine else (list(ids[:1]), False)

    def all_sum(self, values: Sequence[float], device: torch.device) -> list[float]:
        """Each value summed over the ranks (float64, exact for token counts)."""
        if self.size == 1:
            return list(values)
        tensor = torch.tensor(values, dtype=torch.float64, device=device)
        dist.all_reduce(tensor)
        return tensor.tolist()

    def gather(self, obj: Any) -> list[Any]:
        """Every rank's ``obj`` in rank order, on rank 0 (elsewhere an empty list)."""
        if self.size == 1:
            return [obj]
        gathered: list[Any] = [None] * self.size if self.main else []
        dist.gather_object(obj, gathered if self.main else None, dst=0)
        return gathered

    def from_main(self, obj: Any) -> Any:
        """Rank 0's ``obj`` on every rank (its decisions: the training state after validation)."""
        if self.size == 1:
            return obj
        box = [obj]
        dist.broadcast_object_list(box, src=0)
        return box[0]

    def barrier(self) -> None:
        if self.size > 1:
            dist.barrier()


@contextlib.contextmanager
def process_group(world: World, device: torch.device) -> Iterator[None]:
    """Join the training processes for the block (nothing to join for one process): NCCL between GPUs,
    gloo between CPU processes. Rendezvous by torchrun's MASTER_ADDR and MASTER_PORT."""
    if world.size == 1:
        yield
        return
    if device.type == "cuda":
        torch.cuda.set_device(device)  # collectives on Python objects use the current device
    dist.init_process_group("nccl" if device.type == "cuda" else "gloo", rank=world.rank, world_size=world.size,
                            timeout=TIMEOUT, device_id=device if device.type == "cuda" else None)
    try:
        yield
    finally:
        dist.destroy_process_group()


def gradient_weight(tokens: torch.Tensor | int, counts: bool, world: World, device: torch.device) -> float:
    """N * T_r / T: the factor on this rank's token-mean loss that makes DDP's averaged gradient the gradient
    of the global batch's token mean (T_r = ``tokens``, T summed over the ranks).

    A rank whose share does not count (:meth:`World.share`) contributes T_r = 0. One process: 1.0, and
    multiplying by 1.0 changes no bit; it is returned without reading ``tokens``, which would wait for the
    device (several processes wait anyway, for the all-reduce of T).
    """
    if world.size == 1:
        return 1.0
    mine = int(tokens) if counts else 0
    return world.size * mine / max(world.all_sum([mine], device)[0], 1)


class LossForward(torch.nn.Module):
    """A model whose ``forward`` is its ``loss``, so that DDP syncs the gradients of the training loss."""

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, batch: Batch) -> Any:
        return self.model.loss(batch)


def data_parallel(model: torch.nn.Module, device: torch.device, world: World) -> Callable[[Batch], Any]:
    """What computes the training loss of a batch: ``model.loss`` itself for one process, else ``loss``
    through DDP (which also starts every rank from rank 0's weights).

    Only the character decoder's parameters can go unused in a step (a share with no <unk> target word;
    every model of params.yaml was checked): DDP then has to look for unused parameters after each forward
    pass instead of waiting for their gradients forever. Other models skip that graph traversal, and should
    one ever leave a parameter unused, DDP stops at the next step naming it rather than hanging.
    """
    if world.size == 1:
        return model.loss
    return torch.nn.parallel.DistributedDataParallel(
        LossForward(model), device_ids=[device.index] if device.type == "cuda" else None,
        find_unused_parameters=getattr(model, "char_decoder", None) is not None)
