"""The window tells what a run holds beyond its steps, each fact only from its moment on: the Findings panel, how
the run ended (header and bubble), the library's cost and budget in the header, resilience and findings marked
on the timeline, the thinking stream beside the answer, and a timeline that draws nothing still to come."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6.QtCore import Qt

from afp_desktop.app.panels.run_end_words import cost_so_far, cost_words, end_at, headline
from afp_desktop.core.views.run_facts import cost_usd, facts_of_run
from afp_desktop.core.views.window_copy import whole_run
from tests.answers_util import events_in_the_engine
from tests.facts_run import Stream, facts_stream, halted_stream, paused_stream, start, thinking_stream

LOAD_TIMEOUT = 30_000


def write(tmp_path, stream: Stream, name: str = "run.ndjson"):
    path = tmp_path / name
    path.write_bytes(stream.ndjson())
    return path


def open_and_wait(qtbot, window, path) -> None:
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        window.open_file(str(path))
    window.session.flush()


def move(window, position: int) -> None:
    window.session.move_to(position, immediate=True)
    window.session.flush()


# ── the Findings panel ────────────────────────────────────────────────────────────────────────────────────────


def test_findings_are_listed_known_only_from_their_moment(qtbot, window, tmp_path):
    open_and_wait(qtbot, window, write(tmp_path, facts_stream()))
    panel = window.panels["findings"]
    findings = facts_of_run(window.session.run).findings.all
    assert [message for _known, message in panel.rows()] == [f.message for f in findings]
    assert all(known for known, _message in panel.rows())  # (opened at its end: every one has happened)
    integrity = next(f for f in findings if f.kind == "integrity.context_error")
    move(window, integrity.position - 1)
    rows = panel.rows()
    assert [known for known, _ in rows] == [f.position < integrity.position for f in findings]
    assert "later" in panel.tree.topLevelItem(findings.index(integrity)).text(0)
    assert f"{sum(f.position < integrity.position for f in findings)} findings known" in panel.summary.text()
    move(window, integrity.position)
    assert dict((m, k) for k, m in panel.rows())[integrity.message]


def test_future_findings_are_hidden_when_future_steps_are_hidden(qtbot, window, tmp_path):
    open_and_wait(qtbot, window, write(tmp_path, facts_stream()))
    panel = window.panels["findings"]
    first = facts_of_run(window.session.run).findings.all[0]
    move(window, first.position)
    window.action("future_hide").trigger()
    assert [known for known, _ in panel.rows()] == [True]
    window.action("future_dim").trigger()
    assert len(panel.rows()) == len(facts_of_run(window.session.run).findings.all)


def test_a_click_on_a_finding_moves_the_cursor_there_and_selects_its_step(qtbot, window, tmp_path):
    open_and_wait(qtbot, window, write(tmp_path, facts_stream()))
    panel = window.panels["findings"]
    findings = facts_of_run(window.session.run).findings.all
    denied = next(f for f in findings if f.kind == "permission.check")
    move(window, 0)
    window.action("show_findings").trigger()
    assert window.docks["findings"].isVisible()
    item = panel.tree.topLevelItem(findings.index(denied))
    qtbot.waitUntil(lambda: panel.tree.viewport().isVisible() and panel.tree.visualItemRect(item).isValid())
    panel.tree.scrollToItem(item)
    rect = panel.tree.visualItemRect(item)
    qtbot.mouseClick(panel.tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    window.session.flush()
    assert window.session.position == denied.position
    assert window.session.selected == denied.node
    assert window.session.run.step_fold.nodes[denied.node]["toolName"] == "scan_repo"


# ── how the run ended, and what it cost ───────────────────────────────────────────────────────────────────────


def test_the_header_and_the_bubble_say_how_the_run_ended_once_it_has(qtbot, window, tmp_path):
    open_and_wait(qtbot, window, write(tmp_path, facts_stream()))
    run, summary, chat = window.session.run, window.summary, window.panels["chat"]
    end = run.run_ends.final
    assert end.reason == "budget"
    move(window, end.position - 1)
    assert summary.run_end.text() == "▶ running at the cursor"
    assert not chat.end_note.isVisibleTo(chat)
    move(window, end.position)
    assert summary.run_end.text() == "■ stopped by a budget"
    assert "2 tool call(s) never ran" in summary.run_end.toolTip()
    assert chat.end_note.isVisibleTo(chat) and "Stopped by the cost budget of 0.005" in chat.end_note.text()
    assert chat.answer_row.bubble.label.text() == "(an empty answer)"  # (not an empty green blob)
    assert "stopped by a budget" in summary.text


def test_halted_paused_and_cut_runs_say_so(qtbot, window, tmp_path):
    chat, summary = window.panels["chat"], window.summary
    open_and_wait(qtbot, window, write(tmp_path, halted_stream(), "halted.ndjson"))
    assert summary.run_end.text() == "■ halted by a permission policy"
    assert "delete_repo" in chat.end_note.text() and "destructive tools" in chat.end_note.text()
    open_and_wait(qtbot, window, write(tmp_path, paused_stream(), "paused.ndjson"))
    assert summary.run_end.text() == "⏸ paused for a person"
    assert "Refund $42.99 for order #123?" in summary.run_end.toolTip()
    cut = facts_stream()
    cut.events = cut.events[:20]
    open_and_wait(qtbot, window, write(tmp_path, cut, "cut.ndjson"))
    assert summary.run_end.text() == "? how it ended is not in the file"
    assert "ends before the run does" in chat.end_note.text()
    move(window, 10)
    assert summary.run_end.text() == "▶ running at the cursor" and not chat.end_note.isVisibleTo(chat)


def test_the_header_shows_the_librarys_cost_and_the_limit_once_hit(qtbot, window, tmp_path):
    open_and_wait(qtbot, window, write(tmp_path, facts_stream()))
    run, summary = window.session.run, window.summary
    ticks = facts_of_run(run).costs
    limit = next(f for f in facts_of_run(run).findings.all if f.kind == "cost.limit_hit")
    move(window, ticks[0].position - 1)
    assert not summary.library_cost.isVisibleTo(summary)
    move(window, ticks[0].position)
    assert summary.library_cost.text() == "cost $0.0021"
    assert "user → llm (iteration 1): $0.0021" in summary.library_cost.toolTip()
    move(window, limit.position - 1)
    assert summary.library_cost.text() == "cost $0.0061"
    move(window, limit.position)
    assert summary.library_cost.text() == "cost $0.0061 · limit $0.0050 hit"
    assert "tool → llm (iteration 2): $0.0040" in summary.library_cost.toolTip()
    assert "The cost limit was reached" in summary.library_cost.toolTip()


def test_the_cost_words_come_from_the_prepared_facts_not_the_events():
    """The header's cost and limit are read from the facts the engine prepared: the same words for a run whose
    events the window's thread may not read."""
    real = facts_stream().run()
    held = events_in_the_engine(facts_stream().run())
    said = [cost_words(held, position) for position in range(len(real.axis) + 1)]
    assert said == [cost_words(real, position) for position in range(len(real.axis) + 1)]
    assert said[-1].text == "cost $0.0061 · limit $0.0050 hit"


