"""The inspector and its JSON tree: slot payloads of an LLM call, a tool call's progress reports, subflow
rollups, literal display of markup, search / copy path / copy value, lazy children and bounded previews."""

from __future__ import annotations

import json

from afp_desktop.app.panels.panel import shown_alone
from afp_desktop.core.formats import lazy_trace, open_run  # before the session: formats must initialise first
from afp_desktop.core.jsonx.lazyjson import LazyJSON
from afp_desktop.app.panels import json_tree
from afp_desktop.app.widgets.plain_text import plain_tooltip
from afp_desktop.app.panels.inspector import InspectorPanel
from afp_desktop.app.panels.json_tree import JsonModel, JsonTreeView, path_string
from afp_desktop.app.pacing.scheduler import SETTLE_MS, TURN_MS, ManualClock, TurnQueue
from afp_desktop.app.session import Session
from tests.corpus_util import corpus_path
from tests.inspector_reading import read

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QLabel

MARKUP = "<b>bold</b><script>x</script>"


def open_inspector(qtbot, run, position=None, clock=None):
    session = Session(clock=clock, queue=TurnQueue(clock) if clock is not None else None)
    session.set_run(run, position=position)
    inspector = shown_alone(session, InspectorPanel(session))
    qtbot.addWidget(inspector)
    read(qtbot, inspector)
    return session, inspector


def recording(scenario):
    return open_run(str(corpus_path(scenario, "recording.json")))


def first(run, kind, **fields):
    return next(i for i, n in enumerate(run.stepgraph["nodes"])
                if n["kind"] == kind and all(n.get(k) == v for k, v in fields.items()))


def top_keys(view: JsonTreeView) -> list:
    model = view.model
    return [model.data(model.index(r, 0)) for r in range(model.rowCount())]


def visible_tabs(inspector) -> list[str]:
    return [inspector.tabs.tabText(i) for i in range(inspector.tabs.count()) if inspector.tabs.isTabVisible(i)]


def test_llm_node_shows_its_slot_payloads(qtbot):
    run = recording("02-react-two-tools")
    session, inspector = open_inspector(qtbot, run)
    index = first(run, "user->llm")
    session.select_node(index)
    read(qtbot, inspector)
    assert inspector.tabs.currentWidget() is inspector.readable  # the Readable tab comes first (issue 15)
    assert {"Slots", "Injections", "Text", "Raw JSON"} <= set(visible_tabs(inspector))
    tree = inspector.slots_tree
    assert top_keys(tree) == ["systemPrompt", "messages", "tools"]
    # the messages slot's entry payload, opened on demand, holds the user's message
    assert tree.select_path(("messages", "entryPayload", "messages", 0, "content"))
    current = tree.tree.currentIndex()
    assert tree.model.data(current.siblingAtColumn(1)) == "Weather in Oslo in Fahrenheit?"
    assert tree.copy_path() == "$.messages.entryPayload.messages[0].content"
    assert QGuiApplication.clipboard().text() == "$.messages.entryPayload.messages[0].content"
    assert tree.copy_value() == '"Weather in Oslo in Fahrenheit?"'
    # search finds keys and values and walks through them
    assert tree.search("toolSchemas") == 1
    assert tree.current_path() == ("tools", "exitPayload", "toolSchemas")
    count = tree.search("weather")
    assert count > 3 and tree.match_label.text() == f"1 / {count}"
    tree.next_match()
    assert tree.match_label.text() == f"2 / {count}"
    tree.previous_match()
    tree.previous_match()
    assert tree.match_label.text() == f"{count} / {count}"
    # injections table: one row per injection with source and slot
    node = run.stepgraph["nodes"][index]
    table = inspector.injections
    assert table.rowCount() == len(node["injections"])
    assert [table.item(r, 0).text() for r in range(table.rowCount())] == [i["source"] for i in node["injections"]]
    assert table.item(0, 1).text() == "system-prompt"
    # header: model, tokens, timing
    texts = [w.text() for w in inspector.findChildren(QLabel)]
    assert "mock (mock)" in texts and any(t.startswith(f"{node['tokens']['in']} in") for t in texts)


