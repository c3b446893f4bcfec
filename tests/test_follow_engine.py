"""A followed file grows in the engine process (engine/follow.py), not in the window's: the window's process never
imports the follower or the run grower, yet the rows land; an engine that dies while it follows gives the banner a
load gives, with Reload. (Real windows loading through the real engine process.)"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from afp_desktop.core.formats import open_run
from afp_desktop.core.jsonx import jsonio
from afp_desktop.core.views.window_copy import holds_events, window_copy
from afp_desktop.engine.service import Engine
from tests.corpus_util import read_bytes
from tests.follow_scripts import WINDOW_FOLLOWING

SCENARIO = "04-tool-progress"
ROOT = Path(__file__).resolve().parent.parent
LOAD_TIMEOUT = 60_000
GUARD_S = 120  # a hang guard for the window's process, never a speed limit


def _lines() -> list[bytes]:
    return [line + b"\n" for line in read_bytes(SCENARIO, "events.ndjson").split(b"\n") if line.strip()]


def typed_count(window) -> int:
    run = window.session.run
    return len(run.typed_events) if run is not None and run.typed_events is not None else -1


WINDOW_FOLLOWS_GROWTH = WINDOW_FOLLOWING + """
rest, total = sys.argv[2], int(sys.argv[3])
first = len(window.session.run.typed_events)
with open(path, "ab") as out, open(rest, "rb") as more:
    out.write(more.read())
while len(window.session.run.typed_events) < total:  # (the test's hang guard ends a follow that never grows)
    app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)
window.follow.growth.catch_up(now=True)
print(first, len(window.session.run.typed_events), window.panels["events"].model.rowCount())
print(sorted(name for name in ("afp_desktop.core.formats.follow", "afp_desktop.core.formats.live_run",
                               "afp_desktop.engine.follow") if name in sys.modules))
