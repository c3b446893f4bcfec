"""Window benchmark (a script, not a test): prints figures for the large corpus run, offscreen.

    .venv/bin/python bench/bench_window.py

- open-to-first-frame: from `open_run` of recording.json to the first painted window with the run shown;
- layout of the large run's graph and of a synthetic 10,000-node graph;
- moving the cursor by one stop on the large run, moves back to back as when a key is held: graph, timeline
  and chat bubble redraw on every move, the inspector once the scrub settles (80 ms); target < 16 ms median;
- a single move after a pause (every panel, the inspector included, redraws at once);
- export of the large run's graph to PNG and SVG.
"""

from __future__ import annotations

import lzma
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from afp_desktop.app.shell.gui import create_application  # noqa: E402

from afp_desktop.app.export.export import export_graph  # noqa: E402
from afp_desktop.engine.service import load_run  # noqa: E402
from afp_desktop.app.shell.main_window import MainWindow  # noqa: E402
from afp_desktop.app.panels.graph.graph_canvas import GraphCanvas  # noqa: E402
from afp_desktop.core.model.layout import layout_step_graph  # noqa: E402
from afp_desktop.core.views.synthetic import synthetic_step_graph  # noqa: E402

LARGE = ROOT / "tests" / "corpus" / "15-large-run"


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


def main() -> None:
    app = create_application()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        os.environ["AFP_DESKTOP_CONFIG_DIR"] = str(tmp / "config")
        recording = tmp / "recording.json"
        recording.write_bytes(lzma.open(LARGE / "recording.json.xz").read())

        window = MainWindow(restore_layout=False)
        window.resize(1600, 1000)
        window.show()
        app.processEvents()
        start = time.perf_counter()
        run = load_run(str(recording))  # what the loader thread does: parse + every projection
        loaded = time.perf_counter()
        window.session.set_run(run)
        window.grab()  # forces a full paint of the window
        first_frame = time.perf_counter()
        print(f"large run: {len(run.stepgraph['nodes']):,} steps, {len(run.stops):,} stops, "
              f"{len(run.axis):,} events on the axis")
        print(f"  open-to-first-frame            {ms(first_frame - start)}  (load {ms(loaded - start).strip()}, "
              f"window {ms(first_frame - loaded).strip()})")

        def best_of(fn, n=5):
            samples = []
            for _ in range(n):
                t = time.perf_counter()
                fn()
                samples.append(time.perf_counter() - t)
            return statistics.median(samples)

        print(f"  layout, large run              {ms(best_of(lambda: layout_step_graph(run.stepgraph)))}")
        synthetic = synthetic_step_graph(1430, 3)
        print(f"  layout, synthetic {len(synthetic['nodes']):,} nodes   "
              f"{ms(best_of(lambda: layout_step_graph(synthetic), 3))}")

        canvas = GraphCanvas()
        canvas.resize(1200, 800)
        canvas.show()
        canvas.set_graph(synthetic)
        for _ in range(3):
            app.processEvents()
        for label, zoom in (("100 %", canvas.reset_zoom), ("fit (overview)", canvas.fit_to_window)):
            zoom()
            app.processEvents()
            repaint = best_of(canvas.viewport().repaint, 9)
            print(f"  canvas repaint, 10k nodes, {label:15s} {ms(repaint)}")
        canvas.close()

        session = window.session
        session.move_to_stop(0)
        session.flush()
        app.processEvents()
        samples = []
        for _ in range(200):
            t = time.perf_counter()
            session.next_stop()
            session.flush()  # publish: every panel follows the cursor
            app.processEvents()  # and repaints
            samples.append(time.perf_counter() - t)
        samples.sort()
        print(f"  cursor +1 stop (200 moves)     median {ms(statistics.median(samples)).strip()}, "
              f"p95 {ms(samples[int(len(samples) * 0.95)]).strip()}, worst {ms(samples[-1]).strip()} "
              f"(target: median < 16 ms)")

        single = []
        for _ in range(40):
            time.sleep(0.1)  # a pause: the next move is a single step, not a scrub
            t = time.perf_counter()
            session.next_stop()
            session.flush()
            app.processEvents()
            single.append(time.perf_counter() - t)
        print(f"  single move after a pause (40)  median {ms(statistics.median(single)).strip()}, "
              f"worst {ms(max(single)).strip()} (all panels, the inspector included)")

        # Fast scrubbing: 500 moves requested inside one event-loop turn publish once.
        published = []
        session.moment_changed.connect(published.append)
        t = time.perf_counter()
        for p in range(0, 500):
            session.move_to(p * 20)
        app.processEvents()
        print(f"  500 moves in one turn          {ms(time.perf_counter() - t)}, views published: {len(published)}")

        for suffix in ("png", "svg"):
            t = time.perf_counter()
            export_graph(run.stepgraph, tmp / f"graph.{suffix}")
            print(f"  export {suffix.upper()}, large run         {ms(time.perf_counter() - t)}  "
                  f"({(tmp / f'graph.{suffix}').stat().st_size / 1e6:.1f} MB)")
        window.close()


if __name__ == "__main__":
    main()
