"""Issue 39: no infinite or NaN number in params.yaml, and a training run whose loss stops being finite halts in
one line, naming the run, epoch and batch, with the last good checkpoint untouched."""

import math
import re
import types
import typing
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from pydantic import BaseModel, ValidationError

import paragen.config  # noqa: F401 (defines every section's model)
import paragen.training.trainer as trainer
from paragen.config import ConfigError, ModelConfig, ParagenConfig, TrainingConfig, load_config
from paragen.config.base import _Strict

from conftest import TINY_PARAMS
from test_training import _data, _run

NON_FINITE = [float("inf"), float("-inf"), float("nan")]
TINY_TRAINING = "tiny: {batch_size: 8, max_epochs: 2, patience: 2, valid_max_length: 20, seed: 1, threads: 1}"


def _subclasses(cls: type) -> list[type]:
    found, stack = [], [cls]
    while stack:
        for sub in stack.pop().__subclasses__():
            found.append(sub)
            stack.append(sub)
    return found


def _with(annotation, bad: float):
    """A value of ``annotation`` with ``bad`` in every float position; None when it holds no float."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if annotation is float:
        return bad
    if origin is typing.Annotated:
        return _with(args[0], bad)
    if origin in (typing.Union, types.UnionType):
        return next((v for v in (_with(a, bad) for a in args) if v is not None), None)
    if origin is tuple:
        values = [_with(a, bad) for a in args]
        return tuple(values) if values and all(v is not None for v in values) else None
    if origin is list:
        value = _with(args[0], bad)
        return None if value is None else [value]
    if origin is dict:
        value = _with(args[1], bad)
        return None if value is None else {"k": value}
    return None


def _float_fields() -> list[tuple[type, str, object]]:
    return [(model, name, field.annotation) for model in _subclasses(_Strict)
            for name, field in model.model_fields.items() if _with(field.annotation, 0.5) is not None]


def _types(annotation):
    stack, out = [annotation], []
    while stack:
        tp = stack.pop()
        out.append(tp)
        stack.extend(typing.get_args(tp))
    return out


@pytest.mark.parametrize("bad", NON_FINITE, ids=["inf", "-inf", "nan"])
def test_every_float_field_refuses_a_non_finite_value(bad):
    """Every float field of every model built on the shared base, found by walking their annotations."""
    reachable, stack = set(), [ParagenConfig]  # the models params.yaml reaches: all on the base, so all walked
    while stack:
        model = stack.pop()
        if model not in reachable:
            reachable.add(model)
            stack += [tp for field in model.model_fields.values() for tp in _types(field.annotation)
                      if isinstance(tp, type) and issubclass(tp, BaseModel)]
    assert len(reachable) > 10 and [m for m in reachable if not issubclass(m, _Strict)] == []
    names = {(model.__name__, name) for model, name, _ in _float_fields()}
    assert {("TrainingConfig", "learning_rate"), ("TrainingConfig", "adam_betas"), ("TrainingConfig", "clip_norm"),
            ("AlignmentFilter", "min_score"), ("SystemConfig", "sweep"), ("DecodingConfig", "length_penalty"),
            ("CriticConfig", "weight"), ("ModelConfig", "dropout")} <= names
    accepted = []
    for model, name, annotation in _float_fields():
        value = _with(annotation, bad)
        try:
            model.model_validate({name: value})
            errors = []
        except ValidationError as error:
            errors = error.errors()
        if not any(e["type"] == "finite_number" and e["loc"][:1] == (name,) for e in errors):
            accepted.append(f"{model.__name__}.{name}={value!r}: {[(e['loc'], e['type']) for e in errors]}")
    assert not accepted, "\n".join(accepted)


@pytest.mark.parametrize("written, shown", [(".inf", "inf"), ("-.inf", "-inf"), (".nan", "nan"), (".Inf", "inf")])
def test_a_non_finite_learning_rate_is_refused_at_load_time_naming_the_key(tmp_path, written, shown):
    text = TINY_PARAMS.read_text()
    assert TINY_TRAINING in text
    path = tmp_path / "params.yaml"
    path.write_text(text.replace(TINY_TRAINING, TINY_TRAINING[:-1] + f", learning_rate: {written}}}"))
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert f"  training.tiny.learning_rate: got {shown}; expected a finite number (not .inf, -.inf or .nan)" in str(
        error.value).splitlines()


def _files(run: Path) -> dict[str, bytes]:
    return {str(p.relative_to(run)): p.read_bytes() for p in sorted(run.rglob("*")) if p.is_file() and p.suffix != ".lock"}


def _finite_weights(path: Path) -> bool:
    weights = torch.load(path, weights_only=True)["model"]
    return all(torch.isfinite(w).all() for w in weights.values() if w.is_floating_point())


def _nan_at_call(monkeypatch, call: int) -> list[int]:
    """Make the objective's ``call``-th evaluation (1-based, counted from now) NaN, as a diverged model's is."""
    calls, objective = [], trainer.objective

    def nan_once(result, *args, **kwargs):
        loss, terms = objective(result, *args, **kwargs)
        calls.append(1)
        if len(calls) == call:
            nan = torch.tensor(float("nan"))
            return loss * nan, {**terms, "nll": terms["nll"] * nan}
        return loss, terms

    monkeypatch.setattr(trainer, "objective", nan_once)
    return calls


def test_a_huge_learning_rate_stops_training_in_one_line_writing_nothing(tmp_path, tiny_config):
    """1e30 is finite, so the schema takes it; the first step sends the weights to ~1e30. It used to crash in
    validation with ``IndexError: list index out of range``. Which guard stops it depends on where float32 first
    overflows, i.e. on the order of the sums: a NaN loss at a training batch (the packed encoder and step-by-step
    weight gradients, before 3330498), or a finite loss and no greedy output at the epoch's validation (the CPU
    fast path since). Either way: one line, nothing written, the learning rate named."""
    data = _data(tmp_path, tiny_config)
    with pytest.raises(ValueError) as error:
        _run(tmp_path, "huge", tiny_config, data, schedule={"learning_rate": 1e30})
    message = str(error.value)
    assert "\n" not in message and type(error.value).__name__ == "DivergedError"
    in_training = message.startswith(f"{tmp_path / 'huge'}: training ") and " at epoch 1, batch " in message
    in_validation = message.startswith(f"{tmp_path / 'huge'}: greedy decoding found no output for ")
    assert in_training or in_validation, message
    assert message.endswith("; stopped, no epoch had finished, so no checkpoint was written; lower "
                            "training.<name>.learning_rate")  # train() was not told the name; paragen train is
    left = set(_files(tmp_path / "huge"))
    assert not left & {"best.pt", "last.pt", "train_log.csv", "resume/state.pt", "resume/best.pt"}, left


def test_a_nan_loss_names_epoch_and_batch_and_keeps_the_published_run(tmp_path, tiny_config, monkeypatch):
    data = _data(tmp_path, tiny_config)
    counted = _nan_at_call(monkeypatch, call=0)  # never NaN: counts the batches of two epochs
    _run(tmp_path, "run", tiny_config, data, max_epochs=2)
    per_epoch = len(counted) // 2
    run = tmp_path / "run"
    before = _files(run)
    assert {"best.pt", "last.pt", "train_log.csv", "resume/state.pt", "resume/best.pt"} <= set(before)
    _nan_at_call(monkeypatch, call=2)  # epoch 3 (max_epochs is not in the resume digest: the run goes on), batch 2
    with pytest.raises(ValueError, match=rf"^{run}: training loss is nan at epoch 3, batch 2 of {per_epoch}; "
                                         r"stopped, the last good checkpoint \(epoch 2\) is kept; lower "
                                         r"training.<name>.learning_rate$"):
        _run(tmp_path, "run", tiny_config, data, max_epochs=3)
    after = _files(run)
    assert after.keys() == before.keys() and all(after[k] == before[k] for k in before), [
        k for k in before if after.get(k) != before[k]]
    assert all(_finite_weights(run / name) for name in ("best.pt", "last.pt", "resume/state.pt", "resume/best.pt"))


def test_the_kept_checkpoint_resumes_to_the_weights_of_a_run_that_never_diverged(tmp_path, tiny_config, monkeypatch):
    """A NaN in epoch 2 leaves epoch 1's resume state as it was: rerun, the run ends as an uninterrupted one."""
    data = _data(tmp_path, tiny_config)
    _run(tmp_path, "clean", tiny_config, data, max_epochs=3)
    _run(tmp_path, "run", tiny_config, data, max_epochs=3, stop_after_epoch=1)
    kept = _files(tmp_path / "run")
    _nan_at_call(monkeypatch, call=3)
    with pytest.raises(ValueError, match=r"training loss is nan at epoch 2, batch 3 of \d+; stopped, the last good "
                                         r"checkpoint \(epoch 1\) is kept"):
        _run(tmp_path, "run", tiny_config, data, max_epochs=3)
    assert _files(tmp_path / "run") == kept
    monkeypatch.undo()
    _run(tmp_path, "run", tiny_config, data, max_epochs=3)
    for name in ("best.pt", "last.pt"):
        clean = torch.load(tmp_path / "clean" / name, weights_only=True)["model"]
        resumed = torch.load(tmp_path / "run" / name, weights_only=True)["model"]
        assert clean.keys() == resumed.keys() and all(torch.equal(clean[k], resumed[k]) for k in clean), name


