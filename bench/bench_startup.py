"""Start-up benchmark (a script, not a test): from the command to the first shown frame, for a tiny file.

    .venv/bin/python bench/bench_startup.py [FILE] [--runs N]

Each run starts a fresh `python -m afp_desktop FILE` (offscreen unless QT_QPA_PLATFORM says otherwise) with a
small driver that notes, on the system-wide monotonic clock, when the window first paints and when it first
paints with the run shown, and, with a 5 ms timer on the window's thread from the first frame on, the longest
stall until a second after the timeline's plots are ready (measure on a busy machine: `yes > /dev/null &` on
one core), then quits. The parent notes the clock just before starting the process, so the
figures include the interpreter's own start-up. Prints every run and the medians, plus the slowest imports
of one `python -X importtime` run of the same command.

`--against DIR` also measures another checkout (its afp_desktop imported from DIR), run for run alternately with
this one, so a busy machine slows both alike and the ratio stays meaningful.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_FILE = ROOT / "sample_traces" / "react-two-tools.trace.json"
TARGET_S = 1.0

STALL_TARGET_MS = 50
STALL_TICK_MS = 5  # the UI-thread timer that measures stalls from the first frame on
SETTLE_MS = 1000    # stalls are measured until this long after the timeline's plots are ready

# Runs inside the child: wraps gui.create_application so the first paints are noted, then runs the real CLI.
DRIVER = r"""
import os, sys, time
STALL_TICK_MS, SETTLE_MS = %d, %d
UNTIL_WHOLE = os.environ.get("AFP_STARTUP_UNTIL_WHOLE") == "1"  # wait for the whole run too, not only the timeline
GIVE_UP_MS = int(float(os.environ.get("AFP_STARTUP_GIVE_UP_S", "60")) * 1000)  # the window quits after this long
from afp_desktop.app.shell import gui

_make = gui.create_application

def create_application():
    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QApplication
    app = _make()

    class Watch(QObject):
        first = None
        gaps = []
        def tick(self):
            now, work = time.monotonic(), time.thread_time()
            Watch.gaps.append(((now - self.last) * 1000 - STALL_TICK_MS, (work - self.work) * 1000))
            self.last, self.work = now, work
        def eventFilter(self, obj, event):
            if event.type() == QEvent.Type.Paint and obj.isWidgetType() and obj.window().isWindow() \
                    and type(obj.window()).__name__ == "MainWindow":
                now = time.monotonic()
                if Watch.first is None:
                    Watch.first = now
                    print(f"first-frame {now!r}", flush=True)
                    self.last, self.work = now, time.thread_time()  # from the first frame on, a tick every STALL_TICK_MS: a longer gap is a stall
                    self.ticks = QTimer(interval=STALL_TICK_MS, timeout=self.tick)
                    self.ticks.start()
                window = obj.window()
                if window.session.run is not None:
                    print(f"run-shown {now!r}", flush=True)
                    app.removeEventFilter(self)
                    self.window = window
                    QTimer.singleShot(0, self.wait_for_timeline)
            return False

        def wait_for_timeline(self):
            whole = not UNTIL_WHOLE or not self.window.loader.busy
            if whole and getattr(self.window.timeline, "built", True):  # the plots are built after the first frame
                print(f"timeline-ready {time.monotonic()!r}", flush=True)
                QTimer.singleShot(SETTLE_MS, self.done)
            else:
                QTimer.singleShot(5, self.wait_for_timeline)

        def done(self):
            self.tick()
            stall, work = max(Watch.gaps)
            print(f"longest-stall {stall!r}", flush=True)
            print(f"its-work {work!r}", flush=True)
            app.quit()

    app._startup_watch = Watch()
    app.installEventFilter(app._startup_watch)
    QTimer.singleShot(GIVE_UP_MS, app.quit)
    return app

gui.create_application = create_application
from afp_desktop.cli import main
sys.argv = ["afp-desktop", *sys.argv[1:]]
main()
""" % (STALL_TICK_MS, SETTLE_MS)


def one_run(file: Path, checkout: Path = ROOT, until_whole: bool = False, timeout: float = 90) -> tuple[
        float, float | None, float | None, float | None, float | None]:
    """(first frame, run shown, timeline plots ready) in seconds after the command, the longest stall of the
    window's thread from the first frame until SETTLE_MS after the plots are ready (`until_whole`: and the whole
    run read), in ms, and the processor time the window's thread worked in it, in ms (the rest it waited: for a
    processor, or for Python's lock). `timeout`: seconds the whole process may take."""
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen"),
           "AFP_DESKTOP_CONFIG_DIR": str(ROOT / "bench" / ".startup-config"),
           "AFP_STARTUP_UNTIL_WHOLE": "1" if until_whole else "0",
           "AFP_STARTUP_GIVE_UP_S": str(max(1.0, timeout - 30))}  # (its window gives up before the process is killed)
    start = time.monotonic()
    out = subprocess.run([sys.executable, "-c", DRIVER, str(file)], env=env, capture_output=True, text=True,
                         timeout=timeout, cwd=checkout).stdout  # `-c` imports afp_desktop from the working folder
    marks = dict(line.split(" ", 1) for line in out.splitlines() if line.startswith(("first-frame", "run-shown", "timeline-ready", "longest-stall", "its-work")))
    if "first-frame" not in marks:
        raise SystemExit(f"the window never painted; output:\n{out}")
    shown = float(marks["run-shown"]) - start if "run-shown" in marks else None
    ready = float(marks["timeline-ready"]) - start if "timeline-ready" in marks else None
    stall = float(marks["longest-stall"]) if "longest-stall" in marks else None
    work = float(marks["its-work"]) if "its-work" in marks else None
    return float(marks["first-frame"]) - start, shown, ready, stall, work


