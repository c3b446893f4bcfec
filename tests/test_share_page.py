"""The shared replay page: its data agrees with the replay the window shows, trace text stays text inside the
page's data block, long payloads are cut with a marker, --redact redacts as the library's redactor does, and the
`share` command writes through the safe writer and refuses what it must."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from afp_desktop.core.formats import open_run
from afp_desktop.core.formats.redacted import redacted_copy
from afp_desktop.core.jsonx import jsonio
from afp_desktop.core.model.replay import Replay
from afp_desktop.core.views import share_html
from afp_desktop.core.views.share_html import embedded_json, page_bytes
from afp_desktop.core.views.inspect import inspect_node
from afp_desktop.core.views.share_page import TEXT_BOUND, bounded_value, share_data
from tests.corpus_util import corpus_path, load_json, read_bytes
from tests.hostile_inputs import run_cli

HOSTILE = ("<script>alert(1)</script>", "<img src=x onerror=alert(2)>", "javascript:alert(3)",
           "</script><script>alert(4)</script>", "a & b \u2028 c \u2029 d")
DATA_BLOCK = re.compile(rb'<script type="application/json" id="run-data">(.*?)</script>', re.S)


def split_page(page: bytes) -> tuple[bytes, bytes]:
    """(the page without its data block, the data block's text)."""
    found = DATA_BLOCK.findall(page)
    assert len(found) == 1, "the page has exactly one data block"
    return DATA_BLOCK.sub(b"", page), found[0]


def stop_lines_at(rows: list, position: int) -> list[str]:
    """A stop's lines seen by `position`, as the page's script reads its rows."""
    lines: list[str] = []
    for row in rows:
        if row[1] <= position:
            lines.append(lines[-1] + row[0] if len(row) > 2 else row[0])
    return lines


def hostile_run_file(tmp_path: Path) -> Path:
    """02-react-two-tools with its prompt, a tool's name and a tool's result replaced by hostile text."""
    text = read_bytes("02-react-two-tools", "events.ndjson").decode("utf-8")
    prompt, tool, result = (json.dumps(HOSTILE[0] + " " + HOSTILE[2]), json.dumps(HOSTILE[1] + HOSTILE[4]),
                            json.dumps(HOSTILE[3] + " " + HOSTILE[2]))
    text = text.replace('"Weather in Oslo in Fahrenheit?"', prompt)
    text = text.replace('"get_weather"', tool).replace('"Oslo: 18°C, light rain"', result)
    path = tmp_path / "hostile.ndjson"
    path.write_text(text, encoding="utf-8")
    return path


def test_hostile_text_in_prompts_tool_names_and_results_stays_inside_the_escaped_data_block(tmp_path):
    page = page_bytes(open_run(hostile_run_file(tmp_path)))
    outside, block = split_page(page)
    # outside the data block every page is the same template, whatever its run holds
    assert outside == split_page(page_bytes(open_run(corpus_path("01-llmcall-single", "events.ndjson"))))[0]
    for needle in (b"alert(", b"onerror", b"javascript:", "\u2028".encode(), "\u2029".encode()):
        assert needle not in outside, needle  # no trace text anywhere but the data block
    for char in (b"<", b">", b"&", "\u2028".encode(), "\u2029".encode()):
        assert char not in block, char  # the block can never close its element or hold markup
    data = json.loads(block)
    texts = json.dumps(data, ensure_ascii=False)
    for hostile in HOSTILE:  # …and the text is all there, as text (so the page shows it as typed)
        assert json.dumps(hostile, ensure_ascii=False)[1:-1] in texts, hostile
    labels = [node[5] for node in data["graph"]["nodes"]]
    assert any(HOSTILE[1] in label for label in labels)
    assert [row[1] for row in data["prompts"]] == [HOSTILE[0] + " " + HOSTILE[2]]


def test_the_page_script_never_writes_markup():
    script = (Path(share_html.__file__).parent / "share_assets" / "page.js").read_text(encoding="utf-8")
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "Function(",
                 "setAttribute('href", "setAttribute(\"href", ".src ="):
        assert sink not in script, sink
    assert "textContent" in script


