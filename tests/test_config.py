from pathlib import Path

import pytest
import yaml

from paragen.config import ConfigError, load_config, parse_config

from conftest import ROOT, TINY_PARAMS


def _raw() -> dict:
    return yaml.safe_load(TINY_PARAMS.read_text())


def test_project_params_yaml_is_valid():
    config = load_config(ROOT / "params.yaml")
    assert config.active_experiments() == ["syn_encdec", "syn_rnnsearch", "syn_copynet", "syn_wean"]
    assert config.models["copynet_paper"].hidden_size == 300
    assert config.models["copynet_paper"].embedding_size == 150
    assert config.decoding["beam10"].beam_size == 10


def test_paper_scale_switch_selects_paper_experiments():
    raw = yaml.safe_load((ROOT / "params.yaml").read_text())
    raw["scale"] = "paper"
    config = parse_config(raw)
    assert list(config.active_tables()) == ["copynet_synthetic_paper_scale"]
    dataset = config.datasets[config.experiments[config.active_experiments()[0]].dataset]
    assert (dataset.rules, dataset.instances_per_rule, dataset.symbols) == (200, 200, 1000)


def test_unknown_key_is_named():
    raw = _raw()
    raw["models"]["copynet"]["hiden_size"] = 5
    with pytest.raises(ConfigError, match=r"models\.copynet\.hiden_size: unknown key"):
        parse_config(raw)


def test_bad_value_names_key_and_allowed_values():
    raw = _raw()
    raw["models"]["copynet"]["cell"] = "rnn"
    with pytest.raises(ConfigError) as error:
        parse_config(raw)
    assert "models.copynet.cell" in str(error.value)
    assert "'gru'" in str(error.value) and "'lstm'" in str(error.value)


def test_dangling_reference_lists_allowed_values():
    raw = _raw()
    raw["experiments"]["t_wean"]["model"] = "nope"
    with pytest.raises(ConfigError, match=r"experiments\.t_wean\.model: unknown model 'nope'.*copynet"):
        parse_config(raw)


def test_bad_range_and_nbest_are_rejected():
    raw = _raw()
    raw["datasets"]["tiny"]["variable_length"] = [5, 2]
    with pytest.raises(ConfigError, match="variable_length"):
        parse_config(raw)
    raw = _raw()
    raw["decoding"]["beam3"]["nbest"] = 4
    with pytest.raises(ConfigError, match="nbest"):
        parse_config(raw)


