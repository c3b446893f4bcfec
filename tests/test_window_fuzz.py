"""Hostile documents opened in the real window (pytest-qt, Hypothesis): the cursor visits every stop and every
panel follows it, and no exception reaches a Qt slot — where it would leave a panel showing an earlier moment
while the others moved on. The CLI fuzz (test_fuzz_hypothesis.py) never runs the views only the window shows
(the inspector's sections, the context panel, the readable view); this one found the inspector failing on an
injection whose slot was a list. bench/fuzz_window.py runs the same with many more examples."""

from __future__ import annotations

import os
import sys
import traceback

import pytest
from hypothesis import HealthCheck, given, settings

from afp_desktop.engine.service import Engine, load_run
from afp_desktop.core.formats import LoadError
from afp_desktop.core.library.status import DEFAULT_TEMPLATES
from afp_desktop.core.views.compare import compare_runs, diff
from afp_desktop.core.views.search import SearchIndex
from tests.fuzz_cases import file_bytes, hostile_documents, suffix_of

EXAMPLES = int(os.environ.get("AFP_WINDOW_FUZZ_EXAMPLES", "10"))
STOPS_VISITED = 25
# Runs with tools, progress, injections and several slots: more for the inspector and the bubble to show.
SCENARIOS = ("04-tool-progress", "14-context-injections")
FORMATS = ("ndjson", "trace", "recording")


def visit_every_stop(window, app, run) -> None:
    session = window.session
    session.set_run(run)
    app.processEvents()
    for index in range(min(len(session.stops), STOPS_VISITED)):
        session.move_to_stop(index)
        session.flush()  # the settled moment too: the inspector, the context panel
        app.processEvents()
    session.home()
    session.flush()
    session.end()
    session.flush()
    app.processEvents()
    window.grab()  # every panel painted


