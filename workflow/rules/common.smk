# Shared set-up: validate the configuration (the same schema paragen's commands
# use) and derive the stage list every rule comes from.

import json

from paragen.config import parse_config
from paragen.pipeline.dag import final_outputs, lookup, stages
from paragen.pipeline.snakemake_report import write_captions

PARAGEN = parse_config(config, "params.yaml (with --config overrides)")
STAGES = stages(PARAGEN)
FINAL_OUTPUTS = final_outputs(STAGES)
PARAGEN_DUMP = PARAGEN.model_dump()
CAPTIONS = write_captions(item for stage in STAGES for item in stage.report)


def param_values(stage):
    """Values of the params keys a stage depends on: Snakemake re-runs the rule when they change."""
    return json.dumps({key: lookup(PARAGEN_DUMP, key) for key in stage.params}, sort_keys=True)


def outputs(stage):
    """A stage's outputs; the tables and figures among them flagged for `snakemake --report`, grouped by paper
    (category) and table (subcategory), each with its caption file."""
    items = {item.path: item for item in stage.report}
    return [report(path, caption=CAPTIONS[path], category=items[path].category,
                   subcategory=items[path].subcategory) if path in items else path for path in stage.outs]
