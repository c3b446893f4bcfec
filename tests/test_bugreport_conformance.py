"""Every bug-report bundle of tests/corpus/bundles, opened through the command line: each conversation's
StepGraph, milestone stops and status rows equal the library's own (NAME.refs/<conversation id>/)."""

from __future__ import annotations

import orjson
import pytest

from afp_desktop import cli
from afp_desktop.core.jsonx import jsonio
from afp_desktop.core.formats import open_run
from tests.bundle_util import BUNDLE_ZIPS, refs_of
from tests.corpus_util import CUSTOM_TEMPLATES

CASES = [(bundle, conv) for bundle in BUNDLE_ZIPS for conv in refs_of(bundle)]


def run_cli(capsysbinary, *argv):
    code = cli.main([*map(str, argv)])
    out = capsysbinary.readouterr()
    assert code == 0, out.err.decode()
    return orjson.loads(out.out)


def ref(bundle, conv, name):
    return jsonio.loads((refs_of(bundle)[conv] / name).read_bytes())


def test_the_corpus_has_bundles_and_refs():
    assert len(BUNDLE_ZIPS) >= 2 and len(CASES) >= len(BUNDLE_ZIPS)


@pytest.mark.parametrize("bundle", BUNDLE_ZIPS, ids=lambda p: p.stem)
def test_the_bundles_conversations_are_those_of_the_refs(bundle):
    assert open_run(bundle).bundle.conversation_ids == tuple(refs_of(bundle))


@pytest.mark.parametrize("bundle,conv", CASES, ids=lambda v: getattr(v, "stem", v))
def test_stepgraph_equals_reference(capsysbinary, bundle, conv):
    assert run_cli(capsysbinary, "stepgraph", bundle, "--conversation", conv) == ref(bundle, conv,
                                                                                   "ref.stepgraph.json")


@pytest.mark.parametrize("bundle,conv", CASES, ids=lambda v: getattr(v, "stem", v))
def test_stops_equal_milestone_stops(capsysbinary, bundle, conv):
    stops = run_cli(capsysbinary, "stops", bundle, "--conversation", conv)
    assert stops == ref(bundle, conv, "ref.milestones.json")["milestoneStops"]


@pytest.mark.parametrize("bundle,conv", CASES, ids=lambda v: getattr(v, "stem", v))
def test_status_equals_reference_with_default_and_custom_templates(capsysbinary, bundle, conv):
    expected_rows = ref(bundle, conv, "ref.status.json")
    default = run_cli(capsysbinary, "status", bundle, "--conversation", conv, "--app-name", "Ada")
    custom = run_cli(capsysbinary, "status", bundle, "--conversation", conv, "--app-name", "Ada",
                     "--templates", CUSTOM_TEMPLATES)
    assert len(default) == len(custom) == len(expected_rows)
    for row, row_custom, expected in zip(default, custom, expected_rows):
        assert row["k"] == row_custom["k"] == expected["k"]
        assert row["state"] == expected["state"], f"k={row['k']}"
        assert row["line"] == expected["line_default"], f"k={row['k']}"
        assert row_custom["line"] == expected["line_custom"], f"k={row['k']}"


@pytest.mark.parametrize("bundle", BUNDLE_ZIPS, ids=lambda p: p.stem)
def test_the_only_conversation_is_the_default(capsysbinary, bundle):
    (conv,) = refs_of(bundle)
    assert run_cli(capsysbinary, "stepgraph", bundle) == ref(bundle, conv, "ref.stepgraph.json")
