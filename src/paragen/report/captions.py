"""Caption and setup text of a results table: data scale, model sizes, hardware and wall time, the rows without
training, pretrained embeddings, metric ceilings, and why a row did not run. A score a reader compares with the
table's cells (ceilings, a skip row's mean over seeds) is rounded as the cells are (:mod:`paragen.rounding`);
wall times are not scores and keep Python's format."""

from __future__ import annotations

import json
from pathlib import Path

from paragen import artifacts
from paragen.config import HeadlineSyntheticDataset, ParagenConfig, RealDataset, SyntheticDataset
from paragen.models.pretrained import EmbeddingInit
from paragen.pipeline.tables import TablePlan
from paragen.training.train_log import read_log
from paragen.rounding import shown
from paragen.training.stopping import SESSIONS_FILE


def _beams_text(config: ParagenConfig, experiments: list[str]) -> str:
    beams = sorted({config.decoding[config.experiments[e].decoding].beam_size for e in experiments})
    return f"beam {', '.join(map(str, beams))}."


def _model_text(config: ParagenConfig, experiments: list[str]) -> str:
    by_size: dict[str, list[str]] = {}  # models of one size are named together
    for model_name in dict.fromkeys(config.experiments[e].model for e in experiments):
        m = config.models[model_name]
        if m.architecture == "transformer":
            size = (f"Transformer {m.encoder_layers}+{m.decoder_layers} layers, d_model {m.embedding_size}, "
                    f"{m.heads} heads x d_k {m.key_size}, feed-forward {m.feedforward_width}, dropout {m.dropout}")
        else:
            size = (f"{'bi-' if m.bidirectional else ''}{m.cell.upper()} {m.encoder_layers}+{m.decoder_layers} "
                    f"layers, hidden {m.hidden_size} / embedding {m.embedding_size}, dropout {m.dropout}")
        by_size.setdefault(size, []).append(model_name)
    return "; ".join(f"{', '.join(names)}: {size}" for size, names in by_size.items()) + "; " + \
        _beams_text(config, experiments)


def describe_scale(config: ParagenConfig, experiments: list[str]) -> str:
    """Caption text naming the data scale, model sizes and decoding of the rows."""
    first = config.experiments[experiments[0]]
    data = config.datasets[first.dataset]
    if isinstance(data, RealDataset):
        datasets = dict.fromkeys(config.experiments[e].dataset for e in experiments)
        data_text = "; ".join(
            f"{name}: {config.datasets[name].segmentation} tokens, vocabulary "
            f"{config.datasets[name].vocab_size or 'all'}" for name in datasets)
        perl = [config.datasets[name].evaluation for name in datasets if config.datasets[name].evaluation.rouge_perl]
        scoring = "" if not perl else " ROUGE-1.5.5's -m: " + (
            "WordNet 2.0 exception lists, then Porter stemming." if perl[0].rouge_perl_exceptions == "wordnet" else
            "Porter stemming alone, no WordNet exception lists (the setting that reproduced a published Gigaword "
            "score; docs/measurements.md).")
        return f"Data: {data_text}.{scoring} Models: " + _model_text(config, experiments)
    if isinstance(data, HeadlineSyntheticDataset):
        low, high = data.source_length
        return (f"Data: {data.train_pairs:,} / {data.valid_pairs:,} / {data.test_pairs:,} train / valid / test pairs, "
                f"{low}-{high}-token sources from {data.content_words} content and {data.filler_words} filler types, "
                f"headlines of at most {data.max_target_length} words, seed {data.seed}. Models: "
                + _model_text(config, experiments))
    sizes = sorted({(config.models[config.experiments[e].model].hidden_size,
                     config.models[config.experiments[e].model].embedding_size) for e in experiments})
    size_text = ", ".join(f"hidden {h} / embedding {e}" for h, e in sizes)
    return (f"Scale: {data.rules} rules × {data.instances_per_rule} instances "
            f"(paper: 200 × 200), {data.symbols} symbols, seed {data.seed}; "
            f"bi-{config.models[first.model].cell.upper()} encoder, {size_text}; " + _beams_text(config, experiments))


