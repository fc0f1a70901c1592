"""The GPU queue's definition (paragen.pipeline.queue_spec) and its record (paragen.pipeline.queue_state): what a
job's targets need, what a queue file may say, and when a recorded stage is still up to date."""

import json
import shutil
from pathlib import Path

import pytest

from paragen.config import ConfigError
from paragen.pipeline.queue_spec import GpuQueue, QueueJob, job_config, job_stages, load_queue
from paragen.pipeline.queue_state import QueueState, signature
from paragen.pipeline.stage import Stage

from conftest import ROOT, TINY_PARAMS

TABLE_STAGES = ["generate_tiny", "vocab_tiny", "train_t_encdec", "decode_t_encdec", "score_t_encdec",
                "train_t_copynet", "decode_t_copynet", "score_t_copynet", "train_t_wean", "decode_t_wean",
                "score_t_wean", "compare_t_copynet_vs_t_encdec", "report_copynet_synthetic"]


def job(**fields):
    return QueueJob(**{"name": "j", "why": "test", **fields})


def test_a_table_target_needs_its_rows_their_data_and_its_comparison_in_dependency_order():
    table = job(targets=["results/tables/copynet_synthetic.md"])
    assert [s.name for s in job_stages(job_config(table, TINY_PARAMS), table)] == TABLE_STAGES
    one_row = job(targets=["score_t_copynet"])  # a stage name does as well as an output
    assert [s.name for s in job_stages(job_config(one_row, TINY_PARAMS), one_row)] == \
        ["generate_tiny", "vocab_tiny", "train_t_copynet", "decode_t_copynet", "score_t_copynet"]


def test_a_run_no_table_shows_is_trained_decoded_and_scored():
    replica = job(experiments=["t_wean_seed2"])
    names = [s.name for s in job_stages(job_config(replica, TINY_PARAMS), replica)]
    assert names == ["generate_tiny", "vocab_tiny", "train_t_wean_seed2", "decode_t_wean_seed2", "score_t_wean_seed2"]


def test_an_unknown_target_or_run_is_refused_naming_it():
    with pytest.raises(ConfigError, match="job j: target 'results/tables/nothing.md' is neither an output nor a "
                                          "stage of its plan"):
        target = job(targets=["results/tables/nothing.md"])
        job_stages(job_config(target, TINY_PARAMS), target)
    with pytest.raises(ConfigError, match="job j: experiments: unknown experiment 'nobody'"):
        job_config(job(experiments=["nobody"]), TINY_PARAMS)


def test_a_job_s_config_reaches_its_plan():
    paper = job(config={"seeds": 2}, targets=["results/tables/copynet_synthetic.md"])
    names = [s.name for s in job_stages(job_config(paper, TINY_PARAMS), paper)]
    assert "train_t_copynet_seed2" in names and "compare_t_copynet_seed2_vs_t_encdec_seed2" in names


@pytest.mark.parametrize("text, message", [
    ("jobs: [{name: a, why: x, targets: [t], bogus: 1}]", r"jobs\.0\.bogus: unknown key"),
    ("jobs: [{name: a, why: x, targets: [t]}, {name: a, why: y, targets: [u]}]", r"jobs: \['a'\] named more than"),
    ("jobs: [{name: a, why: x, targets: [t], config: {training: {}}}]",
     r"config: \['training'\] cannot be set per job; allowed keys: \['suites', 'scale', 'seeds', 'data'\]"),
    ("jobs: [{name: a, why: x, kind: command, command: [ls], outputs: [o]}]",
     "kind: command needs command, outputs and seconds"),
    ("jobs: [{name: a, why: x, kind: command, command: [ls], outputs: [../o], seconds: 5}]",
     r"'\.\./o' is not a path inside the checkout"),
    ("jobs: [{name: a/b, why: x, targets: [t]}]", r"jobs\.0\.name: .*not a usable name"),
    ("jobs: [{name: a, why: x}]", "a pipeline job needs targets or experiments"),
    ("jobs: [{name: a, why: x, targets: [t]}]\nresume_store: /tmp/x", r"'/tmp/x' is not a path inside"),
    ("jobs: [{name: a, why: x, targets: [t]}\n", r"queue\.yaml:2:1: not valid YAML: expected ',' or ']'"),
    ("- {name: a, why: x, targets: [t]}\n- {name: a, why: x, targets: [t]}\n- {name: b, why: x, targets: [t]}",
     r"jobs: \['a'\] named more than once"),
])
def test_a_broken_queue_file_is_refused_naming_the_file_and_key(tmp_path, text, message):
    path = tmp_path / "queue.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message) as error:
        load_queue(path)
    assert str(path) in str(error.value)


