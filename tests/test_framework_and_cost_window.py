"""The window's two issue-15 orientation items, driven as a user would: View ▸ Hide framework steps (its chip, its
key, the setting, the cursor rule) and View ▸ Token prices… (the dialog's checks, cost on a subflow box, the
inspector and the header only once the calls ended)."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from afp_desktop.app.features.price_table import DEFAULT_ROW, PriceDialog
from afp_desktop.app.storage.settings import Settings
from afp_desktop.core.model.framework_steps import FRAMEWORK_KIND, framework_steps
from afp_desktop.core.views.cost import parse_price_table
from afp_desktop.core.views.window_copy import whole_run
from tests.corpus_util import corpus_path
from tests.inspector_reading import read

LOAD_TIMEOUT = 20_000
PRICES = {"default": {"input": 3, "output": 15}, "models": {"mock": {"input": 0.5, "output": 1.5}}}


def open_and_wait(qtbot, window, path) -> None:
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        window.open_file(path)
    window.session.flush()
    window.canvas.finish_building()


def drawn_kinds(window) -> list[str]:
    return [str(n.get("kind")) for n in window.canvas.art.nodes]


# ---------------------------------------------------------------------------------------- framework steps


def test_the_chip_says_what_is_hidden_only_when_its_tooltip_is_asked_for(qtbot, window, monkeypatch):
    """Listing the 1,000-iteration run's 5,006 hidden steps took ~5 ms of each big run shown, for a tooltip."""
    from PySide6.QtCore import QEvent, QPoint
    from PySide6.QtGui import QHelpEvent

    from afp_desktop.app.features import framework_toggle

    calls: list[int] = []
    describe = framework_toggle.describe_hidden
    monkeypatch.setattr(framework_toggle, "describe_hidden", lambda *a: (calls.append(1), describe(*a))[1])
    open_and_wait(qtbot, window, corpus_path("02-react-two-tools", "trace.json"))
    chip = window.features["framework"].chip
    assert chip.isVisible() and calls == []
    QApplication.sendEvent(chip, QHelpEvent(QEvent.Type.ToolTip, QPoint(5, 5), chip.mapToGlobal(QPoint(5, 5))))
    assert "sf-injection-engine ×3" in chip.property("toolTip") and calls == [1]
    assert "sf-injection-engine ×3" in chip.toolTip() and calls == [1], "made once"


