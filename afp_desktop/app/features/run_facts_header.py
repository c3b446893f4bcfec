"""The run facts at the cursor: how the run ended (running until it has; a followed file still being written is
running at its end), in the header and under the chat; the library's own cost estimate with a limit once hit,
in the header (app/run_end_words.py); and the header's figures (calls, tokens, time, errors) as known at the
cursor, the whole file's beside them (core/model/summary.py summary_at). A feature of the window's list."""

from __future__ import annotations

from afp_desktop.app.panels.notice_words import message_for
from afp_desktop.app.panels.panel import PanelDefaults
from afp_desktop.app.panels.run_end_words import TONE, cost_words, end_at, headline
from afp_desktop.core.model.summary import summary_at

LISTED = 12  # the latest findings the count's tooltip lists


class RunFactsHeader(PanelDefaults):
    key = "run_facts"

    def __init__(self, window) -> None:
        self.window = window
        self.session = window.session
        self._failure = None if self.session.run is None else self.failure_message(self.session.run)
        window.summary.findings.clicked.connect(lambda: window.action("show_findings").trigger())
        if self.session.moment is not None:
            self.show_moment(self.session.moment)

    def moment(self, moment) -> None:
        self.show_moment(moment)

    def run_loaded(self, run) -> None:
        self._failure = self.failure_message(run)

    def run_grown(self, run) -> None:
        self._failure = self.failure_message(run)

    @staticmethod
    def failure_message(run):
        """The banner's line saying the run failed, and why (None: it did not)."""
        notice = next((n for n in run.all_notices(check_payloads=False) if n.code == "failed"), None)
        return None if notice is None else message_for(notice.code, notice.text, notice.level)

    def show_failure(self, ended: bool) -> None:
        """The run's failure in the banner from the moment the run ended, never before (one cursor, one moment)."""
        banner, failure = self.window.banner, self._failure
        if failure is not None and ended and not banner.shows("failed") and not banner.was_dismissed("failed"):
            banner.add_message(failure)
        elif not (failure is not None and ended) and banner.shows("failed"):
            banner.remove_code("failed")

    def run_closed(self) -> None:
        self._failure = None
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
        self.show_failure(end is not None)
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
        from afp_desktop.core.views.run_facts import facts_of_run  # (imported with the first run, not the window)

        cost = cost_words(run, moment.position)
        self.window.summary.show_library_cost(cost.text, cost.tooltip)
        known = facts_of_run(run).findings.known(moment.position)
        listed = [f"event {f.position:,} · {f.kind}: {f.message}" for f in known[-LISTED:]]
        more = [f"… and {len(known) - LISTED:,} earlier"] if len(known) > LISTED else []
        self.window.summary.show_findings(len(known), "\n".join(
            ["What a reviewer must look at, known at the cursor (click for the Findings panel):", *more, *listed]))