def test_progress_run_of_a_tool_call(qtbot):
    run = recording("04-tool-progress")
    session, inspector = open_inspector(qtbot, run)
    session.select_node(first(run, "llm->tool", toolName="scan_repo"))
    read(qtbot, inspector)
    assert {"Tool", "Progress", "Text"} <= set(visible_tabs(inspector))
    table = inspector.progress_table
    assert table.rowCount() == 4
    messages = [table.item(r, 2).text() for r in range(4)]
    assert messages[:2] == ["Cloning acme/api…", "Indexing 1,204 files"]
    assert messages[2].endswith("(+59 more)") and messages[3] == "(no message)"
    assert inspector.tool_args.model.value == {"repo": "acme/api"}
    assert inspector.tool_result.model.value == "acme/api: 17 TODO markers"
    table.setCurrentCell(1, 0)
    assert inspector.progress_payload.model.value["payload"] == {"message": "  Indexing 1,204 files  ", "pct": 0.4}

    # at the cursor: the second report has just happened; later ones are not known yet, nor the result
    second = int(table.item(1, 1).text())
    session.move_to(second, immediate=True)
    read(qtbot, inspector)
    assert inspector.progress_table.rowCount() == 2  # only the reports made by this moment
    assert "2 progress report(s)" in inspector.progress_note.text()
    assert inspector.tool_result.model.rowCount() == 0  # nothing shown: not a null result
    assert "not returned" in inspector.tool_note.text()
    assert "In progress at the cursor" in inspector.note.text()


def test_follows_the_cursor_without_a_selection(qtbot):
    run = recording("04-tool-progress")
    session, inspector = open_inspector(qtbot, run, position=0)
    assert inspector.node_index is None
    session.move_to(len(run.axis), immediate=True)
    read(qtbot, inspector)
    assert inspector.node_index == session.view.current_node
    assert "step at the cursor" in inspector.title.text()


def test_another_run_never_shows_beside_the_last_run_s_step(qtbot):
    """The readable view draws a step on the next turn of the event loop; until then it showed the last run's
    step under the new run's header (seen on a screenshot taken as a big run replaced a small one)."""
    first_run = recording("04-tool-progress")
    session, inspector = open_inspector(qtbot, first_run)
    inspector.show()
    qtbot.waitUntil(lambda: inspector.readable.drawn is not None and bool(inspector.readable.titles))
    drawn = [label.text() for label in inspector.readable.widget().findChildren(QLabel)]
    assert drawn
    session.set_run(open_run(str(corpus_path("07-flow-sequence", "trace.json"))))
    assert not inspector.readable.widget().findChildren(QLabel), "the last run's step still shown"
    qtbot.waitUntil(lambda: inspector.readable.drawn is not None and bool(inspector.readable.titles))
    assert inspector.readable.drawn == inspector.readable.model


def test_subflow_payloads_and_rollups(qtbot):
    run = recording("07-flow-sequence")
    session, inspector = open_inspector(qtbot, run)
    work = first(run, "subflow", label="work")
    session.select_node(work)
    read(qtbot, inspector)
    assert "Subflow" in visible_tabs(inspector) and inspector.tabs.currentWidget() is inspector.readable
    assert inspector.entry_tree.model.value == {"message": "Intent=weather; get weather for Bergen"}
    texts = [w.text() for w in inspector.findChildren(QLabel)]
    assert "2 LLM call(s), 1 tool call(s), 0 loop iteration(s)" in texts
    session.move_to(run.axis.position_of_domain(run.step_fold.node_created_at[work]) + 2, immediate=True)
    read(qtbot, inspector)
    assert "still open at the cursor" in [w.text() for w in inspector.findChildren(QLabel)]


