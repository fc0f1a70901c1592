# paragen workflow. The DAG is not written here: every rule is generated from
# params.yaml by paragen.pipeline.stages(), the same list dvc.yaml is rendered
# from, so `snakemake` and `dvc repro` run identical commands (see README.md).

configfile: "params.yaml"


include: "workflow/rules/common.smk"


rule all:
    input:
        FINAL_OUTPUTS,
    default_target: True


include: "workflow/rules/stages.smk"