# ── the thinking stream ───────────────────────────────────────────────────────────────────────────────────────


def test_the_thinking_stream_shows_beside_the_answer_as_it_arrived(qtbot, window, tmp_path):
    stream = thinking_stream()
    open_and_wait(qtbot, window, write(tmp_path, stream))
    run, chat = window.session.run, window.panels["chat"]
    chunks = facts_of_run(run).thinking
    move(window, chunks[0].position - 1)
    assert not chat.thinking_row.isVisibleTo(chat)
    move(window, chunks[0].position)
    assert chat.thinking_row.isVisibleTo(chat) and chat.thinking_row.bubble.label.text() == "The user "
    move(window, chunks[1].position)
    assert chat.thinking_row.bubble.label.text() == "The user wants a "
    move(window, len(run.axis))
    assert chat.thinking_row.bubble.label.text() == "The user wants a refund."
    assert "3 chunks" in chat.thinking_row.caption.text()
    assert chat.answer_row.bubble.label.text() == "Done."


# ── the timeline: marks at their moment, nothing drawn before it is known ───────────────────────────────────────


def built_timeline(qtbot, window):
    window.timeline.build_when_ready()
    qtbot.waitUntil(lambda: window.timeline.built)
    window.session.flush()
    return window.timeline.panel


def test_resilience_and_findings_are_marked_on_the_timeline_from_their_moment(qtbot, window, tmp_path):
    open_and_wait(qtbot, window, write(tmp_path, facts_stream()))
    built_timeline(qtbot, window)
    marks, facts = window.features["fact_marks"], facts_of_run(window.session.run)
    retry = facts.resilience.all[0]
    move(window, retry.position - 1)
    assert marks.shown == {"resilience": [], "findings": []}
    move(window, retry.position)
    assert marks.shown["resilience"] == [f"retry after attempt 1 of 3 at event {retry.position}: failed: 503 "
                                         "Service Unavailable; waited 200 ms before the next attempt (transient)"]
    fallback = next(e for e in facts.resilience.all if e.kind == "fallback.triggered")
    move(window, fallback.position)
    tips = "\n".join(marks.shown["resilience"])
    assert "circuit breaker open" in tips and "anthropic → openai: circuit open" in tips
    assert marks.shown["findings"] == []
    move(window, len(window.session.run.axis))
    listed = "\n".join(marks.shown["findings"])
    assert all(f.message in listed for f in facts.findings.all)
    assert "output fallback" in "\n".join(marks.shown["resilience"])


