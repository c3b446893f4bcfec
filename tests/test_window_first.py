"""The window comes first while a run loads: the loader waits at its breathing points when it has had to share
Python with another thread, until the window's event loop goes to sleep (app/pacing/window_activity.py); the progress
bar and a step's readable view are painted with the window's next paint and in pieces, not all at once."""

from __future__ import annotations

import os
import sys
import threading
import time

import pytest
from PySide6.QtCore import QCoreApplication, QEventLoop, QTimer
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QProgressBar

from afp_desktop.app.pacing import window_activity as activity_module
from afp_desktop.app.shell.load_progress import LoadProgressBar
from afp_desktop.app.panels import readable_view
from afp_desktop.app.panels.readable_view import ReadableView
from afp_desktop.app.pacing.window_activity import Contention, window_activity
from tests.paint_util import PaintCount

# The loader's allowance in these tests: long, so a busy test machine cannot blur a wait and no wait.
ALLOWANCE = 1.0


@pytest.fixture
def contention(qapp, monkeypatch):
    """A Contention whose thread never gets the processor (its CPU clock stands still): it always shared it. The
    window's thread is at work all along (its processor clock moves with the wall clock)."""
    monkeypatch.setattr(activity_module.time, "thread_time", lambda: 0.0)
    monkeypatch.setattr(activity_module, "YIELD_S", ALLOWANCE)
    made = Contention(threading.Event())
    monkeypatch.setattr(made.activity, "cpu_seconds", time.monotonic)
    monkeypatch.setattr(made.activity, "clock", 1)
    made._wall -= 0.01  # (some time has passed since the last breathing point)
    return made


def set_later(event: threading.Event, seconds: float) -> None:
    threading.Timer(seconds, event.set).start()


def test_a_loader_that_shared_the_processor_waits_until_the_window_sleeps(contention):
    set_later(contention.activity.asleep, 0.02)
    started = time.monotonic()
    contention.yield_if_shared()
    waited = time.monotonic() - started
    assert 0.015 <= waited < ALLOWANCE / 2, "it waited for the window's sleep, not for its whole allowance"


def test_it_waits_no_longer_than_its_allowance_and_then_works(contention, monkeypatch):
    monkeypatch.setattr(activity_module, "YIELD_S", 0.1)
    started = time.monotonic()
    contention.yield_if_shared()  # nobody says the window sleeps
    assert 0.09 <= time.monotonic() - started < ALLOWANCE
    contention._wall -= 0.01
    started = time.monotonic()
    contention.yield_if_shared()  # right after a wait, it works before it waits again (never starved)
    assert time.monotonic() - started < ALLOWANCE / 2


def test_a_window_already_asleep_is_not_waited_for(contention, monkeypatch):
    """The window went to sleep before the loader listened (its loop says so once, when it goes to sleep): its
    processor clock stands still, and the loader goes on within a few probes. Before, it waited its whole
    allowance: in the NDJSON run's load, 23 waits of 50 ms each with the window's clock still, 1.15 s of 5.1 s."""
    window_cpu = 7.0
    monkeypatch.setattr(contention.activity, "cpu_seconds", lambda: window_cpu)
    contention._window_cpu = window_cpu - 1.0  # (it was at work since the last breathing point)
    started = time.monotonic()
    contention.yield_if_shared()
    assert time.monotonic() - started < ALLOWANCE / 4


def test_a_window_whose_clock_cannot_be_read_is_waited_for_until_it_sleeps(contention, monkeypatch):
    monkeypatch.setattr(contention.activity, "clock", None)
    monkeypatch.setattr(contention.activity, "cpu_seconds", lambda: 0.0)
    set_later(contention.activity.asleep, 0.05)
    started = time.monotonic()
    contention.yield_if_shared()  # (shared: its own clock stood still)
    assert 0.04 <= time.monotonic() - started < ALLOWANCE / 2


