"""Paper-size rehearsal of one dataset's data stages: ``python bench/rehearse_data.py DATASET [--fraction F]``.

No training set is mirrored here, so this builds a size-faithful stand-in of the dataset's training files in their
real format: the paper's line count (the registry's ``expected`` count, or the release's byte size for Hwang et
al.'s files), lines sampled from the mirror's own evaluation files of that language and recombined (the head of
one sentence joined to the tail of another), so lengths and word frequencies look like the real text. LCSTS
(Chinese) recombines PART_III's summaries and texts; Gigaword's training pairs come as the real
``summary.tar.gz`` (gzipped members inside a tar). Every file of the dataset's registry entries (evaluation
files: the mirror's real bytes) is then served by a loopback HTTP server under the registry's own names, with the
registry's expected digests replaced by the stand-in's, and the DAG's own stages for the dataset
(``paragen.pipeline.plan``: fetch, prepare, segment, vocabulary) run as commands in a scratch directory, each in
its own process, followed by one training epoch's batching (the trainer's ``epoch_batches``, no model).

Printed per stage: wall time, peak resident memory (the process and its children, e.g. segmentation workers),
the size of what it wrote. ``--json FILE`` keeps the figures (results/rehearsal/<dataset>.json).
DATASET is a real dataset of params.yaml: wikilarge, pwkp, ew_sew_hwang, lcsts_copynet_char (LCSTS +C),
lcsts_copynet_word (jieba), gigaword (BPE), ...
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import random
import resource
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MIRROR = ROOT.parent / "shared" / "data"
GOAL_SECONDS, GOAL_MB = 30 * 60, 8 * 1024
GIGAWORD_VALID_POOL = 189_651  # Rush et al.'s valid.*.filter.txt: lines


# ---- stand-in text -------------------------------------------------------------------------------------------

def recombined(pool: list[str], count: int, rng: random.Random, joiner: str = " ") -> list[str]:
    """``count`` lines, each the head of one pool line joined to the tail of another (cut at a random token)."""
    def tokens(line: str) -> list[str]:
        return line.split(joiner) if joiner else list(line)

    out = []
    for _ in range(count):
        a, b = tokens(rng.choice(pool)), tokens(rng.choice(pool))
        cut_a, cut_b = rng.randint(1, max(1, len(a))), rng.randint(0, max(0, len(b) - 1))
        out.append(joiner.join(a[:cut_a] + b[cut_b:]))
    return out


def mirror_lines(*relative: str) -> list[str]:
    lines: list[str] = []
    for path in relative:
        lines += [line for line in (MIRROR / path).read_text(encoding="utf-8").splitlines() if line.strip()]
    return lines


def text(lines: list[str]) -> bytes:
    return "".join(line + "\n" for line in lines).encode("utf-8")


ENGLISH = ("turkcorpus/", "asset/", "wikilarge/", "pwkp/", "ew-sew_nts/")
"""Mirror folders of English Wikipedia sentences and their simplifications: the pool of the English stand-ins."""


def english_pool() -> list[str]:
    """Every line of the mirror's English simplification text files (manifest.tsv; binaries and TSVs left out):
    about 90,000 lines, a vocabulary of tens of thousands of words."""
    rows = [line.split("\t") for line in (MIRROR / "manifest.tsv").read_text(encoding="utf-8").splitlines()[1:]]
    paths = [row[0] for row in rows if row[0].startswith(ENGLISH) and not row[0].endswith((".t7", ".tsv"))]
    return mirror_lines(*paths)


def simplification_pair(entry: str, count: int, rng: random.Random) -> dict[str, bytes]:
    pool = english_pool()
    return {"train.src": text(recombined(pool, count, rng)), "train.dst": text(recombined(pool, count, rng))}


def hwang_files(sizes: dict[str, int], rng: random.Random) -> dict[str, bytes]:
    """Hwang et al.'s three class files, ``en<TAB>simple<TAB>score``, each of the release's byte size."""
    english = simple = english_pool()
    bounds = {"aligned-good-0.67.txt": (0.67, 1.0), "aligned-good_partial-0.53.txt": (0.53, 0.67),
              "aligned-remaining-0.45.txt": (0.45, 0.53)}
    files = {}
    for name, size in sizes.items():
        low, high = bounds[name]
        out, written = io.BytesIO(), 0
        while written < size:
            line = (f"{recombined(english, 1, rng)[0]}\t{recombined(simple, 1, rng)[0]}\t"
                    f"{rng.uniform(low, high):.4f}\n").encode("utf-8")
            written += out.write(line)
        files[name] = out.getvalue()
    return files


def lcsts_part(count: int, rng: random.Random, kept: int | None = None) -> bytes:
    """LCSTS documents recombined from PART_III's summaries and short texts; with ``kept``, each carries a human
    score (PART_II's layout), ``kept`` of them 3 or more (the recipe keeps those: the paper's validation count)."""
    raw = (MIRROR / "lcsts/wangle1218_text-summarization/data/PART_III.txt").read_text(encoding="utf-8")
    summaries = [s.split("</summary>")[0].strip() for s in raw.split("<summary>")[1:]]
    texts = [s.split("</short_text>")[0].strip() for s in raw.split("<short_text>")[1:]]
    labels = [str(rng.randint(3, 5)) for _ in range(kept or 0)] + [str(rng.randint(1, 2))
                                                                  for _ in range(count - (kept or 0))]
    rng.shuffle(labels)
    out = io.StringIO()
    for i in range(count):
        summary, body = recombined(summaries, 1, rng, joiner="")[0], recombined(texts, 1, rng, joiner="")[0]
        label = f"    <human_label>{labels[i]}</human_label>\n" if kept is not None else ""
        out.write(f"<doc id={i}>\n{label}    <summary>\n        {summary}\n    </summary>\n    <short_text>\n"
                  f"        {body}\n    </short_text>\n</doc>\n")
    return out.getvalue().encode("utf-8")


def gigaword_archive(count: int, rng: random.Random) -> bytes:
    """Rush et al.'s ``summary.tar.gz``: gzipped training articles and titles, the filtered validation pool and
    the test articles, articles recombined from the Rush test articles, titles from the validation titles."""
    articles = mirror_lines("gigaword/InitialBug_BiSET/FastRerank/PyRouge/input-word.txt")
    titles = mirror_lines("gigaword/InitialBug_BiSET/FastRerank/PyRouge/valid.title.filter.txt")
    members = {"sumdata/train/train.article.txt.gz": gzip.compress(text(recombined(articles, count, rng)), 1),
               "sumdata/train/train.title.txt.gz": gzip.compress(text(recombined(titles, count, rng)), 1),
               "sumdata/train/valid.article.filter.txt": text(recombined(articles, GIGAWORD_VALID_POOL, rng)),
               "sumdata/train/valid.title.filter.txt": text(recombined(titles, GIGAWORD_VALID_POOL, rng)),
               "sumdata/Giga/input.txt": text(articles)}
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=1) as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def stand_in(entry: str, source, fraction: float, rng: random.Random) -> dict[str, bytes]:
    """The files of one registry entry that are not mirrored, built at ``fraction`` of their real size."""
    scaled = {split: max(1, round(n * fraction)) for split, n in source.expected.items()}
    if entry in ("wikilarge", "pwkp"):
        return simplification_pair(entry, scaled["train"], rng)
    if entry == "ew_sew_hwang":
        return hwang_files({f.path: max(1, round(f.size * fraction)) for f in source.files}, rng)
    if entry == "lcsts":
        return {"PART_I.txt": lcsts_part(scaled["train"], rng),
                "PART_II.txt": lcsts_part(scaled["part2"], rng, kept=min(scaled["valid"], scaled["part2"]))}
    if entry == "gigaword":
        titles = mirror_lines("gigaword/InitialBug_BiSET/FastRerank/PyRouge/task1_ref0.txt")
        articles = mirror_lines("gigaword/InitialBug_BiSET/FastRerank/PyRouge/input-word.txt")
        return {"summary.tar.gz": gigaword_archive(scaled["train"], rng),
                "zhou_test.article.txt": text(recombined(articles, 2000, rng)),
                "zhou_test.title.txt": text(recombined(titles, 2000, rng))}
    return {}


# ---- serving, as the real download arrives ------------------------------------------------------------------

def served_registry(entries: list[str], fraction: float, root: Path, seed: int) -> tuple[Path, dict]:
    """Write every file of ``entries`` under ``root/<entry>/<path>`` (stand-ins or the mirror's bytes) and return
    the registry those files verify against, its URLs on the loopback server."""
    from paragen.data.registry import load_registry

    registry = load_registry()
    rng = random.Random(seed)
    patched = {}
    for entry in entries:
        source = registry[entry]
        built = stand_in(entry, source, fraction, rng)
        files = []
        for file in source.files:
            data = built.get(file.path)
            if data is None and file.mirror is not None and (MIRROR / file.mirror).exists():
                data = (MIRROR / file.mirror).read_bytes()
            if data is None:
                raise SystemExit(f"{entry}/{file.path}: neither a stand-in nor a mirrored copy to serve")
            target = root / entry / file.path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            files.append({**file.model_dump(), "urls": [f"URL/{entry}/{file.path}"], "mirror": None,
                          "sha256": hashlib.sha256(data).hexdigest(), "git_blob": None, "size": len(data),
                          "lines": None, "extract": [{**m.model_dump(), "sha256": None} for m in file.extract]})
        patched[entry] = {**source.model_dump(), "files": files}
    return root, patched


def serve(root: Path) -> tuple[ThreadingHTTPServer, str]:
    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:  # keep the table readable
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Quiet, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


# ---- one stage in its own process ---------------------------------------------------------------------------

def child(registry_json: str, args: list[str]) -> int:
    """Run ``paragen ARGS`` (or the batching epoch) here, the registry patched, and report peak memory."""
    from paragen.data import registry
    from paragen.data.registry import DatasetSource

    patched = {name: DatasetSource.model_validate(entry) for name, entry in json.loads(registry_json).items()}
    real = registry.load_registry
    registry.load_registry = lambda: {**real(), **patched}
    status = batching_epoch(*args[1:]) if args[0] == "--epoch" else _paragen(args)
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(json.dumps({"maxrss_mb": own / 1024, "children_maxrss_mb": children / 1024}), file=sys.stderr)
    return status


def _paragen(args: list[str]) -> int:
    from paragen.cli import main

    return main(args)


def batching_epoch(directory: str, vocab_path: str, batch_size: str) -> int:
    """One epoch's batches of the segmented training split, built as the trainer builds them (no model)."""
    from paragen.data.corpus import read_split
    from paragen.data.vocabulary import Vocabulary
    from paragen.training.trainer import epoch_batches

    train, vocab = read_split(directory, "train"), Vocabulary.load(vocab_path)
    count, batches = epoch_batches(train, [len(s) for s in train.sources], vocab, int(batch_size), seed=1)
    tokens = sum(int(batch.src_lengths.sum()) for batch, _ in batches)
    print(f"{count:,} batches, {tokens:,} source tokens")
    return 0


def run_stage(name: str, args: list[str], work: Path, registry_json: str, outputs: list[Path]) -> dict:
    started = time.perf_counter()
    result = subprocess.run([sys.executable, __file__, "--child", registry_json, "--", *args], cwd=work,
                            capture_output=True, text=True)
    wall = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"{name} failed ({result.returncode}): {shlex.join(args)}\n{result.stdout}\n{result.stderr}")
    report = json.loads(result.stderr.strip().splitlines()[-1])
    size = sum(f.stat().st_size for out in outputs for f in ([out] if out.is_file() else out.rglob("*"))
               if f.is_file())
    peak = max(report.get("maxrss_mb", 0), report.get("children_maxrss_mb", 0))
    row = {"stage": name, "wall_s": round(wall, 1), "peak_rss_mb": round(peak, 0), "output_mb": round(size / 2**20, 1),
           "within_goal": wall <= GOAL_SECONDS and peak <= GOAL_MB, "command": shlex.join(args),
           "last_line": (result.stdout.strip().splitlines() or [""])[-1][:200]}
    print(f"{name:<28} {row['wall_s']:>9.1f} s {row['peak_rss_mb']:>9.0f} MB {row['output_mb']:>9.1f} MB"
          f"{'' if row['within_goal'] else '   OVER THE GOAL'}", flush=True)
    return row


