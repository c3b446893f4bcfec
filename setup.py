"""The compiled parts, all optional: without a C compiler the install goes on, and the core does the same work in
Python and numpy instead, only slower — the bracket scan's loop (core/jsonx/brackets_c.c; numpy's passes in
core/jsonx/jsonscan.py otherwise), an event stream's line loop (core/formats/ndjson_c.c; the Python loop of
core/formats/ndjson.py otherwise) and one field of each of many events (core/jsonx/fields_c.c; the Python loops of
core/jsonx/fields.py otherwise). Everything else is in pyproject.toml."""

from setuptools import Extension, setup

COMPILED = (("afp_desktop.core.jsonx.brackets_c", "afp_desktop/core/jsonx/brackets_c.c"),
            ("afp_desktop.core.formats.ndjson_c", "afp_desktop/core/formats/ndjson_c.c"),
            ("afp_desktop.core.jsonx.fields_c", "afp_desktop/core/jsonx/fields_c.c"))

setup(ext_modules=[Extension(name, [source], optional=True, extra_compile_args=["-O2"]) for name, source in COMPILED])
