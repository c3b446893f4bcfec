"""The `afp-desktop` command line.

    afp-desktop [FILE] [--follow] [--screenshot OUT.png [--stop N] [--size WxH]]   open the window (or render it)
    afp-desktop FILE --at STAGE_ID                          open at that stage's stop (a copied stop link)
    afp-desktop stepgraph FILE                              the StepGraph JSON
    afp-desktop status FILE [--templates MAP.json] [--app-name NAME]
    afp-desktop stops FILE                                  the milestone stops JSON (§5.4)
    afp-desktop tail FILE [--templates MAP.json] [--app-name NAME] [--json]   follow a file being written
    afp-desktop info FILE                                   format, counts and what the file lacks
    afp-desktop convert INPUT -o OUT.jsonl                  the lossless line-oriented form
    afp-desktop export FILE -o OUT.png|OUT.svg [--stop N] [--scale S]
    afp-desktop replay FILE [--templates MAP.json] [--app-name NAME]   the stops, their spans and lines, the errors
    afp-desktop view FILE (--position P | --stop N | --typed K) [...]  everything the window shows at one moment
    afp-desktop diff A B                                    align two runs and print what differs (JSON)
    afp-desktop A B --compare                               the compare window
    (every subcommand, and the window, take --conversation ID for a bug-report bundle of several)
    afp-desktop find FILE QUERY [--regex] [--ignore-case] [--templates MAP.json] [--app-name NAME]
    afp-desktop inspect FILE --node INDEX [--position P]    what the inspector shows for one step, as JSON
    afp-desktop share FILE -o run.html [--stop N] [--redact] [--templates MAP.json] [--app-name NAME]
                                                            one self-contained web page that replays the run

The JSON subcommands import no Qt; only the window, --screenshot and export do.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from afp_desktop import __version__
from afp_desktop.cli_numbers import number_arg, size_arg, whole_arg
from afp_desktop.core.views.search_limits import DEFAULT_MAX_HITS, MAX_HITS_LIMIT

MAX_SCALE = 64.0  # a PNG is capped in pixels anyway; an SVG's stated size must stay a sane integer
SUBCOMMANDS = ("stepgraph", "status", "stops", "info", "convert", "export", "replay", "view", "diff", "find",
               "inspect", "tail", "share")
FORMATS_HELP = ("Opens: NDJSON/.jsonl event streams (with a rotated <file>.1), Trace v1 JSON (plain or redacted), "
                "recordings {snapshot, events, structure} (plain, envelope v1, packed v1), afp-desktop's lossless "
                ".jsonl, any of these compressed with gzip or xz, and agentfootprint's bug-report bundles (.zip; "
                "--conversation ID picks one of several conversations).")


INTERNAL_ERROR = "internal error"


class CliError(Exception):
    """A message for the user; exit code 2."""


def write_json(value, indent: bool) -> None:
    from afp_desktop.core.jsonx import jsonio

    sys.stdout.buffer.write(jsonio.dumps(value, indent=indent) + b"\n")
    sys.stdout.flush()


def _open(path: str, conversation: str | None = None):
    from afp_desktop.engine.collector import collector_paused
    from afp_desktop.engine.service import Engine

    with collector_paused():  # (the command line's policy: no collections while a run is built)
        run = Engine().open(path, conversation=conversation, for_window=False)
    if run.payload_problems:  # a large Trace's payloads are checked here, not while loading: refuse as a parse would
        raise run.payload_problems[0]
    for warning in run.warnings:
        print_readable(f"afp-desktop: warning: {warning}", stderr=True)
    return run


def load_templates(path: str) -> dict:
    from afp_desktop.core.jsonx import jsonio
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
    run = _open(args.file, args.conversation)
    if run.stepgraph_note:
        print_readable(f"afp-desktop: note: {run.stepgraph_note}", stderr=True)
    write_json(run.stepgraph, args.indent)
    return 0


def cmd_status(args) -> int:
    from afp_desktop.core.library.status import render_status_line, status_timeline

    templates = load_templates(args.templates) if args.templates else None
    run = _open(args.file, args.conversation)
    if run.typed_events is None:
        raise CliError(f"{args.file}: this {run.format_name} has no typed event stream, and the status line is "
                       "computed from it; open the run's NDJSON file or its recording instead")
    rows, previous, line = [], object(), None
    for k, state in enumerate(status_timeline(run.typed_events)):
        if state is not previous:  # (consecutive prefixes share their state: each is rendered once)
            previous, line = state, render_status_line(state, args.app_name, templates)
        rows.append({"k": k, "state": state, "line": line})
    write_json(rows, args.indent)
    return 0


def cmd_stops(args) -> int:
    from afp_desktop.core.model.positions import commit_alignment_usable
    from afp_desktop.core.library.stops import milestone_stops

    run = _open(args.file, args.conversation)
    if run.commit_log:
        if not commit_alignment_usable(run):
            print_readable("afp-desktop: note: the events carry no commit counts; the stops cannot be placed among "
                           "the events, but the commit log's stops are printed", stderr=True)
        stops = milestone_stops(run.commit_log, run.execution_tree)
    else:
        print_readable("afp-desktop: note: this file has no commit log; the stops are derived from the events "
                       "(eventIdx/lastEventIdx are positions on the file's event axis)", stderr=True)
        stops = [{k: v for k, v in s.items() if k not in ("axisStart", "axisEnd")} for s in run.stops]
    write_json(stops, args.indent)
    return 0


def _add_conversation_option(parser: argparse.ArgumentParser) -> None:
    """The one option every command shares for bug-report bundles."""
    parser.add_argument("--conversation", metavar="ID", help="for a bug-report bundle (.zip): the conversation "
                                                              "to open (the only one by default)")


def cmd_info(args) -> int:
    from afp_desktop.core.problems import printable_path
    from afp_desktop.core.formats import bugreport
    from afp_desktop.core.formats import ConversationChoiceNeeded
    from afp_desktop.core.formats.bundle import read_bundle_file
    from afp_desktop.core.model.summary import summarize
    from afp_desktop.core.views import cost
    from afp_desktop.core.views.run_facts import RunFacts

    prices = None
    if getattr(args, "prices", None):
        try:
            prices = cost.load_price_table(args.prices)
        except cost.PriceTableError as err:
            raise CliError(f"--prices {err}") from None
    try:
        run = _open(args.file, args.conversation)
    except ConversationChoiceNeeded:  # describe the bundle itself; its runs need a choice
        bundle = read_bundle_file(args.file)
        if args.json:
            write_json({"file": str(args.file), "format": "Bug-report bundle", "bundle": bugreport.as_dict(bundle)},
                        True)
        else:
            print_readable(_readable_lines([f"File:        {args.file}", "Format:      Bug-report bundle",
                                            *bugreport.describe_lines(bundle),
                                            "Choose a conversation with --conversation ID to describe its run."]))
        return 0
    summary = summarize(run)
    graph = run.stepgraph
    facts = RunFacts(run)
    info = {
        "file": printable_path(args.file), "format": run.format_name,
        "typedEvents": len(run.typed_events) if run.typed_events is not None else None,
        "domainEvents": len(run.domain_events), "domainEventSource": run.domain_source,
        "commits": len(run.commit_log) if run.commit_log is not None else None,
        "stepGraphNodes": len(graph["nodes"]), "stepGraphEdges": len(graph["edges"]),
        "stops": len(run.stops), "stopsDerived": bool(run.stops and run.stops[0].get("derived")),
        "redaction": run.redaction, **summary.as_json(), **facts.as_json(run),
        "notices": [n.text for n in run.all_notices()], "warnings": [str(w) for w in run.warnings],
    }
    if run.bundle is not None:
        info["bundle"] = bugreport.as_dict(run.bundle)
    spent = cost.run_cost(prices, graph["nodes"]) if prices is not None else None
    if spent is not None:
        info["cost"] = {"usd": spent.usd, "pricedCalls": spent.priced, "unpricedCalls": spent.unpriced}
    if args.json:
        write_json(info, True)
        return 0
    out = [f"File:        {info['file']}", f"Format:      {info['format']}"]
    if run.bundle is not None:
        out += bugreport.describe_lines(run.bundle) + [f"Conversation {run.bundle.chosen}:"]
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
    if spent is not None:
        unpriced = f"; {spent.unpriced:,} call(s) of a model without a price" if spent.unpriced else ""
        out.append(f"Cost:        {cost.format_usd(spent.usd)} at the prices of {printable_path(args.prices)}{unpriced}")
    if info["costUsd"] is not None:
        out.append(f"Cost:        {cost.format_usd(info['costUsd'])} (the library's own estimate)")
    if summary.duration_ms is not None:
        out.append(f"Duration:    {summary.duration_ms / 1000:.3f} s")
    out += _end_lines(info)
    if run.all_notices():
        out.append("What this file cannot show / worth knowing:")
        out += [f"  - {n.text}" for n in run.all_notices()]
    if run.warnings:
        out.append("Warnings:")
        out += [f"  - {w}" for w in run.warnings]
    print_readable(_readable_lines(out))
    return 0


def _end_lines(info: dict) -> list[str]:
    """How the run ended, its resilience and its findings, for a person."""
    end = info["end"]
    out = [f"Ended:       {end['reason']}: {end['message']}"]
    if info["startLost"]:
        out.append("Start:       lost (the stream's beginning was rotated away or dropped)")
    counts = info["resilience"]
    if any(counts.values()):
        out.append(f"Resilience:  {counts['retries']:,} retries, {counts['recoveries']:,} recoveries, "
                   f"{counts['circuitChanges']:,} circuit-breaker changes, {counts['fallbacks']:,} fallbacks")
    findings = info["findings"]
    out.append(f"Findings:    {len(findings):,}" if findings else "Findings:    none")
    out += [f"  - at {f['position']:,}: {f['kind']}: {f['message']}" + (f"  [{f['node']}]" if f["node"] else "")
            for f in findings]
    return out


def print_readable(text: str, stderr: bool = False) -> None:
    """Print human-readable text on stdout (stderr with `stderr`), the way every such line of the command line is
    printed: control characters written as escapes (core/terminal_text: text from a file must not drive the
    terminal), a file name's undecodable bytes as they were, a lone surrogate (from trace text) as its escape —
    never a UnicodeEncodeError."""
    from afp_desktop.core.terminal_text import for_terminal

    data = for_terminal(text) + "\n"
    try:
        raw = data.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        raw = data.encode("utf-8", "backslashreplace")
    stream = sys.stderr if stderr else sys.stdout
    stream.flush()
    binary = getattr(stream, "buffer", None)
    if binary is None:  # (a text-only stream put in place of the standard one)
        stream.write(raw.decode("utf-8", "backslashreplace"))
    else:
        binary.write(raw)
    stream.flush()


def _readable_lines(lines: list[str]) -> str:
    """Lines for print_readable, each kept on its own line (a newline inside one is escaped)."""
    from afp_desktop.core.terminal_text import for_terminal

    return "\n".join(for_terminal(line, keep_newlines=False) for line in lines)


def cmd_convert(args) -> int:
    from afp_desktop.core.formats.lossless import write_lossless

    target = Path(args.output)
    inputs = _inputs_of(args.file)
    _check_output(target, inputs)  # before the work: a refused destination costs nothing
    run = _open(args.file, args.conversation)
    try:
        write_lossless(run, target, inputs)
    except OSError as err:
        raise CliError(f"{_shown(target)}: cannot write ({err.strerror or err})") from None
    print_readable(f"wrote {_shown(target)}", stderr=True)
    return 0


def cmd_diff(args) -> int:
    from afp_desktop.core.views.compare import diff

    runs = [_open(args.file, args.conversation), _open(args.other)]
    for path, run in zip((args.file, args.other), runs):
        if run.stepgraph_note:
            print_readable(f"afp-desktop: note: {path}: {run.stepgraph_note}", stderr=True)
    write_json(diff(*runs), args.indent)
    return 0


def cmd_find(args) -> int:
    from afp_desktop.core.views import search_limits
    from afp_desktop.core.views.search import QueryError, SearchIndex, compile_query

    try:
        compile_query(args.query, args.regex, args.ignore_case)  # a bad query is refused before the file is read
    except QueryError as err:
        raise CliError(f"{_quoted(args.query)}: {err}") from None
    templates = load_templates(args.templates) if args.templates else None
    run = _open(args.file, args.conversation)
    try:
        hits = SearchIndex(run, templates, args.app_name).find(args.query, regex=args.regex,
                                                               ignore_case=args.ignore_case, limit=args.max_hits,
                                                               time_limit=search_limits.DEFAULT_TIME_LIMIT_S)
    except QueryError as err:
        raise CliError(f"{_quoted(args.query)}: {err}") from None
    write_json_items((hit.to_json() for hit in hits), args.indent)
    if not hits.complete:
        print(f"afp-desktop: note: more than {args.max_hits:,} matches; the first {args.max_hits:,} are listed "
              "(--max-hits sets how many)", file=sys.stderr)
    return 0


def write_json_items(items, indent: bool) -> None:
    """A JSON array written an item at a time (the same bytes as write_json of the whole list)."""
    from afp_desktop.core.jsonx import jsonio

    out = sys.stdout.buffer
    count = 0
    for item in items:
        text = jsonio.dumps(item, indent=indent)
        if indent:
            text = b"\n".join(b"  " + line for line in text.split(b"\n"))
        out.write((b"[\n" if indent else b"[") if count == 0 else (b",\n" if indent else b","))
        out.write(text)
        count += 1
    out.write(b"[]\n" if count == 0 else (b"\n]\n" if indent else b"]\n"))
    out.flush()


def _quoted(query: str) -> str:
    """A query as shown in a message: quoted, and cut when long."""
    return repr(query) if len(query) <= 80 else f"{query[:60]!r}… ({len(query):,} characters)"


def _max_hits_arg(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= MAX_HITS_LIMIT:
        raise argparse.ArgumentTypeError(f"--max-hits must be a whole number from 1 to {MAX_HITS_LIMIT:,}, "
                                         f"not {text!r}")
    return value


def _inputs_of(file: str) -> list[Path]:
    """The files a run is read from (a rotated `<file>.1` too): never an output."""
    from afp_desktop.core.formats.source import rotated_pair

    return [Path(file), *rotated_pair(file)]


def _check_output(target: Path, inputs: list[Path]) -> None:
    from afp_desktop.core.output_names import refuse_rotation_partner
    from afp_desktop.core.safe_write import UnsafeOutput, check_destination

    try:
        check_destination(target, inputs)
        refuse_rotation_partner(target, inputs)
    except UnsafeOutput as err:
        raise CliError(str(err)) from None


def _shown(path) -> str:
    """A path as text that can always be printed (undecodable bytes of a name shown as escapes)."""
    from afp_desktop.core.problems import printable_path

    return printable_path(path)




def cmd_export(args) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # export never needs a screen
    from afp_desktop.core.model.replay import Replay

    suffix = Path(args.output).suffix.lower()
    if suffix not in (".png", ".svg"):
        raise CliError(f"{_shown(args.output)}: the output must end in .png or .svg")
    inputs = _inputs_of(args.file)
    _check_output(Path(args.output), inputs)
    run = _open(args.file, args.conversation)
    from afp_desktop.app.features.graph_folding import AUTO_FOLD_STEPS
    from afp_desktop.core.views.prepared_views import fold_whole_graph

    steps = len(run.stepgraph.get("nodes") or [])
    folded = fold_whole_graph(run) if (args.fold if args.fold is not None else steps > AUTO_FOLD_STEPS) else None
    graph, layout = (folded[1], folded[3]) if folded is not None else (run.stepgraph, None)
    happened = current = None
    if args.stop is not None:
        stops = run.stops
        if not 0 <= args.stop < len(stops):
            raise CliError(f"--stop {args.stop}: this run has stops 0 to {len(stops) - 1}")
        replay = Replay(run)
        replay.move_to_stop(args.stop)
        moment = replay.moment()
        started, current = moment.nodes_started, moment.current_node
        if folded is not None:  # (a fold card stands for its steps: it has started with its first)
            fmap = folded[2]
            started, current = fmap.shown_started(started), None if current is None else fmap.to_shown(current)
        happened = [i < started for i in range(len(graph.get("nodes") or []))]
    from afp_desktop.app.export.export import ensure_qt_app, export_graph

    ensure_qt_app()
    from afp_desktop.core.safe_write import UnsafeOutput

    if folded is not None:
        inside = sum(fold.end - fold.start for fold in folded[0])
        print_readable(f"{_shown(args.output)}: {len(folded[0])} run(s) of alike iterations folded ({inside:,} of "
                       f"{steps:,} steps in fold cards); --no-fold draws every step", stderr=True)
    try:
        out = export_graph(graph, args.output, scale=args.scale, happened=happened, current=current,
                           include_cursor=args.stop is not None, inputs=inputs, layout=layout)
    except UnsafeOutput as err:
        raise CliError(str(err)) from None
    except OSError as err:
        raise CliError(f"{_shown(args.output)}: cannot write ({err.strerror or err})") from None
    print_readable(f"wrote {_shown(out)}", stderr=True)
    return 0


def _replay_of(args):
    from afp_desktop.core.model.replay import Replay
    from afp_desktop.core.library.status import DEFAULT_TEMPLATES

    templates = load_templates(args.templates) if args.templates else DEFAULT_TEMPLATES
    run = _open(args.file, args.conversation)
    return run, Replay(run, templates, args.app_name)


def cmd_replay(args) -> int:
    """The replay as JSON: the axis length, every top-level stop with its span and the lines seen in it, the errors."""
    _run, replay = _replay_of(args)
    stops = [{"index": span.index, "label": span.label, "kind": span.kind, "position": span.position,
              "span": [span.start, span.end], "typed": list(span.typed), "lines": list(replay.lines_of(span))}
             for span in replay.spans]
    write_json({"length": replay.length, "stops": stops,
                 "errors": [error.as_json() for error in replay.facts.errors]}, args.indent)
    return 0


def cmd_view(args) -> int:
    """The moment at one position, as the window shows it."""
    from afp_desktop.core.model.replay import node_facts
    from afp_desktop.core.views.run_facts import RunFacts

    run, replay = _replay_of(args)
    if args.stop is not None:
        if not 0 <= args.stop < len(replay.spans):
            raise CliError(f"--stop {args.stop}: this run has stops 0 to {len(replay.spans) - 1}")
        replay.move_to_stop(args.stop)
    elif args.typed is not None:
        typed = run.typed_events or []
        if not typed:
            raise CliError(f"--typed: {args.file} has no typed event stream")
        if not 0 <= args.typed <= len(typed):
            raise CliError(f"--typed {args.typed}: this file has typed events 1 to {len(typed)} (0 = before them)")
        replay.move_to(run.axis.typed_after[args.typed - 1] if args.typed else 0)
    else:
        if not 0 <= args.position <= replay.length:
            raise CliError(f"--position {args.position}: this run's positions are 0 to {replay.length}")
        replay.move_to(args.position)
    moment = replay.moment()
    inspector = None
    if moment.current_node is not None:
        inspector = node_facts(run, replay.facts, moment.current_node, moment.position)
    view = moment.as_json(inspector)
    known = RunFacts(run, replay.facts).as_json(run, moment.position)  # (what had happened by this moment)
    view["run"] = {key: known[key] for key in ("end", "resilience", "costUsd", "findings")}
    write_json(view, args.indent)
    return 0


def cmd_inspect(args) -> int:
    from afp_desktop.core.views.inspect import inspect_node
    from afp_desktop.core.model.replay import ReplayFacts

    run = _open(args.file, args.conversation)
    count = len(run.step_fold.nodes)
    if not 0 <= args.node < count:
        raise CliError(f"--node {args.node}: this run's StepGraph has nodes 0 to {count - 1}" if count
                       else f"--node {args.node}: this run's StepGraph has no nodes")
    length = len(run.axis)
    if args.position is not None and not 0 <= args.position <= length:
        raise CliError(f"--position {args.position}: positions run from 0 to {length}")
    write_json(inspect_node(run, ReplayFacts(run), args.node, args.position), args.indent)
    return 0


def cmd_share(args) -> int:
    """One HTML file that replays the run in any browser, offline."""
    from afp_desktop.core.safe_write import write_file
    from afp_desktop.core.views.share_html import page_bytes

    target = Path(args.output)
    inputs = _inputs_of(args.file)
    _check_output(target, inputs)  # before the work: a refused destination costs nothing
    templates = load_templates(args.templates) if args.templates else None
    run = _open(args.file, args.conversation)
    if args.stop is not None and not 0 <= args.stop < len(run.stops):
        raise CliError(f"--stop {args.stop}: this run has stops 0 to {len(run.stops) - 1}" if run.stops
                       else f"--stop {args.stop}: this run has no stops")
    page = page_bytes(run, templates, args.app_name, stop=args.stop, title=Path(args.file).name, redact=args.redact)
    try:
        write_file(target, page, inputs)
    except OSError as err:
        raise CliError(f"{_shown(target)}: cannot write ({err.strerror or err})") from None
    note = "redacted" if args.redact or run.redaction in ("pii", "policy") else "it contains the full conversation"
    print_readable(f"wrote {_shown(target)} ({len(page):,} bytes; {note})", stderr=True)
    return 0


class _NotBuilt:
    """Takes the options of a subcommand that is not built, building nothing."""

    def add_argument(self, *args, **kwargs) -> None:
        return None

    def add_mutually_exclusive_group(self, **kwargs) -> _NotBuilt:
        return self


def _add_max_bytes_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--max-bytes", metavar="SIZE", type=size_arg,
                        help="the largest file (or decompressed content) to read, e.g. 500M or 4G (default: "
                             "$AFP_DESKTOP_MAX_BYTES, else the memory available over what opening the file's "
                             "format takes)")


def _subcommand_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of the subcommands; with `only`, of that one alone (the others' options are not built)."""
    parser = argparse.ArgumentParser(prog="afp-desktop", description="Replay a saved agentfootprint run offline.",
                                     epilog=FORMATS_HELP)
    sub = parser.add_subparsers(dest="command", required=True)
    skipped = _NotBuilt()

    def add(name, help_text, func):
        if only is not None and name != only:
            return skipped
        p = sub.add_parser(name, help=help_text, description=help_text, epilog=FORMATS_HELP)
        p.add_argument("file", metavar="FILE")
        _add_conversation_option(p)
        _add_max_bytes_option(p)
        p.set_defaults(func=func)
        return p

    for name, text, func in (("stepgraph", "print the StepGraph JSON", cmd_stepgraph),
                             ("stops", "print the milestone stops JSON", cmd_stops)):
        add(name, text, func).add_argument("--indent", action="store_true", help="pretty-print")
    p = add("status", "print the status line state and text for every prefix of the typed events", cmd_status)
    p.add_argument("--templates", metavar="MAP.json", help="the whole template map (not merged with the defaults)")
    p.add_argument("--app-name", default="Agent", metavar="NAME", help="{{appName}} (default: Agent)")
    p.add_argument("--indent", action="store_true", help="pretty-print")
    p = add("replay", "print the replay: axis length, stops with their spans and the status lines seen in each, "
                      "and the errors", cmd_replay)
    p.add_argument("--templates", metavar="MAP.json", help="the whole template map (not merged with the defaults)")
    p.add_argument("--app-name", default="Agent", metavar="NAME", help="{{appName}} (default: Agent)")
    p.add_argument("--indent", action="store_true", help="pretty-print")
    p = add("view", "print what every panel shows at one moment of the run", cmd_view)
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--position", type=whole_arg(), metavar="P",
                       help="axis position (0 = before the first event)")
    where.add_argument("--stop", type=whole_arg(), metavar="N", help="the top-level stop N (0-based)")
    where.add_argument("--typed", type=whole_arg(), metavar="K", help="right after the K-th typed event")
    p.add_argument("--templates", metavar="MAP.json", help="the whole template map (not merged with the defaults)")
    p.add_argument("--app-name", default="Agent", metavar="NAME", help="{{appName}} (default: Agent)")
    p.add_argument("--indent", action="store_true", help="pretty-print")
    p = add("info", "describe the file for a person: format, counts, tokens, what it lacks", cmd_info)
    p.add_argument("--json", action="store_true", help="print the same as JSON")
    p.add_argument("--prices", metavar="PRICES.json", help="a price table (USD per million tokens): add the cost")
    if only in (None, "tail"):
        from afp_desktop.cli_tail import add_tail_parser

        add_tail_parser(sub, FORMATS_HELP)
    p = add("convert", "write afp-desktop's lossless line-oriented .jsonl form of any supported file", cmd_convert)
    p.add_argument("-o", "--output", required=True, metavar="OUT.jsonl")
    p = add("export", "render the step graph to PNG or SVG without a display", cmd_export)
    p.add_argument("-o", "--output", required=True, metavar="OUT.png|OUT.svg")
    p.add_argument("--stop", type=whole_arg(), metavar="N",
                   help="show the run as of stop N (0-based); later steps dimmed")
    p.add_argument("--scale", type=number_arg(above=0, most=MAX_SCALE), default=1.0, metavar="S",
                   help=f"scale factor, greater than 0 and at most {MAX_SCALE:g} (default 1)")
    p.add_argument("--fold", action=argparse.BooleanOptionalAction, default=None,
                   help="fold runs of alike iterations into one card each, as the window does (default: when the "
                        "graph has more than 2,000 steps, as the window opens it)")
    p = add("diff", "align two runs by their steps and print the differences as JSON", cmd_diff)
    p.add_argument("other", metavar="B", help="the run to compare FILE (A) with")
    p.add_argument("--indent", action="store_true", help="pretty-print")
    p = add("find", "search the whole run (labels, tools, arguments, results, messages, status lines, …) and print "
                    "the hits as JSON", cmd_find)
    p.add_argument("query", metavar="QUERY", help="plain text (or a regular expression with --regex)")
    p.add_argument("--regex", action="store_true", help="QUERY is a Python regular expression")
    p.add_argument("--ignore-case", action="store_true", help="match upper and lower case alike")
    p.add_argument("--templates", metavar="MAP.json", help="the status-line template map (default: the library's)")
    p.add_argument("--app-name", default="Agent", metavar="NAME", help="{{appName}} (default: Agent)")
    p.add_argument("--max-hits", type=_max_hits_arg, default=DEFAULT_MAX_HITS, metavar="N",
                   help=f"list at most the first N hits in run order (default {DEFAULT_MAX_HITS:,}); when there are "
                        "more, a note on standard error says so")
    p.add_argument("--indent", action="store_true", help="pretty-print")
    p = add("inspect", "print what the inspector shows for one StepGraph node, readable, as JSON", cmd_inspect)
    p.add_argument("--node", type=whole_arg(), required=True, metavar="INDEX",
                   help="the node's index in `stepgraph` order")
    p.add_argument("--position", type=whole_arg(), metavar="P",
                   help="as known at axis position P (default: the end)")
    p.add_argument("--indent", action="store_true", help="pretty-print")
    p = add("share", "write one self-contained HTML file that replays the run in a browser (nothing fetched)",
            cmd_share)
    p.add_argument("-o", "--output", required=True, metavar="OUT.html")
    p.add_argument("--stop", type=whole_arg(), metavar="N",
                   help="the stop the page opens at (0-based; default: the start)")
    p.add_argument("--redact", action="store_true", help="redact the content as agentfootprint's ready-made "
                                                         "content redactor does (the page says so)")
    p.add_argument("--templates", metavar="MAP.json", help="the whole template map (not merged with the defaults)")
    p.add_argument("--app-name", default="Agent", metavar="NAME", help="{{appName}} (default: Agent)")
    return parser


