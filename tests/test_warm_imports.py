"""numpy is imported by one thread at a time: a job running beside the window (the find index, a comparison, a run
received from the engine) starts only once the start-up import thread is done. Two threads importing numpy at once left it
"partially initialized" (`afp-desktop FILE --follow` failed at start)."""

from __future__ import annotations

import threading

from afp_desktop.app.pacing import warm_imports
from afp_desktop.app.pacing.stoppable import stoppable


def test_a_job_beside_the_window_starts_after_the_start_up_imports(qapp, monkeypatch):
    importing = threading.Event()
    may_finish = threading.Event()
    order: list[str] = []

    def slow_import() -> None:
        importing.set()
        may_finish.wait(60)
        order.append("imports done")

    monkeypatch.setattr(warm_imports, "_thread", None)
    monkeypatch.setattr(warm_imports, "_import", slow_import)
    warm_imports.start()
    assert importing.wait(60)

    def job() -> None:
        with stoppable():
            order.append("job")

    worker = threading.Thread(target=job)
    worker.start()
    worker.join(0.2)  # (not a timing check: the job must still be waiting whatever this wait is)
    assert order == []
    may_finish.set()
    worker.join(60)
    assert order == ["imports done", "job"]
