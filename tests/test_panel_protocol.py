"""One contract between the window and its panels (app/panels/panel.py): every panel the window lists implements
each call of `Panel`, the window tells them through one list, and a panel lacking a call is refused."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtWidgets import QWidget

from afp_desktop.app.panels.panel import PANEL_CALLS, Panel, PanelDefaults, PanelHub, missing_calls
from afp_desktop.app.session import Session
from afp_desktop.app.shell.main_window import MainWindow
from afp_desktop.core.formats import open_run
from tests.corpus_util import corpus_path

APP = Path(__file__).resolve().parents[1] / "afp_desktop" / "app"


@pytest.fixture
def window(qtbot):
    window = MainWindow(restore_layout=False)
    qtbot.addWidget(window)
    return window


def test_every_panel_the_window_lists_implements_each_call(window):
    window.timeline.build()  # (the timeline's panel joins the list once built, after the first frame)
    panels = window.panel_hub.panels
    kinds = {type(panel).__name__ for panel in panels}
    assert {"GraphFolding", "TimelinePanel", "ChatBubblePanel", "TemplateEditorPanel", "InspectorPanel",
            "BugReportPanel", "EventListPanel", "ContextPanel", "FindPanel", "BookmarksPanel",
            "FindingsPanel"} <= kinds, kinds
    assert all(feature in window.panel_hub for feature in window.features.values()), "features are panels too"
    for panel in panels:
        for call in PANEL_CALLS:
            assert callable(getattr(type(panel), call, None)), f"{type(panel).__name__} lacks {call}"
        assert isinstance(panel, Panel)
    assert all(panel in window.panel_hub for panel in window.panels.values()), "a keyed panel outside the list"


class Lacking(QWidget):
    """A panel with every call but `settled`."""

    def run_loaded(self, run) -> None: ...

    def run_grown(self, run) -> None: ...

    def run_closed(self) -> None: ...

    def moment(self, moment) -> None: ...

    def set_theme(self, theme: str) -> None: ...


def test_a_panel_lacking_a_call_is_refused(qtbot, window):
    lacking = Lacking()
    qtbot.addWidget(lacking)
    assert missing_calls(lacking) == ["settled"]
    with pytest.raises(TypeError, match="lacks settled"):
        window.add_panel("lacking", lacking)
    with pytest.raises(TypeError, match="lacks settled"):
        PanelHub(Session(), [lacking])


class Recorded(QWidget, PanelDefaults):
    def __init__(self, name: str, heard: list) -> None:
        super().__init__()
        self.name, self.heard = name, heard

    def run_loaded(self, run) -> None:
        self.heard.append((self.name, "run_loaded"))

    def run_closed(self) -> None:
        self.heard.append((self.name, "run_closed"))

    def moment(self, moment) -> None:
        self.heard.append((self.name, "moment"))

    def settled(self, moment) -> None:
        self.heard.append((self.name, "settled"))


def test_the_hub_tells_its_panels_in_their_order_and_never_of_growth(qtbot):
    """Growth's jobs alone call run_grown (app/loading/growth.py), spread over time: the hub never does."""
    heard: list = []
    first, second = Recorded("first", heard), Recorded("second", heard)
    for widget in (first, second):
        qtbot.addWidget(widget)
    session = Session()
    hub = PanelHub(session, [first, second], parent=first)
    run = open_run(str(corpus_path("02-react-two-tools", "recording.json")))
    session.set_run(run)
    assert heard == [("first", "run_loaded"), ("second", "run_loaded"), ("first", "moment"), ("second", "moment"),
                     ("first", "settled"), ("second", "settled")]
    heard.clear()
    session.grow(run, len(run.axis))
    assert ("first", "run_grown") not in heard
    session.close_run()
    assert heard[-2:] == [("first", "run_closed"), ("second", "run_closed")]
    assert hub.panels == [first, second]


def test_no_panel_or_feature_connects_itself_to_the_session():
    """The panels and the window's features are told by the hub; none listens to the session's news on its own."""
    news = r"session\.(run_loaded|run_grown|run_closed|moment_changed|moment_settled|templates_changed|" \
           r"selection_changed|stops_changed|playing_changed|speed_changed)\.connect"
    listening = [str(path.relative_to(APP)) for folder in ("panels", "features") for path in (APP / folder).rglob("*.py")
                 if path.name != "panel.py" and re.search(news, path.read_text(encoding="utf-8"))]
    assert not listening, listening
