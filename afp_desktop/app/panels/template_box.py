"""The template editor's box for the selected key: a roomy text box, the live preview beside it with unknown
`{{variables}}` marked, and what is wrong with the template. The preview is a plain-text document with
character formats: a template is never interpreted as markup."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QColor, QFont, QTextCharFormat, QTextCursor, QTextDocument
from PySide6.QtWidgets import QGridLayout, QLabel, QPlainTextEdit, QTextEdit, QWidget

from afp_desktop.app.panels.banner import ElidedLabel
from afp_desktop.app.widgets.plain_text import plain_tooltip
from afp_desktop.core.library.status import DEFAULT_TEMPLATES, variables_for_template_key
from afp_desktop.core.views.template_preview import preview_segments

UNKNOWN_BACKGROUND = QColor("#fbd5d3")
UNKNOWN_TEXT = QColor("#b3261e")
VALUE_TEXT = QColor("#1a5fb4")


def segment_formats() -> dict[str, QTextCharFormat]:
    plain = QTextCharFormat()
    value = QTextCharFormat()
    value.setForeground(VALUE_TEXT)
    unknown = QTextCharFormat()
    unknown.setBackground(UNKNOWN_BACKGROUND)
    unknown.setForeground(UNKNOWN_TEXT)
    unknown.setFontWeight(QFont.Weight.Bold)
    unknown.setToolTip("Unknown variable: agentfootprint renders it as nothing")
    spaced = QTextCharFormat()
    spaced.setFontUnderline(True)
    spaced.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
    spaced.setUnderlineColor(UNKNOWN_TEXT)
    spaced.setToolTip("Written with spaces: shown as typed, never filled")
    warning = QTextCharFormat()
    warning.setForeground(UNKNOWN_TEXT)
    return {"text": plain, "value": value, "unknown": unknown, "spaced": spaced, "warning": warning}


class TemplateBox(QWidget):
    """`show_key` fills it; typing emits `edited(text)`."""

    edited = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.key: str | None = None
        self.app_name = "Agent"
        self.samples: dict[str, str] = {}
        self.title = ElidedLabel("Select a key to edit its template.")
        self.title.setStyleSheet("font-weight: bold;")
        self.uses = ElidedLabel()
        self.uses.setStyleSheet("color: #6b7280;")
        self.warning_list: list[str] = []
        self.text = QPlainTextEdit()
        self.text.setPlaceholderText("(not set: this state falls through to the next key on its ladder)")
        self.text.setTabChangesFocus(True)
        self.text.setMinimumHeight(56)
        self.text.textChanged.connect(self._on_text)
        self.preview = QTextEdit()
        self.preview.setReadOnly(True)
        self.preview.setAcceptRichText(False)
        self.preview.setMinimumHeight(56)
        self.preview.setToolTip("The line with sample values, then what is wrong with the template; unknown "
                                "variables are marked in red")
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 4, 0, 0)
        grid.setHorizontalSpacing(8)
        grid.setVerticalSpacing(2)
        grid.addWidget(self.title, 0, 0)
        grid.addWidget(QLabel("Preview"), 0, 1)
        grid.addWidget(self.text, 1, 0)
        grid.addWidget(self.preview, 1, 1)
        grid.addWidget(self.uses, 2, 0, 1, 2)
        grid.setColumnStretch(0, 1)
        grid.setColumnStretch(1, 1)
        grid.setRowStretch(1, 1)
        self._formats = segment_formats()
        self.setEnabled(False)

    def show_key(self, key: str | None, template: str | None, warnings: list[str]) -> None:
        """Show a key's template (None: not set); keeps the caret if the text is unchanged."""
        self.key = key
        self.setEnabled(key is not None)
        self.title.setText(f"Template for {key}" if key else "Select a key to edit its template.")
        names = variables_for_template_key(key) if key else []
        uses = ("May use: " + ", ".join("{{%s}}" % n for n in names)) if names else \
            ("No status uses this key." if key else "")
        if key in DEFAULT_TEMPLATES:
            uses += f"  ·  default: {DEFAULT_TEMPLATES[key]}"
        self.uses.setText(uses)
        self.uses.setToolTip(plain_tooltip(uses.replace("  ·  ", "\n")))
        if self.text.toPlainText() != (template or ""):
            self.text.blockSignals(True)
            self.text.setPlainText(template or "")
            self.text.blockSignals(False)
        self.set_warnings(warnings)

    def set_warnings(self, warnings: list[str]) -> None:
        self.warning_list = list(warnings)
        self.refresh_preview()

    def refresh_preview(self) -> None:
        document = QTextDocument(self.preview)
        document.setDefaultFont(self.preview.font())
        cursor = QTextCursor(document)
        if self.key is not None:
            for segment in preview_segments(self.key, self.text.toPlainText(), self.app_name, self.samples):
                cursor.insertText(segment.text, self._formats[segment.kind])  # plain text, never markup
        for warning in self.warning_list:  # under the line: what is wrong with it
            cursor.insertBlock()
            cursor.insertText(f"⚠ {warning}", self._formats["warning"])
        self.preview.setDocument(document)

    @property
    def unknown_ranges(self) -> list[tuple[int, int, str]]:
        """(start, end, text) of the preview's marked unknown placeholders (what the red format covers)."""
        found = []
        block = self.preview.document().begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                fragment = it.fragment()
                if fragment.charFormat().background().color() == UNKNOWN_BACKGROUND:
                    found.append((fragment.position(), fragment.position() + fragment.length(), fragment.text()))
                it += 1
            block = block.next()
        return found

    @property
    def preview_text(self) -> str:
        return self.preview.document().toPlainText()

    def _on_text(self) -> None:
        self.refresh_preview()
        self.edited.emit(self.text.toPlainText())
