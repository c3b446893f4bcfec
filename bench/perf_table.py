"""The performance targets measured and written as a table into docs/performance.md (a script, not a test).

    .venv/bin/python bench/perf_table.py [--runs N] [--quick] [--no-busy] [--print] [--recording FILE ...]
                                         [--recordings-only]

Each measure runs N times (--runs, 3) in fresh processes, through the other benches' own code:
bench_startup.one_run (`afp-desktop FILE`, cold start: the first frame, the first part shown, the longest stall of
the window's thread from the first frame until the whole run is read and the timeline settled, a 5 ms timer),
bench_open_stalls.py --json (File ▸ Open in an open window while the cursor moves every 40 ms, then the cursor moved
one stop at a time), bench_big_load.measure (the window's process until the whole run is shown and painted, and the
memory that process adds above its empty window: the engine reads in a process of its own, not counted there;
against a bare orjson parse of the file, or for a recording the whole `afp-desktop info` process) and
bench_cli_startup (`afp-desktop stepgraph` on a ~12 MB Trace against a process that only parses it) and
bench_follow.py --json (a window following the corpus's 7,363-event stream while it is written at 5,000 events/s:
from a batch's last line landing on disk to the window showing it, the 95th percentile of the batches).
The files are the corpus's big run (48 MB Trace, 53 MB stream, 448 MB recording), decompressed from $AFP_BIG_CORPUS
(default /work/shared/corpus/big/react-1000) into a temporary folder. --quick: the Trace only, one run.
--recording FILE (again for more; or $AFP_LONG_RECORDINGS, paths separated by ':'): a long recording measured
too, read where it is (bench/make_long_recording.py makes the 894 MB and 1.4 GB ones); one that is absent is
skipped, said on stderr. Its waits grow with its size (LOAD_SECONDS_PER_MB). --recordings-only: only those (not
the corpus's files, nor the `stepgraph` row).
--busy (the default; --no-busy to leave it out): a process spinning on one core all along, started and stopped here.
The table (worst of the N runs, their median, met when the worst is within the target) goes between the markers
below in docs/performance.md, under a line naming the date, the machine and the commit; --print only prints it.
A measure that fails or cannot be made says so in its row: never a figure it did not measure.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import lzma
import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
DOC = ROOT / "docs" / "performance.md"
BIG = Path(os.environ.get("AFP_BIG_CORPUS", "/work/shared/corpus/big/react-1000"))
BEGIN, END = "<!-- perf-table:begin -->", "<!-- perf-table:end -->"
FILES = {"trace.json": "48 MB Trace", "events.ndjson": "53 MB stream", "recording.json": "448 MB recording"}
LONG_RECORDINGS_ENV = "AFP_LONG_RECORDINGS"
FOLLOWED = "15-large-run"  # the corpus scenario whose stream is written and followed (bench_follow.py)
LOAD_SECONDS_PER_MB = 0.5  # a long recording's waits (its load, each bench's process): this long per MB, or more


@dataclass
class Row:
    """One measure of one file: its figures over the runs (a missing run's figure is left out), or why none."""

    measure: str
    file: str
    target: str
    limit: float
    unit: str  # "ms", "s" or "×"
    figures: list[float] = field(default_factory=list)
    not_measured: str = ""  # why there is no figure


def shown(value: float, unit: str) -> str:
    if unit == "ms":
        return f"{value:.1f} ms"
    if unit == "s":
        return f"{value:.2f} s"
    return f"{value:.2f}×"


def table_markdown(rows: list[Row], heading: str) -> str:
    """The table of `rows` under `heading`: worst of the runs (the highest: every target is an upper bound),
    median, met when the worst is within the target; a row without figures says "not measured" and why."""
    lines = [heading, "", "| measure | file | target | worst of N | median | met? |", "|---|---|---|---|---|---|"]
    for row in rows:
        if not row.figures:
            why = row.not_measured or "no run gave a figure"
            lines.append(f"| {row.measure} | {row.file} | {row.target} | not measured: {why} | — | — |")
            continue
        worst, median = max(row.figures), statistics.median(row.figures)
        met = "met" if worst <= row.limit else "not met"
        count = f" (of {len(row.figures)})" if len(row.figures) > 1 else ""
        lines.append(f"| {row.measure} | {row.file} | {row.target} | {shown(worst, row.unit)}{count} | "
                     f"{shown(median, row.unit)} | {met} |")
    return "\n".join(lines)


def with_table(document: str, table: str) -> str:
    """`document` with what lies between the markers replaced by `table` (the markers kept, the rest unchanged);
    without the markers, they and the table are appended at its end."""
    start, end = document.find(BEGIN), document.find(END)
    if start < 0 or end < start:
        return document.rstrip("\n") + f"\n\n{BEGIN}\n{table}\n{END}\n"
    return document[:start] + f"{BEGIN}\n{table}\n" + document[end:]


def machine_line(runs: int, busy: bool) -> str:
    """Date, machine (cores, processor, memory), commit and conditions, for the line above the table."""
    model = "unknown processor"
    memory = "unknown memory"
    try:
        model = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
        kib = next(int(line.split()[1]) for line in open("/proc/meminfo") if line.startswith("MemTotal:"))
        memory = f"{kib / 1024 ** 2:.1f} GiB"
    except (OSError, StopIteration, ValueError):
        pass
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT)
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True,
                           cwd=ROOT).stdout.strip()
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return (f"Measured {when} by `bench/perf_table.py` ({runs} run{'s' if runs != 1 else ''} each"
            f"{', a process spinning on one core all along' if busy else ''}, load average "
            f"{os.getloadavg()[0]:.1f} at the end) on {os.cpu_count()} cores, {model}, {memory}; commit "
            f"{commit.stdout.strip() or 'unknown'}{' with uncommitted changes' if dirty else ''}.")