def test_the_committed_queue_resolves_against_params_yaml():
    queue = load_queue(ROOT / "workflow" / "gpu_queue.yaml")
    assert [j.name for j in queue.jobs] == ["turk_mini_rows", "copynet_paper_scale", "gpu_anchor",
                                           "gpu_rnnsearch_paper"]
    for entry in queue.jobs:
        if entry.kind == "pipeline":
            assert job_stages(job_config(entry, ROOT / "params.yaml"), entry)
    turk = [s.name for s in job_stages(job_config(queue.jobs[0], ROOT / "params.yaml"), queue.jobs[0])]
    assert {f"train_{r}" for r in ("smini_nmt", "smini_transformer", "smini_dmass", "smini_critic",
                                   "smini_critic_sum", "smini_critic_fixed", "smini_nmt_seed2")} <= set(turk)


def test_the_record_holds_a_stage_until_its_settings_change_or_an_input_is_made_again(tiny_config, tmp_path,
                                                                                     monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("data.txt").write_text("x")
    data = Stage(name="generate", step="generate", cmd="paragen generate", deps=(), outs=("data.txt",))
    train = Stage(name="train", step="train", cmd="paragen train", deps=("data.txt",), outs=("w.pt",),
                  params=("training.tiny",))
    decode = Stage(name="decode", step="decode", cmd="paragen decode", deps=("w.pt",), outs=("h.txt",))
    stages = [data, train, decode]
    state = QueueState(tmp_path / "state.json")
    assert state.up_to_date(tiny_config, stages) == {"generate"}  # data: present
    state.mark_done(tiny_config, train, "device", 1)
    state.mark_done(tiny_config, decode, "device", 1)
    assert state.up_to_date(tiny_config, stages) == {"generate", "train", "decode"}
    state.mark_done(tiny_config, train, "device", 2)  # trained again after the decode: the decode is stale
    assert state.up_to_date(tiny_config, stages) == {"generate", "train"}
    changed = tiny_config.model_copy(update={"training": {"tiny": tiny_config.training["tiny"].model_copy(
        update={"learning_rate": 0.5})}})
    assert signature(changed, train) != signature(tiny_config, train)
    assert state.up_to_date(changed, stages) == {"generate"}  # a changed setting: the training is stale
    Path("data.txt").unlink()
    assert state.up_to_date(tiny_config, stages) == {"train"}
    state.write()
    again = QueueState.read(tmp_path / "state.json")
    assert (again.seq, again.done) == (3, state.done)


def test_a_record_that_is_not_one_is_refused_naming_it(tmp_path):
    path = tmp_path / "state.json"
    path.write_text(json.dumps({"format": 99}))
    with pytest.raises(ConfigError, match=r"state\.json: not a GPU queue record \(format 99, expected 1\); restore"):
        QueueState.read(path)
    assert QueueState.read(tmp_path / "absent.json").done == {}


def test_queue_defaults_keep_the_record_and_resume_states_in_the_checkout():
    queue = GpuQueue(jobs=[job(targets=["t"])])
    assert (queue.state, queue.resume_store) == ("results/gpu_queue/state.json", "results/gpu_queue/resume")
    with pytest.raises(ConfigError, match=r"no job 'x' in the queue; allowed values: \['j'\]"):
        queue.job("x")
    assert shutil.which("git")


def data_chain():
    """turk-mini's shape: download -> prepare -> segment -> vocabulary, and rule files a training reads."""
    def s(name, step, deps, outs):
        return Stage(name=name, step=step, cmd=name, deps=tuple(deps), outs=tuple(outs))

    return [s("fetch_turk", "fetch", [], ["raw/turk/.done"]), s("fetch_rules", "fetch", [], ["raw/rules/.done"]),
            s("prepare", "prepare", ["raw/turk/.done"], ["prepared"]), s("segment", "segment", ["prepared"], ["seg"]),
            s("vocab", "vocab", ["seg"], ["vocab.txt"]),
            s("train", "train", ["seg", "vocab.txt", "raw/rules/.done"], ["best.pt"]),
            s("decode", "decode", ["best.pt", "seg"], ["test.hyp"])]


def test_a_machine_needs_the_data_the_stages_still_to_run_read_and_makes_no_more():
    from paragen.pipeline.queue_spec import data_frontier, without_unneeded_data

    stages = data_chain()
    names = lambda found: [s.name for s in found]  # noqa: E731
    assert names(data_frontier(stages, set())) == ["fetch_rules", "segment", "vocab"]
    assert names(without_unneeded_data(stages, set())) == names(stages)
    # the prepared data is here (carried): its download is not needed, the rest is
    assert names(without_unneeded_data(stages, {"prepare"})) == \
        ["fetch_rules", "prepare", "segment", "vocab", "train", "decode"]
    # everything but the decoding is done: it reads the segmented data alone
    assert names(data_frontier(stages, {"train", "segment", "vocab"})) == ["segment"]
    assert names(without_unneeded_data(stages, {"train", "segment", "vocab"})) == ["segment", "train", "decode"]