def test_the_page_forbids_fetching_anything():
    page = page_bytes(open_run(corpus_path("01-llmcall-single", "events.ndjson"))).decode("utf-8")
    assert ('<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; script-src \'unsafe-inline\'; '
            'style-src \'unsafe-inline\'; img-src data:">') in page
    outside, _block = split_page(page.encode("utf-8"))
    assert not re.search(rb"""(src|href)\s*=\s*["']?(https?:|//)""", outside)  # nothing to load, not even a font
    assert b"@import" not in outside and b"url(http" not in outside


@settings(max_examples=300, deadline=None)
@given(st.recursive(st.text() | st.integers() | st.none() | st.booleans(),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
                    max_leaves=12))
def test_embedded_json_is_safe_in_a_script_element_and_reads_back_as_the_value(value):
    text = embedded_json(value)
    assert not set(text) & {"<", ">", "&", "\u2028", "\u2029"}
    assert jsonio.loads(text.encode("utf-8")) == value


def test_a_payload_bigger_than_the_bound_is_cut_with_a_marker_saying_how_much_was_left_out(tmp_path):
    text = read_bytes("02-react-two-tools", "events.ndjson").decode("utf-8")
    huge = "x" * (TEXT_BOUND * 20)
    path = tmp_path / "huge.ndjson"
    path.write_text(text.replace('"Oslo: 18°C, light rain"', json.dumps(huge)), encoding="utf-8")
    page = page_bytes(open_run(path))
    assert len(page) < len(huge)  # the result is not carried whole
    block = split_page(page)[1].decode("utf-8")
    assert f"[{len(huge) - TEXT_BOUND:,} more characters are not in this page]" in block


@pytest.mark.parametrize("scenario, name", [("02-react-two-tools", "events.ndjson"),
                                            ("02-react-two-tools", "trace.json"),
                                            ("12-tool-throws", "events.ndjson"),
                                            ("21-stream-error", "recording.json"),
                                            ("07-flow-sequence", "recording.json")])
