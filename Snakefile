# paragen workflow. The DAG is not written here: every rule is generated from
# params.yaml by paragen.pipeline.plan.build_plan(), the same list dvc.yaml is rendered
# from, so `snakemake` and `dvc repro` run identical commands (see README.md).

import sys

from paragen.config import ConfigError, read_params

try:  # a YAML mistake gets paragen's file:line:column message, not Snakemake's "not valid JSON or YAML"
    read_params("params.yaml")
except ConfigError as error:
    sys.exit(f"paragen: {error}")

from paragen.project_lock import clear_stale_snakemake_locks

# Snakemake's own lock left by a killed run would stop this one with "Directory cannot be locked": removed when no
# engine runs here (paragen.project_lock), with one line saying so; never by a cluster job's own snakemake
cleared = clear_stale_snakemake_locks() if workflow.local_exec else None
if cleared:
    print(cleared, file=sys.stderr)


configfile: "params.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"


rule all:
    default_target: True
    input:
        FINAL_OUTPUTS,


include: "workflow/rules/stages.smk"


onstart:
    # one engine at a time per clone: refuse, in one line, beside a running dvc repro or snakemake (paragen.project_lock)
    from paragen.project_lock import EngineBusyError, hold_for_snakemake

    try:
        hold_for_snakemake()
    except EngineBusyError as error:
        sys.exit(f"paragen: {error}")


onsuccess:
    # outputs made here become known to DVC (dvc.lock), unless --config overrides made them
    from paragen.pipeline.dvc_record import record_after_snakemake
    from paragen.project_lock import release_for_snakemake

    release_for_snakemake()
    print(f"paragen: {record_after_snakemake(config)}")


onerror:
    from paragen.project_lock import release_for_snakemake

    release_for_snakemake()
