import subprocess
import sys

from paragen.config import load_config
from paragen.pipeline.plan import final_outputs, stages
from paragen.pipeline.dvc import render_dvc_yaml

from conftest import ROOT


def test_committed_dvc_yaml_matches_params_yaml():
    assert (ROOT / "dvc.yaml").read_text() == render_dvc_yaml(load_config(ROOT / "params.yaml"))
    result = subprocess.run([sys.executable, "-m", "paragen.cli", "dvc-yaml", "--check"], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_stage_graph_is_closed_and_acyclic(tiny_config):
    all_stages = stages(tiny_config)
    produced = {}
    for stage in all_stages:
        for dep in stage.deps:
            assert dep in produced, f"{stage.name} needs {dep}, which no earlier stage writes"
        for out in stage.outs:
            assert out not in produced, f"{out} written by {produced.get(out)} and {stage.name}"
            produced[out] = stage.name
    assert len({s.name for s in all_stages}) == len(all_stages)
    assert "results/REPORT.md" in final_outputs(all_stages)


def test_hyperparameters_reach_only_their_stages(tiny_config):
    by_param = {}
    for stage in stages(tiny_config):
        for key in stage.params:
            by_param.setdefault(key, []).append(stage.name)
    assert by_param["models.copynet"] == ["train_t_copynet"]
    assert by_param["decoding.beam3"] == ["decode_t_encdec", "decode_t_copynet", "decode_t_wean"]


def test_real_data_stages_share_fetches_and_preparations():
    import yaml

    from paragen.config import parse_config

    raw = yaml.safe_load((ROOT / "params.yaml").read_text())
    raw["data"] = ["ew_sew", "turk_mini", "turk_mini_copy", "turk_mini_matrix", "lcsts_wean", "lcsts_copynet_word"]
    by_name = {s.name: s for s in stages(parse_config(raw))}
    fetches = sorted(n for n in by_name if n.startswith("fetch_"))
    assert fetches == ["fetch_asset", "fetch_ew_sew", "fetch_lcsts", "fetch_turkcorpus"]
    assert by_name["fetch_turkcorpus"].outs == ("data/raw/turkcorpus/.complete-all.json",)  # widest scope wins
    assert "data/raw/turkcorpus/.complete-all.json" in by_name["prepare_turk_mini"].deps
    assert [n for n in by_name if n.startswith("prepare_lcsts")] == ["prepare_lcsts"]  # one preparation, two segmentations
    assert by_name["segment_lcsts_copynet_word"].cmd.startswith("paragen segment lcsts --scheme jieba")
    assert by_name["vocab_lcsts_wean"].cmd.endswith("--size 4000 --shared")
    assert [n for n in by_name if n.startswith("prepare_turk")] == ["prepare_turk_mini"]  # the copy task shares it
    assert "--copy-task" in by_name["segment_turk_mini_copy"].cmd.split()
    assert "--copy-task" not in by_name["segment_turk_mini"].cmd.split()
    assert "datasets.turk_mini_copy.copy_task" in by_name["segment_turk_mini_copy"].params
    assert by_name["segment_turk_mini_matrix"].cmd.split()[-5:] == ["--train-sample", "3600", "--train-sample-seed",
                                                                   "1", "--quiet"]
    assert "datasets.turk_mini_matrix.train_sample" in by_name["segment_turk_mini_matrix"].params
    assert "--train-sample" not in by_name["segment_turk_mini"].cmd
    raw["datasets"]["lcsts_copynet_word"]["strip_specials"] = True
    import pytest
    from paragen.config import ConfigError

    with pytest.raises(ConfigError, match="shares recipe 'lcsts' with datasets.lcsts_wean"):
        parse_config(raw)


def test_dvc_plots_group_each_tables_curves_and_their_output_is_ignored(tiny_config):
    import yaml

    document = yaml.safe_load(render_dvc_yaml(tiny_config))
    assert not any("plots" in stage for stage in document["stages"].values())  # no per-model plot
    (plot,) = document["plots"]
    spec = plot["copynet_synthetic_valid_curves"]
    assert spec["y"] == {f"runs/{e}/train_log.csv": "valid_metric" for e in ("t_encdec", "t_copynet", "t_wean")}
    assert spec["x"] == "epoch" and spec["y_label"] == "validation exact-match accuracy (%)"
    assert "validation split" in spec["title"]
    assert "/dvc_plots/" in (ROOT / ".gitignore").read_text().splitlines()


def _training_logs_and_plotted(raw: dict) -> tuple[set[str], set[str]]:
    """(train_log.csv of every train stage, every file some `dvc plots` entry draws) for a params mapping."""
    from paragen.config import parse_config
    from paragen.pipeline.dvc import dvc_plots
    from paragen.pipeline.plan import build_plan

    config = parse_config(raw, "params.yaml")
    logs = {out for s in stages(config) if s.step == "train" for out in s.outs if out.endswith("/train_log.csv")}
    return logs, {path for plot in dvc_plots(build_plan(config)) for spec in plot.values() for path in spec["y"]}


def test_dvc_plots_draw_every_training_log_of_every_suite():
    import yaml

    raw = yaml.safe_load((ROOT / "params.yaml").read_text())
    raw["suites"] = sorted({t["suite"] for t in raw["tables"].values()})
    raw["data"] = [name for name, spec in raw["datasets"].items() if spec.get("kind") == "real"]
    logs, plotted = _training_logs_and_plotted(raw)
    assert "runs/simp_dmass/train_log.csv" in logs and "runs/mini_wean/train_log.csv" in logs
    assert logs == plotted


def test_dvc_plots_draw_a_trained_row_that_only_a_system_rewrites():
    """Without the nmt row in 003 Table 1, simp_nmt still trains (the paraphrase-nmt rows rewrite its output)."""
    import yaml

    raw = yaml.safe_load((ROOT / "params.yaml").read_text())
    raw["suites"], raw["data"] = ["simplification"], ["wikilarge", "turk"]
    del raw["tables"]["simplification"]["rows"]["nmt"]
    logs, plotted = _training_logs_and_plotted(raw)
    assert "runs/simp_nmt/train_log.csv" in logs
    assert logs == plotted
    from paragen.config import parse_config

    document = yaml.safe_load(render_dvc_yaml(parse_config(raw, "params.yaml")))
    (own,) = [p["simp_nmt_valid_curves"] for p in document["plots"] if "simp_nmt_valid_curves" in p]
    assert own["y"] == {"runs/simp_nmt/train_log.csv": "valid_metric"} and own["title"].startswith("simp_nmt: ")


def test_dvc_yaml_check_fails_on_a_stale_file_and_writing_is_idempotent(tmp_path):
    def dvc_yaml(*options):
        return subprocess.run([sys.executable, "-m", "paragen.cli", "dvc-yaml", "--params", str(ROOT / "params.yaml"),
                               "--output", str(tmp_path / "dvc.yaml"), *options], capture_output=True, text=True)

    assert dvc_yaml("--check").returncode != 0  # absent
    assert "written" in dvc_yaml().stdout
    assert "already up to date" in dvc_yaml().stdout
    assert dvc_yaml("--check").returncode == 0
    (tmp_path / "dvc.yaml").write_text((tmp_path / "dvc.yaml").read_text() + "# edited\n")
    stale = dvc_yaml("--check")
    assert stale.returncode != 0 and "out of date" in stale.stderr
