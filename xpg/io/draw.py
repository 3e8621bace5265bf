"""Drawing explanation graphs with matplotlib (the ``plot`` extra).

Nodes are laid out by depth; edges labelled 1 (consistent with the instance) are
solid, edges labelled 0 dashed; terminals show their 0/1 label; the nodes testing
the features of a highlighted explanation are filled.

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> from xpg.io import read_xpg_text
>>> xg = read_xpg_text("NN: 3\\nRoot: 1\\nT: 2 3\\nTDef:\\n2 1\\n3 0\\nNT: 1\\nNTDef:\\n"
...                    "1 2 1\\n1 3 0\\nNV: 1\\nVarDef:\\n1 x\\n")
>>> ax = draw_xpg(xg, highlight=["x"])
>>> len(ax.patches) >= 2
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import networkx as nx

from xpg.core.xpgraph import ExplanationGraph


def _depths(xg: ExplanationGraph) -> list[int]:
    """Longest distance from the root, so every edge points downwards."""
    children: list[list[int]] = [[] for _ in range(xg.n_nodes)]
    for s, d in zip(xg.edge_src.tolist(), xg.edge_dst.tolist()):
        children[s].append(d)
    g = nx.DiGraph([(s, d) for s, kids in enumerate(children) for d in kids])
    g.add_nodes_from(range(xg.n_nodes))
    depth = [0] * xg.n_nodes
    for n in nx.topological_sort(g):
        for c in children[n]:
            depth[c] = max(depth[c], depth[n] + 1)
    return depth


def draw_xpg(
    xg: ExplanationGraph,
    highlight: Sequence[str] = (),
    ax: Any = None,
    title: str | None = None,
) -> Any:
    """Draw ``xg`` on a matplotlib axis (created when ``ax`` is None) and return the axis."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(7, 5))
    g = nx.MultiDiGraph()
    depth = _depths(xg)
    for n in range(xg.n_nodes):
        g.add_node(n, layer=depth[n])
    pos = nx.multipartite_layout(g, subset_key="layer", align="horizontal")
    pos = {n: (x, -y) for n, (x, y) in pos.items()}
    chosen = set(xg.indices(list(highlight)))
    labels, colours = {}, []
    for n in range(xg.n_nodes):
        v = xg.node_var_list[n]
        if v >= 0:
            labels[n] = f"{xg.node_ids[n]}\n{xg.var_names[v]}"
            colours.append("#f4a261" if v in chosen else "#e9ecef")
        else:
            labels[n] = f"{xg.node_ids[n]}\n[{xg.terminal_value_list[n]}]"
            colours.append("#8ecae6" if xg.terminal_value_list[n] == 1 else "#ffb4a2")
    nx.draw_networkx_nodes(g, pos, ax=ax, node_color=colours, node_size=900, edgecolors="#333")
    nx.draw_networkx_labels(g, pos, labels, ax=ax, font_size=7)
    for style, want in (("solid", True), ("dashed", False)):
        edges = [
            (s, d)
            for s, d, b in zip(xg.edge_src.tolist(), xg.edge_dst.tolist(), xg.edge_label.tolist())
            if b == want
        ]
        nx.draw_networkx_edges(
            g, pos, edgelist=edges, ax=ax, style=style, arrows=True, node_size=900,
            width=2.0 if want else 1.0,
        )  # fmt: skip
    ax.set_axis_off()
    if title:
        ax.set_title(title)
    return ax
