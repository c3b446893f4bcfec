"""Make a longer recording from a real one: the run goes on for more ReAct iterations of the same shape.

    .venv/bin/python bench/make_long_recording.py IN.json OUT.json [--repeat 1]

Iterations 2 … N-1 of IN (all but the first and the final answer) are run once more (`--repeat` times) between
the last of them and the final one: copied, with every execution counter `name#n` past the first iteration
shifted so ids stay unique and in order, wall-clock times and run offsets moved on by the copied span's duration,
commit indices (`idx`, `commitIdxBefore`/`After`) by its number of commits. What follows the copies (the final
iteration, the run's end) is shifted the same way. That is done in every part that grows with the run: the
execution tree (spliced as text: its chain through `next` gets the copied nodes, so it nests twice as deep), the
commit log, the subflow results, the BoundaryEvents and the typed events. Iteration numbers inside payloads and
state are left as they were (only the shape and size matter for a load measurement). The real 1,000-iteration
run (448 MB) becomes a ~0.9 GB recording of 1,999 iterations, nested ~18,000 levels deep.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from afp_desktop.core.formats.lazy_recording import _Reader  # noqa: E402  (its bracket walk, reused here)
from afp_desktop.core.jsonx import jsonscan  # noqa: E402

_COUNTER = re.compile(r"#(\d+)$")
_TEXT_COUNTER = re.compile(rb'#(\d+)"')
_TEXT_TIME = re.compile(rb'"(timestamp|wallClockMs|startMs|endMs|ts)":(\d+)')
_TIME_KEYS = {"ts", "wallClockMs", "runOffsetMs", "timestamp", "startMs", "endMs"}
_COMMIT_KEYS = {"idx", "commitIdxBefore", "commitIdxAfter"}


def counter(rid) -> int:
    found = _COUNTER.search(rid) if isinstance(rid, str) else None
    return int(found.group(1)) if found else -1


class Shift:
    """Counters from `first` on move by `counters`; times by `ms`; commit indices by `commits`."""

    def __init__(self, first: int, counters: int, ms: int, commits: int) -> None:
        self.first, self.counters, self.ms, self.commits = first, counters, ms, commits

    def string(self, text: str) -> str:
        found = _COUNTER.search(text)
        if found and int(found.group(1)) >= self.first:
            return text[:found.start(1)] + str(int(found.group(1)) + self.counters)
        return text

    def value(self, value, key=None):
        kind = type(value)
        if kind is dict:
            return {self.string(k): self.value(v, k) for k, v in value.items()}
        if kind is list:
            return [self.value(v) for v in value]
        if kind is str:
            return self.string(value)
        if kind is int and key in _TIME_KEYS and value > 0:
            return value + self.ms
        if kind is int and key in _COMMIT_KEYS and value >= 0:
            return value + self.commits
        return value

    def text(self, data: bytes) -> bytes:
        data = _TEXT_COUNTER.sub(lambda m: b"#%d\"" % (int(m.group(1)) + (self.counters if int(m.group(1)) >= self.first else 0)), data)
        return _TEXT_TIME.sub(lambda m: b'"%s":%d' % (m.group(1), int(m.group(2)) + self.ms), data)


def longer(data: bytes, repeat: int) -> bytes:
    positions, opens, depth = jsonscan.brackets_outside_strings(data)
    reader = _Reader(data, "in", positions, opens, depth)
    _, members = reader.shallow(0)
    top = dict(members)
    _, snapshot_members = reader.shallow(top["snapshot"])
    snap = dict(snapshot_members)
    span = reader.span

    log = orjson.loads(data[slice(*span(snap["commitLog"]))])
    iterations = [i for i, row in enumerate(log) if str(row.get("runtimeStageId", "")).startswith("compact#")]
    second, final = iterations[1], iterations[-1]
    c_first, c_final = counter(log[second]["runtimeStageId"]), counter(log[final]["runtimeStageId"])
    typed = orjson.loads(data[slice(*span(top["events"]))])
    stamp = {counter(e["meta"]["runtimeStageId"]): e["meta"]["wallClockMs"] for e in reversed(typed)}
    t_first = min(v for k, v in stamp.items() if k >= c_first)
    t_final = min(v for k, v in stamp.items() if k >= c_final)
    commits = final - second
    print(f"copying iterations 2..{len(iterations) - 1}: counters {c_first}..{c_final - 1}, {commits:,} commits, "
          f"{(t_final - t_first) / 1000:.1f} s, {repeat} time(s)")
    shifts = [Shift(c_first, (c_final - c_first) * k, (t_final - t_first) * k, commits * k)
              for k in range(1, repeat + 1)]

    def extend(items: list, counter_of) -> list:
        start = next(i for i, item in enumerate(items) if counter_of(item) >= c_first)
        end = next(i for i, item in enumerate(items) if counter_of(item) >= c_final)
        out = items[:end]
        for shift in shifts:
            out += [shift.value(item) for item in items[start:end]]
        out += [shifts[-1].value(item) for item in items[end:]]
        return out

    replacements = {
        "commitLog": orjson.dumps(extend(log, lambda r: counter(r.get("runtimeStageId")))),
        "events": orjson.dumps(extend(typed, lambda e: counter(e["meta"].get("runtimeStageId")))),
    }
    del log, typed
    _, elements = reader.shallow(snap["recorders"])
    boundary_at = None
    for _, element in elements:
        recorder, inner = reader.shallow(element)
        if recorder.get("name") == "BoundaryEvents":
            boundary_at = dict(inner)["data"]
    events = orjson.loads(data[slice(*span(boundary_at))])
    replacements["boundary"] = orjson.dumps(extend(events, lambda e: counter(e.get("runtimeStageId"))))
    del events
    results = orjson.loads(data[slice(*span(snap["subflowResults"]))])
    more = {}
    for key, value in results.items():
        more[key] = value
    for shift in shifts:
        for key, value in results.items():
            if c_first <= counter(key) < c_final:
                more[shift.string(key)] = shift.value(value)
    for key, value in results.items():
        if counter(key) >= c_final:
            more[shifts[-1].string(key)] = shifts[-1].value(value)
    replacements["subflowResults"] = orjson.dumps(more)
    del results, more

    # The execution tree: its spine (at each node the largest of its `next` and its `children`: a Route's branch
    # carries the run on), each node's text before and after the next node on it.
    chain = [snap["executionTree"]]
    while True:
        node, node_members = reader.shallow(chain[-1])
        links = dict(node_members)
        candidates = [links["next"]] if "next" in links and reader.is_object(links["next"]) else []
        if "children" in links and not reader.is_object(links["children"]):
            candidates += [c for c in reader.inside(links["children"]) if reader.is_object(c)]
        if not candidates:
            break
        chain.append(max(candidates, key=lambda c: span(c)[1] - span(c)[0]))
    rids = []
    for index in chain:
        node, _ = reader.shallow(index)
        rids.append(counter(node.get("runtimeStageId")))
    a = next(i for i, c in enumerate(rids) if c >= c_first)
    b = next(i for i, c in enumerate(rids) if c >= c_final)
    heads = [data[span(chain[i])[0]:span(chain[i + 1])[0]] for i in range(len(chain) - 1)]
    tails = [data[span(chain[i + 1])[1]:span(chain[i])[1]] for i in range(len(chain) - 1)]
    leaf = data[slice(*span(chain[-1]))]
    parts = heads[:b]
    for shift in shifts:
        parts += [shift.text(h) for h in heads[a:b]]
    last = shifts[-1]
    parts += [last.text(h) for h in heads[b:]] + [last.text(leaf)] + [last.text(t) for t in reversed(tails[b:])]
    for shift in reversed(shifts):
        parts += [shift.text(t) for t in reversed(tails[a:b])]
    parts += list(reversed(tails[:b]))
    replacements["executionTree"] = b"".join(parts)
    print(f"execution tree: a chain of {len(chain):,} nodes becomes {len(chain) + repeat * (b - a):,}")

    where = {"commitLog": span(snap["commitLog"]), "events": span(top["events"]), "boundary": span(boundary_at),
             "subflowResults": span(snap["subflowResults"]), "executionTree": span(snap["executionTree"])}
    out, cursor = [], 0
    for name, (start, end) in sorted(where.items(), key=lambda item: item[1][0]):
        out += [data[cursor:start], replacements[name]]
        cursor = end
    out.append(data[cursor:])
    return b"".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("source")
    parser.add_argument("out")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    result = longer(Path(args.source).read_bytes(), args.repeat)
    Path(args.out).write_bytes(result)
    print(f"{args.out}: {len(result) / 1e6:,.0f} MB")


if __name__ == "__main__":
    main()
