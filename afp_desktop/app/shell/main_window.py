"""The replay window: graph canvas in the middle, timeline at the bottom, chat bubble / templates / inspector on
the right, a banner and summary strip on top, and the menus, keys, drag and drop and loading that tie them to
the session.

Wiring rule: every panel and feature implements `Panel` (app/panels/panel.py) and is told of the session's runs and
moments through one list, the window's `panel_hub`; the window only forwards the canvas's clicks to the session.
Nothing else talks to anything else.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QEvent, Qt, QTimer, QUrl
from PySide6.QtGui import QAction, QActionGroup, QKeyEvent
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDockWidget,
    QFileDialog,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QStackedWidget,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from afp_desktop.app.widgets.layout_stop import LayoutStop
from afp_desktop.app.widgets.plain_text import plain_tooltip
from afp_desktop import __version__
from afp_desktop.app.look import theme as widget_theme
from afp_desktop.app.export.export_dialog import (ExportChoice, ExportDialog, default_export_folder, format_of,
                                           proposed_file_name)
from afp_desktop.app.storage.file_labels import TRACE_FILTER, recent_label
from afp_desktop.app.loading.follow import FollowController
from afp_desktop.app.shell.go_to_box import GoToBox
from afp_desktop.app.features.graph_folding import GraphFolding, empty_graph_reason
from afp_desktop.app.pacing import open_imports
from afp_desktop.app.shell.load_progress import LoadProgressBar
from afp_desktop.app.loading.engine_requests import EngineRequests
from afp_desktop.app.loading.loader import RunLoader
from afp_desktop.app.pacing.scheduler import PaintPhase
from afp_desktop.app.loading.left_out import LeftOut
from afp_desktop.app.loading.progressive import ProgressiveDisplay
from afp_desktop.app.panels.notice_words import (
    BannerMessage, engine_ended_message, engine_lost_message, failed_open_message, message_for,
)
from afp_desktop.app.panels.banner import BannerRow, SummaryStrip
from afp_desktop.app.panels.empty_state import EmptyState
from afp_desktop.app.panels.panel import Panel, PanelHub
from afp_desktop.app.panels.graph.graph_canvas import GraphCanvas
from afp_desktop.app.panels.graph.graph_minimap import GraphMinimap
from afp_desktop.app.panels.timeline.timeline_host import TimelineHost
from afp_desktop.app.shell.proportions import default_dock_sizes
from afp_desktop.app.session import Session
from afp_desktop.app.storage.settings import Settings
from afp_desktop.app.shell.action_table import MenuId
from afp_desktop.app.shell.menus import ActionRegistry

if TYPE_CHECKING:
    from afp_desktop.app.shell.help_overlay import HelpOverlay

log = logging.getLogger(__name__)

LIGHT_MOVE_MS = 8  # a one-stop step the panels took less time for is painted in the same turn


def right_panels():
    """The panels of the right-hand column, in order: (key, title, class). Imported here so that a panel that
    cannot be imported stops the window loudly, never shows as a blank."""
    from afp_desktop.app.panels.bug_report import BugReportPanel
    from afp_desktop.app.panels.chat_bubble import ChatBubblePanel
    from afp_desktop.app.panels.inspector import InspectorPanel
    from afp_desktop.app.panels.template_editor import TemplateEditorPanel

    return (("chat", "Chat bubble", ChatBubblePanel), ("templates", "Templates", TemplateEditorPanel),
            ("inspector", "Inspector", InspectorPanel), ("bugreport", "Bug report", BugReportPanel))


def window_features():
    """What the window is extended with, in the order it is added: each is a class with a `key`, made with the
    window and using only its public API (add_dock, bind_action, panels, docks, session, settings, timeline)."""
    from afp_desktop.app.features.context_and_events import EventsAndContext
    from afp_desktop.app.features.fact_marks import FactMarks
    from afp_desktop.app.features.find_and_bookmarks import FindAndBookmarks
    from afp_desktop.app.features.findings_view import FindingsShown
    from afp_desktop.app.features.framework_toggle import FrameworkToggle
    from afp_desktop.app.features.iteration_orientation import IterationOrientation
    from afp_desktop.app.features.pause_view import PauseView
    from afp_desktop.app.features.price_table import CostShown
    from afp_desktop.app.features.run_facts_header import RunFactsHeader
    from afp_desktop.app.features.share_page import SharePage
    from afp_desktop.app.features.stop_links import StopLinks

    return (FindAndBookmarks, EventsAndContext, PauseView, IterationOrientation, StopLinks, FrameworkToggle,
            CostShown, FindingsShown, RunFactsHeader, FactMarks, SharePage)


def is_text_field(widget: QWidget | None) -> bool:
    """Widgets where arrow keys, Home/End and Space edit text, so the replay keys must leave them alone."""
    if widget is None:
        return False
    if isinstance(widget, (QLineEdit, QAbstractSpinBox)):
        return True
    if isinstance(widget, (QTextEdit, QPlainTextEdit)):
        return not widget.isReadOnly()
    if isinstance(widget, QComboBox):
        return widget.isEditable()
    return False


AT_THE_END = ("failed",)  # the banner's notices about how the run ended: shown from the moment it ended


class MainWindow(QMainWindow):
    def __init__(self, session: Session | None = None, settings: Settings | None = None,
                 restore_layout: bool = True):
        super().__init__()
        self.session = session or Session(self)
        self.settings = settings or Settings()
        # The style and palette before the widgets are made: set after them, every widget is polished again.
        widget_theme.apply_theme(QApplication.instance(), self.settings.get("theme"))
        self.loader = RunLoader(self, warm_at_start=False)  # (its engine process is started after the first frame)
        self.engine_requests = EngineRequests(self.session, self.loader.loads, self)  # everything but view data
        self.engine_requests.engine_lost.connect(self._on_engine_lost)
        self.session.span_walks.ask_through(self.engine_requests)  # (a long stop's lines, walked by the engine)
        self.progressive = ProgressiveDisplay(self)  # a big file shown while it is read
        self.left_out = LeftOut(self.engine_requests, self)  # what the loader left out, asked once the run is shown
        self.left_out.checked.connect(self._on_payloads_checked)
        scheduler = self.session.scheduler
        self.paint_phase = PaintPhase(self, queue=scheduler.queue, clock=scheduler.clock)
        self.paint_phase.served.connect(self.loader.window_painted)  # (a part shown, then painted: the load goes on)
        self.remember_layout = restore_layout  # a --screenshot window must not overwrite the user's layout
        self.theme = "light"
        self._themed = False
        self.setWindowTitle("afp-desktop")
        self.setAcceptDrops(True)
        self.resize(1440, 900)
        self.panels: dict[str, QWidget] = {}  # every panel, by key (each is also in panel_hub's one list)
        self.docks: dict[str, QDockWidget] = {}
        self.actions = ActionRegistry(self)  # the menus, from the action table (shell/action_table.py)
        self._build_central()
        self._build_docks()
        self._build_status_bar()
        self.follow = FollowController(self)  # File ▸ Follow, the Live indicator, Jump to live (app/loading/follow.py)
        self._follow_wanted: bool | None = None
        self._build_menus()
        self._connect()
        # After _connect: a feature's panels follow a run the window has shown. Each feature is a panel too
        # (app/panels/panel.py): told of each run and moment after the docks, in the order of window_features().
        self.features = {}
        for feature in window_features():
            self.features[feature.key] = made = feature(self)
            self.panel_hub.add(made)
        self._default_state = self.saveState()
        self._apply_settings(restore_layout)
        self._refresh_recent()
        self._show_empty()

    # ------------------------------------------------------------------------------------------- layout
    def _build_central(self) -> None:
        central = QWidget()
        column = QVBoxLayout(central)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        self.banner = BannerRow()
        self.summary = SummaryStrip()
        self.canvas = GraphCanvas()
        # Files dropped on the graph are for the window, not for the graphics scene.
        self.canvas.setAcceptDrops(False)
        self.canvas.viewport().setAcceptDrops(False)
        self.minimap = GraphMinimap(self.canvas)
        self.go_to_box = GoToBox(self.session)
        self.go_to_box.went.connect(lambda says: self.statusBar().showMessage(f"Went to {says}", 8000))
        self.empty = EmptyState()
        self.stack = QStackedWidget()
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self.canvas)
        column.addWidget(self.banner)
        column.addWidget(LayoutStop(self.summary))  # (its texts change at every move)
        column.addWidget(self.go_to_box)
        column.addWidget(self.stack, 1)
        self.setCentralWidget(central)

    def _build_docks(self) -> None:
        self.timeline = TimelineHost(self.session)  # its plots are built after the first frame
        # (the host only hosts: its panel joins the panels once it is built, _timeline_built)
        self.timeline_dock = self._place_dock("timeline", "Timeline", self.timeline,
                                           Qt.DockWidgetArea.BottomDockWidgetArea)
        for key, title, panel_class in right_panels():
            self.add_dock(key, title, panel_class(self.session), Qt.DockWidgetArea.RightDockWidgetArea)
        # Chat bubble on top; inspector and templates share the space below it as tabs.
        self.splitDockWidget(self.docks["chat"], self.docks["inspector"], Qt.Orientation.Vertical)
        self.tabifyDockWidget(self.docks["inspector"], self.docks["templates"])
        self.tabifyDockWidget(self.docks["inspector"], self.docks["bugreport"])
        self.docks["inspector"].raise_()
        self._default_dock_sizes()

    def _default_dock_sizes(self) -> None:
        """The default split, in proportion to the window (proportions.py): most of it for the graph."""
        sizes = default_dock_sizes(self.width(), self.height())
        self.resizeDocks([self.docks["chat"]], [sizes.side_width], Qt.Orientation.Horizontal)
        self.resizeDocks([self.timeline_dock], [sizes.timeline_height], Qt.Orientation.Vertical)
        self.resizeDocks([self.docks["chat"], self.docks["inspector"]], [sizes.bubble_height, sizes.inspector_height],
                         Qt.Orientation.Vertical)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not getattr(self, "_shown_once", False):
            self._shown_once = True
            if not self._layout_restored:  # sizes asked for before the first show are only partly honoured
                QTimer.singleShot(0, self, self._default_dock_sizes)

    def paintEvent(self, event) -> None:
        super().paintEvent(event)
        if not getattr(self, "_painted_once", False):  # the window is on screen: now build what can wait
            self._painted_once = True
            # What the first open needs, a module per turn, then the open (not run if the window is deleted first).
            open_imports.import_then(self, self._after_first_frame)

    def open_after_first_frame(self, path: str | os.PathLike, **how) -> None:
        """Start loading once the window is on screen (start-up: the empty window shows first); `how` goes to
        open_file (conversation, follow)."""
        if getattr(self, "_painted_once", False):
            self.open_file(path, **how)
        else:
            self._open_when_shown, self._open_how = path, how

    def _after_first_frame(self) -> None:
        path, self._open_when_shown = getattr(self, "_open_when_shown", None), None
        if path is None:
            self.loader.warm()  # (ready for the first open)
            self.timeline.build_when_ready()
            return
        # The file first (the loader reads it in a thread; the run shows at once), then the timeline's plots: as
        # soon as the run shows, its first part for a big file read in parts (not once it is read whole).
        signals = (self.loader.prefix, self.loader.loaded, self.loader.failed, self.loader.cancelled)

        def build_once(*_args) -> None:
            for signal in signals:
                signal.disconnect(build_once)
            QTimer(self, singleShot=True, interval=30, timeout=self.timeline.build_when_ready).start()

        for signal in signals:
            signal.connect(build_once)
        self.open_file(path, **getattr(self, "_open_how", {}))

    @property
    def help_overlay(self) -> HelpOverlay:
        """The keyboard-shortcut overview (F1), made the first time it is asked for: hidden until then."""
        overlay = getattr(self, "_help_overlay", None)
        if overlay is None:
            from afp_desktop.app.shell.help_overlay import HelpOverlay

            overlay = self._help_overlay = HelpOverlay(self)
        return overlay

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self.load_label = QLabel()
        self.load_label.setTextFormat(Qt.TextFormat.PlainText)  # shows a file name
        self.progress = LoadProgressBar()
        self.progress.setRange(0, 100)
        self.progress.setMaximumWidth(220)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.cancel_button.clicked.connect(self.loader.cancel)
        for widget in (self.load_label, self.progress, self.cancel_button):
            bar.addPermanentWidget(widget)
        self._set_loading(False)

    # ------------------------------------------------------------------- what features build on (public)
    def add_dock(self, key: str, title: str, widget: QWidget, area) -> QDockWidget:
        """A dock for a panel: saved and restored with the layout by `key`, painted with the window, listed in
        View ▸ Panels."""
        dock = self._place_dock(key, title, widget, area)
        self.add_panel(key, widget)
        return dock

    def _place_dock(self, key: str, title: str, widget: QWidget, area) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(f"dock-{key}")  # saveState/restoreState find docks by name
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        self.docks[key] = dock
        self.paint_phase.watch(dock)
        self.actions.append(MenuId.PANELS, dock.toggleViewAction())
        return dock

    def add_panel(self, key: str, panel: Panel) -> None:
        """A panel the window tells of each run and moment (app/panels/panel.py): it must implement `Panel`."""
        if key in self.panels:
            return
        self.panels[key] = panel
        hub = getattr(self, "panel_hub", None)  # (the docks built before the hub are listed when it is made)
        if hub is not None:
            hub.add(panel)

    def bind_action(self, action_id: str, handler=None, *, action: QAction | None = None) -> QAction:
        """Bind a handler to an entry of the action table (shell/action_table.py); it shows where the table says."""
        return self.actions.bind(action_id, handler, action=action)

    def action(self, action_id: str) -> QAction:
        return self.actions.action(action_id)

    def menu(self, menu_id: MenuId):
        return self.actions.menu(menu_id)

    def show_status(self, text: str, milliseconds: int = 8000) -> None:
        self.statusBar().showMessage(text, milliseconds)

    def _build_menus(self) -> None:
        bind = self.bind_action
        self.actions.menu(MenuId.RECENT).aboutToShow.connect(self._fill_recent_menu)
        bind("open", self.choose_file)
        bind("compare", self.compare_with)
        bind("export", lambda: self.ask_export())
        bind("reload", self.reload)
        bind("close", self.close_run)
        bind("quit", self.close)
        bind("find", self.focus_inspector_search)
        bind("zoom_in", self.canvas.zoom_in)
        bind("zoom_out", self.canvas.zoom_out)
        bind("fit", self.canvas.fit_to_window)
        bind("actual_size", self.canvas.reset_zoom)
        bind("fold", lambda on: self.folding.set_enabled(on))
        self.future_actions = self._choice_group("future_mode", (("dim", "future_dim"), ("hide", "future_hide")))
        self.theme_actions = self._choice_group("theme", (("system", "theme_system"), ("light", "theme_light"),
                                                          ("dark", "theme_dark")))
        bind("reset_layout", self.reset_layout)
        s, key = self.session, Qt.Key
        shift = Qt.KeyboardModifier.ShiftModifier
        replay_keys = (  # (action id, what it does, the key handed back to a focused text field)
            ("next_stop", s.next_stop, key.Key_Right, None),
            ("previous_stop", s.previous_stop, key.Key_Left, None),
            ("next_event", lambda: s.step_events(1), key.Key_Right, shift),
            ("previous_event", lambda: s.step_events(-1), key.Key_Left, shift),
            ("home", s.home, key.Key_Home, None),
            ("end", s.end, key.Key_End, None),
            ("play", s.toggle_play, key.Key_Space, None),
            ("back_out", lambda: s.drill_out(len(s.breadcrumb) - 2), key.Key_Backspace, None),
            ("centre", self.canvas.centre_on_cursor, key.Key_C, None),
        )
        for action_id, slot, typed_key, modifiers in replay_keys:
            bind(action_id, lambda _c=False, f=slot, k=typed_key, m=modifiers:
                 self._replay_key(f, k, m or Qt.KeyboardModifier.NoModifier))
        bind("go_to", self.go_to_box.open_box)
        self.follow.bind_actions(self)
        bind("help", lambda: self.help_overlay.toggle())
        bind("about", self.show_about)

    def _choice_group(self, setting: str, choices) -> dict[str, QAction]:
        group = QActionGroup(self)
        group.setExclusive(True)
        actions = {}
        for value, action_id in choices:
            action = self.bind_action(action_id, lambda _c=False, v=value: self._set_choice(setting, v))
            group.addAction(action)
            actions[value] = action
        return actions

    def _connect(self) -> None:
        s = self.session
        s.run_loaded.connect(self._on_run_loaded)
        s.run_closed.connect(self._show_empty)
        s.run_closed.connect(self.left_out.stop)
        # The canvas shows the graph with similar iterations folded; graph_folding maps the steps both ways.
        self.folding = GraphFolding(s, self.canvas, self)
        # The panels, in one explicit list, told of each run and moment after the window's own handlers: the
        # graph first, then the timeline and the docks in the order they were added (features add theirs).
        self.panel_hub = PanelHub(s, [self.folding, *self.panels.values()], parent=self)
        self.timeline.when_built(self._timeline_built)
        self.folding.expanded.connect(lambda says: self.statusBar().showMessage(says, 8000))
        self.folding.folding_changed.connect(self.action("fold").setChecked)
        s.moment_changed.connect(lambda _moment: self.minimap.follow_cursor())
        # The scheduler's paint phase: a new moment is painted on the turn after the panels took it (PaintPhase):
        # two short stalls, not one long one. A step of one stop that the panels took in less than a step's budget
        # is painted at once (a jump scrolls the graph and the timeline: its paint is heavy, and moves coming
        # faster share a paint).
        s.scheduler.paint_steps.append(lambda: self.paint_phase.arm(
            light_until=s.scheduler.moment_began + LIGHT_MOVE_MS / 1000 if s.one_stop_step else None))
        # A big run's stops reach the timeline a turn after the other panels: their paint waits a turn more, or
        # laying them out and painting them with the graph's next paint would freeze the window in one piece.
        self.timeline.when_built(lambda panel: panel.stops_shown.connect(lambda: self.paint_phase.arm()))
        self.summary.error_clicked.connect(self.go_to_first_error)
        templates = self.panels.get("templates")
        if hasattr(templates, "ensure_lines"):  # a background tab lists its lines when brought forward
            self.docks["templates"].visibilityChanged.connect(lambda shown: shown and templates.ensure_lines())
        self.canvas.card_menu_requested.connect(self._show_card_menu)
        self.canvas.keys.node_selected.connect(self.folding.select_shown)  # arrow keys between cards
        self.loader.started.connect(lambda path: self._set_loading(True, path))
        self.loader.progress.connect(lambda f: self.progress.setValue(int(f * 100)))
        self.loader.loaded.connect(self._on_loaded)
        self.loader.failed.connect(self._on_failed)
        self.loader.cancelled.connect(self._on_cancelled)
        self.loader.conversation_needed.connect(self._choose_conversation)
        self.loader.engine_ended.connect(self._on_engine_ended)
        self.follow.engine_ended.connect(self._on_engine_ended)  # (the engine process ended while it followed)
        self.banner.action_asked.connect(self._on_banner_action)
        if hasattr(self.panels.get("bugreport"), "conversation_chosen"):  # switching conversations of a bundle
            self.panels["bugreport"].conversation_chosen.connect(lambda path, conv: self.open_file(path, conv))
        self.empty.open_requested.connect(self.choose_file)
        self.empty.recent_chosen.connect(self.open_file)
        self.session.speed_changed.connect(lambda speed: self.settings.set("play_speed", speed))
        # The desktop switching scheme while the mode is "system" re-themes the widgets (theme.py); follow it.
        widget_theme.theme_notifier().theme_changed.connect(self._use_theme)

    def _timeline_built(self, panel) -> None:
        """The timeline's panel, made a few turns after the first frame (timeline_host.py), joins the panels: it
        showed the run and moment of the time when it was made, and takes the theme now."""
        self.add_panel("timeline", panel)
        panel.set_theme(self.theme)

    # ----------------------------------------------------------------------------------------- settings
    def _apply_settings(self, restore_layout: bool) -> None:
        st = self.settings
        self._layout_restored = False
        if restore_layout:
            geometry, state = st.layout_bytes("geometry"), st.layout_bytes("dock_state")
            if geometry:
                self.restoreGeometry(QByteArray(geometry))
            if state:
                self._layout_restored = bool(self.restoreState(QByteArray(state)))
        self.future_actions[st.get("future_mode")].setChecked(True)
        self.canvas.set_future_mode(st.get("future_mode"))
        self.theme_actions[st.get("theme")].setChecked(True)
        self.apply_theme(st.get("theme"))
        self.session.set_speed(st.get("play_speed"))
        templates = self.panels.get("templates")
        if hasattr(templates, "folder_chosen"):  # the template editor's Load…/Save… open where they last did
            templates.folder = st.get("template_folder") or st.get("last_folder")
            templates.folder_chosen.connect(lambda folder: self.settings.set("template_folder", folder))
        # The template map and app name are remembered by the template editor (template_store), not here.

    def _set_choice(self, setting: str, value: str) -> None:
        self.settings.set(setting, value)
        if setting == "theme":
            self.apply_theme(value)
        else:
            self.canvas.set_future_mode(value)
        self.settings.save()

    def _save_layout(self) -> None:
        self.settings.set_layout_bytes("geometry", self.saveGeometry().data())
        self.settings.set_layout_bytes("dock_state", self.saveState().data())

    def reset_layout(self) -> None:
        self.restoreState(self._default_state)
        for dock in self.docks.values():
            dock.setVisible(True)
            dock.setFloating(False)
        self._default_dock_sizes()

    def focus_inspector_search(self) -> None:
        """Ctrl+F: show the inspector and type into its JSON search box."""
        inspector = self.panels.get("inspector")
        if not hasattr(inspector, "focus_search"):
            return
        dock = self.docks["inspector"]
        dock.show()
        dock.raise_()
        inspector.focus_search()

    def apply_theme(self, mode: str) -> None:
        """'system' | 'light' | 'dark': widget colours via theme.py, graph and timeline via style.py."""
        effective = widget_theme.apply_theme(QApplication.instance(), mode)
        if effective != self.theme or not self._themed:  # theme_changed has not already done it
            self._use_theme(effective)

    def _use_theme(self, theme: str) -> None:
        self.theme, self._themed = theme, True
        self.paint_phase.arm()  # the whole window is painted anew: on the next turn, not with the change
        # Widgets with a style sheet keep the colours they were polished with; polish them again. Only this
        # window's own: another window's widgets may be freed by the garbage collector while we loop.
        for widget in [self, *self.findChildren(QWidget)]:
            if widget.styleSheet():
                widget.setStyleSheet(widget.styleSheet())
        self.banner.set_dark(theme == "dark")
        self.panel_hub.set_theme(theme)  # (the graph's palette, the timeline's, every dock's)

    # ----------------------------------------------------------------------------------------- loading
    def choose_file(self) -> None:
        folder = self.settings.get("last_folder") or str(Path.home())
        path, _filter = QFileDialog.getOpenFileName(self, "Open a trace file", folder, TRACE_FILTER)
        if path:
            self.open_file(path)

    def compare_with(self) -> None:
        """File ▸ Compare with…: this run (or a first file) side by side with another (compare_window.py)."""
        from afp_desktop.app.compare.compare_window import compare_with_file

        compare_with_file(self)

    def reload(self) -> None:
        """Read the open file again (a file still being written has grown); keep the cursor where it was."""
        run = self.session.run
        if run is None:
            return
        self._keep_position = (os.path.abspath(run.path), self.session.position)
        self.open_file(run.path, run.bundle.chosen if run.bundle is not None else None)

    def open_file(self, path: str | os.PathLike, conversation: str | None = None,
                  follow: bool | None = None) -> None:
        """Open a file; `conversation` picks one of a bug-report bundle's (asked for when needed); `follow` True
        follows it as it is written (None: when it is still growing)."""
        path = os.path.abspath(os.fspath(path))
        if self.loader.busy and self.loader.path == path and self.loader.conversation == conversation:
            return
        self._follow_wanted = follow
        self.follow.opening(path)
        self.loader.start(path, conversation, self.folding.fold_above)

    def _choose_conversation(self, path: str, conversations) -> None:
        from afp_desktop.app.shell.conversation_picker import pick_conversation

        self._set_loading(False)
        chosen = pick_conversation(self, path, conversations)
        if chosen is None:
            self.statusBar().showMessage("Opening cancelled: no conversation was chosen.", 8000)
        else:
            self.open_file(path, chosen)

    def _set_loading(self, loading: bool, path: str | None = None) -> None:
        for widget in (self.load_label, self.progress, self.cancel_button):
            widget.setVisible(loading)
        if loading:
            self.progress.setValue(0)
            self.load_label.setText(f"Loading {os.path.basename(path or '')}…")
            self.statusBar().clearMessage()

    def _on_loaded(self, run) -> None:
        self._set_loading(False)
        self.empty.set_error(None)
        self.settings.add_recent(run.path)
        self._persist()
        self._refresh_recent()
        kept, self._keep_position = getattr(self, "_keep_position", None), None
        self.follow.loaded(run, self._follow_wanted)
        self._follow_wanted = None
        if kept is not None and kept[0] == os.path.abspath(run.path):
            self._show_whole(run, min(kept[1], len(run.axis)))
            self.statusBar().showMessage(f"Reloaded {run.path}", 8000)
            return
        if not self.progressive.showing:
            self.before_new_run()
        left_at = self.settings.position_for(run.path)
        if left_at is not None and left_at < len(run.axis):  # where the user was (at the end: as a new file)
            self._show_whole(run, left_at)
            self.statusBar().showMessage(f"Opened {run.path} where you left it (event {left_at})", 8000)
            return
        self._show_whole(run, None)
        self.statusBar().showMessage(f"Opened {run.path}", 8000)

    def _show_whole(self, run, position: int | None) -> None:
        """The loaded run, in place of the part of it shown while it was read (if any). In place of a part (a
        recording's whole run is a new graph, not a growth): the heavy panels settle on a later turn, as after
        a move, not in the same turn as the graph's and the timeline's first paint."""
        part_shown = self.progressive.showing
        if not self.progressive.finish(run, position):
            self.session.set_run(run, position=position, settle_now=not part_shown)
        self.left_out.start(run)  # (its banner line, if any, comes when the check is done)

    def _on_payloads_checked(self, run) -> None:
        if run is self.session.run and run.payload_problems:  # (none found: the banner already says it all)
            self.banner.set_messages(self.messages_for(run))

    def opening_position(self, path: str) -> int | None:
        """Where a file being opened is to be shown: the cursor kept by File ▸ Reload, else where the user left
        it last time, else None (its end)."""
        kept = getattr(self, "_keep_position", None)
        if kept is not None and kept[0] == os.path.abspath(path):
            return kept[1]
        return self.settings.position_for(path)

    def before_new_run(self) -> None:
        """A new run is about to replace the one shown."""
        self.empty.set_error(None)
        self.left_out.stop()  # (of the run being replaced: it is let go of sooner)
        self._remember_position()  # of the run the new one replaces

    def _remember_position(self) -> None:
        """Note where the cursor is in the open file, so reopening it starts there."""
        if self.session.run is not None:
            self.settings.remember_position(self.session.run.path, self.session.position)

    def _on_failed(self, message: str) -> None:
        self._set_loading(False)
        self.progressive.abandon()
        failed = self.loader.path
        if failed and not os.path.exists(failed):
            self.settings.remove_recent(failed)
            self._persist()
            self._refresh_recent()
        self.statusBar().showMessage(f"Could not open the file: {message}")
        if self.session.run is None:
            self.empty.set_error(f"Could not open this file.\n{message}")
        else:
            self.banner.add_message(failed_open_message(os.path.basename(failed or ""), message))

    def _on_engine_ended(self, path: str, how: str) -> None:
        """The engine process ended while it read `path` (a crash, a kill): the window says so, with Reload."""
        self._set_loading(False)
        self.progressive.abandon()
        self._engine_ended_path = path
        self.statusBar().showMessage(f"Reading {os.path.basename(path)} stopped: the engine process ended ({how})")
        self.banner.add_message(engine_ended_message(os.path.basename(path), how))

    def _on_engine_lost(self, how: str) -> None:
        """The engine process holding the run shown has ended (a request found it gone): the run shown stays, and
        the window says so, with Reload."""
        run = self.session.run
        if run is None or not run.path:
            return
        self._engine_ended_path = str(run.path)
        self.banner.add_message(engine_lost_message(os.path.basename(str(run.path)), how))

    def _on_banner_action(self, message) -> None:
        if message.code == "engine-ended" and getattr(self, "_engine_ended_path", None):
            self.banner.remove_code("engine-ended")
            self.open_file(self._engine_ended_path)

    def _on_cancelled(self) -> None:
        self._set_loading(False)
        self.progressive.abandon()
        self.statusBar().showMessage("Loading cancelled.", 8000)

    def close_run(self) -> None:
        self._remember_position()
        self._persist()
        self.loader.let_go()
        self._set_loading(False)
        self.follow.closed()
        self.session.close_run()
        self.engine_requests.forget_run()

    # --------------------------------------------------------------------------------------- showing a run
    def _on_run_loaded(self, run) -> None:
        from afp_desktop.core.views.prepared_views import summary_of

        name = os.path.basename(run.path)
        self.setWindowTitle(f"{name} — afp-desktop")
        self.stack.setCurrentWidget(self.canvas)  # (the graph itself is a panel: GraphFolding.run_loaded)
        errors = self.session.replay.facts.errors if self.session.replay is not None else ()
        self.summary.show_summary(summary_of(run), run.format_name, name, errors)
        self.banner.set_messages(self.messages_for(run))
        if run.bundle is not None:  # a bug report: what the reporter said comes first
            self.docks["bugreport"].raise_()
        for action_id in ("export", "reload", "close"):
            self.action(action_id).setEnabled(True)

    def messages_for(self, run) -> list[BannerMessage]:
        """The banner: each notice in a plain sentence (notice_words), its exact text as the detail."""
        # (how the run ended is said once the cursor has reached it: RunFactsHeader; the payloads are checked
        # beside the window: left_out)
        messages = [message_for(notice.code, notice.text, notice.level)
                    for notice in run.all_notices(check_payloads=False) if notice.code not in AT_THE_END]
        noticed = " ".join(m.detail for m in messages)
        for problem in run.warnings:
            if str(problem) not in noticed:
                messages.append(message_for("load-problem", str(problem)))
        if self.settings.warning:
            messages.append(message_for("settings", self.settings.warning))
        return messages

    def go_to_first_error(self) -> None:
        """The header's error count: move the cursor to where the first error became known, select its step."""
        replay = self.session.replay
        if replay is None or not replay.facts.errors:
            return
        first = replay.facts.errors[0]
        if first.node is not None:
            self.session.select_node(first.node)
        self.session.move_to(first.position)

    @staticmethod
    def empty_graph_reason(run) -> str:
        return empty_graph_reason(run)

    def _show_empty(self) -> None:
        self.setWindowTitle("afp-desktop")
        self.stack.setCurrentWidget(self.empty)
        self.summary.clear()
        self.banner.set_messages([message_for("settings", self.settings.warning)] if self.settings.warning else [])
        for action_id in ("export", "reload", "close"):
            self.action(action_id).setEnabled(False)

    def _refresh_recent(self) -> None:
        self.empty.set_recent(self.settings.recent_files)

    def _fill_recent_menu(self) -> None:
        self.menu(MenuId.RECENT).clear()
        recent = self.settings.recent_files
        if not recent:
            self.menu(MenuId.RECENT).addAction("No recent files").setEnabled(False)
            return
        for i, path in enumerate(recent):
            action = self.menu(MenuId.RECENT).addAction(f"&{(i + 1) % 10}  {recent_label(path)}")
            action.setToolTip(plain_tooltip(path))
            action.setStatusTip(path)
            action.triggered.connect(lambda _c=False, p=path: self.open_file(p))
        self.menu(MenuId.RECENT).addSeparator()
        self.menu(MenuId.RECENT).addAction("Clear recent files", self._clear_recent)

    def _clear_recent(self) -> None:
        self.settings.clear_recent()
        self._persist()
        self._refresh_recent()

    def _persist(self) -> None:
        error = self.settings.save()
        if error:
            self.statusBar().showMessage(error, 10000)

    # ------------------------------------------------------------------------------------------- keys
    def _replay_key(self, action, key: Qt.Key, modifiers=Qt.KeyboardModifier.NoModifier) -> None:
        """A replay key fired. Inside a text field the key belongs to the field: hand it back instead."""
        focus = QApplication.focusWidget()
        if is_text_field(focus):
            text = " " if key == Qt.Key.Key_Space else ""
            for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
                QApplication.sendEvent(focus, QKeyEvent(kind, key, modifiers, text))
            return
        if self.session.run is not None:
            action()

    # ---------------------------------------------------------------------------------------- drag & drop
    @staticmethod
    def _dropped_file(mime) -> str | None:
        for url in mime.urls() if mime.hasUrls() else []:
            if isinstance(url, QUrl) and url.isLocalFile():
                return url.toLocalFile()
        return None

    def dragEnterEvent(self, event) -> None:
        if self._dropped_file(event.mimeData()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event) -> None:
        self.dragEnterEvent(event)

    def dropEvent(self, event) -> None:
        path = self._dropped_file(event.mimeData())
        if path:
            event.acceptProposedAction()
            self.open_file(path)
        else:
            event.ignore()

    # --------------------------------------------------------------------------------------------- export
    def ask_export(self, fmt: str | None = None) -> None:
        """File ▸ Export graph…: one dialog; the typed extension chooses PNG or SVG. Remembers folder and format."""
        if self.session.run is None or self.canvas.art is None:
            return
        st = self.settings
        fmt = (fmt or st.get("export_format")).lower()
        folder = default_export_folder(st.get("export_folder"))  # not the input's folder
        dialog = ExportDialog(self, os.path.join(folder, proposed_file_name(self.session.run.path, fmt)), fmt,
                              include_cursor=st.get("export_cursor"))
        try:
            if dialog.exec() != ExportDialog.DialogCode.Accepted:
                return
            path = dialog.path()
            st.set("export_format", dialog.format if format_of(path) is None else format_of(path))
            st.set("export_folder", os.path.dirname(path))
            st.set("export_cursor", dialog.cursor.isChecked())
            self._persist()
            self.export_graph_to(path, dialog.choice())
        finally:
            dialog.deleteLater()

    def _show_card_menu(self, index: int, where) -> None:
        """Right-click on a card: copy the step's JSON or id, or export the graph."""
        from afp_desktop.app.panels.graph.card_menu import card_menu

        run = self.session.run
        nodes = run.stepgraph.get("nodes", []) if run is not None else []
        drawn = self.canvas.art.nodes if self.canvas.art is not None else []
        full = self.folding.to_full(index)  # (the card drawn → the run's step; a fold or framework chip: itself)
        a_step = full is not None and 0 <= full < len(nodes)
        node = nodes[full] if a_step else drawn[index] if 0 <= index < len(drawn) else None
        if not isinstance(node, dict):
            return
        copy_json = (lambda: self._copy_step_json(full)) if a_step else None
        self.card_menu = card_menu(self, node, self.ask_export, copy_json)
        self.card_menu.popup(where)

    def _copy_step_json(self, index: int) -> None:
        """Copy step `index` of the run shown as JSON, whole: its payloads are the engine's (asked, copied when
        answered; the status bar says so meanwhile, or why it could not be)."""
        from afp_desktop.app.panels.graph.card_menu import copy_text

        self.statusBar().showMessage("Reading the step's JSON…")
        self.engine_requests.request(
            "step_json", "step_json", {"index": index},
            lambda text: copy_text(self, text, "Copied the step's JSON"),
            lambda why: self.statusBar().showMessage(f"The step's JSON could not be copied: {why}", 8000))

    def export_graph_to(self, path: str, choice: ExportChoice | None = None) -> bool:
        from afp_desktop.app.export.export import export_view

        choice = choice or ExportChoice()
        try:
            export_view(self.canvas, path, scale=choice.scale, include_cursor=choice.include_cursor,
                        whole_graph=choice.whole_graph, inputs=[self.session.run.path] if self.session.run else [])
        except (OSError, ValueError) as err:
            QMessageBox.warning(self, "Export failed", f"Could not export the graph: {err}")
            return False
        self.statusBar().showMessage(f"Exported the graph to {path}", 8000)
        return True

    # ----------------------------------------------------------------------------------------------- help
    def show_about(self) -> None:
        box = QMessageBox(self)
        box.setWindowTitle("About afp-desktop")
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText(f"afp-desktop {__version__}\n\nReplays saved agentfootprint runs offline: step graph, milestone "
                    "timeline, chat-bubble preview and inspectors. Nothing re-runs and nothing touches the network.")
        box.exec()

    # ---------------------------------------------------------------------------------------------- close
    def closeEvent(self, event) -> None:
        self.session.stop_playing()
        self.follow.stop()
        self.loader.abandon()
        self.left_out.stop()
        self.session.span_walks.stop()
        self.panels["find"].stop_indexing()
        self.engine_requests.forget_run()
        self.features["share"].stop()
        if self.remember_layout:
            self._save_layout()
            self._remember_position()
        self._persist()
        self.loader.wait(5000)
        self.engine_requests.stop(5000)
        super().closeEvent(event)
