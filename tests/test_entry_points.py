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


def test_numpy_starts_no_spinning_threads_of_its_own():
    """OpenBLAS's threads spin for ~0.1 s after numpy's import, on a core the window or the loader needs; a
    thread count the user set is kept."""
    count = "import afp_desktop, numpy, os; print(os.environ['OPENBLAS_NUM_THREADS'], len(os.listdir('/proc/self/task')))"
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", count], capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["1", "1"]  # (without the default: one thread per core, 2 here)
    out = subprocess.run([sys.executable, "-c", count], capture_output=True, text=True, timeout=60,
                         env=dict(env, OPENBLAS_NUM_THREADS="2"))
    assert out.stdout.split()[0] == "2"
