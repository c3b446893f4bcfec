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