def test_the_progress_bars_read_of_the_loss_ends_a_diverged_epoch_early(tmp_path, tiny_config, monkeypatch):
    """Where the bar already waits for the running loss (every POSTFIX_EVERY batches), a NaN ends the epoch."""
    data = _data(tmp_path, tiny_config)
    monkeypatch.setattr(trainer, "POSTFIX_EVERY", 1)
    calls = _nan_at_call(monkeypatch, call=2)
    train_data, valid_data, vocab = data
    with pytest.raises(ValueError, match=r"training loss is nan at epoch 1, batch 2 of \d+; stopped"):
        trainer.train(model_config=ModelConfig(architecture="copynet", embedding_size=8, hidden_size=16),
                      training=TrainingConfig(batch_size=8, max_epochs=2, valid_max_length=20, threads=1),
                      train_data=train_data, valid_data=valid_data, vocab=vocab, run_dir=tmp_path / "run",
                      device=torch.device("cpu"), progress=True)
    assert len(calls) == 2  # not the epoch's every batch


def test_the_watch_keeps_the_first_bad_batch_on_the_device():
    """No host read per batch (issue 29): the meta device holds no values, so any read there would raise."""
    from paragen.training.trainer import EpochSums

    meta = EpochSums(torch.device("meta"))
    meta.watch(1, torch.tensor(1.0, device="meta"), torch.tensor(2.0, device="meta"))
    sums = EpochSums(torch.device("cpu"))
    for position, (loss, norm) in enumerate([(2.5, 1.0), (3.0, math.inf), (math.nan, math.nan), (1.0, 1.0)], 1):
        sums.watch(position, torch.tensor(loss), torch.tensor(norm))
    assert sums.read_watched() == ([0.0, 0.0, 0.0, 0.0], 2)
    assert sums.bad_values.tolist() == [3.0, math.inf]


