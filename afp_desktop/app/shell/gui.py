"""Start the desktop app: `run_gui(path)` opens the window (loading `path` if given) and runs the event loop;
with `screenshot`, it loads synchronously, optionally moves to stop N, saves a PNG of the whole window, exits."""

from __future__ import annotations

import os
import sys

from PySide6.QtCore import QCoreApplication, QElapsedTimer, QEventLoop, QTimer, QtMsgType, qInstallMessageHandler
from PySide6.QtWidgets import QApplication

from afp_desktop import __version__
from afp_desktop.app.look.fonts import apply_default_font
from afp_desktop.app.look.resources import app_icon
from afp_desktop.core.terminal_text import for_terminal

APP_NAME = "afp-desktop"
SCREENSHOT_SIZE = (1600, 1000)
ANSWER_WAIT_MS = 60_000  # a screenshot waits at most this long for the engine's answers to the panels


# Harmless notices from Qt's offscreen platform that would only confuse a headless user.
_QUIET = ("propagateSizeHints",)
_previous_handler = None
_handler_installed = False


def _message_handler(kind, context, message: str) -> None:
    if any(text in message for text in _QUIET):
        return
    if _previous_handler is not None:
        _previous_handler(kind, context, message)
    elif kind != QtMsgType.QtDebugMsg:
        print(message, file=sys.stderr)


def keep_painting_on_the_window_thread() -> None:
    """Qt's raster engine hands a big fill (96 rows and more: a progress bar, a dock, the inspector's tabs) to a
    pool of threads, in pieces, and the window waits for them all. While the loader keeps one core busy (or another
    program does), those threads wait for a processor and the window with them: on a machine whose cores are all
    busy, a move of the cursor takes longer with the pool than without it, for the same processor time.
    QT_NO_GUI_THREADPOOL (read once, when the pool would first be made) keeps every fill on the
    window's thread. A value the user set is kept."""
    os.environ.setdefault("QT_NO_GUI_THREADPOOL", "1")


def create_application() -> QApplication:
    """The QApplication with our name, icon, font and a quiet offscreen message handler (idempotent)."""
    global _previous_handler, _handler_installed
    keep_painting_on_the_window_thread()
    if not _handler_installed:
        _previous_handler = qInstallMessageHandler(_message_handler)
        _handler_installed = True
    app = QApplication.instance()
    if app is None:
        app = QApplication(sys.argv[:1] or [APP_NAME])
    app.setApplicationName(APP_NAME)
    app.setApplicationDisplayName("afp-desktop")
    app.setApplicationVersion(__version__)
    app.setOrganizationName(APP_NAME)
    apply_default_font(app)  # the desktop's font, or the bundled DejaVu Sans where there is none
    icon = app_icon()
    if not icon.isNull():
        app.setWindowIcon(icon)
    return app


def run_gui(path: str | None, screenshot: str | None = None, stop: int | None = None,
            conversation: str | None = None, follow: bool = False,
            size: tuple[int, int] = SCREENSHOT_SIZE, at: str | None = None) -> int:
    app = create_application()
    if screenshot:
        return _screenshot(app, path, screenshot, stop, conversation, size, at)
    window = show_main_window()
    from afp_desktop.app.shell.terminate import close_on_terminate

    # SIGTERM/SIGHUP close the window (its layout saved); the handler lives as long as this call.
    terminate_handler = close_on_terminate(window)  # noqa: F841
    if path and at is not None:
        from afp_desktop.app.features.stop_links import open_at

        open_at(window, path, at, conversation)
    elif path:
        window.open_after_first_frame(path, conversation=conversation,  # the window shows first, then the file
                                      follow=True if follow else None)
    return app.exec()


def show_main_window():
    """The window a person opens: shown at its restored (or default) size, cut to the screen's free area once
    its panels' minimums are known (app/fit_screen.py). A --screenshot window keeps the size asked for."""
    from afp_desktop.app.shell.fit_screen import fit_on_screen
    from afp_desktop.app.shell.main_window import MainWindow

    window = MainWindow()
    fit_on_screen(window)
    window.show()
    fit_on_screen(window)  # (again: the panels' minimums are known once the window is laid out)
    return window


