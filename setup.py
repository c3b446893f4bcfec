"""The compiled parts, all optional: without a C compiler (or Python's headers) the install goes on, and the core
does the same work in Python and numpy instead, only slower. Every afp_desktop/core/<package>/<name>_c.c is one
module: the bracket scan's loop (core/jsonx/brackets_c.c; numpy's passes in core/jsonx/jsonscan.py otherwise), an
event stream's line loop (core/formats/ndjson_c.c; the Python loop of core/formats/ndjson.py otherwise) and one
field of each of many events (core/jsonx/fields_c.c; the Python loops of core/jsonx/fields.py otherwise). Each is
built with the sha256 of its source, which core/compiled.py checks at import. Everything else is in
pyproject.toml."""

import hashlib
from pathlib import Path

from setuptools import Extension, setup


def compiled(source: Path) -> Extension:
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    return Extension(".".join(source.with_suffix("").parts), [source.as_posix()], optional=True,
                     extra_compile_args=["-O2"], define_macros=[("SOURCE_SHA256", f'"{digest}"')])


setup(ext_modules=[compiled(source) for source in sorted(Path("afp_desktop/core").glob("*/*_c.c"))])
