"""Cluster requests per stage (paragen.pipeline.resources): GPUs only where a model trains or decodes, sizes that grow with
the work, the rules carrying them, and torchrun for several GPUs."""

import json
import re
import subprocess
import sys

import pytest
import yaml

from paragen.config import ConfigError, parse_config
from paragen.pipeline.plan import stages
from paragen.pipeline.resources import Resources

from conftest import ROOT, TINY_PARAMS, stage_command

PROJECT = yaml.safe_load((ROOT / "params.yaml").read_text())
SUITES = sorted({table["suite"] for table in PROJECT["tables"].values()})
REAL = [name for name, spec in PROJECT["datasets"].items() if spec["kind"] == "real"]
RUNS_A_MODEL = re.compile(r"^exec (paragen|torchrun .* -m paragen\.cli) (train|decode|closest-heldout) ")
"""The commands that load a model and run it: what a GPU is for (system_* rows compute outputs without one)."""


def project(suites, scale="default", **changes):
    """params.yaml with these suites on and every real dataset switched on."""
    raw = {**PROJECT, "suites": suites, "scale": scale, "data": REAL}
    for dotted, value in changes.items():
        section, name, key = dotted.split(".")
        raw[section] = {**raw[section], name: {**raw[section][name], key: value}}
    return parse_config(raw)


@pytest.mark.parametrize("scale", ["default", "paper"])
def test_models_train_and_decode_on_gpus_and_nothing_else_asks_for_one(scale):
    all_stages = stages(project(SUITES, scale))
    for stage in all_stages:
        if RUNS_A_MODEL.match(stage.cmd):
            assert stage.resources.gpus >= 1, stage.name
        else:
            assert stage.resources.gpus == 0, stage.name
        assert stage.resources.mem_mb > 0 and stage.resources.runtime > 0, stage.name


def test_every_suite_trains_on_gpus():
    """The test above is not vacuous: every suite's trained rows train and decode on GPUs."""
    on_gpu = {s.name for s in stages(project(SUITES)) if s.resources.gpus}
    for suite in SUITES:
        rows = {row for table in PROJECT["tables"].values() if table["suite"] == suite
                for row in [*table.get("rows", {}).values(), *(e for c in table.get("grid", {}).values()
                                                                 for e in c.values())]
                if row in PROJECT["experiments"] and not row.startswith("synp_")}
        assert rows, suite
        expected = set()
        for row in rows:
            splits = PROJECT["datasets"][PROJECT["experiments"][row]["dataset"]].get("test_splits")
            expected |= {f"train_{row}"} | ({f"decode_{row}_{split}" for split in splits} if splits
                                             else {f"decode_{row}"})  # one decode stage per test split
        assert expected <= on_gpu, suite


def test_synthetic_small_request_worked_by_hand():
    """syn_encdec: 20 rules x 200 instances, half to train less 10 % validation = 1,800 pairs, 25 epochs.
    Per target token: bi-GRU encoder 2*3*128*(64+128) = 147,456, GRU decoder reading [e; c; s] =
    3*128*(64+256+128) = 172,032, output 204*128 = 26,112 multiply-adds (345,600); 1/7000 s per token plus
    6*345,600/20e12 s; the launch-bound 1/7000 s was measured at a batch of 64, this batch is 32: 2/7000 s;
    building an epoch's batches 155.2 s per million pairs. Wall time:
    10 + 2*25*(1800*25*(2/7000 + 1.0368e-7) + 155.2*0.0018)/60 = 20.96 -> 30 minutes. Memory:
    4000 + 1800*1477/1e6 (2) + (345,600 + 2*204*64)*16/1e6 (5) = 4007 -> 5000 MB."""
    by_name = {s.name: s for s in stages(project(["synthetic"]))}
    assert by_name["train_syn_encdec"].resources == Resources(gpus=1, mem_mb=5000, runtime=30)
    # decoding: 2,000 test sentences at 30 a second (beam 10, max length 80), doubled: 10 + 2.2 -> 20 minutes
    assert by_name["decode_syn_encdec"].resources == Resources(gpus=1, mem_mb=5000, runtime=20)
    assert by_name["score_syn_encdec"].resources == Resources(gpus=0, mem_mb=2000, runtime=30)


