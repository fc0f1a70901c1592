"""Bad paths, Chinese text and hostile checkpoints: one clear line, never a traceback or a silent zero."""

from __future__ import annotations

import json
import pathlib

import pytest
import torch

from paragen.cli import main
from paragen.training.checkpoint import CheckpointError, load_model, restore_rng, rng_states

REFERENCES_ZH = ["今天天气很好", "我们去公园"]
OUTPUT_ZH = ["今天天气好", "我们去公园吧"]


def _write(path: pathlib.Path, lines: list[str]) -> str:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exit_:  # argparse errors
        code = exit_.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("flag", ["--ref", "--hyp", "--src", "--tags", "--nbest", "--compare"])
def test_a_directory_where_a_file_is_expected_is_one_line_naming_the_argument(tmp_path, capsys, flag):
    text = _write(tmp_path / "text", ["a b c"])
    argv = {"--ref": text, "--hyp": text, "--src": text}
    argv[flag] = str(tmp_path)
    args = ["score", "--metric", "sari"] + [x for k, v in argv.items() for x in (k, v)]
    if flag not in argv or flag in ("--tags", "--nbest", "--compare"):
        args += [flag, str(tmp_path)]
    code, _, err = _run(capsys, *args)
    assert code == 2
    assert f"error: argument {flag}: {tmp_path}: is a directory, expected a file" in err
    assert "Traceback" not in err


def test_missing_file_and_directory_outputs_are_named(tmp_path, capsys):
    text = _write(tmp_path / "text", ["a b c"])
    code, _, err = _run(capsys, "score", "--metric", "bleu", "--ref", text, "--hyp", str(tmp_path / "nope"))
    assert code == 2 and f"argument --hyp: {tmp_path / 'nope'}: no such file" in err
    code, _, err = _run(capsys, "score", "--metric", "bleu", "--ref", text, "--hyp", text, "--out", str(tmp_path))
    assert code == 2 and f"argument --out: {tmp_path}: is a directory, expected a file to write" in err
    code, _, err = _run(capsys, "human-eval-export", "--src", text, "--system", f"a={tmp_path}",
                        "--sheet", str(tmp_path / "s.csv"), "--key", str(tmp_path / "k.json"))
    assert code == 2 and f"argument --system: {tmp_path}: is a directory, expected a file" in err
    code, _, err = _run(capsys, "vocab-build", "--dir", text)
    assert code == 2 and f"argument --dir: {text}: is a file, expected a directory" in err


def test_chinese_rouge_is_scored_on_characters_and_says_so(tmp_path, capsys):
    ref, hyp = _write(tmp_path / "ref", REFERENCES_ZH), _write(tmp_path / "hyp", OUTPUT_ZH)
    code, out, _ = _run(capsys, "score", "--metric", "rouge", "--ref", ref, "--hyp", hyp, "--json")
    result = json.loads(out.splitlines()[-1])
    assert code == 0 and result["unit"] == "char" and "CJK text detected" in result["unit_chosen"]
    # By hand, per sentence on characters: ROUGE-1 F = 2*5/(6+5) twice; ROUGE-2: sentence 1 shares 3 of
    # 5 and 4 bigrams (今天 天天 天气), sentence 2 shares 4 of 4 and 5: F = 2*3/9 and 2*4/9, mean 7/9.
    assert result["score"]["rouge1"] == pytest.approx(100 * 10 / 11, abs=1e-6)
    assert result["score"]["rouge2"] == pytest.approx(100 * 7 / 9, abs=1e-6)
    code, out, _ = _run(capsys, "score", "--metric", "rouge", "--ref", ref, "--hyp", hyp)
    assert "rouge (auto: CJK text detected, --rouge-unit char): rouge1 90.91" in out


def test_word_units_on_chinese_are_refused_naming_the_flag(tmp_path, capsys):
    ref, hyp = _write(tmp_path / "ref", REFERENCES_ZH), _write(tmp_path / "hyp", OUTPUT_ZH)
    code, _, err = _run(capsys, "score", "--metric", "rouge", "--rouge-unit", "word", "--ref", ref, "--hyp", hyp)
    assert code == 2 and "use --rouge-unit char" in err
    code, _, err = _run(capsys, "score", "--metric", "bleu", "--tokenize", "13a", "--ref", ref, "--hyp", hyp)
    assert code == 2 and "use --tokenize zh" in err