def test_an_errors_cross_appears_only_once_the_error_is_known(qtbot, window, tmp_path):
    open_and_wait(qtbot, window, write(tmp_path, halted_stream()))
    panel = built_timeline(qtbot, window)
    (error,) = window.session.replay.facts.errors
    move(window, error.position - 1)
    assert panel.error_positions == [] and panel.canvas.marks("errors") == []
    move(window, error.position)
    assert len(panel.error_positions) == 1
    (cross,) = panel.canvas.marks("errors")
    assert cross.x == panel.error_positions[0] and cross.tip.startswith(f"Error at event {error.position}: ")


def test_bars_show_only_what_has_happened_at_the_cursor(qtbot, window, tmp_path):
    stream = facts_stream()
    open_and_wait(qtbot, window, write(tmp_path, stream))
    panel = built_timeline(qtbot, window)
    run = window.session.run
    labels = [span.label for span in window.session.spans]
    tool, llm2 = float(labels.index("Tool call 1")), float(labels.index("LLM turn 2"))
    figures = run.views.stop_figures
    assert figures.tool_ms[int(tool)] > 0 and figures.tokens_in[int(llm2)] > 0
    tool_start = next(j for j, e in enumerate(whole_run(run).typed_events) if e["type"].endswith("stream.tool_start"))
    move(window, run.axis.typed_after[tool_start])  # the tool is running
    assert panel.shown_figure(int(tool)) == (0, 0, 0)  # not its final height
    assert tool in panel.running_stops  # drawn as running
    assert panel.shown_figure(int(llm2)) is None  # a later turn: hidden, not dimmed
    move(window, len(run.axis))
    assert panel.shown_figure(int(tool))[2] == figures.tool_ms[int(tool)]
    assert panel.shown_figure(int(llm2))[0] == figures.tokens_in[int(llm2)]
    assert tool not in panel.running_stops


def test_a_run_of_very_many_findings_lists_the_first_and_counts_them_all(qtbot, window, tmp_path, monkeypatch):
    from afp_desktop.app.panels import findings_panel

    monkeypatch.setattr(findings_panel, "MAX_LISTED", 5)
    open_and_wait(qtbot, window, write(tmp_path, facts_stream()))
    panel = window.panels["findings"]
    total = len(facts_of_run(window.session.run).findings.all)
    assert panel.tree.topLevelItemCount() == 5
    assert f"{total} findings known" in panel.summary.text() and f"the first 5 of {total}" in panel.summary.text()


