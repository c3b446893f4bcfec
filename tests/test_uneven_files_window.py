"""Files not whole or not one event per line, opened in the real window (offscreen): a Trace cut off before its
end shows its whole events, the banner says first that it is cut off, the timeline ends where the file ends and
the file is never written; a stream printed by jq opens as its event stream."""

from __future__ import annotations

import gzip
import json

import pytest

from afp_desktop.app.panels.notice_words import SENTENCES
from tests.corpus_util import read_bytes

LOAD_TIMEOUT = 30_000
TRACE = read_bytes("15-large-run", "trace.json")  # large enough for the large-Trace reader and early display


@pytest.mark.parametrize("compressed", [False, True])
def test_a_cut_trace_opens_with_what_it_holds(qtbot, window, tmp_path, compressed):
    cut = TRACE[: int(len(TRACE) * 0.55)]
    path = tmp_path / ("trace.json.gz" if compressed else "trace.json")
    data = gzip.compress(TRACE)[: int(len(gzip.compress(TRACE)) * 0.55)] if compressed else cut
    path.write_bytes(data)
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        window.open_file(path)
    window.session.flush()
    run = window.session.run
    total = len(json.loads(TRACE)["events"])
    assert run is not None and 0 < len(run.domain_events) < total
    assert window.banner.sentences[0] == SENTENCES["truncated"]
    assert SENTENCES["redaction-unknown"] in window.banner.sentences
    assert SENTENCES["unredacted"] not in window.banner.sentences  # unknown is not said to be "none"
    assert any("cut off inside event" in text for text in window.banner.texts)
    assert window.session.position == len(run.axis)  # the timeline ends where the file ends
    assert path.read_bytes() == data  # only read


def test_a_jq_printed_stream_opens_as_its_event_stream(qtbot, window, tmp_path):
    lines = [line for line in read_bytes("04-tool-progress", "events.ndjson").splitlines() if line.strip()]
    path = tmp_path / "events.json"
    path.write_text("".join(json.dumps(json.loads(line), indent=2) + "\n" for line in lines))
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        window.open_file(path)
    window.session.flush()
    assert len(window.session.run.typed_events) == len(lines)
    assert SENTENCES["object-stream"] in window.banner.sentences