def test_chinese_bleu_uses_the_zh_tokenizer(tmp_path, capsys):
    from sacrebleu.metrics import BLEU

    ref, hyp = _write(tmp_path / "ref", REFERENCES_ZH), _write(tmp_path / "hyp", OUTPUT_ZH)
    code, out, _ = _run(capsys, "score", "--metric", "bleu", "--ref", ref, "--hyp", hyp, "--json")
    result = json.loads(out.splitlines()[-1])
    expected = BLEU(tokenize="zh", lowercase=False).corpus_score(OUTPUT_ZH, [REFERENCES_ZH]).score
    assert code == 0 and result["tokenize"] == "zh" and result["score"] == pytest.approx(expected)
    assert result["score"] > 50


def test_english_keeps_word_units(tmp_path, capsys):
    ref = _write(tmp_path / "ref", ["the cat sat on the mat today"])
    code, out, _ = _run(capsys, "score", "--metric", "rouge", "--ref", ref, "--hyp", ref, "--json")
    assert code == 0 and json.loads(out.splitlines()[-1])["unit"] == "word"


class _Payload:
    """Unpickling this would touch a file: what a hostile checkpoint could do with any callable."""

    def __init__(self, marker: pathlib.Path):
        self.marker = marker

    def __reduce__(self):
        return pathlib.Path.touch, (self.marker,)


def test_checkpoints_cannot_run_code(tmp_path):
    marker = tmp_path / "pwned"
    torch.save({"model": {}, "model_config": {"architecture": "encdec"}, "vocab_size": 5,
                "extra": _Payload(marker)}, tmp_path / "best.pt")
    with pytest.raises(CheckpointError, match="not a readable paragen checkpoint"):
        load_model(tmp_path / "best.pt", torch.device("cpu"))
    assert not marker.exists()


def test_a_corrupt_checkpoint_is_one_clear_error(tmp_path):
    (tmp_path / "best.pt").write_bytes(b"\x80\x02garbage\xff\xfe" * 10)
    with pytest.raises(CheckpointError, match=r"best.pt: not a readable paragen checkpoint .*Delete it"):
        load_model(tmp_path / "best.pt", torch.device("cpu"))


def test_cuda_rng_states_are_saved_and_restored(monkeypatch):
    """Dropout on CUDA draws from the CUDA generators: resume must carry their states (faked here)."""
    devices = [torch.tensor([1, 2, 3], dtype=torch.uint8), torch.tensor([4, 5], dtype=torch.uint8)]
    restored = []
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_rng_state_all", lambda: devices)
    monkeypatch.setattr(torch.cuda, "set_rng_state_all", restored.append)
    saved = rng_states()
    assert saved["cuda_rng"] is devices
    restore_rng(saved)
    assert restored == [devices]


def test_rouge_prints_no_absl_chatter(tmp_path):
    import subprocess
    import sys

    ref = _write(tmp_path / "ref", ["the cat sat"])
    result = subprocess.run([sys.executable, "-m", "paragen.cli", "score", "--metric", "rouge", "--ref", ref,
                             "--hyp", ref], capture_output=True, text=True, check=True)
    assert "absl" not in result.stderr and "Using default tokenizer" not in result.stderr


def test_evalsets_prints_the_whole_placement_message_once_named(tmp_path, monkeypatch, capsys):
    from paragen.data import registry
    from paragen.data.registry import ManualPlacementRequired

    def fake_fetch(name, *args, **kwargs):
        raise ManualPlacementRequired(f"{name}: 1 file(s) must be placed by hand:\n  data/raw/{name}/x.txt\n"
                                      f"Apply at EXAMPLE and place it there.")

    monkeypatch.setattr(registry, "fetch_dataset", fake_fetch)
    monkeypatch.chdir(tmp_path)
    err = _run(capsys, "evalsets", "--mirror", str(tmp_path))[2]
    assert "lcsts: 1 file(s) must be placed by hand:\n  data/raw/lcsts/x.txt\nApply at EXAMPLE" in err
    assert "lcsts: lcsts:" not in err


def test_name_arguments_say_where_the_names_come_from(capsys):
    for command, flag in (("train", "--experiment"), ("generate", "--dataset"), ("report", "--table")):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
        assert "an unknown name lists the valid ones" in out, command
        assert "DESIGN.md" not in out and "003 §" not in out


