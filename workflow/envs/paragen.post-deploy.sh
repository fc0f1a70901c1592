#!/usr/bin/env bash
# Run by Snakemake inside the environment of paragen.yaml right after creating it (a file beside the
# environment file named <env>.post-deploy.sh), from the workflow's working directory: this checkout's root
# when `snakemake` is started there, as docs/usage.md says. Installs paragen from this checkout, editable: the
# environment's hash covers only paragen.yaml and this script, so a copy of the source taken now would go stale
# when the source changes; editable, every job runs the checkout's current code, as the README's venv does.
set -euo pipefail
if ! grep -q '^name = "paragen"$' pyproject.toml 2>/dev/null; then
    echo "paragen.post-deploy.sh: $(pwd) is not the paragen checkout; run snakemake from its root" >&2
    exit 1
fi
python -m pip install -e .
