"""Follow benchmark (a script, not a test): prints figures for following a file while it is written, offscreen.

    .venv/bin/python bench/bench_follow.py [--rate 5000] [--scenario 15-large-run] [--file some/events.ndjson]
                                           [--json]

- window: a writer thread appends the run's lines at `--rate` events per second in 20 ms batches (5 ms for a
  small run; each cut mid-line once) while the window follows the file, as the app does: the engine process
  reads, parses and grows the run (engine/follow.py) and sends the window each growth; for every batch, the time
  from its last line landing on disk to the window showing a run that holds it (latency: the session has the moment,
  the chat bubble, status bar and timeline show it; the graph follows within about 250 ms, app/loading/growth.py),
  how long each growth took to show (FollowController.publish), and the longest UI stall (the longest gap
  between ticks of a 5 ms timer). Target: keeps up with 5,000 events/s with <= 100 ms latency. It also says
  whether the window's process imported the follower or the run grower (it must not);
- --json: the window's figures only, one JSON line per run and rate (perf_table.py reads the last);
- core throughput (afterwards, in this process): FileFollower + parse + RunGrower.feed over the run's NDJSON, in
  events per second (the whole file at once, and in 100-line batches with a snapshot after each, as the engine
  does).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.corpus_util import read_bytes  # noqa: E402

FOLLOW_MODULES = ("afp_desktop.core.formats.follow", "afp_desktop.core.formats.live_run")


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


def core_throughput(data: bytes, tmp: Path) -> None:
    from afp_desktop.core.formats.follow import FileFollower, parse_lines
    from afp_desktop.core.formats.live_run import RunGrower

    path = tmp / "whole.ndjson"
    path.write_bytes(data)
    count = data.count(b"\n")
    start = time.perf_counter()
    follower = FileFollower(path)
    update = follower.poll()
    read = list(update.lines)
    while update.more:  # (one poll reads at most READ_PER_POLL bytes)
        update = follower.poll()
        read += update.lines
    events, _ = parse_lines(read)
    grower = RunGrower(str(path))
    grower.feed(events)
    grower.snapshot()
    whole = time.perf_counter() - start
    follower.close()
    lines = data.split(b"\n")
    batched = tmp / "batched.ndjson"
    batched.write_bytes(b"")
    follower, grower = FileFollower(batched), RunGrower(str(batched))
    follower.poll()
    spent = 0.0
    for i in range(0, len(lines), 100):
        with open(batched, "ab") as handle:
            handle.write(b"\n".join(lines[i:i + 100]) + b"\n")
        t = time.perf_counter()
        events, _ = parse_lines(follower.poll().lines)
        grower.feed(events)
        grower.snapshot()
        spent += time.perf_counter() - t
    follower.close()
    print(f"core: {count:,} events read, parsed and projected")
    print(f"  whole file at once        {ms(whole)}  = {count / whole:,.0f} events/s")
    print(f"  100-line batches + snapshot {ms(spent)}  = {count / spent:,.0f} events/s")


def window_latency(data: bytes, rate: float, tmp: Path) -> dict:
    from PySide6.QtCore import QCoreApplication

    from afp_desktop.app.shell.gui import create_application
    from afp_desktop.app.shell.main_window import MainWindow

    app = create_application()
    os.environ["AFP_DESKTOP_CONFIG_DIR"] = str(tmp / "config")
    lines = [line + b"\n" for line in data.split(b"\n") if line.strip()]
    path = tmp / f"live-{int(rate)}.ndjson"
    path.write_bytes(lines[0])
    window = MainWindow(restore_layout=False)
    window.resize(1600, 1000)
    window.show()
    window.open_file(path, follow=True)
    while not window.follow.active or window.session.run is None or not window.timeline.built:
        app.processEvents()
        time.sleep(0.005)
    settle = time.monotonic() + 0.5  # the window's start-up (the timeline's plots) is not what is measured
    while time.monotonic() < settle:
        app.processEvents()
        time.sleep(0.005)
    # The sink flushes every so often: 20 ms batches; a small run (a few dozen events, 17 ms at 5,000/s)
    # in 5 ms batches, so it takes several growths too.
    every = 0.02 if len(lines) >= 1000 else 0.005
    batch = max(1, int(rate * every))
    landed: list[tuple[int, float]] = []  # (lines on disk, when the batch's last line landed)
    shown: list[tuple[int, float]] = []
    redraws: list[float] = []
    window.follow.published.connect(lambda run: (shown.append((len(run.typed_events), time.monotonic())),
                                                 redraws.append(window.follow.last_publish_s)))

    def write() -> None:
        written = 1
        next_at = time.monotonic()
        while written < len(lines):
            chunk = b"".join(lines[written:written + batch])
            cut = len(chunk) // 2
            with open(path, "ab") as handle:  # the batch lands in two writes, cut mid-line
                handle.write(chunk[:cut])
                handle.flush()
                handle.write(chunk[cut:])
            written = min(len(lines), written + batch)
            landed.append((written, time.monotonic()))
            next_at += every
            time.sleep(max(0.0, next_at - time.monotonic()))

    from PySide6.QtCore import QTimer

    ticks: list[float] = []  # a 5 ms timer: the longest gap between its ticks is the longest UI stall
    ticker = QTimer()
    ticker.setInterval(5)
    ticker.timeout.connect(lambda: ticks.append(time.monotonic()))
    thread = threading.Thread(target=write)
    start = time.monotonic()
    ticker.start()
    thread.start()
    while thread.is_alive() or not shown or shown[-1][0] < len(lines):
        app.processEvents()
        QCoreApplication.sendPostedEvents()
        time.sleep(0.001)
        if time.monotonic() - start > 300:
            break
    thread.join()
    tail = time.monotonic() + 0.5  # the work that follows a growth (graph, panels: app/loading/growth.py) counts too
    while time.monotonic() < tail:
        app.processEvents()
        time.sleep(0.001)
    ticker.stop()
    gaps = sorted(b - a for a, b in zip(ticks, ticks[1:])) or [float("nan")]
    writing = landed[-1][1] - start
    caught_up = (shown[-1][1] - landed[-1][1]) if shown else float("nan")
    latencies = []
    for count, at in landed:
        seen = next((t for n, t in shown if n >= count), None)
        if seen is not None:
            latencies.append(seen - at)
    window.follow.stop()
    window.close()
    latencies.sort()
    p95 = latencies[int(len(latencies) * 0.95) - 1] if latencies else float("nan")
    print(f"window: {len(lines):,} events written at {rate:,.0f} events/s in {len(landed)} batches "
          f"({writing:.2f} s), {len(shown)} redraws")
    print(f"  line-to-window latency    median {ms(statistics.median(latencies))}   p95 {ms(p95)}   "
          f"max {ms(latencies[-1])}   ({'within' if p95 <= 0.1 else 'over'} the 100 ms target at p95)")
    print(f"  redraw (growth shown)     median {ms(statistics.median(redraws))}   max {ms(max(redraws))}")
    for job in window.follow.growth.jobs:
        if job.costs:
            print(f"  growth job {job.name:8s}      median {ms(statistics.median(job.costs))}   "
                  f"max {ms(max(job.costs))}   ({len(job.costs)} runs)")
    print(f"  UI stall (5 ms timer gap) median {ms(statistics.median(gaps))}   p99 {ms(gaps[int(len(gaps) * 0.99)])}"
          f"   longest {ms(gaps[-1])}")
    print(f"  shown the last event      {ms(caught_up)} after it landed "
          f"({'kept up' if caught_up <= 0.1 else 'fell behind'})")
    imported = [name for name in FOLLOW_MODULES if name in sys.modules]
    print(f"  window's process imported {', '.join(imported) or 'neither the follower nor the run grower'}")
    return {"p95_ms": p95 * 1000, "max_ms": latencies[-1] * 1000 if latencies else None,
            "longest_stall_ms": gaps[-1] * 1000, "caught_up_ms": caught_up * 1000}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rate", type=float, action="append", help="events per second (repeatable)")
    parser.add_argument("--scenario", action="append", help="corpus scenario(s) in tests/corpus (repeatable)")
    parser.add_argument("--file", action="append", help="an NDJSON run to write instead (repeatable)")
    parser.add_argument("--json", action="store_true", help="the window's figures as JSON lines, nothing else")
    args = parser.parse_args()
    runs = [(name, Path(name).read_bytes()) for name in args.file or []]
    if not runs or args.scenario:
        runs += [(scenario, read_bytes(scenario, "events.ndjson"))
                 for scenario in args.scenario or ["15-large-run", "04-tool-progress"]]
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        if args.json:
            for name, data in runs:
                for rate in args.rate or [5000]:
                    with contextlib.redirect_stdout(sys.stderr):
                        figures = window_latency(data, rate, tmp)
                    print(json.dumps({"file": name, "rate": rate, **figures}), flush=True)
            return
        for name, data in runs:
            print(f"== {name}")
            for rate in args.rate or [5000]:
                window_latency(data, rate, tmp)
        for name, data in runs:
            print(f"== {name}")
            core_throughput(data, tmp)


if __name__ == "__main__":
    main()