# ---- the rehearsal -------------------------------------------------------------------------------------------

def plan_rehearsal(dataset: str, fraction: float, work: Path, seed: int) -> None:
    """In its own process (so the measuring parent stays small: a process started by fork carries its parent's
    resident size into its own peak): the stand-in files, the registry they verify against and the dataset's
    stages, written to ``work/rehearsal.json``."""
    import yaml

    from paragen.artifacts import segmented_dir, segmented_vocab_dir
    from paragen.config import RealDataset, load_config, parse_config
    from paragen.pipeline.plan import build_plan

    raw = load_config(ROOT / "params.yaml").model_dump(exclude_unset=True)
    raw.update(data=[dataset], mirrors=[])
    config = parse_config(raw)
    spec = config.datasets[dataset]
    assert isinstance(spec, RealDataset), f"{dataset} is not a real dataset of params.yaml"
    recipe = spec.recipe or dataset
    wanted = {f"fetch_{e}" for e in spec.fetch} | {f"prepare_{recipe}", f"segment_{dataset}", f"vocab_{dataset}"}
    directory = segmented_dir(dataset, spec.segmentation)
    outputs = {"fetch": lambda s: [f"data/raw/{s.name.removeprefix('fetch_')}"],
               "prepare": lambda s: [f"data/prepared/{recipe}"], "segment": lambda s: [directory],
               "vocab": lambda s: list(s.outs)}
    stages = []
    for stage in build_plan(config).stages:
        if stage.name in wanted:
            words = shlex.split(stage.cmd)  # "paragen ARGS", as the engines run it: here in a patched process
            assert words[0] == "paragen", stage.cmd
            if stage.step == "prepare" and fraction != 1:  # a smaller stand-in cannot have the paper's counts
                words.append("--no-check")
            stages.append({"name": stage.name, "args": words[1:], "outputs": outputs[stage.step](stage)})
    trainings = [config.training[e.training] for e in config.experiments.values() if e.dataset == dataset]
    batch_size = trainings[0].batch_size if trainings else 64
    stages.append({"name": f"epoch_batches (batch {batch_size})", "outputs": [],
                   "args": ["--epoch", directory, f"{segmented_vocab_dir(dataset, spec.segmentation)}/vocab.txt",
                            str(batch_size)]})
    (work / "params.yaml").write_text(yaml.safe_dump(raw, sort_keys=False, allow_unicode=True))
    _, registry = served_registry(list(spec.fetch), fraction, work / "served", seed)
    (work / "rehearsal.json").write_text(json.dumps({"registry": registry, "stages": stages, "recipe": recipe}))


