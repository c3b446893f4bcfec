"""File ▸ Share as web page…: the window writes the run shown, at its stop and with its templates, as one page."""

from __future__ import annotations

import json
import re

from afp_desktop.app.shell.main_window import MainWindow
from tests.corpus_util import corpus_path


def _page_data(page: bytes) -> dict:
    block = re.search(rb'<script type="application/json"[^>]*>(.*?)</script>', page, re.S)
    assert block is not None
    return json.loads(block.group(1))


def test_the_window_shares_the_run_at_its_stop_with_its_templates(qtbot, tmp_path):
    window = MainWindow(restore_layout=False)
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignal(window.loader.loaded, timeout=30_000):
        window.open_file(corpus_path("02-react-two-tools", "events.ndjson"))
    share = window.features["share"]
    assert window.action("share").isEnabled()
    window.session.set_templates({**window.session.templates, "tool": "Fetching with {{toolName}} now"})
    window.session.move_to_stop(3)
    window.session.flush()
    out = tmp_path / "run.html"
    share.share_to(str(out))
    qtbot.waitUntil(lambda: share.written == str(out), timeout=30_000)
    page = out.read_bytes()
    assert page.startswith(b"<!DOCTYPE html>") or page.lstrip().lower().startswith(b"<!doctype html>")
    data = _page_data(page)
    assert data["startStop"] == 3
    assert "Fetching with get_weather now" in json.dumps(data)
    window.close()


def test_sharing_over_the_input_is_refused_and_writes_nothing(qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    source = tmp_path / "run.ndjson"
    source.write_bytes(corpus_path("02-react-two-tools", "events.ndjson").read_bytes())
    before = source.read_bytes()
    said = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, _title, text: said.append(text))
    window = MainWindow(restore_layout=False)
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignal(window.loader.loaded, timeout=30_000):
        window.open_file(source)
    window.features["share"].share_to(str(source))
    assert said and "input" in said[0] and source.read_bytes() == before
    window.close()