class Spinner:
    """Another process spinning on one core (`yes > /dev/null`) while the measures run; stopped on leaving."""

    def __enter__(self) -> Spinner:
        self.process = subprocess.Popen(["yes"], stdout=subprocess.DEVNULL)
        return self

    def __exit__(self, *_exc) -> None:
        self.process.kill()
        self.process.wait()


def decompress(name: str, folder: Path) -> Path:
    target = folder / name
    with lzma.open(BIG / f"{name}.xz") as source, open(target, "wb") as out:
        while chunk := source.read(1 << 22):
            out.write(chunk)
    return target


def bench_module(name: str):
    """A bench script of this folder imported as a module (its functions, not its main)."""
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    return __import__(name)


def environment(config: Path) -> dict:
    return dict(os.environ, PYTHONPATH=str(ROOT), AFP_DESKTOP_CONFIG_DIR=str(config), QT_QPA_PLATFORM="offscreen")


class Measures:
    """The rows of one file, filled run by run; a measure that fails leaves its reason in its rows."""

    def __init__(self, label: str, recording: bool) -> None:
        reference = "`afp-desktop info`" if recording else "a bare parse"
        self.recording = recording
        self.cold_stall = Row("longest UI stall from the first frame on, `afp-desktop FILE` (cold start)", label,
                              "≤ 50 ms", 50, "ms")
        self.open_stall = Row("longest UI stall, File ▸ Open while the cursor moves", label, "≤ 50 ms", 50, "ms")
        self.cold_part = Row("first part shown after the first frame, cold start", label, "≤ 1 s", 1, "s")
        self.open_part = Row("first part shown after File ▸ Open, the cursor moving", label, "≤ 1 s", 1, "s")
        self.complete = Row(f"complete run in the window ÷ {reference}", label, "≤ 1.2×" if recording else "≤ 1.3×",
                            1.2 if recording else 1.3, "×")
        self.memory = Row("memory the window process adds ÷ the file's size", label,
                          "≤ 0.25×" if recording else "≤ 1×", 0.25 if recording else 1.0, "×")
        self.scrub = Row("scrub, one stop at a time: median", label, "≤ 8 ms", 8, "ms")
        self.first_frame = Row("first frame after start, cold start", label, "≤ 0.5 s", 0.5, "s")

    def rows(self) -> list[Row]:
        return [self.first_frame, self.cold_part, self.cold_stall, self.open_part, self.open_stall, self.scrub,
                self.complete, self.memory]


