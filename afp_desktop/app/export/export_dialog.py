"""File ▸ Export graph… (Ctrl+Shift+E): one dialog for PNG and SVG. The file name and the format follow each
other: typing `graph.svg` chooses SVG, choosing SVG makes the name end in `.svg`; a name without a known
extension gets the chosen format's. Also: what to export (whole graph or the current view), at which scale,
with or without the cursor highlight.

Defaults: the cursor highlight is off (an export made at the start would be almost all dimmed) and the
window remembers the box; the folder is the one last exported to, the first time the user's Pictures folder (else
home) — never the input's folder, which may be read-only or shared; the name is the run file's, minus its
extensions, plus "-graph"."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QStandardPaths
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

SCALES = (1.0, 1.5, 2.0, 3.0, 4.0)
FORMATS = (("png", "PNG image"), ("svg", "SVG drawing (sharp at any zoom)"))
FILTERS = {"png": "PNG image (*.png)", "svg": "SVG drawing (*.svg)"}
RUN_SUFFIXES = (".gz", ".xz", ".json", ".jsonl", ".ndjson", ".zip", ".log", ".txt")  # what a run file's name ends in


@dataclass
class ExportChoice:
    whole_graph: bool = True
    scale: float = 1.0
    include_cursor: bool = False


def _usable_folder(folder: str) -> bool:
    return bool(folder) and os.path.isdir(folder) and os.access(folder, os.W_OK | os.X_OK)


def default_export_folder(remembered: str = "") -> str:
    """Where the dialog proposes to write: the folder last exported to while it is still there and writable, else
    the user's Pictures folder, else home. Never the input's folder."""
    if _usable_folder(remembered):
        return remembered
    pictures = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.PicturesLocation)
    return pictures if _usable_folder(pictures) else os.path.expanduser("~")


def proposed_file_name(run_path: str, fmt: str, what: str = "graph") -> str:
    """`weather.run.ndjson.gz` → `weather.run-graph.png`: the run file's name without its extensions."""
    name = os.path.basename(run_path)
    while True:
        stem, suffix = os.path.splitext(name)
        if not stem or suffix.lower() not in RUN_SUFFIXES:
            break
        name = stem
    return f"{name.strip().lstrip('.') or 'run'}-{what}.{fmt}"  # (never a hidden file)


def remember_export_folder(window, path: str) -> None:
    """An export succeeded: the next one (graph, bookmarks) starts in its folder."""
    window.settings.set("export_folder", os.path.dirname(os.path.abspath(path)))
    error = window.settings.save()
    if error:
        window.statusBar().showMessage(error, 10000)


def format_of(path: str) -> str | None:
    """"png" or "svg" from the file name's extension; None for any other."""
    suffix = Path(path).suffix.lower().lstrip(".")
    return suffix if suffix in FILTERS else None


def with_format(path: str, fmt: str) -> str:
    """The path ending in `.fmt`: a known extension is replaced, any other name gets one added."""
    if not path:
        return path
    if format_of(path) is not None:
        return path[: -len(Path(path).suffix)] + "." + fmt
    return path + "." + fmt


class ExportDialog(QDialog):
    def __init__(self, parent: QWidget | None = None, path: str = "", fmt: str = "png", include_cursor: bool = False):
        super().__init__(parent)
        self.setWindowTitle("Export graph")
        self.setMinimumWidth(560)
        self.folder = os.path.dirname(path)  # a bare typed name goes here
        layout = QVBoxLayout(self)
        form = QFormLayout()
        self.path_edit = QLineEdit(with_format(path, fmt))
        self.path_edit.setToolTip("The extension chooses the format: .png or .svg")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self.browse)
        file_row = QHBoxLayout()
        file_row.addWidget(self.path_edit, 1)
        file_row.addWidget(browse)
        form.addRow("File:", file_row)
        self.format_combo = QComboBox()
        for value, text in FORMATS:
            self.format_combo.addItem(text, value)
        self.format_combo.setCurrentIndex([v for v, _t in FORMATS].index(fmt if fmt in FILTERS else "png"))
        form.addRow("Format:", self.format_combo)
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
        self.cursor.setChecked(include_cursor)  # off unless the user left it on last time
        form.addRow("", self.cursor)
        layout.addLayout(form)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Export")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.path_edit.textEdited.connect(self._on_path_typed)
        self.format_combo.currentIndexChanged.connect(self._on_format_chosen)
        self._update_ok()

    # -- the name and the format follow each other -------------------------------------------------------------
    @property
    def format(self) -> str:
        return self.format_combo.currentData()

    def _on_path_typed(self, text: str) -> None:
        typed = format_of(text)
        if typed is not None and typed != self.format:
            self.format_combo.blockSignals(True)
            self.format_combo.setCurrentIndex([v for v, _t in FORMATS].index(typed))
            self.format_combo.blockSignals(False)
        self._update_ok()

    def _on_format_chosen(self, _index: int) -> None:
        self.path_edit.setText(with_format(self.path_edit.text().strip(), self.format))

    def _update_ok(self) -> None:
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(bool(self.path_edit.text().strip()))

    def browse(self) -> None:
        path, chosen_filter = QFileDialog.getSaveFileName(self, "Export graph", self.path_edit.text(),
                                                          ";;".join(FILTERS.values()), FILTERS[self.format])
        if not path:
            return
        fmt = format_of(path) or next((f for f, text in FILTERS.items() if text == chosen_filter), self.format)
        self.path_edit.setText(with_format(path, fmt))
        self._confirmed = self.path()  # the file dialog asked about replacing it
        self._on_path_typed(self.path_edit.text())

    def accept(self) -> None:
        """Export; a typed name that exists is replaced only when the user says so (Browse… asks by itself)."""
        path = self.path()
        if os.path.exists(path) and not getattr(self, "_confirmed", None) == path:
            answer = QMessageBox.question(self, "Replace the file?",
                                          f"{os.path.basename(path)} already exists in {os.path.dirname(path)}. "
                                          "Replace it?")
            if answer != QMessageBox.StandardButton.Yes:
                return
        super().accept()

    # -- the answer ------------------------------------------------------------------------------------------
    def path(self) -> str:
        """The file to write: the typed name, with the chosen format's extension if it had none."""
        text = os.path.expanduser(self.path_edit.text().strip())
        if not os.path.isabs(text):
            text = os.path.join(self.folder, text)
        return text if format_of(text) is not None else with_format(text, self.format)

    def choice(self) -> ExportChoice:
        return ExportChoice(self.whole.isChecked(), float(self.scale.currentData()), self.cursor.isChecked())
