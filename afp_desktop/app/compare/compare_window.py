"""The compare window: two runs side by side, aligned step by step (core/compare.py).

Each run has its own Session, graph canvas and scrubber, so it replays exactly as in the main window; the cards
carry added / removed / changed marks (compare_marks.py). Below: the list of differences with token, time and
error deltas, and a word-level diff of the selected pair's payloads. The cursors are linked by the alignment:
moving one run moves the other to the aligned position (PositionMap), until "Link cursors" is switched off.

Trace text is only ever shown as plain text: list cells are plain, and the diff is built with
QTextCursor.insertText on a plain document, one character format per segment (nothing is parsed as markup).
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass

from PySide6.QtCore import Qt, QTimer, Signal, Slot
from PySide6.QtGui import QAction, QColor, QFont, QKeySequence, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMainWindow,
    QSlider,
    QSplitter,
    QTabWidget,
    QTextEdit,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from afp_desktop.app.compare.compare_marks import MARK_BADGES, MARK_COLOURS, mark_canvas
from afp_desktop.app.panels.graph.graph_canvas import GraphCanvas
from afp_desktop.app.widgets.plain_text import plain_tooltip
from afp_desktop.app.widgets.visible_text import first_line, visible_text
from afp_desktop.app.session import Session
from afp_desktop.app.look.style import palette_for
from afp_desktop.core.model.layout import GraphLayout, layout_step_graph
from afp_desktop.core.views.prepared_views import graph_layout_of
from afp_desktop.core.views.compare import (
    FIELD_NAMES,
    PAYLOAD_FIELDS,
    Comparison,
    PositionMap,
    StepPair,
    compare_runs,
    merged_graph,
    merged_nodes,
    payload_text,
    word_diff,
)
from afp_desktop.core.views.compare_answer import CompareAnswer

DIFF_COLOURS = {  # (background, text) of deleted and inserted words; muted notes
    "light": {"delete": ("#ffd7d5", "#86181d"), "insert": ("#ccffd8", "#0f5323"), "muted": "#5f6773"},
    "dark": {"delete": ("#5c1f24", "#ffdcd7"), "insert": ("#1f4d2c", "#d1f7d9"), "muted": "#9aa4b2"},
}
MAX_DIFF_CHARS = 200_000  # a payload diff longer than this is cut (the rest is said, not drawn)
STATUS_WORDS = {"added": "only in B", "removed": "only in A", "changed": "changed", "same": "same"}
_windows = itertools.count(1)  # each window's requests have a tag of their own (several may ask one engine)


def one_line(value) -> str:
    """Trace text as one displayed line (app/widgets/visible_text.py)."""
    return visible_text(first_line(value))


def step_title(node: dict | None) -> str:
    """"llm → tool (get_weather) #1", "System Prompt (context)", "Run (subflow)"."""
    if not isinstance(node, dict):
        return ""
    kind = node.get("kind")
    label = one_line(node.get("label")) or str(kind)
    if kind == "fork-branch":
        return f"{label} (context)"
    if kind == "decision-branch":
        return f"{label} (decision)"
    if kind == "subflow":
        return f"{label} ({one_line(node.get('primitiveKind')) or 'subflow'})"
    iteration = node.get("iterationIndex")
    return f"{label} #{iteration}" if iteration is not None else label


def run_names(path_a: str, path_b: str) -> tuple[str, str]:
    """The file names, with their folders when the names alone are the same (two runs' trace.json)."""
    name_a, name_b = os.path.basename(path_a), os.path.basename(path_b)
    if name_a != name_b:
        return name_a, name_b
    def with_folder(path: str) -> str:
        return os.path.join(os.path.basename(os.path.dirname(os.path.abspath(path))), os.path.basename(path))
    return with_folder(path_a), with_folder(path_b)


def _signed(value, unit: str = "") -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{'+' if value > 0 else ''}{value:,}{unit}".replace("-", "\u2212")


class RunPane(QWidget):
    """One run of the comparison: a title, its graph canvas and a scrubber (stops ◀ ▶ and a slider over events)."""

    activated = Signal()  # the user moved this run (so the window's keys step it)

    def __init__(self, side: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.side = side
        self.session = Session(self)
        self.marks = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(3)
        self.title = QLabel(f"{side}: no run")
        self.title.setTextFormat(Qt.TextFormat.PlainText)  # a file name
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.follow_box = QCheckBox("Follows the other run")
        self.follow_box.setChecked(True)
        self.follow_box.setToolTip("Moving the other run moves this one to the aligned step (unlink this run alone)")
        title_row = QHBoxLayout()
        title_row.addWidget(self.title, 1)
        title_row.addWidget(self.follow_box)
        layout.addLayout(title_row)
        self.canvas = GraphCanvas()
        self.canvas.setAcceptDrops(False)
        layout.addWidget(self.canvas, 1)
        row = QHBoxLayout()
        self.previous_button = QToolButton()
        self.previous_button.setText("\u25c0")
        self.previous_button.setToolTip("Previous stop")
        self.next_button = QToolButton()
        self.next_button.setText("\u25b6")
        self.next_button.setToolTip("Next stop")
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setToolTip("One step per event")
        self.position_label = QLabel()
        self.position_label.setTextFormat(Qt.TextFormat.PlainText)
        self.position_label.setMinimumWidth(240)
        for widget in (self.previous_button, self.next_button):
            widget.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            row.addWidget(widget)
        row.addWidget(self.slider, 1)
        row.addWidget(self.position_label)
        layout.addLayout(row)
        s = self.session
        self.previous_button.clicked.connect(lambda: (self.activated.emit(), s.previous_stop()))
        self.next_button.clicked.connect(lambda: (self.activated.emit(), s.next_stop()))
        self.slider.valueChanged.connect(self._on_slider)
        self.canvas.node_activated.connect(lambda _i: self.activated.emit())
        s.moment_changed.connect(self._on_moment)
        s.selection_changed.connect(self.canvas.set_selected)

    def set_run(self, run, marks: dict[int, str], name: str | None = None, layout: GraphLayout | None = None) -> None:
        self.title.setText(f"{self.side}: {name or os.path.basename(run.path)}")
        graph = run.stepgraph
        if graph.get("nodes"):
            self.canvas.set_graph(graph, layout or graph_layout_of(run))
            self.marks = mark_canvas(self.canvas, marks)
        else:
            self.canvas.clear("This run has no steps to compare.")
            self.marks = None
        self.slider.blockSignals(True)
        self.slider.setRange(0, len(run.axis))
        self.slider.blockSignals(False)
        self.session.set_run(run)

    def _on_slider(self, value: int) -> None:
        if self.session.run is not None and value != self.session.position:
            self.activated.emit()
            self.session.move_to(value)

    def _on_moment(self, moment) -> None:
        self.canvas.show_moment(moment)
        self.slider.blockSignals(True)
        self.slider.setValue(moment.position)
        self.slider.blockSignals(False)
        self.position_label.setText(moment.describe())


LIST_FIRST_ROWS = 300  # differing rows listed at once; the rest follow a turn at a time
LIST_ROWS_PER_TURN = 300


@dataclass
class ComparisonShown:
    """A comparison with what showing it needs: the merged graph, its layout, the totals and each run's layout."""

    comparison: Comparison
    merged: dict
    merged_layout: GraphLayout | None
    totals: dict
    layouts: tuple[GraphLayout | None, GraphLayout | None]

    @classmethod
    def of(cls, comparison: Comparison, run_a, run_b) -> "ComparisonShown":
        """Of a comparison made in this process (runs given whole: the tests, the command line's screenshot)."""
        merged = merged_graph(comparison)
        return cls(comparison, merged, layout_step_graph(merged) if merged["nodes"] else None,
                   comparison.totals(), _layouts(run_a, run_b))

    @classmethod
    def answered(cls, answer: CompareAnswer, run_a, run_b) -> "ComparisonShown":
        """Of the engine's answer about the runs the window holds (their copies: the steps are theirs); ValueError
        when it is about other runs (a file changed since it was read)."""
        comparison = answer.joined(run_a.stepgraph, run_b.stepgraph)
        merged = {"nodes": merged_nodes(comparison), "edges": answer.merged_edges}
        layouts = _layouts(run_a, run_b) if answer.layout_a is None else (answer.layout_a, *_layouts(run_b))
        return cls(comparison, merged, answer.merged_layout, comparison.totals(), layouts)


def _layouts(*runs) -> tuple:
    """Each run's whole graph's layout (None for a run without steps, or none given)."""
    return tuple(graph_layout_of(run) if run is not None and run.stepgraph.get("nodes") else None for run in runs)


class _RunAsked:
    """What the compare window's EngineRequests ask about (their `session.run`): run A."""

    def __init__(self, run) -> None:
        self.run = run


class CompareWindow(QMainWindow):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Compare runs — afp-desktop")
        self.resize(1500, 950)
        self.comparison: Comparison | None = None
        self.theme = "light"
        self._shown_row: StepPair | None = None
        self.position_map: PositionMap | None = None
        self._syncing = False
        self._active = None
        self._rows_by_a: dict[int, int] = {}
        self._rows_by_b: dict[int, int] = {}
        self._loaders: list = []
        self._loaded: dict[str, object] = {}
        self._path_b: str | None = None
        self._loads_a = None  # the loads of the loader that read run A (its engine is asked for the comparison)
        self._requests: list = []  # the EngineRequests of each comparison asked (stopped when the window closes)
        self._asking = None  # the EngineRequests whose answer is wanted
        self._tag = f"compare {next(_windows)}"  # (a newer comparison of this window supersedes the one before it)
        self._build()

    # ------------------------------------------------------------------------------------------ layout
    def _build(self) -> None:
        self.pane_a, self.pane_b = RunPane("A"), RunPane("B")
        self._active = self.pane_a
        runs = QSplitter(Qt.Orientation.Horizontal)
        runs.addWidget(self.pane_a)
        runs.addWidget(self.pane_b)

        self.link_box = QCheckBox("Link cursors")
        self.link_box.setChecked(True)
        self.link_box.setToolTip("Moving one run moves the other to the aligned step")
        self.link_box.toggled.connect(self._on_link_toggled)
        for pane in (self.pane_a, self.pane_b):  # each run can be unlinked alone
            pane.follow_box.toggled.connect(lambda on, p=pane: self._on_follow_toggled(p, on))
        self.totals_label = QLabel("")
        self.totals_label.setTextFormat(Qt.TextFormat.PlainText)
        self.totals_label.setWordWrap(True)
        legend = QLabel("  ".join(f"{MARK_BADGES[k]} {STATUS_WORDS[k]}" for k in ("added", "removed", "changed")))
        legend.setTextFormat(Qt.TextFormat.PlainText)
        head = QHBoxLayout()
        head.addWidget(self.totals_label, 1)
        head.addWidget(legend)
        head.addWidget(self.link_box)

        self.diff_list = QTreeWidget()
        self.diff_list.setRootIsDecorated(False)
        self.diff_list.setUniformRowHeights(True)
        self.diff_list.setHeaderLabels(["", "Step in A", "Step in B", "What differs", "Δ tokens", "Δ time", "Error"])
        header = self.diff_list.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        for column, width in enumerate((34, 190, 190, 230, 80, 70, 80)):
            self.diff_list.setColumnWidth(column, width)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)  # "What differs" takes the room left
        self.diff_list.currentItemChanged.connect(self._on_row_chosen)
        self.empty_label = QLabel("")
        self.empty_label.setTextFormat(Qt.TextFormat.PlainText)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.hide()

        list_box = QWidget()
        list_layout = QVBoxLayout(list_box)
        list_layout.setContentsMargins(4, 0, 4, 4)
        list_layout.addLayout(head)
        list_layout.addWidget(self.diff_list, 1)
        list_layout.addWidget(self.empty_label, 1)

        self.diff_view = QTextEdit()
        self.diff_view.setReadOnly(True)
        self.diff_view.setAcceptRichText(False)
        self.diff_view.setLineWrapMode(QTextEdit.LineWrapMode.WidgetWidth)
        self.diff_view.setPlaceholderText("Choose a difference to see its payloads word by word.")

        bottom = QSplitter(Qt.Orientation.Horizontal)
        bottom.addWidget(list_box)
        bottom.addWidget(self.diff_view)
        bottom.setSizes([900, 600])
        # The merged graph: both runs in one, each step marked as in the side-by-side view (static: no cursor).
        self.merged_canvas = GraphCanvas()
        self.merged_canvas.setAcceptDrops(False)
        self.merged_canvas.node_activated.connect(self._on_merged_card_clicked)
        self.merged_marks = None
        self.views = QTabWidget()
        self.views.setDocumentMode(True)
        self.views.addTab(runs, "Side by side")
        self.views.addTab(self.merged_canvas, "Merged")
        whole = QSplitter(Qt.Orientation.Vertical)
        whole.addWidget(self.views)
        whole.addWidget(bottom)
        whole.setSizes([600, 330])
        self.setCentralWidget(whole)

        for pane in (self.pane_a, self.pane_b):
            pane.session.moment_changed.connect(lambda moment, p=pane: self._on_cursor_moved(p, moment))
            pane.canvas.node_activated.connect(lambda index, p=pane: self._on_card_clicked(p, index))
            pane.activated.connect(lambda p=pane: setattr(self, "_active", p))
        keys = (("Right", lambda: self._active.session.next_stop()), ("Left", lambda: self._active.session.previous_stop()),
                ("Shift+Right", lambda: self._active.session.step_events(1)),
                ("Shift+Left", lambda: self._active.session.step_events(-1)),
                ("Ctrl+L", self.link_box.toggle), ("Ctrl+W", self.close))
        for key, slot in keys:
            action = QAction(self)
            action.setShortcut(QKeySequence(key))
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            action.triggered.connect(slot)
            self.addAction(action)

    def apply_theme(self, theme: str) -> None:
        """"light" or "dark" (the effective theme, see theme.py): the graphs' palette and the diff's colours."""
        self.theme = "dark" if theme == "dark" else "light"
        for canvas in (self.pane_a.canvas, self.pane_b.canvas, self.merged_canvas):
            canvas.set_palette(palette_for(self.theme))
        if self._shown_row is not None and self.comparison is not None:
            self._draw_diff(self._shown_row)

    # ------------------------------------------------------------------------------------------ runs
    def set_runs(self, run_a, run_b, comparison: Comparison | ComparisonShown | None = None) -> None:
        """Show the two runs compared: `comparison` if it was made already (the engine's answer, shown), else
        compared here (runs holding their events: the tests, the command line's screenshot)."""
        if not isinstance(comparison, ComparisonShown):
            comparison = ComparisonShown.of(comparison or compare_runs(run_a, run_b), run_a, run_b)
        shown = comparison
        self.comparison = comparison = shown.comparison
        self.position_map = PositionMap(comparison, run_a, run_b)
        marks_a = {r.a: r.status for r in comparison.rows if r.a is not None and r.status != "same"}
        marks_b = {r.b: r.status for r in comparison.rows if r.b is not None and r.status != "same"}
        self._syncing = True  # each run opens at its end; no need to carry one to the other yet
        try:
            name_a, name_b = run_names(run_a.path, run_b.path)
            self.pane_a.set_run(run_a, marks_a, name_a, shown.layouts[0])
            self.pane_b.set_run(run_b, marks_b, name_b, shown.layouts[1])
        finally:
            self._syncing = False
        self.setWindowTitle(f"{name_a} ↔ {name_b} — compare — afp-desktop")
        merged = shown.merged
        if merged["nodes"]:
            self.merged_canvas.set_graph(merged, shown.merged_layout)
            self.merged_marks = mark_canvas(self.merged_canvas, {k: row.status for k, row in
                                                                 enumerate(comparison.rows) if row.status != "same"})
        else:
            self.merged_canvas.clear("Neither run has steps to compare.")
            self.merged_marks = None
        self._fill_totals(shown.totals)
        self._fill_list()

    def open_paths(self, path_a: str, path_b: str, run_a=None, loads_a=None) -> None:
        """Load the runs off the UI thread (run A may be given already loaded, with the `loads` of the loader that
        read it: its engine holds it) and have the engine holding run A compare them once both are in. A comparison
        asked before is no longer wanted."""
        from afp_desktop.app.loading.loader import RunLoader

        self._stop_comparing()
        self._loaded, self._path_b, self._loads_a = {}, os.path.abspath(path_b), loads_a
        self.totals_label.setText("Loading…")
        if run_a is not None:
            self._loaded["A"] = run_a
        for side, path in (("A", path_a), ("B", path_b)):
            if side in self._loaded:
                continue
            loader = RunLoader(self)
            loader.loaded.connect(lambda run, s=side: self._on_loaded(s, run))
            loader.failed.connect(self._on_failed)
            self._loaders.append(loader)
            if side == "A":
                self._loads_a = loader.loads
            loader.start(os.path.abspath(path))

    def _on_loaded(self, side: str, run) -> None:
        self._loaded[side] = run
        if "A" in self._loaded and "B" in self._loaded:
            self._ask_comparison(self._loaded["A"], self._loaded["B"])

    def _ask_comparison(self, run_a, run_b) -> None:
        """Ask the engine holding run A to compare it with B's file (it reads B for the answer alone): aligning two
        large runs takes seconds, and the runs' events are the engine's. Its answer is shown with the runs."""
        from afp_desktop.app.loading.engine_requests import EngineRequests

        self.totals_label.setText("Comparing…")
        requests = EngineRequests(_RunAsked(run_a), self._loads_a, self)
        self._requests.append(requests)
        laid_out = run_a.views is not None and run_a.views.graph_layout is not None
        args = {"path": self._path_b, "conversation": run_b.bundle.chosen if run_b.bundle is not None else None,
                "layout_a": not laid_out and bool(run_a.stepgraph.get("nodes"))}  # (made by the engine, not here)
        requests.request(self._tag, "compare_with", args,
                         lambda answer: self._on_compared(requests, run_a, run_b, answer),
                         lambda why: self._on_failed(why) if requests is self._asking else None)
        self._asking = requests

    def _on_compared(self, requests, run_a, run_b, answer: CompareAnswer) -> None:
        if requests is not self._asking:
            return  # (a comparison asked before the newest one)
        self._asking = None
        try:
            shown = ComparisonShown.answered(answer, run_a, run_b)
        except ValueError as err:
            self._on_failed(str(err))
            return
        self.set_runs(run_a, run_b, shown)

    def _stop_comparing(self) -> None:
        """The comparison asked, and the runs loaded for it, are no longer wanted (their engines let go of them)."""
        for loader in self._loaders:
            loader.let_go()
        if self._asking is not None:
            self._asking.forget_run()
            self._asking = None

    @Slot(str)
    def _on_failed(self, message: str) -> None:
        self.totals_label.setText(f"Could not compare: {message}")

    def _fill_totals(self, totals: dict) -> None:
        a, b, d = totals["a"], totals["b"], totals["delta"]

        def side(t: dict) -> str:
            duration = "?" if t["durationMs"] is None else f"{t['durationMs']:,} ms"
            return (f"{t['steps']:,} steps, {t['tokensIn']:,} in / {t['tokensOut']:,} out tokens, {duration}, "
                    f"{t['errors']:,} error{'s' if t['errors'] != 1 else ''}")

        delta = (f"Δ {_signed(d['tokensIn']) or '0'} in / {_signed(d['tokensOut']) or '0'} out tokens, "
                 f"{_signed(d['durationMs'], ' ms') or '?'}, {_signed(d['errors']) or '0'} errors")
        counts = (f"{totals['aligned']:,} aligned · {totals['changed']:,} changed · {totals['added']:,} only in B · "
                  f"{totals['removed']:,} only in A")
        if self.comparison.identical:
            counts = f"Identical: all {totals['aligned']:,} steps aligned, no differences"
        self.totals_label.setText(f"A: {side(a)}\nB: {side(b)}\n{delta}    {counts}")

    def _fill_list(self) -> None:
        """The differing rows: the first LIST_FIRST_ROWS now, the rest LIST_ROWS_PER_TURN per event-loop turn (two
        big runs differ in thousands of rows: made at once they would freeze the window)."""
        comparison = self.comparison
        self.diff_list.blockSignals(True)
        self.diff_list.clear()
        self.diff_list.blockSignals(False)
        self._rows_by_a, self._rows_by_b = {}, {}
        differing = []
        for number, row in enumerate(comparison.rows):
            if row.a is not None:
                self._rows_by_a[row.a] = number
            if row.b is not None:
                self._rows_by_b[row.b] = number
            if row.status != "same":
                differing.append(number)
        self._list_generation = getattr(self, "_list_generation", 0) + 1
        self._add_list_rows(differing, LIST_FIRST_ROWS, self._list_generation)
        none = not differing
        self.diff_list.setVisible(not none)
        self.empty_label.setVisible(none)
        self.empty_label.setText("No differences: every step is aligned and carries the same content." if none
                                 else "")
        self.diff_view.clear()
        self._shown_row = None

    def _add_list_rows(self, numbers: list[int], count: int, generation: int) -> None:
        if generation != self._list_generation or self.comparison is None:
            return  # (another comparison is shown now)
        items = [self._list_item(number) for number in numbers[:count]]
        self.diff_list.blockSignals(True)
        self.diff_list.addTopLevelItems(items)
        self.diff_list.blockSignals(False)
        if len(numbers) > count:
            rest = numbers[count:]
            QTimer.singleShot(0, self, lambda: self._add_list_rows(rest, LIST_ROWS_PER_TURN, generation))

    def _list_item(self, number: int) -> QTreeWidgetItem:
        comparison = self.comparison
        row = comparison.rows[number]
        deltas = comparison.step_deltas(row)
        tokens = deltas.get("tokens")
        token_text = ("" if not tokens or not any(tokens.values())
                      else f"{_signed(tokens['in']) or '0'} / {_signed(tokens['out']) or '0'}")
        error = deltas.get("error")
        error_text = "" if not error else ("new error" if error["b"] and not error["a"] else
                                           "error gone" if error["a"] and not error["b"] else "other error")
        what = ", ".join(FIELD_NAMES.get(f, f) for f in row.fields) or STATUS_WORDS[row.status]
        cells = [MARK_BADGES[row.status],
                 step_title(comparison.nodes_a[row.a]) if row.a is not None else "—",
                 step_title(comparison.nodes_b[row.b]) if row.b is not None else "—",
                 what, token_text, _signed(deltas.get("durationMs") or None, " ms"),
                 error_text]
        item = QTreeWidgetItem(cells)
        item.setData(0, Qt.ItemDataRole.UserRole, number)
        item.setToolTip(3, plain_tooltip(what))
        item.setForeground(0, QColor(MARK_COLOURS[row.status]))
        bold = QFont(item.font(0))
        bold.setBold(True)
        item.setFont(0, bold)
        item.setTextAlignment(0, Qt.AlignmentFlag.AlignCenter)
        return item

    # ------------------------------------------------------------------------------------- choosing a row
    def difference_rows(self) -> list[StepPair]:
        """The rows the list shows, in order (for tests and the keyboard)."""
        rows = self.comparison.rows if self.comparison else []
        return [rows[self.diff_list.topLevelItem(i).data(0, Qt.ItemDataRole.UserRole)]
                for i in range(self.diff_list.topLevelItemCount())]

    def _on_row_chosen(self, item, _previous=None) -> None:
        if item is None or self.comparison is None:
            return
        row = self.comparison.rows[item.data(0, Qt.ItemDataRole.UserRole)]
        self.show_row(row)
        lead = self.pane_a if row.a is not None else self.pane_b
        lead.session.activate_node(row.a if row.a is not None else row.b)

    def _on_card_clicked(self, pane: RunPane, index: int) -> None:
        """A card was clicked in one run: select its partner in the other, show the pair, move the cursor."""
        if self.comparison is None:
            return
        rows = self._rows_by_a if pane is self.pane_a else self._rows_by_b
        number = rows.get(index)
        if number is None:
            return
        row = self.comparison.rows[number]
        self.show_row(row)
        pane.session.activate_node(index)
        for item_index in range(self.diff_list.topLevelItemCount()):
            item = self.diff_list.topLevelItem(item_index)
            if item.data(0, Qt.ItemDataRole.UserRole) == number:
                self.diff_list.blockSignals(True)
                self.diff_list.setCurrentItem(item)
                self.diff_list.blockSignals(False)
                break
        else:
            self.diff_list.clearSelection()

    def _on_merged_card_clicked(self, number: int) -> None:
        """A card of the merged graph is row `number`: choose it as if from the list (the runs' cursors follow)."""
        if self.comparison is None or not 0 <= number < len(self.comparison.rows):
            return
        row = self.comparison.rows[number]
        if row.a is not None:
            self._on_card_clicked(self.pane_a, row.a)
        else:
            self._on_card_clicked(self.pane_b, row.b)

    def show_row(self, row: StepPair) -> None:
        """Select the row's steps in both canvases and draw its payload differences."""
        self.pane_a.session.select_node(row.a)
        self.pane_b.session.select_node(row.b)
        if self.comparison is not None and self.merged_marks is not None:
            self.merged_canvas.set_selected(self.comparison.rows.index(row))
        self._draw_diff(row)

    # ------------------------------------------------------------------------------------ the word diff
    def _draw_diff(self, row: StepPair) -> None:
        comparison = self.comparison
        view = self.diff_view
        view.clear()
        cursor = QTextCursor(view.document())
        self._shown_row = row
        colours = DIFF_COLOURS[self.theme]
        plain, heading, deleted, inserted, muted = (QTextCharFormat() for _ in range(5))
        heading.setFontWeight(QFont.Weight.Bold)
        for fmt, op in ((deleted, "delete"), (inserted, "insert")):
            fmt.setBackground(QColor(colours[op][0]))
            fmt.setForeground(QColor(colours[op][1]))
        deleted.setFontStrikeOut(True)  # also without colour: A's words are struck out
        muted.setForeground(QColor(colours["muted"]))
        node_a = comparison.nodes_a[row.a] if row.a is not None else None
        node_b = comparison.nodes_b[row.b] if row.b is not None else None
        title = f"A: {step_title(node_a) or '—'}    B: {step_title(node_b) or '—'}    ({STATUS_WORDS[row.status]})"
        cursor.insertText(title + "\n", heading)
        deltas = comparison.step_deltas(row)
        va = comparison.values_a[row.a] if row.a is not None else {}
        vb = comparison.values_b[row.b] if row.b is not None else {}
        if "tokens" in deltas:
            ta, tb = va.get("tokens") or {}, vb.get("tokens") or {}
            cursor.insertText(f"tokens: {ta.get('in', '–')} in / {ta.get('out', '–')} out → {tb.get('in', '–')} in / "
                              f"{tb.get('out', '–')} out\n", plain)
        if "durationMs" in deltas:
            cursor.insertText(f"duration: {va.get('durationMs', '–')} ms → {vb.get('durationMs', '–')} ms\n", plain)
        if row.status == "same":
            cursor.insertText("\nNo differences in this step.\n", muted)
            return
        if row.status == "changed":
            fields = [f for f in row.fields if f in PAYLOAD_FIELDS]
            diffs = {f: word_diff(payload_text(va.get(f)), payload_text(vb.get(f))) for f in fields}
        else:  # a step of one run only: its payloads, all deleted or all inserted
            values, op = (va, "delete") if row.status == "removed" else (vb, "insert")
            diffs = {f: [(op, payload_text(values[f]))] for f in PAYLOAD_FIELDS if f in values and f != "label"}
        if not diffs:
            cursor.insertText("\nOnly the figures above differ.\n", muted)
        formats = {"equal": plain, "delete": deleted, "insert": inserted}
        budget = MAX_DIFF_CHARS
        for field, segments in diffs.items():
            cursor.insertText(f"\n{FIELD_NAMES.get(field, field)}\n", heading)
            for op, text in segments:
                if budget <= 0:
                    break
                cursor.insertText(text[:budget], formats[op])
                budget -= len(text)
            if budget <= 0:
                cursor.insertText(f"\n… (cut: the rest of this diff is over {MAX_DIFF_CHARS:,} characters)\n", muted)
                break
            cursor.insertText("\n", plain)
        view.moveCursor(QTextCursor.MoveOperation.Start)

    # ------------------------------------------------------------------------------------- linked cursors
    @property
    def linked(self) -> bool:
        """Both runs follow each other."""
        return self.link_box.isChecked()

    def _on_link_toggled(self, linked: bool) -> None:
        """Link or unlink both runs at once (Ctrl+L)."""
        for pane in (self.pane_a, self.pane_b):
            pane.follow_box.blockSignals(True)
            pane.follow_box.setChecked(linked)
            pane.follow_box.blockSignals(False)
        active = self._active or self.pane_a
        if linked and active.session.moment is not None:
            self._on_cursor_moved(active, active.session.moment)

    def _on_follow_toggled(self, pane: RunPane, follows: bool) -> None:
        """One run unlinked (or linked again) on its own; the window's box says whether both follow."""
        both = self.pane_a.follow_box.isChecked() and self.pane_b.follow_box.isChecked()
        self.link_box.blockSignals(True)
        self.link_box.setChecked(both)
        self.link_box.blockSignals(False)
        other = self.pane_b if pane is self.pane_a else self.pane_a
        if follows and other.session.moment is not None:
            self._on_cursor_moved(other, other.session.moment)

    def _on_cursor_moved(self, pane: RunPane, view) -> None:
        other = self.pane_b if pane is self.pane_a else self.pane_a
        if self._syncing or not other.follow_box.isChecked() or self.position_map is None or view is None:
            return
        carry = self.position_map.a_to_b if pane is self.pane_a else self.position_map.b_to_a
        target = carry(view.position)
        self._syncing = True
        try:
            other.session.move_to(target, immediate=True)
        finally:
            self._syncing = False

    def closeEvent(self, event) -> None:
        self._stop_comparing()
        for loader in self._loaders:
            loader.wait(5000)
        for requests in self._requests:  # (a request in this process ends at its next breathing point)
            requests.stop(5000)
        super().closeEvent(event)


# ------------------------------------------------------------------------------------------- opening it

def compare_with_file(parent) -> CompareWindow | None:
    """File ▸ Compare with…: the run open in `parent` (a MainWindow) against a file the user picks (or two
    files when no run is open). The window is kept on the parent so it lives as long as it is open."""
    from afp_desktop.app.storage.file_labels import TRACE_FILTER

    run = parent.session.run
    folder = parent.settings.get("last_folder") or os.path.expanduser("~")
    path_a = run.path if run is not None else QFileDialog.getOpenFileName(parent, "Compare: choose run A", folder,
                                                                          TRACE_FILTER)[0]
    if not path_a:
        return None
    path_b, _filter = QFileDialog.getOpenFileName(parent, f"Compare {os.path.basename(path_a)} with…", folder,
                                                  TRACE_FILTER)
    if not path_b:
        return None
    window = CompareWindow()
    window.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    windows = parent.__dict__.setdefault("_compare_windows", [])
    windows.append(window)
    window.destroyed.connect(lambda _obj=None, w=window: w in windows and windows.remove(w))
    window.apply_theme(getattr(parent, "theme", "light"))
    from afp_desktop.app.look import theme as widget_theme

    widget_theme.theme_notifier().theme_changed.connect(window.apply_theme)  # follow the desktop's scheme
    window.show()
    window.open_paths(path_a, path_b, run_a=run, loads_a=parent.loader.loads if run is not None else None)
    return window
