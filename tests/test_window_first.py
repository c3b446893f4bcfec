"""The window comes first while a run loads: the progress bar and a step's readable view are painted with the
window's next paint and in pieces, not all at once; the timeline is built after the first frame."""

from __future__ import annotations

import os
import sys

import pytest
from PySide6.QtWidgets import QProgressBar

from afp_desktop.app.shell.load_progress import LoadProgressBar
from afp_desktop.app.panels import readable_view
from afp_desktop.app.panels.readable_view import ReadableView
from tests.paint_util import PaintCount


@pytest.mark.parametrize("kind", [QProgressBar, LoadProgressBar])
def test_the_progress_bar_is_painted_with_the_next_paint_not_at_once(qtbot, kind):
    bar = kind()
    bar.setRange(0, 100)
    qtbot.addWidget(bar)
    first = PaintCount(bar)
    bar.show()
    qtbot.waitExposed(bar)
    qtbot.waitUntil(lambda: first.count >= 1)  # (its first paint is over)
    counter = PaintCount(bar)
    bar.setValue(40)
    at_once = counter.count
    qtbot.waitUntil(lambda: counter.count >= 1, timeout=2_000)
    assert bar.value() == 40
    if kind is QProgressBar:
        assert at_once == 1, "(Qt's own bar repaints at once: the reason for LoadProgressBar)"
    else:
        assert at_once == 0


def test_a_readable_view_shown_with_a_long_step_draws_it_in_pieces(qtbot):
    view = ReadableView()
    qtbot.addWidget(view)
    sections = [{"title": f"Section {k}", "text": f"text {k}"} for k in range(8)]
    view.show_model({"node": 1, "sections": sections})  # (hidden: nothing is drawn yet)
    view.show()
    # private: the readable view's title widget type
    drawn_at_show = len(view.widget().findChildren(type(readable_view._title("x"))))
    assert view.drawn is None or drawn_at_show < 2 * len(sections), "showing it did not draw the whole step at once"
    # private: the readable view's pending sections
    qtbot.waitUntil(lambda: view.drawn is not None and not view._pending, timeout=3_000)
    assert list(view.section_texts()) == [s["title"] for s in sections]


# -- less work per move and per growth ---------------------------------------------------------------------------

def test_a_grown_folded_graph_uses_the_folds_found_while_loading(qtbot, window, monkeypatch):
    """A big file's parts and its whole run are folded on the loader's thread (prepare_views): showing them
    grown on the window's thread does not look for folds again (25 ms on the 1,000-iteration run)."""
    from afp_desktop.app.features import graph_folding
    from afp_desktop.core.formats import open_run
    from afp_desktop.core.views.prepared_views import prepare_views
    from tests.corpus_util import corpus_path

    path = corpus_path("15-large-run", "trace.json")
    first = open_run(path)
    first.views = prepare_views(first)
    window.session.set_run(first)
    window.folding.set_enabled(True)
    if window.folding.fw_map is not None:
        window.folding.set_hide_framework(not window.folding.hide_framework)
    assert window.folding.fw_map is None
    grown = open_run(path)
    grown.views = prepare_views(grown)
    assert grown.views.folded_graph is not None, "(the large run has iterations to fold)"

    def not_here(*_args, **_kw):
        raise AssertionError("folds looked for again on the window's thread")

    monkeypatch.setattr(graph_folding, "find_folds", not_here)
    window.session.grow(grown, len(grown.axis))
    window.follow.growth.catch_up(now=True)
    assert window.folding.folds == list(grown.views.folded_graph.folds)


def test_the_overview_of_a_grown_run_is_drawn_on_a_turn_of_its_own(qtbot):
    """The overview's image of thousands of stops takes ~25 ms: when the run grows, the last image stands in for
    one turn of the event loop; a new run, or new colours, are drawn at once (never another run's stops)."""
    from PySide6.QtGui import QColor

    from afp_desktop.app.panels.timeline.timeline_overview import OverviewStrip

    strip = OverviewStrip()
    qtbot.addWidget(strip)
    strip.resize(300, 22)
    strip.show()
    qtbot.waitExposed(strip)

    def colour_at_middle() -> str:
        return QColor(strip.grab().toImage().pixel(150, 11)).name()

    strip.set_stops(1_000, lambda _i: QColor("#ff0000").rgba())
    assert colour_at_middle() == "#ff0000"
    strip.set_stops(2_000, lambda _i: QColor("#0000ff").rgba(), grown=True)
    assert colour_at_middle() == "#ff0000", "the last image stands in"
    qtbot.waitUntil(lambda: colour_at_middle() == "#0000ff", timeout=2_000)
    strip.set_stops(900, lambda _i: QColor("#00ff00").rgba())
    assert colour_at_middle() == "#00ff00", "another run: drawn at once"


