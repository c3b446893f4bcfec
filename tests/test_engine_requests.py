"""Requests to the engine process about the run it loaded (engine/process.py, app/loading/engine_requests.py): Find
runs there and gives the core's hits; a newer query supersedes one queued or running (only the newest answer
reaches the panel); an engine killed after its load leaves the window up, and the search says it could not run.
(pytest-qt, a real window loading through the real engine process; requests are held at their first breathing
point with engine_link.HOLD_REQUESTS.)"""

from __future__ import annotations

import os
import signal

from PySide6.QtCore import Qt

from afp_desktop.app.loading import engine_link
from afp_desktop.core.formats import open_run
from afp_desktop.core.views.search import SearchIndex
from afp_desktop.core.views.search_limits import DEFAULT_MAX_HITS
from tests.inspector_reading import inspector_answered
from tests.test_engine_process import LOAD_TIMEOUT, sample

SEARCH_TIMEOUT = 60_000


def open_through_the_engine(qtbot, window, path: str):
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT) as loaded:
        window.open_file(path)
    run = loaded.args[0]
    assert window.session.run is run and window.loader.loads.holds(run)
    inspector_answered(qtbot, window)  # (the inspector asks about the step at the cursor: answered before counting)
    return run


def show_find(qtbot, window):
    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    return window.panels["find"]


def search(qtbot, panel, query: str) -> None:
    panel.search_box.setText(query)
    with qtbot.waitSignal(panel.searched, timeout=SEARCH_TIMEOUT):
        panel.search()


def test_find_through_the_engine_process_gives_the_cores_hits(qtbot, engine_window, tmp_path):
    window, path = engine_window, sample(tmp_path)
    open_through_the_engine(qtbot, window, path)
    panel = show_find(qtbot, window)
    replies = []
    window.loader.loads.replied.connect(lambda request_id, kind, _value: replies.append(kind))
    core = SearchIndex(open_run(path), window.session.templates, window.session.app_name)
    for query in ("Oslo", "convert_units", "e"):
        search(qtbot, panel, query)
        expected = list(core.find(query, ignore_case=True, limit=DEFAULT_MAX_HITS))
        assert expected and [panel.model.hit(row) for row in range(panel.model.rowCount())] == expected
        assert panel.count_label.text() == f"{len(expected):,} match{'es' if len(expected) != 1 else ''}"
    assert replies.count("answer") >= 3  # (the answers came from the engine process)


def test_a_newer_query_supersedes_one_running_and_one_queued(qtbot, engine_window, tmp_path, monkeypatch):
    window = engine_window
    open_through_the_engine(qtbot, window, sample(tmp_path))
    panel = show_find(qtbot, window)
    replies: dict[str, list[int]] = {}
    window.loader.loads.replied.connect(lambda request_id, kind, value: kind == "answer" and value is None or  # (the
                                        replies.setdefault(kind, []).append(request_id))  # index's, made beforehand)
    shown = []
    panel.searched.connect(lambda: shown.append(panel.count_label.text()))
    monkeypatch.setattr(engine_link, "HOLD_REQUESTS", True)
    panel.search_box.setText("Oslo")
    with qtbot.waitSignal(window.loader.loads.held, timeout=SEARCH_TIMEOUT):  # running, held at a breathing point
        panel.search()
    monkeypatch.setattr(engine_link, "HOLD_REQUESTS", False)
    panel.search_box.setText("get_weather")
    panel.search()  # queued behind the one running
    panel.search_box.setText("convert_units")
    with qtbot.waitSignal(panel.searched, timeout=SEARCH_TIMEOUT):
        panel.search()
        window.loader.loads.go_on()
    qtbot.waitUntil(lambda: len(replies.get("superseded", [])) == 2, timeout=SEARCH_TIMEOUT)
    assert len(replies.get("answer", [])) == 1  # only the newest was answered: the other two never ran to the end
    excerpts = [panel.model.hit(row).excerpt for row in range(panel.model.rowCount())]
    assert excerpts and all("convert_units" in excerpt for excerpt in excerpts)
    assert len(shown) == 1 and not panel.searching


def test_searching_after_the_engine_was_killed_leaves_the_window_up_with_a_message(qtbot, engine_window,
                                                                                   tmp_path):
    window, path = engine_window, sample(tmp_path)
    run = open_through_the_engine(qtbot, window, path)
    panel = show_find(qtbot, window)
    engine = window.loader.loads.holder
    os.kill(engine.pid, signal.SIGKILL)
    qtbot.waitUntil(lambda: not engine.process.is_alive(), timeout=LOAD_TIMEOUT)
    search(qtbot, panel, "Oslo")
    assert panel.count_label.text() == ("The search could not run: the engine process ended (signal SIGKILL); "
                                        "Reload the file to use it again.")
    assert window.isVisible() and window.session.run is run and panel.model.rowCount() == 0
    assert "The engine process ended (signal SIGKILL): searching trace.json needs Reload" in window.banner.sentences
    line = next(line for line in window.banner.lines if line.action_button.text() == "Reload")
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT) as loaded:
        line.action_button.click()
    assert loaded.args[0].path == path
    search(qtbot, panel, "Oslo")
    assert panel.model.rowCount() and panel.count_label.text().endswith("matches")


