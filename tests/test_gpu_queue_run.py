"""The GPU queue's executor (paragen.pipeline.queue_run) on stand-in stages, small Python commands: inputs before
readers, the deadline stopping a running stage, a failure or a stop holding back what reads it, an output left by an
earlier run never taken for this run's, a job's ``parallel`` and an exclusive stage, and no $OUT for the stages."""

import os
import sys
import time
from pathlib import Path

import pytest

from paragen.pipeline.queue_run import Limits, command_argv, execute
from paragen.pipeline.stage import Stage, shell_command


def stage(name, code, deps=(), outs=(), threads=1, step="score"):
    return Stage(name=name, step=step, cmd=shell_command(sys.executable, "-c", code), deps=tuple(deps),
                 outs=tuple(outs), threads=threads)


def writes(path, text="x", before=""):
    return f"{before}import pathlib; pathlib.Path({path!r}).write_text({text!r})"


@pytest.fixture(autouse=True)
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


def soon(seconds=60.0):
    return time.monotonic() + seconds


def test_a_stage_runs_after_the_stage_that_makes_its_input():
    reader = stage("b", writes("b.txt", before="assert open('a.txt').read() == 'x'; "), deps=["a.txt"], outs=["b.txt"])
    maker = stage("a", writes("a.txt", before="import time; time.sleep(0.5); "), outs=["a.txt"])
    outcome = execute([reader, maker], set(), soon(), Limits(cores=2))
    assert outcome.completed == ["a", "b"] and not outcome.failed and not outcome.waiting
    assert Path("logs/a.log").exists() and Path("logs/b.log").exists()


def test_the_deadline_stops_a_running_stage_and_what_reads_it_waits():
    slow = stage("slow", "import time; time.sleep(60)", outs=["s.txt"])
    reader = stage("reader", writes("r.txt"), deps=["s.txt"], outs=["r.txt"])
    started = time.monotonic()
    outcome = execute([slow, reader], set(), soon(1.0), Limits(cores=2))
    assert time.monotonic() - started < 15  # SIGTERM ends it at once (SIGKILL after 10 s at the latest)
    assert outcome.stopped == ["slow"] and outcome.completed == []
    assert outcome.waiting == {"reader": "needs s.txt, which slow did not make"}


def test_a_failure_is_reported_and_holds_back_its_readers():
    broken = stage("broken", "raise SystemExit(3)", outs=["x.txt"])
    reader = stage("reader", writes("r.txt"), deps=["x.txt"], outs=["r.txt"])
    outcome = execute([broken, reader], set(), soon(), Limits())
    assert outcome.failed == {"broken": f"exit 3; see {Path('logs', 'broken.log')}"}
    assert outcome.waiting == {"reader": "needs x.txt, which broken did not make"}


def test_an_output_an_earlier_run_left_is_removed_before_the_stage_runs():
    Path("old.txt").write_text("from an earlier call")
    quits = stage("quits", "pass", outs=["old.txt"])  # ends well without writing its output (a training told to stop)
    outcome = execute([quits], set(), soon(), Limits())
    assert outcome.stopped == ["quits"] and not Path("old.txt").exists()


def test_a_done_stage_is_not_run_and_its_present_output_feeds_its_readers():
    Path("a.txt").write_text("x")
    maker = stage("a", "raise SystemExit(1)", outs=["a.txt"])
    reader = stage("b", writes("b.txt"), deps=["a.txt"], outs=["b.txt"])
    absent = stage("c", writes("c.txt"), deps=["elsewhere.txt"], outs=["c.txt"])
    outcome = execute([maker, reader, absent], {"a"}, soon(), Limits())
    assert outcome.completed == ["b"] and not outcome.failed
    assert outcome.waiting == {"c": "needs elsewhere.txt, which is not here"}


def timeline(name):
    return (f"import time, pathlib; p = pathlib.Path('events.txt'); "
            f"open(p, 'a').write('start {name}\\n'); time.sleep(0.4); open(p, 'a').write('end {name}\\n'); "
            f"pathlib.Path('{name}.txt').write_text('x')")


def test_a_job_s_parallel_caps_its_trainings():
    stages = [stage(n, timeline(n), outs=[f"{n}.txt"], step="train") for n in ("t1", "t2")]
    limits = Limits(cores=4, groups={"t1": "job", "t2": "job"}, group_limits={"job": 1})
    execute(stages, set(), soon(), limits)
    assert Path("events.txt").read_text().split("\n")[:4] == ["start t1", "end t1", "start t2", "end t2"]


def test_an_exclusive_stage_runs_alone():
    stages = [stage("bench", timeline("bench"), outs=["bench.txt"], step="command"),
              stage("other", timeline("other"), outs=["other.txt"])]
    execute(stages, set(), soon(), Limits(cores=4, exclusive=frozenset({"bench"})))
    assert Path("events.txt").read_text().split("\n")[:4] == ["start bench", "end bench", "start other", "end other"]


def test_a_stage_with_a_time_limit_is_stopped_after_it_and_not_started_without_it():
    bench = stage("bench", "import time; time.sleep(60)", outs=["b.txt"], step="command")
    outcome = execute([bench], set(), soon(), Limits(timeouts={"bench": 1.0}))
    assert outcome.stopped == ["bench"]
    outcome = execute([bench], set(), soon(5.0), Limits(timeouts={"bench": 10.0}))
    assert outcome.waiting == {"bench": "held back (no room before the deadline, or not started here)"}


def test_stages_do_not_see_the_machine_s_return_folder(monkeypatch):
    monkeypatch.setenv("OUT", "/return/folder")
    execute([stage("s", "import os, pathlib; pathlib.Path('o.txt').write_text(str(os.environ.get('OUT')))",
                   outs=["o.txt"])], set(), soon(), Limits())
    assert Path("o.txt").read_text() == "None"


def test_a_stage_command_runs_as_an_argument_vector_with_paragen_as_a_module():
    train = Stage(name="train_x", step="train", deps=(), outs=(),
                  cmd=shell_command("exec", "paragen", "train", "--experiment", "a;rm -rf /"))
    assert command_argv(train, "/py") == ["/py", "-m", "paragen.cli", "train", "--experiment", "a;rm -rf /"]
    assert os.path.basename(sys.executable) in command_argv(stage("s", "pass"))[0]
