"""The run facts at the cursor: how the run ended (running until it has; a followed file still being written is
running at its end), in the header and under the chat; the library's own cost estimate with a limit once hit,
in the header (app/run_end_words.py); and the header's figures (calls, tokens, time, errors) as known at the
cursor, the whole file's beside them (core/model/summary.py summary_at). A feature of the window's list."""

from __future__ import annotations

from afp_desktop.app.panels.panel import PanelDefaults
from afp_desktop.app.panels.run_end_words import TONE, cost_words, end_at, headline
from afp_desktop.core.model.summary import summary_at
from afp_desktop.core.views.run_facts import facts_of_run

LISTED = 12  # the latest findings the count's tooltip lists


class RunFactsHeader(PanelDefaults):
    key = "run_facts"

    def __init__(self, window) -> None:
        self.window = window
        self.session = window.session
        window.summary.findings.clicked.connect(lambda: window.action("show_findings").trigger())
        if self.session.moment is not None:
            self.show_moment(self.session.moment)

    def moment(self, moment) -> None:
        self.show_moment(moment)

    def run_closed(self) -> None:
        self.clear()

    def clear(self) -> None:
        self.window.summary.show_end("")
        self.window.summary.show_library_cost("")
        self.window.summary.show_findings(0)
        self.window.summary.show_known(None)

    def show_moment(self, moment) -> None:
        run = self.session.run
        if run is None:
            self.clear()
            return
        self.window.summary.show_known(summary_at(run, moment.position), len(moment.errors),
                                       f"event {moment.position:,} of {len(run.axis):,}")
        end = end_at(run, moment.position, live=self.window.follow.active)
        chat = self.window.panels.get("chat")
        if hasattr(chat, "show_end"):
            chat.show_end(end)
        if end is None:
            tip = "The run has not ended at the cursor."
            self.window.summary.show_end(headline(None), tip, "")
        else:
            tip = f"How the run ended (known from event {end.position:,}):\n{end.message}" \
                if end.position is not None else end.message
            self.window.summary.show_end(headline(end), tip, TONE.get(end.reason, ""))
        cost = cost_words(run, moment.position)
        self.window.summary.show_library_cost(cost.text, cost.tooltip)
        known = facts_of_run(run).findings.known(moment.position)
        listed = [f"event {f.position:,} · {f.kind}: {f.message}" for f in known[-LISTED:]]
        more = [f"… and {len(known) - LISTED:,} earlier"] if len(known) > LISTED else []
        self.window.summary.show_findings(len(known), "\n".join(
            ["What a reviewer must look at, known at the cursor (click for the Findings panel):", *more, *listed]))