def test_queries_typed_while_the_index_is_built_wait_for_it_and_never_stop_it(qtbot, engine_window, tmp_path,
                                                                              monkeypatch):
    window = engine_window
    open_through_the_engine(qtbot, window, sample(tmp_path))
    replies: list[tuple[str, bool]] = []
    window.loader.loads.replied.connect(lambda _id, kind, value: replies.append((kind, value is None)))
    monkeypatch.setattr(engine_link, "HOLD_REQUESTS", True)
    with qtbot.waitSignal(window.loader.loads.held, timeout=SEARCH_TIMEOUT):  # the index's build, held
        panel = show_find(qtbot, window)
    monkeypatch.setattr(engine_link, "HOLD_REQUESTS", False)
    panel.search_box.setText("get_weather")
    panel.search()
    panel.search_box.setText("convert_units")
    with qtbot.waitSignal(panel.searched, timeout=SEARCH_TIMEOUT):
        panel.search()
        window.loader.loads.go_on()
    qtbot.waitUntil(lambda: len(replies) == 3, timeout=SEARCH_TIMEOUT)
    assert replies == [("answer", True), ("superseded", True), ("answer", False)]  # (index built, one query dropped)
    assert all("convert_units" in panel.model.hit(row).excerpt for row in range(panel.model.rowCount()))


def test_a_later_load_that_fails_or_is_cancelled_leaves_the_run_shown_with_its_engine(qtbot, engine_window, tmp_path,
                                                                                     monkeypatch):
    """Each load goes to a process of its own: the process holding the run shown keeps it until another run takes
    its place, so after a later open fails or is cancelled the run shown is still asked of its engine (never
    unpacked in the window's process), and a later open that succeeds ends that process."""
    from afp_desktop.app.loading import engine_link

    window, path = engine_window, sample(tmp_path)
    run = open_through_the_engine(qtbot, window, path)
    holder = window.loader.loads.holder
    in_the_window: list[str] = []
    threads = window.engine_requests.threads
    monkeypatch.setattr(threads, "request", lambda tag, *rest: in_the_window.append(tag) or 0)
    broken = tmp_path / "broken.json"
    broken.write_bytes(b'{"schemaVersion": 1, "events": [')
    with qtbot.waitSignal(window.loader.failed, timeout=LOAD_TIMEOUT):
        window.open_file(str(broken))
    monkeypatch.setattr(engine_link, "HOLD_LOADS", True)
    with qtbot.waitSignal(window.loader.loads.held, timeout=LOAD_TIMEOUT):
        window.open_file(sample(tmp_path, "events.ndjson", "06-pause-resume"))
    with qtbot.waitSignal(window.loader.cancelled, timeout=LOAD_TIMEOUT):
        window.loader.cancel()
        window.loader.loads.go_on()
    monkeypatch.setattr(engine_link, "HOLD_LOADS", False)
    assert window.session.run is run and window.loader.loads.holder is holder and holder.process.is_alive()
    panel = show_find(qtbot, window)
    search(qtbot, panel, "Oslo")
    assert panel.model.rowCount() > 0 and in_the_window == []
    open_through_the_engine(qtbot, window, sample(tmp_path, "events.ndjson", "06-pause-resume"))
    assert window.loader.loads.holder is not holder
    qtbot.waitUntil(lambda: not holder.process.is_alive(), timeout=LOAD_TIMEOUT)


def test_the_part_of_a_big_file_shown_while_it_is_read_is_asked_of_the_process_reading_it(qtbot, engine_window,
                                                                                          tmp_path, monkeypatch):
    """A big file's first part is shown while the rest is read: its copy holds no event (nor a packed run for the
    window to unpack); the process reading the file answers the requests about it between pieces of its reading."""
    from tests.corpus_util import read_bytes

    window = engine_window
    path = tmp_path / "events.ndjson"
    stream = read_bytes("15-large-run", "events.ndjson")
    path.write_bytes(stream + stream)  # (two runs appended: over prefixes.MIN_BYTES, so read in parts)
    in_the_window: list[str] = []
    monkeypatch.setattr(window.engine_requests.threads, "request", lambda tag, *rest: in_the_window.append(tag) or 0)
    monkeypatch.setattr(engine_link, "HOLD_LOADS", "part")  # (the load waits once its first part is sent)
    parts: list = []
    window.loader.prefix.connect(parts.append)
    with qtbot.waitSignal(window.loader.loads.held, timeout=LOAD_TIMEOUT):
        window.open_file(str(path))
    qtbot.waitUntil(lambda: bool(parts) and window.session.run is parts[-1], timeout=LOAD_TIMEOUT)
    part = parts[-1]
    assert window.loader.busy and part.domain_events.packed is None  # (nothing for the window to unpack)
    steps = len(part.step_fold.nodes)
    whole = open_run(str(path))
    assert steps < len(whole.step_fold.nodes)
    answers: list = []
    requests = window.engine_requests
    requests.request("last", "step_json", {"index": steps - 1}, answers.append, answers.append)
    requests.request("past", "step_json", {"index": steps}, answers.append, answers.append)
    qtbot.waitUntil(lambda: len(answers) == 2, timeout=LOAD_TIMEOUT)
    assert window.loader.busy  # (answered while the file is still being read)
    assert '"id"' in answers[0]  # the part's last step, whole
    assert f"the run has no step {steps} (it has {steps})" in answers[1]  # asked about the part, not the whole run
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        window.loader.loads.go_on()
    monkeypatch.setattr(engine_link, "HOLD_LOADS", False)
    answers.clear()
    requests.request("past", "step_json", {"index": steps}, answers.append, answers.append)
    qtbot.waitUntil(lambda: bool(answers), timeout=LOAD_TIMEOUT)
    assert '"id"' in answers[0]  # (the whole run now)
    assert in_the_window == []  # nothing was answered in the window's process
