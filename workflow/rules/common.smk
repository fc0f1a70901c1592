# Shared set-up: validate the configuration (the same schema paragen's commands
# use) and build the plan (paragen.pipeline.plan) whose stages every rule comes from.

import json
import sys

from paragen.config import ConfigError, override_source, parse_config
from paragen.pipeline.dvc import lookup
from paragen.pipeline.plan import build_plan
from paragen.pipeline.snakemake_report import write_captions

try:  # paragen's message alone (no traceback), naming --config/--configfile only when they were given
    PARAGEN = parse_config(
        config,
        override_source(
            "params.yaml",
            workflow.config_settings.config,
            workflow.config_settings.configfiles,
        ),
    )
except ConfigError as error:
    sys.exit(f"paragen: {error}")
PLAN = build_plan(PARAGEN)
STAGES = PLAN.stages
FINAL_OUTPUTS = PLAN.final_outputs()
PARAGEN_DUMP = PARAGEN.model_dump()
CAPTIONS = write_captions(item for stage in STAGES for item in stage.report)


def param_values(stage):
    """Values of the params keys a stage depends on: Snakemake re-runs the rule when they change."""
    return json.dumps({key: lookup(PARAGEN_DUMP, key) for key in stage.params}, sort_keys=True)


def outputs(stage):
    """A stage's outputs: the directories it owns whole as directory(), the tables and figures flagged for
    `snakemake --report`."""
    items = {item.path: item for item in stage.report}
    return [
        directory(path) if path in stage.directories else flagged(path, items[path]) if path in items else path
        for path in stage.outs
    ]


def flagged(path, item):
    """A table or figure for `snakemake --report`, grouped by paper (category) and table (subcategory), with its
    caption file. (A call of `report` must not start a line: snakefmt would read it as the `report:` directive.)"""
    return report(path, caption=CAPTIONS[path], category=item.category, subcategory=item.subcategory)