def rehearse(dataset: str, fraction: float, work: Path, seed: int) -> dict:
    print(f"{dataset}: building the stand-in at {fraction:g} of full size ...", flush=True)
    started = time.perf_counter()
    subprocess.run([sys.executable, __file__, "--plan", dataset, str(fraction), str(work), str(seed)], check=True)
    planned = json.loads((work / "rehearsal.json").read_text())
    server, base = serve(work / "served")
    registry_json = json.dumps(planned["registry"]).replace('"URL/', f'"{base}/')
    print(f"stand-in built in {time.perf_counter() - started:.0f} s; serving {work / 'served'} at {base}", flush=True)
    print(f"{'stage':<28} {'wall':>11} {'peak RSS':>12} {'output':>12}")
    try:
        rows = [run_stage(s["name"], s["args"], work, registry_json, [work / o for o in s["outputs"]])
                for s in planned["stages"]]
    finally:
        server.shutdown()
    train = work / "data/prepared" / planned["recipe"] / "train.src"
    vocab = [work / o for s in planned["stages"] if s["name"].startswith("vocab_") for o in s["outputs"]]
    return {"dataset": dataset, "fraction": fraction, "date": time.strftime("%Y-%m-%d"), "machine": machine(),
            "baseline_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
            "prepared_train_pairs": sum(1 for _ in open(train, "rb")) if train.exists() else None,
            "vocabulary": sum(1 for _ in open(vocab[0], "rb")) if vocab and vocab[0].exists() else None,
            "stages": rows}


