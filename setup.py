"""The one compiled part: the bracket scan's C loop. Optional: without a C compiler the install goes on, and
the core scans with numpy instead (core/jsonx/jsonscan.py), only slower. Everything else is in pyproject.toml."""

from setuptools import Extension, setup

setup(ext_modules=[Extension(
    "afp_desktop.core.jsonx.brackets_c", ["afp_desktop/core/jsonx/brackets_c.c"], optional=True,
    extra_compile_args=["-O2"])])
