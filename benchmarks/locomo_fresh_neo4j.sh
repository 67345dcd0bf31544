#!/usr/bin/env bash
# LoCoMo rankings of one conversation on a fresh private Neo4j server (issue 14's old-vs-new
# check on Neo4j). Neo4j's fulltext and vector indexes are server-wide, so an earlier
# conversation's (erased) rows can move near-ties until Lucene merges; a fresh server per run
# makes the comparison about the code only.
#
#   benchmarks/locomo_fresh_neo4j.sh CHECKOUT CONVERSATION OUT
#
# CHECKOUT: the kgmem checkout to run (its own code first on sys.path); the server and the
# python come from this checkout. The server home and ports: KGMEM_NEO4J_HOME (default
# /tmp/kgmem-neo4j-fresh), KGMEM_NEO4J_BOLT_PORT (7740), KGMEM_NEO4J_HTTP_PORT (7741); its data
# directory is deleted before each run.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
checkout=$(cd "$1" && pwd); conv=$2; out=$3
export KGMEM_NEO4J_HOME=${KGMEM_NEO4J_HOME:-/tmp/kgmem-neo4j-fresh}
export KGMEM_NEO4J_BOLT_PORT=${KGMEM_NEO4J_BOLT_PORT:-7740} KGMEM_NEO4J_HTTP_PORT=${KGMEM_NEO4J_HTTP_PORT:-7741}
export KGMEM_LLAMA=off
bash "$here/scripts/neo4j.sh" stop >/dev/null 2>&1 || true
bash "$here/scripts/neo4j.sh" clean-data >/dev/null 2>&1 || true
bash "$here/scripts/neo4j.sh" start >/dev/null
export KGMEM_NEO4J_URI="bolt://127.0.0.1:$KGMEM_NEO4J_BOLT_PORT"
mkdir -p "$out"
cd "$checkout" && PYTHONPATH="$checkout" "$here/.venv/bin/python" -m benchmarks locomo \
  --conversations "$conv" --systems kgmem --evidence original --store neo4j --no-cache --out "$out"
