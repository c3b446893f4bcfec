"""Property-based fuzzing of every format and every JSON command with Hypothesis (issue 10). The example counts
are bounded so the suite stays quick (about a minute in all); bench/fuzz_long.py runs the same with many more."""

from __future__ import annotations

import os
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz_cases import FORMATS, check_file, file_bytes, hostile_documents, json_values, suffix_of
from tests.hostile_inputs import run_cli
from tests.template_cases import amplifying_templates

EXAMPLES = int(os.environ.get("AFP_FUZZ_EXAMPLES", "60"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.mark.parametrize("fmt", FORMATS)
def test_hostile_documents_of_every_format(fmt):
    @FUZZ
    @given(hostile_documents(fmt))
    def run(case):
        fmt_, document = case
        check_file(file_bytes(fmt_, document), suffix_of(fmt_))

    run()


@FUZZ
@given(st.binary(max_size=300), st.sampled_from([b"", b"\x1f\x8b", b"\xfd7zXZ\x00", b'{"format":"afp-desktop.run.',
                                                  b'{"type":"x","meta":{}}\n', b"\xef\xbb\xbf{"]))
def test_arbitrary_bytes(tail, head):
    check_file(head + tail, ".json")


@FUZZ
@given(json_values)
def test_template_maps_of_any_shape(value):
    from tests.corpus_util import corpus_path
    from tests.fuzz_cases import file_bytes as encode_value

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "map.json")
        data = encode_value("trace", value, depth=1500)
        with open(path, "wb") as handle:
            handle.write(data)
        code, out, err = run_cli(["status", str(corpus_path("01-llmcall-single", "events.ndjson")),
                                  "--templates", path])
        assert code in (0, 2) and "Traceback" not in err, err
        with open(path, "rb") as handle:
            assert handle.read() == data


@FUZZ
@given(st.dictionaries(st.sampled_from(["idle", "streaming", "tool", "paused", "tool.progress",
                                        "tool.progress.generic", "tool.get_weather"]), amplifying_templates(),
                       max_size=4),
       st.one_of(st.text(max_size=6).map(lambda t: t * 800), st.sampled_from(["", "\x00\x1b[2J", "{{appName}}"])),
       st.sampled_from(["status", "replay"]))
def test_templates_with_an_app_name_give_bounded_lines(templates, app_name, command):
    """Any template map (repeating placeholders thousands of times) with any --app-name: every line is bounded
    (each value once plus LINE_ALLOWANCE), and the map is left as it was."""
    import json

    from afp_desktop.core.library.template_render import LINE_ALLOWANCE
    from tests.corpus_util import corpus_path

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "map.json")
        data = json.dumps(templates).encode()
        with open(path, "wb") as handle:
            handle.write(data)
        code, out, err = run_cli([command, str(corpus_path("02-react-two-tools", "events.ndjson")), "--templates",
                                  path, "--app-name", app_name])
        assert code == 0 and "Traceback" not in err, err
        result = json.loads(out)
        lines = [row["line"] for row in result] if command == "status" else \
            [line for stop in result["stops"] for line in stop["lines"]]
        bound = len(app_name) + 200 + LINE_ALLOWANCE + 30  # (the run's own values are short)
        assert all(line is None or len(line) <= bound for line in lines)
        with open(path, "rb") as handle:
            assert handle.read() == data


# ── find: any text as a query, plain or as a regular expression ────────────────────────────────────────────

_REGEX_PIECES = st.text(alphabet="()[]{}*+?|.^$\\aAbx019,:-=!<>PEwsdDSWZ#&~", max_size=40)
_find_runs: dict = {}


def _find_run():
    """A small run whose texts invite backtracking (long runs of one letter, blanks, a lone '!')."""
    if "run" not in _find_runs:
        from pathlib import Path

        from afp_desktop.core.formats import open_run
        from afp_desktop.core.views.search import SearchIndex
        from tests.find_util import write_many_calls

        folder = Path(tempfile.mkdtemp(prefix="afp-find-fuzz-"))
        path = write_many_calls(folder / "small.ndjson", 6,
                                lambda i: "a" * 30 + "!" + " " * 30 + "#x" + "ab" * 20 + "\nÉé İ ß\x00")
        _find_runs["path"] = path
        _find_runs["run"] = open_run(path).prepare()
        _find_runs["index"] = SearchIndex(_find_runs["run"])
    return _find_runs


@FUZZ
@given(st.one_of(st.text(max_size=60), _REGEX_PIECES), st.booleans(), st.booleans())
def test_any_find_query_gives_hits_or_one_sentence(query, regex, ignore_case):
    from afp_desktop.core.views.search import QueryError

    index = _find_run()["index"]
    try:
        result = index.find(query, regex=regex, ignore_case=ignore_case, limit=50, time_limit=1.0)
    except QueryError as err:
        message = str(err)
        assert message and "\n" not in message and len(message) < 400, message
    else:
        assert len(result) <= 50
        for hit in result:
            assert hit.match[1] > hit.match[0] and "\n" not in hit.excerpt


@settings(max_examples=max(10, EXAMPLES // 3), deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=40).filter(lambda q: not q.startswith("-")), _REGEX_PIECES), st.booleans())
def test_any_find_query_on_the_command_line(query, regex):
    import json

    from afp_desktop.core.views import search_limits

    path = _find_run()["path"]
    limit = search_limits.DEFAULT_TIME_LIMIT_S
    search_limits.DEFAULT_TIME_LIMIT_S = 1.0
    try:
        code, out, err = run_cli(["find", path, "--max-hits", "20", *(["--regex"] if regex else []), "--", query])
    finally:
        search_limits.DEFAULT_TIME_LIMIT_S = limit
    assert code in (0, 2) and "Traceback" not in err, err
    if code == 0:
        assert len(json.loads(out)) <= 20
    else:
        assert out == b"" and err.startswith("afp-desktop: ") and err.count("\n") == 1, err
