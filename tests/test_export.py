"""PNG and SVG export of the step graph: sizes, caps, crops, plain text, errors."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QImage

from afp_desktop.app.export.export import MAX_PNG_PIXELS, MAX_PNG_SIDE, export_graph, export_view, plan_png
from afp_desktop.app.panels.graph.graph_canvas import GraphCanvas
from afp_desktop.app.look.style import palette_for
from afp_desktop.core.model.layout import layout_step_graph
from afp_desktop.core.views.synthetic import synthetic_step_graph
from tests.corpus_util import load_json

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def graph():
    return load_json("02-react-two-tools", "ref.stepgraph.json")


@pytest.mark.parametrize("scale", [1, 2])
def test_png_has_the_layout_size_times_scale(qapp, tmp_path, graph, scale):
    layout = layout_step_graph(graph)
    out = export_graph(graph, tmp_path / "graph.png", scale=scale)
    assert out == tmp_path / "graph.png" and out.exists()
    image = QImage(str(out))
    assert not image.isNull()
    assert (image.width(), image.height()) == (int(layout.width * scale), int(layout.height * scale))
    assert QColor(image.pixel(1, 1)) == QColor(palette_for("light").background)


def test_svg_has_pixel_size_viewbox_and_text(qapp, tmp_path, graph):
    layout = layout_step_graph(graph)
    out = export_graph(graph, tmp_path / "graph.SVG", scale=2, theme="dark")
    root = ET.parse(out).getroot()
    assert root.tag == f"{SVG}svg"
    width, height = round(layout.width * 2), round(layout.height * 2)
    assert (root.get("width"), root.get("height")) == (str(width), str(height))
    assert root.get("viewBox") == f"0 0 {width} {height}"
    texts = ["".join(t.itertext()).strip() for t in root.iter(f"{SVG}text")]
    assert "tool → llm" in texts and "mock" in texts  # text stays text, so it is crisp at any zoom


def test_trace_text_is_written_as_plain_text(qapp, tmp_path, graph):
    graph["nodes"][15]["assistantText"] = '<script>alert("x")</script> & <b>bold</b>'
    out = export_graph(graph, tmp_path / "graph.svg")
    texts = ["".join(t.itertext()) for t in ET.parse(out).getroot().iter(f"{SVG}text")]
    assert any(t.startswith("<script>") for t in texts)  # escaped by the writer, read back literally
    assert export_graph(graph, tmp_path / "graph.png").exists()


def test_huge_graph_png_is_capped(qapp, tmp_path, caplog):
    graph = synthetic_step_graph(1430, 3)
    layout = layout_step_graph(graph)
    plan = plan_png(layout.width, layout.height, 2.0)
    assert plan.note and plan.scale < 2.0
    with caplog.at_level(logging.WARNING, logger="afp_desktop.app.export.export"):
        out = export_graph(graph, tmp_path / "huge.png", scale=2.0, layout=layout)
    image = QImage(str(out))
    assert (image.width(), image.height()) == (plan.width, plan.height)
    assert max(image.width(), image.height()) <= MAX_PNG_SIDE
    assert image.width() * image.height() <= MAX_PNG_PIXELS
    assert "exported at" in caplog.text


def test_plan_png_caps_pixel_count_of_wide_graphs():
    plan = plan_png(15_000, 15_000, 1.0)
    assert plan.width * plan.height <= MAX_PNG_PIXELS and plan.note
    assert plan_png(800, 600, 1.0) == plan_png(800, 600, 1.0) and plan_png(800, 600, 1.0).note is None
    with pytest.raises(ValueError):
        plan_png(10, 10, 0)


@pytest.mark.parametrize("name", ["graph.jpg", "graph", "graph.png.txt"])
def test_unsupported_extension_raises(qapp, tmp_path, graph, name):
    with pytest.raises(ValueError, match=r"\.png or \.svg"):
        export_graph(graph, tmp_path / name)
    assert not (tmp_path / name).exists()


def test_crop_and_cursor(qapp, tmp_path):
    graph = load_json("15-large-run", "ref.stepgraph.json")
    happened = [i < 20 for i in range(len(graph["nodes"]))]  # iteration 3 (on screen) is half done
    out = export_graph(graph, tmp_path / "crop.png", view_rect=(0, 0, 600, 500), happened=happened, current=11)
    image = QImage(str(out))
    assert (image.width(), image.height()) == (600, 500)
    plain = QImage(str(export_graph(graph, tmp_path / "plain.png", view_rect=(0, 0, 600, 500),
                                    happened=happened, current=11, include_cursor=False)))
    assert image != plain  # the cursor ring and dimming are drawn only with include_cursor
    with pytest.raises(ValueError):
        export_graph(graph, tmp_path / "off.png", view_rect=(-500, -500, 10, 10))


def test_export_view_writes_what_the_canvas_shows(qtbot, tmp_path):
    canvas = GraphCanvas(palette=palette_for("dark"))
    qtbot.addWidget(canvas)
    canvas.resize(640, 480)
    canvas.show()
    qtbot.waitExposed(canvas)
    with pytest.raises(ValueError):
        export_view(canvas, tmp_path / "nothing.png")
    canvas.set_graph(load_json("15-large-run", "ref.stepgraph.json"))
    canvas.set_cursor_state(None, 500)
    visible = canvas.visible_scene_rect()
    image = QImage(str(export_view(canvas, tmp_path / "view.png")))
    assert abs(image.width() - visible.width()) <= 1 and abs(image.height() - visible.height()) <= 1
    assert QColor(image.pixel(0, 0)) == QColor(palette_for("dark").background)
    root = ET.parse(export_view(canvas, tmp_path / "whole.svg", whole_graph=True)).getroot()
    assert root.get("width") == str(round(canvas.graph_layout.width))


def test_export_works_under_a_bare_qguiapplication(tmp_path):
    """A headless caller may only have a QGuiApplication; export must not need QtWidgets' QApplication."""
    script = (
        "import sys\n"
        "from PySide6.QtGui import QGuiApplication, QImage\n"
        "app = QGuiApplication(['x'])\n"
        "from afp_desktop.app.export.export import export_graph\n"
        "from tests.corpus_util import load_json\n"
        "g = load_json('10-flow-loop', 'ref.stepgraph.json')\n"
        f"png = export_graph(g, {str(tmp_path / 'a.png')!r}); export_graph(g, {str(tmp_path / 'a.svg')!r})\n"
        "assert not QImage(str(png)).isNull()\n"
        "assert type(QGuiApplication.instance()) is QGuiApplication\n"
    )
    root = Path(__file__).resolve().parents[1]
    result = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True, timeout=120,
                            env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "a.svg").stat().st_size > 0


