"""Stepping stop by stop through a run with retries, a circuit breaker and a fallback, guards on a tool call, an
integrity finding and a cost budget that stopped it (tests/facts_run.py, from the library's event catalogue): at
each stop the header, the bubble, the Findings panel, the timeline's marks and the inspector say what had happened
by then and nothing later. Screenshots of a few stops are written where AFP_SHOTS names (else the test's tmp
directory) to be looked at."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from PySide6.QtWidgets import QAbstractButton, QApplication, QLabel, QTreeWidget, QWidget

from afp_desktop.app.panels.run_end_words import cost_words, headline
from afp_desktop.app.panels.stop_lines import StopLines
from afp_desktop.core.model.summary import summary_at
from afp_desktop.core.views.run_facts import facts_of_run
from afp_desktop.core.views.window_copy import whole_run
from tests.facts_run import facts_stream, halted_stream
from tests.test_window_facts import built_timeline, open_and_wait, write
from tests.inspector_reading import read


def shown_texts(widget: QWidget) -> list[str]:
    """Every text a person can read in `widget` and its tooltips: labels, buttons, painted line lists, tree rows."""
    texts: list[str] = []
    for child in [widget, *widget.findChildren(QWidget)]:
        if not child.isVisibleTo(widget) and child is not widget:
            continue
        if isinstance(child, QLabel | QAbstractButton):
            texts.append(child.text())
        if isinstance(child, StopLines):
            texts.append(child.accessible_text())
        if isinstance(child, QTreeWidget):
            for row in range(child.topLevelItemCount()):
                item = child.topLevelItem(row)
                texts.extend(item.text(c) for c in range(child.columnCount()))
        texts.append(child.toolTip())
    return [text for text in texts if text]


def first_told(run, errors) -> dict[str, int]:
    """Each fact's words (a finding's message, a retry's or fallback's text, an error's message, how the run
    ended) → where the run first told them."""
    facts = facts_of_run(run)
    end = run.run_ends.final
    told: dict[str, int] = {}
    for position, words in [(f.position, f.message) for f in facts.findings.all] + \
                           [(e.position, e.text) for e in facts.resilience.all] + \
                           [(e.position, e.message) for e in errors] + \
                           ([(end.position, end.message)] if end.position is not None else []):
        told[words] = min(position, told.get(words, position))
    return told


def shots_directory(tmp_path: Path) -> Path:
    chosen = Path(os.environ.get("AFP_SHOTS") or tmp_path)
    chosen.mkdir(parents=True, exist_ok=True)
    return chosen


@pytest.mark.parametrize("stream", [facts_stream, halted_stream])
def test_each_stop_tells_what_had_happened_by_then_and_nothing_later(qtbot, window, tmp_path, stream):
    open_and_wait(qtbot, window, write(tmp_path, stream()))
    built_timeline(qtbot, window)
    window.action("show_findings").trigger()
    session, run, summary = window.session, window.session.run, window.summary
    chat, findings_panel, inspector = window.panels["chat"], window.panels["findings"], window.panels["inspector"]
    marks, facts = window.features["fact_marks"], facts_of_run(run)
    steps = whole_run(run).step_fold.nodes
    errors = session.replay.facts.errors
    told = first_told(run, errors)
    end = run.run_ends.final
    shots = shots_directory(tmp_path)
    resilient_steps_seen: set[int] = set()
    for index in range(len(session.stops)):
        session.move_to_stop(index)
        session.flush()
        read(qtbot, inspector)
        inspector.readable.flush()
        position = session.position
        known_findings = facts.findings.known(position)
        known_resilience = facts.resilience.known(position)
        # the header: figures, how the run ended, the cost and the findings as known at the cursor
        figures = summary_at(run, position)
        assert f"tokens {figures.tokens_in:,}" in summary.figures.full_text()
        ended = end.position is not None and end.position <= position
        assert summary.run_end.text() == headline(end if ended else None), index
        known_errors = [e for e in errors if e.position <= position]
        assert summary.errors.text().startswith(f"{len(known_errors)} " if known_errors else "no errors"), index
        assert summary.library_cost.text() == cost_words(run, position).text
        assert summary.findings.isVisibleTo(summary) == bool(known_findings)
        if known_findings:
            assert summary.findings.text().startswith(f"{len(known_findings)} finding")
        # the bubble: the run's end only once it has ended
        assert chat.end_note.isVisibleTo(chat) == ended, index
        # the Findings panel: known rows are the findings known; the others are marked later
        rows = findings_panel.rows()
        assert [known for known, _ in rows] == [f.position <= position for f in facts.findings.all], index
        # the timeline: a mark for each fact known, none for one to come
        assert sum(tip.count("Finding at") for tip in marks.shown["findings"]) == len(known_findings), index
        assert sum(tip.count(" at event ") for tip in marks.shown["resilience"]) == len(known_resilience), index
        # the inspector (of the step at the cursor): its retries, fallbacks and findings known by then
        shown_step = inspector.tabs.isVisibleTo(inspector)  # (no step at the cursor: nothing inspected)
        step = inspector.node_index if shown_step else -1
        if facts.resilience.of_step(step, position):
            resilient_steps_seen.add(step)
        readable = "\n".join(inspector.readable.section_texts().values())
        for fact in facts.resilience.of_step(step, position):
            assert fact.text in readable, (index, fact.text)
        for finding in known_findings:
            if finding.node == step:
                assert finding.message in readable, (index, finding.message)
        # the graph: a card still to come says neither its answer nor its model; a running one not its answer
        art = window.canvas.art
        for card, node in enumerate(steps):  # (as the engine holds them: the window's copy has no answers)
            drawn = " ".join(text for text in art.card_texts(card) if isinstance(text, str))
            if card >= art.started or card in art.active:
                assert not (node.get("assistantText") and node["assistantText"] in drawn), (index, card, drawn)
            if card >= art.started:
                assert not (node.get("llmModel") and node["llmModel"] in drawn), (index, card, drawn)
        # nothing later anywhere: no panel says a fact's words before the run told them
        seen = {
            "header": "\n".join(shown_texts(summary)),
            "bubble": "\n".join(shown_texts(chat)),
            "findings panel": "\n".join(text for text in shown_texts(findings_panel.summary)),
            "timeline marks": "\n".join(marks.shown["findings"] + marks.shown["resilience"]),
            "inspector": "\n".join(shown_texts(inspector) + (list(inspector.readable.section_texts().values())
                                                              if shown_step else [])),
        }
        for words, at in told.items():
            if at > position:
                for where, text in seen.items():
                    assert words not in text, f"stop {index} (event {position}): {where} tells {words!r} of event {at}"
        for dock in ("findings", "inspector"):  # (each stop seen with either in front)
            window.docks[dock].raise_()
            inspector.readable.flush()
            for _ in range(3):  # (the layouts the move asked for, as the event loop would run them)
                QApplication.processEvents()
            window.grab().save(str(shots / f"{stream.__name__}-{index:02d}-{dock}.png"))
        inspector.readable.widget().grab().save(str(shots / f"{stream.__name__}-{index:02d}-readable.png"))
    assert resilient_steps_seen, "the walk passed the step with the retries"


def test_the_inspectors_header_holds_no_gaps_at_any_stop(qtbot, window, tmp_path):
    """The header is as tall as its rows at its width: a wrapping title's size hint (its text at a narrow width,
    three lines) made it taller, and the extra height stood as gaps between the title and the rows."""
    open_and_wait(qtbot, window, write(tmp_path, facts_stream()))
    window.docks["inspector"].raise_()
    session, inspector = window.session, window.panels["inspector"]
    title = inspector.title
    checked = 0
    for index in range(len(session.stops)):
        session.move_to_stop(index)
        session.flush()
        read(qtbot, inspector)
        for _ in range(3):  # (the layouts the move asked for, as the event loop would run them)
            QApplication.processEvents()
        if title.isVisibleTo(inspector):  # (no step at the cursor: no header)
            assert title.height() == title.heightForWidth(title.width()), (index, title.text())
            checked += 1
    assert checked >= len(session.stops) - 1


def test_the_banner_says_the_run_failed_only_from_the_moment_it_did(qtbot, window, tmp_path):
    """A permission halt ends the run with an error: the banner's "The run failed: …" line comes with that moment,
    not at the first stop; moving back takes it away, moving to the end brings it back."""
    path = write(tmp_path, halted_stream())
    open_and_wait(qtbot, window, path)
    session = window.session
    session.move_to(len(session.run.axis), immediate=True)
    assert [text for text in window.banner.texts if text.startswith("The run failed: ")], window.banner.texts
    session.move_to_stop(0)
    session.flush()
    assert not any(text.startswith("The run failed: ") for text in window.banner.texts), window.banner.texts
    session.move_to(len(session.run.axis), immediate=True)
    assert any(text.startswith("The run failed: PolicyHaltError") for text in window.banner.texts)
