"""Time the step-graph layout and export (a script, not a test).

    .venv/bin/python bench/bench_layout.py [runs]

Prints the median of several runs: layout of the 15-large-run corpus graph and of a synthetic 10k-node graph,
then PNG and SVG export of the large run.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from afp_desktop.app.export.export import ensure_qt_app, export_graph  # noqa: E402
from afp_desktop.core.model.layout import layout_step_graph  # noqa: E402
from afp_desktop.core.views.synthetic import synthetic_step_graph  # noqa: E402
from tests.corpus_util import load_json  # noqa: E402


def median_ms(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main(runs: int = 7) -> None:
    large = load_json("15-large-run", "ref.stepgraph.json")
    synthetic = synthetic_step_graph(1430, 3)
    for name, graph in (("15-large-run", large), ("synthetic", synthetic)):
        ms = median_ms(lambda: layout_step_graph(graph), runs)
        print(f"layout {name} ({len(graph['nodes'])} nodes): {ms:7.1f} ms")
    ensure_qt_app()
    layout = layout_step_graph(large)
    with tempfile.TemporaryDirectory() as folder:
        for suffix in ("png", "svg"):
            out = Path(folder) / f"large.{suffix}"
            ms = median_ms(lambda: export_graph(large, out, layout=layout), max(3, runs // 2))
            print(f"export 15-large-run {suffix.upper()} ({layout.width:.0f}×{layout.height:.0f} px, "
                  f"{out.stat().st_size / 1e6:.1f} MB): {ms:7.1f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
