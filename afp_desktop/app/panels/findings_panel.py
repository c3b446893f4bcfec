"""The Findings panel: what a reviewer must look at in the run (core/views/findings.py), one row each with its
moment, its step, its kind and a message a person understands. A finding is known only from its moment on: one
still to come at the cursor is greyed and marked "later" (hidden when future steps are hidden). A click, or
Enter, moves the one cursor to the finding's moment and selects its step.

Messages come from the trace: every cell is plain text (QTreeWidgetItem never reads markup).
"""

from __future__ import annotations

from bisect import bisect_right
from typing import TYPE_CHECKING

from PySide6.QtCore import QRect, QSize, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFontMetrics
from PySide6.QtWidgets import QHeaderView, QLabel, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from afp_desktop.app.panels.panel import PanelDefaults
from afp_desktop.app.widgets.plain_text import plain_tooltip
from afp_desktop.app.widgets.visible_text import visible_text

if TYPE_CHECKING:  # (the run's facts are imported with the first run, not with the window)
    from afp_desktop.core.views.findings import Finding

COLUMNS = ("Event", "Finding")
MAX_LISTED = 2000  # rows made (the first ones, in axis order); the summary says how many more (info --json: all)
FINDING_ROLE = Qt.ItemDataRole.UserRole + 1
# Greyed, yet readable: at least 4.5:1 against the panel's background in each theme.
LATER_TEXT = {"light": "#5f6675", "dark": "#a0a8b8"}
NO_RUN = "Open a run to see what a reviewer must look at."
NONE_FOUND = "No findings in this run: no rejected arguments, denied permissions, schema retries, integrity " \
             "errors, risk flags, failed evaluations, refused results or budget stops."


def step_name(nodes, node: int | None) -> str:
    """The step a finding belongs to, as its card names it ("llm → tool (scan_repo)"), with its iteration."""
    if node is None or not 0 <= node < len(nodes):
        return "(no step: the application's event)"
    entry = nodes[node]
    label = entry.get("label") if isinstance(entry.get("label"), str) else str(entry.get("kind", "step"))
    iteration = entry.get("iterationIndex")
    if isinstance(iteration, int) and not isinstance(iteration, bool):
        label += f" · iteration {iteration}"
    return " ".join(label.split())


