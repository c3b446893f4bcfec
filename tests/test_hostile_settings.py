"""Issue 10, points 2 and 7: settings and template files that are FIFOs, devices, huge, deeply nested or from a
newer version never stop the app from starting, and what the app does not know is kept on save."""

from __future__ import annotations

import json
import os
import threading

import pytest

from afp_desktop.app.storage import template_store
from afp_desktop.app.storage.settings import Settings


@pytest.fixture(autouse=True)
def _config_here(tmp_path, monkeypatch):
    monkeypatch.setenv("AFP_DESKTOP_CONFIG_DIR", str(tmp_path))


def _within(seconds, fn):
    outcome = {}

    def work():
        try:
            outcome["value"] = fn()
        except BaseException as err:  # noqa: BLE001
            outcome["error"] = err

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), "did not return in time (a blocking read?)"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _special(path, kind):
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        if not os.path.exists("/dev/zero"):
            pytest.skip("no /dev/zero")
        path.symlink_to("/dev/zero")
    elif kind == "huge":
        with open(path, "wb") as handle:
            handle.write(b'{"theme": "dark", "pad": "' + b"x" * (40 << 20) + b'"}')
    elif kind == "folder":
        path.mkdir()


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "huge", "folder"])
def test_settings_that_are_not_a_small_regular_file_are_ignored_with_a_warning(tmp_path, kind):
    path = tmp_path / "settings.json"
    _special(path, kind)
    settings = _within(10, lambda: Settings(path))
    assert settings.get("theme") == "system" and settings.warning and str(path) in settings.warning


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "huge"])
def test_remembered_templates_that_are_not_a_small_regular_file_are_ignored(tmp_path, kind):
    _special(tmp_path / template_store.STORE_NAME, kind)
    remembered = _within(10, template_store.load_remembered)
    assert remembered.warning and remembered.templates
    with pytest.raises(template_store.TemplateMapError):
        _within(10, lambda: template_store.read_map(tmp_path / template_store.STORE_NAME))


def test_settings_nested_100000_levels_do_not_stop_the_start(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text('{"theme": "dark", "future": ' + "[" * 100_000 + "]" * 100_000 + "}")
    settings = _within(60, lambda: Settings(path))
    assert settings.get("theme") == "dark"
    assert _within(60, settings.save) is None  # and the deep unknown value is written back
    text = path.read_text()
    nest = text[text.index('"future"'):]
    assert nest.split(",", 1)[0].count("[") == 100_000 and len(text) < 10_000_000  # the whole nest, kept


def test_unknown_settings_keys_survive_a_save(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"theme": "dark", "newer_feature": {"x": [1, 2]}, "zoom": 1.5}))
    settings = Settings(path)
    settings.set("theme", "light")
    assert settings.save() is None
    saved = json.loads(path.read_text())
    assert saved["newer_feature"] == {"x": [1, 2]} and saved["zoom"] == 1.5 and saved["theme"] == "light"


def test_unknown_template_store_keys_survive_a_save(tmp_path):
    path = tmp_path / template_store.STORE_NAME
    path.write_text(json.dumps({"templates": {"a": "b"}, "appName": "X", "profiles": ["p1"]}))
    assert template_store.remember({"c": "d"}, "Y") is None
    saved = json.loads(path.read_text())
    assert saved == {"profiles": ["p1"], "templates": {"c": "d"}, "appName": "Y"}


def test_deep_template_store_is_read_or_refused_without_recursion_error(tmp_path):
    path = tmp_path / template_store.STORE_NAME
    path.write_text('{"templates": ' + "[" * 50_000 + "]" * 50_000 + ', "appName": "A"}')
    remembered = _within(60, template_store.load_remembered)
    assert remembered.warning and "templates" not in (remembered.app_name,)
