# One rule per paragen.pipeline.Stage: thin wrappers around `paragen <command>`.
# Rules are generated in a loop so the graph has a single owner (params.yaml ->
# paragen.pipeline); per-step logic lives in the paragen package, not here.

for _stage in STAGES:

    rule:
        name:
            _stage.name
        input:
            _stage.deps,
        output:
            _stage.outs,
        params:
            values=param_values(_stage),
        threads: _stage.threads
        shell:
            _stage.cmd
