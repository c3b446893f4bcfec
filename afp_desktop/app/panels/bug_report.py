"""The Bug report panel: for a run opened from agentfootprint's bug-report bundle, what the reporter said
(title, steps to reproduce, expected, actual, app version, environment), what the manifest states (withheld
conversations, redacted keys, the library's warnings and notes), the transcript and narrative.txt — and, when
the bundle holds several conversations, the switch between them.

All of it comes from the zip, so all of it is plain text: labels with Qt.PlainText, read-only plain-text boxes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from afp_desktop.app.panels.panel import PanelDefaults
from afp_desktop.app.widgets.text_box import TraceTextBox
from afp_desktop.app.panels.banner import plain_label
from afp_desktop.app.widgets.plain_text import plain_tooltip

if TYPE_CHECKING:  # (a bundle's words are imported with the first bundle shown, not with the window)
    from afp_desktop.core.formats.bugreport import BundleInfo

NOT_A_BUNDLE = ("This run was not opened from a bug report. Open the .zip that agentfootprint's "
                "exportBugReport() makes to read the reporter's statement here.")
NOT_GIVEN = "(not given)"


def _heading(text: str) -> QLabel:
    label = plain_label(text)
    font = label.font()
    font.setBold(True)
    label.setFont(font)
    return label


def _text_box(placeholder: str) -> TraceTextBox:
    box = TraceTextBox()
    box.setPlaceholderText(placeholder)
    box.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    return box


class BugReportPanel(QWidget, PanelDefaults):
    """Follows the session: filled when a run carries `run.bundle`, a sentence otherwise."""

    conversation_chosen = Signal(str, str)  # (bundle path, conversation id): the window opens it

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.info: BundleInfo | None = None
        self.stack = QStackedWidget()
        self.empty = plain_label(NOT_A_BUNDLE, wrap=True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setMargin(16)
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self._build_report())
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.stack)

    # -------------------------------------------------------------------------------------------- layout
    def _build_report(self) -> QWidget:
        page = QWidget()
        column = QVBoxLayout(page)
        column.setContentsMargins(6, 6, 6, 6)
        picker_row = QHBoxLayout()
        self.picker_label = plain_label("Conversation:")
        self.picker = QComboBox()
        self.picker.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.picker.setMinimumContentsLength(12)
        self.picker.activated.connect(self._on_picked)
        picker_row.addWidget(self.picker_label)
        picker_row.addWidget(self.picker, 1)
        self.picker_row = QWidget()
        self.picker_row.setLayout(picker_row)
        picker_row.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.picker_row)
        self.tabs = QTabWidget()
        self.tabs.addTab(self._build_statement(), "Report")
        self.transcript = _text_box("This bundle has no conversation.json (the reporter left the transcript out).")
        self.narrative = _text_box("This bundle has no narrative.txt (the reporter left it out, or the run had no "
                                   "narrative recorder).")
        self.tabs.addTab(self.transcript, "Transcript")
        self.tabs.addTab(self.narrative, "Narrative")
        column.addWidget(self.tabs, 1)
        return page

    def _build_statement(self) -> QWidget:
        body = QWidget()
        column = QVBoxLayout(body)
        column.setContentsMargins(8, 8, 8, 8)
        column.setSpacing(6)
        self.title = plain_label(wrap=True)
        font = self.title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.title.setFont(font)
        column.addWidget(self.title)
        form = QFormLayout()
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapAllRows)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setVerticalSpacing(4)
        self.fields: dict[str, QLabel] = {}
        for key, caption in (("steps", "Steps to reproduce"), ("expected", "Expected"), ("actual", "Actual"),
                             ("app_version", "App version"), ("environment", "Environment")):
            label = plain_label(wrap=True)
            self.fields[key] = label
            form.addRow(_heading(caption), label)
        column.addLayout(form)
        column.addSpacing(6)
        column.addWidget(_heading("What the bundle's manifest states"))
        self.withheld = plain_label(wrap=True)
        bold = self.withheld.font()
        bold.setBold(True)
        self.withheld.setFont(bold)
        column.addWidget(self.withheld)
        self.manifest_lines = plain_label(wrap=True)
        column.addWidget(self.manifest_lines)
        column.addSpacing(6)
        column.addWidget(_heading("In the zip"))
        self.contents = plain_label(wrap=True)
        column.addWidget(self.contents)
        column.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(body)
        return scroll

    # ------------------------------------------------------------------------------------------ showing
    def run_loaded(self, run) -> None:
        self.show_run(run)

    def run_closed(self) -> None:
        self.show_bundle(None)

    def show_run(self, run) -> None:
        self.show_bundle(run.bundle)

    def show_bundle(self, info: BundleInfo | None) -> None:
        self.info = info
        if info is None:
            self.stack.setCurrentWidget(self.empty)
            return
        from afp_desktop.core.formats.bugreport import environment_text, statements, withheld_sentence

        self.stack.setCurrentIndex(1)
        self._fill_picker(info)
        s = info.statement
        self.title.setText(s.title or "(the reporter gave no title)")
        values = {"steps": s.steps, "expected": s.expected, "actual": s.actual, "app_version": s.app_version,
                  "environment": environment_text(info)}
        for key, label in self.fields.items():
            label.setText(values[key] or NOT_GIVEN)
        withheld = withheld_sentence(info)
        self.withheld.setText(withheld or "Nothing was withheld: every conversation of the run is in the bundle.")
        rest = [line for line in statements(info) if line != withheld]
        self.manifest_lines.setText("\n".join(f"• {line}" for line in rest))
        made = f"Made {info.created_at}" if info.created_at else "Made at an unknown time"
        entries = [f"• {e.name} ({e.size:,} bytes)" for e in info.entries]
        self.contents.setText("\n".join([f"{made}, manifest version {info.manifest_version}.", *entries]))
        self.transcript.setPlainText(info.transcript or "")
        self.narrative.setPlainText(info.narrative or "")

    def _fill_picker(self, info: BundleInfo) -> None:
        self.picker.blockSignals(True)
        self.picker.clear()
        for conv in info.conversations:
            text = f"{conv.id} — {conv.label}" if conv.label and not conv.label.startswith(conv.id) else \
                (conv.label or conv.id)
            self.picker.addItem(text, conv.id)
            self.picker.setItemData(self.picker.count() - 1, plain_tooltip(text), Qt.ItemDataRole.ToolTipRole)
        self.picker.setCurrentIndex(max(0, self.picker.findData(info.chosen)))
        self.picker.blockSignals(False)
        self.picker_row.setVisible(len(info.conversations) > 1)

    def _on_picked(self, index: int) -> None:
        chosen = self.picker.itemData(index)
        if self.info is not None and chosen and chosen != self.info.chosen:
            self.conversation_chosen.emit(self.info.path, chosen)

    def choose(self, conversation_id: str) -> None:
        """Switch to another conversation of the open bundle (as picking it in the combo box does)."""
        index = self.picker.findData(conversation_id)
        if index >= 0:
            self.picker.setCurrentIndex(index)
            self._on_picked(index)
