#!/usr/bin/env bash
# One command for a newcomer: set up, then replay a conversation into the embedded store
# and show "now", "as of" and "as known on" answers.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/kgmem demo "$@"
