"""Preferences: defaults, round trip, recent files (order, cap, missing files dropped), damaged files."""

from __future__ import annotations

import json
import os

import pytest

from afp_desktop.app.storage.settings import DEFAULTS, FILE_NAME, MAX_RECENT, Settings, config_dir


def _files(tmp_path, count: int) -> list[str]:
    paths = []
    for i in range(count):
        path = tmp_path / f"run-{i}.ndjson"
        path.write_text("{}\n")
        paths.append(str(path))
    return paths


def test_config_dir_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("AFP_DESKTOP_CONFIG_DIR", str(tmp_path / "here"))
    assert config_dir() == tmp_path / "here"
    assert Settings().path == tmp_path / "here" / FILE_NAME


def test_defaults_without_a_file(tmp_path):
    settings = Settings(tmp_path / "settings.json")
    assert settings.warning is None
    assert settings.recent_files == []
    assert settings.get("theme") == "system"
    assert settings.get("future_mode") == "dim"
    assert settings.get("play_speed") == 1.0
    assert settings.layout_bytes("geometry") is None


def test_round_trip_and_atomic_write(tmp_path):
    path = tmp_path / "cfg" / "settings.json"
    settings = Settings(path)
    settings.set("theme", "dark")
    settings.set("future_mode", "hide")
    settings.set("play_speed", 4.0)
    settings.set_layout_bytes("geometry", b"\x01\x02\xff geometry")
    assert settings.save() is None
    assert [p.name for p in path.parent.iterdir()] == ["settings.json"]  # no temp file left behind
    again = Settings(path)
    assert again.warning is None
    assert again.get("theme") == "dark"
    assert again.get("future_mode") == "hide"
    assert again.get("play_speed") == 4.0
    assert again.layout_bytes("geometry") == b"\x01\x02\xff geometry"


def test_recent_files_most_recent_first_without_duplicates(tmp_path):
    a, b, c = _files(tmp_path, 3)
    settings = Settings(tmp_path / "settings.json")
    for path in (a, b, c, a):
        settings.add_recent(path)
    assert settings.recent_files == [a, c, b]
    assert settings.get("last_folder") == str(tmp_path)


def test_recent_files_are_capped(tmp_path):
    paths = _files(tmp_path, MAX_RECENT + 3)
    settings = Settings(tmp_path / "settings.json")
    for path in paths:
        settings.add_recent(path)
    assert len(settings.recent_files) == MAX_RECENT
    assert settings.recent_files[0] == paths[-1]
    assert paths[0] not in settings.recent_files


def test_missing_recent_files_are_dropped_on_load(tmp_path):
    kept, gone = _files(tmp_path, 2)
    settings = Settings(tmp_path / "settings.json")
    settings.add_recent(kept)
    settings.add_recent(gone)
    settings.save()
    os.remove(gone)
    assert Settings(tmp_path / "settings.json").recent_files == [kept]


@pytest.mark.parametrize("content", [b"{not json", b"\xff\xfe\x00garbage", b"[1, 2, 3]", b""])
def test_damaged_file_falls_back_to_defaults_with_a_warning(tmp_path, content):
    path = tmp_path / "settings.json"
    path.write_bytes(content)
    settings = Settings(path)
    assert settings.values == DEFAULTS
    assert settings.warning is not None and str(path) in settings.warning
    assert "defaults" in settings.warning


def test_wrong_types_are_reset_one_by_one(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"theme": "purple", "play_speed": True, "future_mode": "hide",
                                "recent_files": "not a list"}))
    settings = Settings(path)
    assert settings.get("theme") == "system"
    assert settings.get("play_speed") == 1.0
    assert settings.get("future_mode") == "hide"  # the valid value survives
    assert settings.recent_files == []
    assert "theme" in settings.warning and "play_speed" in settings.warning and "recent_files" in settings.warning


def test_unreadable_file_warns(tmp_path):
    path = tmp_path / "settings.json"
    path.mkdir()  # a folder where the file should be: reading fails with an OSError
    settings = Settings(path)
    assert settings.values == DEFAULTS
    assert "Could not read" in settings.warning


def test_save_failure_is_reported_not_raised(tmp_path):
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a folder")
    settings = Settings(blocker / "settings.json")
    error = settings.save()
    assert error is not None and "Could not save" in error


def test_invalid_value_is_refused(tmp_path):
    settings = Settings(tmp_path / "settings.json")
    with pytest.raises(ValueError):
        settings.set("theme", "neon")
    with pytest.raises(ValueError):
        settings.set("play_speed", 3.0)