def test_hidden_by_default_with_a_chip_that_counts_them_and_shows_them_on_click(qtbot, window):
    open_and_wait(qtbot, window, corpus_path("02-react-two-tools", "trace.json"))
    run = window.session.run
    steps = len(run.stepgraph["nodes"])
    assert window.folding.hide_framework and FRAMEWORK_KIND not in drawn_kinds(window)
    assert len(window.canvas.node_items) == steps
    chip = window.features["framework"].chip
    assert chip.isVisible() and chip.text() == "⚙ 16 framework steps hidden" and chip.count == 16
    assert "sf-injection-engine ×3" in chip.toolTip()
    # the chip lies over the graph's bottom-left corner, inside the view
    assert window.canvas.viewport().geometry().contains(chip.geometry())
    qtbot.mouseClick(chip, Qt.MouseButton.LeftButton)
    window.canvas.finish_building()
    assert not chip.isVisible()
    assert drawn_kinds(window).count(FRAMEWORK_KIND) == 16 and len(window.canvas.node_items) == steps + 16
    hide = window.action("hide_framework")
    assert not hide.isChecked()
    assert Settings().get("hide_framework_steps") is False  # remembered
    # the key brings the chip back
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=3000)
    qtbot.keyClick(window, Qt.Key.Key_H, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert hide.isChecked() and chip.isVisible() and len(window.canvas.node_items) == steps
    assert Settings().get("hide_framework_steps") is True


def test_the_choice_is_read_from_the_settings(qtbot):
    settings = Settings()
    settings.set("hide_framework_steps", False)
    settings.save()
    from afp_desktop.app.shell.main_window import MainWindow

    win = MainWindow()
    qtbot.addWidget(win)
    win.resize(1400, 900)
    win.show()
    try:
        assert win.folding.hide_framework is False
        open_and_wait(qtbot, win, corpus_path("07-flow-sequence", "trace.json"))
        assert drawn_kinds(win).count(FRAMEWORK_KIND) == 15 and not win.features["framework"].chip.isVisible()
    finally:
        win.loader.abandon()
        win.loader.wait()


def test_shown_the_cursor_inside_a_framework_step_rings_it_and_a_click_goes_there(qtbot, window):
    window.settings.set("hide_framework_steps", False)
    window.action("hide_framework").setChecked(False)
    open_and_wait(qtbot, window, corpus_path("02-react-two-tools", "trace.json"))
    run, session, canvas = window.session.run, window.session, window.canvas
    cache = next(s for s in framework_steps(whole_run(run).domain_events) if s.segment == "sf-cache")
    chip = next(d for d, s in window.folding.fw_map.step_of.items() if s == cache)
    session.move_to(run.axis.position_of_domain(cache.entry) + 1, immediate=True)
    assert canvas.current == chip and chip in canvas.art.active
    assert canvas.happened[chip] and not canvas.happened[chip + 1]  # (time travel: nothing later has happened)
    session.move_to(0, immediate=True)
    assert not canvas.happened[chip]
    window.folding.activate(chip)  # a click on the chip moves the cursor into that step
    session.flush()
    assert canvas.current == chip
    # hidden again: the cursor's step there is the nearest drawn card, never a missing one
    window.folding.set_hide_framework(True)
    session.flush()
    assert canvas.current is not None and canvas.current < len(run.stepgraph["nodes"])


def test_a_pause_chip_stays_on_its_tool_card_when_framework_steps_are_drawn(qtbot, window):
    window.folding.set_hide_framework(False)
    open_and_wait(qtbot, window, corpus_path("06-pause-resume", "recording.json"))
    window.session.end()
    window.session.flush()
    art = window.canvas.art
    assert art.pauses
    for index in art.pauses:
        assert art.nodes[index].get("kind") == "llm->tool" and "ask_human" in art.nodes[index]["label"]


# ------------------------------------------------------------------------------------------------- prices


def test_the_price_dialog_checks_every_cell(qtbot):
    dialog = PriceDialog(None, None, ["mock"])
    qtbot.addWidget(dialog)
    assert dialog.grid.item(0, 0).text() == DEFAULT_ROW and dialog.grid.item(1, 0).text() == "mock"
    dialog.set_cell(1, 1, "abc")
    dialog.set_cell(1, 2, "1.5")
    dialog.try_accept()
    assert dialog.error.isVisibleTo(dialog) and dialog.error.text() == (
        "Row 2 (mock), input price: 'abc' is not a number.")
    assert dialog.result() != dialog.DialogCode.Accepted
    dialog.set_cell(1, 1, "-2")
    dialog.try_accept()
    assert "Row 2 (mock), input price: '-2' — give a non-negative number" in dialog.error.text()
    dialog.set_cell(1, 1, "inf")
    dialog.try_accept()
    assert "non-negative" in dialog.error.text()
    dialog.set_cell(1, 1, "")
    dialog.try_accept()
    assert "Row 2 (mock), input price: empty" in dialog.error.text()
    dialog.add_row("mock", 1, 2)
    dialog.set_cell(1, 1, "0.5")
    dialog.try_accept()
    assert dialog.error.text() == "Row 3: the model 'mock' is listed twice."
    dialog.grid.removeRow(2)
    dialog.set_cell(0, 1, "3")
    dialog.set_cell(0, 2, "15")
    dialog.try_accept()
    assert dialog.result() == dialog.DialogCode.Accepted
    assert dialog.table == parse_price_table(PRICES)


def test_no_prices_means_no_table(qtbot):
    dialog = PriceDialog(None, parse_price_table(PRICES), [])
    qtbot.addWidget(dialog)
    assert dialog.grid.item(0, 1).text() == "3" and dialog.grid.item(1, 2).text() == "1.5"
    qtbot.mouseClick(dialog.clear_button, Qt.MouseButton.LeftButton)
    dialog.try_accept()
    assert dialog.result() == dialog.DialogCode.Accepted and dialog.table is None


def subflow_status(window, label: str) -> str:
    art = window.canvas.art
    index = next(i for i, n in enumerate(art.nodes) if n.get("kind") == "subflow" and n.get("label") == label)
    # private: the texts a card paints (its picture cannot be read back as text)
    return art._texts_for(index, window.canvas.art.node_bounds(index))[1]


def test_cost_shows_only_with_a_table_and_only_once_the_calls_ended(qtbot, window):
    open_and_wait(qtbot, window, corpus_path("07-flow-sequence", "trace.json"))
    session, run = window.session, window.session.run
    session.end()
    session.flush()
    assert "tok" in subflow_status(window, "work") and "$" not in subflow_status(window, "work")
    assert "cost" not in window.summary.text
    window.features["cost"].set_table(parse_price_table(PRICES))
    assert json.loads(json.dumps(Settings().get("price_table"))) == parse_price_table(PRICES).as_json()  # saved
    status = subflow_status(window, "work")
    # (14 + 20) in × $0.5 + (0 + 7) out × $1.5 per million = $0.0000275: on the box's one line, "<$0.0001"
    assert status.endswith("41 tok · <$0.0001"), status
    window.features["cost"].set_table(parse_price_table({"models": {"mock": {"input": 15, "output": 75}}}))
    assert subflow_status(window, "work").endswith("41 tok · $0.0010")  # 34 × 15 + 7 × 75 = 1,035 per million
    window.features["cost"].set_table(parse_price_table(PRICES))
    assert window.summary.cost.isVisible() and window.summary.cost.text() == "cost so far $0.000057"
    # the LLM card's inspector: a cost row beside its tokens once the call returned
    facts = session.replay.facts
    call = next(i for i, n in enumerate(run.stepgraph["nodes"]) if n["kind"] == "user->llm")
    session.activate_node(call)  # the cursor goes to when the call started: not returned yet
    session.flush()
    inspector = window.panels["inspector"]
    read(qtbot, inspector)
    labels = [inspector.fields.itemAt(r, inspector.fields.ItemRole.LabelRole).widget().text()
              for r in range(inspector.fields.rowCount())]
    assert "tokens" not in labels and "cost" not in labels
    assert "$" not in subflow_status(window, "classify")  # the box's calls have not ended: no tokens, no cost
    assert window.summary.cost.text() == "cost: –"
    session.show_node_end(call)
    session.flush()
    read(qtbot, inspector)
    labels = {inspector.fields.itemAt(r, inspector.fields.ItemRole.LabelRole).widget().text():
              inspector.fields.itemAt(r, inspector.fields.ItemRole.FieldRole).widget().text()
              for r in range(inspector.fields.rowCount())}
    assert labels["cost"].startswith("$0.0000") and "mock" in labels["cost"]
    assert facts.ended[call] is not None
    assert window.summary.cost.text().startswith("cost so far $0.00000")
    window.features["cost"].set_table(None)
    assert not window.summary.cost.isVisible() and "$" not in subflow_status(window, "classify")
    assert Settings().get("price_table") is None


def test_a_card_s_menu_copies_the_step_drawn_there_when_framework_steps_are_shown(qtbot, window):
    from PySide6.QtCore import QPoint
    from PySide6.QtGui import QGuiApplication

    window.folding.set_hide_framework(False)
    open_and_wait(qtbot, window, corpus_path("02-react-two-tools", "trace.json"))
    run = window.session.run
    tool = next(i for i, n in enumerate(run.stepgraph["nodes"]) if n["kind"] == "llm->tool")
    shown = window.folding.to_shown(tool)
    assert shown != tool  # (framework chips come before it)
    window.canvas.card_menu_requested.emit(shown, QPoint(10, 10))  # a right-click on the card
    next(a for a in window.card_menu.actions() if a.text() == "Copy the step's id").trigger()
    assert QGuiApplication.clipboard().text() == run.stepgraph["nodes"][tool]["id"]
    window.card_menu.close()
    chip = next(iter(window.folding.fw_map.step_of))
    window.canvas.card_menu_requested.emit(chip, QPoint(10, 10))  # a framework chip: its own description
    next(a for a in window.card_menu.actions() if a.text() == "Copy the step's id").trigger()
    assert QGuiApplication.clipboard().text().startswith("framework:")
    window.card_menu.close()


def test_framework_steps_shown_and_similar_iterations_folded_together(qtbot, window):
    window.folding.set_hide_framework(False)
    open_and_wait(qtbot, window, corpus_path("15-large-run", "trace.json"))
    folding, session, canvas = window.folding, window.session, window.canvas
    window.action("fold").trigger()  # View ▸ Fold similar iterations
    canvas.finish_building()
    kinds = drawn_kinds(window)
    assert "fold" in kinds and FRAMEWORK_KIND in kinds and len(kinds) < 200
    run = session.run
    middle = run.stepgraph["nodes"][600]  # inside the folded iterations: the fold chip stands for it
    session.activate_node(600)
    session.flush()
    fold_chip = kinds.index("fold")
    assert canvas.current == fold_chip and folding.to_shown(600) == fold_chip and middle["iterationIndex"] > 3
    session.end()
    session.flush()
    assert canvas.happened is not None and all(canvas.happened)
    folding.activate(fold_chip)  # expands: every step and every framework step drawn
    canvas.finish_building()
    assert drawn_kinds(window).count(FRAMEWORK_KIND) == len(framework_steps(whole_run(run).domain_events))


def test_with_future_steps_hidden_the_chip_counts_only_what_has_happened(qtbot, window):
    open_and_wait(qtbot, window, corpus_path("02-react-two-tools", "trace.json"))
    chip, session = window.features["framework"].chip, window.session
    window.future_actions["hide"].trigger()  # View ▸ Future steps hidden
    session.home()
    session.flush()
    assert not chip.isVisible()  # nothing has happened yet: nothing is hidden
    session.next_stop()
    session.next_stop()
    session.flush()
    steps = framework_steps(whole_run(session.run).domain_events)
    happened = sum(1 for s in steps if s.started(session.moment.n_domain))
    assert 0 < happened < 16 and chip.text() == f"⚙ {happened} framework step{'s' if happened > 1 else ''} hidden"
    session.end()
    session.flush()
    assert chip.count == 16
    window.future_actions["dim"].trigger()  # dimmed future steps preview the whole run: every step counts
    session.home()
    session.flush()
    assert chip.count == 16


def test_a_bad_price_table_or_toggle_in_the_settings_file_falls_back_with_a_warning(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"price_table": {"models": {"m": {"input": -1, "output": 1}}},
                                "hide_framework_steps": "yes"}))
    settings = Settings(path)
    assert settings.get("price_table") is None and settings.get("hide_framework_steps") is True
    assert "price_table" in settings.warning and "hide_framework_steps" in settings.warning
    path.write_text(json.dumps({"price_table": PRICES, "hide_framework_steps": False}))
    settings = Settings(path)
    assert parse_price_table(settings.get("price_table")) == parse_price_table(PRICES)
    assert settings.get("hide_framework_steps") is False and settings.warning is None


