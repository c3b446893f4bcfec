"""In what order the canvas makes a laid-out graph's items, and which edges are drawn once (no Qt).

The scene of a big graph is made in slices (scene_builder.py): the order here makes every slice whole — each
card's edges and bracket come right after the last card they join."""

from __future__ import annotations

from afp_desktop.core.model.layout import EdgeRoute, GraphLayout


def distinct_routes(routes: list[EdgeRoute]):
    """One route per distinct drawing: a Loop's 150 iteration edges share one self-loop on the same card, and
    drawing it 150 times over made every repaint of that corner slow."""
    seen: set = set()
    for route in routes:
        key = (route.kind, route.source, route.target, tuple(route.points), route.label)
        if key not in seen:
            seen.add(key)
            yield route


def route_key(route: EdgeRoute) -> tuple:
    """An edge as drawn, label and all: an edge item whose route keeps its key is kept when the graph grows."""
    return (route.kind, route.source, route.target, tuple(route.points), route.label, route.label_at,
            route.label_width)


def items_to_make(layout: GraphLayout):
    """What the canvas makes, in order: the cards in the order of their steps (the canvas's list of cards is
    always the first steps' cards), each edge and bracket right after the last card it joins. So the first slice
    (the run's first rows, where the view starts) is whole, edges and all, however big the graph."""
    after: list[list] = [[] for _ in layout.nodes]
    elsewhere: list = []  # (none in a layout of the graph: an edge or bracket of a step it does not have)

    def place(at: int, item: tuple) -> None:
        (after[at] if 0 <= at < len(after) else elsewhere).append(item)

    for route in distinct_routes(layout.edges):
        place(max(route.source, route.target), ("edge", route))
    for group in layout.groups:
        place(group.index, ("group", group))
    for i, joined in enumerate(after):
        yield "node", i
        yield from joined
    yield from elsewhere

