#!/usr/bin/env bash
# The GPU speed measurement, for whoever has a GPU at hand: run it first (docs/speed.md). Each part fits one
# 10-minute call of a lent GPU machine; the figures go to $OUT (default: results/train_speed/).
#
#   bash bench/gpu_speed.sh models   paragen's four RNN models and the JoeyNMT anchor's configuration, training
#                                    tokens/s eager, compiled (torch.compile) and with CUDA graphs (reduce-overhead),
#                                    bf16 autocast, one JSON file per mode
#   bash bench/gpu_speed.sh anchor   JoeyNMT 2.3.0 and paragen side by side on the same GPU (bench/anchor_joeynmt.py,
#                                    one round of one epoch each, offline from the JoeyNMT wheels in .whl/joeynmt/)
#   bash bench/gpu_speed.sh all      both in one call, for a short lease: anchor, then eager, CUDA graphs and
#                                    compiled, each part stopped at its own time limit (seconds: ANCHOR_S=150,
#                                    EAGER_S=60, GRAPHS_S=150, COMPILED_S=120) so the whole fits about 8 minutes;
#                                    a part that runs out says so in its log and the next part still runs
#
# On a machine whose python3 has torch but not paragen's other dependencies, the wheels in ./.whl/ are installed
# first, as bench/device_pipeline.sh does (bench/device_wheels.sh collects them; `python bench/anchor_joeynmt.py
# --collect-wheels .whl/joeynmt` collects JoeyNMT's). DEVICE=cpu runs the same commands on a CPU, to check them.
set -euo pipefail
part=${1:?usage: bash bench/gpu_speed.sh models|anchor|all}
device=${DEVICE:-cuda}
out=${OUT:-results/train_speed}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
if ! python3 -c "import paragen" 2>/dev/null; then
  [ -d /tmp/site/pydantic ] || python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
    --target /tmp/site .whl/*.whl
  export PYTHONPATH=/tmp/site:$PWD/src
fi
[ "$device" = cuda ] && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
amp=$([ "$device" = cuda ] && echo --amp || true)
wheels=()
[ -d .whl/joeynmt ] && wheels=(--wheels .whl/joeynmt)
anchor_command() {  # anchor_command ROUNDS: sets cmd to JoeyNMT and paragen, alternately, one epoch each
  cmd=(python3 bench/anchor_joeynmt.py --device "$device" $amp --rounds "$1" --epochs 1
       --sentences "${SENTENCES:-20000}" "${wheels[@]}")
}
models_command() {  # models_command MODE SENTENCES: sets cmd to the four RNN models' training, compile MODE
  cmd=(python3 bench/train_speed.py --models encdec rnnsearch copynet wean --vocab 1000 --length 25 --sentences "$2"
       --decode-sentences 0 --device "$device" $amp --compile "$1" --json "$out/gpu_speed_$1.json")
}
case "$part" in
  models)
    for mode in off default reduce-overhead; do
      [ "$device" = cpu ] && [ "$mode" = reduce-overhead ] && continue  # CUDA graphs need CUDA
      models_command "$mode" "${SENTENCES:-4096}" && "${cmd[@]}"
    done ;;
  anchor)
    anchor_command "${ROUNDS:-1}" && "${cmd[@]}" | tee "$out/gpu_anchor.txt" ;;
  all)
    limited() {  # limited SECONDS LOG COMMAND...: run COMMAND, keep its output in LOG, say when it ran out
      local seconds=$1 log=$2; shift 2
      timeout "$seconds" "$@" > >(tee "$log") 2>&1 || echo "exit $? after at most $seconds s: $*" | tee -a "$log"
    }
    anchor_command 1 && limited "${ANCHOR_S:-150}" "$out/gpu_anchor.txt" "${cmd[@]}"
    for mode in off reduce-overhead default; do
      [ "$device" = cpu ] && [ "$mode" = reduce-overhead ] && continue
      case $mode in off) seconds=${EAGER_S:-60} ;; reduce-overhead) seconds=${GRAPHS_S:-150} ;;
                    *) seconds=${COMPILED_S:-120} ;; esac
      models_command "$mode" "${MODEL_SENTENCES:-4096}" && limited "$seconds" "$out/gpu_speed_$mode.txt" "${cmd[@]}"
    done ;;
  *) echo "unknown part $part: models, anchor or all" >&2; exit 2 ;;
esac
