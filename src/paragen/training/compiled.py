"""``training.*.compile``: the teacher-forced decoder step under ``torch.compile``, and what compiling cost.

Why the step and not the whole loop: the loop's length is the batch's target length, so compiling the loop would
unroll it into one graph per length; the step has the same shapes at every position of a batch, and with dynamic
shapes one graph (or a few) serves every batch. ``reduce-overhead`` adds CUDA graphs on CUDA: each step becomes
one graph replay instead of a launch per operator, which is what a launch-bound recurrent decoder needs
(docs/speed.md). On CPU both modes go through inductor's C++ backend (a compiler must be installed).

Only recurrent Seq2Seq models have the step; a Transformer trains as before and the switch says so in the log.
Compilations and their wall time are counted through dynamo's compile callbacks, so the epoch log can report
compile time apart from step time.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

import torch

log = logging.getLogger(__name__)


@dataclass
class CompileWatch:
    """Compilations dynamo has started and finished since :func:`watch_compiles`, and their summed wall time."""

    count: int = 0
    seconds: float = 0.0
    _started: dict[str, float] = field(default_factory=dict)

    def start(self, args) -> None:
        self._started[args.compile_id] = time.perf_counter()

    def end(self, args) -> None:
        began = self._started.pop(args.compile_id, None)
        if began is not None:
            self.count += 1
            self.seconds += time.perf_counter() - began


_ACTIVE: list[CompileWatch] = []
"""The watch registered now: dynamo's callbacks are process-wide, so a new training's watch replaces the last."""


def watch_compiles() -> CompileWatch:
    """A :class:`CompileWatch` registered with dynamo's callbacks, replacing the one a previous training of this
    process registered (whose callbacks would otherwise go on counting every later compilation too)."""
    from torch._dynamo.callback import callback_handler

    for old in _ACTIVE:  # torch._dynamo.reset() (bench/train_speed.py, between models) may have cleared them
        if old.start in callback_handler.start_callbacks:
            callback_handler.remove_start_callback(old.start)
        if old.end in callback_handler.end_callbacks:
            callback_handler.remove_end_callback(old.end)
    watch = CompileWatch()
    callback_handler.register_start_callback(watch.start)
    callback_handler.register_end_callback(watch.end)
    _ACTIVE[:] = [watch]
    return watch


def compile_step(model: torch.nn.Module, mode: str) -> CompileWatch | None:
    """Compile ``model.forced_step`` as ``mode`` says (``off``: nothing); the watch of its compilations, or None."""
    if mode == "off":
        return None
    if not hasattr(model, "forced_step"):
        log.warning("compile: %s has no recurrent decoder step to compile; it trains eagerly",
                    type(model).__name__)
        return None
    watch = watch_compiles()
    model.compiled_step = torch.compile(model.forced_step, mode=None if mode == "default" else mode, dynamic=True)
    log.info("compile: the teacher-forced decoder step is compiled (mode %s, dynamic shapes)", mode)
    return watch
