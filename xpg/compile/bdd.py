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

from xpg.errors import BackendUnavailableError, InvalidModelError

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
