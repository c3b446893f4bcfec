"""The shared page in a real browser (Debian's `chromium`, headless): the DOM at `#stop=N` and `#position=P` shows
what `afp-desktop view` says the window shows there — the stop label, the lines seen during the stop, the
prompt, the status line, the error under the bubble, which steps have started and which are in progress — and
nothing that has not started is shown. Skipped when chromium is not installed (CI installs it)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from afp_desktop.core.formats import open_run
from tests.corpus_util import corpus_path
from tests.hostile_inputs import run_cli

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="the browser test needs Debian's chromium package "
                                                          "(apt-get install chromium); it is not installed here")
TEXT_IDS = ("stop-label", "prompt", "status", "bubble-error", "answer", "ending")


class PageDom(HTMLParser):
    """What the test reads of a dumped DOM: texts by id, the stop's lines, each graph node's state and display."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.texts: dict[str, str] = {}
        self.attrs: dict[str, dict] = {}
        self.lines: list[str] = []
        self.nodes: dict[int, tuple[str, bool]] = {}  # shown index: (data-state, displayed)
        self._open: list[tuple[str, str | None]] = []  # (tag, id or "li")
        self.link: str | None = None  # the moment's link the page wrote into its address

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "g" and "data-index" in attrs:
            self.nodes[int(attrs["data-index"])] = (attrs.get("data-state", ""),
                                                    "display: none" not in (attrs.get("style") or ""))
        ident = attrs.get("id")
        if ident in TEXT_IDS:
            self.attrs[ident] = attrs
            self.texts[ident] = ""
        if tag == "li" and self._open and self._open[-1][1] == "stop-lines":
            self.lines.append("")
            ident = "li"
        if tag not in ("br", "meta", "input", "path", "rect"):
            self._open.append((tag, ident))

    def handle_endtag(self, tag):
        while self._open:
            opened, _ = self._open.pop()
            if opened == tag:
                break

    def handle_data(self, data):
        for _tag, ident in reversed(self._open):
            if ident == "li":
                self.lines[-1] += data
                return
            if ident in TEXT_IDS:
                self.texts[ident] += data
                return

    def shown(self, ident: str) -> bool:
        return "hidden" not in self.attrs[ident]


def dump_dom(page: Path, fragment: str, settle: bool = False) -> PageDom:
    """The DOM once the page has loaded (`settle`: and its timers have run, on the browser's virtual clock)."""
    wait = ["--virtual-time-budget=3000"] if settle else []
    done = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", *wait, "--dump-dom",
                           f"{page.as_uri()}#{fragment}"], capture_output=True, timeout=120, check=True)
    dom = PageDom()
    text = done.stdout.decode("utf-8")
    dom.feed(text)
    link = re.search(r'<body[^>]*data-link="([^"]*)"', text)
    dom.link = link.group(1) if link else None
    assert "stop-label" in dom.texts, "the page did not render (no stop label)"
    return dom


def view(source: Path, *where: str) -> dict:
    code, out, err = run_cli(["view", str(source), *where])
    assert code == 0, err
    return json.loads(out)


def check_moment(dom: PageDom, expected: dict, ids: list[str]) -> None:
    stop = expected["stop"]
    if stop is not None:
        assert stop["label"] in dom.texts["stop-label"]
        assert dom.attrs["stop-label"]["data-stop"] == str(stop["index"])
        assert dom.attrs["stop-label"]["data-at-stop"] == ("true" if stop["atStop"] else "false")
    bubble = expected["bubble"]
    assert dom.lines == bubble["stopLines"]
    assert (dom.texts["prompt"] if dom.shown("prompt") else None) == bubble["user"]
    if bubble["line"] is not None:
        assert dom.texts["status"] == bubble["line"]
    assert (dom.texts["bubble-error"] if dom.shown("bubble-error") else None) == bubble["error"]
    assert (dom.texts["answer"] if dom.shown("answer") else None) == bubble["answer"]
    graph = expected["graph"]
    started = {ids[i] for i, (state, _shown) in dom.nodes.items() if state != "not-started"}
    assert started == set(graph["done"]) | set(graph["active"])
    assert {ids[i] for i, (state, _) in dom.nodes.items() if state == "active"} == set(graph["active"])
    for _index, (state, displayed) in dom.nodes.items():
        assert displayed == (state != "not-started")  # nothing from after the cursor is shown


@pytest.mark.parametrize("scenario, name, stops, positions", [
    ("02-react-two-tools", "events.ndjson", [0, 5, 9], [40]),
    ("12-tool-throws", "trace.json", [4, 12], []),
    ("21-stream-error", "recording.json", [13], [30]),
    ("05-streaming-tokens", "events.ndjson", [2], [40, 60]),  # (the status line while the reply streams)
])
def test_the_page_at_a_stop_shows_what_view_says(tmp_path, scenario, name, stops, positions):
    source = tmp_path / Path(name).name
    original = corpus_path(scenario, name)
    source = tmp_path / original.name
    shutil.copy(original, source)
    page = tmp_path / "run.html"
    code, _, err = run_cli(["share", str(source), "-o", str(page)])
    assert code == 0, err
    ids = [node.get("id") for node in open_run(source).stepgraph["nodes"]]
    for stop in stops:
        dom = dump_dom(page, f"stop={stop}")
        check_moment(dom, view(source, "--stop", str(stop)), ids)
        assert dom.texts["stop-label"].startswith(f"Stop {stop + 1} of ")
    for position in positions:
        dom = dump_dom(page, f"position={position}")
        check_moment(dom, view(source, "--position", str(position)), ids)


def test_the_page_opens_at_the_shared_stop_and_says_how_the_run_ended(tmp_path):
    source = corpus_path("21-stream-error", "recording.json")
    page = tmp_path / "run.html"
    code, _, err = run_cli(["share", str(source), "-o", str(page), "--stop", "2"])
    assert code == 0, err
    dom = dump_dom(page, "")
    assert dom.texts["stop-label"].startswith("Stop 3 of ")
    assert not dom.shown("ending")
    end = dump_dom(page, "position=999999")  # (clamped to the run's end)
    assert end.shown("ending") and end.texts["ending"].startswith("The run failed: ")


def test_the_address_follows_the_cursor(tmp_path):
    source = corpus_path("02-react-two-tools", "events.ndjson")
    page = tmp_path / "run.html"
    code, _, err = run_cli(["share", str(source), "-o", str(page)])
    assert code == 0, err
    stop_end = view(source, "--stop", "4")["position"]
    at_stop = dump_dom(page, f"position={stop_end}", settle=True)  # a position where a stop is: its stop's link
    assert at_stop.link == "#stop=4" and at_stop.attrs["stop-label"]["data-at-stop"] == "true"
    inside = dump_dom(page, f"position={stop_end - 1}", settle=True)
    assert inside.link == f"#position={stop_end - 1}"
    assert dump_dom(page, "", settle=True).link == "#position=0"  # (no link: the start)