def test_markup_in_payloads_is_shown_literally(qtbot, tmp_path):
    lines = corpus_path("02-react-two-tools", "events.ndjson").read_text(encoding="utf-8").splitlines()
    events = [json.loads(line) for line in lines if line.strip()]
    start = next(e for e in events if e["type"] == "agentfootprint.stream.tool_start")
    start["payload"]["args"] = {"city": MARKUP}
    start["payload"]["toolName"] = MARKUP
    next(e for e in events if e["type"] == "agentfootprint.stream.llm_end")["payload"]["content"] = MARKUP
    next(e for e in events if e["type"] == "agentfootprint.stream.tool_end")["payload"]["result"] = MARKUP
    path = tmp_path / "markup.ndjson"
    path.write_text("\n".join(json.dumps(e) for e in events), encoding="utf-8")
    run = open_run(str(path))
    session, inspector = open_inspector(qtbot, run)
    session.select_node(first(run, "llm->tool"))
    read(qtbot, inspector)

    assert MARKUP in inspector.title.text()
    assert inspector.title.textFormat() == Qt.TextFormat.PlainText
    model = inspector.tool_args.model
    assert model.data(model.index(0, 1)) == MARKUP
    assert inspector.tool_result.model.data(inspector.tool_result.model.index(0, 1)) == MARKUP
    assert inspector.text_view.toPlainText() == MARKUP
    markup_labels = [w for w in inspector.findChildren(QLabel) if "<" in w.text()]
    assert markup_labels and all(w.textFormat() == Qt.TextFormat.PlainText for w in markup_labels)


def test_json_tree_is_lazy_and_searches_deep(qtbot):
    big = {"items": [{"n": i} for i in range(100_000)]}
    big["items"][99_999]["n"] = "needle"
    view = JsonTreeView(big)
    qtbot.addWidget(view)
    items = view.model.index(0, 0)
    assert view.model.rowCount(items) <= json_tree.FETCH_BATCH  # only the first batch exists
    assert view.model.canFetchMore(items)
    assert view.search("needle") == 1
    assert view.current_path() == ("items", 99_999, "n")
    assert view.copy_path() == "$.items[99999].n"


def test_long_and_very_large_strings(qtbot, tmp_path, monkeypatch):
    long_text = "line one\n" + "x" * 500
    view = JsonTreeView({"short": "hi", "long": long_text})
    qtbot.addWidget(view)
    view.select_path(("short",))
    assert not view.detail_box.isVisibleTo(view)
    view.select_path(("long",))
    assert view.detail_box.isVisibleTo(view) and view.detail.toPlainText() == long_text
    shown = view.model.data(view.tree.currentIndex().siblingAtColumn(1))
    assert shown.endswith("…") and len(shown) <= json_tree.ELIDE_CHARS + 1

    huge = "y" * (json_tree.LARGE_VALUE_CHARS + 1000)
    view.set_value({"blob": huge})
    view.select_path(("blob",))
    assert view.preview_bar.isVisibleTo(view)
    assert len(view.detail.toPlainText()) < json_tree.PREVIEW_CHARS + 10
    assert f"{len(huge):,}" in view.preview_note.text()
    out = tmp_path / "blob.txt"
    view.save_value(out)
    assert out.read_text(encoding="utf-8") == huge
    view.show_all()
    assert view.detail.toPlainText() == huge


def test_embedding_summaries_and_paths():
    model = JsonModel({"embedding": {"dims": 1536, "norm": 0.9987}, "a b": [1]})
    model.fetchMore(QModelIndex())  # children are created on demand (a view does this on show)
    assert model.data(model.index(0, 1)) == "embedding summary (1536 dims, norm 0.9987)"
    assert model.data(model.index(0, 2)) == "embedding summary"
    assert path_string(("a b", 0, "x")) == '$["a b"][0].x'
    scalar = JsonModel("just text")
    assert scalar.rowCount(QModelIndex()) == 0  # created on first fetch
    scalar.fetchMore(QModelIndex())
    assert scalar.data(scalar.index(0, 1)) == "just text"


