"""The window reads runs in an engine process (app/loading/engine_link.py, engine/process.py): when that process
dies — a crash, a kill, running out of memory — during a load, the window stays up, says so in its banner with a
Reload that opens the file again in a fresh process; killed after a load, the run shown stays and the next open
works. (pytest-qt, a real window; the load is held at its first breathing point until the test has killed it.)"""

from __future__ import annotations

import os
import shutil
import signal


from afp_desktop.app.loading import engine_link
from afp_desktop.app.loading import loader as loader_module
from tests.corpus_util import corpus_path

LOAD_TIMEOUT = 60_000


def sample(tmp_path, name: str = "trace.json", scenario: str = "02-react-two-tools"):
    target = tmp_path / name
    shutil.copy(corpus_path(scenario, name), target)
    return str(target)


def test_the_window_stays_up_when_the_engine_is_killed_during_a_load_and_reload_reads_again(qtbot, engine_window,
                                                                                             tmp_path, monkeypatch):
    window, path = engine_window, sample(tmp_path)
    monkeypatch.setattr(engine_link, "HOLD_LOADS", True)
    with qtbot.waitSignal(window.loader.loads.held, timeout=LOAD_TIMEOUT):
        window.open_file(path)
    pid = window.loader.loads.engine_pid
    assert pid is not None and pid != os.getpid()
    with qtbot.waitSignal(window.loader.engine_ended, timeout=LOAD_TIMEOUT) as ended:
        os.kill(pid, signal.SIGKILL)
    assert ended.args == [path, "signal SIGKILL"]
    assert window.isVisible() and not window.loader.busy and not window.progress.isVisible()
    assert window.banner.sentences[0] == "Reading trace.json stopped: the engine process ended (signal SIGKILL)"
    line = window.banner.lines[0]
    assert line.action_button.isVisible() and line.action_button.text() == "Reload"
    monkeypatch.setattr(engine_link, "HOLD_LOADS", False)
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT) as loaded:
        line.action_button.click()
    assert loaded.args[0].path == path and window.session.run is loaded.args[0]
    assert window.loader.loads.engine_pid != pid
    assert not any("engine process ended" in sentence for sentence in window.banner.sentences)


def test_an_engine_that_ends_with_an_exit_code_is_said_so(qtbot, engine_window, tmp_path, monkeypatch):
    window, path = engine_window, sample(tmp_path)
    monkeypatch.setattr(engine_link, "HOLD_LOADS", True)
    with qtbot.waitSignal(window.loader.loads.held, timeout=LOAD_TIMEOUT):
        window.open_file(path)
    with qtbot.waitSignal(window.loader.engine_ended, timeout=LOAD_TIMEOUT) as ended:
        window.loader.loads.send("quit")  # (held, the engine reads requests: it ends as asked, exit code 0)
        os.kill(window.loader.loads.engine_pid, signal.SIGTERM)
    assert ended.args[1] in ("signal SIGTERM", "exit code 0")
    assert window.isVisible()


def test_a_run_shown_stays_when_the_engine_is_killed_after_its_load_and_the_next_open_works(qtbot, engine_window,
                                                                                           tmp_path):
    window = engine_window
    first, second = sample(tmp_path), sample(tmp_path, "events.ndjson", "06-pause-resume")
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT) as loaded:
        window.open_file(first)
    run = loaded.args[0]
    assert run.path == first and window.session.run is run
    window.loader.loads.warm()  # (a fresh process ready for the next open; the holder keeps the run)
    engine = window.loader.loads.holder
    assert engine is not None and engine is not window.loader.loads.engine
    os.kill(engine.pid, signal.SIGKILL)
    qtbot.waitUntil(lambda: not engine.process.is_alive(), timeout=LOAD_TIMEOUT)
    assert window.isVisible() and window.session.run is run and not window.banner.sentences[:1] == [
        "Reading trace.json stopped: the engine process ended (signal SIGKILL)"]
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT) as loaded:
        window.open_file(second)
    assert loaded.args[0].path == second and window.session.run is loaded.args[0]
    assert window.loader.loads.engine_pid != engine.pid or window.loader.loads.engine_pid is None


def test_a_failure_and_a_cancel_come_back_from_the_engine_in_words(qtbot, engine_window, tmp_path, monkeypatch):
    window = engine_window
    broken = tmp_path / "broken.json"
    broken.write_bytes(b'{"schemaVersion": 1, "events": [')
    with qtbot.waitSignal(window.loader.failed, timeout=LOAD_TIMEOUT) as failed:
        window.open_file(str(broken))
    assert str(broken) in failed.args[0] and "Traceback" not in failed.args[0]
    monkeypatch.setattr(engine_link, "HOLD_LOADS", True)
    with qtbot.waitSignal(window.loader.loads.held, timeout=LOAD_TIMEOUT):
        window.open_file(sample(tmp_path))
    with qtbot.waitSignal(window.loader.cancelled, timeout=LOAD_TIMEOUT):
        window.loader.cancel()
        window.loader.loads.go_on()


def test_a_bundle_of_several_conversations_asks_which_through_the_engine(qtbot, tmp_path, monkeypatch):
    from tests.bundle_util import several_conversations_zip

    monkeypatch.setattr(loader_module, "IN_PROCESS", False)
    path = tmp_path / "several.zip"
    path.write_bytes(several_conversations_zip())
    loader = loader_module.RunLoader()
    try:
        with qtbot.waitSignal(loader.conversation_needed, timeout=LOAD_TIMEOUT) as needed:
            loader.start(path)
        assert needed.args[0] == str(path) and len(needed.args[1]) >= 2
        with qtbot.waitSignal(loader.loaded, timeout=LOAD_TIMEOUT) as loaded:
            loader.start(path, needed.args[1][1].id)
        assert loaded.args[0].bundle.chosen == needed.args[1][1].id
    finally:
        loader.abandon()
        loader.wait(10_000)