@pytest.mark.parametrize("why", ["stopping", "the window waits for the load"])
def test_it_never_waits_when_stopping_or_when_the_window_itself_waits_for_it(contention, why):
    if why == "stopping":
        contention.stop.set()
    else:
        contention.activity.waiting_for_load += 1
    try:
        started = time.monotonic()
        contention.yield_if_shared()
        assert time.monotonic() - started < ALLOWANCE / 2
    finally:
        if why != "stopping":
            contention.activity.waiting_for_load -= 1


def waits_of(made: Contention, monkeypatch) -> list[float]:
    """Each wait the loader asks for (not made: these tests are about when it asks)."""
    asked: list[float] = []
    monkeypatch.setattr(made.activity, "wait_until_asleep", asked.append)
    return asked


def test_the_window_at_work_makes_the_loader_wait_even_when_it_had_the_processor(qapp, monkeypatch):
    """The window's thread painting in C++ holds no Python, so the loader keeps the processor; but each return
    of the window to Python then waits for the loader: its own processor clock moving is the sign."""
    monkeypatch.setattr(activity_module.time, "thread_time", time.monotonic)  # the loader never lost the processor
    made = Contention(threading.Event())
    asked = waits_of(made, monkeypatch)
    made._wall -= 0.01
    made._cpu -= 0.01
    window_cpu = [0.0]
    monkeypatch.setattr(made.activity, "cpu_seconds", lambda: window_cpu[0])
    made._mark()  # window clock 0.0
    time.sleep(0.005)
    made.yield_if_shared()  # window clock 0.0: idle, no wait
    assert asked == []
    made._resumed = 0.0
    time.sleep(0.005)
    window_cpu[0] = 0.5
    made.yield_if_shared()  # window clock 0.5 s later: at work, so the loader waits
    assert asked == [activity_module.YIELD_S]


def watched(monkeypatch, figure: str, read) -> tuple[Contention, list[float]]:
    """A Contention that reads the window's `figure` (cpu_seconds, queued_seconds) from `read`, marked now and free
    to wait at once; the waits it asks for."""
    made = Contention(threading.Event())
    asked = waits_of(made, monkeypatch)
    monkeypatch.setattr(made.activity, figure, read)
    made._mark()
    made._resumed = 0.0
    return made, asked


def test_breathing_points_closer_than_a_millisecond_still_notice_the_window_at_work(qapp, monkeypatch):
    """A loop breathing every 0.2 ms (a recording's lazy payloads) judged each breath over its own 0.2 ms, found
    every one too short to judge, and never waited: during a window's turn it breathed 181 times and took 55 ms of
    processor; moving the cursor while the 448 MB recording loaded stalled 100-130 ms."""
    monkeypatch.setattr(activity_module.time, "thread_time", time.monotonic)  # the loader never lost the processor
    window_cpu = [0.0]
    made, asked = watched(monkeypatch, "cpu_seconds", lambda: window_cpu[0])
    end = time.monotonic() + 0.02
    while time.monotonic() < end and not asked:
        time.sleep(0.0002)
        window_cpu[0] += 0.0002  # the window's thread at work all along
        made.yield_if_shared()
    assert asked


def test_a_real_competing_thread_makes_the_loader_wait(qapp, monkeypatch):
    """No clock stood still: a second thread running Python takes turns with this one, which notices."""
    made = Contention(threading.Event())
    asked = waits_of(made, monkeypatch)
    monkeypatch.setattr(made.activity, "cpu_seconds", lambda: 0.0)  # (the window idle: only the rival competes)
    made._mark()
    done = threading.Event()

    def compete() -> None:
        while not done.is_set():
            sum(range(200))

    rival = threading.Thread(target=compete)
    rival.start()
    try:
        for _ in range(5):
            end = time.monotonic() + 0.03
            while time.monotonic() < end:
                sum(range(200))
            made._resumed = 0.0
            made.yield_if_shared()
    finally:
        done.set()
        rival.join()
    assert asked


