"""The data stages: generate + vocabulary for synthetic datasets; fetch -> prepare -> segment -> vocabulary for
the real datasets switched on in ``data``, then the datasets table; and which registry entries bring rule files."""

from __future__ import annotations

from paragen.artifacts import (fetch_marker, generated_files, prepared, prepared_dir, segmented_dir,
                               segmented_vocab_dir, vocab_path)
from paragen.config import LocalDataset, ParagenConfig, RealDataset, rules_used
from paragen.pipeline.report_items import datasets_items
from paragen.pipeline.resources import FETCH_STAGE, data_resources
from paragen.pipeline.stage import PARAMS_FILE, Stage, set_keys, shell_command


def synthetic_data_stages(config: ParagenConfig, datasets: list[str]) -> list[Stage]:
    """``paragen generate`` then ``paragen vocab`` for each synthetic dataset an active experiment learns."""
    result: list[Stage] = []
    for ds in datasets:
        result.append(Stage(
            name=f"generate_{ds}", step="generate",
            cmd=shell_command("paragen", "generate", "--params", PARAMS_FILE, "--dataset", ds),
            deps=(), params=(f"datasets.{ds}",), outs=generated_files(config, ds),
        ))
        result.append(Stage(
            name=f"vocab_{ds}", step="vocab",
            cmd=shell_command("paragen", "vocab", "--params", PARAMS_FILE, "--dataset", ds),
            deps=(prepared(ds, "train", "src"), prepared(ds, "train", "tgt")), params=("vocab",),
            outs=(vocab_path(ds),),
        ))
    return result


def real_data_stages(config: ParagenConfig) -> list[Stage]:
    """fetch -> prepare -> segment -> vocabulary for each dataset in ``config.data``, then the datasets table."""
    result: list[Stage] = []
    prepared_markers: list[str] = []
    mirrors = [word for m in config.mirrors for word in ("--mirror", m)]
    real = {name: config.datasets[name] for name in config.data}
    scopes = fetch_scopes(config)
    for entry, scope in scopes.items():
        result.append(Stage(
            name=f"fetch_{entry}", step="fetch",
            cmd=shell_command("paragen", "fetch", entry, *(("--eval-only",) if scope == "eval" else ()), *mirrors,
                         "--quiet"),
            deps=(), outs=(fetch_marker(entry, scope),),
            params=("mirrors",) if "mirrors" in config.model_fields_set else (), resources=FETCH_STAGE))
    for name, spec in real.items():
        assert isinstance(spec, RealDataset)
        recipe = spec.recipe or name
        prepared = prepared_dir(recipe)  # the whole directory: the stage replaces it, both engines declare it
        sized = data_resources(config, name)  # once per dataset: a local dataset's size is its files' line count
        if isinstance(spec, LocalDataset):  # the user's own files: checked and prepared, never fetched
            result.append(Stage(
                name=f"prepare_{name}", step="prepare",
                cmd=shell_command("paragen", "prepare-local", "--params", PARAMS_FILE, "--dataset", name),
                deps=tuple(spec.paths()), outs=(prepared,), directories=(prepared,),
                params=set_keys(name, spec, ("files", "strip_specials", "max_line_chars", "dedup", "max_overlap")),
                resources=sized.prepare))
        elif prepared not in prepared_markers:  # datasets sharing a recipe share its preparation
            prepared_markers.append(prepared)
            result.append(Stage(
                name=f"prepare_{recipe}", step="prepare",
                cmd=shell_command("paragen", "prepare", recipe, *(w for split in spec.splits for w in ("--split", split)),
                             *(("--lowercase-strip-specials",) if spec.strip_specials else ()),
                             *(spec.alignment_filter.cli_options() if spec.alignment_filter else ()),
                             "--max-line-chars", str(spec.max_line_chars),
                             *(("--max-overlap", str(spec.max_overlap)) if spec.max_overlap else ())),
                deps=tuple(fetch_marker(e, scopes[e]) for e in spec.fetch), outs=(prepared,), directories=(prepared,),
                params=set_keys(name, spec, ("fetch", "fetch_scope", "splits", "strip_specials", "max_line_chars",
                                              "alignment_filter", "max_overlap")),
                resources=sized.prepare))  # the splits this command prepares
        directory = segmented_dir(name, spec.segmentation)
        options = [*(("--merges", str(spec.merges)) if spec.segmentation == "bpe" else ()),
                   *(("--lowercase",) if spec.lowercase else ()),
                   *(("--drop-longer-target",) if spec.drop_longer_target else ()),
                   *(("--copy-task",) if spec.copy_task else ()),
                   *(("--train-sample", str(spec.train_sample), "--train-sample-seed", str(spec.train_sample_seed))
                     if spec.train_sample else ())]
        result.append(Stage(
            name=f"segment_{name}", step="segment",
            cmd=shell_command("paragen", "segment", recipe, "--scheme", spec.segmentation, "--name", name, *options,
                         "--quiet"),
            deps=(prepared,), outs=(directory,), directories=(directory,),
            params=set_keys(name, spec, ("segmentation", "merges", "lowercase", "drop_longer_target", "copy_task",
                                          "train_sample", "train_sample_seed")),
            resources=sized.segment))
        if "train" in spec.splits:
            vocab_dir = segmented_vocab_dir(name, spec.segmentation)
            vocab_files = (f"{vocab_dir}/vocab.txt",) if spec.shared_vocab else (
                f"{vocab_dir}/vocab.src.txt", f"{vocab_dir}/vocab.tgt.txt")
            size = ("--size", str(spec.vocab_size)) if spec.vocab_size else ()
            result.append(Stage(
                name=f"vocab_{name}", step="vocab",
                cmd=shell_command("paragen", "vocab-build", "--dir", directory, "--out", vocab_dir, *size,
                             *(("--shared",) if spec.shared_vocab else ())),
                deps=(directory,), outs=vocab_files,
                params=set_keys(name, spec, ("vocab_size", "shared_vocab")), resources=sized.vocab))
    if prepared_markers:
        tables = ("results/tables/datasets.md", "results/tables/datasets.csv")
        result.append(Stage(name="datasets_table", step="report", cmd=shell_command("paragen", "datasets-table"),
                            deps=tuple(prepared_markers), outs=tables, uncached=tables, report=datasets_items(tables)))
    return result