def describe_own(splits: list[str]) -> str:
    """Caption text of a table of your own data (``paper: own``): that no paper reports its rows and the splits its
    columns score (valid flatters: training selected each model on it). What each metric counts, exact match
    included, is the units sentence's (:mod:`paragen.report.units`)."""
    text = ("Your own data: no paper reports numbers for these rows; every cell is a score of our runs, on "
            + (f"the {splits[0]} split." if len(splits) == 1 else f"each split decoded: {', '.join(splits)}."))
    if "valid" in splits:
        text += " Training selected each model on valid, so its valid scores flatter it; the other splits are unseen."
    return text + " "


def one_seed_text(plan: TablePlan, trained: list[str]) -> str:
    """Caption text of a table whose trained rows ran once each: which training seed, and what one seed can carry
    (a verdict on one training run is a hypothesis until another seed repeats it); nothing before a run has trained
    (no ``train_log.csv``)."""
    seeds = sorted({run.seed for row in trained for run in plan.rows[row].runs
                    if run.seed is not None and run.train_log and Path(run.train_log).exists()})
    if not seeds:
        return ""
    which = f"seed {seeds[0]}" if len(seeds) == 1 else "seeds " + ", ".join(map(str, seeds))
    return f" One training run a row ({which}): a reading of it is a hypothesis until another seed repeats it."


def hardware_summary(run_dirs: dict[str, Path]) -> str:
    """Caption text: the devices, each with the rows it trained when there are several (rows trained on different
    hardware may differ by it too; a run resumed on another device is named under each), and the wall time summed
    over the runs (the per-run times are the table's setup)."""
    minutes, rows_of, runs = 0.0, {}, 0
    for row, run_dir in run_dirs.items():
        sessions_path, log_path = run_dir / SESSIONS_FILE, run_dir / "train_log.csv"
        if sessions_path.exists() and log_path.exists():
            for session in json.loads(sessions_path.read_text(encoding="utf-8")):
                rows_of.setdefault(session["device"], []).append(row)
            minutes += sum(r["wall_time_s"] for r in read_log(log_path)) / 60
            runs += 1
    if not runs:
        return ""
    named = [device + (f" ({', '.join(dict.fromkeys(rows_of[device]))})" if len(rows_of) > 1 else "")
             for device in sorted(rows_of)]
    return f" Trained on {' and '.join(named)}: {shown(minutes, 0)} min of training over {runs} run(s)."


def rule_ceiling_text(config: ParagenConfig, experiments: list[str]) -> str:
    """Caption text: the best expected exact match on CopyNet's rule data, per type, where it is below 100 (x and y
    side by side, ``separate_variables: false``; ``paragen generate`` writes it to generation.json as
    ``test_ceiling``). Empty when every type can reach 100, for other data, or before generation."""
    parts = []
    for name in dict.fromkeys(config.experiments[e].dataset for e in experiments):
        stats = Path(artifacts.generation_statistics(name))
        if not isinstance(config.datasets[name], SyntheticDataset) or not stats.exists():
            continue
        by_type = json.loads(stats.read_text(encoding="utf-8")).get("by_type", {})
        parts += [f"{tag.replace('->', ' → ').replace('0', '∅')} {shown(row['test_ceiling'], 1)}"
                  for tag, row in by_type.items() if row.get("test_ceiling", 100.0) < 100.0]
    return (" Ceiling (best expected exact match of a model that knows every rule; where x and y sit side by side"
            f" a test source splits more than one way and is right only by chance): {', '.join(parts)}; 100 on the"
            " other types.") if parts else ""