@pytest.mark.parametrize("window", ["at work", "asleep already"])
def test_a_wait_ends_when_the_window_is_found_not_at_work(qapp, window, monkeypatch):
    """The wait itself, on a real thread beside the window's thread. Asleep: the window's own processor clock
    stands still (this thread sleeps in join). At work: a clock that moves as fast as the wall's, as a window's
    that has the processor all the time (a real busy thread's clock stalls whenever a loaded machine preempts it,
    and the wait then rightly ends: it did beside processes spinning on both cores)."""
    activity = window_activity()
    if window == "at work":
        monkeypatch.setattr(activity, "cpu_seconds", time.monotonic)
    waited: list[float] = []

    def loader() -> None:
        started = time.monotonic()
        activity.wait_until_asleep(0.2)
        waited.append(time.monotonic() - started)

    thread = threading.Thread(target=loader)
    thread.start()
    thread.join()
    if window == "at work":
        assert waited[0] >= 0.2, "a window at work is waited for (its allowance, nobody said it sleeps)"
    else:
        assert waited[0] < 0.1, "a window whose clock stands still is asleep"


def test_the_window_says_when_its_event_loop_goes_to_sleep(qapp):
    activity = window_activity()
    activity.asleep.clear()
    loop = QEventLoop()
    QTimer.singleShot(30, loop.quit)
    loop.exec()  # (a real event loop: it sleeps while it waits for the timer)
    assert activity.asleep.is_set()


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
    drawn_at_show = len(view.widget().findChildren(type(readable_view._title("x"))))
    assert view.drawn is None or drawn_at_show < 2 * len(sections), "showing it did not draw the whole step at once"
    qtbot.waitUntil(lambda: view.drawn is not None and not view._pending, timeout=3_000)
    assert list(view.section_texts()) == [s["title"] for s in sections]


# -- less work per move and per growth ---------------------------------------------------------------------------

def render_bars(qtbot, bars_class, x_range) -> QImage:
    return bars_plot(qtbot, bars_class, x_range).grab().toImage()