def hostile_file_in_the_window(window, app, folder, case, caught: list) -> None:
    """Open one hostile case as the window would; AssertionError with the traceback of any exception a slot
    raised. A file the loader refuses is fine: the window shows the loader's message."""
    caught.clear()
    path = os.path.join(folder, "case" + suffix_of(case[0]))
    with open(path, "wb") as handle:
        handle.write(file_bytes(*case))
    try:
        run = load_run(path)
    except LoadError:
        return
    visit_every_stop(window, app, run)
    assert not caught, caught[0][-4000:]
    # What the window computes on demand rather than on a move: Find's index and a comparison with itself.
    index = SearchIndex(run, DEFAULT_TEMPLATES, "Agent")
    for query in ("a", "tool", "{{"):
        index.find(query)
        index.find(query, ignore_case=True)
    compare_runs(run, run).totals()
    diff(run, run)
    # What the event list and the Context tab ask the engine (a failure there would only be said in the panel).
    engine = Engine()
    engine.adopt(run)
    engine.answer("event_types", {})
    engine.answer("event_filter", {"text": "a"})
    engine.answer("event_rows", {"entries": range(len(run.axis.entries))})
    for position in (0, len(run.axis) // 2, len(run.axis)):
        answer = engine.answer("context", {"position": position})
        for row in answer.view.rows if answer.view is not None else ():
            engine.answer("context_value", {"key": row.key, "commit": answer.view.commit})


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("fmt", FORMATS)
def test_hostile_documents_in_the_window(qtbot, qapp, window, tmp_path, monkeypatch, fmt, scenario):
    caught: list[str] = []
    monkeypatch.setattr(sys, "excepthook", lambda kind, value, tb: caught.append(
        "".join(traceback.format_exception(kind, value, tb))))

    @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(hostile_documents(fmt, scenario))
    def run(case):
        hostile_file_in_the_window(window, qapp, str(tmp_path), case, caught)

    run()


@pytest.mark.parametrize("slot", [["messages"], {"slot": "messages"}, 3, None])
def test_an_injection_whose_slot_is_not_a_string(qtbot, qapp, window, tmp_path, monkeypatch, slot):
    """What the fuzz found: the inspector of the LLM call raised `unhashable type: 'list'` on every settled moment."""
    import orjson

    from tests.corpus_util import read_bytes

    caught: list[str] = []
    monkeypatch.setattr(sys, "excepthook", lambda kind, value, tb: caught.append(
        "".join(traceback.format_exception(kind, value, tb))))
    events = [orjson.loads(line) for line in read_bytes("14-context-injections", "events.ndjson").splitlines()
              if line.strip()]
    injected = [e for e in events if e["type"] == "agentfootprint.context.injected"]
    assert injected
    for event in injected:
        event["payload"]["slot"] = slot
    hostile_file_in_the_window(window, qapp, str(tmp_path), ("ndjson", events), caught)


@pytest.mark.parametrize("path", [True, "sf-llm-call", 5, {"a": 1}])
def test_a_trace_whose_subflow_paths_are_not_lists(qtbot, qapp, window, tmp_path, monkeypatch, path):
    """What the fuzz found next: a subflow step's roll-up (the inspector) raised on `"subflowPath": true`."""
    import orjson

    from tests.corpus_util import read_bytes

    caught: list[str] = []
    monkeypatch.setattr(sys, "excepthook", lambda kind, value, tb: caught.append(
        "".join(traceback.format_exception(kind, value, tb))))
    document = orjson.loads(read_bytes("04-tool-progress", "trace.json"))
    for event in document["events"]:
        if "subflowPath" in event:
            event["subflowPath"] = path
    hostile_file_in_the_window(window, qapp, str(tmp_path), ("trace", document), caught)


@pytest.mark.parametrize("stage_id", [["sf-llm-call#1"], {"id": 1}, "deep"])
def test_a_trace_whose_stage_ids_are_not_strings_can_be_searched(qtbot, qapp, window, tmp_path, monkeypatch,
                                                                 stage_id):
    """The fuzz again: Find's index raised on a list as a runtimeStageId (unhashable), and on a value nested
    thousands of levels deep (its repr, used as a key, went past Python's recursion limit)."""
    import orjson

    from tests.corpus_util import read_bytes
    from tests.fuzz_cases import DEEP

    caught: list[str] = []
    monkeypatch.setattr(sys, "excepthook", lambda kind, value, tb: caught.append(
        "".join(traceback.format_exception(kind, value, tb))))
    document = orjson.loads(read_bytes("04-tool-progress", "trace.json"))
    for event in document["events"]:
        if event.get("type") in ("subflow.entry", "subflow.exit", "tool.start", "tool.end"):
            event["runtimeStageId"] = DEEP if stage_id == "deep" else stage_id
            if "toolCallId" in event:
                event["toolCallId"] = DEEP if stage_id == "deep" else stage_id
    hostile_file_in_the_window(window, qapp, str(tmp_path), ("trace", document), caught)


@pytest.mark.parametrize("element", [["x"], {"a": 1}, "deep"])
def test_a_trace_whose_subflow_paths_hold_lists_opens(qtbot, qapp, window, tmp_path, monkeypatch, element):
    """The window fuzz once more: a subflowPath holding a list made the graph's layout fail (an unhashable path),
    so the file was refused; one nested 1,100 levels deep broke the folding of alike iterations and the framework
    steps, then the inspector's sections of that step (its path text, its LLM call's end, its subflow roll-up)
    and the cards' token totals: comparing such paths went past Python's recursion limit."""
    import orjson

    from tests.corpus_util import read_bytes
    from tests.fuzz_cases import DEEP

    caught: list[str] = []
    monkeypatch.setattr(sys, "excepthook", lambda kind, value, tb: caught.append(
        "".join(traceback.format_exception(kind, value, tb))))
    document = orjson.loads(read_bytes("06-pause-resume", "trace.json"))
    changed = 0
    for event in document["events"]:
        if isinstance(event.get("subflowPath"), list) and event["subflowPath"]:
            event["subflowPath"] = [*event["subflowPath"], DEEP if element == "deep" else element]
            changed += 1
    assert changed
    path = tmp_path / "trace.json"
    path.write_bytes(file_bytes("trace", document))
    load_run(str(path))  # (no LoadError: the file is valid, only odd)
    hostile_file_in_the_window(window, qapp, str(tmp_path), ("trace", document), caught)
