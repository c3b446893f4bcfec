"""Structure drawn as it ran (issue 15): a Parallel's branches in side-by-side lanes with their own chips, a
batch of tool calls fanned out of its LLM turn, chip labels that keep the meaningful end."""

from __future__ import annotations

from afp_desktop.core.model.layout import CHIP_KINDS, chip_text, layout_step_graph
from tests.parallel_run import parallel_run, root_parallel_run
from tests.test_layout import assert_valid


def parallel():
    graph = parallel_run().stepgraph
    return graph, layout_step_graph(graph)


def lane_members(graph: dict, branch: str) -> list[int]:
    """Nodes of one branch: by path, and the chips labelled with it."""
    out = []
    for i, node in enumerate(graph["nodes"]):
        path = node.get("subflowPath") or []
        if path[:3] == ["__root__", "fan", branch] or str(node.get("label", "")).startswith(f"fan/{branch}/"):
            out.append(i)
    return out


def index_of(graph: dict, **fields) -> int:
    return next(i for i, n in enumerate(graph["nodes"]) if all(n.get(k) == v for k, v in fields.items()))


def test_the_parallel_layout_keeps_every_geometric_promise():
    graph, layout = parallel()
    assert_valid(layout, graph)


def test_branches_are_side_by_side_lanes():
    graph, layout = parallel()
    a, b = index_of(graph, label="agentA", kind="subflow"), index_of(graph, label="loopB", kind="subflow")
    assert layout.nodes[a].y == layout.nodes[b].y  # both branches start on one line
    lane_a = [layout.nodes[i] for i in lane_members(graph, "agentA")]
    lane_b = [layout.nodes[i] for i in lane_members(graph, "loopB")]
    assert max(box.right for box in lane_a) < min(box.x for box in lane_b)  # lane A wholly left of lane B
    fan = layout.nodes[index_of(graph, label="fan", kind="subflow")]
    assert all(box.y > fan.bottom for box in lane_a + lane_b)  # below their Parallel
    for lane in (lane_a, lane_b):  # a lane reads top to bottom in run order
        steps = [box for box in lane if box.kind in ("user->llm", "tool->llm")]
        assert [box.y for box in steps] == sorted(box.y for box in steps) and len(steps) == 2


def test_each_agents_chips_sit_in_its_own_lane_by_its_llm_call():
    graph, layout = parallel()
    calls = [i for i in lane_members(graph, "agentA") if graph["nodes"][i]["kind"] in ("user->llm", "tool->llm")]
    chips = [i for i in lane_members(graph, "agentA") if graph["nodes"][i]["kind"] in CHIP_KINDS]
    assert len(chips) == 6
    lane_b_left = min(layout.nodes[i].x for i in lane_members(graph, "loopB"))
    for chip in chips:
        box = layout.nodes[chip]
        assert box.right < lane_b_left
        assert any(layout.nodes[c].y <= box.y and box.bottom <= layout.nodes[c].bottom
                   and box.right < layout.nodes[c].x for c in calls), f"chip {chip} is not by an agentA call"
    decision = index_of(graph, kind="decision-branch")  # made inside loopB: it stays in loopB's lane
    assert layout.nodes[decision].x > lane_b_left
    fan = layout.nodes[index_of(graph, label="fan", kind="subflow")]
    for branch in ("agentA", "loopB"):  # the Parallel's own branch chips sit by the Parallel's card
        box = layout.nodes[index_of(graph, kind="fork-branch", label=branch)]
        assert fan.y <= box.y and box.bottom <= fan.bottom and box.x > fan.right


def test_no_edge_runs_between_lanes():
    graph, layout = parallel()
    lane_of = {i: "A" for i in lane_members(graph, "agentA")} | {i: "B" for i in lane_members(graph, "loopB")}
    drawn = [r for r in layout.edges if r.source != r.target]
    assert drawn
    for route in drawn:
        assert lane_of.get(route.source) == lane_of.get(route.target), route
    # each lane is still a chain: the agent's second call follows its batch
    second = index_of(graph, kind="tool->llm")
    assert any(r.target == second and graph["nodes"][r.source]["kind"] == "llm->tool" for r in drawn)


def test_a_parallel_at_the_root_draws_its_agents_and_llmcall_as_lanes():
    graph = root_parallel_run().stepgraph
    layout = layout_step_graph(graph)
    assert_valid(layout, graph)
    nodes = graph["nodes"]
    branches = ("agentA", "agentB", "brief")

    def members(branch: str) -> list[int]:
        return [i for i, n in enumerate(nodes) if (n.get("subflowPath") or [])[1:2] == [branch]
                and n["kind"] != "fork-branch" or str(n.get("label", "")).startswith(f"{branch}/")]

    headers = [layout.nodes[index_of(graph, label=b, kind="subflow")] for b in branches]
    assert len({box.y for box in headers}) == 1  # the three branches start on one line
    lanes = [[layout.nodes[i] for i in members(b)] for b in branches]
    for left, right in zip(lanes, lanes[1:]):
        assert max(box.right for box in left) < min(box.x for box in right)
    lane_of = {i: b for b in branches for i in members(b)}
    drawn = [r for r in layout.edges if r.source != r.target]
    assert drawn and all(lane_of.get(r.source) == lane_of.get(r.target) for r in drawn)
    run = layout.nodes[index_of(graph, label="Run", kind="subflow")]
    for branch in branches:  # the fork's chips sit by the Run's card
        chip = layout.nodes[index_of(graph, kind="fork-branch", label=branch)]
        assert run.y <= chip.y and chip.bottom <= run.bottom and chip.x > run.right