def fetch_scopes(config: ParagenConfig) -> dict[str, str]:
    """Registry entry -> scope of its one fetch stage: the widest any switched-on dataset needs (two stages
    writing into the same data/raw/<entry>/ could race under a parallel engine); rule files are eval files."""
    scopes: dict[str, str] = {}
    for name in config.data:
        spec = config.datasets[name]
        assert isinstance(spec, RealDataset)
        for entry in spec.fetch:
            scopes[entry] = "all" if "all" in (scopes.get(entry), spec.fetch_scope) else "eval"
    for entry in rule_entries(config):
        scopes.setdefault(entry, "eval")
    return scopes


def experiment_rules(config: ParagenConfig, experiment: str) -> list[str]:
    """Names under ``rules:`` an experiment trains with: its model's DMASS memory, its training's critic loss."""
    spec = config.experiments[experiment]
    return rules_used(config.models[spec.model], config.training[spec.training])


def rule_entries(config: ParagenConfig) -> list[str]:
    """Registry entries holding the rule files of the active systems and experiments."""
    names = [config.systems[s].rules for s in config.active_systems() if config.systems[s].rules is not None]
    names += [name for e in config.active_experiments() for name in experiment_rules(config, e)]
    return list(dict.fromkeys(config.rules[name].fetch for name in names))


def rule_markers(config: ParagenConfig, rules: list[str]) -> tuple[str, ...]:
    """The fetch markers of the registry entries that bring these rule files (each entry once)."""
    if not rules:
        return ()
    scopes = fetch_scopes(config)
    return tuple(dict.fromkeys(fetch_marker(config.rules[r].fetch, scopes[config.rules[r].fetch]) for r in rules))
