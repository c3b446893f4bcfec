"""The core and the JSON subcommands import no Qt, directly or indirectly."""

import subprocess
import sys
from pathlib import Path

import afp_desktop

CORE = Path(afp_desktop.__file__).parent / "core"


def test_core_modules_import_without_qt():
    modules = sorted("afp_desktop.core." + ".".join(p.relative_to(CORE).with_suffix("").parts)
                     for p in CORE.rglob("*.py") if p.name != "__init__.py")
    modules.append("afp_desktop.cli")
    code = ("import sys\n" + "".join(f"import {m}\n" for m in modules) +
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6', 'pyqtgraph'))\n"
            "print(','.join(bad))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert len(modules) > 10
    assert out.stdout.strip() == ""


def test_json_subcommands_run_without_qt(tmp_path):
    sample = Path(__file__).parent / "corpus" / "01-llmcall-single" / "events.ndjson"
    code = ("import sys\nfrom afp_desktop import cli\n"
            f"for argv in (['stepgraph', {str(sample)!r}], ['status', {str(sample)!r}], ['stops', {str(sample)!r}],"
            f" ['info', {str(sample)!r}], ['convert', {str(sample)!r}, '-o', {str(tmp_path / 'x.jsonl')!r}]):\n"
            "    assert cli.main(argv) == 0\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6', 'pyqtgraph'))\n"
            "sys.stderr.write('QT:' + ','.join(bad))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stderr.rsplit("QT:", 1)[1] == ""


def test_each_core_module_imports_on_its_own():
    """No import cycles: every core module can be the first one imported."""
    modules = sorted("afp_desktop.core." + ".".join(p.relative_to(CORE).with_suffix("").parts)
                     for p in CORE.rglob("*.py") if p.name != "__init__.py")
    code = ("import subprocess, sys\nbad = []\n"
            f"for m in {modules!r}:\n"
            "    r = subprocess.run([sys.executable, '-c', 'import ' + m], capture_output=True, text=True)\n"
            "    if r.returncode: bad.append(m + ': ' + r.stderr.strip().splitlines()[-1])\n"
            "print('\\n'.join(bad))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
