#!/usr/bin/env bash
# One command to set up and run the whole test suite, Neo4j and llama.cpp tiers included:
# installs the venv, fetches and starts a local Neo4j 5.26 (no Docker) and a local
# llama-cpp-python server (scripts/llama.sh: built from PyPI once, ~11 min on 2 cores, then
# cached outside git), runs pytest, stops what it started.
# Extra arguments go to pytest (e.g. scripts/test.sh -x -k contract).
# KGMEM_LLAMA=off skips the llama.cpp server (its tests then skip; under CI=true they fail).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# Neo4j's jars come from Maven Central: needs a JDK 17+ and Maven (present on our machines).
if ! command -v mvn >/dev/null 2>&1 || ! command -v java >/dev/null 2>&1; then
  echo "==> installing maven and a JDK (apt-get)"
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq maven openjdk-17-jre-headless
  else echo "please install maven and a JDK 17+ (needed to fetch and run Neo4j)" >&2; exit 1; fi
fi
# Debian's Chromium for the Neo4j Browser screenshots (Playwright drives it; no browser
# download: tests/neo4j_store/test_browser_screenshots.py).
if [ ! -x /usr/bin/chromium ]; then
  echo "==> installing chromium (apt-get)"
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium
  else echo "no /usr/bin/chromium: the Browser screenshot test will be skipped (apt-get install chromium)" >&2; fi
fi
started=0
llama_started=0
cleanup() {
  if [ "$llama_started" = 1 ]; then bash scripts/llama.sh stop || true; fi
  if [ "$started" = 1 ]; then bash scripts/neo4j.sh stop || true; fi
}
trap cleanup EXIT
if ! bash scripts/neo4j.sh status >/dev/null 2>&1; then
  bash scripts/neo4j.sh start
  started=1
fi
if [ "${KGMEM_LLAMA:-on}" != off ]; then
  if ! bash scripts/llama.sh status >/dev/null 2>&1; then
    llama_started=1
    bash scripts/llama.sh start
  fi
  export KGMEM_LLAMA_URL="http://127.0.0.1:${KGMEM_LLAMA_PORT:-8091}/v1"
fi
export KGMEM_NEO4J_URI=${KGMEM_NEO4J_URI:-bolt://127.0.0.1:7687}
.venv/bin/python -m pytest "$@"
