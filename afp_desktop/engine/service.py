"""The engine's requests, in-process: `Engine.open(path)` reads a run and prepares every projection the window
needs, so the run it returns can be shown at once. The command line and the tests call it directly; the window
calls it through the engine process (process.py)."""

from __future__ import annotations

from typing import Callable

from afp_desktop.core.formats import open_run
from afp_desktop.core.model.run import Run
from afp_desktop.core.views.prepared_views import prepare_views


class Engine:
    """Holds the run it opened last (`run`), the one later requests work on."""

    def __init__(self) -> None:
        self.run: Run | None = None

    def open(self, path: str, conversation: str | None = None, fold_above: int | None = None,
             progress: Callable[[float], None] | None = None, cancelled: Callable[[], bool] | None = None,
             show_prefix: Callable[[Run], None] | None = None, for_window: bool = True) -> Run:
        """Read `path` and prepare it for the window; raises LoadError / LoadCancelled (and OSError).
        `conversation` picks one of a bug-report bundle's; `fold_above`: the window folds graphs of more steps than
        this (None: never; see prepare_views). `show_prefix(run)` gets the prepared runs of the first events of a
        big file while the rest is read. `for_window=False`: the run as read (the command line computes what it asks
        for), none of the window's projections prepared."""
        self.run = None  # (the run opened before is let go of before the next is built)
        if for_window:
            self.run = load_run(path, progress, cancelled, conversation, show_prefix, fold_above)
        else:
            self.run = open_run(path, progress=progress, cancelled=cancelled, conversation=conversation)
        return self.run

    def close(self) -> None:
        self.run = None


def load_run(path: str, progress=None, cancelled=None, conversation: str | None = None, show_prefix=None,
             fold_above: int | None = None) -> Run:
    """open_run plus every projection the window needs (prepared_views.prepare_views, handed on as run.views);
    raises LoadError / LoadCancelled. `show_prefix(run)` gets the prepared runs of the first events of a big file
    while the rest is read. `fold_above`: the window folds graphs of more steps than this (None: never; see
    prepare_views)."""
    report = progress or (lambda _f: None)

    def prepared_prefix(run) -> None:
        run.views = prepare_views(run, fold_above=fold_above, cancelled=cancelled)
        show_prefix(run)

    run = open_run(path, progress=lambda f: report(0.7 * f), cancelled=cancelled, conversation=conversation,
                   show_prefix=prepared_prefix if show_prefix is not None else None)
    # (A big Trace's payloads are checked, and a folded graph's whole layout made, once the run is shown:
    # app/loading/left_out.py.)
    run.views = prepare_views(run, fold_above=fold_above, cancelled=cancelled, progress=lambda f: report(0.7 + 0.3 * f))
    report(1.0)
    return run
