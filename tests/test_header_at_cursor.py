"""The header's figures (calls, tokens, time, errors) are as known at the cursor, like how the run ended, its
cost and its findings beside them: one cursor, one moment. The whole file's figures stay in sight ("3 of 12")
and at the end the header is the whole file's summary."""

from __future__ import annotations

from afp_desktop.app.panels.banner import summary_parts
from afp_desktop.core.model.summary import summarize, summary_at
from afp_desktop.core.views.window_copy import whole_run
from tests.facts_run import facts_stream, halted_stream
from tests.test_window_facts import move, open_and_wait, write


def test_at_the_start_the_header_shows_only_what_was_known_then(qtbot, window, tmp_path):
    open_and_wait(qtbot, window, write(tmp_path, halted_stream(), "halted.ndjson"))
    run, summary = whole_run(window.session.run), window.summary
    whole = summarize(run)
    assert (whole.llm_calls, whole.errors) == (1, 1)
    move(window, 0)
    figures = summary.figures.full_text()
    assert "0 of 1 LLM call" in figures and f"tokens 0 of {whole.tokens_in:,} in" in figures
    assert "no model named yet" in figures and "m1" not in figures
    assert summary.errors.text() == "no errors yet (1 in the file)"
    (error,) = window.session.replay.facts.errors
    assert "1 more later in the file" in summary.errors.toolTip() and error.message not in summary.errors.toolTip()
    assert "As known at the cursor (event 0 of" in summary.figures.toolTip()
    assert "The whole file:" in summary.figures.toolTip()


def test_at_every_stop_the_figures_are_those_known_then(qtbot, window, tmp_path):
    open_and_wait(qtbot, window, write(tmp_path, facts_stream()))
    run, session, summary = whole_run(window.session.run), window.session, window.summary
    whole = summarize(run)
    for index in range(len(session.stops)):
        session.move_to_stop(index)
        session.flush()
        known = summary_at(run, session.position)
        figures = summary.figures.full_text()
        calls = f"{known.llm_calls:,}" + ("" if known.llm_calls == whole.llm_calls else f" of {whole.llm_calls:,}")
        assert f"{calls} LLM call" in figures, (index, figures)
        tokens = f"{known.tokens_out:,}" + ("" if known.tokens_out == whole.tokens_out else f" of {whole.tokens_out:,}")
        assert f"/ {tokens} out" in figures, (index, figures)


def test_at_the_end_the_header_is_the_whole_files_summary(qtbot, window, tmp_path):
    open_and_wait(qtbot, window, write(tmp_path, halted_stream(), "halted.ndjson"))
    run, summary = whole_run(window.session.run), window.summary
    (error,) = window.session.replay.facts.errors
    move(window, 5)
    assert " of " in summary.figures.full_text()
    move(window, len(run.axis))
    assert summary_at(run, len(run.axis)) == summarize(run)
    assert summary.figures.full_text() == "  ·  ".join(summary_parts(summarize(run), run.format_name))
    assert summary.errors.text() == "1 error"
    assert f"1. at event {error.position}: {error.message}" in summary.errors.toolTip()
