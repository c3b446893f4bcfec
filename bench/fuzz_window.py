"""The window fuzz of tests/test_window_fuzz.py, run much longer (random, not derandomized): hostile documents
opened in a real offscreen window, the cursor through every stop, no exception may reach a Qt slot. Prints each
format's count and time; stops at the first failure with Hypothesis' shrunk example (its file is kept).

    .venv/bin/python bench/fuzz_window.py [EXAMPLES_PER_FORMAT] [SCENARIO] [FORMAT ...]
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
import traceback

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("AFP_DESKTOP_CONFIG_DIR", tempfile.mkdtemp())

from hypothesis import HealthCheck, given, settings  # noqa: E402

from afp_desktop.app.shell.gui import create_application  # noqa: E402
from afp_desktop.app.shell.main_window import MainWindow  # noqa: E402
from tests.fuzz_cases import hostile_documents  # noqa: E402
from tests.hostile_inputs import FORMATS  # noqa: E402
from tests.test_window_fuzz import hostile_file_in_the_window  # noqa: E402


def main() -> int:
    examples = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    scenario = sys.argv[2] if len(sys.argv) > 2 else "04-tool-progress"
    formats = sys.argv[3:] or list(FORMATS)
    app = create_application()
    window = MainWindow(restore_layout=False)
    window.resize(1400, 900)
    window.show()
    caught: list[str] = []
    sys.excepthook = lambda kind, value, tb: caught.append("".join(traceback.format_exception(kind, value, tb)))
    folder = tempfile.mkdtemp(prefix="afp-window-fuzz-")
    for fmt in formats:
        started = time.perf_counter()

        @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        @given(hostile_documents(fmt, scenario))
        def run(case):
            hostile_file_in_the_window(window, app, folder, case, caught)

        try:
            run()
        except Exception as failure:  # (Hypothesis may end with another kind: Flaky, a health check…)
            sys.excepthook = sys.__excepthook__  # (ours keeps what slots raise, and would swallow this too)
            print(f"{fmt}: FAILED (the last case is in {folder})\n{type(failure).__name__}: {failure}", flush=True)
            return 1
        print(f"{fmt:15} {examples:6,} examples  {time.perf_counter() - started:7.1f} s  ok", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
