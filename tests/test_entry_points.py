"""`python -m afp_desktop` and the installed `afp-desktop` script are the same command line."""

import os
import subprocess
import sys
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[1] / "sample_traces" / "react-two-tools.trace.json"


def test_python_dash_m_runs_the_command_line():
    out = subprocess.run([sys.executable, "-m", "afp_desktop", "info", str(SAMPLE)], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert "Trace v1" in out.stdout and "LLM calls:   3" in out.stdout


def test_window_without_a_display_explains_what_to_do_instead():
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    out = subprocess.run([sys.executable, "-m", "afp_desktop", str(SAMPLE)], capture_output=True, text=True,
                         timeout=120, env=env)
    assert out.returncode == 2
    assert "--screenshot" in out.stderr and "export" in out.stderr and "Traceback" not in out.stderr


def test_version_names_the_app():
    out = subprocess.run([sys.executable, "-m", "afp_desktop", "--version"], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0 and out.stdout.startswith("afp-desktop ")
