"""Every typed event type the library declares has a home (where it shows, what it says); an unknown type is
counted, never dropped."""

from __future__ import annotations

from pathlib import Path

from afp_desktop.core.formats.assemble import run_from_typed
from afp_desktop.core.library.event_homes import EVENT_HOMES, PLACES, UNKNOWN_HOME, home_of, short_type
from afp_desktop.core.views.run_facts import event_type_counts

# The 107 types agentfootprint 9.62 declares (src/events/registry.ts), as its event catalogue lists them.
DECLARED = Path(__file__).parent / "data" / "declared_event_types.txt"


def declared_types() -> list[str]:
    return [line.strip() for line in DECLARED.read_text().splitlines() if line.strip()]


def test_every_declared_type_has_a_home():
    declared = declared_types()
    assert len(declared) == len(set(declared)) == 107
    missing = [t for t in declared if t not in EVENT_HOMES]
    assert missing == []


def test_the_table_holds_no_type_the_library_does_not_declare():
    assert sorted(set(EVENT_HOMES) - set(declared_types())) == []


def test_every_home_names_known_places_and_says_something():
    for event_type, home in EVENT_HOMES.items():
        assert home.places and set(home.places) <= set(PLACES), event_type
        assert home.says.strip() and home.says.endswith("."), event_type
        assert "\n" not in home.says


def test_the_findings_the_issue_names_have_the_findings_list_as_a_home():
    for name in ("integrity.context_error", "validation.args_invalid", "permission.check", "permission.halt",
                 "agent.output_schema_retry", "agent.output_schema_validation_failed",
                 "agent.output_contract_unmet", "resilience.output_fallback_triggered", "risk.flagged",
                 "eval.threshold_crossed", "tools.result_refused", "tools.repeated_call",
                 "tools.session_close_failed", "skill.rejected", "agent.thinking_parse_failed", "credential.failed",
                 "cost.limit_hit"):
        assert home_of("agentfootprint." + name).shows_in("findings"), name


def test_an_unknown_type_has_the_generic_home_and_is_counted():
    assert home_of("agentfootprint.future.thing") is UNKNOWN_HOME
    assert home_of(42) is UNKNOWN_HOME and UNKNOWN_HOME.shows_in("timeline")
    assert short_type("agentfootprint.risk.flagged") == "risk.flagged" and short_type("other") == "other"
    meta = {"runtimeStageId": "consumer-emit#0", "wallClockMs": 1}
    events = [{"type": "agentfootprint.future.thing", "payload": {}, "meta": meta},
              {"type": "agentfootprint.future.thing", "payload": {}, "meta": meta},
              {"type": "agentfootprint.risk.flagged", "payload": {}, "meta": meta},
              {"type": 7, "payload": {}, "meta": meta}]
    run = run_from_typed(events, "x.ndjson", "ndjson", [])
    counts = event_type_counts(run)
    assert counts == {"agentfootprint.future.thing": 2, "agentfootprint.risk.flagged": 1, "(no type)": 1}
    assert sum(counts.values()) == len(events)