def slowest_imports(file: Path, count: int = 12) -> list[tuple[int, str]]:
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen"),
           "AFP_DESKTOP_CONFIG_DIR": str(ROOT / "bench" / ".startup-config")}
    err = subprocess.run([sys.executable, "-X", "importtime", "-c", DRIVER, str(file)], env=env,
                         capture_output=True, text=True, timeout=60, cwd=ROOT).stderr
    rows = []
    for line in err.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _self, cumulative, name = (part.strip() for part in line[len("import time:"):].split("|"))
        rows.append((int(cumulative), name))
    top = [row for row in rows if row[1] in {"PySide6.QtWidgets", "PySide6.QtGui", "PySide6.QtCore", "pyqtgraph",
                                             "numpy", "afp_desktop.app.shell.main_window", "afp_desktop.app.shell.gui",
                                             "afp_desktop.app.panels.timeline.timeline", "afp_desktop.app.panels.inspector",
                                             "afp_desktop.app.panels.graph.graph_canvas", "afp_desktop.cli",
                                             "afp_desktop.app.panels.chat_bubble",
                                             "afp_desktop.app.panels.template_editor", "orjson"}]
    return sorted(top, reverse=True)[:count]


def _ms(seconds: float | None) -> str:
    return "—" if seconds is None else f"{seconds * 1000:6.0f} ms"


def runs_and_against(args: list[str]) -> tuple[int, Path | None]:
    """`--runs N` (5) and `--against CHECKOUT` (None), taken out of `args`."""
    runs, against = 5, None
    if "--runs" in args:
        i = args.index("--runs")
        runs = int(args[i + 1])
        del args[i:i + 2]
    if "--against" in args:
        i = args.index("--against")
        against = Path(args[i + 1]).resolve()
        del args[i:i + 2]
    return runs, against


def main() -> None:
    args = sys.argv[1:]
    runs, against = runs_and_against(args)
    file = Path(args[0]).resolve() if args else DEFAULT_FILE
    print(f"start-up of `afp-desktop {file.name}` ({file.stat().st_size:,} bytes), {runs} runs, "
          f"QT_QPA_PLATFORM={os.environ.get('QT_QPA_PLATFORM', 'offscreen')}")
    one_run(file)  # warm the disk cache and the bytecode
    firsts, shown, ready, stalls, works, other = [], [], [], [], [], []
    for i in range(runs):
        if against is not None:
            other.append(one_run(file, against))
        first, run_shown, timeline_ready, stall, work = one_run(file)
        stalls += [stall] if stall is not None else []
        works += [work] if work is not None else []
        firsts.append(first)
        shown += [run_shown] if run_shown is not None else []
        ready += [timeline_ready] if timeline_ready is not None else []
        print(f"  run {i + 1}: first frame {first * 1000:6.0f} ms   run shown {_ms(run_shown)}   "
              f"timeline plots ready {_ms(timeline_ready)}   longest stall from the first frame on "
              f"{_ms(None if stall is None else stall / 1000)} (at work {_ms(None if work is None else work / 1000)})")
    median = statistics.median(firsts)
    print(f"median: first frame {median * 1000:.0f} ms (target {TARGET_S * 1000:.0f} ms, ratio "
          f"{median / TARGET_S:.2f}); run shown {_ms(statistics.median(shown) if shown else None)}; "
          f"timeline plots ready {_ms(statistics.median(ready) if ready else None)}; longest stall from the first "
          f"frame on {_ms(statistics.median(stalls) / 1000 if stalls else None)} (target {STALL_TARGET_MS} ms; the "
          f"window's thread at work in it {_ms(statistics.median(works) / 1000 if works else None)})")
    if other:
        other_first = statistics.median(o[0] for o in other)
        other_shown = [o[1] for o in other if o[1] is not None]
        print(f"{against}: first frame {other_first * 1000:.0f} ms, run shown "
              f"{_ms(statistics.median(other_shown) if other_shown else None)}; this checkout's first frame takes "
              f"{median / other_first:.2f}× as long")
        other_stalls = [o[3] for o in other if o[3] is not None]
        other_works = [o[4] for o in other if o[4] is not None]
        print(f"{against}: longest stall from the first frame on, median "
              f"{_ms(statistics.median(other_stalls) / 1000 if other_stalls else None)} (at work "
              f"{_ms(statistics.median(other_works) / 1000 if other_works else None)}), each run "
              f"{[round(stall) for stall in other_stalls]}; this checkout's {[round(stall) for stall in stalls]}")
    print("imports (cumulative; the timeline is built after the first frame):")
    for micros, name in slowest_imports(file):
        print(f"  {micros / 1000:7.1f} ms  {name}")


if __name__ == "__main__":
    main()
