"""`afp-desktop FILE --at STAGE_ID` and "Copy link to this stop" (issue 15)."""

from __future__ import annotations

import shlex
import subprocess
import sys

from afp_desktop.core.formats import open_run
from afp_desktop.core.stage_link import stop_for_stage, stop_link
from tests.corpus_util import corpus_path


def run():
    return open_run(str(corpus_path("02-react-two-tools", "recording.json")))


def test_exact_enclosing_and_nearest():
    r = run()
    exact = stop_for_stage(r, "call-llm#18")
    assert exact.message is None and r.stops[exact.stop]["runtimeStageId"] == "call-llm#18"
    assert exact.position == r.stops[exact.stop]["axisEnd"]
    inside = stop_for_stage(r, "sf-messages/compose#10")
    first = r.stage_ids_on_axis().index("sf-messages/compose#10") + 1
    ends = [s["axisEnd"] for s in r.stops]
    assert (ends[inside.stop - 1] if inside.stop else 0) < first <= ends[inside.stop]  # the span holds it
    assert "is not a stop; it is inside stop" in inside.message
    nearest = stop_for_stage(r, "call-llm#999")
    assert nearest.stop == max(range(len(r.stops)), key=lambda i: int(r.stops[i]["runtimeStageId"].split("#")[1])
                               if "#" in (r.stops[i].get("runtimeStageId") or "") else -1)
    assert nearest.message.startswith("There is no stage call-llm#999 in this run; the nearest stop is")


def test_links_round_trip_through_the_command_line():
    r = run()
    for index, stop in enumerate(r.stops):
        link = stop_link("/data/my run.json", stop)
        argv = shlex.split(link)
        assert argv[:2] == ["afp-desktop", "/data/my run.json"]
        if stop.get("runtimeStageId"):
            target = stop_for_stage(r, argv[3])
            assert target.message is None and r.stops[target.stop]["runtimeStageId"] == stop["runtimeStageId"]


def test_at_in_a_screenshot_and_the_copy_link_action(tmp_path, qtbot):
    out = tmp_path / "at.png"
    path = str(corpus_path("02-react-two-tools", "recording.json"))
    done = subprocess.run([sys.executable, "-m", "afp_desktop", path, "--at", "nowhere#1", "--screenshot", str(out)],
                          capture_output=True, text=True, env={**__import__("os").environ,
                                                               "QT_QPA_PLATFORM": "offscreen"}, timeout=120)
    assert done.returncode == 0 and out.exists()
    assert "There is no stage nowhere#1 in this run" in done.stderr

    from PySide6.QtWidgets import QApplication

    from afp_desktop.app.gui import move_to_stage
    from afp_desktop.app.main_window import MainWindow

    window = MainWindow(restore_layout=False)
    qtbot.addWidget(window)
    r = run()
    window.session.set_run(r)
    assert move_to_stage(window.session, r, "tool-calls#22") is None
    link = window.copy_stop_link()
    assert QApplication.clipboard().text() == link and link.endswith("--at 'tool-calls#22'")
