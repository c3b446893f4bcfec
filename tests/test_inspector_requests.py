"""The inspector's content is the engine's answer to an "inspect" request (core/views/inspector_content.py): the
window shows the step's name at once and "Reading…" until the answer, never an answer for a moment no longer shown,
and a plain sentence when the engine cannot answer. The window reads none of the run's events to inspect a step.
(pytest-qt on the real panel; requests answered by the in-process engine, a recorder standing in for it, or the real
engine process.)"""

from __future__ import annotations

import os
import pickle
import signal
import threading

from PySide6.QtWidgets import QApplication

from afp_desktop.app.panels.panel import shown_alone
from afp_desktop.core.formats import lazy_trace, open_run  # before the session: formats must initialise first
from afp_desktop.app.panels.inspector import READING, InspectorPanel
from afp_desktop.app.session import Session
from afp_desktop.app.shell.gui import settle_until_answered
from afp_desktop.core.jsonx.lazyjson import LazyJSON
from afp_desktop.core.views.inspector_content import inspector_content
from afp_desktop.engine.service import Engine
from tests.corpus_util import corpus_path
from tests.inspector_reading import read
from tests.test_engine_process import LOAD_TIMEOUT, sample
from tests.test_engine_requests import open_through_the_engine


def recording(scenario: str):
    return open_run(str(corpus_path(scenario, "recording.json")))


def first(run, kind: str) -> int:
    return next(i for i, node in enumerate(run.step_fold.nodes) if node["kind"] == kind)


class WindowCannotRead(list):
    """Events that raise when read on the window's thread: only the engine (another thread here) may read them."""

    def _check(self) -> None:
        if threading.current_thread() is threading.main_thread():
            raise AssertionError("the window read the run's events")

    def __getitem__(self, item):
        self._check()
        return super().__getitem__(item)

    def __iter__(self):
        self._check()
        return super().__iter__()

    def __len__(self):
        self._check()
        return super().__len__()


