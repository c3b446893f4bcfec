"""Conformance through the command line: every corpus scenario's projections equal the library's own."""

from __future__ import annotations

import orjson
import pytest

from afp_desktop import cli
from tests.corpus_util import CUSTOM_TEMPLATES, SCENARIOS, corpus_path, load_json


def run_cli(capsysbinary, *argv):
    code = cli.main([*map(str, argv)])
    out = capsysbinary.readouterr()
    assert code == 0, out.err.decode()
    return orjson.loads(out.out)


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("trace_name,ref_name", [("trace.json", "ref.stepgraph.json"),
                                                 ("trace.redacted.json", "ref.stepgraph.redacted.json")])
def test_stepgraph_equals_reference(capsysbinary, scenario, trace_name, ref_name):
    graph = run_cli(capsysbinary, "stepgraph", corpus_path(scenario, trace_name))
    assert graph == load_json(scenario, ref_name)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_status_equals_reference_with_default_and_custom_templates(capsysbinary, scenario):
    ref = load_json(scenario, "ref.status.json")
    events = corpus_path(scenario, "events.ndjson")
    default = run_cli(capsysbinary, "status", events, "--app-name", "Ada")
    custom = run_cli(capsysbinary, "status", events, "--app-name", "Ada", "--templates", CUSTOM_TEMPLATES)
    assert len(default) == len(custom) == len(ref)
    for row, row_custom, expected in zip(default, custom, ref):
        assert row["k"] == row_custom["k"] == expected["k"]
        assert row["state"] == expected["state"], f"k={row['k']}"
        assert row["line"] == expected["line_default"], f"k={row['k']}"
        assert row_custom["line"] == expected["line_custom"], f"k={row['k']}"


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_stops_of_recording_equal_milestone_stops(capsysbinary, scenario):
    stops = run_cli(capsysbinary, "stops", corpus_path(scenario, "recording.json"))
    assert stops == load_json(scenario, "ref.milestones.json")["milestoneStops"]


def test_status_default_app_name_is_agent(capsysbinary):
    rows = run_cli(capsysbinary, "status", corpus_path("02-react-two-tools", "events.ndjson"),
                   "--templates", CUSTOM_TEMPLATES)
    lines = [r["line"] for r in rows if r["line"]]
    assert any(line.startswith("Agent ") for line in lines)
    assert not any("Ada" in line for line in lines)


def test_status_of_a_trace_is_a_clear_error(capsysbinary):
    code = cli.main(["status", str(corpus_path("02-react-two-tools", "trace.json"))])
    err = capsysbinary.readouterr().err.decode()
    assert code == 2
    assert "no typed event stream" in err and "Traceback" not in err


def test_bad_template_map_is_a_clear_error(tmp_path, capsysbinary):
    bad = tmp_path / "map.json"
    bad.write_text('{"idle": 3}')
    code = cli.main(["status", str(corpus_path("01-llmcall-single", "events.ndjson")), "--templates", str(bad)])
    assert code == 2
    assert "must be a string" in capsysbinary.readouterr().err.decode()
    bad.write_text('{"idle": ')
    code = cli.main(["status", str(corpus_path("01-llmcall-single", "events.ndjson")), "--templates", str(bad)])
    assert code == 2
    assert "line 1" in capsysbinary.readouterr().err.decode()


def test_info_names_format_and_what_is_missing(capsysbinary):
    assert cli.main(["info", str(corpus_path("02-react-two-tools", "events.ndjson"))]) == 0
    out = capsysbinary.readouterr().out.decode()
    assert "NDJSON event stream" in out
    assert "no commit log" in out and "Only the typed event stream" in out
    assert "LLM calls:   3" in out


def test_help_and_version(capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["--version"])
    assert exit_info.value.code == 0
    assert "afp-desktop 0." in capsys.readouterr().out
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    text = capsys.readouterr().out
    for word in ("stepgraph", "status", "stops", "info", "convert", "export", "NDJSON", "Trace v1", "packed"):
        assert word in text