def bars_plot(qtbot, bars_class, x_range):
    """A plot of 3,000 bars of many colours and 750 translucent bands, showing `x_range`."""
    import pyqtgraph as pg

    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    plot.resize(400, 120)
    count = 3_000
    colours = [pg.mkBrush((40 * (i % 6), 90, 160)) for i in range(count)]
    plot.addItem(bars_class(x=list(range(count)), height=[1 + i % 7 for i in range(count)], width=0.6,
                            brushes=colours, pen=pg.mkPen(None)))
    plot.addItem(bars_class(x0=[i - 0.5 for i in range(0, count, 4)], x1=[i + 1.5 for i in range(0, count, 4)],
                            y0=[0] * (count // 4), y1=[8] * (count // 4), brush=pg.mkBrush(200, 200, 0, 60),
                            pen=pg.mkPen(None)))
    plot.setXRange(*x_range, padding=0)
    plot.setYRange(0, 8, padding=0)
    plot.show()
    qtbot.waitExposed(plot)
    return plot


@pytest.mark.parametrize("x_range", [(100, 160), (2_900, 3_050), (-50, 3_050)])
def test_bars_in_view_are_painted_as_pyqtgraph_paints_them(qtbot, x_range):
    """Only the bars in view are painted (a long run has thousands), as pyqtgraph paints all of them: the same
    picture but for a bar's edge here and there (pyqtgraph's recording rounds far coordinates a little)."""
    import pyqtgraph as pg

    from afp_desktop.app.panels.timeline.culled_bars import CulledBars

    culled, whole = render_bars(qtbot, CulledBars, x_range), render_bars(qtbot, pg.BarGraphItem, x_range)
    assert culled.size() == whole.size()
    columns = {x for x in range(whole.width()) for y in range(0, whole.height(), 2) if culled.pixel(x, y) != whole.pixel(x, y)}
    assert len(columns) <= 4, f"{len(columns)} pixel columns differ"


def bars_drawn(monkeypatch) -> list:
    """A list that gets an entry for each bar CulledBars draws from now on (a rectangle filled or drawn)."""
    from afp_desktop.app.panels.timeline.culled_bars import CulledBars

    drawn: list = []
    original = CulledBars.paint

    def counting(self, painter, *args):
        real_fill, real_draw = painter.fillRect, painter.drawRect
        painter.fillRect = lambda *a: (drawn.append(1), real_fill(*a))  # type: ignore[method-assign]
        painter.drawRect = lambda *a: (drawn.append(1), real_draw(*a))  # type: ignore[method-assign]
        original(self, painter, *args)

    monkeypatch.setattr(CulledBars, "paint", counting)
    return drawn


def test_bars_out_of_view_are_not_painted(qtbot, monkeypatch):
    import pyqtgraph as pg

    from afp_desktop.app.panels.timeline.culled_bars import CulledBars

    replays = []
    monkeypatch.setattr(pg.BarGraphItem, "paint", lambda self, *a: replays.append(self))
    drawn = bars_drawn(monkeypatch)
    render_bars(qtbot, CulledBars, (100, 160))
    assert not replays, "no replay of every bar"
    assert 0 < len(drawn) < 200, f"{len(drawn)} bars painted for 60 in view"


def test_a_strip_repainted_paints_only_its_bars(qtbot, monkeypatch):
    """A step of the cursor repaints a strip of the timeline a few pixels wide: of the 60 bars in view, only
    those in the strip are drawn, and the picture is the same as a full paint."""
    from PySide6.QtCore import QRect

    from afp_desktop.app.panels.timeline.culled_bars import CulledBars

    drawn = bars_drawn(monkeypatch)
    view = bars_plot(qtbot, CulledBars, (100, 160))
    grabs = [view.grab().toImage()]

    def settled() -> bool:  # (the axes settle their width after the first paint: two grabs alike, with the
        QCoreApplication.processEvents()  # layout requests a grab posts served between them)
        grabs.append(view.grab().toImage())
        return len(grabs) > 2 and grabs[-1] == grabs[-2]
    qtbot.waitUntil(settled)
    whole = grabs[-1]
    for left in range(60, 400, 37):
        strip = QRect(left, 0, 6, view.height())
        drawn.clear()
        painted = view.grab(strip).toImage()
        assert 0 < len(drawn) <= 4, f"{len(drawn)} bars drawn for a strip 6 pixels wide"
        assert painted == whole.copy(strip)


def test_the_bars_bounds_follow_their_data_and_view(qtbot):
    import pyqtgraph as pg

    from afp_desktop.app.panels.timeline.culled_bars import CulledBars

    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    bars = CulledBars(x=[0, 1, 2], height=[1, 2, 3], width=0.6, pen=pg.mkPen("k", width=4))
    plot.addItem(bars)
    plot.resize(300, 100)
    plot.show()
    qtbot.waitExposed(plot)
    first = bars.boundingRect()
    assert first.left() < -0.3 and first.right() > 2.3 and first.bottom() > 3
    bars.setOpts(x=[0, 10], height=[1, 9])
    grown = bars.boundingRect()
    assert grown.right() > 10.3 and grown.bottom() > 9
    plot.setXRange(0, 1000, padding=0)  # zoomed out: the pen's width in data units grows with it
    qtbot.waitUntil(lambda: bars.boundingRect().right() > grown.right())
    assert bars.boundingRect() == pg.BarGraphItem.boundingRect(bars)


def test_a_grown_folded_graph_uses_the_folds_found_while_loading(qtbot, window, monkeypatch):
    """A big file's parts and its whole run are folded on the loader's thread (prepare_views): showing them
    grown on the window's thread does not look for folds again (25 ms on the 1,000-iteration run)."""
    from afp_desktop.app.features import graph_folding
    from afp_desktop.core.formats import open_run
    from afp_desktop.core.model.prepared_views import prepare_views
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


def test_the_timeline_is_built_once_its_imports_are_done_off_the_window_thread(qtbot, monkeypatch):
    """numpy is imported on a thread of its own; the timeline waits for it instead of importing it on the
    window's thread (which froze the window that long just after start-up)."""
    from afp_desktop.app.pacing import warm_imports
    from afp_desktop.app.panels.timeline.timeline_host import TimelineHost
    from afp_desktop.app.session import Session

    importing, asked = [True], []
    monkeypatch.setattr(warm_imports, "ready", lambda: asked.append(True) or not importing[0])
    session = Session()
    host = TimelineHost(session)
    qtbot.addWidget(host)
    host.build_when_ready()
    qtbot.waitUntil(lambda: len(asked) >= 3)  # (it asked again twice, on its timer)
    assert not host.built, "it waits for the imports"
    importing[0] = False
    qtbot.waitUntil(lambda: host.built, timeout=2_000)


def test_the_warm_imports_never_import_pyqtgraph_off_the_window_thread():
    """pyqtgraph's import reads every attribute of PySide6's modules and defines Qt subclasses: on a thread,
    while the window ran its event loop, it crashed the app (SIGSEGV). The thread imports numpy only."""
    import subprocess
    import sys

    code = ("import sys, os\nos.environ['QT_QPA_PLATFORM'] = 'offscreen'\n"
            "from afp_desktop.app.shell.gui import create_application\nfrom afp_desktop.app.pacing import warm_imports\n"
            "app = create_application()\nwarm_imports.start()\nwarm_imports.finish()\n"
            "print('numpy' in sys.modules, 'pyqtgraph' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "False"]


def test_the_window_clock_is_the_window_thread_s_made_by_the_loader_on_that_thread(qapp, monkeypatch):
    """A loader thread asking first would time itself, see itself "at work" and wait at every breathing point."""
    from afp_desktop.app.loading.loader import RunLoader

    monkeypatch.setattr(activity_module, "_activity", None)
    loader = RunLoader()
    activity = activity_module._activity
    assert activity is not None, "the loader makes it, on the window's thread"
    if hasattr(time, "pthread_getcpuclockid"):
        assert activity.clock == time.pthread_getcpuclockid(threading.get_ident())
    monkeypatch.setattr(activity_module, "_activity", None)
    failures: list[Exception] = []

    def ask_from_another_thread() -> None:
        try:
            window_activity()
        except RuntimeError as err:
            failures.append(err)

    thread = threading.Thread(target=ask_from_another_thread)
    thread.start()
    thread.join()
    assert failures, "never made on another thread"
    loader.deleteLater()


def test_with_the_window_idle_a_loader_thread_never_waits(qapp, monkeypatch):
    monkeypatch.setattr(activity_module, "YIELD_S", ALLOWANCE)
    window_activity()
    waited: list[float] = []

    def load() -> None:
        made = Contention(threading.Event())
        for _ in range(5):
            end = time.monotonic() + 0.03
            while time.monotonic() < end:
                sum(range(200))
            started = time.monotonic()
            made.yield_if_shared()
            waited.append(time.monotonic() - started)

    thread = threading.Thread(target=load)
    thread.start()
    thread.join()  # (the window's thread sleeps meanwhile: no processor time, no Python)
    assert max(waited) < ALLOWANCE / 2


def test_the_qt_types_pyqtgraph_reads_are_made_a_few_per_turn_before_it_is_imported(qtbot, monkeypatch):
    """pyqtgraph's import makes every Qt type it reads (~0.1 s of its ~0.2 s on the window's thread): the host
    reads them first, PRIME_NAMES_PER_TURN per event-loop turn, then builds."""
    from PySide6 import QtCore

    from afp_desktop.app.pacing import warm_imports
    from afp_desktop.app.panels.timeline import timeline_host
    from afp_desktop.app.session import Session

    read: list[str] = []

    class Module:  # stands for QtCore, noting each name read
        def __getattr__(self, name):
            read.append(name)
            return getattr(QtCore, name)

    names = [(Module(), "QObject")] * (timeline_host.PRIME_NAMES_PER_TURN * 3 + 1)
    monkeypatch.setattr(timeline_host, "_pyqtgraph_imported", lambda: False)
    monkeypatch.setattr(timeline_host, "_qt_names", lambda: list(names))
    monkeypatch.setattr(warm_imports, "ready", lambda: True)
    host = timeline_host.TimelineHost(Session())
    qtbot.addWidget(host)
    host.build_when_ready()
    assert len(read) == timeline_host.PRIME_NAMES_PER_TURN and not host.built  # one turn's worth, then it yields
    qtbot.waitUntil(lambda: host.built, timeout=5_000)
    assert len(read) == len(names)


def test_c_that_lets_go_waits_while_the_window_waits_for_a_processor(qapp, monkeypatch):
    """A bracket scan in C holds no Python, but it takes a processor: with another program keeping the other one
    busy, the window's thread waited in the run queue for half of each turn (27 ms of 57). At such a breathing
    point the loader waits when the window's thread has been queued (yield_if_starved), and only then."""
    queued = [0.0]
    made, asked = watched(monkeypatch, "queued_seconds", lambda: queued[0])
    time.sleep(0.005)
    made.yield_if_starved()  # never queued: the scan goes on beside the window
    assert asked == []
    time.sleep(0.005)
    queued[0] += 0.003  # queued for 3 of the last 5 ms
    made.yield_if_starved()
    assert asked == [activity_module.YIELD_S]


def test_a_window_queued_for_a_processor_is_not_taken_for_asleep(qapp, monkeypatch):
    """Its processor clock stands still while it waits in the run queue: that is a window at work, and the
    loader keeps waiting (before, the first still probe ended the wait)."""
    activity = window_activity()
    monkeypatch.setattr(activity, "cpu_seconds", lambda: 1.0)  # never runs…
    monkeypatch.setattr(activity, "queued_seconds", time.monotonic)  # …because it is queued all the time
    monkeypatch.setattr(activity, "clock", 1)
    started = time.monotonic()
    activity.wait_until_asleep(0.1)
    assert time.monotonic() - started >= 0.1


def test_the_window_threads_wait_for_a_processor_is_read_from_the_system(qapp):
    """On Linux the figure comes from the window thread's schedstat: it can be read and never goes back."""
    activity = window_activity()
    if not sys.platform.startswith("linux") or not os.path.exists(f"/proc/self/task/{threading.get_native_id()}/schedstat"):
        pytest.skip("schedstat is Linux's (a kernel with scheduler statistics)")
    assert activity._schedstat is not None
    first = activity.queued_seconds()
    end = time.monotonic() + 0.02
    while time.monotonic() < end:
        sum(range(100))
    assert 0.0 <= first <= activity.queued_seconds()


def test_a_loaders_breathing_point_in_c_that_lets_go_asks_whether_the_window_is_starved(qapp, monkeypatch):
    from afp_desktop.app.pacing.beside_the_window import beside_the_window
    from afp_desktop.core.breathing import breathe, letting_go

    asked: list[str] = []
    monkeypatch.setattr(Contention, "yield_if_starved", lambda self: asked.append("starved?"))
    monkeypatch.setattr(Contention, "yield_if_shared", lambda self: asked.append("shared?"))
    with beside_the_window():
        with letting_go():
            breathe()
        breathe()
    assert asked == ["starved?", "shared?"]


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


def test_pyqtgraph_the_panel_and_the_run_shown_in_it_each_take_a_turn_of_their_own(qtbot, monkeypatch):
    """A file given at start-up: pyqtgraph's import, the panel made and the run shown in it came in one turn of the
    event loop, right after the run was shown, and froze the window for all three. Each is a piece of its own
    in the window's queue (app/pacing/scheduler.py), with the modules pyqtgraph imports before it."""
    from afp_desktop.app.pacing import scheduler, warm_imports
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
    monkeypatch.setattr(timeline_host, "_pyqtgraph_imported", lambda: False)
    monkeypatch.setattr(timeline_host, "_qt_names", lambda: [])
    monkeypatch.setattr(timeline_host, "PYQTGRAPH_IMPORTS", ("colorsys",))
    monkeypatch.setattr(timeline_host, "_import", lambda name: done.append(f"import {name}"))
    monkeypatch.setattr(warm_imports, "ready", lambda: True)
    session = Session()
    session.set_run(open_run(corpus_path("02-react-two-tools", "recording.json")))
    host = timeline_host.TimelineHost(session)
    qtbot.addWidget(host)
    host.when_built(lambda panel: done.append("built"))
    host.build_when_ready()
    qtbot.waitUntil(lambda: host.built, timeout=5_000)
    # (the panel's module is imported already: no piece for it; the panel is made in the third turn)
    assert done == ["import colorsys", "turn", "import pyqtgraph", "turn", "turn", "run shown", "built"]
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
