"""The PySide6 pin holds: PySide6 6.12.0 aborts on Python 3.11 (`none_dealloc`) after a few thousand Qt calls
that return nothing, typically at interpreter exit (exit code 134). Run such calls in a child and check it
exits cleanly."""

import subprocess
import sys

import PySide6

CHILD = r"""
import os
os.environ["QT_QPA_PLATFORM"] = "offscreen"
from PySide6.QtWidgets import QApplication, QLabel
from PySide6.QtCore import QObject
app = QApplication([])
label = QLabel()
obj = QObject()
for i in range(30000):
    label.setText(str(i))      # returns None
    obj.setObjectName("n")     # returns None
    label.setToolTip("t")      # returns None
print("ok")
"""


def test_installed_pyside_matches_the_pin():
    major, minor = (int(x) for x in PySide6.__version__.split(".")[:2])
    if sys.version_info < (3, 12):
        assert (major, minor) < (6, 12), f"PySide6 {PySide6.__version__} crashes on Python 3.11"


def test_thousands_of_void_qt_calls_and_a_clean_exit():
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, (out.returncode, out.stderr[-2000:])
    assert out.stdout.strip() == "ok"
