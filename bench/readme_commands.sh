#!/usr/bin/env bash
# Time the README's two first-line commands as a new user runs them: a fresh clone with ../shared beside it,
# a new virtual environment, the install, then the run. Prints install, run and total wall time of each.
# Usage, from the repository root:   bash bench/readme_commands.sh [main|tests|both]   (default both)
# pip's download cache is the user's own: a machine that never installed these packages downloads more.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
which=${1:-both}
work=$(mktemp -d /tmp/paragen-readme-XXXXXX)
[ -d "$root/../shared" ] && ln -s "$(cd "$root/../shared" && pwd)" "$work/shared"
git clone -q "$root" "$work/paragen"
cd "$work/paragen"
# The two commands exactly as the README's first lines give them, split at the install.
main_cmd=$(sed -n '5p' README.md | sed 's/^ *//')
tests_cmd=$(sed -n '6p' README.md | sed 's/^ *//')
case "$main_cmd" in *"snakemake --cores all"*) ;; *) echo "README line 5 is not the main command: $main_cmd" >&2; exit 1;; esac
case "$tests_cmd" in *"python -m pytest"*) ;; *) echo "README line 6 is not the test command: $tests_cmd" >&2; exit 1;; esac
seconds() { date +%s.%N; }
time_command() {  # label, install part, run part
  local start mid end
  rm -rf .venv
  start=$(seconds); bash -c "$2"; mid=$(seconds)
  bash -c ". .venv/bin/activate && $3"; end=$(seconds)
  python3 - "$1" "$start" "$mid" "$end" <<'PY'
import sys
label, start, mid, end = sys.argv[1], *map(float, sys.argv[2:])
fmt = lambda s: f"{int(s // 60)} min {s % 60:.0f} s"
print(f"{label}: install {fmt(mid - start)}, run {fmt(end - mid)}, total {fmt(end - start)}", flush=True)
PY
}
install_of() { echo "${1%% && snakemake*}" | sed 's/ && python -m pytest.*//'; }
if [ "$which" != tests ]; then
  time_command "main command" "$(install_of "$main_cmd")" "${main_cmd##*&& }" | tee -a "$work/timings.txt"
fi
if [ "$which" != main ]; then
  time_command "test command" "$(install_of "$tests_cmd")" "${tests_cmd##*&& }" | tee -a "$work/timings.txt"
fi
echo "clone and logs: $work"
