"""Trace text in the inspector's text boxes (app/widgets/text_box.py): bidi controls shown as markers like everywhere else,
and a very long text (a 20 MB tool result froze the window 1.3 s on every move onto its step) shown in part until
"Show all" — "Copy all" copies it exactly."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QPlainTextEdit

from afp_desktop.core.formats import open_run  # noqa: F401  (before the session: formats initialise first)
from afp_desktop.app.widgets.text_box import SHOWN_CHARS, TraceTextBox
from afp_desktop.core.model.run import Run
from tests.test_readable_panel import shown_inspector
from tests.inspector_reading import read

RLO = "\u202e"


def _box(qtbot, text: str) -> TraceTextBox:
    box = TraceTextBox()
    qtbot.addWidget(box)
    box.setPlainText(text)
    box.show()
    return box


def test_a_short_text_is_shown_whole_with_no_bar(qtbot):
    box = _box(qtbot, "Oslo: 18°C")
    assert box.toPlainText() == "Oslo: 18°C" and box.bar is None


def test_a_long_text_is_shown_in_part_then_whole_and_copied_exactly(qtbot):
    text = ("0123456789" * 30 + "\n") * 2_000 + RLO + "tail"
    box = _box(qtbot, text)
    assert box.toPlainText() == text[:SHOWN_CHARS] + "\n…"
    assert box.bar.isVisible() and f"first {SHOWN_CHARS:,} of {len(text):,}" in box.note.text()
    box.copy_all_button.click()
    assert QGuiApplication.clipboard().text() == text  # the exact text, its control character included
    box.show_all_button.click()
    assert box.toPlainText() == text.replace(RLO, "\u2039U+202E\u203a")
    assert not box.show_all_button.isEnabled() and "all" in box.note.text()
    box.setPlainText("short again")  # the next step's text: no bar
    assert not box.bar.isVisible() and box.toPlainText() == "short again"


def test_bidi_controls_in_a_text_box_are_markers(qtbot):
    box = _box(qtbot, "invoice" + RLO + "fdp.exe")
    assert box.toPlainText() == "invoice\u2039U+202E\u203afdp.exe"


def _tool_run(result: str) -> Run:
    events = [
        {"type": "run.entry", "runtimeStageId": "__root__#0", "subflowPath": ["__root__"], "ts": 0,
         "payload": {"message": "go"}},
        {"type": "tool.start", "runtimeStageId": "tool-calls#1", "subflowPath": ["__root__"], "ts": 1,
         "toolName": "fetch", "toolCallId": "c1", "args": {"url": "x"}},
        {"type": "tool.end", "runtimeStageId": "tool-calls#1", "subflowPath": ["__root__"], "ts": 2,
         "toolCallId": "c1", "result": result},
    ]
    return Run(path="big.json", format="trace", typed_events=None, domain_events=events, domain_source="trace")


def test_the_readable_tab_shows_a_huge_result_in_part_and_its_controls_as_markers(qtbot):
    result = RLO + "x" * (3 * SHOWN_CHARS)
    run = _tool_run(result)
    session, inspector = shown_inspector(qtbot, run)
    session.select_node(next(i for i, n in enumerate(run.step_fold.nodes) if n.get("toolName") == "fetch"))
    read(qtbot, inspector)
    inspector.readable.flush()
    shown = [w.toPlainText() for w in inspector.readable.widget().findChildren(QPlainTextEdit)]
    longest = max(shown, key=len)
    assert longest.startswith("\u2039U+202E\u203axxx") and len(longest) <= SHOWN_CHARS + 10
    boxes = [b for b in inspector.readable.widget().findChildren(TraceTextBox) if b.text == result]
    assert boxes and boxes[0].bar is not None and not boxes[0].bar.isHidden()


def test_a_label_shows_at_most_label_chars_and_says_how_much_more(qtbot):
    from afp_desktop.app.widgets.plain_text import LABEL_CHARS, plain_label

    text = "word " * (LABEL_CHARS // 2)
    label = plain_label(text)
    qtbot.addWidget(label)
    assert label.text() == text[:LABEL_CHARS] + f" … (+{len(text) - LABEL_CHARS:,} more characters)"
    label.setText("short")
    assert label.text() == "short"


def test_a_huge_answer_keeps_the_chat_bubble_small(qtbot, window, tmp_path):
    import json

    from afp_desktop.app.widgets.plain_text import LABEL_CHARS
    from PySide6.QtWidgets import QLabel
    from tests.corpus_util import read_bytes

    answer = "The answer is long. " * 500_000  # 10 MB
    lines = []
    for line in read_bytes("02-react-two-tools", "events.ndjson").splitlines():
        event = json.loads(line)
        if event["type"] == "agentfootprint.stream.llm_end":
            event["payload"]["content"] = answer
        if event["type"] == "agentfootprint.agent.turn_end":
            event["payload"]["finalContent"] = answer
        lines.append(json.dumps(event))
    path = tmp_path / "events.ndjson"
    path.write_text("\n".join(lines) + "\n")
    with qtbot.waitSignal(window.loader.loaded, timeout=60_000):
        window.open_file(path)
    window.session.flush()
    chat = window.panels["chat"]
    texts = [label.text() for label in chat.findChildren(QLabel)]
    assert any(t.startswith("The answer is long.") for t in texts)  # the answer is in the bubble…
    assert max(len(t) for t in texts) <= LABEL_CHARS + 60  # …but not all ten megabytes of it


def test_a_tooltip_is_literal_marked_and_bounded():
    from afp_desktop.app.widgets.plain_text import TOOLTIP_CHARS, plain_tooltip

    assert plain_tooltip("<b>x</b>" + RLO) == "<p style='white-space:pre-wrap'>&lt;b&gt;x&lt;/b&gt;\u2039U+202E\u203a</p>"
    long = plain_tooltip("y" * (TOOLTIP_CHARS * 50))
    assert len(long) < TOOLTIP_CHARS + 100 and f"+{TOOLTIP_CHARS * 49:,} more characters" in long  # (not 2.5 MB)


def test_the_chat_s_tooltip_of_seen_lines_stops_at_what_a_tooltip_shows():
    # private: the seen lines' tooltip text, checked on 5 MB of lines no small run holds
    from afp_desktop.app.panels.chat_bubble import _joined
    from afp_desktop.app.widgets.plain_text import TOOLTIP_CHARS

    lines = ["x" * 1_000 + str(k) for k in range(5_000)]  # 5 MB of lines
    joined = _joined(lines)
    assert len(joined) < TOOLTIP_CHARS + 2_100 and joined.endswith("more lines")
    assert _joined(["a", "b"]) == "a\nb"


def test_a_rows_table_makes_only_the_rows_it_shows(qtbot):
    from afp_desktop.app.widgets.rows_table import CELL_CHARS, RowsTable

    asked: list[int] = []

    def cells(row: int) -> list[str]:
        asked.append(row)
        return [str(row), "line\nbreak" + RLO, "z" * (CELL_CHARS * 3)]

    table = RowsTable(["#", "text", "long"])
    qtbot.addWidget(table)
    table.resize(500, 300)
    table.set_rows(100_000, cells)
    table.resizeColumnsToContents()
    table.show()
    qtbot.waitExposed(table)
    assert table.rowCount() == 100_000 and len(set(asked)) < 1_000  # not a hundred thousand rows made
    assert table.item(99_999, 0).text() == "99999"
    assert table.item(5, 1).text() == "line break\u2039U+202E\u203a"  # one line, its control shown
    assert len(table.item(5, 2).text()) == CELL_CHARS + 1
    rows = []
    table.currentCellChanged.connect(lambda row, *_: rows.append(row))
    table.setCurrentCell(7, 0)
    assert table.currentRow() == 7 and rows == [7]


ROW_TEXTS = ["", "a", "tool", "WWWW iiii", "search_web", "résumé", "日本語の文", "😀 emoji", "x" * 120, "call-123",
             "mixed Case Words here", "line\nbreak", "\u202eRLO"]


@pytest.mark.parametrize("count", [0, 1, 7, 150])
@pytest.mark.parametrize("shown", [False, True])
def test_a_rows_table_sizes_its_columns_as_qt_would(qtbot, count, shown):
    """RowsTable measures its columns itself (Qt's own sizing calls into Python for every role of every cell);
    the widths must be the ones QTableView's resizeColumnsToContents gives."""
    from PySide6.QtWidgets import QTableView

    from afp_desktop.app.widgets.rows_table import RowsTable

    rows = [[ROW_TEXTS[(row * 5 + column * 3) % len(ROW_TEXTS)] * (1 + (row + column) % 3) for column in range(4)]
            for row in range(count)]
    widths = []
    for sizing in (QTableView.resizeColumnsToContents, RowsTable.resizeColumnsToContents):
        table = RowsTable(["#", "at", "a message", "payload"])
        qtbot.addWidget(table)
        table.horizontalHeader().setStretchLastSection(False)  # (a stretched last column is not sized)
        table.resize(600, 300)
        if shown:
            table.show()
            qtbot.waitExposed(table)
        table.set_rows(count, lambda row: rows[row])
        sizing(table)
        widths.append([table.columnWidth(column) for column in range(4)])
    qt_widths, ours = widths
    assert ours == qt_widths
    if count:
        assert max(ours) > 100  # (the texts, not only the headers, sized them)
