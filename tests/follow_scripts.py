"""The start of a script a test runs in a fresh process: a real window follows the file given as its first
argument, and the script goes on once the follow is under way (the window's run shown)."""

WINDOW_FOLLOWING = """
import os, sys
from PySide6.QtCore import QEventLoop
from afp_desktop.app.shell.gui import create_application
from afp_desktop.app.shell.main_window import MainWindow

path = sys.argv[1]
app = create_application()
window = MainWindow()
window.show()
window.open_file(path, follow=True)
while not (window.follow.active and window.session.run is not None):
    app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)
"""