def test_requests_grow_with_the_work():
    def train(config, experiment):
        return next(s.resources for s in stages(config) if s.name == f"train_{experiment}")

    default, paper = project(["synthetic"]), project(["synthetic"], "paper")
    assert train(paper, "synp_copynet").runtime > train(default, "syn_copynet").runtime  # 10x the data, 40 epochs
    longer = project(["synthetic"], **{"training.synthetic_small.max_epochs": 100})
    assert train(longer, "syn_copynet").runtime > train(default, "syn_copynet").runtime
    wider = project(["synthetic"], "paper", **{"models.copynet_paper.hidden_size": 4096})
    assert train(wider, "synp_copynet").mem_mb > train(paper, "synp_copynet").mem_mb
    everything = project(SUITES)
    lcsts, turk_mini = train(everything, "lcsts_wean"), train(everything, "mini_wean")  # 2.4 M pairs vs 32,400
    assert lcsts.runtime > 10 * turk_mini.runtime and lcsts.mem_mb > turk_mini.mem_mb
    data = {s.name: s.resources for s in stages(everything)}
    assert data["segment_gigaword"].runtime > data["segment_turk_mini"].runtime
    assert data["segment_gigaword"].mem_mb > data["segment_turk_mini"].mem_mb


def test_gpus_per_experiment_is_validated():
    assert project(["synthetic"]).experiments["syn_wean"].gpus == 1
    for bad in (0, -1, True, "2"):
        with pytest.raises(ConfigError, match=r"experiments\.syn_wean\.gpus"):
            project(["synthetic"], **{"experiments.syn_wean.gpus": bad})


def test_several_gpus_start_training_under_torchrun():
    from torch.distributed.run import get_args_parser

    config = project(["synthetic"], **{"experiments.syn_wean.gpus": 4, "training.synthetic_small.threads": 2})
    by_name = {s.name: s for s in stages(config)}
    train = by_name["train_syn_wean"]
    assert train.cmd == ("exec torchrun --standalone --nproc-per-node 4 -m paragen.cli train --params params.yaml "
                         "--experiment syn_wean --die-with-parent")
    assert train.resources.gpus == 4 and train.threads == 8  # 4 workers of 2 threads each
    assert by_name["decode_syn_wean"].resources.gpus == 1  # beam search runs on one device
    assert by_name["train_syn_copynet"].cmd.startswith("exec paragen train ")  # one GPU: no torchrun

    # torchrun reads the command as meant: 4 local workers, each running `python -m paragen.cli train ...`
    args = get_args_parser().parse_args(train.cmd.split()[2:])
    assert (args.standalone, args.nproc_per_node, args.module, args.training_script) == (True, "4", True,
                                                                                        "paragen.cli")
    assert args.training_script_args == ["train", "--params", "params.yaml", "--experiment", "syn_wean",
                                         "--die-with-parent"]
    help_text = subprocess.run([sys.executable, "-m", "paragen.cli", "train", "--help"], capture_output=True,
                               text=True, check=True).stdout
    assert "--die-with-parent" in help_text and "--experiment" in help_text


def snakemake_jobs(directory) -> dict[str, tuple[dict[str, str], str]]:
    """rule -> (its resources, its shell command) as a forced dry run of the real Snakefile prints them."""
    result = subprocess.run(["snakemake", "--dry-run", "--forceall", "--printshellcmds", "--cores", "1"],
                            cwd=directory, capture_output=True, text=True, check=True)
    found = {}
    for block in re.split(r"\n(?=(?:local)?rule \w+:)", result.stdout):
        header = re.match(r"(?:local)?rule (\w+):", block)
        line = re.search(r"^    resources: (.*)$", block, flags=re.M)
        if header and line and header.group(1) != "all":  # the target rule runs nothing
            command = re.search(r"^Shell command: (.*)$", block, flags=re.M)
            found[header.group(1)] = (dict(item.split("=", 1) for item in line.group(1).split(", ")),
                                      stage_command(header.group(1), command.group(1).strip()))
    return found


