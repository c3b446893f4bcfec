"""Iteration bands and the readout on the timeline (iteration_bands.py), made once the timeline is built (after the
window's first frame): a feature of the window's list."""

from __future__ import annotations

from afp_desktop.app.panels.panel import PanelDefaults


class IterationOrientation(PanelDefaults):
    key = "iteration_bands"

    def __init__(self, window) -> None:
        self.window = window
        self.bands = None  # IterationBands, once the timeline's plots are built
        window.timeline.when_built(self._build)

    def _build(self, panel) -> None:
        from afp_desktop.app.features.iteration_bands import IterationBands

        window = self.window
        self.bands = IterationBands(window, panel)
        self.bands.set_theme(window.theme)
        if window.session.run is not None:
            self.bands.redraw()

    # -- a panel's calls (app/panels/panel.py): the bands follow once the timeline's plots are built --
    def run_closed(self) -> None:
        if self.bands is not None:
            self.bands.clear()

    def moment(self, moment) -> None:
        if self.bands is not None:
            self.bands.moment(moment)

    def set_theme(self, theme: str) -> None:
        if self.bands is not None:
            self.bands.set_theme(theme)

    def run_grown(self, _run) -> None:
        if self.bands is not None and len(self.window.session.breadcrumb) == 1:
            self.bands.redraw()
