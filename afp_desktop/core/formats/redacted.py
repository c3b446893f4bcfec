"""A run with its content redacted as the library's ready-made content redactor does (`redactContent`,
library/redact.py): the Trace the library would write with it, opened as such. Pure, no Qt.

The copy is a Trace (`redaction: "pii"`): its DomainEvents are the run's, each redacted; the typed event stream
is not carried over (its events hold the same content unredacted: tokens, arguments, results), so what the
bubble shows is derived from the LLM and tool starts and ends, as for any Trace. The snapshot is kept for the
stops (its commit log places them); nothing of it is shown.
"""

from __future__ import annotations

from afp_desktop.core.breathing import breathing_over
from afp_desktop.core.formats.assemble import run_from_document
from afp_desktop.core.library.redact import redact_content
from afp_desktop.core.model.run import Run

REDACTION = "pii"


def redacted_copy(run: Run) -> Run:
    """`run` as the library's redacted Trace of it."""
    events = [redact_content(event) for event in breathing_over(run.domain_events)]
    doc = {"version": 1, "events": events, "structure": run.structure, "redaction": REDACTION}
    if run.snapshot is not None:
        doc["snapshot"] = run.snapshot
    return run_from_document(doc, run.path)

