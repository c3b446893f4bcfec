"""One self-contained HTML page that replays a run in a browser: the page's data (share_page.py) inline, with the
page's own script and style; nothing is fetched (its Content-Security-Policy forbids it). Pure, no Qt.

    page_bytes(run, templates, app_name, stop=None, redact=False) -> bytes   what `share` (and the window) write

Trace text reaches the page only inside its data block, a JSON document in a <script type="application/json">
element, with `<`, `>`, `&` and the two JavaScript line separators escaped so the text can never close the
element or be read as markup; the page's script puts every piece of it in the page as text.
"""

from __future__ import annotations

from importlib import resources

from afp_desktop.core.jsonx import jsonio
from afp_desktop.core.model.fold_iterations import AUTO_FOLD_STEPS
from afp_desktop.core.model.replay import DEFAULT_APP_NAME
from afp_desktop.core.formats.redacted import redacted_copy
from afp_desktop.core.views.share_page import run_outcome, share_data

ASSETS = "share_assets"
DATA_MARK, SCRIPT_MARK, STYLE_MARK = "/*DATA*/", "/*SCRIPT*/", "/*STYLE*/"
CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"
_ESCAPES = {ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026", 0x2028: "\\u2028", 0x2029: "\\u2029"}


def _asset(name: str) -> str:
    return (resources.files("afp_desktop.core.views") / ASSETS / name).read_text(encoding="utf-8")


def embedded_json(value) -> str:
    """`value` as JSON that is safe inside an HTML <script> element: no `<`, `>` or `&`, no U+2028/U+2029 (each
    only ever inside a JSON string, where its \\u escape means the same character)."""
    return jsonio.dumps(value).decode("utf-8").translate(_ESCAPES)


def _put(template: str, mark: str, text: str) -> str:
    """Put `text` at the template's one `mark` (split, so nothing in `text` is ever read as a mark)."""
    parts = template.split(mark)
    if len(parts) != 2:
        raise ValueError(f"the page template must hold {mark} exactly once")
    return parts[0] + text + parts[1]


def render_page(data: dict) -> bytes:
    """The page for share_data's `data`."""
    page = _asset("page.html")
    if CSP not in page:
        raise ValueError("the page template lost its Content-Security-Policy")
    page = _put(page, STYLE_MARK, _asset("page.css"))
    page = _put(page, SCRIPT_MARK, _asset("page.js"))
    return _put(page, DATA_MARK, embedded_json(data)).encode("utf-8")


def page_bytes(run, templates: dict | None = None, app_name: str = DEFAULT_APP_NAME, stop: int | None = None,
               fold_above: int | None = AUTO_FOLD_STEPS, title: str | None = None, redact: bool = False) -> bytes:
    """The shared page of `run` with this template map and app name, opening at `stop` (0-based; None: the
    start) unless its link names another moment. `redact`: the run's content redacted as the library's content
    redactor does (formats/redacted.py); the page says so."""
    outcome = None
    if redact:
        outcome = run_outcome(run)
        run = redacted_copy(run)
    data = share_data(run, templates, app_name, fold_above=fold_above, title=title, outcome=outcome)
    data["startStop"] = None if stop is None or not data["stops"] else max(0, min(stop, len(data["stops"]) - 1))
    return render_page(data)