def test_every_node_of_every_corpus_file_can_be_inspected(qtbot):
    from tests.corpus_util import SMALL_SCENARIOS

    for scenario in SMALL_SCENARIOS:
        for name in ("recording.json", "trace.json", "events.ndjson"):
            run = open_run(str(corpus_path(scenario, name)))
            session, inspector = open_inspector(qtbot, run)
            for position in range(0, len(run.axis) + 1, 5):
                session.move_to(position, immediate=True)
                read(qtbot, inspector)
            for index in range(len(run.stepgraph["nodes"])):
                session.select_node(index)
                read(qtbot, inspector)
                assert inspector.node_index == index and visible_tabs(inspector)
                assert inspector.tabs.isTabVisible(inspector.tabs.currentIndex())


def test_fast_scrubbing_refreshes_the_inspector_once_it_settles(qtbot):
    """A deliberate move shows at once; while moves keep coming (a scrub) the inspector waits, then refreshes
    once, at the last position: the moves in between are dropped, not queued."""
    clock = ManualClock()
    run = recording("02-react-two-tools")
    session, inspector = open_inspector(qtbot, run, position=0, clock=clock)
    ends = [s["axisEnd"] for s in run.stops]
    session.move_to(ends[5], immediate=True)
    read(qtbot, inspector)
    shown_first = session.moment.current_node
    assert inspector.node_index == shown_first
    refreshes = []
    session.moment_settled.connect(lambda moment: refreshes.append(moment.position))
    for end in ends[6:15]:  # a scrub: moves closer together than SETTLE_MS
        session.move_to(end)
        read(qtbot, inspector)
        clock.advance(5)
    latest = session.moment.current_node
    assert latest != shown_first and inspector.node_index == shown_first
    clock.advance(SETTLE_MS + TURN_MS)
    assert inspector.node_index == latest
    assert refreshes == [ends[14]]


def test_payloads_left_in_the_file_are_read_when_shown(qtbot, monkeypatch):
    monkeypatch.setattr(lazy_trace, "MIN_BYTES", 0)  # read this small Trace the way large ones are read
    run = open_run(str(corpus_path("02-react-two-tools", "trace.json")))
    assert any(type(e.get("payload")) is LazyJSON for e in run.domain_events)
    session, inspector = open_inspector(qtbot, run)
    session.select_node(first(run, "user->llm"))
    read(qtbot, inspector)
    tree = inspector.slots_tree
    assert top_keys(tree) == ["systemPrompt", "messages", "tools"]
    assert tree.select_path(("messages", "entryPayload", "messages", 0, "content"))
    assert tree.model.data(tree.tree.currentIndex().siblingAtColumn(1)) == "Weather in Oslo in Fahrenheit?"
    assert tree.search("toolSchemas") == 1
    raw = inspector.raw_tree
    assert raw.select_path(("slotBoundaries", "tools", "exitPayload"))
    assert json.loads(raw.copy_value()) == run.stepgraph["nodes"][first(run, "user->llm")]["slotBoundaries"][
        "tools"]["exitPayload"].value()


def test_a_payload_that_is_not_json_says_where(qtbot, monkeypatch, tmp_path):
    monkeypatch.setattr(lazy_trace, "MIN_BYTES", 0)
    path = tmp_path / "broken.json"
    path.write_bytes(b'{"version":1,"redaction":"none","events":[\n{"type":"run.entry","runtimeStageId":"r#0",'
                     b'"subflowPath":["__root__"],"ts":1,"payload":{"message":<b>hi</b>}}\n]}')
    run = open_run(path)
    session, inspector = open_inspector(qtbot, run)
    session.select_node(0)
    read(qtbot, inspector)
    model = inspector.entry_tree.model
    text = model.data(model.index(0, 1))
    column = path.read_bytes().split(b"\n")[1].index(b"<b>") + 1
    assert text == ("⚠ a payload is not valid JSON: unexpected character, expected a JSON value "
                    f"(line 2, column {column})")
    assert model.data(model.index(0, 2)) == "not readable"
    tooltip = model.data(model.index(0, 1), Qt.ItemDataRole.ToolTipRole)
    assert tooltip == plain_tooltip(text)  # the whole message (the cell elides it), never read as markup
    assert inspector.raw_tree.search("not valid JSON") == 1  # the raw view says so too, and the rest is there
    assert inspector.raw_tree.search("__root__") == 1