def ceiling_text(config: ParagenConfig, experiments: list[str]) -> str:
    """Caption text: the ROUGE a headline stand-in's own gold headlines get against themselves (rouge-score gives
    a one-word headline 0 on ROUGE-2, so the ceiling is below 100), and the rule data's ceiling
    (:func:`rule_ceiling_text`). Empty for other data or before generation."""
    from paragen.scoring.files import score
    from paragen.scoring.evaluation import score_request

    datasets = dict.fromkeys(config.experiments[e].dataset for e in experiments)
    parts = []
    for name in datasets:
        spec = config.datasets[name]
        gold = Path(artifacts.prepared(name, "test", "tgt"))
        if not isinstance(spec, HeadlineSyntheticDataset) or "rouge" not in spec.evaluation.metrics or \
                not gold.exists():
            continue
        request = score_request(spec.evaluation, "rouge", str(gold.parent), str(gold), refs=[str(gold)])
        rouge = score(request)["score"]
        one_word = sum(len(line.split()) == 1 for line in gold.read_text(encoding="utf-8").splitlines())
        parts.append(f"ROUGE-1 {shown(rouge['rouge1'], 1)} / ROUGE-2 {shown(rouge['rouge2'], 1)} / ROUGE-L "
                     f"{shown(rouge['rougeL'], 1)}"
                     f" ({one_word} one-word headlines score 0 on ROUGE-2)")
    return ((f" Ceiling (the gold headlines scored against themselves): {'; '.join(parts)}." if parts else "")
            + rule_ceiling_text(config, experiments))


def prepare_record(name: str, spec: RealDataset) -> Path:
    """A real dataset's ``prepare.json`` (its split counts and overlap)."""
    return Path(artifacts.prepared_dir(spec.recipe or name), "prepare.json")


def caption_data_files(config: ParagenConfig, experiments: list[str]) -> list[str]:
    """The data files a table's caption quotes (what :func:`ceiling_text` and :func:`overlap_text` read, which
    paragen.report.provenance keeps beside the table): generation statistics of rule
    data (its ceiling), the gold test headlines of a headline stand-in (its ROUGE ceiling), ``prepare.json`` of a
    real dataset (the overlap its splits were allowed)."""
    files = []
    for name in dict.fromkeys(config.experiments[e].dataset for e in experiments if e in config.experiments):
        spec = config.datasets[name]
        if isinstance(spec, SyntheticDataset):
            files.append(artifacts.generation_statistics(name))
        elif isinstance(spec, HeadlineSyntheticDataset):
            files.append(artifacts.prepared(name, "test", "tgt"))
        elif isinstance(spec, RealDataset):
            files.append(str(prepare_record(name, spec)))
    return files


def overlap_text(config: ParagenConfig, experiments: list[str]) -> str:
    """Caption text: the overlap between a real dataset's splits that ``max_overlap`` allowed (prepare.json's
    counts, :mod:`paragen.data.overlap`); empty when the splits are disjoint or not prepared here."""
    from paragen.data.overlap import allowed_overlap

    parts = []
    for name in dict.fromkeys(config.experiments[e].dataset for e in experiments):
        spec = config.datasets[name]
        if not isinstance(spec, RealDataset):  # generated data: one generator draws every split
            continue
        record = prepare_record(name, spec)
        if record.exists():
            phrases = allowed_overlap(json.loads(record.read_text(encoding="utf-8")).get("overlap", {}))
            if phrases:
                parts.append(f"{name}: {'; '.join(phrases)} (allowed by datasets.{name}.max_overlap)")
    return f" Overlap between splits: {'. '.join(parts)}." if parts else ""


def describe_hardware(run_dirs: dict[str, Path]) -> str:
    """Setup text: the device each row trained on, its wall time, and where a run was split across processes.

    Read from each run's ``sessions.json`` (written by training) and the ``wall_time_s`` of its log; rows whose
    run predates session records are left out rather than guessed.
    """
    runs, devices = [], set()
    for row, run_dir in run_dirs.items():
        sessions_path, log_path = run_dir / SESSIONS_FILE, run_dir / "train_log.csv"
        if not (sessions_path.exists() and log_path.exists()):
            continue
        sessions = json.loads(sessions_path.read_text(encoding="utf-8"))
        minutes = sum(r["wall_time_s"] for r in read_log(log_path)) / 60
        own = list(dict.fromkeys(s["device"] for s in sessions))
        devices.update(own)
        split = ("" if len(sessions) <= 1 else ", resumed at epoch "
                 + ", ".join(str(s["first_epoch"]) for s in sessions[1:]))
        runs.append((row, minutes, own, split))
    if not runs:
        return ""
    # rows trained on different machines each name theirs: their numbers may differ by the hardware too
    named = len(devices) > 1
    parts = [f"{row} {shown(minutes, 1)} min" + (" (" + ", ".join(own) + ")" if named else "") + split
             for row, minutes, own, split in runs]
    return (f" Trained on {' and '.join(sorted(devices))}; wall time per row (training and per-epoch validation, "
            f"summed over epochs): {'; '.join(parts)}.")


