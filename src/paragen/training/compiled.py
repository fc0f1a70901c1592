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

from paragen.config import ConfigError

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


def compile_step(model: torch.nn.Module, mode: str, name: str | None = None) -> CompileWatch | None:
    """Compile ``model.forced_step`` as ``mode`` says (``off``: nothing); the watch of its compilations, or None.
    ``name`` (the architecture) names the model if its compiler fails."""
    if mode == "off":
        return None
    if not hasattr(model, "forced_step"):
        log.warning("compile: %s has no recurrent decoder step to compile; it trains eagerly",
                    type(model).__name__)
        return None
    watch = watch_compiles()
    compiled = torch.compile(model.forced_step, mode=None if mode == "default" else mode, dynamic=True)
    model.compiled_step = _RefusingCompilerFailure(compiled, name or type(model).__name__, mode)
    log.info("compile: the teacher-forced decoder step is compiled (mode %s, dynamic shapes)", mode)
    return watch


class _RefusingCompilerFailure:
    """The compiled step, turning a compiler failure into a refusal that names the setting to change.

    torch.compile compiles lazily, at the first training batch, so a failure of the backend surfaces there as a
    long inductor traceback (e.g. torch 2.13's CPU inductor on RNNSearch's step: "Exponent must be non-negative").
    The run cannot go on compiled, and silently falling back to eager would train something other than what
    ``compile`` asks for (its dropout draws differ), so the user is told to switch it off.
    """

    def __init__(self, compiled, model_name: str, mode: str):
        from torch._dynamo.exc import BackendCompilerFailed  # once here, not at every decoder step

        self.compiled, self.model_name, self.mode = compiled, model_name, mode
        self.failure_type = BackendCompilerFailed

    def __call__(self, *args, **kwargs):
        try:
            return self.compiled(*args, **kwargs)
        except self.failure_type as failure:
            inner = getattr(failure, "inner_exception", None) or failure
            raise ConfigError(f"compile: {self.mode}: torch {torch.__version__} could not compile {self.model_name}'s "
                              f"decoder step ({type(inner).__name__}: {str(inner).strip()[:300]}); set the training's "
                              "compile: off (docs/speed.md)") from failure
