"""An oracle for any model over finite domains: every input classified once by the model's
own ``predict_batch``.

Exact by construction and independent of every compiler and encoding, so the tests use it as
the reference the other oracles must agree with (``tests/oracles/``); also a way to explain
a small model of a kind xpg cannot compile.  Each feature must have a finite domain (boolean,
categorical, or an integer with both bounds); the inputs are at most ``max_inputs``.

Examples
--------
>>> from xpg.examples import paper_figure2
>>> from xpg.explain.axp_cxp import find_axp, find_cxp
>>> oracle = ExhaustiveOracle(paper_figure2(), [0, 1, 2])
>>> oracle.route, oracle.prediction_label, find_axp(oracle), find_cxp(oracle)
('exhaustive', 'R', ('x1',), ('x1',))
>>> oracle.check_cells([[0], None, None]), oracle.check_cells([[1], None, None]).tolist()
(None, [1, 0, 0])

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Def. 1 (AXps and CXps by their definition over the feature space).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from xpg.core.instances import instance_dict
from xpg.errors import InvalidQueryError
from xpg.explain.oracle_abc import CellOracle, allowed_cells
from xpg.models.omdd import finite_values

#: the most inputs an exhaustive oracle classifies
MAX_INPUTS = 1 << 16


class ValueSpace:
    """Every value of each feature, one cell each.

    Attributes
    ----------
    features : list of Feature
    names : list of str
    instance : dict
        The instance's values, by feature name.
    n_cells : list of int
        The size of each feature's domain.
    instance_cell : list of int
        The position of the instance's value in each domain.
    """

    def __init__(self, features: Sequence[Any], instance: dict[str, Any]) -> None:
        self.features = list(features)
        self.instance = {f.name: instance[f.name] for f in self.features}
        self.layout = self  # what an ensemble's space calls its layout (cell_values)
        self.names = [f.name for f in features]
        self.domains = [list(finite_values(f, "an exhaustive oracle")) for f in features]
        self.n_cells = [len(d) for d in self.domains]
        self.instance_cell = [d.index(instance[n]) for d, n in zip(self.domains, self.names)]

    def values(self, cells: Sequence[int]) -> dict[str, Any]:
        """The values of one choice of cells, by feature name."""
        return {n: d[int(c)] for n, d, c in zip(self.names, self.domains, cells)}

    def cell_values(self, i: int, cell: int) -> Any:
        """The values of feature ``i`` that ``cell`` holds: its one value (a set of one for
        a discrete feature, a point for an integer)."""
        import portion as P

        value = self.domains[i][cell]
        return frozenset([value]) if self.features[i].is_discrete else P.singleton(value)


class ExhaustiveOracle(CellOracle):
    """The oracle of one instance of any model over finite domains.

    Parameters
    ----------
    model : model
        Anything with ``features``, ``predict`` and ``predict_batch`` (every kind of
        :mod:`xpg.models`, a :class:`~xpg.core.graph.DecisionGraph`).
    instance : mapping or sequence
    max_inputs : int
        The most inputs classified (the product of the domains' sizes).

    Raises
    ------
    InvalidModelError
        For a feature with an infinite domain.
    InvalidQueryError
        For too many inputs.
    """

    route = "exhaustive"

    def __init__(self, model: Any, instance: Any, *, max_inputs: int = MAX_INPUTS) -> None:
        point = instance_dict(model.features, instance)
        self.space = ValueSpace(model.features, point)
        self.n_features = len(self.space.names)
        total = math.prod(self.space.n_cells)
        if total > max_inputs:
            raise InvalidQueryError(
                f"an exhaustive oracle classifies at most {max_inputs} inputs, this model has "
                f"{total}"
            )
        self.prediction_label = model.predict(point)
        grid = np.indices(self.space.n_cells).reshape(self.n_features, -1).T
        rows = [[d[c] for d, c in zip(self.space.domains, cells)] for cells in grid.tolist()]
        labels = model.predict_batch(np.array(rows, dtype=object)) if rows else []
        #: per input (an array shaped like the cells): is its class another than the instance's?
        self.other = np.array(
            [label != self.prediction_label for label in list(labels)], dtype=bool
        ).reshape(self.space.n_cells)

    def check(self, fixed: Iterable[int], *, solver: bool = True) -> np.ndarray | None:
        self.calls += 1
        self.check_deadline()
        cut: list[Any] = [slice(None)] * self.n_features
        for i in fixed:
            cut[i] = slice(self.space.instance_cell[i], self.space.instance_cell[i] + 1)
        region = self.other[tuple(cut)]
        found = np.flatnonzero(region)
        if not len(found):
            return None
        cells = np.array(np.unravel_index(int(found[0]), region.shape))
        start = np.array([0 if c.start is None else c.start for c in cut])
        return cells + start  # type: ignore[no-any-return]

    def check_cells(self, allowed: Sequence[Iterable[int] | None]) -> np.ndarray | None:
        """An input of another class whose value of each feature ``i`` is among the cells
        ``allowed[i]`` (None: any; positions in the feature's domain), or None.

        Raises
        ------
        InvalidQueryError
            For a position outside a feature's domain.
        """
        self.calls += 1
        self.check_deadline()
        chosen = allowed_cells(self.space.names, self.space.n_cells, allowed)
        axes = [np.asarray(cells, dtype=np.int64) for cells in chosen]
        region = self.other[np.ix_(*axes)]
        found = np.flatnonzero(region)
        if not len(found):
            return None
        where = np.unravel_index(int(found[0]), region.shape)
        return np.array([axis[k] for axis, k in zip(axes, where)], dtype=np.int64)


__all__ = ["MAX_INPUTS", "ExhaustiveOracle", "ValueSpace"]
