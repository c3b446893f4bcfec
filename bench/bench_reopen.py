"""Resident memory of one window opening the same file again and again (as Reload does), then closing it.

    .venv/bin/python bench/bench_reopen.py FILE [TIMES]

Prints the memory after each open and after the run is closed (and freed beside the window). Memory should level
off after the second open: what a load leaves behind is never collected (engine/collector.py freezes it), so a leak here
grows with every open. Before 2026-12-02 reopening the 448 MB corpus recording four times took the window from
1.05 to 2.43 GB (a cycle in the layout kept every run); now it stays at ~1.06 GB.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from afp_desktop.app.shell.gui import create_application  # noqa: E402
from afp_desktop.app.shell.main_window import MainWindow  # noqa: E402

SETTLE_S = 2.0  # after each open: the graph built, the run replaced freed beside the window


def resident_mb() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) // 1024
    return 0


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    path, times = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 4
    app = create_application()
    window = MainWindow(restore_layout=False)
    window.resize(1400, 900)
    window.show()
    loaded: list = []
    window.loader.loaded.connect(lambda _run: loaded.append(1))

    def pump(seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            app.processEvents()
            time.sleep(0.005)

    pump(0.5)
    empty = resident_mb()
    print(f"empty window: {empty} MB")
    after: list[int] = []
    for number in range(1, times + 1):
        loaded.clear()
        started = time.monotonic()
        window.open_file(path)
        while not loaded:
            app.processEvents()
            time.sleep(0.002)
        took = time.monotonic() - started
        pump(SETTLE_S)
        after.append(resident_mb())
        print(f"open {number}: {after[-1]} MB (+{after[-1] - empty} MB above the empty window; loaded in {took:.1f} s)")
    window.close_run()
    pump(6.0)
    closed = resident_mb()
    print(f"closed (6 s later): {closed} MB (+{closed - empty} MB)")
    if len(after) >= 3:
        growth = (after[-1] - after[1]) / (len(after) - 2)
        print(f"growth per open after the second: {growth:+.0f} MB ({growth / max(after[1] - empty, 1):+.0%} of one run)")
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