def _window_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="afp-desktop", usage="afp-desktop [FILE [--at STAGE_ID]] [--conversation ID] [--follow] [--max-bytes SIZE] [--screenshot OUT.png [--stop N]]\n"
                                  "       afp-desktop A B --compare [--screenshot OUT.png]\n"
                                  "       afp-desktop diff A B\n"
                                  "       afp-desktop {stepgraph,status,stops,info,convert,export,replay,view,find,inspect,tail,share} FILE ...",
        description="Replay a saved agentfootprint run offline: step graph, milestone timeline, chat-bubble "
                    "preview and inspectors. Nothing re-runs and nothing touches the network.\n\nSubcommands "
                    "(see 'afp-desktop SUBCOMMAND --help'):\n  stepgraph  print the StepGraph JSON\n  status     "
                    "print the status line for every prefix of the typed events\n  stops      print the milestone "
                    "stops JSON\n  info       describe the file: format, counts, what it lacks\n  convert    write "
                    "the lossless .jsonl form\n  export     render the step graph to PNG/SVG headless\n  diff       align two "
                    "runs by their steps and print what differs (JSON)\n  find       search the whole run, print "
                    "the hits as JSON\n  inspect    what one step saw, sent and received (JSON)\n  tail       follow a file being written: the status line as it changes\n  share      one self-contained "
                    "HTML file that replays the run in a browser",
        epilog=FORMATS_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", nargs="?", metavar="FILE", help="trace file to open")
    parser.add_argument("--screenshot", metavar="OUT.png", help="render the window after loading, save, exit")
    parser.add_argument("--stop", type=whole_arg(), metavar="N",
                        help="with --screenshot: move the cursor to stop N first")
    parser.add_argument("--at", metavar="STAGE_ID", help="open at the stop of this runtimeStageId (exact, else the "
                                                        "stop whose span holds it, else the nearest stop)")
    _add_conversation_option(parser)
    parser.add_argument("other", nargs="?", metavar="B", help="with --compare: the run to compare FILE with")
    parser.add_argument("--compare", action="store_true", help="open FILE and B side by side in the compare window")
    parser.add_argument("--follow", action="store_true", help="follow FILE while it is written (File ▸ Follow)")
    parser.add_argument("--size", metavar="WxH", type=_window_size, help="with --screenshot: the window's size "
                        "(default 1600x1000)")
    _add_max_bytes_option(parser)
    parser.add_argument("--version", action="version", version=f"afp-desktop {__version__}")
    return parser