@pytest.mark.parametrize("fold", [None, True, False])
def test_the_command_line_folds_alike_iterations_as_the_window_does(qapp, tmp_path, capsys, fold):
    """`export --fold` draws each run of alike iterations as one card (without the window's "click to expand");
    by default it folds as the window opens a run (over 2,000 steps), and --no-fold draws every step."""
    from afp_desktop.cli import main
    from tests.corpus_util import corpus_path

    out = tmp_path / "graph.png"
    flag = [] if fold is None else ["--fold" if fold else "--no-fold"]
    assert main(["export", str(corpus_path("15-large-run", "trace.json")), "-o", str(out), *flag, "--stop", "40"]) == 0
    said = capsys.readouterr().err
    image = QImage(str(out))
    assert not image.isNull()
    if fold:  # 1,056 steps: folded only when asked
        assert "1 run(s) of alike iterations folded (1,029 of 1,056 steps in fold cards)" in said
        assert image.height() < 2_000  # the whole run at 1×, not a 16,000-pixel sliver
    else:
        assert "folded" not in said and image.height() >= 15_000  # every step, shrunk to fit the PNG's cap


def test_an_image_of_a_folded_graph_says_no_click_to_expand(qtbot, tmp_path):
    from afp_desktop.core.formats import open_run
    from afp_desktop.core.views.prepared_views import fold_whole_graph
    from tests.corpus_util import corpus_path

    run = open_run(corpus_path("15-large-run", "trace.json"))
    folds, shown, _fmap, layout = fold_whole_graph(run)
    assert any(node.get("hint") == "click to expand" for node in shown["nodes"])
    out = export_graph(shown, tmp_path / "folded.svg", layout=layout)
    text = out.read_text(encoding="utf-8")
    assert folds[0].label.replace("–", "&#x2013;") in text or folds[0].label in text
    assert "click to expand" not in text
    canvas = GraphCanvas()
    qtbot.addWidget(canvas)
    canvas.set_graph(shown, layout)
    qtbot.waitUntil(lambda: not canvas.building, timeout=10_000)
    assert "click to expand" not in export_view(canvas, tmp_path / "view.svg").read_text(encoding="utf-8")
