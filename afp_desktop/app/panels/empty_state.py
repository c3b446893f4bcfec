"""What the window shows with no run open: a big drop target, an Open button, the recent files, and — after a
failed load — the loader's message (file, line, what was wrong) in plain words."""

from __future__ import annotations

import os

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QLabel, QListWidget, QListWidgetItem, QPushButton, QVBoxLayout, QWidget

from afp_desktop.app.widgets.plain_text import plain_tooltip
from afp_desktop.app.widgets.plain_text import plain_label
from afp_desktop.app.look.theme import ERROR_TEXT, is_dark_palette

FORMATS_LINE = ("NDJSON event streams, Trace v1 files, recordings and envelopes, afp-desktop .jsonl — "
                "plain or compressed (.gz, .xz).")


class EmptyState(QWidget):
    open_requested = Signal()
    recent_chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(40, 30, 40, 30)
        self.target = QFrame()
        self.target.setObjectName("dropTarget")
        self.target.setStyleSheet("#dropTarget { border: 2px dashed #9aa1b0; border-radius: 12px; }")
        column = QVBoxLayout(self.target)
        column.setContentsMargins(40, 30, 40, 30)
        column.setSpacing(12)
        column.addStretch(1)
        heading = QLabel("Drop a trace file here")
        font = heading.font()
        font.setPointSizeF(font.pointSizeF() * 1.8)
        font.setBold(True)
        heading.setFont(font)
        heading.setAlignment(Qt.AlignmentFlag.AlignCenter)
        column.addWidget(heading)
        formats = QLabel(FORMATS_LINE)
        formats.setAlignment(Qt.AlignmentFlag.AlignCenter)
        formats.setWordWrap(True)
        column.addWidget(formats)
        self.open_button = QPushButton("Open a trace file…")
        self.open_button.setMinimumHeight(36)
        self.open_button.setMinimumWidth(220)
        self.open_button.clicked.connect(self.open_requested.emit)
        column.addWidget(self.open_button, 0, Qt.AlignmentFlag.AlignCenter)
        self.error = plain_label(wrap=True)
        self.error.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.error.setVisible(False)
        column.addWidget(self.error)
        self.recent_title = QLabel("Recent files")
        self.recent_title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        column.addWidget(self.recent_title)
        self.recent = QListWidget()
        self.recent.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.recent.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.recent.itemClicked.connect(lambda item: self.recent_chosen.emit(item.data(Qt.ItemDataRole.UserRole)))
        column.addWidget(self.recent, 0, Qt.AlignmentFlag.AlignHCenter)
        column.addStretch(2)
        outer.addWidget(self.target)

    def set_recent(self, paths: list[str]) -> None:
        self.recent.clear()
        for path in paths:
            item = QListWidgetItem(f"{os.path.basename(path)}   —   {os.path.dirname(path)}")
            item.setData(Qt.ItemDataRole.UserRole, path)
            item.setToolTip(plain_tooltip(path))
            self.recent.addItem(item)
        self.recent_title.setVisible(bool(paths))
        self.recent.setVisible(bool(paths))
        if paths:  # exactly as tall and wide as its rows: no empty box under a short list
            frame = 2 * self.recent.frameWidth()
            self.recent.setFixedHeight(self.recent.sizeHintForRow(0) * len(paths) + frame + 4)
            self.recent.setFixedWidth(min(900, max(420, self.recent.sizeHintForColumn(0) + frame + 24)))

    def set_error(self, message: str | None) -> None:
        self.error.setStyleSheet(f"color: {ERROR_TEXT[is_dark_palette()]};")  # ≥ 4.5:1 in either theme
        self.error.setText(message or "")
        self.error.setVisible(bool(message))
