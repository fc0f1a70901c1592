#!/usr/bin/env bash
# The GPU speed measurement, for whoever has a GPU at hand: run it first (docs/speed.md). Each part fits one
# 10-minute call of a lent GPU machine; the figures go to $OUT (default: results/train_speed/).
#
#   bash bench/gpu_speed.sh models   paragen's four RNN models and the JoeyNMT anchor's configuration, training
#                                    tokens/s eager, compiled (torch.compile) and with CUDA graphs (reduce-overhead),
#                                    bf16 autocast, one JSON file per mode
#   bash bench/gpu_speed.sh anchor   JoeyNMT 2.3.0 and paragen side by side on the same GPU (bench/anchor_joeynmt.py,
#                                    one round of one epoch each, offline from the JoeyNMT wheels in .whl/joeynmt/)
#
# On a machine whose python3 has torch but not paragen's other dependencies, the wheels in ./.whl/ are installed
# first, as bench/device_pipeline.sh does (bench/device_wheels.sh collects them; `python bench/anchor_joeynmt.py
# --collect-wheels .whl/joeynmt` collects JoeyNMT's). DEVICE=cpu runs the same commands on a CPU, to check them.
set -euo pipefail
part=${1:?usage: bash bench/gpu_speed.sh models|anchor}
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
case "$part" in
  models)
    for mode in off default reduce-overhead; do
      [ "$device" = cpu ] && [ "$mode" = reduce-overhead ] && continue  # CUDA graphs need CUDA
      python3 bench/train_speed.py --models encdec rnnsearch copynet wean --vocab 1000 --length 25 \
        --sentences "${SENTENCES:-4096}" --decode-sentences 0 --device "$device" $amp --compile "$mode" \
        --json "$out/gpu_speed_$mode.json"
    done ;;
  anchor)
    wheels=()
    [ -d .whl/joeynmt ] && wheels=(--wheels .whl/joeynmt)
    python3 bench/anchor_joeynmt.py --device "$device" $amp --rounds "${ROUNDS:-1}" --epochs 1 \
      --sentences "${SENTENCES:-20000}" "${wheels[@]}" | tee "$out/gpu_anchor.txt" ;;
  *) echo "unknown part $part: models or anchor" >&2; exit 2 ;;
esac
