"""Copy buttons for ids (issue 15): every id the inspector shows — step id, stage id, tool call id, subflow path,
event number, run id, in the header and in the Readable tab — has a keyboard-reachable "Copy <what>" button that
puts the exact id on the clipboard as plain text and says so in the status bar. Ids come from a hostile trace here:
markup and a bidi override are copied as given and shown as plain text."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QMimeData, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QLabel

from afp_desktop.app.panels.panel import shown_alone
from afp_desktop.core.formats import open_run  # before the session: formats must initialise first
from afp_desktop.app.widgets.copy_id import CopyIdButton, IdLabel, shortened
from afp_desktop.app.panels.inspector import InspectorPanel
from afp_desktop.app.session import Session
from afp_desktop.core.views.inspect import inspect_node
from afp_desktop.core.views.step_ids import step_ids
from tests.corpus_util import corpus_path, read_bytes
from tests.inspector_reading import read

CALL_ID = "<b>x</b>\u202etc-weather"
RUN_ID = "<i>run</i>\u202e-2"
STAGE_ID = "<a href='x'>tool-calls</a>\u202e#22"
# JSON text of each: the trace spells the override as an escape
SWAPS = ((b"tc-weather", b"<b>x</b>\\u202etc-weather"), (b"run-1795989469600-2", b"<i>run</i>\\u202e-2"),
         (b"tool-calls#22", b"<a href='x'>tool-calls</a>\\u202e#22"))


@pytest.fixture
def hostile_run(tmp_path):
    """02-react-two-tools with markup and a right-to-left override in its call id, run id and stage id."""
    raw = read_bytes("02-react-two-tools", "recording.json")
    for old, new in SWAPS:
        assert old in raw
        raw = raw.replace(old, new)
    path = tmp_path / "hostile-ids.json"
    path.write_bytes(raw)
    return open_run(str(path))


def tool_node(run) -> int:
    return next(i for i, n in enumerate(run.step_fold.nodes) if n["kind"] == "llm->tool")


def shown_inspector(qtbot, run, index):
    session = Session()
    session.set_run(run)
    inspector = shown_alone(session, InspectorPanel(session))
    qtbot.addWidget(inspector)
    inspector.resize(560, 760)
    inspector.show()
    qtbot.waitExposed(inspector)
    session.select_node(index)
    read(qtbot, inspector)
    inspector.readable.flush()
    QApplication.processEvents()  # (widgets added to a shown layout show on the next turn)
    return session, inspector


def clipboard_text() -> str:
    return QGuiApplication.clipboard().text()


def test_the_ids_of_a_step_are_read_exactly_from_the_file(hostile_run):
    ids = {i.label: i for i in step_ids(hostile_run, tool_node(hostile_run))}
    assert ids["call id"].value == CALL_ID and ids["call id"].what == "tool call id"
    assert ids["stage id"].value == STAGE_ID
    assert ids["run id"].value == RUN_ID
    assert ids["path"].value == "__root__"
    assert ids["id"].value == f"step-tool-start-{STAGE_ID}-{CALL_ID}"
    # the event number is the one the Events list shows for the event that made the step (1-based, axis order)
    run = hostile_run
    created = run.step_fold.node_created_at[tool_node(run)]
    assert run.axis.entries[int(ids["event"].value) - 1] == ("d", created)


def test_each_header_button_copies_its_id_exactly_and_shows_it_as_plain_text(qtbot, hostile_run):
    _session, inspector = shown_inspector(qtbot, hostile_run, tool_node(hostile_run))
    expected = {i.what: i.value for i in step_ids(hostile_run, tool_node(hostile_run))}
    buttons = inspector.copy_buttons
    assert [b.what for b in buttons] == ["step id", "stage id", "event number", "tool call id", "subflow path",
                                         "run id"]
    for button in buttons:
        QGuiApplication.clipboard().setText("(before)")
        assert button.isVisible() and button.toolTip() == f"Copy {button.what}"
        assert button.accessibleName() == f"Copy {button.what}"
        with qtbot.waitSignal(button.copied) as said:
            qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
        assert clipboard_text() == expected[button.what]  # markup and the override, as given
        mime = QGuiApplication.clipboard().mimeData()
        assert not mime.hasHtml()  # plain text only
        assert said.args[0].startswith(f"Copied {button.what} ")
    # shown as plain text: the markup literally, the override as a visible marker, never interpreted
    labels = {label.text() for label in inspector.findChildren(IdLabel)}
    assert "<b>x</b>\u2039U+202E\u203atc-weather" in labels
    assert "<i>run</i>\u2039U+202E\u203a-2" in labels
    for label in inspector.findChildren(QLabel):
        if "<" in label.text():
            assert label.textFormat() == Qt.TextFormat.PlainText, label.text()


def test_the_confirmation_goes_to_the_status_bar(qtbot, window, hostile_run):
    window.session.set_run(hostile_run)
    window.session.select_node(tool_node(hostile_run))
    window.session.flush()
    inspector = window.panels["inspector"]
    read(qtbot, inspector)
    button = next(b for b in inspector.copy_buttons if b.what == "tool call id")
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert clipboard_text() == CALL_ID
    assert window.statusBar().currentMessage() == "Copied tool call id <b>x</b>\u2039U+202E\u203atc-weather"


def test_readable_tab_ids_copy_the_whole_id_even_when_shown_shortened(qtbot, tmp_path):
    long_id = "call-" + "7" * 150 + "<br>"  # longer than the 80 characters the facts show
    raw = read_bytes("02-react-two-tools", "recording.json").replace(b"tc-weather", long_id.encode())
    path = tmp_path / "long-id.json"
    path.write_bytes(raw)
    run = open_run(str(path))
    index = tool_node(run)
    model = inspect_node(run, None, index)
    row = next(r for s in model["sections"] if s["title"] == "Step" for r in s["rows"] if r["label"] == "call id")
    assert row["id"] == long_id and row["idName"] == "tool call id" and row["value"] != long_id  # shortened
    _session, inspector = shown_inspector(qtbot, run, index)
    buttons = {b.what: b for b in inspector.readable.copy_buttons()}
    assert set(buttons) == {"tool call id", "subflow path"}
    qtbot.mouseClick(buttons["tool call id"], Qt.MouseButton.LeftButton)
    assert clipboard_text() == long_id
    qtbot.mouseClick(buttons["subflow path"], Qt.MouseButton.LeftButton)
    assert clipboard_text() == "__root__"
    assert "tool call id" not in inspector.readable.section_texts()["Step"]  # (the id is not repeated as text)


def test_a_subflow_path_and_a_branch_parent_offer_copies(qtbot):
    run = open_run(str(corpus_path("07-flow-sequence", "recording.json")))
    index = next(i for i, n in enumerate(run.step_fold.nodes)
                 if n["kind"] == "subflow" and len(n.get("subflowPath") or []) > 1)
    _session, inspector = shown_inspector(qtbot, run, index)
    path = next(b for b in inspector.copy_buttons if b.what == "subflow path")
    qtbot.mouseClick(path, Qt.MouseButton.LeftButton)
    assert clipboard_text() == " / ".join(run.step_fold.nodes[index]["subflowPath"])
    stage = next(b for b in inspector.copy_buttons if b.what == "stage id")
    qtbot.mouseClick(stage, Qt.MouseButton.LeftButton)
    assert clipboard_text() == run.step_fold.nodes[index]["runtimeStageId"]


def test_tab_reaches_the_copy_buttons_and_space_presses_them(qtbot, hostile_run):
    _session, inspector = shown_inspector(qtbot, hostile_run, tool_node(hostile_run))
    inspector.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is inspector, timeout=3000)
    first, last = inspector.copy_buttons[0], inspector.copy_buttons[-1]
    # the header's buttons come right before the tabs: Shift+Tab from the tab bar walks back through them
    tab_bar = inspector.tabs.tabBar()
    tab_bar.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.keyClick(tab_bar, Qt.Key.Key_Backtab)
    assert QApplication.focusWidget() is last
    for _ in range(len(inspector.copy_buttons) - 1):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Backtab)
    assert QApplication.focusWidget() is first
    # and Tab walks them forwards, in the order they are shown; Space presses each
    for expected in inspector.copy_buttons:
        assert QApplication.focusWidget() is expected, (QApplication.focusWidget(), expected.what)
        QGuiApplication.clipboard().setMimeData(QMimeData())
        qtbot.keyClick(expected, Qt.Key.Key_Space)
        assert clipboard_text() == expected.value
        qtbot.keyClick(expected, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is tab_bar
    assert first.value == f"step-tool-start-{STAGE_ID}-{CALL_ID}"
    # and the Readable tab's buttons are reachable too
    readable = inspector.readable.copy_buttons()
    for _ in range(60):
        if QApplication.focusWidget() is readable[0]:
            break
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is readable[0]
    qtbot.keyClick(readable[0], Qt.Key.Key_Space)
    assert clipboard_text() == CALL_ID


def test_a_narrow_row_elides_an_id_in_the_middle_and_keeps_the_whole_in_the_tooltip(qtbot):
    label = IdLabel("sf-research/sf-injection-engine/evaluate#1234567")
    qtbot.addWidget(label)
    label.resize(label.minimumSizeHint().width(), label.sizeHint().height())
    assert "…" in label.elided() and label.elided().endswith("7")
    assert "evaluate#1234567" in label.toolTip()
    label.resize(label.sizeHint())
    assert label.elided() == label.text()
    assert shortened("a" * 300).count("…") == 1 and len(shortened("a" * 300)) == 99


def test_the_card_menu_copies_the_step_id(qtbot, window, hostile_run):
    window.session.set_run(hostile_run)
    index = tool_node(hostile_run)
    window.canvas.card_menu_requested.emit(index, window.mapToGlobal(window.rect().center()))  # a right-click
    menu = window.card_menu
    action = next(a for a in menu.actions() if a.text() == "Copy the step's id")
    action.trigger()
    assert clipboard_text() == hostile_run.stepgraph["nodes"][index]["id"]
    assert window.statusBar().currentMessage().startswith("Copied step id step-tool-start-")
    menu.close()


def test_buttons_follow_the_theme(qtbot, hostile_run):
    from afp_desktop.app.look import theme

    _session, inspector = shown_inspector(qtbot, hostile_run, tool_node(hostile_run))
    button: CopyIdButton = inspector.copy_buttons[0]
    before = button.icon().pixmap(12, 12).toImage()
    theme.apply_theme(QApplication.instance(), "dark")
    try:
        QApplication.processEvents()
        assert button.icon().pixmap(12, 12).toImage() != before  # redrawn in the dark theme's text colour
    finally:
        theme.apply_theme(QApplication.instance(), "light")


def test_two_ids_on_a_row_take_a_second_line_rather_than_cutting(qtbot):
    from afp_desktop.app.widgets.copy_id import IdPair
    from afp_desktop.core.views.step_ids import StepId

    pair = IdPair(StepId("path", "subflow path", "__root__ / step-classify / sf-llm-call"), "run id",
                  StepId("run id", "run id", "run-1795989470062-8"))
    qtbot.addWidget(pair)
    pair.show()
    pair.resize(pair.sizeHint().width() + 10, 20)
    QApplication.processEvents()
    labels = [field.label for field in pair.fields]
    line = pair.fields[0].sizeHint().height()
    assert pair.height() == line and all(label.elided() == label.text() for label in labels)
    top = [label.mapTo(pair, label.rect().topLeft()).y() for label in labels]
    assert top[1] == top[0] < line  # one line
    pair.resize(pair.sizeHint().width() - 40, pair.height())
    QApplication.processEvents()
    assert pair.height() >= 2 * line  # the second id went below the first
    assert labels[1].mapTo(pair, labels[1].rect().topLeft()).y() >= line
    assert all(label.elided() == label.text() for label in labels)  # neither is cut


def test_the_header_shows_every_id_on_a_roomy_dock_and_scrolls_on_a_short_one(qtbot, window):
    from afp_desktop.app.panels.inspector import HeaderScroll

    run = open_run(str(corpus_path("07-flow-sequence", "recording.json")))
    window.session.set_run(run)
    window.session.select_node(next(i for i, n in enumerate(run.step_fold.nodes) if n["kind"] == "user->llm"))
    window.session.flush()
    inspector = window.panels["inspector"]
    read(qtbot, inspector)
    header = inspector.findChild(HeaderScroll)
    window.resizeDocks([window.docks["inspector"]], [620], Qt.Orientation.Vertical)
    # a roomy dock: all of the header shows, nothing cut (the layout settles over a few event-loop turns)
    def all_shown() -> bool:
        return header.verticalScrollBar().maximum() == 0 and all(
            header.viewport().rect().contains(button.mapTo(header.viewport(), button.rect().bottomRight()))
            for button in inspector.copy_buttons)

    assert len(inspector.copy_buttons) >= 4
    qtbot.waitUntil(all_shown, timeout=3000)
    window.resize(1024, 640)
    qtbot.waitUntil(lambda: header.verticalScrollBar().maximum() > 0, timeout=3000)
    assert window.height() == 640  # the ids never push the window past a small screen: the header scrolls
    assert inspector.tabs.height() >= inspector.tabs.minimumHeight()
    assert header.height() >= header.minimumSizeHint().height()
    # a button scrolled out of sight comes into view when Tab reaches it
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=3000)
    last = inspector.copy_buttons[-1]
    inspector.copy_buttons[-2].setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.keyClick(inspector.copy_buttons[-2], Qt.Key.Key_Tab)
    assert last.hasFocus()
    assert header.viewport().rect().contains(last.mapTo(header.viewport(), last.rect().bottomRight()))


def test_a_parallel_branch_offers_its_parent_subflow_id(qtbot):
    from tests.parallel_run import parallel_run

    run = parallel_run()
    index = next(i for i, n in enumerate(run.step_fold.nodes) if n["kind"] == "fork-branch" and n["label"] == "agentA")
    _session, inspector = shown_inspector(qtbot, run, index)
    parent = next(b for b in inspector.readable.copy_buttons() if b.what == "parent subflow id")
    qtbot.mouseClick(parent, Qt.MouseButton.LeftButton)
    assert clipboard_text() == "fan"
    assert "run id" not in [b.what for b in inspector.copy_buttons]  # a file without typed events has no run id


def test_an_id_with_a_line_break_is_one_line_on_screen_and_copied_whole(qtbot):
    from afp_desktop.app.widgets.copy_id import IdField

    value = "a\nb<i>c</i>\u2066"
    field = IdField(value, "step id")
    qtbot.addWidget(field)
    field.show()
    assert field.label.text() == "a\u2424b<i>c</i>\u2039U+2066\u203a"  # one line, markers visible
    assert "&lt;i&gt;" in field.label.toolTip()  # the tooltip (rich text by guess) escapes it
    qtbot.mouseClick(field.button, Qt.MouseButton.LeftButton)
    assert clipboard_text() == value
    assert "\u2066" not in field.label.toolTip() and "U+2066" in field.label.toolTip()  # no reordering there either
