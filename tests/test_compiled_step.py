"""``training.*.compile``: the teacher-forced decoder step under torch.compile trains like the eager step (losses
within 1e-4 over a few optimiser steps on a tiny model, on CPU), and with dynamic shapes batches of other target
and source lengths do not compile a graph each. Slow (inductor's C++ compile, tens of seconds): one model, a few
steps."""

import torch

from paragen.config import ModelConfig
from paragen.data.batching import make_batch
from paragen.data.vocabulary import Vocabulary
from paragen.models import build_model
from paragen.training.compiled import compile_step

BATCHES = [  # target lengths 3, 5 and 2 (with </s>), source lengths 4, 2 and 6: shapes change from batch to batch
    ([["a", "b", "c", "d"], ["b", "c"]], [["a", "b"], ["c"]]),
    ([["d", "e"], ["e", "f"]], [["d", "e", "f", "a"], ["f"]]),
    ([["a", "b", "c", "d", "e", "f"], ["f"]], [["a"], ["b"]]),
]


def _losses(compile_mode):
    torch.manual_seed(5)
    config = ModelConfig(architecture="copynet", attention="bahdanau", embedding_size=6, hidden_size=8, dropout=0.0)
    vocab = Vocabulary.build([[["a", "b", "c", "d", "e", "f"]]])
    model = build_model(config, len(vocab)).train()
    watch = compile_step(model, compile_mode)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    losses = []
    for sources, targets in BATCHES * 2:
        optimizer.zero_grad()
        loss = model.loss(make_batch(sources, targets, vocab)).total
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses, watch


def test_the_compiled_step_trains_like_the_eager_step_and_compiles_a_bounded_number_of_graphs():
    eager, none = _losses("off")
    compiled, watch = _losses("default")
    assert none is None
    assert compiled == __import__("pytest").approx(eager, abs=1e-4)
    assert eager[0] != eager[3]  # the weights moved: the comparison covers training, not one forward
    assert 1 <= watch.count <= 3, f"{watch.count} compilations for 3 batch shapes repeated twice"
    assert watch.seconds > 0


def test_the_trainer_compiles_as_asked_and_records_the_compilations(tmp_path, tiny_config, monkeypatch):
    """train() hands ``training.compile`` to compile_step and writes what its watch counted into sessions.json (the
    watch is a stand-in here: compiling for real is the test above); ``compile`` is part of the resume digest."""
    import json

    import paragen.training.trainer as trainer
    from paragen.config import TrainingConfig
    from paragen.data.corpus import read_split
    from paragen.data.synthetic import generate, write_splits
    from paragen.training.checkpoint import resume_digest
    from paragen.training.compiled import CompileWatch

    asked = []

    def fake_compile(model, mode, name):
        asked.append((mode, name))
        return CompileWatch(count=2, seconds=12.5)

    monkeypatch.setattr(trainer, "compile_step", fake_compile)
    write_splits(generate(tiny_config.datasets["tiny"]), tmp_path / "data")
    train_data, valid_data = read_split(tmp_path / "data", "train"), read_split(tmp_path / "data", "valid")
    vocab = Vocabulary.build([train_data.sources, train_data.targets])
    training = TrainingConfig(batch_size=8, max_epochs=1, valid_max_length=5, threads=1, compile="reduce-overhead")
    model = ModelConfig(architecture="encdec", embedding_size=4, hidden_size=6)
    trainer.train(model_config=model, training=training, train_data=train_data, valid_data=valid_data, vocab=vocab,
                  run_dir=tmp_path / "run", device=torch.device("cpu"), progress=False)
    assert asked == [("reduce-overhead", "encdec")]
    (session,) = json.loads((tmp_path / "run" / "sessions.json").read_text())
    assert (session["compile"], session["compilations"], session["compile_s"]) == ("reduce-overhead", 2, 12.5)
    eager = training.model_copy(update={"compile": "off"})  # another dropout stream: switching starts over
    assert resume_digest(model, training, train_data, valid_data, vocab) != \
        resume_digest(model, eager, train_data, valid_data, vocab)


