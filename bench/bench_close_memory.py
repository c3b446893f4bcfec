"""Memory given back when a run is closed (a script, not a test): the window's process and its engine processes.

    .venv/bin/python bench/bench_close_memory.py FILE

Opens FILE in a window (offscreen) loading through the engine process as the app does, waits until the whole run is
shown, closes it, and prints the window process's resident memory before opening, while shown and five seconds
after closing, and the resident memory of its engine processes while the run is shown and after it is closed (the
engine holding the run ends; a fresh one waits for the next open). Target: after closing a 1.4 GB recording the
window's process is within 100 MB of where it was before opening it, and the engine's memory is gone.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QEventLoop  # noqa: E402

from afp_desktop.app.shell.gui import create_application  # noqa: E402
from afp_desktop.app.shell.main_window import MainWindow  # noqa: E402

TARGET_MB = 100


def resident_mb(pid: int | str = "self") -> float:
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) / 1024


def engines_mb() -> float:
    """Resident memory of this process's engine processes (its children started by multiprocessing)."""
    total = 0.0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/status") as status:
                parent = next(int(line.split()[1]) for line in status if line.startswith("PPid:"))
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                spawned = b"spawn_main" in cmdline.read()
            if parent == os.getpid() and spawned:
                total += resident_mb(pid)
        except (OSError, StopIteration):
            continue
    return total


def main() -> None:
    path = sys.argv[1]
    app = create_application()
    window = MainWindow(restore_layout=False)
    window.resize(1600, 1000)
    window.show()

    def spin(seconds: float, until=lambda: False) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end and not until():
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
            time.sleep(0.005)

    spin(10, lambda: getattr(window.timeline, "built", False))
    spin(1)
    before = resident_mb()
    window.open_file(path)
    spin(1800, lambda: window.session.run is not None and not window.loader.busy
         and not window.session.run.still_reading)
    spin(2)
    shown, engines_shown = resident_mb(), engines_mb()
    window.close_run()
    spin(5)
    after, engines_after = resident_mb(), engines_mb()
    print(f"{Path(path).name} ({os.path.getsize(path) / 1e6:,.0f} MB)")
    print(f"  window process   before {before:6.0f} MB   shown {shown:6.0f} MB (+{shown - before:.0f})   "
          f"after closing {after:6.0f} MB (+{after - before:.0f}: "
          f"{'within' if after - before <= TARGET_MB else 'over'} the {TARGET_MB} MB target)")
    print(f"  engine processes shown {engines_shown:6.0f} MB   after closing {engines_after:6.0f} MB (a fresh one, "
          "waiting for the next open)")
    window.close()


if __name__ == "__main__":
    main()