@pytest.mark.parametrize("metric", ["bleu", "rouge", "sari", "exact"])
def test_empty_files_are_one_clear_error(tmp_path, capsys, metric):
    empty = tmp_path / "empty"
    empty.write_text("")
    code, out, err = _run(capsys, "score", "--metric", metric, "--ref", str(empty), "--hyp", str(empty),
                          "--src", str(empty))
    assert code == 2 and f"{empty}: empty file: there are no sentences to score" in err and not out


def test_an_over_long_line_is_refused_naming_file_line_limit_and_the_metric_that_imposes_it(tmp_path, capsys):
    # 10 MB on one line made ROUGE-L's quadratic LCS table exhaust 24 GB; the limit refuses it while reading
    normal = _write(tmp_path / "normal", ["a b c", "d e f"])
    huge = _write(tmp_path / "huge", ["a b c", "w " * 5_000_000])
    code, out, err = _run(capsys, "score", "--metric", "rouge", "--ref", normal, "--hyp", huge)
    assert code == 2 and not out
    assert f"{huge}:2: line longer than 4,000 characters (--max-line-chars: ROUGE-L's longest common subsequence" in err
    code, _, err = _run(capsys, "score", "--metric", "rouge", "--ref", normal, "--hyp", normal, "--max-line-chars", "4")
    assert code == 2 and f"{normal}:1: line has 5 characters; at most 4 are accepted per line (--max-line-chars: ROUGE-L" in err
    code, _, err = _run(capsys, "score", "--metric", "rouge", "--ref", normal, "--hyp", normal, "--max-line-chars", "0")
    assert code == 2 and "argument --max-line-chars: 0: expected a number of at least 1" in err
    # BLEU and SARI are linear in a line's length: article-length lines are fine, only the reader's bound applies
    article = _write(tmp_path / "article", ["word " * 2000, "d e f"])  # 10,000 characters
    for metric in ("bleu", "sari"):
        code, out, err = _run(capsys, "score", "--metric", metric, "--ref", article, "--hyp", article, "--src", article)
        assert code == 0, err
        code, out, err = _run(capsys, "score", "--metric", metric, "--ref", normal, "--hyp", huge, "--src", normal)
        assert code == 2 and f"{huge}:2: line longer than 1,000,000 characters" in err


def test_a_file_without_line_breaks_fails_at_once(tmp_path, capsys):
    """``--ref /dev/zero`` read the endless line whole (MemoryError); now the bounded read stops on it."""
    normal = _write(tmp_path / "normal", ["a b c"])
    code, out, err = _run(capsys, "score", "--metric", "bleu", "--ref", "/dev/zero", "--hyp", normal)
    assert code == 2 and "/dev/zero:1: line longer than 1,000,000 characters" in err


def test_a_byte_order_mark_is_not_part_of_the_first_token(tmp_path, capsys):
    plain = _write(tmp_path / "plain", ["the cat sat on the mat", "a b c d e"])
    bom = tmp_path / "bom"
    bom.write_text("\ufeffthe cat sat on the mat\na b c d e\n", encoding="utf-8")
    code, out, _ = _run(capsys, "score", "--metric", "bleu", "--ref", plain, "--hyp", str(bom), "--json")
    assert code == 0 and json.loads(out.splitlines()[-1])["score"] == pytest.approx(100.0)  # 88.07 with the BOM kept


def test_nul_bytes_and_cr_only_line_endings_are_refused_with_file_and_line(tmp_path, capsys):
    plain = _write(tmp_path / "plain", ["a b", "c d"])
    nul = tmp_path / "nul"
    nul.write_bytes(b"a b\nc\0d\n")
    code, _, err = _run(capsys, "score", "--metric", "bleu", "--ref", plain, "--hyp", str(nul))
    assert code == 2 and f"{nul}:2: NUL byte at byte 2 of the line: not a text file" in err
    mac = tmp_path / "mac"
    mac.write_bytes(b"a b\rc d\r")
    code, _, err = _run(capsys, "score", "--metric", "bleu", "--ref", plain, "--hyp", str(mac))
    assert code == 2 and f"{mac}:1: carriage return inside the line (CR-only line endings?)" in err
    crlf = tmp_path / "crlf"
    crlf.write_bytes(b"a b\r\nc d\r\n")  # Windows line endings stay fine
    assert _run(capsys, "score", "--metric", "bleu", "--ref", plain, "--hyp", str(crlf))[0] == 0


