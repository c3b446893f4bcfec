"""`afp-desktop tail`: the status line as it changes, while a writer thread writes a corpus run with rotations;
and on finished files, against the library's own status rows (ref.status.json)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time

import pytest

from afp_desktop.cli import main
from afp_desktop.core.formats.ndjson import parse_ndjson
from afp_desktop.core.library.status import render_status_line, status_timeline
from tests.corpus_util import CUSTOM_TEMPLATES, SMALL_SCENARIOS, corpus_path, load_json, read_bytes
from tests.live_writer import SinkWriter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def change_rows(events, templates=None, app_name="Agent") -> list[dict]:
    """What tail --json prints for a stream read whole: the k=0 row, then every row whose state or line
    differs from the one before."""
    rows, shown = [], None
    for k, state in enumerate(status_timeline(events)):
        line = render_status_line(state, app_name, templates)
        if k == 0 or (state, line) != shown:
            rows.append({"k": k, "state": state, "line": line})
            shown = (state, line)
    return rows


def tail_json(capsys, *args) -> list[dict]:
    assert main(["tail", *args, "--json", "--poll-interval", "0.01", "--timeout", "5"]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


@pytest.mark.parametrize("scenario", SMALL_SCENARIOS)
def test_tail_of_a_finished_file_matches_the_library(scenario, capsys):
    """Each printed row is the library's own row at that k (ref.status.json, app name Ada, custom map)."""
    ref = load_json(scenario, "ref.status.json")
    rows = tail_json(capsys, str(corpus_path(scenario, "events.ndjson")), "--app-name", "Ada",
                     "--templates", str(CUSTOM_TEMPLATES))
    assert rows[-1]["k"] == max(r["k"] for r in rows)
    for row in rows:
        assert row["state"] == ref[row["k"]]["state"]
        assert row["line"] == ref[row["k"]]["line_custom"]
    # and every change in the reference is printed
    changes = [r["k"] for i, r in enumerate(ref)
               if i == 0 or (r["state"], r["line_custom"]) != (ref[i - 1]["state"], ref[i - 1]["line_custom"])]
    assert [r["k"] for r in rows] == changes


def test_tail_text_prints_each_new_line(capsys, tmp_path):
    assert main(["tail", str(corpus_path("02-react-two-tools", "events.ndjson")), "--poll-interval", "0.01",
                 "--timeout", "5"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Thinking…"
    assert "Working on `get_weather`…" in out and out[-1] == "(no status line)"
    assert all(a != b for a, b in zip(out, out[1:]))  # printed only when it changes


def test_tail_refuses_what_is_not_a_stream(capsys):
    assert main(["tail", str(corpus_path("01-llmcall-single", "trace.json"))]) == 2
    assert "NDJSON event stream" in capsys.readouterr().err


def test_tail_gives_up_after_the_timeout(capsys, tmp_path):
    path = tmp_path / "e.ndjson"
    path.write_bytes(read_bytes("02-react-two-tools", "events.ndjson").split(b"\n", 10)[0] + b"\n")
    assert main(["tail", str(path), "--poll-interval", "0.01", "--timeout", "0.2"]) == 1
    assert "no new events for 0.2 s" in capsys.readouterr().err


@pytest.mark.parametrize("scenario,seed", [("04-tool-progress", 1), ("06-pause-resume", 2),
                                           ("14-context-injections", 3)])
def test_tail_while_written_with_rotations(scenario, seed, tmp_path):
    """A writer thread writes the run in batches cut mid-line, rotating now and then, while `afp-desktop tail`
    runs as a process: it prints every change of the status line of the whole run, then exits at its end."""
    data = read_bytes(scenario, "events.ndjson")
    events = parse_ndjson(data, scenario)[0]
    path = tmp_path / "events.ndjson"
    proc = subprocess.Popen([sys.executable, "-m", "afp_desktop", "tail", str(path), "--json", "--poll-interval",
                             "0.01", "--timeout", "20"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline()  # the k=0 row: tail is following (the file does not exist yet)
    rng = random.Random(seed)
    last_rotation = [0.0]

    def may_rotate() -> bool:  # rotations well apart: tail (polling every 10 ms) sees each one
        if time.monotonic() - last_rotation[0] < 0.12:
            return False
        last_rotation[0] = time.monotonic()
        return True

    writer = SinkWriter(path, [line for line in data.split(b"\n") if line.strip()], rng, max_bytes=3000,
                        max_batch=5, may_rotate=may_rotate)

    def write() -> None:
        while not writer.done:
            writer.step()
            time.sleep(rng.choice([0, 0.001, 0.005, 0.02]))

    thread = threading.Thread(target=write)
    thread.start()
    out, err = proc.communicate(timeout=60)
    thread.join()
    assert proc.returncode == 0, err
    assert writer.rotations >= 2
    rows = [{"k": 0, "state": None, "line": None}] + [json.loads(line) for line in out.decode().splitlines()]
    assert rows == change_rows(events)
    assert b"rotated" in err and b"Traceback" not in err


def test_ctrl_c_ends_tail_quietly(tmp_path):
    path = tmp_path / "e.ndjson"
    path.write_bytes(read_bytes("02-react-two-tools", "events.ndjson").split(b"\n", 10)[0] + b"\n")
    # Ctrl+C as a terminal delivers it. A shell that starts a job in the background (a CI script's `&`, a
    # `nohup`) starts it with SIGINT ignored, and Python keeps an ignored SIGINT ignored in its children: so the
    # command gets Python's own handler back, as `python -m afp_desktop` run from a terminal has it.
    launch = ("import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
              "sys.argv[0] = 'afp-desktop'; runpy.run_module('afp_desktop', run_name='__main__')")
    proc = subprocess.Popen([sys.executable, "-c", launch, "tail", str(path), "--json", "--poll-interval", "0.01"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline()  # following
    time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0
    assert b"Traceback" not in err and err == b""