def test_a_sequence_at_the_root_stays_one_column():
    from tests.corpus_util import load_json

    graph = load_json("07-flow-sequence", "ref.stepgraph.json")
    layout = layout_step_graph(graph)
    steps = [index_of(graph, label=name, kind="subflow") for name in ("classify", "work", "summarize")]
    assert len({layout.nodes[i].x for i in steps}) == 1
    assert [layout.nodes[i].y for i in steps] == sorted(layout.nodes[i].y for i in steps)


def test_a_batch_of_tool_calls_fans_out_of_its_turn():
    graph, layout = parallel()
    call = index_of(graph, kind="user->llm", subflowPath=["__root__", "fan", "agentA"])
    tools = [i for i, n in enumerate(graph["nodes"]) if n["kind"] == "llm->tool"]
    boxes = [layout.nodes[i] for i in tools]
    assert len({b.x for b in boxes}) == 1 and boxes[0].y < boxes[1].y  # one column, in run order
    assert all(b.x > layout.nodes[call].right for b in boxes)
    assert boxes[0].y == layout.nodes[call].y
    into = {r.target: r for r in layout.edges if r.target in tools}
    assert set(into) == set(tools) and all(r.source == call for r in into.values())
    trunk = into[tools[1]].points
    assert trunk[0] == (layout.nodes[call].right, layout.nodes[call].cy) and trunk[-1][0] == boxes[1].x


def test_chip_text_keeps_the_meaningful_end():
    assert chip_text("fan/agentA/System Prompt") == "System Prompt · agentA"
    assert chip_text("step-work/Tools") == "Tools · step-work"
    assert chip_text("System Prompt") == "System Prompt"
    assert chip_text("/") == "/"


def test_the_canvas_draws_lanes_and_readable_chip_labels(qtbot):
    from afp_desktop.app.panels.graph.card_text import card_lines
    from afp_desktop.app.panels.graph.graph_canvas import GraphCanvas

    graph, layout = parallel()
    canvas = GraphCanvas()
    qtbot.addWidget(canvas)
    canvas.resize(900, 600)
    canvas.show()
    canvas.set_graph(graph)
    assert len(canvas.node_items) == len(graph["nodes"])
    chip = index_of(graph, label="fan/agentA/System Prompt")
    assert card_lines(graph["nodes"][chip])[0] == "System Prompt · agentA"
    rect = canvas.art.node_bounds(chip)
    # private: the texts a card paints (its picture cannot be read back as text)
    assert canvas.art._texts_for(chip, rect)[0] == "System Prompt · agentA"  # fits without eliding


def test_subflow_cards_carry_the_tokens_spent_inside_them():
    from afp_desktop.core.views.subflow_totals import format_total, subflow_tokens
    from tests.corpus_util import load_json

    graph = load_json("07-flow-sequence", "ref.stepgraph.json")
    nodes = graph["nodes"]
    totals = subflow_tokens(nodes)
    calls = [n for n in nodes if n["kind"] in ("user->llm", "tool->llm")]
    run = next(i for i, n in enumerate(nodes) if n.get("primitiveKind") == "Run")
    assert totals[run] == (sum(c["tokens"]["in"] for c in calls), sum(c["tokens"]["out"] for c in calls))
    work = next(i for i, n in enumerate(nodes) if n.get("label") == "work")
    inside = [c for c in calls if c["subflowPath"][:2] == ["__root__", "step-work"]]
    assert len(inside) == 2 and totals[work] == (sum(c["tokens"]["in"] for c in inside),
                                                sum(c["tokens"]["out"] for c in inside))
    assert sum(totals[run]) > sum(totals[work]) > 0  # nested boxes count in their parents too
    assert format_total((40.0, 13.0)) == "53 tok" and format_total((9000.0, 2000.0)) == "11.0k tok"
    assert format_total(None) == ""
    lanes = parallel()[0]["nodes"]
    lane_totals = subflow_tokens(lanes)
    a, b, fan = (next(i for i, n in enumerate(lanes) if n.get("label") == name and n["kind"] == "subflow")
                 for name in ("agentA", "loopB", "fan"))
    assert sum(lane_totals[fan]) == sum(lane_totals.get(a, (0, 0))) + sum(lane_totals.get(b, (0, 0)))