def header_texts(inspector) -> list[str]:
    from PySide6.QtWidgets import QFormLayout
    rows = []
    for row in range(inspector.fields.rowCount()):
        label = inspector.fields.itemAt(row, QFormLayout.ItemRole.LabelRole).widget()
        field = inspector.fields.itemAt(row, QFormLayout.ItemRole.FieldRole).widget()
        rows.append(f"{label.text()}: {field.text()}")
    return rows


def test_the_header_is_rebuilt_only_when_what_it_shows_changes(qtbot):
    """Moving within a step (from one progress report to the next) keeps the header's widgets: a dozen ids and
    copy buttons rebuilt on every settle were a fifth of the inspector's work while the cursor moved. What the
    header shows still follows the cursor: once the tool ends, its timing says so."""
    run = recording("04-tool-progress")
    session, inspector = open_inspector(qtbot, run)
    tool = first(run, "llm->tool", toolName="scan_repo")
    session.select_node(tool)
    read(qtbot, inspector)
    table = inspector.progress_table
    at = [int(table.item(row, 1).text()) for row in range(table.rowCount())]
    session.move_to(at[1], immediate=True)
    read(qtbot, inspector)
    buttons, texts = list(inspector.copy_buttons), header_texts(inspector)
    assert buttons and any("not ended" in text for text in texts)
    session.move_to(at[2], immediate=True)
    read(qtbot, inspector)
    assert inspector.progress_table.rowCount() == 3  # (the inspector did follow the cursor)
    assert inspector.copy_buttons == buttons and all(a is b for a, b in zip(inspector.copy_buttons, buttons))
    assert header_texts(inspector) == texts
    session.move_to(len(run.axis), immediate=True)
    read(qtbot, inspector)
    ended = header_texts(inspector)
    assert ended != texts and any("ends at +" in text for text in ended)


def test_another_step_of_the_same_shape_is_shown_in_the_same_header_widgets(qtbot):
    """Stepping from one tool call to the next, the header's rows have the same names and kinds: its widgets stay
    and take the new ids (each copy button copies its new id and says so to a screen reader). A step of another
    shape gets new rows."""
    from PySide6.QtGui import QGuiApplication

    run = recording("04-tool-progress")
    session, inspector = open_inspector(qtbot, run)
    first_tool = first(run, "llm->tool", toolName="scan_repo")
    second_tool = first(run, "llm->tool", toolName="walk_graph")
    session.select_node(first_tool)
    read(qtbot, inspector)
    buttons, texts = list(inspector.copy_buttons), header_texts(inspector)
    session.select_node(second_tool)
    read(qtbot, inspector)
    assert inspector.node_index == second_tool
    assert all(a is b for a, b in zip(inspector.copy_buttons, buttons)) and len(inspector.copy_buttons) == len(buttons)
    now = header_texts(inspector)
    assert now != texts and any("walk_graph" in text for text in now)
    by_what = {button.what: button for button in inspector.copy_buttons}
    call_id = by_what["tool call id"]
    call_id.copy()
    assert QGuiApplication.clipboard().text() == call_id.value and call_id.value in " ".join(now)
    assert call_id.accessibleDescription() == f"Copies {call_id.value} to the clipboard"
    fresh = shown_alone(session, inspector.__class__(session))  # the same step drawn by a new inspector: the same rows
    qtbot.addWidget(fresh)
    read(qtbot, fresh)
    assert header_texts(fresh) == now
    session.select_node(first(run, "user->llm"))
    read(qtbot, inspector)
    read(qtbot, fresh)
    assert not any(a is b for a, b in zip(inspector.copy_buttons, buttons))  # (an LLM step: another shape)
    assert header_texts(inspector) == header_texts(fresh)


