#!/usr/bin/env bash
# Mutation testing: every small change mutmut makes to a group of paragen's packages (an operator, a constant, a
# dropped call) must make a fast unit test fail. Prints the mutation score and every surviving mutant with its
# name (`mutmut show NAME` in the scratch copy gives its diff). Usage, from the repository root with the
# project's .venv active:
#     bash bench/mutation.sh [GROUP [PATTERN...]]        # MUTMUT_CHILDREN=2 by default
# GROUP (default models): models (src/paragen/models/, decoding/search.py: [tool.mutmut] in pyproject.toml as
# committed), resources, metrics, scoring, data, simplification, report: each mutates those files and runs the
# tests that pin them (bench/mutation_groups.py). Other groups run in a scratch copy of the committed tree
# (git worktree under /tmp) whose [tool.mutmut] names the group, so the project's own config never changes.
# PATTERNs (shell-style globs over mutmut's mutant names, e.g. 'paragen.report.staleness.*') check only the
# mutants they match, e.g. the functions a stopped run left unchecked; the others are listed as "not checked".
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"
group="${1:-models}"
patterns=("${@:2}")
python -m pip install -q -e '.[test,mutation]'
if [ "$group" != models ]; then
    scratch="$(mktemp -d /tmp/paragen-mutation-"$group".XXXXXX)"
    git worktree add -q --detach "$scratch" HEAD
    python bench/mutation_groups.py "$group" "$scratch/pyproject.toml"
    cd "$scratch"
    echo "mutation group $group in $scratch (remove it with: git worktree remove --force $scratch)" >&2
fi
# The tests that read the public-data mirror find it beside the checkout (tests/conftest.py); from the scratch
# copy's mutants/ folder that path does not exist, so they would skip and their functions count as untested.
if [ -z "${PARAGEN_MIRROR:-}" ] && [ -d "$repo/../shared/data" ]; then
    export PARAGEN_MIRROR="$(cd "$repo/../shared/data" && pwd)"
fi
rm -rf mutants
# ${patterns[@]+...}: an empty array is "unbound" under set -u before bash 4.4
OMP_NUM_THREADS=1 mutmut run --max-children "${MUTMUT_CHILDREN:-2}" ${patterns[@]+"${patterns[@]}"} > mutmut.log 2>&1 || true
if grep -q "nothing matches" mutmut.log; then
    echo "mutmut checked nothing: no mutant name matches ${patterns[*]} ($(pwd)/mutmut.log)" >&2
fi
# A clean test run that fails ("failed to collect stats") leaves every mutant unchecked: say why.
if grep -q "failed to collect stats" mutmut.log; then
    echo "mutmut checked nothing: its clean run of the group's tests failed ($(pwd)/mutmut.log)" >&2
    tail -c 2000 mutmut.log >&2
fi
python - <<'PY'
import collections, json, pathlib
from mutmut.stats import status_by_exit_code  # mutmut's own exit code -> status table

counts, survivors = collections.Counter(), []
for meta in pathlib.Path("mutants").rglob("*.meta"):
    for name, code in json.loads(meta.read_text()).get("exit_code_by_key", {}).items():
        status = status_by_exit_code[code]
        counts[status] += 1
        if status in ("survived", "no tests"):
            survivors.append((name, status))
checked = counts["killed"] + counts["survived"]
print(f"mutants: {sum(counts.values())}  " + "  ".join(f"{k}: {v}" for k, v in sorted(counts.items())))
print(f"mutation score, killed / (killed + survived): {100 * counts['killed'] / max(checked, 1):.1f} %")
for name, status in sorted(survivors):
    print(f"{status}: {name}")
PY
echo "diffs of the survivors: mutmut show <name> (in $(pwd))"
