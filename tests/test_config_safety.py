"""Hostile or broken params.yaml (issue 24): names, quoting, YAML bounds, duplicate keys, YTE templates."""

import shlex
import subprocess
from pathlib import Path

import pytest
import yaml

from paragen.config import ConfigError, load_config, parse_config, read_params

from conftest import ROOT, TINY_PARAMS


def _tiny() -> dict:
    return yaml.safe_load(TINY_PARAMS.read_text())


@pytest.mark.parametrize("name", ["t_$(touch X)", "../../../somewhere", "a b", "x.y", "a/b", "-lead", ""])
def test_unsafe_experiment_and_dataset_names_are_refused_naming_the_key(name):
    raw = _tiny()
    raw["experiments"][name] = raw["experiments"].pop("t_wean")
    raw["tables"]["copynet_synthetic"]["rows"]["WEAN"] = name
    with pytest.raises(ConfigError, match=r"experiments\..*not a usable name"):
        parse_config(raw)
    raw = _tiny()
    raw["datasets"][name] = raw["datasets"]["tiny"]
    with pytest.raises(ConfigError, match=r"datasets\..*not a usable name"):
        parse_config(raw)


def test_suite_and_data_names_are_checked_too():
    raw = _tiny()
    raw["suites"] = ["synthetic;rm"]
    with pytest.raises(ConfigError, match="suites.0: .*not a usable name"):
        parse_config(raw)


def test_every_word_of_every_stage_command_survives_the_shell():
    """A mirror path with shell characters reaches paragen as one argument in both engines' command text."""
    from paragen.pipeline.plan import stages

    raw = yaml.safe_load((ROOT / "params.yaml").read_text())
    hostile = "../shared/data;touch X;# $(id) `id` 'q'"
    raw["mirrors"] = [hostile]
    raw["data"] = ["turk_mini"]
    config = parse_config(raw)
    fetches = [s for s in stages(config) if s.step == "fetch"]
    assert fetches
    for stage in fetches:
        words = shlex.split(stage.cmd)
        assert hostile in words and words[0] == "paragen", stage.cmd


def test_hostile_paths_reach_paragen_as_one_argument_in_both_engines(workflow_dir):
    """Dry runs only: the commands Snakemake prints and dvc.yaml holds, parsed back with shlex.split."""
    from paragen.pipeline.dvc import write_dvc_yaml
    from test_engines_agree import dvc_stages, snakemake_jobs

    hostile = "../shared/data;touch X;# $(touch Y) `touch Z`"
    text = (ROOT / "params.yaml").read_text().replace("\ndata: []\n", "\ndata: [turk_mini]\n").replace(
        "mirrors: []", "mirrors: [" + repr(hostile).replace("'", '"') + "]")
    (workflow_dir / "params.yaml").write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=workflow_dir, check=True)
    subprocess.run(["dvc", "init", "-q"], cwd=workflow_dir, check=True)
    write_dvc_yaml(load_config(workflow_dir / "params.yaml"), workflow_dir / "dvc.yaml")
    for commands in (snakemake_jobs(workflow_dir), dvc_stages(workflow_dir)):
        fetch = [cmd for name, (cmd, _, _) in commands.items() if name.startswith("fetch_")]
        assert fetch
        for cmd in fetch:
            words = shlex.split(cmd)
            assert words[:2] == ["paragen", "fetch"] and hostile in words, cmd
    assert not any((workflow_dir / name).exists() for name in ("X", "Y", "Z"))


def test_duplicate_keys_are_refused_with_both_lines(tmp_path: Path):
    path = tmp_path / "params.yaml"
    path.write_text(TINY_PARAMS.read_text() + "scale: paper\n")
    first = next(i for i, line in enumerate(TINY_PARAMS.read_text().splitlines(), 1) if line.startswith("scale:"))
    last = len(TINY_PARAMS.read_text().splitlines()) + 1
    with pytest.raises(ConfigError, match=rf"params.yaml:{last}: duplicate key 'scale' \(first given at line {first}\)"):
        load_config(path)