def test_a_findings_row_is_as_tall_as_its_wrapped_message(qtbot, window, tmp_path):
    from PySide6.QtCore import QRect
    from PySide6.QtGui import QFontMetrics

    open_and_wait(qtbot, window, write(tmp_path, facts_stream()))
    window.apply_theme("dark")  # (the theme change lays the panel out again)
    window.action("show_findings").trigger()
    panel = window.panels["findings"]
    tree = panel.tree
    qtbot.waitUntil(lambda: tree.viewport().isVisible() and tree.viewport().width() > 100)
    width = tree.viewport().width() - tree.columnWidth(0) - 10
    metrics = QFontMetrics(tree.font())
    for row in range(tree.topLevelItemCount()):
        item = tree.topLevelItem(row)
        needed = metrics.boundingRect(QRect(0, 0, width, 100_000), int(Qt.TextFlag.TextWordWrap), item.text(1))
        assert tree.visualItemRect(item).height() >= needed.height()  # nothing of the message is cut
        assert tree.visualItemRect(item).height() <= needed.height() + 4 * metrics.height()  # nor an empty box


def test_no_call_is_drawn_running_at_the_end_of_a_finished_run(qtbot, window, tmp_path):
    open_and_wait(qtbot, window, write(tmp_path, halted_stream()))  # (its tool never returned: the policy halted)
    panel = built_timeline(qtbot, window)
    labels = [span.label for span in window.session.spans]
    tool = labels.index("Tool call")
    move(window, window.session.run.run_ends.final.position - 1)
    assert float(tool) in panel.running_stops  # running while the run was
    move(window, len(window.session.run.axis))
    assert panel.running_stops == []


def test_a_run_without_findings_says_so_without_an_empty_list(qtbot, window, tmp_path):
    open_and_wait(qtbot, window, write(tmp_path, paused_stream()))
    window.action("show_findings").trigger()
    panel = window.panels["findings"]
    assert "No findings in this run" in panel.summary.text() and not panel.tree.isVisibleTo(panel)
    open_and_wait(qtbot, window, write(tmp_path, facts_stream(), "facts.ndjson"))
    assert panel.tree.isVisibleTo(panel) and panel.tree.topLevelItemCount() > 0


def test_a_followed_run_lists_and_marks_its_new_findings_and_its_end(qtbot, window, tmp_path):
    lines = [line + b"\n" for line in facts_stream().ndjson().split(b"\n") if line.strip()]
    path = tmp_path / "live.ndjson"
    path.write_bytes(b"".join(lines[:20]))
    window.open_file(path, follow=True)

    def typed() -> int:
        run = window.session.run
        return len(run.typed_events) if run is not None and run.typed_events is not None else -1

    qtbot.waitUntil(lambda: window.follow.active and typed() == 20 and window.timeline.built, timeout=10_000)
    panel = window.panels["findings"]
    before = panel.tree.topLevelItemCount()
    assert window.summary.run_end.text() == "▶ running at the cursor"
    with open(path, "ab") as handle:
        handle.write(b"".join(lines[20:]))
    qtbot.waitUntil(lambda: typed() == len(lines), timeout=5_000)
    window.follow.growth.catch_up(now=True)
    window.session.flush()
    findings = facts_of_run(window.session.run).findings.all
    assert panel.tree.topLevelItemCount() == len(findings) > before
    assert window.session.position == len(window.session.run.axis)  # (the cursor follows the live end)
    assert all(known for known, _ in panel.rows())
    assert len("\n".join(window.features["fact_marks"].shown["findings"]).split("Finding at")) - 1 == len(findings)
    assert window.summary.run_end.text() == "■ stopped by a budget"