def test_missing_and_malformed_files(tmp_path: Path):
    with pytest.raises(ConfigError, match="file not found"):
        load_config(tmp_path / "absent.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("suites: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(bad)


def test_yaml_syntax_errors_name_line_and_column(tmp_path: Path):
    bad = tmp_path / "params.yaml"
    bad.write_text("suites: [synthetic]\nscale: [default\ndata: []\n")
    with pytest.raises(ConfigError) as error:
        load_config(bad)
    assert str(error.value).startswith(f"{bad}:3:5: not valid YAML: expected ',' or ']', but got ':'")
    assert "flow sequence that starts at line 2, column 8" in str(error.value)
    bad.write_text("a: 1\n\tb: 2\n")
    with pytest.raises(ConfigError, match=rf"^{bad}:2:1: not valid YAML: found character '\\t'"):
        load_config(bad)


def _with_real(**overrides) -> dict:
    raw = _raw()
    raw["datasets"]["turk_mini"] = {"kind": "real", "fetch": ["turkcorpus", "asset"], "fetch_scope": "eval",
                                    "splits": ["train", "valid", "test"], **overrides}
    raw["data"] = ["turk_mini"]
    return raw


def test_real_dataset_config_is_validated():
    assert parse_config(_with_real()).data == ["turk_mini"]
    with pytest.raises(ConfigError, match=r"unknown registry entry 'turkcorpsu'.*asset"):
        parse_config(_with_real(fetch=["turkcorpsu"]))
    with pytest.raises(ConfigError, match=r"unknown split 'dev'.*\['train', 'valid', 'test'\]"):
        parse_config(_with_real(splits=["dev"]))
    with pytest.raises(ConfigError, match=r"datasets.turk_mini.segmentation: got 'spm'"):
        parse_config(_with_real(segmentation="spm"))
    raw = _with_real()
    raw["data"] = ["tiny"]
    with pytest.raises(ConfigError, match=r"data: 'tiny' is not a real or local dataset; allowed values: \['turk_mini'\]"):
        parse_config(raw)
    raw = _with_real(shared_vocab=False)
    raw["experiments"]["t_wean"]["dataset"] = "turk_mini"
    with pytest.raises(ConfigError, match="shared_vocab: false; models read one vocabulary"):
        parse_config(raw)
    raw = _with_real(splits=["train", "test"])
    raw["experiments"]["t_wean"]["dataset"] = "turk_mini"
    with pytest.raises(ConfigError, match=r"lacks split\(s\) \['valid'\]"):
        parse_config(raw)
    with pytest.raises(ConfigError, match=r"evaluation.metrics.0: got 'meteor'"):
        parse_config(_with_real(evaluation={"metrics": ["meteor"]}))


def test_real_experiments_run_only_when_their_dataset_is_switched_on():
    raw = _with_real()
    raw["experiments"]["t_wean"]["dataset"] = "turk_mini"
    assert "t_wean" in parse_config(raw).active_experiments()
    raw["data"] = []
    config = parse_config(raw)
    assert "t_wean" not in config.active_experiments() and not config.runnable("t_wean")
    assert config.runnable("t_encdec")


@pytest.mark.parametrize("section,key,value,shown", [
    ("training", "batch_size", True, "got True (bool)"),         # int: a boolean is not 1
    ("training", "batch_size", "32", "got '32' (str)"),          # int: a string is not a number
    ("training", "threads", True, "got True (bool)"),            # optional int
    ("training", "learning_rate", "0.002", "got '0.002' (str)"),  # float
    ("training", "learning_rate", True, "got True (bool)"),      # float: a boolean is not 1.0
    ("training", "amp", 1, "got 1 (int)"),                       # bool: 1 is not true
    ("decoding", "length_penalty", "1.0", "got '1.0' (str)"),    # float with a bound
])
def test_configuration_types_are_strict(tmp_path, section, key, value, shown):
    import yaml

    from paragen.config import ConfigError, load_config

    raw = yaml.safe_load((ROOT / "params.yaml").read_text())
    name = "synthetic_small" if section == "training" else "beam10"
    raw[section][name][key] = value
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(raw))
    with pytest.raises(ConfigError) as error:
        load_config(tmp_path / "params.yaml")
    assert f"{section}.{name}.{key}: " in str(error.value) and shown in str(error.value)


def test_integers_are_still_valid_floats(tmp_path):
    import yaml

    from paragen.config import load_config

    raw = yaml.safe_load((ROOT / "params.yaml").read_text())
    raw["decoding"]["beam10"]["length_penalty"] = 1
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(raw))
    assert load_config(tmp_path / "params.yaml").decoding["beam10"].length_penalty == 1.0


def test_003s_protocol_needs_the_turk_files():
    raw = yaml.safe_load((ROOT / "params.yaml").read_text())
    raw["datasets"]["pwkp"]["evaluation"] = {"metrics": ["bleu"], "report_protocol": True}
    with pytest.raises(ConfigError, match="report_protocol: 003's protocol scores against the Turk test files, but "
                                          "the dataset does not fetch turkcorpus"):
        parse_config(raw)
    raw["systems"]["simp_oracle"]["reference"] = "all"
    del raw["datasets"]["pwkp"]["evaluation"]["report_protocol"]
    with pytest.raises(ConfigError, match="simp_oracle.reference"):
        parse_config(raw)
