# One rule per paragen.pipeline.stage.Stage: thin wrappers around `paragen <command>`.
# Rules are generated in a loop so the graph has a single owner (params.yaml ->
# paragen.pipeline.plan); per-step logic lives in the paragen package, not here.
# The command travels through `params` because `shell:` bodies are evaluated
# when the job runs, after the loop variable has moved on. `resources:` are the
# stage's cluster request (GPUs, memory, wall time) under Snakemake's standard
# names; profiles map them to partitions, never naming a rule.
#
# Every rule names its software (`conda:`, used with `--software-deployment-method
# conda`; see workflow/envs/) and logs its command's stdout and stderr to
# logs/<rule>.log (Snakemake creates logs/; git ignores it; DVC does not track it).
# The shell line redirects this shell's own stdout and stderr to `tee`, then runs
# the command as before, instead of piping `({params.cmd}) 2>&1 | tee {log}`:
# - `exec` keeps its meaning. Train and decode commands start with `exec`, so the
#   shell is replaced: the process Snakemake started, and stops with a SIGTERM to
#   its PID, is paragen or torchrun itself, its parent still Snakemake (for
#   `--die-with-parent`). In a pipeline that PID is a bash: the SIGTERM ends bash
#   and leaves the command running unless `--die-with-parent` catches it, and a
#   killed Snakemake leaves both running.
# - The exit status is the command's own (under `exec` it is the job's process; else
#   Snakemake's `set -euo pipefail` applies as before): no pipeline status to get
#   right, and a failing command fails the job.
# - The terminal still shows everything as it is written (log lines, per-epoch
#   progress): tee copies it to Snakemake's stdout. `-i`: a Ctrl-C stops the job,
#   not tee, so what the command prints while it stops is still shown and logged.
# What a pipe cannot keep: the command's output is no longer a terminal, so tqdm's
# per-batch bars (shown only on a terminal) are off; `paragen train ...` run by
# hand still shows them. tee may write the last lines just after the job ends.
# Process substitution needs bash, Snakemake's default shell on POSIX.
# tests/test_engines_agree.py compares the command after this prefix with DVC's.

for _stage in STAGES:

    rule:
        name:
            _stage.name
        input:
            _stage.deps,
        output:
            outputs(_stage),
        log:
            f"logs/{_stage.name}.log",
        conda:
            "../envs/paragen.yaml"
        threads: _stage.threads
        resources:
            **_stage.resources.snakemake(),
        params:
            cmd=_stage.cmd,
            values=param_values(_stage),
        shell:
            "exec > >(tee -i {log:q}) 2>&1; {params.cmd}"