def test_a_screenshot_is_taken_of_a_run_the_engine_process_read(qtbot, tmp_path, monkeypatch, capsys):
    """`afp-desktop FILE --screenshot OUT` reads the run as the window's loads do: in an engine process."""
    from afp_desktop import cli
    from afp_desktop.app.loading import engine_link

    monkeypatch.setattr(loader_module, "IN_PROCESS", False)
    opened = []
    real = engine_link.open_in_engine_process
    monkeypatch.setattr(engine_link, "open_in_engine_process", lambda *a, **k: opened.append(a) or real(*a, **k))
    shot = tmp_path / "shot.png"
    assert cli.main([str(sample(tmp_path)), "--screenshot", str(shot), "--stop", "3"]) == 0
    assert opened and shot.stat().st_size > 0
    broken = tmp_path / "broken.json"
    broken.write_text('{"x":', encoding="utf-8")
    assert cli.main([str(broken), "--screenshot", str(tmp_path / "none.png")]) == 2
    err = capsys.readouterr().err
    assert "broken.json, line 1" in err and "not valid JSON" in err and not (tmp_path / "none.png").exists()


def test_closing_the_run_ends_the_engine_process_that_held_it(qtbot, engine_window, tmp_path):
    """File ▸ Close: the engine process holding the closed run ends (its memory goes back to the system); the next
    open reads in a fresh one."""
    window = engine_window
    path = sample(tmp_path)
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        window.open_file(str(path))
    holder = window.loader.loads.holder
    assert holder is not None and holder.process.is_alive()
    window.action("close").trigger()
    qtbot.waitUntil(lambda: not holder.process.is_alive(), timeout=10_000)
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        window.open_file(str(path))
    assert window.loader.loads.holder is not holder and window.session.run is not None


def test_the_window_holds_a_copy_without_event_objects_and_the_engine_makes_the_shared_page(qtbot, engine_window,
                                                                                          tmp_path):
    """The run the engine process sends holds its events packed (reading one raises), and File ▸ Share as web page
    is made by the engine, which holds them."""
    import pytest

    from afp_desktop.core.views.window_copy import EventsInTheEngine, EventsNotHere

    window, path = engine_window, sample(tmp_path, "events.ndjson")
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        window.open_file(path)
    run = window.session.run
    assert isinstance(run.domain_events, EventsInTheEngine) and isinstance(run.typed_events, EventsInTheEngine)
    with pytest.raises(EventsNotHere):
        run.typed_events[5]
    asked = []
    request = window.engine_requests.request
    window.engine_requests.request = lambda tag, kind, *rest: asked.append(kind) or request(tag, kind, *rest)
    share = window.features["share"]
    out = tmp_path / "run.html"
    share.share_to(str(out))
    qtbot.waitUntil(lambda: share.written == str(out), timeout=LOAD_TIMEOUT)
    assert asked == ["share_page"] and window.engine_requests.engine_link.holds(run)
    assert b"get_weather" in out.read_bytes()


def test_a_screenshots_run_comes_from_the_engine_with_its_payloads_checked(tmp_path):
    """The screenshot's banner tells a large Trace's unreadable payloads: the engine checks them before it sends
    the copy (the window does not unpack the run to look)."""
    from afp_desktop.app.loading.engine_link import open_in_engine_process

    path = tmp_path / "broken.json"
    padding = "x" * (600 << 10)  # (a Trace this large keeps its payloads as bytes until read: lazy_trace.py)
    path.write_bytes(b'{"version":1,"redaction":"none","events":[\n'
                     b'{"type":"run.entry","runtimeStageId":"__root__#0","subflowPath":["__root__"],"ts":1,'
                     b'"payload":{"message":"' + padding.encode() + b'"}},\n'
                     b'{"type":"subflow.entry","runtimeStageId":"a#1","subflowPath":["__root__","a"],"ts":2,'
                     b'"subflowName":"A","primitiveKind":"Agent","payload":{"ok":tru}}\n]}')
    run = open_in_engine_process(str(path))
    assert run.payloads_checked
    [problem] = run.payload_problems
    assert problem.problem.line == 3 and str(problem).startswith(f"{path}, line 3, column ")
    assert str(problem).endswith("a payload is not valid JSON: invalid literal, expected 'true'")


def test_a_load_error_crosses_the_process_boundary_whole():
    import pickle

    from afp_desktop.core.formats.bundle import ConversationChoiceNeeded
    from afp_desktop.core.jsonx.lazyjson import LazyJSONError
    from afp_desktop.core.problems import LoadError

    for error in (LoadError("a.json", "not a run", 3, 7), LazyJSONError("b.json", "a payload is not valid JSON", 1)):
        back = pickle.loads(pickle.dumps(error, protocol=5))
        assert type(back) is type(error) and back.problem == error.problem and str(back) == str(error)
    choice = ConversationChoiceNeeded("c.zip", ())
    back = pickle.loads(pickle.dumps(choice, protocol=5))
    assert type(back) is ConversationChoiceNeeded and back.conversations == () and str(back) == str(choice)