def test_validation_and_copies_run_the_eager_step(monkeypatch):
    """The compiled step serves training only: in eval mode or without gradients (validation) the eager step runs,
    and a deep copy of a compiled model runs eagerly on its own weights (the compiled step is bound to the original)."""
    import copy

    from paragen.data.batching import make_batch

    torch.manual_seed(5)
    model = build_model(ModelConfig(architecture="rnnsearch", embedding_size=6, hidden_size=8, dropout=0.0), 10)
    calls = []
    model.compiled_step = lambda *args: calls.append(1) or model.forced_step(*args)  # a stand-in, counting calls
    vocab = Vocabulary.build([[["a", "b", "c", "d", "e", "f"]]])
    batch = make_batch(*BATCHES[0], vocab)
    model.train()
    model.loss(batch)
    assert calls  # training uses it
    calls.clear()
    with torch.no_grad():
        model.loss(batch)
    model.eval()
    model.loss(batch)
    assert not calls
    duplicate = copy.deepcopy(model)
    assert duplicate.compiled_step is None and model.compiled_step is not None


def test_a_new_trainings_watch_replaces_the_last_one_in_dynamos_callbacks():
    """dynamo's callbacks are process-wide: a second training in one process (tests, a sweep) must not leave the
    first watch counting its compilations too."""
    from types import SimpleNamespace

    from torch._dynamo.callback import callback_handler

    from paragen.training.compiled import watch_compiles

    first = watch_compiles()
    second = watch_compiles()
    starts = list(callback_handler.start_callbacks)
    assert second.start in starts and first.start not in starts
    assert first.end not in list(callback_handler.end_callbacks)
    second.start(SimpleNamespace(compile_id="0/0"))
    second.end(SimpleNamespace(compile_id="0/0"))
    assert (first.count, second.count) == (0, 1)


def test_a_new_watch_after_dynamo_reset_replaces_the_cleared_one():
    """torch._dynamo.reset() (bench/train_speed.py between models) empties dynamo's callback lists; the next
    watch must register itself instead of failing to remove the old one (ValueError: list.remove before)."""
    import torch

    from torch._dynamo.callback import callback_handler

    from paragen.training.compiled import watch_compiles

    first = watch_compiles()
    torch._dynamo.reset()
    assert first.start not in list(callback_handler.start_callbacks)  # what reset does, which the fix relies on
    second = watch_compiles()
    assert second.start in list(callback_handler.start_callbacks)
    assert second.end in list(callback_handler.end_callbacks)


def test_a_compiler_failure_at_the_first_batch_is_a_refusal_naming_the_switch(monkeypatch):
    """torch.compile compiles at the first call; a backend failure there (torch 2.13's CPU inductor on RNNSearch's
    step raises one) becomes a ConfigError that says to set compile: off, with the compiler's own reason."""
    import pytest
    import torch
    from torch._dynamo.exc import BackendCompilerFailed

    from paragen.config import ConfigError, ModelConfig
    from paragen.models import build_model
    from paragen.training.compiled import compile_step

    def failing(*args, **kwargs):
        raise BackendCompilerFailed(lambda graph, inputs: None, ValueError("Exponent must be non-negative."), None)

    monkeypatch.setattr(torch, "compile", lambda fn, **kwargs: failing)
    model = build_model(ModelConfig(architecture="rnnsearch", embedding_size=6, hidden_size=8, dropout=0.0), 10)
    compile_step(model, "default", "rnnsearch")
    with pytest.raises(ConfigError, match=r"compile: default: torch .* could not compile rnnsearch's decoder step "
                                          r"\(ValueError: Exponent must be non-negative\.\); set the "
                                          r"training's compile: off"):
        model.compiled_step()
