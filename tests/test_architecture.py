"""The house rules of the code: import-linter's contracts (core below app, no Qt in the core, panels that never
import each other), no import cycles inside the core (function-level imports included), and no module reaching
for another module's private names."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "afp_desktop"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in PACKAGE.rglob("*.py")}


def _imports(path: Path, modules: dict[str, Path]) -> list[tuple[str, list[str]]]:
    """(module imported, names taken from it) for every import in the file, wherever it stands."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [alias.name for alias in node.names]
            submodules = [f"{node.module}.{name}" for name in names if f"{node.module}.{name}" in modules]
            found += [(sub, []) for sub in submodules]
            found.append((node.module, [n for n in names if f"{node.module}.{n}" not in modules]))
    return found


def test_import_linter_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    if not lint.exists():
        pytest.skip("import-linter is not installed (pip install -e '.[test]')")
    result = subprocess.run([str(lint)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "0 broken" in result.stdout


def test_no_import_cycles_in_the_core():
    modules = _modules()
    core = {name: path for name, path in modules.items() if name.startswith("afp_desktop.core")}
    graph = {name: sorted({target for target, _names in _imports(path, modules)
                           if target in core and target != name and target != "afp_desktop.core"})
             for name, path in core.items()}
    # a package's __init__ running because a submodule is imported is not an edge of ours: drop parent links
    for name, targets in graph.items():
        graph[name] = [t for t in targets if not name.startswith(t + ".")]
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(name: str) -> None:
        state[name] = 1
        stack.append(name)
        for target in graph[name]:
            if state.get(target) == 1:
                cycle = stack[stack.index(target):] + [target]
                pytest.fail("import cycle: " + " → ".join(cycle))
            if target not in state:
                visit(target)
        stack.pop()
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name)


def test_no_module_imports_another_modules_private_names():
    modules = _modules()
    offenders = []
    for name, path in modules.items():
        for target, names in _imports(path, modules):
            if target.startswith("afp_desktop"):
                offenders += [f"{name} imports {target}.{n}" for n in names if n.startswith("_") and not n.endswith("__")]
    assert not offenders, offenders


def _app_sources() -> dict[str, str]:
    return {str(path.relative_to(ROOT)): path.read_text(encoding="utf-8")
            for path in (PACKAGE / "app").rglob("*.py")}


def test_the_window_is_extended_by_features_not_install_helpers():
    """Features are classes in one list (main_window.window_features) made with the window, not functions that
    attach attributes to it."""
    offenders = [name for name, text in _app_sources().items()
                 if "def install(window" in text or "._dock(" in text]
    assert not offenders, offenders


def test_no_menu_or_action_is_found_by_its_visible_label():
    """Menus and actions are found by id (shell/action_table.py), never by the text a person reads."""
    import re

    label_lookup = re.compile(r"\.text\(\)\s*==\s*[\"']")
    offenders = [f"{name}:{number}" for name, text in _app_sources().items()
                 for number, line in enumerate(text.splitlines(), 1) if label_lookup.search(line)]
    assert not offenders, offenders


def test_no_private_attribute_of_another_module_is_reached():
    """`x._name` is for the module that defines `_name`: in the app, an object's underscored attribute is used
    only on `self`/`cls` or where the same file defines that name (a class's dispatch table, a module's helpers)."""
    offenders = []
    for name, text in _app_sources().items():
        tree = ast.parse(text)
        defined = {node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
        defined |= {target.attr for node in ast.walk(tree) if isinstance(node, (ast.Assign, ast.AnnAssign))
                    for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
                    if isinstance(target, ast.Attribute)}
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")):
                continue
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id in ("self", "cls", "sys", "os"):
                continue
            if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super":
                continue
            if node.attr in defined:
                continue
            offenders.append(f"{name}:{node.lineno}: {ast.unparse(node)}")
    assert not offenders, offenders


def test_every_package_is_installed():
    """pyproject lists the packages to install by name: a folder of modules left out would be missing from
    `pip install .` and the bundle."""
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    packages = {_module_name(init) for init in PACKAGE.rglob("__init__.py") if "__pycache__" not in init.parts}
    assert packages <= listed, sorted(packages - listed)


# Sites allowed to look a run's attributes up by name or read its __dict__: "path:line text" → why (none so far).
RUN_PROBES_ALLOWED: dict[str, str] = {}


def _names_a_run(node: ast.AST) -> bool:
    """`run`, `*_run`, `self.run`, `self._run`, `session.run`…: an expression that names a run."""
    text = ast.unparse(node)
    last = text.rsplit(".", 1)[-1]
    return last in ("run", "_run") or last.endswith("_run")


def run_probes(root: Path) -> list[str]:
    """Every `getattr(run, …)`, `hasattr(run, …)`, `vars(run)` and `run.__dict__` under `root`: what a run holds
    is read through its typed fields (Run, and its PreparedViews as `run.views`), never found by probing."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            probed = None
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args and \
                    node.func.id in ("getattr", "hasattr", "vars") and _names_a_run(node.args[0]):
                probed = node
            elif isinstance(node, ast.Attribute) and node.attr == "__dict__" and _names_a_run(node.value):
                probed = node
            if probed is not None:
                found.append(f"{path.relative_to(root.parent)}:{node.lineno} {ast.unparse(probed)}")
    return found


def test_no_run_is_probed_for_what_it_holds():
    """A projection made ahead (by the loader) is a typed field that says whether it was made, not an attribute
    looked for: `getattr(run, "x", None)` hides a missing projection and `run.__dict__` a cache's state."""
    offenders = [site for site in run_probes(PACKAGE) if site not in RUN_PROBES_ALLOWED]
    assert not offenders, offenders


def test_a_run_probe_is_found():
    """(The check above finds each kind of probe.)"""
    import tempfile

    probes = ('getattr(run, "stop_spans", None)', 'hasattr(self.run, "views")', 'run.__dict__.get("summary")',
              "vars(grown_run)", 'getattr(self._run, "x")')
    with tempfile.TemporaryDirectory() as folder:
        package = Path(folder) / "pkg"
        package.mkdir()
        (package / "probes.py").write_text("\n".join(probes + ("getattr(moment, 'n', 0)",)) + "\n", encoding="utf-8")
        lines = sorted(int(site.split(" ", 1)[0].rsplit(":", 1)[1]) for site in run_probes(package))
    assert lines == list(range(1, len(probes) + 1))  # (each probe once; the moment's getattr is no run's)


NOT_YET_CHECKED: tuple[str, ...] = ()  # (every test file is held to the rule below)


NAMEDTUPLE_API = {"_replace", "_asdict", "_fields", "_make", "_field_defaults"}  # public, underscored by design


def private_reaches(text: str) -> list[int]:
    """The lines of a test file that reach for a private name (`x._name` with x not `self`/`cls`, or
    `from afp_desktop… import _name`) without a `# private: <why>` comment on that line or the line before."""
    lines = text.splitlines()
    found = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Attribute):
            names = [node.attr]
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                continue
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("afp_desktop"):
            names = [alias.name for alias in node.names]
        else:
            continue
        if not any(name.startswith("_") and not name.startswith("__") and name not in NAMEDTUPLE_API for name in names):
            continue
        said = lines[node.lineno - 1] + (lines[node.lineno - 2] if node.lineno > 1 else "")
        if "# private:" not in said:
            found.add(node.lineno)
    return sorted(found)


def test_tests_go_through_public_behaviour():
    """A test reaches into a private attribute or function only as a named exception: `# private: <why>` on the
    line (or the line before) says why no public behaviour shows what it checks."""
    tests = ROOT / "tests"
    skipped = {path for pattern in NOT_YET_CHECKED for path in tests.glob(pattern)}
    offenders = [f"tests/{path.name}:{line}" for path in sorted(tests.glob("*.py")) if path not in skipped
                 for line in private_reaches(path.read_text(encoding="utf-8"))]
    assert not offenders, "private reaches without a `# private: <why>` comment:\n" + "\n".join(offenders)


def test_a_private_reach_without_its_reason_is_found():
    assert private_reaches("value = panel._timer.isActive()\n") == [1]
    assert private_reaches("from afp_desktop.core import _hidden\n") == [1]
    assert private_reaches("value = panel._timer  # private: the only clock\n") == []
    assert private_reaches("# private: the only clock\nvalue = panel._timer\n") == []
    assert private_reaches("self._x = 1\nrun = run._replace(a=1)._asdict()\nname = type(x).__name__\n") == []
