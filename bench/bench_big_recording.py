"""Opening a big recording: time and memory against a bare parse, each figure in a fresh process (a script, not a
test).

    .venv/bin/python bench/bench_big_recording.py [--long] [FILE ...]

Without FILE: the big corpus run's recording (1,000 iterations, 448 MB of JSON nested ~9,000 levels deep,
decompressed to a temporary folder); with --long also a 1,999-iteration one made from it by
bench/make_long_recording.py (~0.9 GB, ~18,000 levels).

The bare parse is the faster of the two full parses of such a file there are (orjson alone cannot take 9,000
levels): `jsonio.loads` — orjson piece by piece, 960 levels at a time (core/jsonx/deepjson.py) — and the standard
library's `json.loads` with a raised recursion limit on a large stack. They come within ~10% of each other, either
way round from one run to the next. Each figure includes reading the file. Peak resident memory is measured above the same process's baseline (imports
done). Targets from issue 11: opening a recording ≤ 2× a bare parse's time, and ≤ 3× its JSON text in memory.

- open (info): `open_run` and what `afp-desktop info` computes (StepGraph, stops, summary, status, payload check);
- open (window's loader): `open_run` and every projection the window's loader thread computes
  (`prepare_views`: layout, replay facts, drillable stops, …);
- the `afp-desktop info` process as a whole (wall clock and maximum resident set, interpreter start included).
"""

from __future__ import annotations

import json
import lzma
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIG = Path(os.environ.get("AFP_BIG_CORPUS", "/work/shared/corpus/big/react-1000"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_big_load import _COMMON as PROCESS_COMMON  # noqa: E402  (hwm, rss, path: each figure's process)

_COMMON = PROCESS_COMMON + r"""
import orjson, numpy
from afp_desktop.core.jsonx import jsonio, deepjson, jsonscan
from afp_desktop.core.formats import open_run
from afp_desktop.engine.collector import collector_paused as gc_paused
from afp_desktop.core.model.summary import summarize
from afp_desktop.core.views.prepared_views import prepare_views
base = rss()
t = time.perf_counter()
"""
_REPORT = r"""
print(json.dumps({'seconds': time.perf_counter() - t, 'peak': hwm() - base}))
"""

BARE = _COMMON + r"""
data = open(path, 'rb').read()
value = jsonio.loads(data)
""" + _REPORT

STDLIB = _COMMON + r"""
data = open(path, 'rb').read()
value = jsonio.run_deep(lambda: json.loads(data))
""" + _REPORT

INFO = _COMMON + r"""
with gc_paused():
    run = open_run(path)
    run.stepgraph, run.stops, run.status_states, run.payload_problems, summarize(run)
""" + _REPORT

WINDOW = _COMMON + r"""
with gc_paused():
    run = open_run(path)
    run.views = prepare_views(run)
""" + _REPORT


def measure(script: str, path: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT), AFP_DESKTOP_MAX_BYTES="4G")
    out = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, env=env,
                         timeout=1200)
    if out.returncode:
        raise RuntimeError(out.stderr[-2000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def cli_info(path: Path) -> tuple[float, int]:
    """Wall clock and maximum resident set of a whole `afp-desktop info` process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), AFP_DESKTOP_MAX_BYTES="4G")
    script = "import sys; from afp_desktop.cli import main; sys.exit(main(sys.argv[1:]))"
    t = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-c", script, "info", str(path)], env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - t
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise RuntimeError(f"afp-desktop info {path} failed ({child.returncode})")
    return seconds, usage.ru_maxrss * 1024


REFERENCE = r"""
import lzma, sys, orjson
from afp_desktop.core.formats import open_run
from afp_desktop.core.jsonx import jsonio
run = open_run(sys.argv[1])
print(orjson.loads(jsonio.dumps(run.stepgraph)) == orjson.loads(lzma.open(sys.argv[2]).read()))
"""


def same_stepgraph_as_the_library(path: Path) -> bool:
    """The StepGraph opened from the corpus recording equals the library's (ref.stepgraph.json.xz)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", REFERENCE, str(path), str(BIG / "ref.stepgraph.json.xz")],
                         capture_output=True, text=True, env=env, timeout=1200, check=True)
    return out.stdout.strip().splitlines()[-1] == "True"


def report(path: Path, reference: bool = False) -> None:
    size = path.stat().st_size
    print(f"{path.name}: {size / 1e6:,.0f} MB of JSON")
    bares = []
    for label, script in (("bare parse (jsonio.loads: orjson piecewise)", BARE),
                          ("bare parse (json.loads, deep stack)", STDLIB)):
        got = measure(script, path)
        bares.append(got)
        print(f"  {label:44} {got['seconds']:6.2f} s   peak +{got['peak'] / 1e6:6,.0f} MB "
              f"({got['peak'] / size:.1f}× the text)")
    bare = min(bares, key=lambda got: got["seconds"])  # the baseline: the faster of the two, this time
    for label, script in (("open (info's projections)", INFO), ("open (window's loader)", WINDOW)):
        got = measure(script, path)
        ratio, memory = got["seconds"] / bare["seconds"], got["peak"] / size
        print(f"  {label:44} {got['seconds']:6.2f} s   peak +{got['peak'] / 1e6:6,.0f} MB")
        print(f"      time   {ratio:4.2f}× the bare parse   target ≤ 2×   {'MET' if ratio <= 2 else 'NOT MET'}")
        print(f"      memory {memory:4.2f}× the JSON text    target ≤ 3×   {'MET' if memory <= 3 else 'NOT MET'}")
    seconds, peak = cli_info(path)
    print(f"  `afp-desktop info` process                   {seconds:6.2f} s   max resident {peak / 1e6:6,.0f} MB "
          "(interpreter included)")
    if reference:
        print(f"  StepGraph equals the library's ref.stepgraph.json: {same_stepgraph_as_the_library(path)}")


def main() -> None:
    args = sys.argv[1:]
    long = "--long" in args
    files = [Path(a) for a in args if not a.startswith("--")]
    corpus = None  # the corpus recording: its StepGraph is checked against the library's
    with tempfile.TemporaryDirectory() as tmp_name:
        if not files:
            target = Path(tmp_name) / "recording.json"
            with lzma.open(BIG / "recording.json.xz") as source, open(target, "wb") as out:
                while chunk := source.read(1 << 22):
                    out.write(chunk)
            files.append(target)
            corpus = target
            if long:
                longer = Path(tmp_name) / "recording-2000.json"
                subprocess.run([sys.executable, str(ROOT / "bench" / "make_long_recording.py"), str(target),
                                str(longer)], check=True, stdout=subprocess.DEVNULL)
                files.append(longer)
        for path in files:
            report(path, reference=path == corpus)


if __name__ == "__main__":
    main()
