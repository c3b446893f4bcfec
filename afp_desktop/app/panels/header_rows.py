"""The inspector header's rows of facts and ids: one set of widgets per shape of rows, kept for the next step of
that shape.

Why: a step's header is a dozen widgets (captions, ids, copy buttons). Moving the cursor between an LLM call and
a tool call changes the rows' names and kinds, and making the rows anew at each such move would be most of the
move's work. Each shape's widgets are kept (hidden while another shape is shown) and given the
next step's values; only a shape never seen before is built.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFormLayout, QVBoxLayout, QWidget

from afp_desktop.app.widgets.copy_id import IdPair, id_field
from afp_desktop.app.widgets.plain_text import plain_label
from afp_desktop.core.views.step_ids import StepId

MAX_SHAPES = 12  # kept at most (a run shows a handful: an LLM call, a tool call, an answer, a subflow…)


def row_shape(rows: list[tuple[str, Any]]) -> tuple[tuple[str, str], ...]:
    """The rows' names and the kind of widget each value is shown in (rows with no value are not shown)."""
    return tuple((name, "pair" if isinstance(value, tuple) else "id" if isinstance(value, StepId) else "text")
                 for name, value in rows if value is not None)


class HeaderRows(QWidget):
    """The rows of one shape: a caption and a field each. Values: text, a StepId (an id with its copy button) or
    (StepId, caption, StepId) (two ids on one row)."""

    def __init__(self, rows: list[tuple[str, Any]], parent: QWidget | None = None):
        super().__init__(parent)
        self.form = QFormLayout(self)
        self.form.setContentsMargins(0, 0, 0, 0)
        self.form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        self.form.setHorizontalSpacing(10)
        self.form.setVerticalSpacing(2)
        self.fields: list[Any] = []  # IdPair, IdField or a label: each takes new values its own way
        self.copy_buttons: list = []  # in the order Tab walks them
        for name, value in rows:
            caption = plain_label(name, muted=True)
            caption.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)  # (a field may wrap)
            field: QWidget
            if isinstance(value, tuple):
                field = IdPair(*value)
                self.copy_buttons += [one.button for one in field.fields]
            elif isinstance(value, StepId):
                field = id_field(value.value, value.what)
                self.copy_buttons.append(field.button)
            else:
                field = plain_label(value)
            self.form.addRow(caption, field)
            self.fields.append(field)

    def set_values(self, rows: list[tuple[str, Any]]) -> None:
        """New values for rows of this shape."""
        for (_name, value), field in zip(rows, self.fields):
            if isinstance(value, tuple):
                field.set_values(*value)
            elif isinstance(value, StepId):
                field.set_value(value.value, value.what)
            else:
                field.setText(value)


class HeaderForms:
    """The header's rows, in `layout`: the shape shown in front, the shapes shown before kept hidden."""

    def __init__(self, layout: QVBoxLayout):
        self._layout = layout
        self._kept: OrderedDict[tuple, HeaderRows] = OrderedDict()  # the shape shown last at the end
        self.current: HeaderRows | None = None
        self._empty = QFormLayout()  # what `form` is while no rows are shown

    @property
    def form(self) -> QFormLayout:
        """The rows shown (their captions and fields, as a form layout)."""
        return self.current.form if self.current is not None else self._empty

    def show(self, rows: list[tuple[str, Any]]) -> HeaderRows:
        """Show these rows (no None values; text values already formatted): the kept widgets of their shape with
        new values, or new widgets for a shape not kept."""
        shape = row_shape(rows)
        shown = self._kept.get(shape)
        if shown is None:
            shown = HeaderRows(rows)
            shown.setVisible(False)
            self._layout.addWidget(shown)
            self._kept[shape] = shown
            while len(self._kept) > MAX_SHAPES:
                _shape, oldest = self._kept.popitem(last=False)
                self._layout.removeWidget(oldest)
                oldest.deleteLater()
        else:
            shown.set_values(rows)
            self._kept.move_to_end(shape)
        if shown is not self.current:
            if self.current is not None:
                self.current.setVisible(False)
            shown.setVisible(True)
            self.current = shown
        return shown
