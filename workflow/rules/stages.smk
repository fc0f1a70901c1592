# One rule per paragen.pipeline.dag.Stage: thin wrappers around `paragen <command>`.
# Rules are generated in a loop so the graph has a single owner (params.yaml ->
# paragen.pipeline.dag); per-step logic lives in the paragen package, not here.
# The command travels through `params` because `shell:` bodies are evaluated
# when the job runs, after the loop variable has moved on. `resources:` are the
# stage's cluster request (GPUs, memory, wall time) under Snakemake's standard
# names; profiles map them to partitions, never naming a rule.

for _stage in STAGES:

    rule:
        name:
            _stage.name
        input:
            _stage.deps,
        output:
            outputs(_stage),
        params:
            cmd=_stage.cmd,
            values=param_values(_stage),
        threads: _stage.threads
        resources:
            **_stage.resources.snakemake(),
        shell:
            "{params.cmd}"