def test_snakemake_rules_carry_the_requests(workflow_dir):
    raw = yaml.safe_load(TINY_PARAMS.read_text())
    raw["experiments"]["t_wean"]["gpus"] = 2
    (workflow_dir / "params.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
    found = snakemake_jobs(workflow_dir)
    expected = {s.name: s for s in stages(parse_config(raw))}
    assert found.keys() == expected.keys()
    assert found["train_t_wean"][1] == ("exec torchrun --standalone --nproc-per-node 2 -m paragen.cli train "
                                        "--params params.yaml --experiment t_wean --die-with-parent")
    for name, (resources, _) in found.items():
        assert int(resources["gpu"]) == (2 if name == "train_t_wean" else 1 if name.startswith(("train_", "decode_"))
                                         else 0), name
        assert (int(resources["mem_mb"]), int(resources["runtime"])) == (expected[name].resources.mem_mb,
                                                                        expected[name].resources.runtime), name


def test_one_job_for_the_whole_dag_sums_wall_times_and_takes_the_largest_request(capsys):
    from paragen.pipeline.resources import serial
    from paragen.pipeline.sbatch import main

    assert serial([Resources(0, 2000, 30), Resources(2, 9000, 100), Resources(1, 5000, 20)]) == \
        Resources(gpus=2, mem_mb=9000, runtime=150)
    with pytest.raises(ValueError):
        serial([])
    # tiny: generate, vocab, 3 x score, compare, report, index at 30 min / 2000 MB; 3 x (train + decode) at 20 min /
    # 4000 MB (the base: 24 training pairs and a few thousand parameters add less than 1 MB; 10 min start-up
    # plus seconds of work rounds up to 20)
    assert main(["--params", str(TINY_PARAMS)]) == 0
    assert capsys.readouterr().out.strip() == f"--mem=4000 --time={8 * 30 + 6 * 20} --gpus=1"


REHEARSALS = sorted((ROOT / "results" / "rehearsal").glob("*.json"))


def rehearsed_rates():
    """(table key, dataset, seconds per million pairs, MB per million pairs, wall s, peak MB) per measured stage
    of the committed rehearsal files, the key worked out from the stage's name and the dataset's scheme."""
    rows = []
    for path in REHEARSALS:
        measured = json.loads(path.read_text())
        dataset, millions = measured["dataset"], measured["prepared_train_pairs"] / 1e6
        for stage in measured["stages"]:
            step = stage["stage"].split("_")[0]
            key = {"prepare": "prepare", "segment": f"segment {PROJECT['datasets'][dataset]['segmentation']}",
                   "vocab": "vocab", "epoch": "epoch batches"}.get(step)
            if key:
                rows.append((key, dataset, stage["wall_s"] / millions, stage["peak_rss_mb"] / millions,
                             stage["wall_s"], stage["peak_rss_mb"]))
    return rows


@pytest.mark.skipif(len(REHEARSALS) < 6, reason="the six rehearsal files are committed with the project")
def test_data_stage_rates_are_the_rehearsals_largest_at_250k_pairs_or_more():
    from paragen.pipeline.resources import DATA_STAGE_RATES

    largest: dict[str, list[float]] = {}
    for key, dataset, seconds, mb, _, _ in rehearsed_rates():
        pairs = json.loads((ROOT / "results" / "rehearsal" / f"{dataset}.json").read_text())["prepared_train_pairs"]
        if pairs >= 250_000:
            best = largest.setdefault(key, [0.0, 0.0])
            best[0], best[1] = max(best[0], seconds), max(best[1], mb)
    assert largest.keys() == DATA_STAGE_RATES.keys()  # every entry measured, every scheme of the rehearsal listed
    for key, (seconds, mb) in largest.items():
        rate = DATA_STAGE_RATES[key]
        assert rate.seconds_per_million_pairs == pytest.approx(seconds, abs=0.06), key
        assert rate.mb_per_million_pairs == pytest.approx(mb, abs=0.6), key


@pytest.mark.skipif(len(REHEARSALS) < 6, reason="the six rehearsal files are committed with the project")
def test_every_rehearsed_data_stage_fits_in_its_request():
    """The requests cover what the full-size rehearsal measured, small datasets (PWKP) included."""
    from paragen.pipeline.resources import data_resources

    config = project(SUITES)
    checked = 0
    for key, dataset, _, _, wall, peak in rehearsed_rates():
        if key == "epoch batches":
            continue
        requests = data_resources(config, dataset)
        request = {"prepare": requests.prepare, "vocab": requests.vocab}.get(key, requests.segment)
        assert request.runtime * 60 >= 2 * wall and request.mem_mb >= 1.5 * peak, (key, dataset, request)
        checked += 1
    assert checked == 18  # six datasets x three stages


def test_spm_is_sized_for_its_source_length_decoder():
    """Gigaword (3,778,230 pairs, 15 epochs, batch 256, 2-layer decoder), projected: a step costs 2*64/(7000*256)
    = 7.1429e-5 s; an epoch's batches 155.2 s per million pairs = 586.4 s. EncDec runs 25 steps a pair:
    2*15*(3,778,230*25*7.1429e-5 + 586.4)/60 + 10 = 3,676.6 -> 3,680 min; SPM's target runs to the source's length,
    40 steps: 5,700.7 -> 5,710 min. Both ask for max_runtime's 2,880 (48 h) and go on in a second job."""
    from paragen.pipeline.resources import train_estimate

    config = project(SUITES)
    by_name = {s.name: s.resources for s in stages(config)}
    assert train_estimate(config, "giga_encdec", {}).minutes == 3680
    assert train_estimate(config, "giga_spm", {}).minutes == 5710
    assert by_name["train_giga_encdec"].runtime == by_name["train_giga_spm"].runtime == 2880


def test_a_bpe_vocabulary_is_sized_from_its_merges():
    """Gigaword keeps every BPE unit (no vocab_size): 5,000 merges + 1,000 characters + 4 specials, above the
    4,887 units the rehearsal built, and far below the 50,000 assumed for an unbounded word vocabulary."""
    from paragen.pipeline.resources import vocabulary_size

    assert vocabulary_size(project(SUITES), "gigaword") == 6004
    assert vocabulary_size(project(SUITES, **{"datasets.gigaword.merges": 30000}), "gigaword") == 31004


# --- measured rates and the max_runtime cap -------------------------------------------------------------------

def rate_file(path, device, rows):
    """A file as `bench/train_speed.py --json` writes it, with only the keys the requests read."""
    path.write_text(json.dumps({"date": "2026-12-01", "device": device, "results": [
        {"name": name, "architecture": arch, "batch": batch, "target_length": length, "train_tokens_per_s": rate}
        for name, arch, batch, length, rate in rows]}))


def test_a_training_is_sized_from_its_measured_gpu_rate(tmp_path, monkeypatch):
    """pwkp_wean (89,042 training pairs, 30 epochs, batch 64) measured at 5,000 target tokens/s on a GPU with 20.0
    target tokens a pair: an epoch is 89,042*20/5,000 = 356.17 s of training plus 155.2 s per million pairs of
    batching (13.82 s); doubled over 30 epochs with 10 minutes' start-up, 10 + 2*30*369.99/60 = 379.99 -> 380 min.
    The slowest GPU file counts (a faster one is ignored), a CPU file never does (the README's cost table), and a
    rate measured at another batch size does not size this experiment (pwkp_seq2seq stays projected)."""
    from paragen.pipeline import resources

    rate_file(tmp_path / "cpu.json", "CPU AMD EPYC, 2 thread(s)", [("pwkp_wean", "wean", 64, 20.0, 50.0)])
    rate_file(tmp_path / "h100.json", "NVIDIA H100 80GB HBM3", [("pwkp_wean", "wean", 64, 20.0, 5000.0),
                                                                ("pwkp_seq2seq", "rnnsearch", 32, 20.0, 9000.0)])
    rate_file(tmp_path / "h100_again.json", "NVIDIA H100 80GB HBM3", [("pwkp_wean", "wean", 64, 20.0, 6000.0)])
    monkeypatch.setattr(resources, "RATES_DIR", tmp_path)
    epoch = 89_042 * 20.0 / 5000.0 + 155.2 * 89_042 / 1e6
    expected = -(-(10 + 2 * 30 * epoch / 60) // 10) * 10  # rounded up to 10 minutes
    assert expected == 380
    by_name = {s.name: s.resources for s in stages(project(["wean"]))}
    assert by_name["train_pwkp_wean"].runtime == expected
    estimate = resources.train_estimate(project(["wean"]), "pwkp_wean")
    assert estimate.basis.startswith("measured: 5,000 target tokens/s on NVIDIA H100")
    assert estimate.epoch_seconds == pytest.approx(epoch)
    assert resources.train_estimate(project(["wean"]), "pwkp_seq2seq").basis.startswith("projected")
    assert by_name["train_pwkp_seq2seq"].runtime == 660  # the projection, as without any rate file


def test_max_runtime_caps_every_request_and_says_how_many_jobs(tmp_path, monkeypatch, capsys):
    """The same measured pwkp_wean (380 min) under max_runtime 120: it asks for 120 minutes; a job holds
    floor((120 - 10)*60 / (2*369.99)) = 8 doubled epochs, so 30 epochs take ceil(30/8) = 4 jobs. No stage of any
    suite asks for more than the cap, and the default cap (2,880 min, 48 h) holds the LCSTS and Gigaword
    trainings that once asked for 65-103 h."""
    from paragen.pipeline import resources
    from paragen.pipeline.sbatch import main

    rate_file(tmp_path / "gpu.json", "NVIDIA H100 80GB HBM3", [("pwkp_wean", "wean", 64, 20.0, 5000.0)])
    monkeypatch.setattr(resources, "RATES_DIR", tmp_path)
    raw = {**PROJECT, "suites": SUITES, "data": REAL, "max_runtime": 120}
    capped = stages(parse_config(raw))
    assert max(s.resources.runtime for s in capped) == 120
    assert {s.name: s.resources.runtime for s in capped}["train_pwkp_wean"] == 120
    assert resources.train_estimate(parse_config(raw), "pwkp_wean").jobs(120) == 4
    assert resources.train_estimate(parse_config(raw), "pwkp_wean").jobs(380) == 1

    default = stages(project(SUITES))
    assert parse_config({**PROJECT, "suites": SUITES}).max_runtime == PROJECT["max_runtime"] == 2880
    assert max(s.resources.runtime for s in default) == 2880
    assert {s.name: s.resources.runtime for s in default}["train_lcsts_wean"] == 2880
    for bad in (119, 0, "48h", True):
        with pytest.raises(ConfigError, match="max_runtime"):
            parse_config({**raw, "max_runtime": bad})

    params = tmp_path / "params.yaml"
    params.write_text(yaml.safe_dump({**raw, "suites": ["wean"]}, sort_keys=False))
    capsys.readouterr()
    assert main(["--params", str(params), "--stages"]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("train_pwkp_wean:"))
    assert "runtime 120 min" in line and "estimate 6.3 h" in line and "about 4 jobs" in line and "measured" in line


def test_the_projection_has_no_assumed_flop_rate():
    """The old requests added multiply-adds at an assumed 20 TFLOP/s; the projection is now the launch-bound
    H100 measurement alone, so a 14 times wider CopyNet projects the same wall time (more memory, though) and
    a model far from launch-bound must be measured (bench/train_speed.py --device cuda --json)."""
    from paragen.pipeline import resources

    assert not hasattr(resources, "ASSUMED_FLOPS")
    paper = project(["synthetic"], "paper")
    wider = project(["synthetic"], "paper", **{"models.copynet_paper.hidden_size": 4096})
    assert resources.train_estimate(wider, "synp_copynet", {}) == resources.train_estimate(paper, "synp_copynet", {})


H100_LOGS = ROOT / "results" / "logs" / "copynet_synthetic_paper_scale" / "h100_old_data"


@pytest.mark.skipif(not H100_LOGS.is_dir(), reason="the H100 logs are committed with the project")
def test_the_projection_base_is_the_slowest_h100_model_rounded_down():
    """MEASURED_TOKENS_PER_S is the committed H100 run's slowest model (CopyNet, mean 7,366 target tokens/s over
    its epochs) rounded down to a thousand, at that run's batch of 64 with one-layer decoders."""
    import csv

    from paragen.pipeline.resources import MEASURED_BATCH, MEASURED_TOKENS_PER_S

    means = {}
    for log in H100_LOGS.glob("*.train_log.csv"):
        rates = [float(row["tokens_per_s"]) for row in csv.DictReader(log.open())]
        means[log.name.split(".")[0]] = sum(rates) / len(rates)
    assert len(means) == 4 and min(means, key=means.get) == "synp_copynet"
    assert MEASURED_TOKENS_PER_S == int(min(means.values()) // 1000 * 1000) == 7000
    for name in means:
        experiment = PROJECT["experiments"][name]
        assert PROJECT["training"][experiment["training"]]["batch_size"] == MEASURED_BATCH
        assert PROJECT["models"][experiment["model"]].get("decoder_layers", 1) == 1


def test_one_job_for_the_whole_dag_is_capped_too(tmp_path, capsys):
    """The tiny DAG's 360 minutes in one sbatch job (above) ask for max_runtime's 120 instead, and stderr says to
    submit the job again: dvc repro skips the finished stages and training resumes after its last epoch."""
    from paragen.pipeline.sbatch import main

    params = tmp_path / "params.yaml"
    params.write_text(TINY_PARAMS.read_text() + "max_runtime: 120\n")
    assert main(["--params", str(params)]) == 0
    captured = capsys.readouterr()
    assert captured.out.strip() == "--mem=4000 --time=120 --gpus=1"
    assert "6.0 h, capped at max_runtime (120 min): submit the same job again" in captured.err