def attempt(rows: list[Row], measure: Callable[[], None]) -> None:
    """Run `measure`; if it fails, its rows without figures say why (the first line of the error)."""
    try:
        measure()
    except (Exception, SystemExit) as error:  # (a bench's failure becomes its rows' reason, not a traceback)
        why = (str(error).strip().splitlines() or [type(error).__name__])[-1][:200].replace("|", "/")
        for row in rows:
            row.not_measured = row.not_measured or f"the bench failed ({why})"


def load_timeout(path: Path) -> float:
    """Seconds a bench may wait for `path` to load (a long recording takes longer than the defaults allow)."""
    return max(120.0, path.stat().st_size / 1e6 * LOAD_SECONDS_PER_MB)


def measure_file(path: Path, measures: Measures, config: Path) -> None:
    """One run of every measure of one file, each in fresh processes."""
    startup, big_load, cli = bench_module("bench_startup"), bench_module("bench_big_load"), \
        bench_module("bench_cli_startup")
    wait = load_timeout(path)

    def cold_start() -> None:
        first, run_shown, _ready, stall, _work = startup.one_run(path, until_whole=True, timeout=max(90.0, wait))
        measures.first_frame.figures.append(first)
        if run_shown is None or stall is None:
            raise RuntimeError("the run was never shown")
        measures.cold_part.figures.append(run_shown - first)
        measures.cold_stall.figures.append(stall)

    def file_open() -> None:
        env = dict(environment(config), AFP_BENCH_LOAD_TIMEOUT_S=str(wait))
        out = subprocess.run([sys.executable, str(BENCH / "bench_open_stalls.py"), "--json", str(path)],
                             capture_output=True, text=True, env=env, timeout=max(900.0, 4 * wait), cwd=ROOT)
        if out.returncode:
            raise RuntimeError(out.stderr.strip() or f"exit {out.returncode}")
        figures = json.loads(out.stdout.strip().splitlines()[-1])[str(path)]
        measures.open_part.figures.append(figures["first_frame_ms"] / 1000)
        measures.open_stall.figures.append(figures["longest_ms"])
        measures.scrub.figures.append(figures["one_stop_median_ms"])

    def complete_and_memory() -> None:
        window = big_load.measure(big_load.WINDOW, path, timeout=max(600.0, 2 * wait))
        measures.memory.figures.append(window["peak"] / path.stat().st_size)
        if measures.recording:
            reference, _cpu = cli.timed([sys.executable, "-m", "afp_desktop", "info", str(path)])
        else:
            reference = big_load.measure(big_load.BARE, path)["seconds"]
        measures.complete.figures.append(window["seconds"] / reference)

    attempt([measures.first_frame, measures.cold_part, measures.cold_stall], cold_start)
    attempt([measures.open_part, measures.open_stall, measures.scrub], file_open)
    attempt([measures.complete, measures.memory], complete_and_memory)


def measure_stepgraph(row: Row, folder: Path) -> None:
    cli = bench_module("bench_cli_startup")
    trace = folder / "trace-x3.json"

    def once() -> None:
        bare_argv = [sys.executable, "-c", cli.BARE, str(trace)]
        stepgraph_argv = [sys.executable, "-m", "afp_desktop", "stepgraph", str(trace)]
        if not trace.exists():
            cli.make_trace(folder)
            cli.timed(bare_argv), cli.timed(stepgraph_argv)  # warm the disk cache and the bytecode
        bare, _ = cli.timed(bare_argv)
        stepgraph, _ = cli.timed(stepgraph_argv)
        row.figures.append(stepgraph / bare)

    attempt([row], once)


def prepare(names: list[str], folder: Path) -> tuple[dict[str, Measures], dict[str, Path]]:
    """Each file's rows, and the files found decompressed into `folder` (a file not found: its rows say so)."""
    measures: dict[str, Measures] = {}
    paths: dict[str, Path] = {}
    for name in names:
        measures[name] = Measures(FILES[name], name == "recording.json")
        source = BIG / f"{name}.xz"
        if source.exists():
            paths[name] = decompress(name, folder)
        else:
            for row in measures[name].rows():
                row.not_measured = f"{source} not found (AFP_BIG_CORPUS names the folder)"
    return measures, paths


