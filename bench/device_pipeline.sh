#!/usr/bin/env bash
# Run the real pipeline (snakemake) on a GPU machine whose python3 already holds torch but none of paragen's
# other dependencies, and which cannot reach a package index: the wheels come carried in ./.whl/ (collected
# here with ../shared/tools/gpu-wheels.sh plus snakemake's, see bench/device_wheels.sh).
#
#   bash bench/device_pipeline.sh start SECONDS SNAKEMAKE-ARGS...   install, start snakemake in its own session
#                                                                  (it outlives this command), then watch it
#   bash bench/device_pipeline.sh watch SECONDS                     watch a started run for at most SECONDS
#
# Both end by packing results/ and the runs' logs and test outputs (*.hyp; no checkpoints) into
# $OUT/results.tar.gz, whether or not the run has finished, so what exists comes back even if the machine is lost
# before the next call. With PACK_RESUME="EXPERIMENT ..." (or all) they also pack those runs' resume states
# (runs/<experiment>/resume/, the weights and optimiser state: about 50 MB for a turk-mini run) into
# $OUT/resume.tgz.part* (15 MiB pieces; `cat resume.tgz.part* | tar xz` here), so that a training the lease
# cannot finish goes on elsewhere from its last epoch.
#
# Two things that lost work on 2026-11-26:
# - Committed outputs (results/metrics/*.json, tables) make Snakemake see nothing to do on the fresh copy: name the
#   trainings to redo, e.g. `--forcerun train_smini_nmt`.
# - Every call copies this checkout's tracked files over the machine's again, so a tracked output the run wrote
#   before an earlier call ended (results/metrics/<run>.json) is back to the committed version in any later call's
#   tarball: keep each call's results.tar.gz and take every file from the call after which it was written.
set -uo pipefail
mode=$1 budget=$2; shift 2
export PYTHONUNBUFFERED=1
[ -d /tmp/site/snakemake ] || python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
  --target /tmp/site .whl/*.whl >/tmp/pip.log 2>&1 || { tail -20 /tmp/pip.log; exit 1; }
export PYTHONPATH=/tmp/site:$PWD/src PATH=/tmp/bin:/tmp/site/bin:$PATH
mkdir -p /tmp/bin runs
printf '#!/bin/sh\nexec python3 -m paragen.cli "$@"\n' >/tmp/bin/paragen && chmod +x /tmp/bin/paragen
log=runs/device_pipeline.log
if [ "$mode" = start ]; then
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  python3 -c "import torch, snakemake; print('torch', torch.__version__, 'cuda', torch.cuda.is_available(), 'snakemake', snakemake.__version__)" || exit 1
  setsid nohup python3 -m snakemake --cores all "$@" >"$log" 2>&1 < /dev/null &
  echo $! > runs/device_pipeline.pid
fi
deadline=$((SECONDS + budget))
pid=$(cat runs/device_pipeline.pid)
while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do
  sleep 20
  echo "[$SECONDS s] $(grep -c "Finished job" "$log") jobs finished"
  grep -h "epoch .* train loss" "$log" | tail -4
done
kill -0 "$pid" 2>/dev/null && echo "STILL RUNNING" || echo "SNAKEMAKE ENDED"
tail -15 "$log"
tar czf "$OUT/results.tar.gz" results $(ls -d runs/*/train_log.csv runs/*/sessions.json runs/*/*.json runs/*/*.txt \
  runs/*/*.tsv runs/*/*.hyp runs/device_pipeline.log 2>/dev/null) 2>/dev/null
if [ -n "${PACK_RESUME:-}" ]; then
  resume=()
  if [ "$PACK_RESUME" = all ]; then resume=(runs/*/resume); else for e in $PACK_RESUME; do resume+=("runs/$e/resume"); done; fi
  present=(); for d in "${resume[@]}"; do [ -d "$d" ] && present+=("$d"); done
  if [ ${#present[@]} -gt 0 ]; then
    tar czf - "${present[@]}" | split -b 15m - "$OUT/resume.tgz.part"
    ls -l "$OUT"/resume.tgz.part*
  fi
fi
cp "$log" "$OUT/" 2>/dev/null
nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader
