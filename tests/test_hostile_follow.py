"""`tail` and the window's follow meet files that are not regular: a FIFO or a link to /dev/zero as FILE, as
FILE.1 (the rotated older half), or swapped in while they follow. Each is refused or skipped with a sentence,
never read.

Every case runs in a child process with a timeout and a memory ceiling: these are hang guards (a blocking open
of a FIFO, an endless read of a device), not measures of speed; a case that ends in time passes or fails on what
was said.
"""

from __future__ import annotations

import os
import select
import subprocess
import sys

from unittest.mock import patch

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tests.corpus_util import read_bytes
from tests.follow_scripts import WINDOW_FOLLOWING

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GUARD_S = 120  # hang guard: far beyond what any of these takes
MEMORY_CEILING = 2 << 30  # an endless read of a device fails here instead of filling the machine
SCENARIO = "02-react-two-tools"
KINDS = ["fifo", "dev-zero"]
SAID = {"fifo": "named pipe (FIFO)", "dev-zero": "this is a device"}


def _ceiling() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CEILING, MEMORY_CEILING))


def _tail(*args) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "afp_desktop", "tail", *map(str, args), "--poll-interval", "0.01"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=_ceiling)


def _ended(proc: subprocess.Popen) -> tuple[int, str, str]:
    try:
        out, err = proc.communicate(timeout=GUARD_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail("never ended (hang guard): it waits on something that is not a regular file")
    text = err.decode("utf-8", "replace")
    assert "Traceback" not in text and "internal error" not in text
    return proc.returncode, out.decode("utf-8", "replace"), text


def _make(path, kind: str) -> None:
    if kind == "fifo":
        os.mkfifo(path)
    else:
        if not os.path.exists("/dev/zero"):
            pytest.skip("no /dev/zero")
        os.symlink("/dev/zero", path)


@pytest.fixture(autouse=True)
def _posix_only():
    if not hasattr(os, "mkfifo"):
        pytest.skip("FIFOs are a POSIX thing")


@pytest.mark.parametrize("kind", KINDS)
def test_tail_refuses_a_file_that_is_not_regular(tmp_path, kind):
    path = tmp_path / "events.ndjson"
    _make(path, kind)
    code, out, err = _ended(_tail(path, "--timeout", "30"))
    assert code == 2 and out == ""
    assert f"{path}: " in err and SAID[kind] in err


@pytest.mark.parametrize("kind", KINDS)
def test_tail_leaves_out_a_rotated_half_that_is_not_regular(tmp_path, kind):
    path = tmp_path / "events.ndjson"
    path.write_bytes(read_bytes(SCENARIO, "events.ndjson"))  # a whole run: tail ends at its end
    _make(tmp_path / "events.ndjson.1", kind)
    code, out, err = _ended(_tail(path, "--timeout", "30"))
    assert code == 0, err
    assert f"{path}.1: " in err and SAID[kind] in err and "it was not read" in err
    assert out.splitlines()[0] == "Thinking…" and out.splitlines()[-1] == "(no status line)"


@pytest.mark.parametrize("kind", KINDS)
def test_tail_stops_when_the_file_is_swapped_for_one_that_is_not_regular(tmp_path, kind):
    path = tmp_path / "events.ndjson"
    lines = read_bytes(SCENARIO, "events.ndjson").split(b"\n")
    path.write_bytes(b"\n".join(lines[:20]) + b"\n")  # a run still being written: tail waits for more
    proc = _tail(path, "--timeout", "60")
    ready, _, _ = select.select([proc.stdout], [], [], GUARD_S)  # (its first status line: it is following)
    if not ready:
        proc.kill()
        proc.communicate()
        pytest.fail("tail printed nothing (hang guard)")
    assert proc.stdout.readline() == "Thinking…\n".encode()
    swapped = tmp_path / "swapped"
    _make(swapped, kind)
    os.replace(swapped, path)
    code, _out, err = _ended(proc)
    assert code == 2, err
    assert f"{path}: " in err and SAID[kind] in err and "the follow stopped" in err


WINDOW_FOLLOWS = WINDOW_FOLLOWING + """
swapped = sys.argv[2]
typed = len(window.session.run.typed_events)
os.replace(swapped, path)
while window.follow.active:  # (the engine polls the file; the test's hang guard ends a follow that never stops)
    app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)
print(typed, len(window.session.run.typed_events), window.follow.active)
print(window.statusBar().currentMessage())
window.close()
"""


@pytest.mark.parametrize("kind", KINDS)
def test_the_window_stops_following_a_file_swapped_for_one_that_is_not_regular(tmp_path, kind):
    """What was read stays shown; the follow stops, and the status bar says why."""
    path = tmp_path / "events.ndjson"
    lines = read_bytes(SCENARIO, "events.ndjson").split(b"\n")
    path.write_bytes(b"\n".join(lines[:20]) + b"\n")
    swapped = tmp_path / "swapped"
    _make(swapped, kind)
    proc = subprocess.Popen([sys.executable, "-X", "faulthandler", "-c", WINDOW_FOLLOWS, str(path), str(swapped)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=_ceiling,
                            env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    code, out, err = _ended(proc)
    assert code == 0, err
    counts, message = out.splitlines()[:2]
    assert counts == "20 20 False"
    assert message.startswith(f"{path}: ") and SAID[kind] in message and "the follow stopped" in message


def _event(n: int, pad: int = 0) -> bytes:
    return b'{"type":"agentfootprint.test.tick","payload":{"n":%d,"pad":"%s"},"meta":{}}\n' % (n, b"x" * pad)


def _follow_all(follower) -> tuple[list, list]:
    lines, notices = [], []
    while True:
        update = follower.poll()
        lines += update.lines
        notices += update.notices
        if not update.more:
            return lines, notices


def test_the_follower_reads_a_bounded_amount_per_poll_and_leaves_out_a_line_past_the_budget(tmp_path):
    from afp_desktop.core.formats.follow import FileFollower, parse_lines
    from afp_desktop.core.formats.source import byte_limit

    path = tmp_path / "events.ndjson"
    path.write_bytes(_event(0))
    with byte_limit(4096):
        follower = FileFollower(path)
        lines, notices = _follow_all(follower)
        assert [event["payload"]["n"] for event in parse_lines(lines)[0]] == [0] and notices == []
        with open(path, "ab") as handle:
            handle.write(_event(1) + _event(2, pad=3 * 4096) + b"".join(_event(n) for n in range(3, 60)))
        first = follower.poll()
        assert first.more and sum(len(line.data) for line in first.lines) <= 4096
        lines, notices = _follow_all(follower)
        follower.close()
    numbers = [event["payload"]["n"] for event in parse_lines(first.lines + lines)[0]]
    assert numbers == [1, *range(3, 60)]
    assert [notice.code for notice in notices] == ["long-line"]
    assert notices[0].text == f"{path}, line 3: the line is longer than the limit (4 KiB); it was left out"


def test_the_follower_refuses_a_file_larger_than_the_budget(tmp_path):
    from afp_desktop.core.formats.follow import FileFollower
    from afp_desktop.core.formats.source import byte_limit

    path = tmp_path / "events.ndjson"
    path.write_bytes(b"".join(_event(n) for n in range(100)))
    with byte_limit(1024):
        follower = FileFollower(path)
        update = follower.poll()
        assert follower.poll().empty
    assert update.lines == [] and [notice.code for notice in update.notices] == ["refused"]
    assert follower.stopped.startswith(f"{path}: the file is ") and "--max-bytes" in follower.stopped


BUDGET = 256


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lengths=st.lists(st.integers(0, 3 * BUDGET), max_size=25), cuts=st.lists(st.integers(1, 4 * BUDGET)),
       per_poll=st.integers(1, 2 * BUDGET))
def test_a_line_is_kept_exactly_when_it_fits_the_budget_however_the_file_grows(tmp_path, lengths, cuts, per_poll):
    """Whatever the writes and the amount read per poll: every line within the budget arrives whole, in order,
    with its number; every longer line is left out with a notice naming it; memory never holds more."""
    from afp_desktop.core.formats import follow as follow_module
    from afp_desktop.core.formats.follow import FileFollower
    from afp_desktop.core.formats.source import byte_limit

    data = b"".join(b"y" * length + b"\n" for length in lengths)
    path = tmp_path / f"grown-{len(lengths)}-{per_poll}.ndjson"
    path.write_bytes(b"")
    got, long_lines = [], []
    with byte_limit(BUDGET), patch.object(follow_module, "READ_PER_POLL", per_poll):
        follower = FileFollower(path)
        assert follower.poll().empty  # (opened empty: all it reads is growth, past the budget too)
        written = 0
        for cut in [*cuts, len(data)]:
            with open(path, "ab") as handle:
                handle.write(data[written:written + cut])
            written = min(len(data), written + cut)
            while True:
                update = follower.poll()
                got += [(line.number, len(line.data)) for line in update.lines]
                long_lines += [n.text for n in update.notices if n.code == "long-line"]
                assert follower.held_bytes <= BUDGET
                if not update.more:
                    break
            if written == len(data):
                break
        follower.close()
    assert got == [(n, length) for n, length in enumerate(lengths, 1) if 0 < length <= BUDGET]
    assert long_lines == [f"{path}, line {n}: the line is longer than the limit (256 bytes); it was left out"
                          for n, length in enumerate(lengths, 1) if length > BUDGET]
