#!/usr/bin/env bash
# Build the one-folder bundle dist/afp-desktop/ with PyInstaller (installed into .venv if missing), then print
# its size and how long the build took.   Usage: bash packaging/build.sh
#   DIST_DIR=… WORK_DIR=… bash packaging/build.sh   build elsewhere than dist/ and build/pyinstaller (the tests build
#                                                  in a folder of their own)
set -euo pipefail
cd "$(dirname "$0")/.."

PY="${PYTHON:-.venv/bin/python}"
if [ ! -x "$PY" ]; then
  echo "build: $PY not found; running scripts/setup.sh first"
  bash scripts/setup.sh
  PY=.venv/bin/python
fi
if ! "$PY" -c "import PyInstaller" 2>/dev/null; then
  echo "build: installing PyInstaller into the venv"
  mapfile -t PACKAGE_EXTRA < <("$PY" -c 'import tomllib
print(*tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["package"], sep="\n")')
  "$PY" -m pip install -q "${PACKAGE_EXTRA[@]}"  # (the pyproject's `package` extra)
fi

start=$(date +%s)
# --clean: no stale analysis cache from an earlier build, so the bundle always matches the checkout.
DIST_DIR="${DIST_DIR:-dist}"
WORK_DIR="${WORK_DIR:-build/pyinstaller}"
"$PY" -m PyInstaller --noconfirm --clean --log-level WARN \
  --distpath "$DIST_DIR" --workpath "$WORK_DIR" packaging/afp-desktop.spec
elapsed=$(( $(date +%s) - start ))

size=$(du -sh "$DIST_DIR/afp-desktop" | cut -f1)
echo "build: $DIST_DIR/afp-desktop/afp-desktop built in ${elapsed} s; bundle size ${size}"