def long_recordings(given: list[Path]) -> tuple[dict[str, Measures], dict[str, Path]]:
    """The rows and paths of the long recordings named by --recording and $AFP_LONG_RECORDINGS (keyed by path);
    one that is absent is skipped, said on stderr."""
    named = [*given, *(Path(p) for p in os.environ.get(LONG_RECORDINGS_ENV, "").split(os.pathsep) if p)]
    measures: dict[str, Measures] = {}
    paths: dict[str, Path] = {}
    for path in dict.fromkeys(p.resolve() for p in named):
        if not path.is_file():
            print(f"{path}: not found, skipped", file=sys.stderr)
            continue
        measures[str(path)] = Measures(f"{path.stat().st_size / 1e6:,.0f} MB recording ({path.name})", True)
        paths[str(path)] = path
    return measures, paths


def measure_follow(row: Row, config: Path) -> None:
    def once() -> None:
        out = subprocess.run([sys.executable, str(BENCH / "bench_follow.py"), "--scenario", FOLLOWED, "--json"],
                             capture_output=True, text=True, env=environment(config), timeout=600, cwd=ROOT)
        if out.returncode:
            raise RuntimeError(out.stderr.strip() or f"exit {out.returncode}")
        row.figures.append(json.loads(out.stdout.strip().splitlines()[-1])["p95_ms"])

    attempt([row], once)


def measure_all(runs: int, measures: dict[str, Measures], paths: dict[str, Path], folder: Path,
                with_stepgraph: bool = True) -> list[Row]:
    stepgraph = Row("`afp-desktop stepgraph` process ÷ a bare `orjson.loads` process", "12 MB Trace", "≤ 1.5×", 1.5,
                    "×")
    follow = Row("follow at 5,000 events/s: a line landing to the window showing it, 95th percentile",
                 "7,363-event stream", "≤ 100 ms", 100, "ms")
    startup = bench_module("bench_startup")
    attempt([], lambda: startup.one_run(startup.DEFAULT_FILE))  # (the window's bytecode compiled before timing)
    for run in range(runs):
        print(f"run {run + 1} of {runs}", file=sys.stderr, flush=True)
        if with_stepgraph:
            measure_stepgraph(stepgraph, folder)
            measure_follow(follow, folder / "config")
        for name, path in paths.items():
            print(f"  {name}", file=sys.stderr, flush=True)
            measure_file(path, measures[name], folder / "config")
    return [row for kept in measures.values() for row in kept.rows()] + ([stepgraph, follow] if with_stepgraph else [])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="the Trace only, one run")
    parser.add_argument("--busy", action=argparse.BooleanOptionalAction, default=True,
                        help="a process spinning on one core all along (default: on)")
    parser.add_argument("--print", action="store_true", help="print the table, leave docs/performance.md as it is")
    parser.add_argument("--recording", action="append", type=Path, default=[], metavar="FILE",
                        help=f"a long recording measured too (again for more; also ${LONG_RECORDINGS_ENV})")
    parser.add_argument("--recordings-only", action="store_true",
                        help="only the long recordings (not the corpus's files nor the stepgraph row)")
    args = parser.parse_args()
    runs, names = (1, ["trace.json"]) if args.quick else (args.runs, list(FILES))
    if args.recordings_only:
        names = []
    with tempfile.TemporaryDirectory() as tmp:
        measures, paths = prepare(names, Path(tmp))
        extra_measures, extra_paths = long_recordings(args.recording)
        measures.update(extra_measures)
        paths.update(extra_paths)
        with Spinner() if args.busy else contextlib.nullcontext():
            rows = measure_all(runs, measures, paths, Path(tmp), with_stepgraph=not args.recordings_only)
    table = table_markdown(rows, machine_line(runs, args.busy))
    print(table)
    if not args.print:
        DOC.write_text(with_table(DOC.read_text(encoding="utf-8"), table), encoding="utf-8")
        print(f"written to {DOC.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
