#!/usr/bin/env bash
# Prepare a fresh Debian/Ubuntu machine: the system libraries Qt needs, a font, and a virtual
# environment in .venv with afp-desktop installed in editable mode. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(gcc libc6-dev libegl1 libgl1 libfontconfig1 libglib2.0-0 libxkbcommon0 libdbus-1-3 fonts-dejavu-core
  xvfb xauth libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-render-util0
  libxcb-shape0 libxcb-xkb1 libxkbcommon-x11-0 libxcb-randr0 libxcb-xinerama0 libxcb-xfixes0)

missing_apt() {
  local pkg
  for pkg in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || echo "$pkg"
  done
}

if command -v dpkg-query >/dev/null 2>&1; then
  mapfile -t MISSING < <(missing_apt)
  if [ "${#MISSING[@]}" -gt 0 ]; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    echo "setup: installing system libraries: ${MISSING[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${MISSING[@]}" >/dev/null
  fi
fi

PYTHON="${PYTHON:-python3}"
"$PYTHON" - <<'PY'
import sys
if sys.version_info < (3, 11):
    sys.exit(f"setup: afp-desktop needs Python 3.11 or newer, found {sys.version.split()[0]}")
PY

if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv with $("$PYTHON" --version)"
  "$PYTHON" -m venv .venv
fi
STAMP=.venv/.afp-installed
stale() {  # the install is older than what it was made from (the C parts included: setup.py builds them)
  local made_from
  [ -f "$STAMP" ] || return 0
  for made_from in pyproject.toml setup.py afp_desktop/core/*/*.c; do
    [ "$made_from" -nt "$STAMP" ] && return 0
  done
  return 1
}
if stale; then
  echo "setup: installing afp-desktop and its dependencies into .venv (log: .venv/install.log)"
  if ! { .venv/bin/python -m pip install --upgrade pip && .venv/bin/python -m pip install -e ".[test,package]"; } \
      > .venv/install.log 2>&1; then
    tail -n 40 .venv/install.log
    echo "setup: installing the Python packages failed; the full log is .venv/install.log" >&2
    exit 1
  fi
  touch "$STAMP"
fi