def test_an_empty_reference_line_is_refused_for_sari(tmp_path, capsys):
    src = _write(tmp_path / "src", ["the cat sat on the mat", "a b c"])
    hyp = _write(tmp_path / "hyp", ["the cat sat", "a b"])
    ref0 = _write(tmp_path / "ref0", ["the cat sat", "a b"])
    ref1 = _write(tmp_path / "ref1", ["the cat sat on the mat", ""])
    code, out, err = _run(capsys, "score", "--metric", "sari", "--src", src, "--hyp", hyp, "--ref", ref0, "--ref", ref1)
    assert code == 2 and not out and f"{ref1}:2: empty reference line" in err


def test_decoding_refuses_a_vocabulary_other_than_the_checkpoints(workflow_dir, monkeypatch, capsys):
    """A vocabulary in another order gave exact match 0.00 instead of 38.00 without a word; a truncated one an
    IndexError traceback. The checkpoint's digest of its vocabulary now decides."""
    monkeypatch.chdir(workflow_dir)
    for argv in (["generate", "--dataset", "tiny"], ["vocab", "--dataset", "tiny"],
                 ["train", "--experiment", "t_encdec", "--quiet"], ["decode", "--experiment", "t_encdec", "--quiet"]):
        assert _run(capsys, *argv)[0] in (0, None), argv
    vocab = pathlib.Path("data/vocab/tiny.txt")
    lines = vocab.read_text(encoding="utf-8").splitlines()
    vocab.write_text("\n".join(lines[:4] + [lines[5], lines[4]] + lines[6:]) + "\n", encoding="utf-8")  # two swapped
    code, _, err = _run(capsys, "decode", "--experiment", "t_encdec", "--quiet")
    assert code == 2 and "data/vocab/tiny.txt is not the vocabulary runs/t_encdec/best.pt was trained with" in err
    vocab.write_text("\n".join(lines[:-3]) + "\n", encoding="utf-8")  # truncated
    code, _, err = _run(capsys, "decode", "--experiment", "t_encdec", "--quiet")
    assert code == 2 and f"it has {len(lines) - 3} tokens" in err and "Traceback" not in err


def test_a_full_disk_gives_one_line_naming_the_file_and_leaves_nothing(workflow_dir, monkeypatch, capsys):
    """Disk full: train ended in an 11-frame torch traceback, decode/score printed 'error: : No space left on device'."""
    import errno
    import os

    monkeypatch.chdir(workflow_dir)
    for argv in (["generate", "--dataset", "tiny"], ["vocab", "--dataset", "tiny"]):
        assert _run(capsys, *argv)[0] in (0, None)

    def torch_full(obj, f, *args, **kwargs):  # what torch raises when its stream writer hits ENOSPC
        raise RuntimeError("[enforce fail at inline_container.cc:603] . PytorchStreamWriter failed writing file "
                           "data/3: file write failed")

    with monkeypatch.context() as patch:
        patch.setattr(torch, "save", torch_full)
        code, _, err = _run(capsys, "train", "--experiment", "t_encdec", "--quiet")
    assert code == 2 and "runs/t_encdec/resume/" in err and "is the disk full?" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 + sum("INFO" in line or "WARNING" in line for line in err.splitlines())
    assert not list(pathlib.Path("runs/t_encdec").glob("**/*.pt")) and not list(pathlib.Path("runs").glob("**/.*.tmp"))

    assert _run(capsys, "train", "--experiment", "t_encdec", "--quiet")[0] in (0, None)
    real_fsync = os.fsync

    def fsync_full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    with monkeypatch.context() as patch:
        patch.setattr(os, "fsync", fsync_full)
        code, _, err = _run(capsys, "decode", "--experiment", "t_encdec", "--quiet")
    assert os.fsync is real_fsync
    assert code == 2 and "runs/t_encdec/test.nbest.jsonl: No space left on device (writing runs/t_encdec/test.nbest" \
        in err
    assert not pathlib.Path("runs/t_encdec/test.nbest.jsonl").exists() and not list(pathlib.Path("runs").glob("**/.*.tmp"))
