"""The engine in-process (engine/service.py: what the command line and tests call) and the way a run travels to the
window (engine/process.py): pickled whole, read back through Python code a frame at a time."""

from __future__ import annotations

import io
import pickle

import pytest

from afp_desktop.core.formats import LoadError
from afp_desktop.core.framed_pickle import READ_PIECE
from afp_desktop.core.views.window_copy import IN_THE_ENGINE, dump_with_stand_ins
from afp_desktop.engine import process
from afp_desktop.engine.service import Engine
from tests.corpus_util import corpus_path


def _spilled(value) -> bytes:
    """`value` as a spill file holds it (with no stand-ins)."""
    out = io.BytesIO()
    dump_with_stand_ins(value, out, [])
    return out.getvalue()


def test_the_engine_holds_the_run_it_opened_prepared_for_the_window():
    engine = Engine()
    run = engine.open(str(corpus_path("02-react-two-tools", "trace.json")))
    assert engine.run is run
    views = run.views
    assert views is not None and views.graph_layout is not None and views.summary.llm_calls > 0
    assert len(views.stop_figures.tokens_in) == len(run.stops) > 0
    bare = Engine().open(str(corpus_path("02-react-two-tools", "trace.json")), for_window=False)
    assert bare.views is None and bare.stepgraph == run.stepgraph
    engine.close()
    assert engine.run is None


def test_a_prepared_run_comes_back_from_its_spill_file_whole_and_the_file_goes(tmp_path):
    run = Engine().open(str(corpus_path("06-pause-resume", "recording.json")))
    spill = tmp_path / "run.pickle"
    with open(spill, "wb") as out:
        process.write_window_copy(run, out)  # (as the engine process writes it)
    back = process.receive(str(spill))
    assert not spill.exists()
    assert len(back.axis) == len(run.axis) and back.views.summary == run.views.summary
    assert [list(node) for node in back.stepgraph["nodes"]] == [list(node) for node in run.stepgraph["nodes"]]
    for shown, node in zip(back.stepgraph["nodes"], run.stepgraph["nodes"]):  # (its payloads stay in the engine)
        assert all(shown[key] in (value, IN_THE_ENGINE) for key, value in node.items() if key != "assistantText")


def test_the_unpickler_reads_a_frame_at_a_time_through_python(tmp_path, monkeypatch):
    """Each read is Python code, where another thread gets Python's lock: a big pickle is read in many calls of at
    most a frame each, never in one."""
    value = [{"n": i, "text": f"{i:050d}"} for i in range(100_000)]
    spill = tmp_path / "big.pickle"
    data = _spilled(value)
    spill.write_bytes(data)
    sizes: list[int] = []
    read, readinto = process.FrameReader.read, process.FrameReader.readinto
    monkeypatch.setattr(process.FrameReader, "read", lambda self, size=-1: sizes.append(size) or read(self, size))
    monkeypatch.setattr(process.FrameReader, "readinto",
                        lambda self, buffer: sizes.append(len(buffer)) or readinto(self, buffer))
    assert process.receive(str(spill)) == value
    assert len(sizes) >= len(data) // (1 << 17) > 10 and max(sizes) <= 1 << 17


@pytest.mark.parametrize("error, words", [
    (FileNotFoundError(), "the file does not exist"), (PermissionError(), "permission denied"),
    (IsADirectoryError(), "this is a folder"), (MemoryError(), "not enough memory"),
    (ValueError("odd"), "could not be opened (ValueError: odd)"),
])
def test_why_a_load_ended_is_said_in_words_naming_the_file(error, words):
    message = process.failure_message("run.json", error)
    assert message.startswith("run.json: ") and words in message


def test_a_load_error_is_said_as_the_core_says_it():
    error = LoadError("run.json", "not valid JSON")
    assert process.failure_message("run.json", error) == str(error)


def test_the_engine_answers_find_with_the_cores_hits_in_plain_columns_and_refuses_a_bad_query_in_words():
    from afp_desktop.core.formats import open_run
    from afp_desktop.core.views.search import SearchIndex

    path = str(corpus_path("02-react-two-tools", "events.ndjson"))
    engine = Engine()
    engine.open(path)
    found = engine.answer("find", {"query": "oslo", "ignore_case": True, "limit": 5})
    expected = SearchIndex(open_run(path)).find("oslo", ignore_case=True, limit=5)
    back = pickle.loads(pickle.dumps(found, protocol=5))
    assert list(back) == list(expected) and len(back) == 5 and back.complete == expected.complete
    assert back.positions == [int(p) for p in expected.positions] and back.node_set() == expected.node_set()
    refused = engine.answer("find", {"query": "(", "regex": True})
    assert not len(refused) and refused.refusal and "Traceback" not in refused.refusal


def test_a_big_object_is_read_a_piece_at_a_time(tmp_path):
    """A recording's text travels as one bytes object of hundreds of megabytes: it is read into its buffer a piece
    at a time, with a pause between pieces, never in one read that would hold the window waiting for seconds."""
    big = bytes(range(256)) * (12 * READ_PIECE // 256 + 1)
    spill = tmp_path / "big.pickle"
    spill.write_bytes(_spilled({"text": big}))
    pauses = []
    back = process.receive(str(spill), lambda: pauses.append(1))
    assert back["text"] == big
    assert len(pauses) >= len(big) // READ_PIECE


def test_a_received_spill_is_removed_after_the_window_has_its_run(qtbot, tmp_path, monkeypatch):
    """Removing a big spill file takes a while: the receiving thread removes it after handing the run back, so the
    window's thread, which waits for each slice, never waits for the removal."""
    import threading

    from afp_desktop.app.loading.received_runs import SlicedReceive

    spill = tmp_path / "run.pickle"
    spill.write_bytes(_spilled({"run": list(range(1000))}))
    removing, release = threading.Event(), threading.Event()
    real = process.discard

    def slow_discard(path: str) -> None:
        removing.set()
        release.wait(10)
        real(path)

    monkeypatch.setattr(process, "discard", slow_discard)
    receive = SlicedReceive("loaded", str(spill))
    got = []
    receive.received.connect(lambda kind, run: got.append(run))
    receive.start()
    qtbot.waitUntil(lambda: bool(got), timeout=10_000)  # (delivered while the removal is still held)
    assert got == [{"run": list(range(1000))}] and removing.is_set() and spill.exists()
    release.set()
    assert receive.wait(10_000) and not spill.exists()


def test_the_engine_gives_a_steps_json_whole_and_refuses_a_step_the_run_has_not():
    import json

    engine = Engine()
    run = engine.open(str(corpus_path("02-react-two-tools", "trace.json")))
    index = next(i for i, node in enumerate(run.step_fold.nodes) if "toolArgs" in node)
    assert json.loads(engine.answer("step_json", {"index": index})) == run.step_fold.nodes[index]
    with pytest.raises(IndexError, match="has no step"):
        engine.answer("step_json", {"index": len(run.step_fold.nodes)})