def test_nested_duplicate_key_is_refused():
    from paragen.safe_yaml import YamlInputError, load_yaml_text

    with pytest.raises(YamlInputError, match=r"f:3: duplicate key 'b' \(first given at line 2\)"):
        load_yaml_text("a:\n  b: 1\n  b: 2\n", "f")
    # merge keys may still be overridden: that is what they are for
    assert load_yaml_text("base: &b {x: 1}\nuse:\n  <<: *b\n  x: 2\n", "f")["use"] == {"x": 2}


def test_alias_bomb_inside_an_allowed_key_is_refused_naming_the_line(tmp_path: Path):
    lines = ["  - &a0 [x, x, x, x, x, x, x, x, x]"]
    for level in range(1, 9):
        lines.append(f"  - &a{level} [" + ", ".join([f"*a{level - 1}"] * 9) + "]")
    text = TINY_PARAMS.read_text() + "mirrors:\n" + "\n".join(lines) + "\n"
    path = tmp_path / "params.yaml"
    path.write_text(text)
    innermost = len(TINY_PARAMS.read_text().splitlines()) + 1 + 6  # 9^6 > 100,000: the 7th list crosses the bound
    from paragen.safe_yaml import load_yaml_text

    with pytest.raises(ConfigError, match=rf"params.yaml:{innermost}: this value expands to more than 100,000 values"):
        read_params(path)
    # a handful of aliases is fine
    assert load_yaml_text("a: &x [1, 2]\nb: *x\nc: *x\n", "f") == {"a": [1, 2], "b": [1, 2], "c": [1, 2]}


def test_oversized_and_non_utf8_files_are_refused(tmp_path: Path):
    big = tmp_path / "big.yaml"
    big.write_text("a: " + "x" * (1 << 20) + "\n")
    with pytest.raises(ConfigError, match="larger than 1,048,576 bytes"):
        read_params(big)
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(b"suites: [synthetic]\nx: \xff\n")
    with pytest.raises(ConfigError, match=r"bad.yaml:2: not UTF-8"):
        read_params(bad)


def test_yte_template_switch_is_refused_before_snakemake_evaluates_it(workflow_dir):
    """``__use_yte__: true`` would make Snakemake's configfile: run ``?`` expressions as Python."""
    marker = workflow_dir / "EVALUATED"
    text = TINY_PARAMS.read_text() + f"__use_yte__: true\nevil: ?open({str(marker)!r}, 'w').write('x')\n"
    (workflow_dir / "params.yaml").write_text(text)
    result = subprocess.run(["snakemake", "-n", "--cores", "1"], cwd=workflow_dir, capture_output=True, text=True)
    assert result.returncode != 0 and not marker.exists()
    assert "unknown top-level key(s) '__use_yte__', 'evil'" in result.stdout + result.stderr
    dvc = subprocess.run(["paragen", "dvc-yaml"], cwd=workflow_dir, capture_output=True, text=True)
    assert dvc.returncode != 0 and "unknown top-level key(s) '__use_yte__', 'evil'" in dvc.stderr
    assert not marker.exists()


def test_dvc_yaml_from_another_params_file_reads_that_file(tmp_path: Path, monkeypatch):
    from paragen.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "other.yaml").write_text(TINY_PARAMS.read_text())
    assert main(["dvc-yaml", "--params", "other.yaml", "--output", "dvc.yaml"]) in (0, None)
    stages = yaml.safe_load((tmp_path / "dvc.yaml").read_text())["stages"]
    with_params = [s for s in stages.values() if "--params" in s["cmd"]]
    assert with_params and all(shlex.split(s["cmd"])[shlex.split(s["cmd"]).index("--params") + 1] == "other.yaml"
                               for s in with_params)
    assert stages["train_t_copynet"]["params"] == [{"other.yaml": ["models.copynet", "training.tiny"]}]


def test_an_unknown_published_table_is_refused_at_load_time():
    raw = _tiny()
    raw["tables"]["copynet_synthetic"]["paper"] = "copynet_tabel1"
    with pytest.raises(ConfigError, match=r"tables.copynet_synthetic.paper: .*no published-number file 'copynet_tabel1'"
                                          r".*copynet_table1"):
        parse_config(raw)