def _window_size(text: str) -> tuple[int, int]:
    width, sep, height = text.lower().partition("x")
    if not (sep and width.isdigit() and height.isdigit() and 320 <= int(width) <= 8000
            and 240 <= int(height) <= 8000):
        raise argparse.ArgumentTypeError(f"{text!r} is not a window size like 1024x640")
    return int(width), int(height)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    from afp_desktop.core.problems import LoadError
    from afp_desktop.core.safe_write import UnsafeOutput

    try:
        if argv and argv[0] in SUBCOMMANDS:
            args = _subcommand_parser(only=argv[0]).parse_args(argv)
            from afp_desktop.core.formats.source import byte_limit

            with byte_limit(getattr(args, "max_bytes", None)):  # (tail reads as the file grows)
                return args.func(args)
        args = _window_parser().parse_args(argv)
        if args.at is not None and (args.stop is not None or not args.file or args.compare):
            raise CliError("--at goes with one FILE (and not with --stop or --compare)")
        if args.stop is not None and not args.screenshot:
            raise CliError("--stop goes with --screenshot (or with the export subcommand)")
        if args.compare and not (args.file and args.other):
            raise CliError("--compare needs two runs: afp-desktop A B --compare")
        if args.other and not args.compare:
            raise CliError(f"{args.other}: one file opens the window; to compare two runs add --compare")
        if args.size is not None and not args.screenshot:
            raise CliError("--size goes with --screenshot")
        if args.screenshot:
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        else:
            _check_display()
        from afp_desktop.app.shell.gui import run_gui

        with _window_byte_limit(args.max_bytes):  # (for every file the window opens)
            if args.compare:
                from afp_desktop.app.shell.gui import run_compare_gui

                return run_compare_gui(args.file, args.other, screenshot=args.screenshot)
            return run_gui(args.file, screenshot=args.screenshot, stop=args.stop, conversation=args.conversation,
                           follow=args.follow, at=args.at, **({"size": args.size} if args.size else {}))
    except LoadError as err:
        print_readable(f"afp-desktop: {err}", stderr=True)
        return 2
    except (CliError, UnsafeOutput) as err:
        print_readable(f"afp-desktop: {err}", stderr=True)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    except MemoryError:
        print_readable("afp-desktop: not enough memory for this file (see --max-bytes)", stderr=True)
        return 2
    except Exception as err:  # a bug: say so in one paragraph rather than a traceback (the tests look for this)
        print_readable(f"afp-desktop: {INTERNAL_ERROR} ({type(err).__name__}: {str(err)[:300]}); please report it "
                       "with the file and the command (see the README's Security section)", stderr=True)
        return 2


def _window_byte_limit(limit: int | None):
    """`byte_limit(limit)` for the window; without --max-bytes nothing to set, and the formats are not imported
    before the window's first frame (the engine process reads the files)."""
    if limit is None:
        from contextlib import nullcontext

        return nullcontext()
    from afp_desktop.core.formats.source import byte_limit

    return byte_limit(limit)


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