def test_paragen_train_reports_a_diverged_run_in_one_line(workflow_dir, monkeypatch, capsys):
    """Weights so large (a learning rate of 1e30) that greedy decoding finds no finite score for any validation
    sentence: stopped at validation in one line, where it used to raise an IndexError. Whether 1e30 weights leave a
    finite score depends on the CPU's float kernels (on an AMD EPYC none did; on an Intel Xeon every sentence still
    decoded and the loss turned NaN in epoch 2, a different guard), so the decoder's answer is made the one such
    weights give: no hypothesis for any sentence."""
    from paragen.cli import main
    from paragen.training import trainer

    params = workflow_dir / "params.yaml"
    params.write_text(params.read_text().replace(TINY_TRAINING, TINY_TRAINING[:-1] + ", learning_rate: 1.0e+30}"))
    real_translate = trainer.translate
    monkeypatch.setattr(trainer, "translate", lambda *args, **kwargs: [
        SimpleNamespace(nbest=[]) for _ in real_translate(*args, **kwargs)])
    monkeypatch.chdir(workflow_dir)
    assert main(["generate", "--dataset", "tiny"]) in (0, None)
    assert main(["vocab", "--dataset", "tiny"]) in (0, None)
    capsys.readouterr()
    assert main(["train", "--experiment", "t_encdec", "--quiet"]) == 2
    err = capsys.readouterr().err
    valid = len(Path("data/prepared/tiny/valid.src").read_text().splitlines())
    assert re.fullmatch(rf"paragen train: error: runs/t_encdec: greedy decoding found no output for \d+ of {valid} "
                        r"validation sentences after epoch 1 \(training loss \S+e\+\d\d a token\); stopped, no "
                        r"epoch had finished, so no checkpoint was written; lower training.tiny.learning_rate\n",
                        err.splitlines(keepends=True)[-1]), err
    assert "Traceback" not in err
    assert not Path("runs/t_encdec/best.pt").exists()


def _diverging_rank(rank: int, size: int, port: int, work: Path) -> None:
    """One of two ranks (gloo); rank 1's second batch has a NaN loss, which DDP spreads to rank 0's gradient."""
    import os

    from paragen.data.corpus import read_split
    from paragen.data.vocabulary import Vocabulary
    from paragen.training.distributed import World, process_group

    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank), WORLD_SIZE=str(size),
                      LOCAL_RANK=str(rank))
    patch = pytest.MonkeyPatch()
    if rank == 1:
        _nan_at_call(patch, call=2)
    train_data, valid_data = read_split(work / "data", "train"), read_split(work / "data", "valid")
    data = train_data, valid_data, Vocabulary.build([train_data.sources, train_data.targets])
    with process_group(World.from_env(), torch.device("cpu")):
        try:
            _run(work, "ddp", None, data)
        except trainer.DivergedError as error:
            (work / f"error.{rank}").write_text(str(error))
    patch.undo()


def test_every_rank_stops_at_the_same_batch(tmp_path, tiny_config):
    """Every rank reads that the epoch diverged (no rank left waiting in a collective) and names batch 2."""
    from test_distributed import _free_port

    _data(tmp_path, tiny_config)  # writes the splits the ranks read
    torch.multiprocessing.spawn(_diverging_rank, args=(2, _free_port(), tmp_path), nprocs=2, join=True)
    tail = r" at epoch 1, batch 2 of \d+; stopped, no epoch had finished, so no checkpoint was written; lower "
    assert re.fullmatch(rf"{tmp_path / 'ddp'}: training gradient norm is nan \(loss [0-9.]+\){tail}"
                        r"training.<name>.learning_rate", (tmp_path / "error.0").read_text())
    assert re.fullmatch(rf"{tmp_path / 'ddp'}: training loss is nan{tail}training.<name>.learning_rate",
                        (tmp_path / "error.1").read_text())
    assert not (tmp_path / "ddp" / "resume" / "state.pt").exists() and not (tmp_path / "ddp" / "best.pt").exists()
