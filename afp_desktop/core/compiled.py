"""The optional compiled loops: every afp_desktop/core/<package>/<name>_c.c is a module that setup.py builds when
there is a C compiler and Python's headers, with the sha256 of its source inside. A module is used only when it was
built from the source beside it: one built from another version (a pull changed the .c and its rebuild failed or
never ran) is refused with a warning, and the Python loop does the work. Without the source beside it (an
installed wheel, the bundle) a module is used as it is.

    python -m afp_desktop.core.compiled    prints one line: how many of the loops are built, which are not and why
"""

from __future__ import annotations

import hashlib
import importlib
import warnings
from pathlib import Path
from types import ModuleType

CORE = Path(__file__).resolve().parent
BUILT, NOT_BUILT, STALE = "built", "not built", "built from another version of its source"


class StaleModuleWarning(RuntimeWarning):
    """A compiled module older than its source: the Python loop is used instead."""


def source_of(name: str) -> Path:
    """The .c file of the compiled module `name` (e.g. "afp_desktop.core.jsonx.fields_c")."""
    return CORE.parent.parent.joinpath(*name.split(".")).with_suffix(".c")


def state_of(name: str) -> tuple[str, ModuleType | None]:
    """(BUILT, NOT_BUILT or STALE; the module when it may be used)."""
    try:
        module = importlib.import_module(name)
    except ImportError:
        return NOT_BUILT, None
    source = source_of(name)
    if source.is_file() and getattr(module, "source_sha256", "") != hashlib.sha256(source.read_bytes()).hexdigest():
        return STALE, None
    return BUILT, module


def load(name: str) -> ModuleType | None:
    """The compiled module `name` when it is built from its source; else None (a warning when it is stale)."""
    state, module = state_of(name)
    if state == STALE:
        warnings.warn(f"{source_of(name)} changed after its compiled module was built: the slower Python loop is "
                      "used instead (rebuild: bash scripts/setup.sh)", StaleModuleWarning, stacklevel=2)
    return module


def all_names() -> list[str]:
    """Every compiled module the source tree has (the rule setup.py builds by)."""
    root = CORE.parent.parent
    return [".".join(path.relative_to(root).with_suffix("").parts) for path in sorted(CORE.glob("*/*_c.c"))]


def summary() -> str:
    """One line: "C loops built: 3 of 3", or how many and which are not (not built, or stale)."""
    names = all_names()
    states = {name: state_of(name)[0] for name in names}
    line = f"C loops built: {sum(state == BUILT for state in states.values())} of {len(names)}"
    for state in (NOT_BUILT, STALE):
        missing = [name.rsplit(".", 1)[1] for name in names if states[name] == state]
        if missing:
            line += f"; {state}: {', '.join(missing)}"
    return line


if __name__ == "__main__":
    print(summary())
