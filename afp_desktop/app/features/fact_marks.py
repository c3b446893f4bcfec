"""Resilience and findings as marks on the timeline, at the moment each became known and only from then on: an
orange ↻ under the stops for a retry, a recovery, a circuit-breaker change or a fallback, a purple ◆ above them
for a finding (the reviewer's list: panels/findings_panel.py). Marks that fall at one place share a marker whose
tooltip lists them all. The facts are core/views/resilience.py's and findings.py's; a feature of the window's
list (pyqtgraph only once the timeline's plots exist)."""

from __future__ import annotations

from PySide6.QtGui import QPainterPath

from afp_desktop.app.panels.panel import PanelDefaults
from afp_desktop.app.widgets.plain_text import plain_tooltip
from afp_desktop.core.model.timeline import x_of_position

RESILIENCE_COLOUR = "#c25e00"
FINDING_COLOUR = "#7b3fb5"
RESILIENCE_Y = -0.66   # under the stop markers, in the row of the pause marks
FINDING_Y = 0.68       # above the stop markers, in the row of the error crosses
LISTED = 12            # a shared marker's tooltip lists this many, then a count


def _retry_symbol() -> QPainterPath:
    """A circle open at the top right with an arrow head (↻), in pyqtgraph's unit square."""
    path = QPainterPath()
    path.arcMoveTo(-0.4, -0.4, 0.8, 0.8, 60)
    path.arcTo(-0.4, -0.4, 0.8, 0.8, 60, 300)
    path.moveTo(0.2, -0.5)
    path.lineTo(0.45, -0.3)
    path.lineTo(0.12, -0.18)
    return path


def grouped(xs_and_tips: list[tuple[float, str]]) -> tuple[list[float], list[str]]:
    """Marks at (nearly) one x share one marker; its tooltip lists them (LISTED, then "… N more")."""
    xs: list[float] = []
    tips: list[list[str]] = []
    for x, tip in xs_and_tips:
        if xs and abs(xs[-1] - x) < 0.05:
            tips[-1].append(tip)
        else:
            xs.append(x)
            tips.append([tip])
    joined = ["\n".join(t[:LISTED] + ([f"… {len(t) - LISTED} more"] if len(t) > LISTED else [])) for t in tips]
    return xs, joined


class FactMarks(PanelDefaults):
    key = "fact_marks"

    def __init__(self, window) -> None:
        self.window = window
        self.session = window.session
        self.resilience_markers = None  # made with the timeline's plots
        self.finding_markers = None
        self._timeline = None
        self._drawn_for: tuple | None = None
        self._badges_shown: tuple | None = None
        window.timeline.when_built(self._attach)

    def _attach(self, panel) -> None:
        import pyqtgraph as pg

        self._timeline = panel
        panel.stops_shown.connect(self.redraw)
        self.resilience_markers = pg.ScatterPlotItem(hoverable=True, pxMode=True,
                                                     tip=lambda x, y, data: plain_tooltip(data))
        self.finding_markers = pg.ScatterPlotItem(hoverable=True, pxMode=True,
                                                  tip=lambda x, y, data: plain_tooltip(data))
        for markers in (self.resilience_markers, self.finding_markers):
            markers.setZValue(6)
            panel.stop_plot.addItem(markers)
        self.redraw()

    # -- a panel's calls (app/panels/panel.py) --
    def run_loaded(self, _run) -> None:
        self.redraw()

    def run_grown(self, _run) -> None:
        self.redraw()

    def run_closed(self) -> None:
        self.redraw()

    def moment(self, _moment) -> None:
        self._draw()

    def redraw(self) -> None:
        self._drawn_for = None
        self._draw()

    def _draw(self) -> None:
        """The marks known at the cursor, on the cards and on the timeline (drawn anew only when that changes)."""
        run = self.session.run
        if run is None or self.session.moment is None:
            self._show_on_cards([], [])
            self._clear_timeline()
            return
        from afp_desktop.core.views.run_facts import facts_of_run  # (imported with the first run, not the window)

        facts = facts_of_run(run)
        position = self.session.position
        resilience, findings = facts.resilience.known(position), facts.findings.known(position)
        self._show_on_cards(resilience, findings)
        if self._timeline is None:
            return
        import pyqtgraph as pg

        ends = self._timeline.ends
        if not ends:
            self._clear_timeline()
            return
        spans = self.session.spans
        if len(self.session.breadcrumb) > 1 and spans:  # drilled in: the marks of its own stops only
            low, high = spans[0].start, spans[-1].end
            resilience = [e for e in resilience if low < e.position <= high]
            findings = [f for f in findings if low < f.position <= high]
        key = (run, id(ends), len(ends), len(resilience), len(findings))
        if key == self._drawn_for:
            return
        self._drawn_for = key
        xs, tips = grouped([(x_of_position(ends, e.position), f"{e.label} at event {e.position:,}: {e.text}")
                            for e in resilience])
        self.resilience_markers.setData(x=xs, y=[RESILIENCE_Y] * len(xs), size=10, symbol=_retry_symbol(),
                                        brush=pg.mkBrush(None), pen=pg.mkPen(RESILIENCE_COLOUR, width=2),
                                        data=tips)
        xs, tips = grouped([(x_of_position(ends, f.position), f"Finding at event {f.position:,} ({f.kind}): "
                                                              f"{f.message}") for f in findings])
        self.finding_markers.setData(x=xs, y=[FINDING_Y] * len(xs), size=9, symbol="d",
                                     brush=pg.mkBrush(FINDING_COLOUR), pen=pg.mkPen(FINDING_COLOUR, width=1),
                                     data=tips)

    def _clear_timeline(self) -> None:
        self._drawn_for = None
        if self._timeline is not None:
            self.resilience_markers.setData([])
            self.finding_markers.setData([])

    def _show_on_cards(self, resilience, findings) -> None:
        """A pill on each card with retries or findings known at the cursor: "↻ 2 · ◆ 3"."""
        canvas = self.window.canvas
        to_shown = self.window.folding.to_shown  # (the run's steps → the cards drawn: folds, framework steps)
        counts: dict[int, list[int]] = {}
        for marks, k in ((resilience, 0), (findings, 1)):
            for mark in marks:
                card = to_shown(mark.node) if mark.node is not None else None
                if card is not None:
                    counts.setdefault(card, [0, 0])[k] += 1
        badges = {card: " · ".join(part for part in (f"↻ {r}" if r else "", f"◆ {f}" if f else "") if part)
                  for card, (r, f) in counts.items()}
        key = (id(canvas.art), badges)
        if key != self._badges_shown:
            self._badges_shown = key
            canvas.set_fact_badges(badges)

    @property
    def shown(self) -> dict[str, list[str]]:
        """The tooltips of the marks drawn, by kind: for tests."""
        out: dict[str, list[str]] = {}
        for name, markers in (("resilience", self.resilience_markers), ("findings", self.finding_markers)):
            out[name] = list(markers.data["data"]) if markers is not None and len(markers.data) else []
        return out
