"""The packages of xpg import each other in one direction: the layout shows the data flow.

Every ``from xpg.X import`` (at the top of a module or inside a function) is an edge between
packages; the graph must have no cycle, but for one deliberate edge: a ``DecisionGraph``
encodes itself for the SMT verifier on first use (``core -> solvers``, pysmt loaded lazily).
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

import xpg

PACKAGE = Path(xpg.__file__).parent
ALLOWED = {("core", "solvers")}


def package_graph() -> nx.DiGraph:
    graph = nx.DiGraph()
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).parts
        source = parts[0].removesuffix(".py")
        if source == "__init__":
            continue  # the public API re-exports everything
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("xpg."):
                target = node.module.split(".")[1]  # type: ignore[union-attr]
                if target != source:
                    graph.add_edge(source, target, where=f"{path.name}:{node.lineno}")
    return graph


def test_packages_import_each_other_in_one_direction() -> None:
    graph = package_graph()
    graph.remove_edges_from(ALLOWED)
    cycles = list(nx.simple_cycles(graph))
    assert not cycles, [
        [(a, b, graph.edges[a, b]["where"]) for a, b in zip(c, c[1:] + c[:1])] for c in cycles
    ]


def test_core_and_compile_sit_at_the_bottom() -> None:
    core = package_graph()
    assert set(core.successors("core")) <= {"errors", "solvers"}
    assert set(core.successors("compile")) <= {"core", "errors", "solvers"}


def module_graph() -> nx.DiGraph:
    """Every import between modules of xpg: ``import xpg.a.b``, ``from xpg.a import b`` (the
    module ``xpg.a.b`` when it is one, else the package ``xpg.a``), at the top of a module, in
    a function or under ``TYPE_CHECKING``.  A package's ``__init__`` is the package."""
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = ("xpg",) + path.relative_to(PACKAGE).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    graph = nx.DiGraph()
    for name, path in modules.items():
        graph.add_node(name)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                base = node.module or ""
                targets = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in modules]
                targets = targets or [base]
            else:
                continue
            for target in targets:
                if target in modules and target != name:
                    graph.add_edge(name, target, where=f"{path.name}:{node.lineno}")
    return graph


def test_no_module_imports_itself_back() -> None:
    """No import circle between modules, counting imports inside functions (issue 29)."""
    graph = module_graph()
    cycles = [c for c in nx.strongly_connected_components(graph) if len(c) > 1]
    assert not cycles, [sorted(c) for c in cycles]


def test_the_module_checker_sees_a_cycle() -> None:
    graph = module_graph()
    assert graph.has_edge("xpg.explain.marco", "xpg.explain.axp_cxp")
    graph.add_edge("xpg.explain.axp_cxp", "xpg.explain.marco")
    assert any(len(c) > 1 for c in nx.strongly_connected_components(graph))


def test_the_checker_sees_a_cycle() -> None:
    graph = package_graph()
    graph.add_edge("core", "explain", where="test")
    assert list(nx.simple_cycles(graph))
