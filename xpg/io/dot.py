"""Decision and explanation graphs as Graphviz DOT text, and its rendering to SVG, PNG or PDF.

:func:`to_dot` writes the DOT text itself (no dependency): nodes are labelled with the feature
they test (terminals with their class), edges with their literal (``<= 2.5``, ``= 1``,
``in {a, b}``).  Given an explanation graph, it also marks the instance: the path of the
instance from the root to the terminal it reaches (class ``path``, red, bold), the other edges
the instance satisfies (class ``consistent``, solid) and those it does not (class
``inconsistent``, dashed, grey); the nodes testing the features of an explanation are filled
in orange (class ``explanation``).  The ``class`` attributes carry into SVG output, for CSS or
for scripts.  :func:`render_dot` needs Graphviz's ``dot`` program and the ``graphviz`` Python
package (the ``plot`` extra); :func:`write_dot` writes a ``.dot``/``.gv`` file without either.

Examples
--------
>>> from xpg.core.xpgraph import ExplanationGraph
>>> from xpg.examples import paper_figure2
>>> dg = paper_figure2()
>>> xg = ExplanationGraph.from_decision_graph(dg, [0, 1, 2])
>>> text = to_dot(xg, highlight=["x1"], title="one AXp")
>>> text.splitlines()[0]
'digraph xpg {'
>>> sum('class="path"' in line for line in text.splitlines()) >= 2  # path edges
True
>>> 'class="explanation' in text
True
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from xpg.core.features import Literal, as_comparison
from xpg.core.graph import DecisionGraph
from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import MissingExtraError, OutputError
from xpg.io.atomic import write_bytes_atomic, write_text_atomic

#: Output formats by file extension: DOT text, or a picture rendered by ``dot``.
FORMATS = {".dot": "dot", ".gv": "dot", ".svg": "svg", ".png": "png", ".pdf": "pdf"}

PATH_COLOUR = "#c1121f"
EXPLANATION_FILL = "#f4a261"
PREDICTED_FILL = "#8ecae6"
OTHER_FILL = "#ffb4a2"
NODE_FILL = "#f1f3f5"
MUTED = "#8d99ae"

#: The colour key, for titles and captions.
LEGEND = (
    "red, bold: the instance's path; orange: nodes testing the explanation's features; "
    "dashed: edges the instance does not satisfy"
)


def quote(text: str) -> str:
    """``text`` as a DOT quoted string, safe as a label: backslashes and double quotes
    escaped, line breaks as ``\\n``.

    Examples
    --------
    >>> print(quote('priors:=0 "x"\\\\y'))
    "priors:=0 \\"x\\"\\\\y"
    """
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped.replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\n") + '"'


def _number(x: float) -> str:
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return f"{x:g}"


def literal_text(literal: Literal) -> str:
    """A literal as an edge label, without the feature name (the node shows it).

    Examples
    --------
    >>> literal_text(Literal.le("age", 40.5)), literal_text(Literal.gt("age", 40.5))
    ('<= 40.5', '> 40.5')
    >>> literal_text(Literal.isin("colour", ["red", "blue"])), literal_text(Literal.eq("b", 1))
    ('in {blue, red}', '= 1')
    >>> literal_text(Literal.interval("x", 1, 4))
    'in (1, 4]'
    """
    if literal.is_value_set:
        values = sorted(literal.allowed, key=lambda v: (str(type(v)), v))
        if len(values) == 1:
            return f"= {values[0]}"
        return "in {" + ", ".join(map(str, values)) + "}"
    parts = []
    for lo, hi, lo_closed, hi_closed in literal.intervals():
        one = as_comparison(lo, hi, lo_closed, hi_closed)
        if one is None:
            left, right = "[" if lo_closed else "(", "]" if hi_closed else ")"
            parts.append(f"in {left}{_number(lo)}, {_number(hi)}{right}")
        else:
            op, bound = one
            parts.append("any" if op == "any" else f"{op} {_number(bound)}")
    return " or ".join(parts) if parts else "in {}"


def _attributes(attrs: dict[str, str]) -> str:
    return ", ".join(f"{key}={quote(value)}" for key, value in attrs.items())


def instance_path(xg: ExplanationGraph) -> tuple[list[int], list[int]]:
    """The instance's path: node indices from the root to the terminal reached, and the
    indices of its edges (the edges labelled 1 followed from the root).

    Examples
    --------
    >>> from xpg.examples import and_xpg
    >>> instance_path(and_xpg())
    ([3, 4, 1], [1, 2])
    """
    one_edge: dict[int, int] = {}
    for e, (s, b) in enumerate(zip(xg.edge_src.tolist(), xg.edge_label.tolist())):
        if b:
            one_edge.setdefault(s, e)
    nodes, edges = [xg.root], []
    dst = xg.edge_dst.tolist()
    while nodes[-1] in one_edge and len(nodes) <= xg.n_nodes:
        edges.append(one_edge[nodes[-1]])
        nodes.append(dst[edges[-1]])
    return nodes, edges


def to_dot(
    graph: DecisionGraph | ExplanationGraph,
    highlight: Iterable[str] = (),
    *,
    title: str | None = None,
) -> str:
    """The DOT text of a decision graph, or of an explanation graph with its instance marked.

    Parameters
    ----------
    graph : DecisionGraph or ExplanationGraph
        A decision graph is drawn as it is: features on the nodes, literals on the edges.  An
        explanation graph built from a decision graph is drawn the same way, with the
        instance's path and the edges it satisfies marked; one read from a ``.xpg`` file
        (no literals) has edges labelled 1 (satisfied) or 0, and terminals 1 (the
        prediction) or 0.
    highlight : iterable of str
        Feature names (an explanation): the nodes testing them are filled.
    title : str, optional
        A caption above the graph.

    Returns
    -------
    str
        A ``digraph``; node ``nI`` is the graph's node of index ``I``, with its id as tooltip.
    """
    if isinstance(graph, ExplanationGraph):
        xg: ExplanationGraph | None = graph
        dg = graph.source
        features = [graph.var_names[v] if v >= 0 else None for v in graph.node_var_list]
        src, dst = graph.edge_src.tolist(), graph.edge_dst.tolist()
        ids = graph.node_ids
        path_nodes, path_edges = instance_path(graph)
        known = set(graph.var_names)
    else:
        xg, dg = None, graph
        ids = dg.nodes
        features = [dg.feature_of(node) for node in ids]
        src = [p for p, _, _ in dg.edges]
        dst = [c for _, c, _ in dg.edges]
        path_nodes, path_edges = [], []
        known = set(dg.feature_index)
    chosen = set(highlight)
    if chosen - known:
        raise OutputError(f"cannot highlight unknown feature(s) {sorted(chosen - known)!r}")
    on_path, path_edge_set = set(path_nodes), set(path_edges)
    lines = [
        "digraph xpg {",
        '  graph [rankdir="TB", fontname="Helvetica", labelloc="t", nodesep="0.3"];',
        '  node [fontname="Helvetica", fontsize="11"];',
        '  edge [fontname="Helvetica", fontsize="9"];',
    ]
    if title:
        lines.append(f"  graph [label={quote(title)}];")
    for n, name in enumerate(features):
        attrs: dict[str, str] = {"tooltip": f"node {ids[n]}"}
        classes = []
        if name is not None:
            attrs.update(label=name, shape="ellipse", style="filled", fillcolor=NODE_FILL)
            if name in chosen:
                classes.append("explanation")
                attrs.update(style="filled,bold", fillcolor=EXPLANATION_FILL)
        else:
            classes.append("terminal")
            # with a model, the class; from a .xpg file, 1 (the prediction) or 0
            value = xg.terminal_value_list[n] if xg is not None else None
            label = dg.class_of(ids[n]) if dg is not None else value
            attrs.update(label=str(label), shape="box", style="rounded")
            if value is not None:
                fill = PREDICTED_FILL if value == 1 else OTHER_FILL
                attrs.update(style="filled,rounded", fillcolor=fill)
        if n in on_path:
            classes.append("path")
            attrs.update(color=PATH_COLOUR, penwidth="2.5")
            if n == path_nodes[-1]:
                classes.append("reached")
                attrs["penwidth"] = "3.5"
        if classes:
            attrs["class"] = " ".join(classes)
        lines.append(f"  n{n} [{_attributes(attrs)}];")
    labels = xg.edge_label.tolist() if xg is not None else None
    for e, (s, d) in enumerate(zip(src, dst)):
        if dg is not None:
            label = literal_text(dg.edges[e][2])
        else:
            label = "1" if labels is not None and labels[e] else "0"
        attrs = {"label": label}
        if e in path_edge_set:
            attrs.update({"class": "path", "color": PATH_COLOUR, "fontcolor": PATH_COLOUR})
            attrs["penwidth"] = "2.5"
        elif labels is not None and labels[e]:
            attrs["class"] = "consistent"
        elif labels is not None:
            attrs.update({"class": "inconsistent", "style": "dashed", "color": MUTED})
            attrs["fontcolor"] = MUTED
        lines.append(f"  n{s} -> n{d} [{_attributes(attrs)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def output_format(path: str | Path) -> str:
    """The format of an output file, from its extension (:data:`FORMATS`).

    Raises
    ------
    OutputError
        For any other extension.
    """
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise OutputError(
            f"{path}: expected a file name ending in {', '.join(FORMATS)} "
            "(DOT text, or a picture rendered by Graphviz)"
        )
    return FORMATS[suffix]


def render_dot(text: str, fmt: str) -> bytes:
    """DOT text rendered by Graphviz's ``dot`` program (``svg``, ``png`` or ``pdf``).

    Raises
    ------
    MissingExtraError
        When ``dot`` is not on PATH or the ``graphviz`` package is not installed; the message
        says that a ``.dot`` output needs neither.
    OutputError
        When ``dot`` fails.
    """
    if shutil.which("dot") is None:
        raise MissingExtraError(
            f"rendering {fmt.upper()} needs Graphviz's 'dot' program, which is not on PATH "
            "(install Graphviz, e.g. 'apt-get install graphviz'); -o OUT.dot writes the "
            "DOT text without it"
        )
    try:
        import graphviz
    except ImportError:
        raise MissingExtraError(
            f"rendering {fmt.upper()} needs the graphviz package: pip install -e "
            "'.[plot]' from a clone of xpg; -o OUT.dot writes the DOT text without it"
        ) from None
    try:
        data: Any = graphviz.Source(text).pipe(format=fmt, quiet=True)
    except graphviz.CalledProcessError as err:
        detail = (err.stderr or b"").decode("utf-8", "replace").strip().splitlines()
        raise OutputError(f"dot failed: {detail[0] if detail else err}") from None
    return bytes(data)


def write_dot(
    graph: DecisionGraph | ExplanationGraph,
    path: str | Path,
    highlight: Iterable[str] = (),
    *,
    title: str | None = None,
) -> str:
    """Write :func:`to_dot` to ``path`` (whole or not at all), as DOT text or rendered,
    according to its extension; returns the format written.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from xpg.examples import and_xpg
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "and.dot"
    >>> write_dot(and_xpg(), out, ["a"])
    'dot'
    >>> out.read_text().startswith("digraph")
    True
    """
    fmt = output_format(path)
    text = to_dot(graph, highlight, title=title)
    if fmt == "dot":
        write_text_atomic(path, text)
    else:
        write_bytes_atomic(path, render_dot(text, fmt))
    return fmt