def test_missing_inputs_name_the_stage_that_makes_them(workflow_dir, monkeypatch, capsys):
    from paragen.cli import main

    monkeypatch.chdir(workflow_dir)
    assert main(["generate", "--dataset", "tiny"]) in (0, None)
    capsys.readouterr()
    assert main(["train", "--experiment", "t_encdec", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "data/vocab/tiny.txt: vocabulary not found; `paragen vocab`" in err and "Errno" not in err
    Path("data/prepared/tiny/test.src").write_text("")
    assert main(["vocab", "--dataset", "tiny"]) in (0, None)
    assert main(["train", "--experiment", "t_encdec", "--quiet"]) in (0, None)
    capsys.readouterr()
    assert main(["decode", "--experiment", "t_encdec", "--quiet"]) == 2
    assert "data/prepared/tiny/test.src: empty file: there is nothing to decode" in capsys.readouterr().err
    assert not Path("runs/t_encdec/test.hyp").exists()


DEEP = 50_000
"""Levels of ``[`` in the deep-nesting tests: 2 bytes a level, far past Python's recursion limit (~1,000)."""


def _deep_params(directory: Path) -> tuple[Path, int]:
    """The tiny params with ``mirrors:`` nested :data:`DEEP` lists deep, and that line's number."""
    text = TINY_PARAMS.read_text()
    path = directory / "params.yaml"
    path.write_text(text + "mirrors: " + "[" * DEEP + "]" * DEEP + "\n")
    return path, len(text.splitlines()) + 1


def test_deep_nesting_is_refused_at_the_first_level_past_the_limit(tmp_path: Path):
    """The top-level mapping is level 1, so the 64th ``[`` (column 9 + 64, after ``mirrors: ``) opens level 65."""
    path, line = _deep_params(tmp_path)
    with pytest.raises(ConfigError) as error:
        read_params(path)
    assert str(error.value) == f"{path}:{line}:73: nesting deeper than 64 levels"


def test_nesting_is_counted_in_block_style_and_through_aliases():
    from paragen.safe_yaml import YamlInputError, load_yaml_text

    assert load_yaml_text("a: " + "[" * 63 + "]" * 63, "f")  # 64 levels: allowed
    with pytest.raises(YamlInputError, match=r"^f:1:67: nesting deeper than 64 levels$"):
        load_yaml_text("a: " + "[" * 64 + "]" * 64, "f")
    block = "a:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, 70))  # line j opens level j at column 2j-1
    with pytest.raises(YamlInputError, match=r"^f:65:129: nesting deeper than 64 levels$"):
        load_yaml_text(block, "f")
    # 1 + 30 levels around an alias to a 40-level value: 71 levels once loaded, refused at the alias (column 38)
    aliased = "x: &x " + "[" * 40 + "]" * 40 + "\ny: " + "[" * 30 + "*x" + "]" * 30 + "\n"
    with pytest.raises(YamlInputError, match=r"^f:2:34: nesting deeper than 64 levels \(through the alias \*x\)$"):
        load_yaml_text(aliased, "f")
    assert load_yaml_text("x: &x [[1]]\ny: [*x, *x]\n", "f") == {"x": [[1]], "y": [[[1]], [[1]]]}


def test_both_engines_refuse_deep_nesting_with_paragens_line(workflow_dir):
    """Snakemake's own YAML reading would end in a RecursionError; the Snakefile's read_params comes first."""
    _, line = _deep_params(workflow_dir)
    expected = f"params.yaml:{line}:73: nesting deeper than 64 levels"
    snake = subprocess.run(["snakemake", "-n", "--cores", "1"], cwd=workflow_dir, capture_output=True, text=True)
    assert snake.returncode != 0 and f"paragen: {expected}\n" in snake.stderr, snake.stderr[-2000:]
    assert "RecursionError" not in snake.stdout + snake.stderr and "Traceback" not in snake.stderr
    dvc = subprocess.run(["paragen", "dvc-yaml"], cwd=workflow_dir, capture_output=True, text=True)
    assert dvc.returncode == 2 and dvc.stderr == f"paragen dvc-yaml: error: {expected}\n", dvc.stderr[-2000:]


BRACED = "Snakemake would read {...} as a wildcard; write it without braces"


@pytest.mark.parametrize("where, value, line", [
    (("tables", "copynet_synthetic", "note"), "q_{t-1} is fed back", "tables.copynet_synthetic.note: '{' in "
     "'q_{t-1} is fed back'"),
    (("tables", "copynet_synthetic", "title"), "tiny table}", "tables.copynet_synthetic.title: '}' in 'tiny table}'"),
    (("mirrors",), ["../shared/data", "/data/{x}"], "mirrors.1: '{' in '/data/{x}'"),
])
def test_braces_in_text_are_refused_naming_the_key(where, value, line):
    raw = _tiny()
    holder = raw
    for key in where[:-1]:
        holder = holder[key]
    holder[where[-1]] = value
    with pytest.raises(ConfigError) as error:
        parse_config(raw)
    assert str(error.value).splitlines() == ["params.yaml: invalid configuration", f"  {line}: {BRACED}"]


def test_a_brace_in_a_row_label_is_refused_naming_the_label():
    raw = _tiny()
    rows = raw["tables"]["copynet_synthetic"]["rows"]
    rows["Enc{Dec"] = rows.pop("Enc-Dec")
    raw["tables"]["copynet_synthetic"]["comparisons"] = []
    with pytest.raises(ConfigError) as error:
        parse_config(raw)
    assert f"  tables.copynet_synthetic.rows.Enc{{Dec: the key 'Enc{{Dec' contains '{{': {BRACED}" in str(
        error.value).splitlines()


def test_both_engines_refuse_a_brace_in_a_note_or_row_with_the_same_lines(workflow_dir):
    """Snakemake used to stop with ``WildcardError ... 'b'`` (the note reaches a rule's params) while DVC ran."""
    params = workflow_dir / "params.yaml"
    params.write_text(params.read_text().replace('title: "tiny test table"', 'title: "tiny test table"\n'
                                                 '    note: "a {b} note"').replace("WEAN: t_wean", "\"W{EAN\": t_wean"))
    expected = [f"  tables.copynet_synthetic.note: '{{' in 'a {{b}} note': {BRACED}",
                f"  tables.copynet_synthetic.rows.W{{EAN: the key 'W{{EAN' contains '{{': {BRACED}"]
    snake = subprocess.run(["snakemake", "-n", "--cores", "1"], cwd=workflow_dir, capture_output=True, text=True)
    assert snake.returncode != 0 and "WildcardError" not in snake.stdout + snake.stderr
    assert "paragen: params.yaml: invalid configuration\n" + "\n".join(expected) + "\n" in snake.stderr, snake.stderr
    dvc = subprocess.run(["paragen", "dvc-yaml"], cwd=workflow_dir, capture_output=True, text=True)
    assert dvc.returncode == 2 and dvc.stderr.splitlines() == [
        "paragen dvc-yaml: error: params.yaml: invalid configuration", *expected]


def test_snakemake_names_config_overrides_only_when_given(workflow_dir):
    params = workflow_dir / "params.yaml"
    params.write_text(params.read_text().replace("beam_size: 3", "beam_size: 0"))
    bad = "  decoding.beam3.beam_size: Input should be greater than 0\n"
    plain = subprocess.run(["snakemake", "-n", "--cores", "1"], cwd=workflow_dir, capture_output=True, text=True)
    said = plain.stdout + plain.stderr
    assert plain.returncode != 0 and "invalid configuration" in said and "--config" not in said, said
    assert f"paragen: params.yaml: invalid configuration\n{bad}" in plain.stderr and 'File "' not in said, said
    given = subprocess.run(["snakemake", "-n", "--cores", "1", "--config", "seeds=2"], cwd=workflow_dir,
                           capture_output=True, text=True)
    assert f"paragen: params.yaml with --config seeds=2: invalid configuration\n{bad}" in given.stderr, given.stderr
    params.write_text(TINY_PARAMS.read_text())
    override = subprocess.run(["snakemake", "-n", "--cores", "1", "--config", "seeds=0"], cwd=workflow_dir,
                              capture_output=True, text=True)
    assert ("paragen: params.yaml with --config seeds=0: invalid configuration\n  seeds: Input should be greater "
            "than 0\n") in override.stderr, override.stderr
