#!/usr/bin/env bash
# Install everything the tests need (system libraries, fonts, .venv) and run the whole suite, on as many workers as
# the machine has cores, at most 4 (pytest-xdist: each worker is a whole app's memory). Extra arguments go to
# pytest, e.g.
#   bash scripts/test.sh -k timeline     some tests
#   bash scripts/test.sh -n 0 --pdb      in one process (a debugger, or output in order)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export QT_QPA_PLATFORM=offscreen
exec .venv/bin/python -m pytest -n auto --maxprocesses 4 "$@"
