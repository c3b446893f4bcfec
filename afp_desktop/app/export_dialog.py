"""File ▸ Export graph as PNG/SVG: what to export (whole graph or the current view), at which scale, with or
without the cursor highlight. The window asks for the file name afterwards."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

SCALES = (1.0, 1.5, 2.0, 3.0, 4.0)


@dataclass
class ExportChoice:
    whole_graph: bool = True
    scale: float = 1.0
    include_cursor: bool = True


class ExportDialog(QDialog):
    def __init__(self, kind: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(f"Export graph as {kind}")
        layout = QVBoxLayout(self)
        form = QFormLayout()
        self.whole = QRadioButton("Whole graph")
        self.view = QRadioButton("Current view (what the window shows)")
        self.whole.setChecked(True)
        group = QButtonGroup(self)
        group.addButton(self.whole)
        group.addButton(self.view)
        area = QVBoxLayout()
        area.addWidget(self.whole)
        area.addWidget(self.view)
        form.addRow("Area:", area)
        self.scale = QComboBox()
        for scale in SCALES:
            self.scale.addItem(f"{scale:g}×", scale)
        self.scale.setToolTip("PNG: pixels per scene pixel. SVG: the drawing's nominal size; it stays sharp "
                              "at any zoom.")
        form.addRow("Scale:", self.scale)
        self.cursor = QCheckBox("Show the cursor: later steps dimmed, current step ringed")
        self.cursor.setChecked(True)
        form.addRow("", self.cursor)
        layout.addLayout(form)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Export…")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def choice(self) -> ExportChoice:
        return ExportChoice(self.whole.isChecked(), float(self.scale.currentData()), self.cursor.isChecked())
