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
.venv/bin/python -m pip install -q --upgrade pip
echo "==> installing kgmem (editable) with the dev and bench extras: the first run downloads" \
     "about 1 GB (3-5 minutes); each package is listed as it comes"
# pip's own lines, less the ones for what is already there (a second run shows kgmem's rebuild)
.venv/bin/python -m pip install -e ".[dev,bench]" 2>&1 \
  | awk '!/^Requirement already satisfied/ { print; fflush() }'
echo "==> MiniLM weights for semantic search (pinned and hash-checked, no torch)"
.venv/bin/kgmem models install
echo "==> ready: $(.venv/bin/python --version), kgmem at .venv/bin/kgmem"
