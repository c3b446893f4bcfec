#!/usr/bin/env bash
# Set up (first time only) and open the window on a bundled sample trace.
# Without a display, it renders the window to a PNG instead and says how to look at runs headless.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
SAMPLE="sample_traces/tool-progress.recording.json"
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
  exec .venv/bin/afp-desktop "$SAMPLE" "$@"
fi
mkdir -p out
.venv/bin/afp-desktop "$SAMPLE" --screenshot out/window.png --stop 14
cat <<MSG

There is no display here (DISPLAY is not set), so instead of a window afp-desktop rendered one:
  out/window.png        the main window on $SAMPLE at stop 14 ("Tool call 2": the lines the user saw during it)
To look at runs without a display:
  .venv/bin/afp-desktop FILE --screenshot OUT.png [--stop N]
  .venv/bin/afp-desktop export FILE -o graph.svg        (or .png, --stop N, --scale S)
  .venv/bin/afp-desktop info FILE
Or open the real window on a virtual display:  xvfb-run -a .venv/bin/afp-desktop $SAMPLE
MSG
