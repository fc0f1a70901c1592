# Shared set-up: validate the configuration (the same schema paragen's commands
# use) and derive the stage list every rule comes from.

import json

from paragen.config import parse_config
from paragen.pipeline import final_outputs, lookup, stages

PARAGEN = parse_config(config, "params.yaml (with --config overrides)")
STAGES = stages(PARAGEN)
FINAL_OUTPUTS = final_outputs(STAGES)
PARAGEN_DUMP = PARAGEN.model_dump()


def param_values(stage):
    """Values of the params keys a stage depends on: Snakemake re-runs the rule when they change."""
    return json.dumps({key: lookup(PARAGEN_DUMP, key) for key in stage.params}, sort_keys=True)