class FindingsPanel(QWidget, PanelDefaults):
    """Follows the session: filled when a run is shown (or grows), greyed rows follow the cursor."""

    finding_chosen = Signal(object)  # the Finding clicked

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.findings: list[Finding] = []
        self.total = 0
        self._positions: list[int] = []
        self._known = -1  # how many rows are shown as known
        self._fitted_width: int | None = None  # the width the rows were measured at
        self.theme = "light"
        self.future_mode = "dim"
        self.summary = QLabel()
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(list(COLUMNS))
        self.tree.setRootIsDecorated(False)
        self.tree.setWordWrap(True)  # (the message wraps to the panel's width: nothing is cut)
        self.tree.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.tree.setAlternatingRowColors(True)
        header = self.tree.header()
        header.setStretchLastSection(True)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        # Rows are measured again at a new width (a wrapped message needs more or fewer lines).
        header.sectionResized.connect(lambda column, _old, _new: column == 1 and self._fit_rows())
        self.tree.itemClicked.connect(lambda item, _column: self._choose(item))
        self.tree.itemActivated.connect(lambda item, _column: self._choose(item))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(4)
        layout.addWidget(self.summary)
        layout.addWidget(self.tree, 1)
        layout.addStretch(0)  # (no findings: the sentence alone at the top, no empty list under it)
        if session.run is not None:
            self.show_run(session.run)
        else:
            self.clear()

    # -- the rows ------------------------------------------------------------------------------------------
    def clear(self) -> None:
        self.findings, self._positions, self._known, self.total = [], [], -1, 0
        self.tree.clear()
        self.tree.setVisible(False)
        self.summary.setText(NO_RUN)

    def show_run(self, run) -> None:
        from afp_desktop.core.views.run_facts import facts_of_run

        self.tree.clear()
        facts = facts_of_run(run)
        self.total = len(facts.findings.all)
        self.findings = list(facts.findings.all[:MAX_LISTED])
        self._positions = [finding.position for finding in facts.findings.all]  # (every one: the counts)
        nodes = facts.facts.nodes
        for finding in self.findings:
            where = f"{finding.kind} · {step_name(nodes, finding.node)}"
            item = QTreeWidgetItem([f"{finding.position:,}", visible_text(f"{finding.message}\n{where}")])
            item.setData(0, FINDING_ROLE, finding)
            item.setToolTip(1, plain_tooltip(f"{finding.message}\n\n{where}\nat event {finding.position:,}"))
            self.tree.addTopLevelItem(item)
        self._known = -1
        self._fit_rows()
        self.show_known(self.session.position if self.session.moment is not None else len(run.axis))

    def _fit_rows(self) -> None:
        """Each row as tall as its message needs, wrapped to the column's width (Qt's own measure of a wrapped
        cell counts its lines, not its wrapping: the end of a long message was cut)."""
        width = self.tree.viewport().width() - self.tree.columnWidth(0) - 10
        if width <= 20 or not self.tree.isVisible():
            self._fitted_width = None  # (measured when shown)
            return
        self._fitted_width = width
        metrics = QFontMetrics(self.tree.font())
        flags = int(Qt.TextFlag.TextWordWrap)
        for row in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(row)
            height = metrics.boundingRect(QRect(0, 0, width, 100_000), flags, item.text(1)).height()
            item.setSizeHint(1, QSize(width, height + 6))

    def run_grown(self, run) -> None:
        """The run shown has grown (a followed file): list the findings of the whole of it, the scroll kept."""
        bar = self.tree.verticalScrollBar()
        kept = bar.value()
        self.show_run(run)
        bar.setValue(kept)

    def run_loaded(self, run) -> None:
        self.show_run(run)

    def run_closed(self) -> None:
        self.clear()

    def moment(self, moment) -> None:
        self.show_known(moment.position)

    def show_known(self, position: int) -> None:
        """Rows of findings that had happened by `position` as known; the rest greyed ("later") or hidden."""
        known_all = bisect_right(self._positions, position)
        known = min(known_all, len(self.findings))
        if self.tree.isHidden() == bool(self.findings):
            self.tree.setVisible(bool(self.findings))
            self._fit_if_resized()
        if not self.findings:
            self.summary.setText(NONE_FOUND if self.session.run is not None else NO_RUN)
            return
        later = self.total - known_all
        text = f"{known_all:,} finding{'s' if known_all != 1 else ''} known at the cursor (event {position:,})"
        if later:
            text += f"; {later:,} more later in the run" + (" (hidden: future steps are hidden)"
                                                          if self.future_mode == "hide" else " (greyed)")
        if self.total > len(self.findings):
            text += f"; the first {len(self.findings):,} of {self.total:,} are listed (info --json lists all)"
        self.summary.setText(text + ". Click one to go there.")
        if known == self._known:
            return
        self._known = known
        grey = QBrush(QColor(LATER_TEXT.get(self.theme, LATER_TEXT["light"])))
        plain = QBrush()
        for row in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(row)
            finding = self.findings[row]
            happened = row < known
            item.setHidden(not happened and self.future_mode == "hide")
            item.setText(0, f"{finding.position:,}" if happened else f"later · {finding.position:,}")
            font = item.font(0)
            font.setItalic(not happened)
            for column in range(len(COLUMNS)):
                item.setForeground(column, plain if happened else grey)
                item.setFont(column, font)

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._fit_if_resized()

    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        self._fit_if_resized()

    def _fit_if_resized(self) -> None:
        width = self.tree.viewport().width() - self.tree.columnWidth(0) - 10
        if width != self._fitted_width:
            self._fit_rows()

    def rows(self) -> list[tuple[bool, str]]:
        """(known at the cursor, message) of each row shown: for tests and the screenshot checks."""
        return [(row < self._known, self.findings[row].message) for row in range(self.tree.topLevelItemCount())
                if not self.tree.topLevelItem(row).isHidden()]

    # -- settings and the click ------------------------------------------------------------------------------
    def set_theme(self, theme: str) -> None:
        self.theme = theme
        self._refresh()

    def set_future_mode(self, mode: str) -> None:
        """"dim": findings still to come are greyed; "hide": they are not listed."""
        self.future_mode = mode
        self._refresh()

    def _refresh(self) -> None:
        self._known = -1
        if self.session.run is not None:
            self.show_known(self.session.position)

    def _choose(self, item: QTreeWidgetItem) -> None:
        from afp_desktop.core.views.findings import Finding

        finding = item.data(0, FINDING_ROLE)
        if isinstance(finding, Finding):
            self.finding_chosen.emit(finding)
            self.go_to(finding)

    def go_to(self, finding: Finding) -> None:
        """Move the cursor to the finding's moment and select its step."""
        if finding.node is not None:
            self.session.select_node(finding.node)
        self.session.move_to(finding.position)
