"""Text from a file never drives the terminal: every human-readable printer of the command line (info, the
notes, warnings and errors on stderr, text-mode tail) writes control characters as visible escapes."""

from __future__ import annotations

import io
import json
import re
import zipfile

from hypothesis import given, settings, strategies as st

from afp_desktop.cli import main
from afp_desktop.core.terminal_text import for_terminal
from tests.bundle_util import make_zip, manifest, several_conversations_zip
from tests.corpus_util import read_bytes

# A window title, a screen clear, a hidden link, a carriage return over the line, a right-to-left override, a
# C1 control sequence introducer, a backspace and a DEL.
HOSTILE = "\x1b]0;owned\x07\x1b[2J\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\\rX\u202e\x9b2J\b\x7f"
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _hostile_zip(tmp_path):
    base = manifest()
    base["report"]["title"] = "Title " + HOSTILE
    base["report"]["expected"] = "expected " + HOSTILE
    base["units"][0]["label"] = "Label " + HOSTILE
    path = tmp_path / "hostile.zip"
    path.write_bytes(several_conversations_zip(report=base["report"], units=base["units"]))
    return path


def _printed(capsysbinary) -> tuple[str, str]:
    captured = capsysbinary.readouterr()
    return captured.out.decode(), captured.err.decode()


def test_for_terminal_escapes_controls_and_keeps_the_text():
    assert for_terminal("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert for_terminal("\u202eevil\u2066") == "\\u202eevil\\u2066"
    assert for_terminal("\x9b\x85\x7f\r\b\x00") == "\\x9b\\x85\\x7f\\x0d\\x08\\x00"
    assert for_terminal("line 1\n\tline 2 — é ✓ 日本") == "line 1\n\tline 2 — é ✓ 日本"
    assert for_terminal("a\nb", keep_newlines=False) == "a\\x0ab"


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_for_terminal_leaves_no_control_and_is_stable(text):
    shown = for_terminal(text, keep_newlines=False)
    assert not CONTROL.search(shown) and "\n" not in shown
    assert for_terminal(shown) == shown
    if "\\" not in text:  # (then the escapes read back give the text)
        assert re.sub(r"\\x([0-9a-f]{2})|\\u([0-9a-f]{4})", lambda m: chr(int(m.group(1) or m.group(2), 16)),
                      shown) == text


def test_info_of_a_bundle_to_choose_from_escapes_its_text(tmp_path, capsysbinary):
    path = _hostile_zip(tmp_path)
    assert main(["info", str(path)]) == 0
    out, err = _printed(capsysbinary)
    assert not CONTROL.search(out) and not CONTROL.search(err)
    assert "Bug report:  Title \\x1b]0;owned\\x07\\x1b[2J" in out
    assert "Label \\x1b]0;owned" in out and "\\u202e" in out and "\\x9b2J" in out


def test_info_of_a_chosen_conversation_escapes_its_text(tmp_path, capsysbinary):
    path = _hostile_zip(tmp_path)
    assert main(["info", str(path), "--conversation", "conv-1"]) == 0
    out, err = _printed(capsysbinary)
    assert not CONTROL.search(out) and not CONTROL.search(err)
    assert "Title \\x1b]0;owned" in out and "  Expected: expected \\x1b]0;owned" in out


def test_info_json_keeps_the_text_as_it_is(tmp_path, capsysbinary):
    path = _hostile_zip(tmp_path)
    assert main(["info", str(path), "--json"]) == 0
    out, _err = _printed(capsysbinary)
    assert json.loads(out)["bundle"]["report"]["title"] == "Title " + HOSTILE


def test_an_entry_name_is_escaped(tmp_path, capsysbinary):
    entries = {"manifest.json": json.dumps(manifest()), "notes/\x1b]0;owned\x07.txt": "hello"}
    data = several_conversations_zip()
    path = tmp_path / "entries.zip"
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        entries.update({name: archive.read(name) for name in archive.namelist() if name != "manifest.json"})
    path.write_bytes(make_zip(entries))
    assert main(["info", str(path)]) == 0
    out, err = _printed(capsysbinary)
    assert not CONTROL.search(out) and not CONTROL.search(err)
    assert "  - notes/\\x1b]0;owned\\x07.txt (5 bytes)" in out


def test_stops_error_listing_the_conversations_is_escaped(tmp_path, capsysbinary):
    path = _hostile_zip(tmp_path)
    assert main(["stops", str(path)]) == 2
    out, err = _printed(capsysbinary)
    assert not CONTROL.search(err) and "Label \\x1b]0;owned" in err and out == ""


def test_text_tail_escapes_a_tool_name(tmp_path, capsysbinary):
    lines = read_bytes("02-react-two-tools", "events.ndjson").decode().splitlines()
    hostile = [line.replace('"get_weather"', json.dumps("get_weather" + HOSTILE)) for line in lines]
    assert hostile != lines
    path = tmp_path / "events.ndjson"
    path.write_text("\n".join(hostile) + "\n", encoding="utf-8")
    assert main(["tail", str(path), "--poll-interval", "0.01", "--timeout", "5"]) == 0
    out, err = _printed(capsysbinary)
    assert not CONTROL.search(out) and not CONTROL.search(err)
    assert "Working on `get_weather\\x1b]0;owned\\x07" in out


def test_the_windows_screenshot_path_escapes_a_load_error(tmp_path, capsysbinary):
    path = _hostile_zip(tmp_path)
    assert main([str(path), "--screenshot", str(tmp_path / "w.png")]) == 2
    _out, err = _printed(capsysbinary)
    assert not CONTROL.search(err) and "Label \\x1b]0;owned" in err