window.follow.stop()
window.loader.abandon()
window.loader.wait()
window.close()
"""


def test_a_followed_file_grows_in_the_engine_and_the_window_never_reads_its_lines(tmp_path):
    lines = _lines()
    path, rest = tmp_path / "events.ndjson", tmp_path / "rest"
    path.write_bytes(b"".join(lines[:25]))
    rest.write_bytes(b"".join(lines[25:]))
    (tmp_path / "whole.ndjson").write_bytes(b"".join(lines))
    whole = open_run(str(tmp_path / "whole.ndjson"))
    proc = subprocess.Popen([sys.executable, "-c", WINDOW_FOLLOWS_GROWTH, str(path), str(rest), str(len(lines))],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    try:
        out, err = proc.communicate(timeout=GUARD_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    assert proc.returncode == 0, err.decode()
    counts, imported = out.decode().splitlines()[:2]
    assert counts == f"25 {len(lines)} {len(whole.axis.entries)}"  # every event in, every row in the event list
    assert imported == "[]"  # the lines were read, parsed and projected in the engine process only


def test_an_engine_killed_while_it_follows_gives_the_banner_of_a_load_and_reload_follows_again(qtbot, engine_window,
                                                                                                tmp_path):
    window, lines = engine_window, _lines()
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"".join(lines[:25]))
    window.open_file(str(path), follow=True)
    qtbot.waitUntil(lambda: window.follow.active and typed_count(window) == 25, timeout=LOAD_TIMEOUT)
    with open(path, "ab") as out:
        out.write(b"".join(lines[25:40]))
    qtbot.waitUntil(lambda: typed_count(window) == 40, timeout=LOAD_TIMEOUT)  # (the engine follows it)
    pid = window.loader.loads.engine_pid
    assert pid is not None and pid != os.getpid()
    with qtbot.waitSignal(window.follow.engine_ended, timeout=LOAD_TIMEOUT) as ended:
        os.kill(pid, signal.SIGKILL)
    assert ended.args == [str(path), "signal SIGKILL"]
    assert window.isVisible() and not window.follow.active and window.follow.indicator.isHidden()
    assert typed_count(window) == 40  # what was read stays shown
    assert window.banner.sentences[0] == "Reading events.ndjson stopped: the engine process ended (signal SIGKILL)"
    line = window.banner.lines[0]
    assert line.action_button.isVisible() and line.action_button.text() == "Reload"

    with open(path, "ab") as out:
        out.write(b"".join(lines[40:]))
    line.action_button.click()  # a fresh engine reads the file again, and follows it (it was being followed)
    qtbot.waitUntil(lambda: typed_count(window) == len(lines) and window.follow.active, timeout=LOAD_TIMEOUT)
    assert window.loader.loads.engine_pid not in (None, pid)
    assert not any("engine process ended" in sentence for sentence in window.banner.sentences)


def test_a_big_growth_comes_through_a_spill_file_and_lands_whole(qtbot, engine_window, tmp_path, monkeypatch):
    from afp_desktop.app.loading import follow_link

    monkeypatch.setattr(follow_link, "SPILL_ABOVE_BYTES", 10)  # (every growth's copy: through a spill file)
    window, lines = engine_window, _lines()
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"".join(lines[:25]))
    window.open_file(str(path), follow=True)
    qtbot.waitUntil(lambda: window.follow.active and typed_count(window) == 25, timeout=LOAD_TIMEOUT)
    spills = []
    window.loader.loads.followed.connect(lambda _id, kind, rest: spills.append(rest[0]) if kind == "grown_spill"
                                         else None)
    with open(path, "ab") as out:
        out.write(b"".join(lines[25:]))
    qtbot.waitUntil(lambda: typed_count(window) == len(lines), timeout=LOAD_TIMEOUT)
    (tmp_path / "whole.ndjson").write_bytes(b"".join(lines))
    whole = window_copy(Engine().open(str(tmp_path / "whole.ndjson")), whole=False)  # (as an open shows it)
    assert window.session.run.stepgraph == whole.stepgraph and window.session.stops == whole.stops
    assert spills and not any(os.path.exists(spill) for spill in spills)  # received, then removed


def test_the_follower_answers_about_the_grown_run_the_window_shows(qtbot, engine_window, tmp_path):
    """Requests about a followed run go to the process that grew it, about the run the window shows: a step only the
    grown run has is answered whole (its payloads are in the engine, not in the window's copy)."""
    window, lines = engine_window, _lines()
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"".join(lines[:25]))
    window.open_file(str(path), follow=True)
    qtbot.waitUntil(lambda: window.follow.active and typed_count(window) == 25, timeout=LOAD_TIMEOUT)
    steps_before = len(window.session.run.step_fold.nodes)
    with open(path, "ab") as out:
        out.write(b"".join(lines[25:]))
    qtbot.waitUntil(lambda: typed_count(window) == len(lines), timeout=LOAD_TIMEOUT)
    run = window.session.run
    assert holds_events(run) is False  # the window holds no event of the followed run
    last = len(run.step_fold.nodes) - 1
    assert last >= steps_before  # (a step the run shown before the growth did not have)
    answers: list = []
    window.engine_requests.request("test", "step_json", {"index": last}, answers.append, answers.append)
    qtbot.waitUntil(lambda: bool(answers), timeout=LOAD_TIMEOUT)
    (tmp_path / "whole.ndjson").write_bytes(b"".join(lines))
    whole = open_run(str(tmp_path / "whole.ndjson"))
    assert json.loads(answers[0]) == json.loads(jsonio.dumps(whole.step_fold.nodes[last]))


def test_growth_after_growth_reaches_the_window_once_a_fresh_process_waits_for_the_next_load(qtbot, engine_window,
                                                                                                tmp_path):
    """The follow goes to the process that read the file; the window's "shown" that lets it send the next growth
    goes there too, not to the fresh process warmed for the next open (which would leave the follow waiting)."""
    window, lines = engine_window, _lines()
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"".join(lines[:25]))
    window.open_file(str(path), follow=True)
    qtbot.waitUntil(lambda: window.follow.active and typed_count(window) == 25, timeout=LOAD_TIMEOUT)
    loads = window.loader.loads
    loads.warm()  # (what its timer does a moment after a run is shown)
    assert loads.engine is not None and loads.engine is not loads.holder
    for upto in range(30, len(lines) + 5, 5):  # one growth at a time, each after the window showed the last
        with open(path, "ab") as out:
            out.write(b"".join(lines[upto - 5:min(upto, len(lines))]))
        qtbot.waitUntil(lambda shown=min(upto, len(lines)): typed_count(window) == shown, timeout=LOAD_TIMEOUT)
