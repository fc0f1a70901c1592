#!/usr/bin/env bash
# Decoding speed on a GPU, this checkout's beam search against older commits' on the same trained checkpoints
# (docs/speed.md). A GPU machine that has a copy of the working tree but no git history and no runs/ gets both
# from a staging folder made here:
#
#   bash bench/gpu_decode.sh prepare COMMIT...  here: stage in .devdata/gpu_decode/ each COMMIT's src/ (git archive),
#                                               and of each experiment in EXPERIMENTS (default: syn_rnnsearch
#                                               syn_copynet, trained here) its best.pt, test n-best, test sources
#                                               and vocabulary, and the wheels of .whl/ but pulp's (snakemake's
#                                               scheduler, 16 MB), so that one carried folder of ~26 MB holds all
#   bash bench/gpu_decode.sh run                on the GPU machine (carry .devdata/gpu_decode): PASSES
#                                               passes (default 2) of bench/decode_speed.py --device cuda for each
#                                               experiment and each staged commit, then this checkout, then this
#                                               checkout with --host-checks; the second pass in the reverse order,
#                                               so a machine that speeds up or slows down favours no version.
#                                               One file per decode in $OUT/decode/, $OUT/decode/summary.txt, all
#                                               packed in $OUT/decode_logs.tgz
#
# Each decode (SENTENCES test sentences, default 300, three rounds) is stopped after DECODE_S seconds (default 90). DEVICE=cpu runs the same on a CPU, to check it.
set -euo pipefail
stage=.devdata/gpu_decode
experiments=(${EXPERIMENTS:-syn_rnnsearch syn_copynet})
case "${1:?usage: bash bench/gpu_decode.sh prepare COMMIT... | run}" in
  prepare)
    shift
    [ $# -gt 0 ] || { echo "prepare: name at least one commit to compare with this checkout" >&2; exit 2; }
    rm -rf "$stage" && mkdir -p "$stage/code"
    for commit in "$@"; do
      short=$(git rev-parse --short "$commit^{commit}")
      mkdir -p "$stage/code/$short" && git archive "$short" src params.yaml | tar -x -C "$stage/code/$short"
    done
    for experiment in "${experiments[@]}"; do
      for file in best.pt test.nbest.jsonl; do
        [ -f "runs/$experiment/$file" ] || { echo "prepare: runs/$experiment/$file missing: train it first" >&2
                                            exit 1; }
        mkdir -p "$stage/runs/$experiment" && cp "runs/$experiment/$file" "$stage/runs/$experiment/"
      done
      python3 - "$experiment" "$stage" <<'EOF'
import shutil, sys
from pathlib import Path
from paragen import artifacts
from paragen.config import load_config
experiment, stage = sys.argv[1], Path(sys.argv[2])
data = artifacts.experiment_data(load_config("params.yaml"), experiment)
for path in (Path(data.directory) / "test.src", Path(data.vocab)):
    (stage / path.parent).mkdir(parents=True, exist_ok=True)
    shutil.copy(path, stage / path)
EOF
    done
    if [ -d .whl ]; then
      mkdir -p "$stage/whl" && find .whl -maxdepth 1 -type f -name '*.whl' ! -name 'pulp-*' -exec cp {} "$stage/whl/" \;
    fi
    du -sh "$stage" ;;
  run)
    device=${DEVICE:-cuda}
    out=${OUT:-results/decode_speed}/decode
    mkdir -p "$out" && out=$(cd "$out" && pwd)
    rm -f "$out"/pass*_*.txt "$out/summary.txt"  # an earlier run's lines would be read as this run's
    [ -d "$stage/code" ] || { echo "run: $stage missing: run 'bash bench/gpu_decode.sh prepare COMMIT...' first" >&2
                              exit 1; }
    export PYTHONUNBUFFERED=1
    site=
    if ! python3 -c "import paragen" 2>/dev/null; then
      [ -d /tmp/site/pydantic ] || python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
        --target /tmp/site "$stage"/whl/*.whl
      site=/tmp/site:
    fi
    cp -r "$stage/runs" "$stage/data" .  # merged into any runs/ and data/ already here
    [ "$device" = cuda ] && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
    versions=()
    for code in "$stage"/code/*; do versions+=("$(basename "$code")"); done
    versions+=(checkout checkout-host-checks)
    for pass in $(seq 1 "${PASSES:-2}"); do
      order=("${versions[@]}")
      if [ $((pass % 2)) -eq 0 ]; then
        order=(); for ((i = ${#versions[@]} - 1; i >= 0; i--)); do order+=("${versions[i]}"); done
      fi
      for experiment in "${experiments[@]}"; do
        for version in "${order[@]}"; do
          root=$stage/code/$version extra=()  # an older commit runs in its own copy, with its own params.yaml
          case $version in checkout) root=. ;; checkout-host-checks) root=. extra=(--host-checks) ;; esac
          [ "$root" = . ] || ln -sfn "$PWD/runs" "$PWD/data" "$root/"
          log=$out/pass${pass}_${experiment}_${version}.txt
          (cd "$root" && PYTHONPATH=$site$PWD/src timeout "${DECODE_S:-90}" python3 "$OLDPWD/bench/decode_speed.py" \
             --experiment "$experiment" --device "$device" --sentences "${SENTENCES:-300}" "${extra[@]}") \
            >"$log" 2>&1 || echo "exit $? (124: stopped after ${DECODE_S:-90} s)" >>"$log"
          printf 'pass %s  %-14s %-22s rounds %s| %s\n' "$pass" "$experiment" "$version" \
            "$(awk '/^round [0-9]/ {printf "%s ", $(NF-1)}' "$log")" \
            "$(grep -E '^(median|rounds differ|exit|n-best)' "$log" | tr '\n' ' ')" | tee -a "$out/summary.txt"
        done
      done
    done
    tar -czf "$out/../decode_logs.tgz" -C "$out" . ;;  # every log in one file: a lent machine returns few files
  *) echo "unknown part $1: prepare or run" >&2; exit 2 ;;
esac