def sweep_summary(config: ParagenConfig, name: str) -> str:
    """", over N seeds: SARI m ± sd, ..." for a skip row whose sweep includes its own probability."""
    from paragen.simplification.skip_sweep import summary_at

    spec = config.systems[name]
    path = Path(artifacts.sweep_outputs(name)[1])
    found = summary_at(path, spec.probability) if spec.sweep and path.exists() else None
    if found is None:
        return ""
    seeds, scores = found
    means = ", ".join(f"{m.upper()} {shown(mean, 2)} ± {shown(sd, 2)}" for m, (mean, sd) in scores.items())
    return f" (over seeds {spec.seed}..{spec.seed + seeds - 1}: {means}; every p in {artifacts.sweep_outputs(name)[0]})"


def describe_embeddings(config: ParagenConfig, rows: dict[str, str]) -> str:
    """" Embeddings: ROW: GloVe for N of V words; ..." for rows whose model starts from pretrained vectors."""
    parts = []
    for row, exp in rows.items():
        if exp not in config.experiments or not config.models[config.experiments[exp].model].pretrained_embeddings:
            continue
        path = Path(artifacts.embeddings_path(exp))
        if path.exists():
            parts.append(f"{row}: " + EmbeddingInit(**json.loads(path.read_text(encoding="utf-8"))).describe())
    return (" Embeddings: " + "; ".join(parts) + ".") if parts else ""


def describe_systems(config: ParagenConfig, names: list[str]) -> str:
    """Caption text for the rows that need no training: what each computes."""
    parts = []
    for name in names:
        s = config.systems[name]
        if s.method == "skip" and s.seeds > 1:
            parts.append(f"{name}: each word dropped with p = {s.probability}; its cells are the mean over seeds "
                         f"{s.seed}..{s.seed + s.seeds - 1}"
                         + (f" (every p in {artifacts.sweep_outputs(name)[0]})" if s.sweep else ""))
        elif s.method == "skip":
            parts.append(f"{name}: each word dropped with p = {s.probability}, seed {s.seed}" + sweep_summary(config, name))
        elif s.method == "oracle" and s.reference == "leave_one_out":
            parts.append(f"{name}: each reference of the test set in turn as output, scored against the other "
                         "references, averaged (leave-one-out: a reference is never scored against itself)")
        elif s.method == "oracle":
            parts.append(f"{name}: reference {s.reference} of the test set as output, scored against all references "
                         "(itself included)")
        elif s.method == "paraphrase":
            on = "the source" if s.input == "source" else f"the output of {s.input}"
            parts.append(f"{name}: the {s.granularity} rules of {s.rules} applied to {on}")
        elif s.vocabulary_only:
            parts.append(f"{name}: the source with every word outside the output vocabulary written as <unk> "
                         "(the most a model that writes only its vocabulary can copy)")
        else:
            parts.append(f"{name}: the source unchanged")
    used = [r for r in dict.fromkeys(config.systems[n].rules for n in names) if r is not None]
    notes = [f"Rules {r}: {config.rules[r].title}, applied longest match first, left to right, the highest weight "
             f"where several apply.{' ' + config.rules[r].note if config.rules[r].note else ''}" for r in used]
    return ("Rows without training: " + "; ".join(parts) + "." + "".join(f" {n}" for n in notes)) if parts else ""
