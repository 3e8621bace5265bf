"""Explanation graphs (XpGs): a decision graph seen from one instance.

Every edge is labelled 1 when the instance satisfies its literal and 0 otherwise;
every terminal is labelled 1 when it predicts the instance's class.  Building the
XpG of a new instance is one vectorised pass over the edges of the compiled
decision graph (:meth:`ExplanationGraph.from_decision_graph`, over its
:class:`~xpg.core.edge_table.EdgeTable`).  The structures traversals read are built once per
graph (:mod:`xpg.core.traversal`); :meth:`ExplanationGraph.validate` checks Def. 3, acyclicity
by :mod:`xpg.core.cycles`.

Examples
--------
>>> from xpg.examples import paper_figure2           # the decision graph of Fig. 2
>>> xg = ExplanationGraph.from_decision_graph(paper_figure2(), {"x1": 0, "x2": 1, "x3": 2})
>>> xg.prediction, xg.edge_label.astype(int).tolist()    # edges the instance satisfies
('R', [0, 1, 0, 1, 0, 1, 1, 0, 1, 0])
>>> xg.terminal_value.tolist()                           # terminals of its class
[-1, -1, -1, -1, -1, 1, 0, 0]

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Def. 3 (explanation graph) and Prop. 5.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from itertools import compress
from numbers import Integral
from typing import TYPE_CHECKING, Any

import xpg.core.costs as costs
import xpg.core.lazy as lazy
from xpg.core.cycles import has_cycle, has_cycle_lists
from xpg.core.gc_pause import paused_gc
from xpg.core.traversal import (
    Groups,
    TraversalArrays,
    TraversalViews,
    array_views,
    ends_at_zero,
    follow_ones,
    group,
    list_views,
    traversal_arrays,
)
from xpg.errors import InvalidFeatureError, InvalidGraphError

if TYPE_CHECKING:
    import numpy as np

    from xpg.core.graph import DecisionGraph
else:
    np = lazy.module("numpy")


_COLUMNS = ("node_var", "terminal_value", "edge_src", "edge_dst", "edge_label")


class _Column:
    """A per-node or per-edge array of an :class:`ExplanationGraph`.

    Graphs built from arrays hold it in the instance (this descriptor is not consulted); a
    light graph builds it from its list on first access, read-only since the list stays the
    graph's data.
    """

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, xg: ExplanationGraph | None, owner: type | None = None) -> Any:
        if xg is None:
            return self
        array = np.array(
            xg._lists[self.name], dtype=bool if self.name == "edge_label" else np.int64
        )
        array.flags.writeable = False
        xg.__dict__[self.name] = array
        return array


class ExplanationGraph:
    """An XpG: a DAG whose edges and terminals are labelled 0/1 for one instance.

    The variables are the features of the model (``var_names``); explanations are sets of
    variable names.  Arrays: ``node_var`` (variable per node, -1 for terminals),
    ``terminal_value`` (0/1 per terminal, -1 for non-terminals), ``edge_src``, ``edge_dst``,
    ``edge_label`` (bool).

    Given as Python lists with fewer than :data:`xpg.core.costs.LIGHT_EDGES` edges (as the
    ``.xpg`` reader does for small files), the graph is *light*: it keeps the lists, its queries
    run on them, and the arrays are built (importing numpy) only when something asks for them.

    Build one with :meth:`from_decision_graph`, or read one with :func:`xpg.io.read_xpg`.
    """

    node_var = _Column()
    terminal_value = _Column()
    edge_src = _Column()
    edge_dst = _Column()
    edge_label = _Column()

    def __init__(
        self,
        var_names: Sequence[str],
        node_ids: Sequence[Hashable],
        root: int,
        node_var: np.ndarray | Sequence[int],
        terminal_value: np.ndarray | Sequence[int],
        edge_src: np.ndarray | Sequence[int],
        edge_dst: np.ndarray | Sequence[int],
        edge_label: np.ndarray | Sequence[bool],
        *,
        source: DecisionGraph | None = None,
        instance: list[Any] | None = None,
        prediction: Any = None,
        check: bool = True,
    ) -> None:
        columns: tuple[Any, ...] = (node_var, terminal_value, edge_src, edge_dst, edge_label)
        light = all(isinstance(c, (list, tuple)) for c in columns)
        if light and len(edge_src) < costs.LIGHT_EDGES:
            ints = [list(map(int, c)) for c in columns[:4]]
            columns = (*ints, list(map(bool, edge_label)))
        self._set(var_names, node_ids, root, columns, light, source, instance, prediction, check)

    @classmethod
    def from_lists(
        cls,
        var_names: Sequence[str],
        node_ids: Sequence[Hashable],
        root: int,
        node_var: list[int],
        terminal_value: list[int],
        edge_src: list[int],
        edge_dst: list[int],
        edge_label: list[bool],
        *,
        check: bool = True,
    ) -> ExplanationGraph:
        """As the constructor, from lists of Python ints (bools for ``edge_label``), which a
        light graph keeps as they are, neither copied nor converted (the ``.xpg`` reader's).

        Examples
        --------
        >>> xg = ExplanationGraph.from_lists(["a"], [1, 2, 3], 2, [-1, -1, 0], [1, 0, -1],
        ...                                  [2, 2], [0, 1], [True, False])
        >>> xg.light, xg.n_edges
        (True, 2)
        """
        xg = cls.__new__(cls)
        columns = (node_var, terminal_value, edge_src, edge_dst, edge_label)
        xg._set(var_names, node_ids, root, columns, True, None, None, None, check)
        return xg

    def _set(
        self,
        var_names: Sequence[str],
        node_ids: Sequence[Hashable],
        root: int,
        columns: tuple[Any, ...],
        lists: bool,
        source: DecisionGraph | None,
        instance: list[Any] | None,
        prediction: Any,
        check: bool,
    ) -> None:
        self.var_names = list(var_names)
        self.var_index = {name: i for i, name in enumerate(self.var_names)}
        self.node_ids = list(node_ids)
        self.root = int(root)
        self._lists: dict[str, list[Any]] = {}
        self.light = lists and len(columns[2]) < costs.LIGHT_EDGES
        if self.light:
            self._lists = dict(zip(_COLUMNS, columns, strict=True))
        else:
            node_var, terminal_value, edge_src, edge_dst, edge_label = columns
            self.__dict__.update(
                node_var=np.asarray(node_var, dtype=np.int64),
                terminal_value=np.asarray(terminal_value, dtype=np.int64),
                edge_src=np.asarray(edge_src, dtype=np.int64),
                edge_dst=np.asarray(edge_dst, dtype=np.int64),
                edge_label=np.asarray(edge_label, dtype=bool),
            )
        self.source = source
        self.instance = instance
        self.prediction = prediction
        self._cache: dict[str, Any] = {}
        self._is_tree: bool | None = None
        if check:
            self.validate()

    # -- construction ---------------------------------------------------------------------------
    @classmethod
    def from_decision_graph(
        cls, dg: DecisionGraph, instance: Mapping[str, Any] | Sequence[Any]
    ) -> ExplanationGraph:
        """The XpG of ``dg`` for ``instance``: one vectorised pass over the edges.

        The decision graph must satisfy Def. 2 (:meth:`DecisionGraph.validate`, or a compiler
        that guarantees it); the instance is checked against the features.
        """
        from xpg.core.edge_table import edge_table  # numpy's: a decision graph imported it

        values = dg.instance_values(instance)
        t = edge_table(dg)
        label = t.satisfied(dg.features, values)
        root = dg.index_of(dg.root)
        reached = follow_ones(root, t.src, t.dst, label, len(dg))
        cls_index = int(t.terminal_class[reached])
        if cls_index < 0:
            raise InvalidGraphError(
                f"the instance's path ends at node {dg.nodes[reached]!r}, which is not a terminal "
                "with a class (run validate())"
            )
        terminal_value = np.where(
            t.terminal_class < 0, -1, (t.terminal_class == cls_index).astype(np.int64)
        )
        return cls(
            [f.name for f in dg.features],
            dg.nodes,
            root,
            t.node_feature,
            terminal_value,
            t.src,
            t.dst,
            label,
            source=dg,
            instance=values,
            prediction=dg.classes[cls_index],
            check=False,
        )

    # -- structure ------------------------------------------------------------------------------
    def runs_on_lists(self, small: int | None = None) -> bool:
        """Should a query run on Python lists rather than with numpy?  Yes below ``small``
        edges (default :data:`xpg.core.costs.LIST_QUERY_EDGES`: numpy's fixed costs exceed
        the work there), and on a light graph as long as numpy is not imported (importing it
        costs more than the query).

        Examples
        --------
        >>> from xpg.examples import and_xpg
        >>> and_xpg().runs_on_lists()
        True
        """
        if small is None:
            small = costs.LIST_QUERY_EDGES
        return self.n_edges < small or (self.light and not lazy.loaded("numpy"))

    @property
    def n_nodes(self) -> int:
        """Number of nodes."""
        return len(self._lists["node_var"] if self.light else self.node_var)

    @property
    def n_edges(self) -> int:
        """Number of edges."""
        return len(self._lists["edge_src"] if self.light else self.edge_src)

    @property
    def n_vars(self) -> int:
        """Number of variables (features)."""
        return len(self.var_names)

    def column_list(self, name: str) -> list[Any]:
        """One of the arrays (``"node_var"``, ..., ``"edge_label"``) as a Python list: a light
        graph's own list, else built on first use.  Do not modify it."""
        if self.light:
            return self._lists[name]
        key = name + "_list"
        if key not in self._cache:
            self._cache[key] = getattr(self, name).tolist()
        return self._cache[key]  # type: ignore[no-any-return]

    @property
    def node_var_list(self) -> list[int]:
        """``node_var`` as a Python list (built on first use)."""
        return self.column_list("node_var")

    @property
    def terminal_value_list(self) -> list[int]:
        """``terminal_value`` as a Python list (built on first use)."""
        return self.column_list("terminal_value")

    @property
    def _adjacency(self) -> Any:
        return self._cache.get("adjacency")

    @_adjacency.setter
    def _adjacency(self, value: Any) -> None:
        # bench/core_speed.py sets ``_adjacency = None`` to time a traversal from scratch:
        # forget every traversal structure then, not only the adjacency lists.
        if value is None:
            self._cache.clear()
        else:
            self._cache["adjacency"] = value

    def csr(self) -> TraversalArrays:
        """The traversal arrays (:class:`TraversalArrays`), built once per graph with numpy.

        Raises
        ------
        InvalidGraphError
            When a node has several outgoing edges labelled 1 (Def. 3 allows one at most).

        Examples
        --------
        >>> from xpg.examples import and_xpg
        >>> t = and_xpg().csr()
        >>> t.one.tolist(), t.zero_ptr.tolist(), t.zero_idx.tolist()
        ([-1, -1, -1, 4, 1], [0, 0, 0, 0, 1, 2], [0, 2])
        """
        if "csr" not in self._cache:
            self._cache["csr"] = traversal_arrays(
                self.edge_src, self.edge_dst, self.edge_label, self.terminal_value, self.node_ids
            )
        return self._cache["csr"]

    def var_nodes(self) -> tuple[np.ndarray, np.ndarray]:
        """Nodes per variable as CSR arrays ``(ptr, idx)``: ``idx[ptr[v]:ptr[v + 1]]`` are the
        nodes testing ``v``, in node order.

        Examples
        --------
        >>> from xpg.examples import and_xpg
        >>> [a.tolist() for a in and_xpg().var_nodes()]
        [[0, 1, 2], [3, 4]]
        """
        if "var_nodes" not in self._cache:
            inner = np.flatnonzero(self.node_var >= 0)
            self._cache["var_nodes"] = group(self.node_var[inner], inner, self.n_vars)
        return self._cache["var_nodes"]

    def views(self) -> TraversalViews:
        """The traversal arrays as Python-indexable sequences, for node-by-node traversals:
        lists on small graphs (the fastest to index, and cheap to build there), zero-copy
        memoryviews of the numpy arrays on large ones (no per-node Python object is built)."""
        if "views" not in self._cache:
            if self.runs_on_lists(costs.SMALL_EDGES):
                src, dst, label = (self.column_list(c) for c in _COLUMNS[2:])
                var, value = self.node_var_list, self.terminal_value_list
                views = list_views(src, dst, label, var, value, self.node_ids)
            else:
                as_lists = self.n_edges < costs.LIST_EDGES
                views = array_views(self.csr(), self.node_var, self.terminal_value, as_lists)
            self._cache["views"] = views
        return self._cache["views"]

    def has_ends_at_zero(self) -> bool:
        """True when :meth:`ends_at_zero` is already built."""
        return "ends_at_zero" in self._cache

    def ends_at_zero(self) -> np.ndarray:
        """Per node, True when its path of 1-edges ends at a terminal labelled 0.

        Such a node reaches a 0-terminal whatever is free; one vectorised pointer-doubling
        pass over the nodes (a logarithmic number of gathers in the longest 1-path).

        Examples
        --------
        >>> from xpg.examples import and_xpg
        >>> and_xpg().ends_at_zero().tolist()
        [True, False, True, False, False]
        """
        if "ends_at_zero" not in self._cache:
            t = self.csr()
            self._cache["ends_at_zero"] = ends_at_zero(t.one, t.zero_terminal)
        return self._cache["ends_at_zero"]

    def adjacency(self) -> tuple[Sequence[list[int]], Sequence[list[int]], Sequence[list[int]]]:
        """Children via 1-edges, via 0-edges, and nodes per variable, indexable by node/variable.

        Children keep the order of the edges.  Built once per graph: with a Python loop on
        small graphs, from the CSR arrays (:meth:`csr`, :meth:`var_nodes`) on larger ones,
        where each node's children are sliced out of one flat list on access, so that a
        million-edge graph does not pay for a million small lists before the first query.
        """
        if self._adjacency is None:
            with paused_gc():  # many small lists, no cycles: the collector would only slow this
                self._adjacency = self._build_adjacency()
        return self._adjacency

    def _build_adjacency(
        self,
    ) -> tuple[Sequence[list[int]], Sequence[list[int]], Sequence[list[int]]]:
        if self.runs_on_lists(costs.SMALL_EDGES):
            one: list[list[int]] = [[] for _ in range(self.n_nodes)]
            zero: list[list[int]] = [[] for _ in range(self.n_nodes)]
            for s, d, lab in zip(
                self.column_list("edge_src"),
                self.column_list("edge_dst"),
                self.column_list("edge_label"),
                strict=True,
            ):
                (one if lab else zero)[s].append(d)
            by_var: list[list[int]] = [[] for _ in range(self.n_vars)]
            for n, var in enumerate(self.node_var_list):
                if var >= 0:
                    by_var[var].append(n)
            return (one, zero, by_var)
        lab, src, dst = self.edge_label, self.edge_src, self.edge_dst
        groups = (
            Groups(*group(src[lab], dst[lab], self.n_nodes)),
            Groups(*group(src[~lab], dst[~lab], self.n_nodes)),
            Groups(*self.var_nodes()),
        )
        if len(src) < costs.ADJACENCY_LIST_EDGES:
            return (groups[0].lists(), groups[1].lists(), groups[2].lists())
        return groups

    def one_child(self) -> list[int]:
        """Per node, its child through the edge labelled 1 (-1: none), as a list.

        Raises
        ------
        InvalidGraphError
            When a node has several outgoing edges labelled 1 (Def. 3 allows one at most).
        """
        if "one_child" not in self._cache:
            self._cache["one_child"] = list(self.views().one)
        return self._cache["one_child"]

    def is_tree(self) -> bool:
        """True when every node has at most one parent."""
        if self._is_tree is None:
            if self.runs_on_lists():
                dst = self.column_list("edge_dst")
                self._is_tree = len(set(dst)) == len(dst)
            else:
                indeg = np.bincount(self.edge_dst, minlength=self.n_nodes)
                self._is_tree = bool((indeg <= 1).all())
        return self._is_tree

    def tested_vars(self) -> list[int]:
        """Indices of the variables that label some node (one pass, cached)."""
        if "tested_vars" not in self._cache:
            if self.runs_on_lists(costs.TESTED_VARS_LIST_EDGES):
                tested = sorted({v for v in self.node_var_list if v >= 0})
            else:
                counts = np.bincount(self.node_var + 1, minlength=self.n_vars + 1)
                tested = np.flatnonzero(counts[1:]).tolist()
            self._cache["tested_vars"] = tested
        return list(self._cache["tested_vars"])

    def has_zero_terminal(self) -> bool:
        """False for a constant classifier (no terminal of another class)."""
        if self.light:
            return 0 in self._lists["terminal_value"]
        return bool((self.terminal_value == 0).any())

    def names(self, variables: Sequence[int] | set[int]) -> tuple[str, ...]:
        """Variable names of a set of indices, in variable order."""
        return tuple(self.var_names[i] for i in sorted(variables))

    def index(self, feature: str | int) -> int:
        """The variable index of a feature given by name (or by index), checked."""
        if isinstance(feature, Integral) and not isinstance(feature, bool):
            if 0 <= feature < self.n_vars:
                return int(feature)
            raise InvalidFeatureError(
                f"feature index: expected 0 to {self.n_vars - 1}, found {feature}"
            )
        if isinstance(feature, str) and feature in self.var_index:
            return self.var_index[feature]
        shown = ", ".join(self.var_names[:10])
        more = f", ... ({self.n_vars} in all)" if self.n_vars > 10 else ""
        raise InvalidFeatureError(
            f"unknown feature {feature!r}: expected one of the graph's features ({shown}{more})"
        )

    def indices(self, names: Sequence[str | int] | set[str] | set[int]) -> set[int]:
        """Variable indices of names (or indices), checked."""
        return {self.index(x) for x in names}

    # -- validation -----------------------------------------------------------------------------
    def validate(self) -> None:
        """Check Def. 3 of the core paper; raise :class:`InvalidGraphError` with every violation."""
        problems = self.violations()
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise InvalidGraphError(f"invalid explanation graph: {problems[0]}{more}", problems)

    def violations(self) -> list[str]:
        """Every violation of Def. 3, each naming the node or edge it concerns.

        Linear: numpy passes over the node and edge arrays, Python touching only the nodes
        at fault; where queries run on lists (:meth:`runs_on_lists`), by loops over them,
        with the same messages in the same order.

        Examples
        --------
        >>> xg = ExplanationGraph(["a"], ["r", "t", "u"], 0, np.array([0, -1, -1]),
        ...                       np.array([-1, 1, 1]), np.array([0, 0]), np.array([1, 2]),
        ...                       np.array([True, True]), check=False)
        >>> xg.violations()
        ["node 'r' has 2 outgoing edges labelled 1 (at most 1)"]
        """
        shape = self.shape_violations()
        if shape:
            return shape
        if self.runs_on_lists(costs.SMALL_EDGES):
            return _light_violations(self)
        ids, n = self.node_ids, self.n_nodes
        problems: list[str] = []
        out_deg = np.bincount(self.edge_src, minlength=n)
        in_deg = np.bincount(self.edge_dst, minlength=n)
        sources = np.flatnonzero(in_deg == 0)
        if len(sources) != 1 or sources[0] != self.root:
            extra = [ids[s] for s in sources[:11].tolist() if s != self.root]
            if in_deg[self.root]:
                problems.append(f"the root {ids[self.root]!r} has incoming edges")
            if extra:
                problems.append(f"several roots: nodes {extra[:10]!r} have no incoming edge")
        problems += self._node_violations(out_deg > 0)
        ones = np.bincount(self.edge_src[self.edge_label], minlength=n)
        for i in np.flatnonzero(ones > 1).tolist():
            problems.append(f"node {ids[i]!r} has {ones[i]} outgoing edges labelled 1 (at most 1)")
        if has_cycle(self.edge_src, self.edge_dst, n):
            problems.append("the graph has a cycle")
        if problems:
            return problems
        end = follow_ones(self.root, self.edge_src, self.edge_dst, self.edge_label, n)
        if out_deg[end]:
            problems.append(f"the path of edges labelled 1 stops at non-terminal {ids[end]!r}")
        elif self.terminal_value[end] != 1:
            problems.append(
                f"the path of edges labelled 1 ends at terminal {ids[end]!r}, labelled 0 "
                "(expected the terminal labelled 1)"
            )
        return problems

    def shape_violations(self) -> list[str]:
        """The arrays that do not fit together: lengths that differ, nodes, the root or
        variables out of range (checked first: every other check indexes with them).

        Examples
        --------
        >>> ExplanationGraph(["a"], ["r", "t"], 0, [0, -1], [-1, 1], [0], [5], [True],
        ...                  check=False).shape_violations()
        ['edge_dst: expected node indices from 0 to 1, found 5']
        """
        n, n_edges = self.n_nodes, self.n_edges
        problems = [
            f"{name}: expected {want} entries (one per {per}), found {len(column)}"
            for name, column, want, per in (
                ("node_ids", self.node_ids, n, "node"),
                ("terminal_value", self._column("terminal_value"), n, "node"),
                ("edge_dst", self._column("edge_dst"), n_edges, "edge"),
                ("edge_label", self._column("edge_label"), n_edges, "edge"),
            )
            if len(column) != want
        ]
        if not 0 <= self.root < n:
            problems.append(f"root: expected a node index from 0 to {n - 1}, found {self.root}")
        for name, low, high, what in (
            ("edge_src", 0, n - 1, "node indices"),
            ("edge_dst", 0, n - 1, "node indices"),
            ("node_var", -1, self.n_vars - 1, "variable indices (-1: none)"),
        ):
            column = self._column(name)
            if len(column):
                lo, hi = (
                    (min(column), max(column))
                    if isinstance(column, list)
                    else (int(column.min()), int(column.max()))
                )
                if lo < low or hi > high:
                    found = lo if lo < low else hi
                    problems.append(f"{name}: expected {what} from {low} to {high}, found {found}")
        return problems

    def _column(self, name: str) -> Any:
        """A node or edge column as it is kept: a list on a light graph, else numpy."""
        return self._lists[name] if self.light else getattr(self, name)

    def _node_violations(self, has_children: np.ndarray) -> list[str]:
        """Nodes whose variable or label does not match their children, node by node."""
        ids = self.node_ids
        labelled = (self.terminal_value == 0) | (self.terminal_value == 1)
        checks = (  # in the order they are reported for one node
            (has_children & (self.node_var < 0), "non-terminal {!r} has no variable"),
            (~has_children & ~labelled, "terminal {!r} has no 0/1 label"),
            (has_children & labelled, "node {!r} is labelled as a terminal but has children"),
        )
        found = sorted((i, k) for k, (bad, _) in enumerate(checks) for i in np.flatnonzero(bad))
        return [checks[k][1].format(ids[i]) for i, k in found]

    def __repr__(self) -> str:
        return (
            f"ExplanationGraph({self.n_vars} variables, {self.n_nodes} nodes, {self.n_edges} edges)"
        )


def _light_violations(xg: ExplanationGraph) -> list[str]:
    """:meth:`ExplanationGraph.violations` over a light graph's lists (the same messages, in
    the same order); the counting runs in C (``Counter``), Python touches the nodes."""
    ids, n, root = xg.node_ids, xg.n_nodes, xg.root
    src, dst, label = (xg.column_list(c) for c in ("edge_src", "edge_dst", "edge_label"))
    var, value = xg.node_var_list, xg.terminal_value_list
    problems: list[str] = []
    out_deg, in_deg = Counter(src), Counter(dst)
    ones = Counter(compress(src, label))
    sources = [i for i in range(n) if i not in in_deg]
    if len(sources) != 1 or sources[0] != root:
        extra = [ids[s] for s in sources[:11] if s != root]
        if in_deg[root]:
            problems.append(f"the root {ids[root]!r} has incoming edges")
        if extra:
            problems.append(f"several roots: nodes {extra[:10]!r} have no incoming edge")
    # as ExplanationGraph._node_violations: by node, then in the order of the checks
    unlabelled = {i for i, v in enumerate(value) if v != 0 and v != 1}
    found = [(i, 1) for i in unlabelled if i not in out_deg]
    for i in out_deg:
        if var[i] < 0:
            found.append((i, 0))
        if i not in unlabelled:
            found.append((i, 2))
    checks = (
        "non-terminal {!r} has no variable",
        "terminal {!r} has no 0/1 label",
        "node {!r} is labelled as a terminal but has children",
    )
    problems += [checks[k].format(ids[i]) for i, k in sorted(found)]
    for i in sorted(i for i, k in ones.items() if k > 1):
        problems.append(f"node {ids[i]!r} has {ones[i]} outgoing edges labelled 1 (at most 1)")
    if has_cycle_lists(src, dst, n, out_deg):
        problems.append("the graph has a cycle")
    if problems:
        return problems
    nxt = dict(zip(compress(src, label), compress(dst, label)))
    end = root
    for _ in range(n):
        if end not in nxt:
            break
        end = nxt[end]
    else:
        raise InvalidGraphError("the path of edges labelled 1 has a cycle")
    if out_deg[end]:
        problems.append(f"the path of edges labelled 1 stops at non-terminal {ids[end]!r}")
    elif value[end] != 1:
        problems.append(
            f"the path of edges labelled 1 ends at terminal {ids[end]!r}, labelled 0 "
            "(expected the terminal labelled 1)"
        )
    return problems
