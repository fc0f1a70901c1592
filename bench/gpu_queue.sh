#!/usr/bin/env bash
# One call of the GPU work queue (workflow/gpu_queue.yaml) on a GPU machine, as `paragen gpu-queue stage` prints it:
#
#   bash bench/gpu_queue.sh SECONDS [gpu-queue run options...]
#
# On a machine whose python3 has torch but not paragen's other dependencies, the wheels in ./.whl/ are installed
# into /tmp/site first (as bench/device_pipeline.sh does; bench/device_wheels.sh collects them where a package
# index is reachable). Then `paragen gpu-queue run` runs the next unfinished jobs and packs into $OUT so that
# packing is done SECONDS after this script started (the install counts). The call's timeout should leave a
# minute beyond SECONDS. Everything it needs comes from the checkout, the carried .gpuqueue/ (data, and resume
# states when the store is git-ignored) and .whl/; nothing from a committed output: the queue's own record
# (results/gpu_queue/state.json) says what is done. See docs/cluster.md, "A GPU for minutes at a time".
set -uo pipefail
budget=${1:?usage: bash bench/gpu_queue.sh SECONDS [gpu-queue run options...]}
shift
export PYTHONUNBUFFERED=1
: "${OUT:?OUT must name the folder whose files come back}"
if ! python3 -c "import paragen, pydantic" 2>/dev/null; then
  if ! python3 -c "import pydantic" 2>/dev/null; then
    [ -d /tmp/site/pydantic ] || python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
      --upgrade --target /tmp/site .whl/*.whl >/tmp/pip.log 2>&1 || { tail -20 /tmp/pip.log; exit 1; }
    export PYTHONPATH=/tmp/site
  fi
  export PYTHONPATH=${PYTHONPATH:+$PYTHONPATH:}$PWD/src
fi
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
left=$((budget - SECONDS))
[ "$left" -gt 60 ] || { echo "only $left s left after the install: nothing run" >&2; exit 1; }
python3 -m paragen.cli gpu-queue run --deadline "$left" --out "$OUT" "$@"
status=$?
if [ ! -f "$OUT/manifest.json" ]; then  # the queue itself failed: bring back what says why
  echo "gpu-queue run ended with $status and packed nothing; logs/ and the runs' logs come back in $OUT/failed.tgz"
  tar czf "$OUT/failed.tgz" $(ls -d logs runs/*/train_log.csv 2>/dev/null) 2>/dev/null
fi
exit $status
