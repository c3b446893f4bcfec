#!/usr/bin/env bash
# Prepare a fresh Debian/Ubuntu machine: the system libraries Qt needs, a font, a C compiler and Python's headers
# (for the optional C loops), and a virtual environment in .venv with afp-desktop installed in editable mode.
# Safe to run again: it installs again only what changed. Its last line says whether the C loops were built.
#
#   PYTHON=python3.12 bash scripts/setup.sh    the Python .venv is made with (default: python3, 3.11 or newer)
#   SKIP_APT=1 bash scripts/setup.sh           install no system packages (you manage your own): the script names
#                                              the ones it needs that are missing, and goes on
#   EXTRAS=test,package bash scripts/setup.sh  the extras installed (default: test; package adds PyInstaller, for
#                                              packaging/build.sh and the bundle's test)
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
EXTRAS="${EXTRAS:-test}"
"$PYTHON" - <<'PY'
import sys
if sys.version_info < (3, 11):
    sys.exit(f"setup: afp-desktop needs Python 3.11 or newer, found {sys.version.split()[0]}")
PY

# Python's headers, which the C loops are compiled against: the -dev package of the Python used, when missing.
HEADERS_PACKAGE="$("$PYTHON" -c 'import sys; print(f"python{sys.version_info[0]}.{sys.version_info[1]}-dev")')"
has_headers() {
  "$PYTHON" -c 'import pathlib, sys, sysconfig; sys.exit(not (pathlib.Path(sysconfig.get_paths()["include"]) / "Python.h").is_file())'
}
has_compiler() { command -v gcc >/dev/null 2>&1 || command -v cc >/dev/null 2>&1; }

APT_PACKAGES=(gcc libc6-dev libegl1 libgl1 libfontconfig1 libglib2.0-0 libxkbcommon0 libdbus-1-3 fonts-dejavu-core
  xvfb xauth libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-render-util0
  libxcb-shape0 libxcb-xkb1 libxkbcommon-x11-0 libxcb-randr0 libxcb-xinerama0 libxcb-xfixes0)
has_headers || APT_PACKAGES+=("$HEADERS_PACKAGE")

missing_apt() {
  local pkg
  for pkg in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || echo "$pkg"
  done
}

if command -v dpkg-query >/dev/null 2>&1; then
  mapfile -t MISSING < <(missing_apt)
  if [ "${#MISSING[@]}" -gt 0 ] && [ "${SKIP_APT:-0}" = 1 ]; then
    echo "setup: SKIP_APT=1, so not installing these system packages it needs: ${MISSING[*]}"
  elif [ "${#MISSING[@]}" -gt 0 ]; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    echo "setup: installing system packages: ${MISSING[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${MISSING[@]}" >/dev/null
  fi
fi

if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv with $("$PYTHON" --version)"
  "$PYTHON" -m venv .venv
fi

c_loops() {  # one line: "C loops built: 3 of 3", or how many and which are not (afp_desktop/core/compiled.py)
  .venv/bin/python -W ignore -m afp_desktop.core.compiled 2>/dev/null || echo "C loops built: unknown (afp-desktop is not installed)"
}
all_built() { [[ "$1" =~ ^"C loops built: "([0-9]+)" of "([0-9]+)$ ]] && [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]; }

STAMP=.venv/.afp-installed  # holds the extras installed
stale() {  # the install is older than what it was made from (the C loops included: setup.py builds them)
  local made_from
  [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$EXTRAS" ] || return 0
  for made_from in pyproject.toml setup.py afp_desktop/core/*/*_c.c; do
    [ "$made_from" -nt "$STAMP" ] && return 0
  done
  # C loops missing or built from an older source, and now they can be built (headers or a compiler added since)
  ! all_built "$(c_loops)" && has_compiler && has_headers && return 0
  return 1
}
if stale; then
  echo "setup: installing afp-desktop[$EXTRAS] and its dependencies into .venv (log: .venv/install.log)"
  # The C loops are built afresh, in place: a module left from an older source would not be rebuilt when it is
  # newer than its source, and would be refused at import (core/compiled.py).
  EXT_SUFFIX="$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')"
  rm -f afp_desktop/core/*/*_c"$EXT_SUFFIX"
  if ! { .venv/bin/python -m pip install --upgrade pip && .venv/bin/python -m pip install -e ".[$EXTRAS]"; } \
      > .venv/install.log 2>&1; then
    tail -n 40 .venv/install.log
    echo "setup: installing the Python packages failed; the full log is .venv/install.log" >&2
    exit 1
  fi
  echo "$EXTRAS" > "$STAMP"
fi

LOOPS="$(c_loops)"
if all_built "$LOOPS"; then
  echo "setup: $LOOPS"
else
  if ! has_compiler; then why="no C compiler (gcc)"
  elif ! has_headers; then why="Python's headers are missing ($HEADERS_PACKAGE)"
  else why="their build failed (.venv/install.log)"
  fi
  echo "setup: $LOOPS: $why; the Python loops do their work, slower"
fi