def test_the_header_counts_the_findings_known_and_opens_their_panel(qtbot, window, tmp_path):
    open_and_wait(qtbot, window, write(tmp_path, facts_stream()))
    findings = facts_of_run(window.session.run).findings.all
    summary = window.summary
    move(window, findings[0].position - 1)
    assert not summary.findings.isVisibleTo(summary)
    move(window, findings[1].position)
    assert summary.findings.text() == "2 findings" and findings[1].message in summary.findings.toolTip()
    window.docks["inspector"].raise_()
    qtbot.mouseClick(summary.findings, Qt.MouseButton.LeftButton)
    assert window.panels["findings"].isVisible()


# ── hostile payloads ──────────────────────────────────────────────────────────────────────────────────────────

ANY_VALUE = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
                      st.text(max_size=20), st.lists(st.integers(), max_size=3),
                      st.dictionaries(st.text(max_size=5), st.integers(), max_size=2))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(usd=ANY_VALUE, cumulative=ANY_VALUE, kind=ANY_VALUE, limit=ANY_VALUE, content=ANY_VALUE)
def test_hostile_cost_and_limit_payloads_give_plain_words(usd, cumulative, kind, limit, content):
    s = Stream()
    start(s)
    s.add("stream.llm_start", "call-llm#1", iteration=1, provider="p", model="m")
    s.add("stream.thinking_delta", "consumer-emit#0", iteration=1, content=content)
    s.add("stream.llm_end", "call-llm#1", iteration=1, content="ok", toolCallCount=0, usage={"input": 1})
    s.add("cost.tick", "call-llm#1", estimatedUsd=usd, cumulative={"estimatedUsd": cumulative})
    s.add("cost.limit_hit", "route#2", kind=kind, limit=limit, actual=usd, action="abort")
    run = s.run()
    for position in (0, len(run.axis) // 2, len(run.axis)):
        assert cost_so_far(facts_of_run(run), position) == cost_usd(run, position)
        words = cost_words(run, position)
        assert isinstance(words.text, str) and isinstance(words.tooltip, str)
        assert "inf" not in words.text.replace("info", "") and "nan" not in words.text
        assert isinstance(headline(end_at(run, position)), str)


def test_the_facts_of_a_run_do_not_keep_it_alive():
    import gc
    import weakref

    run = facts_stream().run()
    facts = facts_of_run(run)
    assert facts.as_json(run)["end"]["reason"] == "budget"
    gone = weakref.ref(run)
    del run
    gc.collect()
    assert gone() is None


def test_a_pause_mark_is_drawn_only_once_the_pause_has_happened(qtbot, window):
    from tests.corpus_util import corpus_path

    open_and_wait(qtbot, window, corpus_path("06-pause-resume", "events.ndjson"))
    built_timeline(qtbot, window)
    pauses = window.features["pauses"]
    (mark,) = pauses.marks
    move(window, mark.position - 1)
    assert pauses.shown == []
    move(window, mark.position)
    assert len(pauses.shown) == 1


def test_a_cards_pill_counts_its_retries_and_findings_known_at_the_cursor(qtbot, window, tmp_path):
    open_and_wait(qtbot, window, write(tmp_path, facts_stream()))
    facts = facts_of_run(window.session.run)
    canvas, to_shown = window.canvas, window.folding.to_shown
    llm = to_shown(facts.resilience.all[0].node)
    move(window, facts.resilience.all[0].position - 1)
    assert canvas.art.fact_badges == {}
    move(window, facts.resilience.all[1].position)
    assert canvas.art.fact_badges == {llm: "↻ 2"}
    first = facts.findings.all[0]
    move(window, first.position)
    assert canvas.art.fact_badges[to_shown(first.node)] == "◆ 1"
    move(window, len(window.session.run.axis))
    assert canvas.art.fact_badges[llm] == "↻ 4"
    assert sum(int(part.split()[-1]) for text in canvas.art.fact_badges.values() for part in text.split(" · ")
               if part.startswith("◆")) == sum(f.node is not None for f in facts.findings.all)
