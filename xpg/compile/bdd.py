"""dd's BDD managers, pure Python (``dd.autoref``) or CUDD (``dd.cudd``), behind one interface.

Both dd back-ends use complemented edges: a reference may stand for the negation of the node
it points to, and dd's ``low``/``high`` are the children of the node, not of the negated
function.  :func:`cofactors` restores the cofactors of the function.

Examples
--------
>>> bdd = bdd_manager(["a", "b"])
>>> u = ~bdd.apply("and", bdd.var("a"), bdd.var("b"))
>>> [f == bdd.true for f in cofactors(u)]
[True, False]

References
----------
Bryant. Graph-based algorithms for Boolean function manipulation. IEEE TC 1986;
Brace, Rudell, Bryant. Efficient implementation of a BDD package. DAC 1990 (complemented
edges).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any
from typing import Literal as TypingLiteral

from xpg.errors import BackendUnavailableError, GraphTooLargeError, InvalidModelError

Backend = TypingLiteral["autoref", "cudd"]
BACKENDS: tuple[str, ...] = ("autoref", "cudd")


def backend_module(backend: str) -> Any:
    """The dd module of a back-end name (``"autoref"``: pure Python; ``"cudd"``: CUDD)."""
    if backend not in BACKENDS:
        raise InvalidModelError(f"expected a dd back-end in {BACKENDS}, found {backend!r}")
    try:
        return importlib.import_module(f"dd.{backend}")
    except ImportError as err:
        raise BackendUnavailableError(
            f"dd.{backend} is not available ({err}); the dd wheels for Linux include dd.cudd, "
            "otherwise use backend='autoref'"
        ) from None


def bdd_manager(variables: Sequence[str], backend: Backend = "autoref") -> Any:
    """A dd BDD manager with ``variables`` declared in this order and reordering off."""
    bdd = backend_module(backend).BDD()
    bdd.declare(*variables)
    bdd.configure(reordering=False)
    return bdd


def cofactors(u: Any) -> tuple[Any, Any]:
    """The (low, high) cofactors of the function ``u`` w.r.t. its top variable.

    dd returns the children of the node a reference points to; a complemented reference
    denotes the negation of that node, so its cofactors are the negated children.
    """
    low, high = u.low, u.high
    return (~low, ~high) if u.negated else (low, high)


def check_size(bdd: Any, budget: int | None, what: str = "the diagram") -> None:
    """Raise :class:`~xpg.errors.GraphTooLargeError` when the manager holds more than
    ``budget`` live nodes (None: no limit).

    dd's pure-Python back-end keeps dead nodes until its garbage is collected, so a count
    above the budget is taken again after a collection; CUDD counts its own.

    Examples
    --------
    >>> bdd = bdd_manager(["a", "b", "c"])
    >>> u = bdd.var("a") & bdd.var("b") & bdd.var("c")
    >>> check_size(bdd, 10)
    >>> check_size(bdd, 2, "the list")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    xpg.errors.GraphTooLargeError: the list is too large to compile: it needs more than ...
    """
    if budget is None or len(bdd) <= budget:
        return
    if hasattr(bdd, "collect_garbage"):
        bdd.collect_garbage()
    if len(bdd) > budget:
        raise GraphTooLargeError(
            f"{what} is too large to compile: it needs more than the budget of {budget} "
            "diagram nodes"
        )


def diagram_size(functions: Sequence[Any], limit: int | None = None) -> int:
    """The nodes of the multi-terminal diagram of ``functions`` taken together (one node per
    distinct tuple of their cofactors, terminals included: what
    :meth:`~xpg.models.obdd.OBDD.to_decision_graph` makes), counted up to ``limit + 1``.

    Examples
    --------
    >>> bdd = bdd_manager(["a", "b"])
    >>> a, b = bdd.var("a"), bdd.var("b")
    >>> diagram_size([a & b]), diagram_size([a & b, ~(a & b)]), diagram_size([~a, a & ~b, a & b])
    (4, 4, 5)
    """
    seen: set[tuple[int, ...]] = set()
    stack = [tuple(functions)]
    while stack:
        fs = stack.pop()
        key = tuple(int(f) for f in fs)
        if key in seen:
            continue
        seen.add(key)
        if limit is not None and len(seen) > limit:
            break
        levels = [f.level for f in fs if f.var is not None]
        if not levels:
            continue
        top = min(levels)
        lows, highs = [], []
        for f in fs:
            lo, hi = cofactors(f) if f.var is not None and f.level == top else (f, f)
            lows.append(lo)
            highs.append(hi)
        stack += [tuple(lows), tuple(highs)]
    return len(seen)


def manager_order(bdd: Any) -> list[str]:
    """The manager's variables, top level first."""
    n = len(bdd.vars)
    return [bdd.var_at_level(i) for i in range(n)]


def reorder(bdd: Any, order: Sequence[str]) -> None:
    """Reorder a dd manager to ``order`` (all its variables, top first), either back-end."""
    levels = manager_order(bdd)
    if sorted(order) != sorted(levels):
        raise InvalidModelError(
            f"expected an order of the manager's variables {sorted(levels)!r}, "
            f"found {list(order)!r}"
        )
    backend_module(type(bdd).__module__.split(".")[-1]).reorder(
        bdd, {v: i for i, v in enumerate(order)}
    )
