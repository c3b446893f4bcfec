"""The hits of one search as the window receives them from the engine: plain columns (ints and strings), small and
quick to pickle, never the index they came from. `FoundHits.of(result)` makes them from a SearchResult;
`refused(message)`: no hits, and why (an invalid query, a search out of time)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

if TYPE_CHECKING:  # (search imports numpy: a window or command that never searches need not)
    from afp_desktop.core.views.search import Hit, SearchResult


class FoundHits:
    """The listed hits of one query in axis order; `complete` is False when the limit cut the list short."""

    def __init__(self, columns: tuple[list, ...] | None = None, complete: bool = True,
                 refusal: str | None = None) -> None:
        """`columns`: (positions, stops, stop labels, wheres, nodes, excerpts, match starts, match ends), one entry
        per hit; None: no hits."""
        (self.positions, self._stops, self._labels, self._wheres, self._nodes, self._excerpts, self._starts,
         self._ends) = (list(column) for column in columns or ([],) * 8)
        self.complete = complete
        self.refusal = refusal  # why there are no hits when the query could not be searched

    @classmethod
    def of(cls, result: SearchResult) -> "FoundHits":
        hits = list(result)
        columns = ([h.position for h in hits], [h.stop for h in hits], [h.stop_label for h in hits],
                   [h.where for h in hits], [h.node for h in hits], [h.excerpt for h in hits],
                   [h.match[0] for h in hits], [h.match[1] for h in hits])
        return cls(columns, result.complete)

    @classmethod
    def refused(cls, message: str) -> "FoundHits":
        return cls(refusal=message)

    def __len__(self) -> int:
        return len(self.positions)

    def __getitem__(self, i: int) -> Hit:
        from afp_desktop.core.views.search import Hit

        return Hit(self.positions[i], self._stops[i], self._labels[i], self._wheres[i], self._nodes[i],
                   self._excerpts[i], (self._starts[i], self._ends[i]))

    def __iter__(self) -> Iterator[Hit]:
        return (self[i] for i in range(len(self)))

    def node_set(self) -> set[int]:
        return {node for node in self._nodes if node is not None}
