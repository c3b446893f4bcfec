#!/usr/bin/env bash
# Build the one-folder bundle dist/afp-desktop/ with PyInstaller (installed into .venv if missing), then print
# its size and how long the build took.   Usage: bash packaging/build.sh
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
"$PY" -m PyInstaller --noconfirm --clean --log-level WARN \
  --distpath dist --workpath build/pyinstaller packaging/afp-desktop.spec
elapsed=$(( $(date +%s) - start ))

size=$(du -sh dist/afp-desktop | cut -f1)
echo "build: dist/afp-desktop/afp-desktop built in ${elapsed} s; bundle size ${size}"