def machine() -> str:
    import os
    import platform

    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor()) if Path("/proc/cpuinfo").exists() else ""
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{os.cpu_count()} cores ({cpu}), {memory:.0f} GiB"


def table(directory: Path) -> str:
    """results/tables/rehearsal.md: every committed rehearsal (``--json`` files of ``directory``) in one table."""
    runs = [json.loads(p.read_text()) for p in sorted(directory.glob("*.json"))]
    lines = ["# Data stages at the papers' size", "",
             "Measured by `python bench/rehearse_data.py DATASET --json results/rehearsal/DATASET.json` (stand-in "
             "training files of the real size and format; see the script's docstring), then `--table`. Goal: every "
             f"stage within {GOAL_SECONDS // 60} minutes and {GOAL_MB // 1024} GB on the machine named.", "",
             "| dataset | stage | wall time | peak RSS | output | within goal | date, machine |",
             "| --- | --- | ---: | ---: | ---: | --- | --- |"]
    for run in runs:
        scale = "" if run["fraction"] == 1 else f", at {run['fraction']:g} of full size"
        pairs, vocab = run.get("prepared_train_pairs"), run.get("vocabulary")
        name = f"{run['dataset']} ({pairs or 0:,} training pairs, vocabulary {vocab or 0:,}{scale})"
        for row in run["stages"]:
            lines.append(f"| {name} | {row['stage']} | {row['wall_s']:,.1f} s | "
                         f"{row['peak_rss_mb']:,.0f} MB | {row['output_mb']:,.1f} MB | "
                         f"{'yes' if row['within_goal'] else '**no**'} | {run['date']}, {run['machine']} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        return child(sys.argv[2], sys.argv[4:])
    if len(sys.argv) == 6 and sys.argv[1] == "--plan":
        plan_rehearsal(sys.argv[2], float(sys.argv[3]), Path(sys.argv[4]), int(sys.argv[5]))
        return 0
    if sys.argv[1:] == ["--table"]:
        out = ROOT / "results/tables/rehearsal.md"
        out.write_text(table(ROOT / "results/rehearsal"))
        print(f"wrote {out}")
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", help="a real dataset of params.yaml (wikilarge, pwkp, ew_sew_hwang, "
                        "lcsts_copynet_char, lcsts_copynet_word, gigaword, ...)")
    parser.add_argument("--fraction", type=float, default=1.0, help="size of the stand-in (default 1: full size)")
    parser.add_argument("--work", type=Path, help="scratch directory (default: a temporary one, removed after)")
    parser.add_argument("--json", type=Path, help="write the figures here as JSON")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix=f"rehearse_{args.dataset}_"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        result = rehearse(args.dataset, args.fraction, work, args.seed)
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
