"""Resilience and findings as marks on the timeline, at the moment each became known and only from then on: an
orange ↻ under the stops for a retry, a recovery, a circuit-breaker change or a fallback, a purple ◆ above them
for a finding (the reviewer's list: panels/findings_panel.py). Marks that fall at one place share a marker whose
tooltip lists them all. The facts are core/views/resilience.py's and findings.py's; a feature of the window's
list."""

from __future__ import annotations

from afp_desktop.app.panels.panel import PanelDefaults
from afp_desktop.app.panels.timeline.timeline_canvas import Mark
from afp_desktop.core.model.timeline import x_of_position

RESILIENCE_COLOUR = "#c25e00"
FINDING_COLOUR = "#7b3fb5"
RESILIENCE_Y = -0.66   # under the stop markers, in the row of the pause marks
FINDING_Y = 0.68       # above the stop markers, in the row of the error crosses
LISTED = 12            # a shared marker's tooltip lists this many, then a count


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
        self._timeline = None
        self._drawn_for: tuple | None = None
        self._badges_shown: tuple | None = None
        window.timeline.when_built(self._attach)

    def _attach(self, panel) -> None:
        self._timeline = panel
        panel.stops_shown.connect(self.redraw)
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
        canvas = self._timeline.canvas
        canvas.set_marks("resilience", [Mark(x, RESILIENCE_Y, "retry", RESILIENCE_COLOUR, 10, tip,
                                             filled=False) for x, tip in zip(xs, tips)])
        xs, tips = grouped([(x_of_position(ends, f.position), f"Finding at event {f.position:,} ({f.kind}): "
                                                              f"{f.message}") for f in findings])
        canvas.set_marks("findings", [Mark(x, FINDING_Y, "d", FINDING_COLOUR, 9, tip)
                                      for x, tip in zip(xs, tips)])

    def _clear_timeline(self) -> None:
        self._drawn_for = None
        if self._timeline is not None:
            for layer in ("resilience", "findings"):
                self._timeline.canvas.set_marks(layer, [])

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
        for name in ("resilience", "findings"):
            out[name] = [mark.tip for mark in self._timeline.canvas.marks(name)] if self._timeline is not None else []
        return out