def test_the_data_tells_the_stops_lines_steps_and_errors_the_replay_tells(scenario, name):
    run = open_run(corpus_path(scenario, name))
    data = share_data(run)
    replay = Replay(run)
    assert [stop[0] for stop in data["stops"]] == [span.label for span in replay.spans]
    assert [[stop[2], stop[3]] for stop in data["stops"]] == [[span.start, span.end] for span in replay.spans]
    for span, rows in zip(replay.spans, data["stopLines"]):
        assert stop_lines_at(rows, span.end) == list(replay.lines_of(span))
        for position in range(span.start, span.end + 1):  # inside the span: the lines seen by then
            if position == span.start and span.index:
                continue  # (that position is the stop before's)
            assert stop_lines_at(rows, position) == list(replay.lines_until(span, position)), (span.index, position)
    steps = data["steps"]
    for position in range(0, replay.length + 1, max(1, replay.length // 40)):
        moment = replay.moment(position)
        started = [i for i, start in enumerate(steps["starts"]) if start <= position]
        assert len(started) == moment.nodes_started
        active = [i for i in started if steps["ends"][i] is None or steps["ends"][i] > position]
        assert set(active) == set(moment.active_nodes)
    assert [error[:3] for error in data["errors"]] == [[e.position, e.kind, e.message] for e in replay.facts.errors]
    for span in replay.spans:  # at every stop: each step that has started reads as the inspector reads it there
        for k, node in enumerate(data["graph"]["nodes"]):
            if node[6] > span.end:
                continue
            known = [ids for at, ids in node[8] if at <= span.end][-1]
            expected = bounded_value(inspect_node(run, replay.facts, k, span.end)["sections"], TEXT_BOUND)
            assert [data["sections"][i] for i in known] == expected, (span.index, k)
    if scenario == "21-stream-error":
        assert data["ending"]["outcome"] == "failed"
    else:
        assert data["ending"]["outcome"] == "completed"


def test_a_big_graph_is_shown_folded_as_the_window_shows_it():
    run = open_run(corpus_path("15-large-run", "trace.json"))
    folded = share_data(run, fold_above=500)
    whole = share_data(run, fold_above=None)
    assert folded["graph"]["folded"] and not whole["graph"]["folded"]
    assert len(folded["graph"]["nodes"]) < len(whole["graph"]["nodes"]) == len(run.stepgraph["nodes"])
    assert max(folded["steps"]["shown"]) == len(folded["graph"]["nodes"]) - 1


@pytest.mark.parametrize("scenario", ["02-react-two-tools", "12-tool-throws", "14-context-injections",
                                      "06-pause-resume"])
def test_redact_matches_the_librarys_redacted_trace(scenario):
    redacted = redacted_copy(open_run(corpus_path(scenario, "trace.json")))
    reference = load_json(scenario, "trace.redacted.json")
    assert redacted.redaction == reference["redaction"] == "pii"
    assert redacted.domain_events == reference["events"]
    assert redacted.stepgraph == load_json(scenario, "ref.stepgraph.redacted.json")


def test_a_redacted_page_says_so_and_holds_none_of_the_content(tmp_path):
    source = corpus_path("02-react-two-tools", "events.ndjson")
    full = page_bytes(open_run(source))
    redacted = page_bytes(open_run(source), redact=True)
    for secret in ("Oslo: 18°C, light rain", "18°C = 64°F"):
        assert secret.encode("utf-8") in full
        assert secret.encode("utf-8") not in redacted
    assert json.loads(split_page(redacted)[1])["redaction"] == "redacted"
    assert json.loads(split_page(full)[1])["redaction"] == "full"
    # the redacted copy is a Trace, without the typed events that said the turn ended: the page still knows
    assert json.loads(split_page(redacted)[1])["ending"]["outcome"] == "completed"


def test_share_writes_one_page_that_opens_at_the_stop_asked(tmp_path):
    source = tmp_path / "run.ndjson"
    shutil.copy(corpus_path("02-react-two-tools", "events.ndjson"), source)
    out = tmp_path / "run.html"
    code, _, err = run_cli(["share", str(source), "-o", str(out), "--stop", "3", "--app-name", "Ada"])
    assert code == 0, err
    assert "contains the full conversation" in err
    data = json.loads(split_page(out.read_bytes())[1])
    assert data["startStop"] == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.html", "run.ndjson"]  # no temporary file left
    code, _, err = run_cli(["share", str(source), "-o", str(tmp_path / "r.html"), "--redact"])
    assert code == 0 and "redacted" in err


def test_share_with_custom_templates_lists_their_lines(tmp_path):
    out = tmp_path / "run.html"
    templates = tmp_path / "map.json"
    templates.write_text(json.dumps({"tool": "Busy with {{toolName}}, {{appName}}", "idle": "Idle"}))
    code, _, err = run_cli(["share", str(corpus_path("02-react-two-tools", "events.ndjson")), "-o", str(out),
                            "--templates", str(templates), "--app-name", "Ada"])
    assert code == 0, err
    lines = {line for stop in json.loads(split_page(out.read_bytes())[1])["stopLines"]
             for line in stop_lines_at(stop, 10 ** 9)}
    assert "Busy with get_weather, Ada" in lines


@pytest.mark.parametrize("argv, message", [
    (["--stop", "999"], "--stop 999: this run has stops 0 to"),
    (["--templates", "missing.json"], "cannot read the template map"),
])
def test_share_refuses_bad_options_in_one_sentence(tmp_path, argv, message):
    code, _, err = run_cli(["share", str(corpus_path("02-react-two-tools", "events.ndjson")), "-o",
                            str(tmp_path / "out.html"), *argv])
    assert code == 2 and message in err and "Traceback" not in err
    assert not (tmp_path / "out.html").exists()


def test_share_never_overwrites_its_input(tmp_path):
    source = tmp_path / "run.ndjson"
    shutil.copy(corpus_path("02-react-two-tools", "events.ndjson"), source)
    before = source.read_bytes()
    code, _, err = run_cli(["share", str(source), "-o", str(source)])
    assert code == 2 and "refusing to overwrite the input" in err
    assert source.read_bytes() == before


def test_the_page_template_ships_with_the_package_and_the_bundle():
    import fnmatch
    import tomllib

    root = Path(__file__).resolve().parents[1]
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert "afp_desktop.core.views" in config["packages"]
    globs = config["package-data"]["afp_desktop.core.views"]
    assets = Path(share_html.__file__).parent / share_html.ASSETS
    files = [path.relative_to(assets.parent).as_posix() for path in assets.iterdir()]
    assert sorted(files) == sorted(f"{share_html.ASSETS}/page.{suffix}" for suffix in ("html", "js", "css"))
    assert all(any(fnmatch.fnmatch(name, glob) for glob in globs) for name in files)
    assert "share_assets" in (root / "packaging" / "afp-desktop.spec").read_text(encoding="utf-8")


def test_a_long_streamed_line_is_given_as_what_each_token_added_and_cut_once_long(tmp_path):
    from afp_desktop.core.views.share_page import LINE_BOUND, LINE_CUT_MARK

    lines = read_bytes("05-streaming-tokens", "events.ndjson").decode("utf-8").splitlines()
    token = next(line for line in lines if '"agentfootprint.stream.token"' in line)
    longer = [line for line in lines if line != token]
    at = lines.index(token)
    many = [token.replace(json.dumps(json.loads(token)["payload"]["content"]), json.dumps("word" * 20))] * 400
    path = tmp_path / "long.ndjson"
    path.write_text("\n".join(longer[:at] + many + longer[at:]) + "\n", encoding="utf-8")
    run = open_run(path)
    status = share_data(run)["status"]
    added = [row for row in status if row[1] == "+"]
    assert len(added) > 10
    chain = "".join(row[2] for row in added[:1])
    assert len(chain) < 200  # an appended piece, not the whole line again
    assert any(row[2].endswith(LINE_CUT_MARK) for row in added)
    assert len(jsonio.dumps(status)) < 40 * LINE_BOUND  # not 400 copies of a growing line


@settings(max_examples=40, deadline=None)
@given(prompt=st.text(min_size=1, max_size=40), tool=st.text(min_size=1, max_size=20),
       result=st.text(max_size=60))
def test_any_text_in_a_prompt_a_tool_name_or_a_result_stays_in_the_data_block(tmp_path_factory, prompt, tool,
                                                                               result):
    text = read_bytes("02-react-two-tools", "events.ndjson").decode("utf-8")
    text = text.replace('"Weather in Oslo in Fahrenheit?"', json.dumps(prompt))
    text = text.replace('"get_weather"', json.dumps(tool)).replace('"Oslo: 18°C, light rain"', json.dumps(result))
    path = tmp_path_factory.mktemp("any") / "run.ndjson"
    path.write_text(text, encoding="utf-8")
    page = page_bytes(open_run(path))
    outside, block = split_page(page)
    assert outside == split_page(page_bytes(open_run(corpus_path("01-llmcall-single", "events.ndjson"))))[0]
    assert not set(block.decode("utf-8")) & {"<", ">", "&", "\u2028", "\u2029"}
    data = jsonio.loads(block)
    assert [row[1] for row in data["prompts"]] == [prompt]


@pytest.mark.parametrize("fmt", ["ndjson", "trace", "recording"])
def test_share_takes_any_hostile_file_in_its_stride(tmp_path_factory, fmt):
    """A mangled file of any format: a page (or, for `--redact`, a redacted page) with every trace text inside
    its data block, or one sentence; never a traceback, never a written input."""
    from hypothesis import HealthCheck

    from tests.fuzz_cases import file_bytes, hostile_documents, suffix_of

    template = split_page(page_bytes(open_run(corpus_path("01-llmcall-single", "events.ndjson"))))[0]

    @settings(max_examples=25, deadline=None, database=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(hostile_documents(fmt), st.booleans())
    def run(case, redact):
        folder = tmp_path_factory.mktemp("hostile")
        source = folder / ("case" + suffix_of(case[0]))
        data = file_bytes(*case)
        source.write_bytes(data)
        out = folder / "page.html"
        code, _, err = run_cli(["share", str(source), "-o", str(out), *(["--redact"] if redact else [])])
        assert code in (0, 2) and "Traceback" not in err, err
        assert source.read_bytes() == data
        if code == 0:
            outside, block = split_page(out.read_bytes())
            assert outside == template
            assert jsonio.loads(block)["redaction"] == ("redacted" if redact else jsonio.loads(block)["redaction"])
        else:
            assert err.startswith("afp-desktop: ") and not out.exists()

    run()
