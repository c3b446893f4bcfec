"""Issue 14, space and start-up: default dock proportions at the default size and at 1024×640, the header
elided rather than cut, and the timeline built only after the window's first frame."""

from __future__ import annotations

import subprocess
import sys

import pytest
from PySide6.QtCore import QCoreApplication

from afp_desktop.engine.service import load_run
from afp_desktop.app.shell.main_window import MainWindow
from afp_desktop.app.shell.proportions import default_dock_sizes
from tests.corpus_util import corpus_path

RUN = corpus_path("04-tool-progress", "recording.json")


def shown_window(qtbot, width: int | None = None, height: int | None = None) -> MainWindow:
    win = MainWindow(restore_layout=False)
    qtbot.addWidget(win)
    if width is not None:
        win.resize(width, height)
    win.show()
    qtbot.waitExposed(win)
    win.session.set_run(load_run(RUN))
    win.session.flush()
    qtbot.waitUntil(lambda: win.timeline.built)  # built after the first frame
    # The default dock sizes come on a 0 ms timer started at show, due before the first frame's, which builds the
    # plots: both have run; the layout requests they posted are served now.
    QCoreApplication.sendPostedEvents()
    return win


def test_default_size_gives_the_graph_and_the_bubble_room(qtbot):
    win = shown_window(qtbot)
    height = win.height()
    assert (win.width(), height) == (1440, 900)
    assert win.docks["timeline"].height() <= 0.26 * height  # was 310 px of 900 (~40% with its title and margins)
    assert win.canvas.height() >= 0.6 * height
    column = win.docks["chat"].height() + win.docks["inspector"].height()
    assert win.docks["chat"].height() >= 0.35 * column
    assert win.canvas.width() >= 0.6 * win.width()


def test_a_small_window_stays_usable(qtbot):
    win = shown_window(qtbot, 1024, 640)
    assert (win.width(), win.height()) == (1024, 640)  # the docks' minimums allow it
    assert win.canvas.height() >= 300 and win.canvas.width() >= 560
    assert win.docks["timeline"].height() <= 0.32 * 640
    timeline = win.timeline.panel
    # the stop markers, with the marks above and below them, keep their room in a low dock, and nothing of the
    # timeline is drawn over another part of it (its bars and the overview strip overlapped at this size)
    canvas = timeline.canvas
    assert canvas.stop_rect().height() >= 20
    assert canvas.geometry().bottom() < timeline.overview.geometry().top()
    assert timeline.overview.geometry().bottom() < timeline.slider.geometry().top()
    # The header is elided, not cut: what it shows fits and ends in "…"; the whole text is kept.
    figures = win.summary.figures
    assert figures.fontMetrics().horizontalAdvance(figures.text()) <= figures.width()
    figures.setText(figures.full_text() + "  ·  " + "a long model name " * 8)  # more than fits
    assert figures.text().endswith("…") and figures.full_text().startswith(figures.text()[:-1])
    assert figures.fontMetrics().horizontalAdvance(figures.text()) <= figures.width()
    assert "3 tool calls" in win.summary.text
    right = figures.geometry().right()
    assert right <= win.summary.errors.geometry().left()


@pytest.mark.parametrize("size", [(1600, 1000), (1440, 900), (1024, 640)])
def test_proportions_leave_most_of_the_height_to_the_graph(size):
    sizes = default_dock_sizes(*size)
    assert sizes.timeline_height <= 0.3 * size[1]
    assert sizes.side_width <= 0.36 * size[0]
    assert sizes.bubble_height + sizes.inspector_height + sizes.timeline_height <= size[1]


def test_the_window_module_does_not_import_pyqtgraph_or_numpy():
    code = ("import sys, afp_desktop.app.shell.gui, afp_desktop.app.shell.main_window; "
            "print(sorted(m for m in ('pyqtgraph', 'numpy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"QT_QPA_PLATFORM": "offscreen", "PATH": ""}).stdout
    assert out.strip() == "[]"


def test_the_timeline_is_built_after_the_first_frame_and_keys_work_before(qtbot):
    win = MainWindow(restore_layout=False)
    qtbot.addWidget(win)
    assert not win.timeline.built  # not before the window is on screen
    win.session.set_run(load_run(RUN))
    win.session.set_speed(2.0)
    assert win.session.speed == 2.0 and not win.timeline.built
    win.show()
    qtbot.waitUntil(lambda: win.timeline.built)
    # A run opened before the plots existed is shown by them.
    assert win.timeline.panel.slider.maximum() == len(win.session.run.axis)
    assert win.timeline.panel.speed_combo.currentData() == 2.0


def test_a_file_given_at_start_up_loads_after_the_first_frame_then_the_plots(qtbot):
    win = MainWindow(restore_layout=False)
    qtbot.addWidget(win)
    win.open_after_first_frame(RUN)
    assert not win.loader.busy and win.session.run is None  # nothing before the window is on screen
    with qtbot.waitSignal(win.loader.loaded, timeout=30_000):
        win.show()
    qtbot.waitUntil(lambda: win.timeline.built)
    assert win.session.run is not None and win.timeline.panel.slider.maximum() == len(win.session.run.axis)


def test_a_big_file_given_at_start_up_has_its_timeline_with_its_first_part(qtbot, monkeypatch):
    """A big file is shown part by part: the plots are built once the first part shows, not after the whole
    file is read (the file here never finishes: only its first part is handed over)."""
    from afp_desktop.core.formats import open_run

    win = MainWindow(restore_layout=False)
    qtbot.addWidget(win)
    opened: list = []
    monkeypatch.setattr(win, "open_file", lambda *args, **kwargs: opened.append(args))  # (reading: not here)
    win.open_after_first_frame(RUN)
    win.show()
    qtbot.waitUntil(lambda: bool(opened), timeout=10_000)  # the window is on screen and started reading
    assert not win.timeline.built
    win.loader.prefix.emit(open_run(RUN))
    qtbot.waitUntil(lambda: win.timeline.built, timeout=10_000)
