"""The one contract between the window and its panels, and the hub that hands the session's news to them.

Every panel implements `Panel` (and so does each of the window's features): the window keeps one explicit list of them
(`PanelHub`) and calls each in that order; none connects itself to the session. A panel renders only what it is
given:

- `run_loaded(run)`: a run is shown (a new one: rebuild);
- `run_grown(run)`: the run shown grew (File ▸ Follow): extend, never rebuild — growth's jobs alone call it
  (app/loading/growth.py), spread over time;
- `run_closed()`: no run is shown;
- `moment(moment)`: the cursor moved: cheap work only, it comes with every step of a scrub;
- `settled(moment)`: the cursor has stopped moving: the place for expensive work;
- `set_theme(theme)`: "light" or "dark".

More news goes to the panels that have a use for it (`OPTIONAL_CALLS`): the selected step changed, the templates
changed, the stops shown changed (drill in or out), play started or stopped, its speed changed.
"""

from __future__ import annotations

from typing import Any, Iterable, Protocol, runtime_checkable

from PySide6.QtCore import QObject

PANEL_CALLS = ("run_loaded", "run_grown", "run_closed", "moment", "settled", "set_theme")
OPTIONAL_CALLS = ("selection_changed", "templates_changed", "stops_changed", "show_playing", "show_speed")


@runtime_checkable
class Panel(Protocol):
    def run_loaded(self, run: Any) -> None: ...

    def run_grown(self, run: Any) -> None: ...

    def run_closed(self) -> None: ...

    def moment(self, moment: Any) -> None: ...

    def settled(self, moment: Any) -> None: ...

    def set_theme(self, theme: str) -> None: ...


class PanelDefaults:
    """The calls of `Panel` a panel has no use for: each does nothing. A panel lists those it uses."""

    def run_loaded(self, run: Any) -> None:
        pass

    def run_grown(self, run: Any) -> None:
        pass

    def run_closed(self) -> None:
        pass

    def moment(self, moment: Any) -> None:
        pass

    def settled(self, moment: Any) -> None:
        pass

    def set_theme(self, theme: str) -> None:
        pass


def missing_calls(panel: object) -> list[str]:
    """The calls of `Panel` that `panel` lacks (each must be callable)."""
    return [name for name in PANEL_CALLS if not callable(getattr(type(panel), name, None))]


class PanelHub(QObject):
    """The window's panels, in one explicit order, told of what the session publishes."""

    def __init__(self, session, panels: Iterable[Panel] = (), parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.panels: list[Panel] = []
        for panel in panels:
            self.add(panel)
        session.run_loaded.connect(self.run_loaded)
        session.run_closed.connect(self.run_closed)
        session.moment_changed.connect(self.moment)
        session.moment_settled.connect(self.settled)
        session.selection_changed.connect(lambda index: self._tell("selection_changed", index))
        session.templates_changed.connect(lambda: self._tell("templates_changed"))
        session.stops_changed.connect(lambda: self._tell("stops_changed"))
        session.playing_changed.connect(lambda playing: self._tell("show_playing", playing))
        session.speed_changed.connect(lambda speed: self._tell("show_speed", speed))

    def add(self, panel: Panel) -> None:
        missing = missing_calls(panel)
        if missing:
            raise TypeError(f"{type(panel).__name__} is not a Panel: it lacks {', '.join(missing)}")
        if not any(panel is known for known in self.panels):
            self.panels.append(panel)

    def __contains__(self, panel: object) -> bool:
        return any(panel is known for known in self.panels)

    def run_loaded(self, run) -> None:
        for panel in list(self.panels):
            panel.run_loaded(run)

    def run_closed(self) -> None:
        for panel in list(self.panels):
            panel.run_closed()

    def moment(self, moment) -> None:
        for panel in list(self.panels):
            panel.moment(moment)

    def settled(self, moment) -> None:
        for panel in list(self.panels):
            panel.settled(moment)

    def set_theme(self, theme: str) -> None:
        for panel in list(self.panels):
            panel.set_theme(theme)

    def _tell(self, call: str, *args) -> None:
        assert call in OPTIONAL_CALLS, call
        for panel in list(self.panels):
            method = getattr(type(panel), call, None)
            if callable(method):
                getattr(panel, call)(*args)


def shown_alone(session, panel: Panel) -> Panel:
    """`panel` told of `session`'s news by a hub of its own (a panel outside the window: tests, a dialog); the hub
    lives as long as the panel."""
    PanelHub(session, [panel], parent=panel)  # type: ignore[arg-type]
    return panel
