"""`afp-desktop tail FILE`: the status line the chat user sees, printed each time it changes while the file
sink writes FILE (rotation followed). Exits at the run's end, on Ctrl+C (quietly, exit 0), after `--timeout`
seconds without new events (exit 1), or when FILE is not a regular file within the byte budget, at the start or
swapped in later (exit 2, saying why). No Qt.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from afp_desktop.cli_numbers import number_arg, size_arg

END_GRACE_S = 0.3  # after the run's end event, trailing events (integrity disposition, a late token) still come
MAX_POLL_INTERVAL_S = 3600.0
MAX_TIMEOUT_S = 365 * 24 * 3600.0


def add_tail_parser(sub, formats_help: str) -> None:
    text = "follow a file the agent is writing and print the status line each time it changes"
    p = sub.add_parser("tail", help=text, description=text + ". Follows rotation (FILE → FILE.1); exits at the "
                       "run's end, on Ctrl+C, or after --timeout seconds without new events; only a regular file is "
                       "followed (a FIFO or device, at the start or swapped in, ends it with exit 2).",
                       epilog=formats_help)
    p.add_argument("file", metavar="FILE")
    p.add_argument("--templates", metavar="MAP.json", help="the whole template map (not merged with the defaults)")
    p.add_argument("--app-name", default="Agent", metavar="NAME", help="{{appName}} (default: Agent)")
    p.add_argument("--json", action="store_true", help="print {k, state, line} rows (one JSON object per line)")
    p.add_argument("--poll-interval", type=number_arg(least=0.001, most=MAX_POLL_INTERVAL_S),
                   default=0.1, metavar="S", help=f"seconds between reads, 0.001 to {MAX_POLL_INTERVAL_S:g} (0.1)")
    p.add_argument("--timeout", type=number_arg(least=0, most=MAX_TIMEOUT_S), default=None,
                   metavar="S", help="give up after S seconds without new events, at most a year (default: wait "
                                     "for the run's end)")
    p.add_argument("--max-bytes", metavar="SIZE", type=size_arg,
                   help="the largest file to follow, e.g. 500M or 4G (default: from the machine's memory, or "
                        "$AFP_DESKTOP_MAX_BYTES)")
    p.set_defaults(func=cmd_tail)


def _refuse_non_stream(path: Path) -> None:
    """tail follows an NDJSON event stream; say so for anything else (a Trace, a recording, a compressed file)."""
    from afp_desktop.cli import CliError
    from afp_desktop.core.formats.errors import LoadError
    from afp_desktop.core.formats.ndjson import looks_like_ndjson
    from afp_desktop.core.formats.source import GZIP_MAGIC, XZ_MAGIC, open_regular

    if path.is_dir():
        raise CliError(f"{path}: this is a folder, not an event stream")
    try:
        handle, _info = open_regular(path)
    except LoadError as err:
        if not os.path.exists(path):
            return  # not written yet (or a link to nothing yet): wait for it
        raise CliError(str(err)) from None
    try:
        with handle:
            head = handle.read(1 << 20)
    except OSError as err:
        raise CliError(f"{path}: cannot be read ({err.strerror or err})") from None
    if head.startswith(GZIP_MAGIC) or head.startswith(XZ_MAGIC):
        raise CliError(f"{path}: a compressed file is not being written; use 'afp-desktop status' on it")
    if head.strip() and b"\n" in head.strip() and not looks_like_ndjson(head):
        raise CliError(f"{path}: tail follows an NDJSON event stream (the file sink's output), and this is not "
                       "one; use 'afp-desktop status' on a Trace or recording")


def cmd_tail(args) -> int:
    from afp_desktop.cli import load_templates, print_readable, write_json
    from afp_desktop.core.formats.follow import FileFollower, parse_lines
    from afp_desktop.core.formats.live_run import is_run_end
    from afp_desktop.core.library.status import StatusSelector, render_status_line

    templates = load_templates(args.templates) if args.templates else None
    path = Path(args.file)
    _refuse_non_stream(path)
    interval = args.poll_interval

    def say(text: str) -> None:
        print_readable(f"afp-desktop: {text}", stderr=True)

    def emit(k: int, state, line) -> None:
        if args.json:
            write_json({"k": k, "state": state, "line": line}, False)
        else:
            print_readable("(no status line)" if line is None else line)

    follower = FileFollower(path)
    selector, k, shown, ended = StatusSelector(), 0, None, False
    last_growth = time.monotonic()
    try:
        if args.json:
            shown = (None, None)
            emit(0, None, None)
        while True:
            update = follower.poll()
            for notice in update.notices:
                say(notice.text)
            if update.restarted:
                selector, k, ended = StatusSelector(), 0, False
            events, problems = parse_lines(update.lines)
            for problem in problems:
                say(problem.text)
            for event in events:
                selector.feed(event)
                k += 1
                state = selector.current()
                line = render_status_line(state, args.app_name, templates)
                now_shown = (state, line) if args.json else line
                if now_shown != shown:
                    shown = now_shown
                    emit(k, state, line)
                ended = ended or is_run_end(event)
            if follower.stopped is not None:  # (after what it read before stopping is shown)
                return 2
            now = time.monotonic()
            if update.lines or update.restarted:
                last_growth = now
            if ended and now - last_growth >= max(END_GRACE_S, 2 * interval):
                return 0
            if args.timeout is not None and now - last_growth >= args.timeout:
                say(f"no new events for {args.timeout:g} s and the run has not ended; stopping")
                return 1
            if not update.more:
                time.sleep(interval)
    except KeyboardInterrupt:
        return 0
    finally:
        follower.close()