def test_view_token_prices_opens_the_dialog_with_the_run_s_models(qtbot, window):
    from PySide6.QtCore import QTimer

    open_and_wait(qtbot, window, corpus_path("02-react-two-tools", "trace.json"))
    action = window.action("prices")
    seen: list[str] = []

    def fill() -> None:
        dialog = QApplication.activeModalWidget()
        assert isinstance(dialog, PriceDialog)
        seen.extend(dialog.grid.item(r, 0).text() for r in range(dialog.grid.rowCount()))
        dialog.set_cell(1, 1, "0.5")
        dialog.set_cell(1, 2, "1.5")
        qtbot.mouseClick(dialog.buttons.button(dialog.buttons.StandardButton.Ok), Qt.MouseButton.LeftButton)

    QTimer.singleShot(200, fill)
    action.trigger()
    assert seen == [DEFAULT_ROW, "mock"]  # the run's model is listed, ready for its prices
    assert window.features["cost"].table == parse_price_table({"models": {"mock": {"input": 0.5, "output": 1.5}}})
    assert window.summary.cost.text().startswith("cost so far $")


def test_the_hidden_steps_chip_and_the_minimap_never_cover_the_last_cards(qtbot, window):
    """Scrolled to its end (where a finished run opens), the graph's last cards lie clear of the chip at the
    bottom-left and of the minimap at the bottom-right: the scene has room past the cards for them."""
    from PySide6.QtCore import QRect

    open_and_wait(qtbot, window, corpus_path("15-large-run", "trace.json"))
    canvas = window.canvas
    canvas.finish_building()
    chip = window.features["framework"].chip
    assert chip.isVisible()
    canvas.verticalScrollBar().setValue(canvas.verticalScrollBar().maximum())
    canvas.horizontalScrollBar().setValue(canvas.horizontalScrollBar().maximum())
    covered = [chip.geometry()] + [w.geometry() for w in canvas.viewport().children()
                                   if getattr(w, "objectName", lambda: "")() != chip.objectName()
                                   and hasattr(w, "geometry") and w.isVisible()
                                   and type(w).__name__ == "GraphMinimap"]
    cards = [canvas.mapFromScene(canvas.art.node_bounds(i)).boundingRect() for i in range(len(canvas.node_items))]
    seen = [card for card in cards if card.intersects(canvas.viewport().rect())]
    assert seen and len(covered) == 2  # the chip and the minimap
    for overlay in covered:
        assert not any(card.intersects(QRect(overlay)) for card in seen), overlay
