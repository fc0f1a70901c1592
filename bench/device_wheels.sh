#!/usr/bin/env bash
# Collect into ./.whl/ the cp312 x86-64 wheels a GPU machine without a package index needs to run the real
# pipeline (bench/device_pipeline.sh): paragen's runtime dependencies (collected by the script that
# $PARAGEN_GPU_WHEELS names; the developers' default is ../shared/tools/gpu-wheels.sh) plus
# snakemake and everything it requires, at the versions of the active environment. Run from the project root
# with .venv active. Packages the GPU image already holds (torch, numpy, requests, jinja2, pyyaml, ...) are
# skipped; sdist-only ones (connection_pool, throttler, ...) are built here with `pip wheel` (pure Python).
# SNAKEMAKE=0 collects paragen's alone: the GPU queue (bench/gpu_queue.sh) runs no Snakemake, and every MiB
# left out is a MiB a resume state can use in a call.
set -euo pipefail
mkdir -p .git/info .whl
bash "${PARAGEN_GPU_WHEELS:-../shared/tools/gpu-wheels.sh}"
if [ "${SNAKEMAKE:-1}" = 0 ]; then du -sh .whl; exit 0; fi
closure=$(python3 - <<'EOF'
import importlib.metadata as md, re
from packaging.requirements import Requirement
seen, todo = {}, ["snakemake"]
while todo:
    name = todo.pop()
    key = re.sub(r"[-_.]+", "-", name).lower()
    if key in seen:
        continue
    try:
        dist = md.distribution(name)
    except md.PackageNotFoundError:
        continue
    seen[key] = dist.version
    for line in dist.requires or []:
        req = Requirement(line)
        if req.marker is None or req.marker.evaluate({"extra": ""}):
            todo.append(req.name)
print(" ".join(f"{k}=={v}" for k, v in sorted(seen.items())))
EOF
)
on_image=" attrs certifi charset-normalizer idna jinja2 markupsafe packaging psutil pyyaml requests urllib3 wrapt tabulate \
typing-extensions pydantic pydantic-core annotated-types typing-inspection "
for spec in $closure; do
  name=${spec%%==*}
  case "$on_image" in *" $name "*) continue ;; esac
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
      --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
      --platform any -d .whl "$spec" 2>/dev/null \
    || python3 -m pip wheel -q --no-deps -w .whl "$spec" 2>/dev/null \
    || echo "could not get a wheel for $spec"
done
du -sh .whl
