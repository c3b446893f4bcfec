"""The PySide6 pin holds: PySide6 6.12.0 aborts on Python 3.11 (`none_dealloc`) after a few thousand Qt calls
that return nothing, typically at interpreter exit (exit code 134). Run such calls in a child and check it
exits cleanly."""

import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"

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


def pyside_pins() -> list[Requirement]:
    """The pyproject's PySide6 requirements, each with its marker (which Pythons it is for)."""
    dependencies = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["dependencies"]
    return [r for r in map(Requirement, dependencies) if r.name.lower().startswith("pyside6")]


def pin_for(python: str) -> Requirement:
    """The one PySide6 requirement whose marker holds for this Python version."""
    holding = [r for r in pyside_pins() if r.marker is None or r.marker.evaluate({"python_version": python})]
    assert len(holding) == 1, f"Python {python}: {len(holding)} PySide6 pins apply: {holding}"
    return holding[0]


def test_installed_pyside_is_the_one_the_pin_allows_on_this_python():
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    pin = pin_for(python)
    installed = version(pin.name)
    assert pin.specifier.contains(installed, prereleases=True), f"{pin.name} {installed} on Python {python}: {pin}"


def test_the_pin_keeps_python_3_11_off_pyside_6_12():
    """(6.12.0 aborts on 3.11, above.)"""
    assert not pin_for("3.11").specifier.contains(Version("6.12.0"))
    assert all(pin_for(python).specifier.contains(Version("6.11.0")) for python in ("3.11", "3.12", "3.13"))


def test_thousands_of_void_qt_calls_and_a_clean_exit():
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, (out.returncode, out.stderr[-2000:])
    assert out.stdout.strip() == "ok"
