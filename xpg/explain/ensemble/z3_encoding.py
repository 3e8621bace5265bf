"""The ensemble oracle's question in z3 (:class:`Z3Encoding`), after Izza and Marques-Silva.

* **Features.** An ordered feature with ``K`` cells has ``K - 1`` order variables ``o_r``
  ("the cell is below ``r``"), with ``o_r -> o_{r+1}``; a feature group has one variable per
  cell, exactly one true.  Cells are intersected with the declared domain beforehand, so
  every assignment is a value the feature can take.
* **Trees.** Per tree, a variable ``r_n`` per node of the leaf table's ``reach`` ("the input
  reaches ``n``"): the root is reached, ``r_n and L -> r_left``, ``r_n and not L ->
  r_right``, and a child is reached only through its parent and its literal ``L`` (an order
  variable, a cell variable or an auxiliary variable equal to a disjunction of cells).
  Exactly one leaf per tree is reached.
* **Vote.** Per :class:`~xpg.explain.ensemble.vote.VotePair` ``q``, a Boolean ``b_q``
  implies its constraint, given to the solver on first use (:meth:`Z3Encoding.beats`).
  Backend ``"pb"`` states it as a pseudo-Boolean constraint in z3's SAT core (logic
  ``QF_FD``) over a ladder of each tree's leaf weights; backend ``"lra"`` as a sum of exact
  rationals in linear real arithmetic.
* **Fixing.** A selector ``s_i`` per feature implies that feature's instance cell; the
  features of ``S`` are fixed by assuming their selectors (:meth:`Z3Encoding.selectors`).

Examples
--------
>>> import z3
>>> from xpg.models.ensemble_import import ensemble_from_sklearn
>>> from xpg.testing.ensembles import random_sklearn_ensemble
>>> from xpg.explain.ensemble.space import CellSpace
>>> from xpg.explain.ensemble.vote import Vote
>>> forest, features, points = random_sklearn_ensemble(1, "forest")
>>> space = CellSpace(ensemble_from_sklearn(forest, features), list(points[0]))
>>> enc = Z3Encoding(Vote(space, 0), "lra")  # the forest predicts its class 0 there
>>> [enc.solver.check(*enc.selectors(np.array(fixed)), enc.beats(0)) == z3.sat
...  for fixed in ([True, True, False], [False, True, True])]
[False, True]
>>> cells = enc.decode(enc.solver.model())  # an input of another class: its model says so
>>> cells[1:].tolist(), int(space.model.predict_batch(space.rows(cells))[0]) != 0
([0, 0], True)

References
----------
Izza, Marques-Silva. On Explaining Random Forests with SAT. IJCAI 2021; Ignatiev, Izza,
Stuckey, Marques-Silva. Using MaxSAT for Efficient Explanations of Tree Ensembles. AAAI 2022
(boosted trees, score differences); de Moura, Bjorner. Z3. TACAS 2008.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from xpg.explain.ensemble.vote import Vote, VotePair


class Z3Encoding:
    """The z3 solver of one instance's oracle, its variables and its vote constraints.

    The SMT-LIB text of the encoding is parsed once by z3 (much faster than building the
    terms one by one through the Python API).

    Parameters
    ----------
    vote : Vote
        The model, the instance and the pairs.
    backend : {"pb", "lra"}
        The statement of the vote (see the module docstring).

    Attributes
    ----------
    solver : z3.Solver
    """

    def __init__(self, vote: Vote, backend: str) -> None:
        import z3

        self.vote, self.backend = vote, backend
        self.space = space = vote.space
        self.table = table = vote.table
        decl: list[str] = []
        body: list[str] = []
        self._feature_vars: list[list[str]] = []
        literal: dict[tuple[int, Any], str] = {}
        for i, k in enumerate(space.n_cells):
            inst = space.instance_cell[i]
            decl.append(f"(declare-const s{i} Bool)")
            names: list[str] = []
            if k > 1 and space.ordered[i]:
                names = [f"o{i}_{r}" for r in range(1, k)]
                decl += [f"(declare-const {v} Bool)" for v in names]
                body += [f"(assert (or (not {a}) {b}))" for a, b in zip(names, names[1:])]
                if inst + 1 <= k - 1:
                    body.append(f"(assert (or (not s{i}) o{i}_{inst + 1}))")
                if inst >= 1:
                    body.append(f"(assert (or (not s{i}) (not o{i}_{inst})))")
            elif k > 1:
                names = [f"e{i}_{c}" for c in range(k)]
                decl += [f"(declare-const {v} Bool)" for v in names]
                body.append(f"(assert (or {' '.join(names)}))")
                body.append(f"(assert ((_ at-most 1) {' '.join(names)}))")
                body.append(f"(assert (or (not s{i}) e{i}_{inst}))")
            self._feature_vars.append(names)

        def lit(i: int, lc: Any) -> str:
            if isinstance(lc, int):
                return f"o{i}_{lc}"
            key = (i, lc)
            if key not in literal:
                name = f"a{len(literal)}"
                decl.append(f"(declare-const {name} Bool)")
                cells = " ".join(f"e{i}_{c}" for c in sorted(lc))
                body.append(f"(assert (= {name} (or {cells} false)))")
                literal[key] = name
            return literal[key]

        for t in range(len(vote.model.trees)):
            feat, left = space.splits[t]
            decl.append(f"(declare-const r{t}_0 Bool)")
            body.append(f"(assert r{t}_0)")
            for child, via in table.reach[t].items():
                if via is None:
                    continue
                src, n, side = via
                L = lit(int(feat[n]), left[n])
                R, C = f"r{t}_{src}", f"r{t}_{child}"
                decl.append(f"(declare-const {C} Bool)")
                if side:
                    body.append(f"(assert (or (not {R}) (not {L}) {C}))(assert (or (not {C}) {L}))")
                else:
                    body.append(f"(assert (or (not {R}) {L} {C}))(assert (or (not {C}) (not {L})))")
                body.append(f"(assert (or (not {C}) {R}))")
        solver = z3.SolverFor("QF_FD") if backend == "pb" else z3.Solver()
        solver.from_string("\n".join(decl + body))
        self._sel = [z3.Bool(f"s{i}") for i in range(len(space.n_cells))]
        self._leaf_names = [self._node_name(t, n) for t, n in table.leaves()]
        self._row_of = {leaf: row for row, leaf in enumerate(table.leaves())}
        self._same: list[list[int]] | None = None
        self._beats: dict[int, Any] = {}
        self.solver = solver

    def reset(self) -> None:
        """Free the solver's memory."""
        self.solver.reset()

    # -- literals to assume ----------------------------------------------------------------------
    def selectors(self, fixed: np.ndarray) -> list[Any]:
        """The selectors of the ``fixed`` features (a mask): assumed, they fix them."""
        return [self._sel[i] for i in np.flatnonzero(fixed).tolist()]

    def core_features(self, core: Sequence[Any]) -> list[int]:
        """The features whose selectors an unsatisfiable core holds."""
        names = {str(a) for a in core}
        return [i for i in range(len(self._sel)) if f"s{i}" in names]

    def cell_assumptions(self, options: Sequence[Sequence[int]]) -> list[Any]:
        """Literals that keep the cell of each feature ``i`` among ``options[i]`` (sorted, and
        consecutive for an ordered feature)."""
        import z3

        space = self.space
        extra = []
        for i, chosen in enumerate(options):
            k = space.n_cells[i]
            if len(chosen) == k:
                continue
            if space.ordered[i]:  # o{i}_{r}: the cell is below r
                if chosen[0] >= 1:
                    extra.append(z3.Not(z3.Bool(f"o{i}_{chosen[0]}")))
                if chosen[-1] + 1 <= k - 1:
                    extra.append(z3.Bool(f"o{i}_{chosen[-1] + 1}"))
            else:
                extra += [z3.Not(z3.Bool(f"e{i}_{c}")) for c in range(k) if c not in chosen]
        return extra

    def beats(self, q: int) -> Any:
        """``b_q``, its vote constraint given to the solver on first use (the classes a
        question never reaches cost nothing)."""
        import z3

        if q not in self._beats:
            decl = [f"(declare-const b{q} Bool)"]  # the solver knows the leaves already
            body: list[str] = []
            vote = self._vote(self.vote.pairs[q], q, self._leaf_names, decl, body)
            body.append(f"(assert (=> b{q} {vote}))")
            self.solver.from_string("\n".join(decl + body))
            self._beats[q] = z3.Bool(f"b{q}")
        return self._beats[q]

    # -- models and refinements ------------------------------------------------------------------
    def decode(self, model: Any) -> np.ndarray:
        """The cell of every feature in a model of the solver."""
        import z3

        cells = np.asarray(self.space.instance_cell, dtype=np.int64).copy()
        for i, names in enumerate(self._feature_vars):
            if not names:
                continue
            values = [z3.is_true(model.eval(z3.Bool(v), model_completion=True)) for v in names]
            if self.space.ordered[i]:
                cells[i] = values.count(False)  # o_r false for every r <= cell
            else:
                cells[i] = values.index(True)
        return cells

    def block(self, cells: np.ndarray) -> None:
        """Exclude the combination of leaves ``cells`` reaches (a near-tie the relaxed
        constraint admits but the model's floats do not), and with it every combination
        that differs only by leaves of the same contributions: the model adds the same
        numbers in the same order there, so its floats decide alike."""
        import z3

        same = self._same_contributions()
        self.solver.add(
            z3.Or([z3.And([z3.Not(z3.Bool(self._leaf_names[r])) for r in same[row]])
                   for row in self._leaf_rows(cells)])
        )  # fmt: skip

    def _same_contributions(self) -> list[list[int]]:
        """Per leaf of the table, the leaves of its tree with the same contributions."""
        if self._same is None:
            per_leaf, tree = self.vote.per_leaf, self.table.tree
            key = [(int(tree[row]), per_leaf[row].tobytes()) for row in range(len(tree))]
            groups: dict[tuple[int, bytes], list[int]] = {}
            for row, k in enumerate(key):
                groups.setdefault(k, []).append(row)
            self._same = [groups[k] for k in key]
        return self._same

    def _leaf_rows(self, cells: np.ndarray) -> list[int]:
        """The rows of the leaf table ``cells`` reach, one per tree."""
        space = self.space
        rows = []
        for t, tree in enumerate(self.vote.model.trees):
            feat, left = space.splits[t]
            n = 0
            while tree.left[n] >= 0:
                lc = left[n]
                assert lc is not None
                goes_left = space.goes_left(int(feat[n]), lc, int(cells[feat[n]]))
                n = int(tree.left[n] if goes_left else tree.right[n])
            rows.append(self._row_of[t, n])
        return rows

    def _node_name(self, t: int, n: int) -> str:
        return f"r{t}_{self.table.alias[t].get(n, n)}"

    # -- the vote ----------------------------------------------------------------------------------
    def _vote(
        self, pair: VotePair, q: int, leaf_names: list[str], decl: list[str], body: list[str]
    ) -> str:
        """``pair``'s constraint over the leaf variables, in SMT-LIB."""
        if self.backend == "pb":
            return self._vote_pb(pair, q, leaf_names, decl, body)
        eps = self.vote.eps
        terms = [f"(ite {v} {_real(w)} 0.0)" for v, w in zip(leaf_names, pair.u_exact) if w != 0]
        total = f"(+ {' '.join(terms)} {_real(pair.const)})"
        if eps == 0.0:
            return f"({'>' if pair.strict else '>='} {total} 0.0)"
        return f"(>= {total} {_real(-Fraction(eps))})"

    def _vote_pb(
        self, pair: VotePair, q: int, leaf_names: list[str], decl: list[str], body: list[str]
    ) -> str:
        """``pair``'s constraint as a pseudo-Boolean sum over per-tree ladders.

        Per tree, with ``w_0 < ... < w_m`` the distinct (integer) weights of its leaves, a
        rung ``y_k`` (``k >= 1``) means "the leaf reached weighs at least ``w_k``": a leaf of
        rank ``k`` implies ``y_k``, ``y_k`` implies ``y_{k-1}``, and ``y_k`` implies a leaf of
        rank ``k`` or ``y_{k+1}``.  The tree adds ``w_0 + sum((w_k - w_{k-1}) * y_k)``.  Over
        the rungs, the slack the solver propagates is the independent-tree bound of the
        leaves still reachable; over the leaves themselves it would count every heavy leaf of
        a tree at once (the solver does not know that one is reached), and refutations took
        up to 100 times longer.
        """
        weights, bound = self.vote.integer_weights(pair)
        start = self.table.start
        ws: list[str] = []
        ys: list[str] = []
        for t in range(len(self.vote.model.trees)):
            lo, hi = start[t], start[t + 1]
            levels, rank = np.unique(weights[lo:hi], return_inverse=True)
            bound -= int(levels[0])
            at: list[list[str]] = [[] for _ in levels]
            for j, k in enumerate(rank.tolist()):
                at[k].append(leaf_names[lo + j])
            rungs = [f"y{q}_{t}_{k}" for k in range(len(levels))] + ["false"]
            for k in range(1, len(levels)):
                y = rungs[k]
                decl.append(f"(declare-const {y} Bool)")
                ws.append(str(int(levels[k] - levels[k - 1])))
                ys.append(y)
                body.append(f"(assert (or (not {y}) {' '.join(at[k])} {rungs[k + 1]}))")
                body += [f"(assert (or (not {v}) {y}))" for v in at[k]]
                if k > 1:
                    body.append(f"(assert (or (not {y}) {rungs[k - 1]}))")
        if not ys:
            return "true" if bound <= 0 else "false"
        return f"((_ pbge {bound} {' '.join(ws)}) {' '.join(ys)})"


def _real(x: Fraction) -> str:
    """An exact rational as an SMT-LIB real term."""
    num = f"(/ {abs(x.numerator)}.0 {x.denominator}.0)"
    return f"(- {num})" if x < 0 else num


__all__ = ["Z3Encoding"]
