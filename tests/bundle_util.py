"""Bug-report bundles for tests: the real ones of tests/corpus/bundles, and zips made here (several
conversations, hostile shapes) from the corpus's recordings."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

from tests.corpus_util import CORPUS, read_bytes

BUNDLES = CORPUS / "bundles"
BUNDLE_ZIPS = sorted(BUNDLES.glob("*.zip"))


def refs_of(bundle: Path) -> dict[str, Path]:
    """conversation id → its refs folder (NAME.refs/<id>/)."""
    folder = bundle.with_suffix(".refs")
    return {p.name: p for p in sorted(folder.iterdir()) if p.is_dir()}


def make_zip(entries: dict[str, bytes | str], method: int = zipfile.ZIP_STORED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", method) as archive:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name)
            info.compress_type = method
            archive.writestr(info, data.encode() if isinstance(data, str) else data)
    return out.getvalue()


def manifest(**changes) -> dict:
    base = {
        "manifestVersion": 2, "createdAt": "2026-11-30T19:28:42.994Z",
        "report": {"title": "Two runs, one bug", "stepsToReproduce": "1. run\n2. look", "expected": "one tool call",
                   "actual": "two tool calls", "appVersion": "1.0.0"},
        "units": [
            {"id": "conv-1", "kind": "conversation", "label": "conv-1 — session s-1: 1 run", "sessionId": "s-1",
             "files": ["conversations/conv-1.json"]},
            {"id": "conv-2", "kind": "conversation", "label": "conv-2 — session s-2: 2 runs", "sessionId": "s-2",
             "files": ["conversations/conv-2.json"]},
            {"id": "conv-3", "kind": "conversation", "label": "conv-3 — session s-3: 1 run", "files": []},
        ],
        "selected": ["conv-1", "conv-2"],
        "excluded": {"conversations": 1, "files": 0, "events": 12, "turns": 2, "unitIds": ["conv-3"]},
        "files": [{"name": "manifest.json", "bytes": 1}, {"name": "conversations/conv-1.json", "bytes": 1},
                  {"name": "conversations/conv-2.json", "bytes": 1}],
        "counts": {"conversations": 2, "runs": 3},
        "redactedKeys": ["apiKey", "email"],
        "warnings": ["The reporter deliberately excluded 1 of 3 conversations from this bundle."],
        "notes": [],
        "environment": {"agentfootprint": "9.62.0", "node": "v20"},
    }
    base.update(changes)
    return base


def recording(scenario: str) -> dict:
    return json.loads(read_bytes(scenario, "recording.json"))


def several_conversations_zip(**manifest_changes) -> bytes:
    """conv-1: one envelope (02-react-two-tools); conv-2: two bare recordings (04-tool-progress, then
    07-flow-sequence) → the choices conv-1, conv-2.0, conv-2.1; conv-3 withheld."""
    envelope = {"format": "agentfootprint.recording.v1", "run": {"complete": True}, "privacy": {"mode": "full"},
                "recording": recording("02-react-two-tools")}
    return make_zip({
        "manifest.json": json.dumps(manifest(**manifest_changes)),
        "conversations/conv-1.json": json.dumps({"id": "conv-1", "envelopes": [envelope]}),
        "conversations/conv-2.json": json.dumps({"id": "conv-2", "recordings": [recording("04-tool-progress"),
                                                                               recording("07-flow-sequence")]}),
        "narrative.txt": "── conv-1 ──\nStage 1: <b>The process began</b>.\n",
        "conversation.json": json.dumps({"conversations": [{"id": "conv-1", "turns": [
            {"index": 0, "user": "hi <i>there</i>", "steps": [], "final": "hello"}]}]}),
    })


CHOICE_SCENARIOS = {"conv-1": "02-react-two-tools", "conv-2.0": "04-tool-progress", "conv-2.1": "07-flow-sequence"}