def test_a_shape_of_header_seen_before_is_shown_again_in_its_kept_widgets(qtbot):
    """Moving between an LLM call and a tool call changes the header's shape at every move: each shape's widgets
    are kept, hidden, and shown again with the next step's values (making them anew was half of a move's work
    on the big corpus run). Only the shape shown is visible, its buttons are the ones Tab walks, and what it
    says is what a new inspector says of that step."""
    from afp_desktop.app.panels.header_rows import HeaderRows

    run = recording("04-tool-progress")
    session, inspector = open_inspector(qtbot, run)
    inspector.show()
    tools = [i for i, node in enumerate(run.step_fold.nodes) if node["kind"] == "llm->tool"]
    llm = first(run, "user->llm")
    session.select_node(tools[0])
    read(qtbot, inspector)
    tool_buttons = list(inspector.copy_buttons)
    session.select_node(llm)
    read(qtbot, inspector)
    llm_buttons = list(inspector.copy_buttons)
    built = len(inspector.findChildren(HeaderRows))
    session.select_node(tools[-1])
    read(qtbot, inspector)
    assert [a is b for a, b in zip(inspector.copy_buttons, tool_buttons)] == [True] * len(tool_buttons)
    visible = [rows for rows in inspector.findChildren(HeaderRows) if rows.isVisible()]
    # private: the header rows kept for the next step, which paint the same
    assert visible == [inspector._rows.current] and len(inspector.findChildren(HeaderRows)) == built
    fresh = shown_alone(session, inspector.__class__(session))
    qtbot.addWidget(fresh)
    read(qtbot, fresh)
    assert header_texts(inspector) == header_texts(fresh) and any(run.step_fold.nodes[tools[-1]]["toolName"] in text
                                                                  for text in header_texts(fresh))
    session.select_node(llm)
    read(qtbot, inspector)
    read(qtbot, fresh)
    assert [a is b for a, b in zip(inspector.copy_buttons, llm_buttons)] == [True] * len(llm_buttons)
    assert header_texts(inspector) == header_texts(fresh)
    assert len(inspector.findChildren(HeaderRows)) == built


def test_the_header_keeps_a_bounded_number_of_shapes(qtbot):
    """Shapes beyond MAX_SHAPES are let go of, the one shown longest ago first (a run of many kinds of steps does
    not keep widgets without end)."""
    from PySide6.QtWidgets import QVBoxLayout, QWidget

    from afp_desktop.app.panels import header_rows

    holder = QWidget()
    qtbot.addWidget(holder)
    forms = header_rows.HeaderForms(QVBoxLayout(holder))
    first_rows = forms.show([("row 0", "a")])
    for n in range(1, header_rows.MAX_SHAPES + 3):
        forms.show([(f"row {k}", str(k)) for k in range(n + 1)])
    kept = [w for w in holder.findChildren(header_rows.HeaderRows) if w.parent() is holder]
    qtbot.waitUntil(lambda: len([w for w in holder.findChildren(header_rows.HeaderRows)]) == header_rows.MAX_SHAPES)
    assert first_rows not in holder.findChildren(header_rows.HeaderRows) and len(kept) >= header_rows.MAX_SHAPES
    again = forms.show([(f"row {k}", str(k)) for k in range(header_rows.MAX_SHAPES + 3)])
    assert again is forms.current and forms.form.rowCount() == header_rows.MAX_SHAPES + 3


def test_a_step_not_started_and_a_tool_not_returned_show_nothing_of_their_future(qtbot):
    run = recording("04-tool-progress")
    session, inspector = open_inspector(qtbot, run, position=0)
    tool = first(run, "llm->tool", toolName="scan_repo")
    session.select_node(tool)
    read(qtbot, inspector)
    texts = header_texts(inspector)
    assert "None" not in " ".join(texts) and "timing: not started at this moment" in texts
    begin = run.step_fold.node_created_at[tool]
    session.move_to(next(p for p in range(len(run.axis) + 1) if run.axis.domain_before[p] > begin) + 1,
                    immediate=True)
    assert session.moment.node_state(tool) == "active"
    assert "not returned" in inspector.tool_note.text()
    assert inspector.tool_result.model.rowCount() == 0  # no "null" row for a result not known yet
