#!/usr/bin/env bash
# Install everything the tests need (system libraries, fonts, .venv) and run the whole suite.
# Extra arguments go to pytest, e.g.  bash scripts/test.sh -k timeline
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export QT_QPA_PLATFORM=offscreen
exec .venv/bin/python -m pytest "$@"