class RecordedRequests:
    """Stands in for the window's engine requests: keeps each request so a test answers it when it chooses."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str, dict, object, object]] = []
        self.dropped: list[str] = []

    def request(self, tag, kind, args, on_answer, on_failed) -> None:
        self.sent.append((tag, kind, args, on_answer, on_failed))

    def drop(self, tag) -> None:
        self.dropped.append(tag)


def answer(run, sent) -> None:
    """Answer a recorded request as the engine would (through a pickle, as from the engine process)."""
    _tag, kind, args, on_answer, _on_failed = sent
    engine = Engine()
    engine.adopt(run)
    on_answer(pickle.loads(pickle.dumps(engine.answer(kind, args))))


def inspector_with(qtbot, run, requests=None, position=None):
    session = Session()
    session.set_run(run, position=position)
    inspector = shown_alone(session, InspectorPanel(session, requests=requests))
    qtbot.addWidget(inspector)
    inspector.resize(520, 700)
    inspector.show()
    qtbot.waitExposed(inspector)
    return session, inspector


def test_the_content_is_plain_data_with_nothing_of_the_run_in_it(monkeypatch):
    monkeypatch.setattr(lazy_trace, "MIN_BYTES", 0)  # read this small Trace the way large ones are read
    run = open_run(str(corpus_path("02-react-two-tools", "trace.json")))
    assert any(type(event.get("payload")) is LazyJSON for event in run.domain_events)  # (payloads read when shown)
    for index in range(len(run.step_fold.nodes)):
        for position in (None, 0, len(run.axis) // 2):
            content = inspector_content(run, index, position)
            assert pickle.loads(pickle.dumps(content)) == content
            assert "LazyJSON" not in repr(content)
            assert content["index"] == index and content["readable"]["sections"] is not None


def test_the_inspector_shows_a_step_whose_events_the_window_cannot_read(qtbot):
    run = recording("02-react-two-tools")
    session, inspector = inspector_with(qtbot, run)
    read(qtbot, inspector)
    run.domain_events = WindowCannotRead(run.domain_events)
    run.typed_events = WindowCannotRead(run.typed_events)
    tool = first(run, "llm->tool")
    session.select_node(tool)
    assert READING in inspector.reading_line.text() and inspector.reading_line.isVisible()
    assert run.step_fold.nodes[tool]["label"] in inspector.title.text()  # the step's name at once
    read(qtbot, inspector)
    inspector.readable.flush()
    assert not inspector.reading_line.isVisible()
    assert {"Arguments", "Result"} <= set(inspector.readable.titles)
    assert "Oslo: 18°C, light rain" in inspector.readable.section_texts().values()
    assert inspector.tool_result.model.rowCount() > 0 and any("call id" == name for name, _ in
                                                              inspector.content["header"])
    session.move_to(0, immediate=True)
    read(qtbot, inspector)
    assert "starts later" in inspector.note.text()


def test_an_answer_for_a_moment_no_longer_shown_is_never_drawn(qtbot):
    run = recording("02-react-two-tools")
    requests = RecordedRequests()
    session, inspector = inspector_with(qtbot, run, requests)
    llm, tool = first(run, "user->llm"), first(run, "llm->tool")
    session.select_node(llm)
    session.select_node(tool)
    older, newer = requests.sent[-2], requests.sent[-1]
    assert (older[2]["index"], newer[2]["index"]) == (llm, tool)
    answer(run, older)  # the older moment's answer comes late
    assert inspector.is_reading and inspector.content is None and inspector.node_index == tool
    assert inspector.reading_line.text() == READING
    answer(run, newer)
    assert not inspector.is_reading and inspector.content["index"] == tool and inspector.node["kind"] == "llm->tool"
    answer(run, older)  # (and after it too)
    assert inspector.content["index"] == tool


def test_stepping_fast_asks_at_each_step_and_shows_only_the_last_answer(qtbot):
    run = recording("04-tool-progress")
    session, inspector = inspector_with(qtbot, run)
    read(qtbot, inspector)
    drawn: list[int] = []
    inspector.content_shown.connect(lambda: drawn.append(inspector.content["position"]))
    asked: list[dict] = []
    requests = inspector.requests
    sent = requests.request
    requests.request = lambda tag, kind, args, *rest: asked.append(args) or sent(tag, kind, args, *rest)
    ends = sorted({stop["axisEnd"] for stop in run.stops} - {session.position})[:12]
    assert len(ends) > 5
    for end in ends:  # no event-loop turn between the steps: each answer comes after the next step
        session.move_to(end, immediate=True)
    assert [args["position"] for args in asked] == ends
    read(qtbot, inspector)
    assert requests.threads.wait(20_000)  # every request ended, and its reply was delivered:
    QApplication.processEvents()
    assert drawn == [ends[-1]]
    assert inspector.content == inspector_content(run, session.moment.current_node, ends[-1])


def test_a_request_that_fails_says_so_in_a_sentence(qtbot):
    run = recording("02-react-two-tools")
    requests = RecordedRequests()
    session, inspector = inspector_with(qtbot, run, requests)
    session.select_node(first(run, "llm->tool"))
    with qtbot.waitSignal(inspector.failed_shown):
        requests.sent[-1][4]("the engine process ended (signal SIGKILL); Reload the file to use it again")
    text = inspector.reading_line.text()
    assert text == ("This step's content could not be read: the engine process ended (signal SIGKILL); Reload the "
                    "file to use it again.")
    assert inspector.reading_line.isVisible() and not inspector.tabs.isVisible() and not inspector.is_reading


def test_the_engine_process_answers_and_a_killed_one_leaves_a_sentence(qtbot, engine_window, tmp_path):
    window, path = engine_window, sample(tmp_path)
    run = open_through_the_engine(qtbot, window, path)
    inspector = window.panels["inspector"]
    window.docks["inspector"].raise_()
    replies: list[str] = []
    window.loader.loads.replied.connect(lambda _id, kind, _value: replies.append(kind))
    tool = first(run, "llm->tool")
    window.session.select_node(tool)
    window.session.flush()
    read(qtbot, inspector)
    assert replies == ["answer"]  # (from the engine process)
    assert inspector.content == inspector_content(open_run(path), tool, window.session.moment.position)
    engine = window.loader.loads.holder
    os.kill(engine.pid, signal.SIGKILL)
    qtbot.waitUntil(lambda: not engine.process.is_alive(), timeout=LOAD_TIMEOUT)
    with qtbot.waitSignal(inspector.failed_shown, timeout=LOAD_TIMEOUT) as failed:
        window.session.select_node(first(run, "user->llm"))
        window.session.flush()
    assert failed.args[0].startswith("This step's content could not be read: the engine process ended (signal ")
    assert window.isVisible() and inspector.reading_line.text() == failed.args[0]


def test_the_window_s_inspector_asks_the_window_s_engine_docked_or_floating(qtbot, window):
    inspector = window.panels["inspector"]
    assert inspector.requests is window.engine_requests
    window.docks["inspector"].setFloating(True)
    assert inspector.window() is not window and inspector.requests is window.engine_requests


def test_a_screenshot_waits_for_the_inspector_s_answer(qtbot, window):
    run = recording("02-react-two-tools")
    window.session.set_run(run)  # (as --screenshot does: the run given, then the picture)
    window.session.select_node(first(run, "llm->tool"))
    window.session.flush()
    inspector = window.panels["inspector"]
    assert inspector.is_reading and window.engine_requests.pending
    settle_until_answered(QApplication.instance(), window.engine_requests)
    assert not inspector.is_reading and not window.engine_requests.pending
    assert inspector.content["index"] == first(run, "llm->tool") and inspector.readable.section_texts()
