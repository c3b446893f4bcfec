"""The `afp-desktop` command line.

    afp-desktop [FILE] [--screenshot OUT.png [--stop N]]   open the window (or render it to a PNG and exit)
    afp-desktop stepgraph FILE                              the StepGraph JSON
    afp-desktop status FILE [--templates MAP.json] [--app-name NAME]
    afp-desktop stops FILE                                  the milestone stops JSON (§5.4)
    afp-desktop info FILE                                   format, counts and what the file lacks
    afp-desktop convert INPUT -o OUT.jsonl                  the lossless line-oriented form
    afp-desktop export FILE -o OUT.png|OUT.svg [--stop N] [--scale S]

The JSON subcommands import no Qt; only the window, --screenshot and export do.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from afp_desktop import __version__

MAX_SCALE = 64.0  # a PNG is capped in pixels anyway; an SVG's stated size must stay a sane integer
SUBCOMMANDS = ("stepgraph", "status", "stops", "info", "convert", "export")
FORMATS_HELP = ("Opens: NDJSON/.jsonl event streams (with a rotated <file>.1), Trace v1 JSON (plain or redacted), "
                "recordings {snapshot, events, structure} (plain, envelope v1, packed v1), afp-desktop's lossless "
                ".jsonl, and any of these compressed with gzip or xz.")


INTERNAL_ERROR = "internal error"


class CliError(Exception):
    """A message for the user; exit code 2."""


def _write_json(value, indent: bool) -> None:
    from afp_desktop.core import jsonio

    sys.stdout.buffer.write(jsonio.dumps(value, indent=indent) + b"\n")
    sys.stdout.flush()


def _open(path: str):
    from afp_desktop.core.formats import open_run

    run = open_run(path)  # (open_run pauses the garbage collector while it builds the run)
    if run.payload_problems:  # a large Trace's payloads are checked here, not while loading: refuse as a parse would
        raise run.payload_problems[0]
    for warning in run.warnings:
        print(f"afp-desktop: warning: {warning}", file=sys.stderr)
    return run


def _load_templates(path: str) -> dict:
    from afp_desktop.core import jsonio
    from afp_desktop.core.formats.errors import LoadError, describe_type

    from afp_desktop.core.formats.source import read_regular

    try:
        data = read_regular(path, 16 << 20)
    except LoadError as err:
        raise CliError(f"{err.problem.path}: cannot read the template map ({err.problem.message})") from None
    try:
        value = jsonio.loads(data)
    except jsonio.JSONSyntaxError as err:
        raise CliError(f"{path}, line {err.line}, column {err.column}: not valid JSON: {err.message}") from None
    if not isinstance(value, dict):
        raise CliError(f"{path}: a template map must be a JSON object of key → template, found {describe_type(value)}")
    bad = [k for k, v in value.items() if not isinstance(v, str)]
    if bad:
        raise CliError(f"{path}: every template must be a string; not a string: {', '.join(map(repr, bad[:5]))}")
    return value


def cmd_stepgraph(args) -> int:
    run = _open(args.file)
    if run.stepgraph_note:
        print(f"afp-desktop: note: {run.stepgraph_note}", file=sys.stderr)
    _write_json(run.stepgraph, args.indent)
    return 0


def cmd_status(args) -> int:
    from afp_desktop.core.status import render_status_line, status_timeline

    templates = _load_templates(args.templates) if args.templates else None
    run = _open(args.file)
    if run.typed_events is None:
        raise CliError(f"{args.file}: this {run.format_name} has no typed event stream, and the status line is "
                       "computed from it; open the run's NDJSON file or its recording instead")
    states = status_timeline(run.typed_events)
    rows = [{"k": k, "state": state, "line": render_status_line(state, args.app_name, templates)}
            for k, state in enumerate(states)]
    _write_json(rows, args.indent)
    return 0


def cmd_stops(args) -> int:
    from afp_desktop.core.positions import commit_alignment_usable
    from afp_desktop.core.stops import milestone_stops

    run = _open(args.file)
    if run.commit_log:
        if not commit_alignment_usable(run):
            print("afp-desktop: note: the events carry no commit counts; the stops cannot be placed among the "
                  "events, but the commit log's stops are printed", file=sys.stderr)
        stops = milestone_stops(run.commit_log, run.execution_tree)
    else:
        print("afp-desktop: note: this file has no commit log; the stops are derived from the events "
              "(eventIdx/lastEventIdx are positions on the file's event axis)", file=sys.stderr)
        stops = [{k: v for k, v in s.items() if k not in ("axisStart", "axisEnd")} for s in run.stops]
    _write_json(stops, args.indent)
    return 0


def cmd_info(args) -> int:
    from afp_desktop.core.problems import printable_path
    from afp_desktop.core.summary import summarize

    run = _open(args.file)
    summary = summarize(run)
    graph = run.stepgraph
    info = {
        "file": printable_path(args.file), "format": run.format_name,
        "typedEvents": len(run.typed_events) if run.typed_events is not None else None,
        "domainEvents": len(run.domain_events), "domainEventSource": run.domain_source,
        "commits": len(run.commit_log) if run.commit_log is not None else None,
        "stepGraphNodes": len(graph["nodes"]), "stepGraphEdges": len(graph["edges"]),
        "stops": len(run.stops), "stopsDerived": bool(run.stops and run.stops[0].get("derived")),
        "redaction": run.redaction, **summary.as_dict(),
        "notices": [n.text for n in run.notices], "warnings": [str(w) for w in run.warnings],
    }
    if args.json:
        _write_json(info, True)
        return 0
    out = [f"File:        {info['file']}", f"Format:      {info['format']}"]
    if summary.name:
        out.append(f"Run:         {summary.name}")
    if summary.models:
        out.append(f"Models:      {', '.join(summary.models)}")
    typed = "none" if info["typedEvents"] is None else f"{info['typedEvents']:,}"
    commits = "none" if info["commits"] is None else f"{info['commits']:,}"
    out += [f"Events:      {typed} typed, {info['domainEvents']:,} domain ({run.domain_source}), {commits} commits",
            f"Step graph:  {info['stepGraphNodes']:,} nodes, {info['stepGraphEdges']:,} edges",
            f"Stops:       {info['stops']:,}{' (derived from events)' if info['stopsDerived'] else ''}",
            f"LLM calls:   {summary.llm_calls:,}    tool calls: {summary.tool_calls:,}    errors: {summary.errors:,}",
            f"Tokens:      {summary.tokens_in:,} in / {summary.tokens_out:,} out"]
    if summary.duration_ms is not None:
        out.append(f"Duration:    {summary.duration_ms / 1000:.3f} s")
    if run.notices:
        out.append("What this file cannot show / worth knowing:")
        out += [f"  - {n.text}" for n in run.notices]
    if run.warnings:
        out.append("Warnings:")
        out += [f"  - {w}" for w in run.warnings]
    _print_text("\n".join(out))
    return 0


def _print_text(text: str) -> None:
    """Print to stdout whatever the text holds: a file name's undecodable bytes as they were, a lone surrogate
    (from trace text) as its escape — never a UnicodeEncodeError."""
    data = text + "\n"
    try:
        raw = data.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        raw = data.encode("utf-8", "backslashreplace")
    sys.stdout.flush()
    sys.stdout.buffer.write(raw)
    sys.stdout.flush()


def cmd_convert(args) -> int:
    from afp_desktop.core.formats.lossless import write_lossless

    target = Path(args.output)
    inputs = _inputs_of(args.file)
    _check_output(target, inputs)  # before the work: a refused destination costs nothing
    run = _open(args.file)
    try:
        write_lossless(run, target, inputs)
    except OSError as err:
        raise CliError(f"{_shown(target)}: cannot write ({err.strerror or err})") from None
    print(f"wrote {_shown(target)}", file=sys.stderr)
    return 0


def _inputs_of(file: str) -> list[Path]:
    """The files a run is read from (a rotated `<file>.1` too): never an output."""
    from afp_desktop.core.formats.source import rotated_pair

    return [Path(file), *rotated_pair(file)]


def _check_output(target: Path, inputs: list[Path]) -> None:
    from afp_desktop.core.safe_write import UnsafeOutput, check_destination

    try:
        check_destination(target, inputs)
    except UnsafeOutput as err:
        raise CliError(str(err)) from None


def _shown(path) -> str:
    """A path as text that can always be printed (undecodable bytes of a name shown as escapes)."""
    from afp_desktop.core.problems import printable_path

    return printable_path(path)


def _scale_arg(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (0 < value <= MAX_SCALE):  # (also refuses nan and inf)
        raise argparse.ArgumentTypeError(f"--scale must be a number greater than 0 and at most {MAX_SCALE:g}, "
                                         f"not {text!r}")
    return value


def _prepare_headless_qt() -> None:
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def cmd_export(args) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # export never needs a screen
    from afp_desktop.core.cursor import view_at

    suffix = Path(args.output).suffix.lower()
    if suffix not in (".png", ".svg"):
        raise CliError(f"{_shown(args.output)}: the output must end in .png or .svg")
    inputs = _inputs_of(args.file)
    _check_output(Path(args.output), inputs)
    run = _open(args.file)
    happened = current = None
    if args.stop is not None:
        stops = run.stops
        if not 0 <= args.stop < len(stops):
            raise CliError(f"--stop {args.stop}: this run has stops 0 to {len(stops) - 1}")
        view = view_at(run, stops[args.stop]["axisEnd"])
        happened, current = view.happened, view.current_node
    from afp_desktop.app.export import ensure_qt_app, export_graph

    ensure_qt_app()
    from afp_desktop.core.safe_write import UnsafeOutput

    try:
        out = export_graph(run.stepgraph, args.output, scale=args.scale, happened=happened, current=current,
                           include_cursor=args.stop is not None, inputs=inputs)
    except UnsafeOutput as err:
        raise CliError(str(err)) from None
    except OSError as err:
        raise CliError(f"{_shown(args.output)}: cannot write ({err.strerror or err})") from None
    print(f"wrote {_shown(out)}", file=sys.stderr)
    return 0


def _size_arg(text: str) -> int:
    from afp_desktop.core.formats.source import parse_size

    try:
        return parse_size(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (write e.g. 500M, 4G or a number of bytes)") from None


def _subcommand_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="afp-desktop", description="Replay a saved agentfootprint run offline.",
                                     epilog=FORMATS_HELP)
    sub = parser.add_subparsers(dest="command", required=True)

    def add(name, help_text, func):
        p = sub.add_parser(name, help=help_text, description=help_text, epilog=FORMATS_HELP)
        p.add_argument("file", metavar="FILE")
        p.add_argument("--max-bytes", metavar="SIZE", type=_size_arg,
                       help="the largest file (or decompressed content) to read, e.g. 500M or 4G "
                            "(default: from the machine's memory, or $AFP_DESKTOP_MAX_BYTES)")
        p.set_defaults(func=func)
        return p

    for name, text, func in (("stepgraph", "print the StepGraph JSON", cmd_stepgraph),
                             ("stops", "print the milestone stops JSON", cmd_stops)):
        add(name, text, func).add_argument("--indent", action="store_true", help="pretty-print")
    p = add("status", "print the status line state and text for every prefix of the typed events", cmd_status)
    p.add_argument("--templates", metavar="MAP.json", help="the whole template map (not merged with the defaults)")
    p.add_argument("--app-name", default="Agent", metavar="NAME", help="{{appName}} (default: Agent)")
    p.add_argument("--indent", action="store_true", help="pretty-print")
    add("info", "describe the file for a person: format, counts, tokens, what it lacks", cmd_info).add_argument(
        "--json", action="store_true", help="print the same as JSON")
    p = add("convert", "write afp-desktop's lossless line-oriented .jsonl form of any supported file", cmd_convert)
    p.add_argument("-o", "--output", required=True, metavar="OUT.jsonl")
    p = add("export", "render the step graph to PNG or SVG without a display", cmd_export)
    p.add_argument("-o", "--output", required=True, metavar="OUT.png|OUT.svg")
    p.add_argument("--stop", type=int, metavar="N", help="show the run as of stop N (0-based); later steps dimmed")
    p.add_argument("--scale", type=_scale_arg, default=1.0, metavar="S",
                   help=f"scale factor, greater than 0 and at most {MAX_SCALE:g} (default 1)")
    return parser


def _window_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="afp-desktop", usage="afp-desktop [FILE] [--screenshot OUT.png [--stop N]]\n"
                                  "       afp-desktop {stepgraph,status,stops,info,convert,export} FILE ...",
        description="Replay a saved agentfootprint run offline: step graph, milestone timeline, chat-bubble "
                    "preview and inspectors. Nothing re-runs and nothing touches the network.\n\nSubcommands "
                    "(see 'afp-desktop SUBCOMMAND --help'):\n  stepgraph  print the StepGraph JSON\n  status     "
                    "print the status line for every prefix of the typed events\n  stops      print the milestone "
                    "stops JSON\n  info       describe the file: format, counts, what it lacks\n  convert    write "
                    "the lossless .jsonl form\n  export     render the step graph to PNG/SVG headless",
        epilog=FORMATS_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", nargs="?", metavar="FILE", help="trace file to open")
    parser.add_argument("--screenshot", metavar="OUT.png", help="render the window after loading, save, exit")
    parser.add_argument("--stop", type=int, metavar="N", help="with --screenshot: move the cursor to stop N first")
    parser.add_argument("--version", action="version", version=f"afp-desktop {__version__}")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    from afp_desktop.core.formats.errors import LoadError
    from afp_desktop.core.safe_write import UnsafeOutput

    try:
        if argv and argv[0] in SUBCOMMANDS:
            args = _subcommand_parser().parse_args(argv)
            from afp_desktop.core.formats.source import byte_limit

            with byte_limit(args.max_bytes):
                return args.func(args)
        args = _window_parser().parse_args(argv)
        if args.stop is not None and not args.screenshot:
            raise CliError("--stop goes with --screenshot (or with the export subcommand)")
        if args.screenshot:
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        else:
            _check_display()
        from afp_desktop.app.gui import run_gui

        return run_gui(args.file, screenshot=args.screenshot, stop=args.stop)
    except LoadError as err:
        print(f"afp-desktop: {err}", file=sys.stderr)
        return 2
    except (CliError, UnsafeOutput) as err:
        print(f"afp-desktop: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    except MemoryError:
        print("afp-desktop: not enough memory for this file (see --max-bytes)", file=sys.stderr)
        return 2
    except Exception as err:  # a bug: say so in one paragraph rather than a traceback (the tests look for this)
        print(f"afp-desktop: {INTERNAL_ERROR} ({type(err).__name__}: {str(err)[:300]}); please report it with the "
              "file and the command (see the README's Security section)", file=sys.stderr)
        return 2


def _check_display() -> None:
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
                                                 or os.environ.get("QT_QPA_PLATFORM")):
        raise CliError("there is no display to open a window on (DISPLAY and WAYLAND_DISPLAY are not set).\n"
                       "  To look at a run without a display, render it to a file instead:\n"
                       "    afp-desktop FILE --screenshot window.png [--stop N]\n"
                       "    afp-desktop export FILE -o graph.png    (or graph.svg)\n"
                       "    afp-desktop info FILE\n"
                       "  Or run under a virtual display: xvfb-run -a afp-desktop FILE")


if __name__ == "__main__":
    raise SystemExit(main())
