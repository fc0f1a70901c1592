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
        "mirrors: [../shared/data]", "mirrors: [" + repr(hostile).replace("'", '"') + "]")
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