def _screenshot(app: QApplication, path: str | None, out: str, stop: int | None,
                conversation: str | None = None, size: tuple[int, int] = SCREENSHOT_SIZE,
                at: str | None = None) -> int:
    from afp_desktop.app.loading import loader
    from afp_desktop.app.loading.engine_link import open_in_engine_process
    from afp_desktop.app.shell.main_window import MainWindow
    from afp_desktop.engine.service import Engine
    from afp_desktop.core.formats import LoadError
    from afp_desktop.core.output_names import refuse_rotation_partner
    from afp_desktop.core.safe_write import UnsafeOutput, check_destination, write_file

    inputs = [path] if path else []
    try:  # before loading: a refused destination costs nothing
        check_destination(out, inputs)
        refuse_rotation_partner(out, inputs)
    except UnsafeOutput as err:
        print(for_terminal(f"afp-desktop: {err}"), file=sys.stderr)
        return 2
    window = MainWindow(restore_layout=False)
    window.resize(*size)
    window.show()
    if path:
        try:
            if loader.IN_PROCESS:  # (tests that change the core in this process)
                run = Engine().open(path, conversation=conversation)
            else:  # what opening the file shows, read by an engine process as the window's loads are
                run = open_in_engine_process(path, conversation=conversation)
        except LoadError as err:
            print(for_terminal(f"afp-desktop: {err}"), file=sys.stderr)
            window.close()
            return 2
        except OSError as err:
            print(for_terminal(f"afp-desktop: {path}: {err.strerror or err}"), file=sys.stderr)
            window.close()
            return 2
        if stop is not None and not 0 <= stop < len(run.stops):
            print(f"afp-desktop: --stop {stop} is out of range: this run has {len(run.stops)} stops "
                  f"(0 to {len(run.stops) - 1})", file=sys.stderr)
            window.close()
            return 2
        # Checked before the screenshot (the engine's copy comes checked: check_payloads): its banner says them.
        run.payload_problems  # noqa: B018
        window.session.set_run(run)
        if at is not None:
            from afp_desktop.app.features.stop_links import apply_at

            print(for_terminal(apply_at(window, run, at)), file=sys.stderr)
        if stop is not None:
            window.session.move_to_stop(stop)
            window.session.flush()
    elif stop is not None:
        print("afp-desktop: --stop needs a file to open", file=sys.stderr)
        return 2
    window.canvas.finish_building()  # a big graph's cards are made in slices: all of them before the picture
    window.timeline.build()  # (the window builds it a few turns after its first frame: now, for the picture)
    settle_events(app)
    settle_until_answered(app, window.engine_requests)  # (the inspector's content is the engine's answer)
    image = window.grab()
    window.close()
    from PySide6.QtCore import QBuffer, QIODevice

    png = QBuffer()
    png.open(QIODevice.OpenModeFlag.WriteOnly)
    try:
        if not image.save(png, "PNG"):
            raise OSError("the image could not be encoded")
        write_file(out, bytes(png.data()), inputs)
    except (OSError, UnsafeOutput) as err:
        print(f"afp-desktop: could not write {out} ({getattr(err, 'strerror', None) or err})", file=sys.stderr)
        return 2
    print(out)
    return 0


def settle_events(app: QApplication, msecs: int = 300) -> None:
    """Let layouts, deferred timers and first paints run before the window is grabbed."""
    clock = QElapsedTimer()
    clock.start()
    while clock.elapsed() < msecs:
        app.processEvents()
        QCoreApplication.sendPostedEvents()


def settle_until_answered(app: QApplication, requests, msecs: int = ANSWER_WAIT_MS) -> None:
    """Run the event loop until no panel waits for the engine's reply (at most `msecs`), then let what the
    replies drew settle: a picture shows panels filled in, not "Reading…"."""
    clock = QElapsedTimer()
    clock.start()
    tick = QTimer()
    tick.start(50)  # (wakes the wait below, so the limit is looked at even when no reply comes)
    while requests.pending and clock.elapsed() < msecs:
        app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)
    tick.stop()
    settle_events(app)


def run_compare_gui(path_a: str, path_b: str, screenshot: str | None = None) -> int:
    """`afp-desktop A B --compare [--screenshot OUT.png]`."""
    from afp_desktop.app.look import theme as widget_theme
    from afp_desktop.app.compare.compare_window import CompareWindow
    from afp_desktop.engine.service import Engine
    from afp_desktop.app.storage.settings import Settings
    from afp_desktop.core.formats import LoadError

    app = create_application()
    window = CompareWindow()
    window.apply_theme(widget_theme.apply_theme(app, Settings().get("theme")))
    widget_theme.theme_notifier().theme_changed.connect(window.apply_theme)
    if not screenshot:
        window.show()
        window.open_paths(path_a, path_b)
        return app.exec()
    try:  # (loaded before the window shows: a file that cannot be read leaves nothing open)
        runs = [Engine().open(path) for path in (path_a, path_b)]
    except LoadError as err:
        print(for_terminal(f"afp-desktop: {err}"), file=sys.stderr)
        return 2
    except OSError as err:
        print(for_terminal(f"afp-desktop: {err.filename or ''}: {err.strerror or err}"), file=sys.stderr)
        return 2
    window.resize(1600, 1000)
    window.show()
    window.set_runs(*runs)
    settle_events(app)
    image = window.grab()
    window.close()
    if not image.save(screenshot, "PNG"):
        print(f"afp-desktop: could not write {screenshot}", file=sys.stderr)
        return 2
    print(screenshot)
    return 0
