"""What a banner notice means for what the user sees, in one short plain sentence (no Qt).

The loader's notices (core Notice: code, text, level) are exact and technical; the banner shows the sentence
here and keeps the notice's own text as the detail, shown on demand. A code without a sentence here shows its
text as it is.
"""

from __future__ import annotations

from dataclasses import dataclass

# None: the notice's own text is already a plain sentence the user needs whole (the error that ended the run).
SENTENCES: dict[str, str | None] = {
    "several-recorders": "This file recorded the run more than once; the graph shows the longest recording.",
    "no-typed": "The chat bubble is reconstructed: this file has no status lines, streamed text or tool progress.",
    "typed-only": "The graph is simplified: this file holds only the event stream, so there are no run, "
                  "subflow or branch boxes.",
    "no-commit-log": "The timeline's stops are estimated from the events.",
    "empty-commit-log": "The timeline's stops are estimated from the events.",
    "stops-derived-nested": "The timeline's stops are estimated from the events.",
    "lean": "Some details are not in this file: it was recorded without payloads, tool arguments or results.",
    "unredacted": "This file holds the full conversation, unredacted: take care before sharing it.",
    "redaction-unknown": "The file is cut off before it says whether it was redacted: treat it as unredacted.",
    "redacted": "Some text is hidden: this file was redacted, so messages and tool data show as markers.",
    "failed": None,
    "reading": None,  # (its own words say how many events are shown so far)
    "stops-derived-legs": "This file holds a run and its resume after a pause; its commit log covers only the "
                          "last leg, so the timeline's stops are estimated from the events of every leg.",
    "repeated-recorder": "This file holds the same recording more than once; it is shown once.",
    "mid-way": "This run starts mid-way: earlier events were rotated out of the file before it was read.",
    "cut-line": "A line cut off when the file was rotated was left out.",
    "long-line": "A line longer than the most a file may hold was left out; everything else is shown.",
    "skipped": "The older half of a rotated file could not be read (it is not a regular file, or too large), "
               "so it was left out.",
    "refused": None,  # (its own words say why the followed file is no longer read)
    "bad-line": "A damaged line in the file was left out; everything else is shown.",
    "generation-read": "The file was rotated twice between two reads; both parts were read.",
    "missing": "The file does not exist yet: the window waits for the agent to write it.",
    "restarted": "The file was truncated or replaced, so the run was read again from its start.",
    "bug-report": "This is a bug report: what the reporter said is in the Bug report panel.",
    "incomplete": "The run does not finish in this file: it was paused, cut off or still running.",
    "not-complete": "The run does not finish in this recording.",
    "truncated": "The file is cut off: the replay ends where the file ends.",
    "several-legs": "This file holds several runs (such as a pause and its resume); its commit log covers only "
                    "the last.",
    "dropped": "The start of the run is missing: the recorder dropped its earliest events.",
    "rotated": "This run was read from two files: the older part first, then the newer.",
    "object-stream": "Read as an event stream: this file holds one event after another over several lines each.",
    "stepgraph-fallback": "The graph shows only the subflow boxes: the step-by-step detail could not be built.",
    "unreadable-payloads": "A few values in this file could not be read and show as “not readable”.",
    "load-problem": "Part of this file could not be read; everything else is shown.",
    "settings": "Your settings could not be read, so the defaults are used.",
}

LEVEL_ORDER = {"error": 0, "warning": 1, "info": 2}


@dataclass(frozen=True)
class BannerMessage:
    """One banner line: `sentence` for everyone, `detail` (the exact, technical text) on demand."""

    sentence: str
    detail: str
    level: str = "warning"  # "error" | "warning" | "info"
    code: str | None = None
    action: str | None = None  # a button's words ("Reload"); the banner says when it is clicked (action_asked)

    @property
    def has_detail(self) -> bool:
        return bool(self.detail) and self.detail != self.sentence


def message_for(code: str | None, text: str, level: str = "warning") -> BannerMessage:
    """The banner message for a notice: the sentence its code has here, else the text itself."""
    sentence = SENTENCES.get(code or "", text)
    return BannerMessage(text if sentence is None else sentence, text, level, code)


def by_severity(messages: list[BannerMessage]) -> list[BannerMessage]:
    """Errors first, then warnings, then information; the order within a level is kept."""
    return sorted(messages, key=lambda m: LEVEL_ORDER.get(m.level, len(LEVEL_ORDER)))


def engine_ended_message(file_name: str, how: str) -> BannerMessage:
    """The engine process ended while it read a file (a crash, a kill): the window is still up, and can try again."""
    return BannerMessage(f"Reading {file_name} stopped: the engine process ended ({how})",
                         f"The process that reads files ended while it read {file_name} ({how}); the window is "
                         "unharmed. Reload opens the file again in a fresh process.", "error", "engine-ended",
                         action="Reload")


def engine_lost_message(file_name: str, how: str) -> BannerMessage:
    """The engine process holding the run shown ended (a crash, a kill): the run stays, and Reload reads it again."""
    return BannerMessage(f"The engine process ended ({how}): searching {file_name} needs Reload",
                         f"The process that holds {file_name} for searches ended ({how}); the run shown is "
                         "unharmed. Reload opens the file again in a fresh process.", "error", "engine-ended",
                         action="Reload")


def failed_open_message(file_name: str, detail: str) -> BannerMessage:
    """A file that could not be opened while a run is shown (the next failure replaces it: same code)."""
    return BannerMessage(f"Could not open {file_name}; the run shown is still the one opened before.", detail,
                         "error", "failed-open")