# A fresh process (the test process's own Qt has made up its mind about the pool): the app's Qt application, a
# progress bar painted (a fill of Qt's that goes to its pool of threads in pieces), then the threads counted.
POOL_PROBE = """
import os
os.environ["QT_QPA_PLATFORM"] = "offscreen"
from afp_desktop.app.shell.gui import create_application
app = create_application()
from PySide6.QtWidgets import QProgressBar
bar = QProgressBar()
bar.setRange(0, 100)
bar.setValue(40)
bar.resize(400, 24)
bar.show()
app.processEvents()
bar.repaint()
print(sum(open(f"/proc/self/task/{t}/comm").read().startswith("Thread (pooled)") for t in os.listdir("/proc/self/task")))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts threads through Linux's /proc")
@pytest.mark.parametrize("user_setting", [None, "1"])
def test_the_window_paints_on_its_own_thread_without_qts_pool(user_setting):
    """Qt's raster engine hands a big fill to a pool of threads and waits for them: with the cores busy (a load
    beside the window), the window waited for those threads to get a processor (gui.keep_painting_on_the_window_
    thread). The app's Qt application paints on the window's thread alone; a value the user set is kept."""
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != "QT_NO_GUI_THREADPOOL"}
    if user_setting is not None:
        env["QT_NO_GUI_THREADPOOL"] = user_setting
    done = subprocess.run([sys.executable, "-c", POOL_PROBE], capture_output=True, text=True, env=env, timeout=60,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-1] == "0"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts threads through Linux's /proc")
def test_the_pool_probe_sees_qts_pool_where_it_is_left_on():
    """The probe above can fail: a plain QApplication, left as Qt makes it, paints the same bar with two threads of
    its pool (else the test above would pass whatever the app did)."""
    import subprocess

    probe = POOL_PROBE.replace("from afp_desktop.app.shell.gui import create_application\napp = create_application()",
                               "from PySide6.QtWidgets import QApplication\napp = QApplication([])")
    env = {k: v for k, v in os.environ.items() if k != "QT_NO_GUI_THREADPOOL"}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.split()[-1]) > 0


def test_the_panel_and_the_run_shown_in_it_each_take_a_turn_of_their_own(qtbot, monkeypatch):
    """A file given at start-up: the panel made and the run shown in it each come in a piece of its own in the
    window's queue (app/pacing/scheduler.py), not in the turn that shows the run in the other panels."""
    from afp_desktop.app.pacing import scheduler
    from afp_desktop.app.panels.timeline import timeline as timeline_module
    from afp_desktop.app.panels.timeline import timeline_host
    from afp_desktop.app.session import Session
    from afp_desktop.core.formats import open_run
    from tests.corpus_util import corpus_path

    done: list[str] = []
    real_later, real_show_run = scheduler.later, timeline_module.TimelinePanel.show_run
    monkeypatch.setattr(scheduler, "later", lambda owner, name, piece, first=False: real_later(
        owner, name, lambda: (done.append("turn"), piece()), first))
    monkeypatch.setattr(timeline_module.TimelinePanel, "show_run",
                        lambda panel, run: (done.append("run shown"), real_show_run(panel, run)))
    session = Session()
    session.set_run(open_run(corpus_path("02-react-two-tools", "recording.json")))
    host = timeline_host.TimelineHost(session)
    qtbot.addWidget(host)
    host.when_built(lambda panel: done.append("built"))
    host.build_when_ready()
    qtbot.waitUntil(lambda: host.built, timeout=5_000)
    # (the panel's module is imported already: no piece for it; the panel is made in the first turn of the host's)
    assert done == ["turn", "turn", "run shown", "built"]
    assert host.panel.series is not None


def test_the_host_only_hosts(qtbot):
    """What the timeline shows and does is the panel's, reached as `panel`; play, speed and drilling out are the
    session's. The host answers nothing of the panel's, and building it is never a side effect of asking."""
    from afp_desktop.app.panels.timeline.timeline_host import TimelineHost
    from afp_desktop.app.session import Session

    host = TimelineHost(Session())
    qtbot.addWidget(host)
    for name in ("stops", "slider", "set_theme", "set_search_marks", "toggle_play", "speed_changed", "back_out"):
        with pytest.raises(AttributeError):
            getattr(host, name)
    assert not host.built
