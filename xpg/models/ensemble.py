"""Tree ensembles: scikit-learn random forests, extra trees and gradient boosting, exactly.

A :class:`TreeEnsemble` holds trees in scikit-learn's array layout
over the model's declared features and computes exactly what the fitted estimator's
``predict`` computes, bit for bit:

- :class:`Forest` (JSON type ``forest``, ``RandomForestClassifier`` and
  ``ExtraTreesClassifier``): soft voting.  Each tree's leaf holds its class distribution;
  the distributions of the leaves reached are added in tree order and divided by the number
  of trees (as ``ForestClassifier.predict_proba``, one job), and the class is the first
  index of the largest mean (``numpy.argmax``).
- :class:`BoostedTrees` (JSON type ``boosted-trees``, ``GradientBoostingClassifier`` with the
  log-loss): the initial raw prediction ``base`` plus, tree by tree in stage order,
  ``scale * value`` (``scale`` the learning rate, each product rounded before it is added,
  as ``predict_stages`` does).  Two classes: one score, class 1 when it is ``>= 0``
  (``decision == "sign"``); more: one score per class, the first largest
  (``decision == "argmax"``).  Each multi-class stage contributes one tree per class, whose
  ``value`` is zero outside its class's column.

The trees are :class:`~xpg.models.ensemble_tree.EnsembleTree` arrays.  Every split is
``x[feature] <= threshold`` with the threshold already turned into the float64 cut with the
effect of scikit-learn's float32 comparison, ``x[feature]`` the number of the value
(:func:`~xpg.models.ensemble_tree.feature_number`).  A real feature tested at many
thresholds, in many trees, is one feature.

:meth:`TreeEnsemble.to_decision_graph` compiles a small ensemble into a reduced ordered MDD
(:func:`~xpg.models.ensemble_compile.compile_ensemble`) and refuses a large one with
:class:`~xpg.errors.GraphTooLargeError`; :meth:`TreeEnsemble.smt_encoding` encodes the vote in
linear real arithmetic (the sums exact over the rationals, see its note on ties).
:func:`~xpg.models.ensemble_import.ensemble_from_sklearn` reads a fitted scikit-learn
estimator.

Examples
--------
>>> t = EnsembleTree(np.array([0, -1, -1]), np.array([0.5, 0, 0]), np.array([1, -1, -1]),
...                  np.array([2, -1, -1]), np.array([[0.0], [-1.0], [1.0]]))
>>> boosted = BoostedTrees([Feature.real("x")], ["a", "b"], [t, t], [0.0], 0.5)
>>> boosted, boosted.predict_batch([[0.0], [1.0]]).tolist()
(BoostedTrees(1 features, 2 classes, 2 trees, 6 nodes, depth 1), ['a', 'b'])

References
----------
Breiman. Random forests. Machine Learning 2001; Friedman. Greedy function approximation: a
gradient boosting machine. Annals of Statistics 2001; Izza, Marques-Silva. On Explaining
Random Forests with SAT. IJCAI 2021 (the encoding over the intervals between thresholds).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from xpg.core.features import Feature
from xpg.core.graph import DecisionGraph, batch_matrix, label_array
from xpg.core.instances import instance_dict
from xpg.core.json_body import expect, feature_ref, shown
from xpg.errors import InvalidModelError
from xpg.models.ensemble_compile import GRAPH_BUDGET, compile_ensemble
from xpg.models.ensemble_tree import EnsembleTree, feature_number, read_by_code
from xpg.models.protocol import checked_signature
from xpg.solvers.smt import SmtModel

if TYPE_CHECKING:
    from pysmt.fnode import FNode


def _as_array(x: Any, dtype: Any, shape: tuple[int, ...], where: str) -> np.ndarray:
    try:
        a = np.array(x, dtype=dtype)
    except (TypeError, ValueError, OverflowError):
        raise InvalidModelError(f"{where}: expected numbers, found {shown(x)}") from None
    if a.shape != shape:
        raise InvalidModelError(f"{where}: expected shape {shape}, found {a.shape}")
    return a


class TreeEnsemble:
    """Trees over declared features whose leaf values add up to a score vector.

    Not used directly: :class:`Forest` and :class:`BoostedTrees` are the two kinds.

    Parameters
    ----------
    features : sequence of Feature
    classes : sequence
        The class labels, in scikit-learn's ``classes_`` order.
    trees : sequence of EnsembleTree
        Arrays are copied and checked (sizes, children after their parent, every node but
        the root with one parent, features in range, finite thresholds and values).
    base : array-like of float, shape (n_scores,)
    scale : float

    Raises
    ------
    InvalidModelError
        Any of the checks above, or a number of scores that does not fit the classes.
    """

    json_type: ClassVar[str] = ""
    #: what a compile budget counts (:meth:`to_decision_graph`; messages name it)
    budget_unit: ClassVar[str] = "diagram edges made"
    #: how messages name the kind, after the number of trees
    kind_text: ClassVar[str] = "tree ensemble"
    #: what the trees' leaf values add up to, for messages
    _what: ClassVar[str] = "tree ensemble"
    #: an AXp's questions go first to the leaf-table bounds of
    #: :class:`~xpg.explain.ensemble.quick.QuickOracle` (measured faster on XGBoost's models);
    #: scikit-learn's forests keep :class:`~xpg.explain.ensemble.oracle.EnsembleOracle`'s
    #: deletion, whose proofs' cores keep their AXps cheap to prove (churn's rf100-d6: 0.06 s
    #: against 14 s by the bounds' order)
    quick_deletion: ClassVar[bool] = False

    def __init__(
        self,
        features: Sequence[Feature],
        classes: Sequence[Any],
        trees: Sequence[EnsembleTree],
        base: Any,
        scale: float,
    ) -> None:
        self.features, self.classes, self.feature_index = checked_signature(
            self._what, features, classes
        )
        for f in self.features:
            if read_by_code(f):
                continue
            if f.kind == "categorical" and not all(math.isfinite(float(v)) for v in f.values):
                raise InvalidModelError(f"feature {f.name!r}: expected finite category numbers")
        trees = list(trees)
        if not trees:
            raise InvalidModelError(f"{self._what}: expected at least one tree")
        n_scores = self._n_scores()
        self.base = _as_array(base, np.float64, (n_scores,), f"{self._what}: base")
        if not np.isfinite(self.base).all():
            raise InvalidModelError(f"{self._what}: base: expected finite numbers")
        if isinstance(scale, bool) or not isinstance(scale, (int, float, np.floating)):
            raise InvalidModelError(f"{self._what}: scale: expected a number, found {scale!r}")
        self.scale = float(scale)
        if not (math.isfinite(self.scale) and self.scale > 0):
            raise InvalidModelError(f"{self._what}: scale: expected a positive number")
        self.trees: tuple[EnsembleTree, ...] = tuple(
            self._checked_tree(t, i, n_scores) for i, t in enumerate(trees)
        )
        self._check_kind()
        self._flat: tuple[Any, ...] | None = None
        self._terms: tuple[np.ndarray, np.ndarray] | None = None

    # -- the kinds say how many scores, what they require and how they decide --------------------
    def _n_scores(self) -> int:
        return len(self.classes)

    def _check_kind(self) -> None:
        """Raise :class:`~xpg.errors.InvalidModelError` for what the kind does not allow."""

    @property
    def decision(self) -> str:
        """``"argmax"``: the first class of largest score; ``"sign"``: one score, class 1 when
        it is ``>= 0``."""
        return "argmax"

    @property
    def n_scores(self) -> int:
        """The length of the score vector."""
        return len(self.base)

    def _checked_tree(self, tree: Any, i: int, n_scores: int) -> EnsembleTree:
        where = f"tree {i}"
        if not (isinstance(tree, tuple) and len(tree) in (5, 6)):
            raise InvalidModelError(f"{where}: expected an EnsembleTree, found {shown(tree)}")
        feature = np.asarray(tree[0])
        n = int(feature.shape[0]) if feature.ndim == 1 else -1
        if n < 1:
            raise InvalidModelError(f"{where}: expected a non-empty 1-D feature array")
        feature = _as_array(tree[0], np.int64, (n,), f"{where}: feature")
        threshold = _as_array(tree[1], np.float64, (n,), f"{where}: threshold")
        left = _as_array(tree[2], np.int64, (n,), f"{where}: left")
        right = _as_array(tree[3], np.int64, (n,), f"{where}: right")
        value = _as_array(tree[4], np.float64, (n, n_scores), f"{where}: value")
        leaf = left < 0
        split = ~leaf
        bad = np.flatnonzero(leaf & ((left != -1) | (right != -1) | (feature != -1)))
        if len(bad):
            raise InvalidModelError(
                f"{where}, node {bad[0]}: a leaf has left = right = feature = -1"
            )
        nodes = np.arange(n)
        for name, child in (("left", left), ("right", right)):
            wrong = np.flatnonzero(split & ((child <= nodes) | (child >= n)))
            if len(wrong):
                raise InvalidModelError(
                    f"{where}, node {wrong[0]}: expected a {name} child after it and below "
                    f"{n}, found {child[wrong[0]]}"
                )
        parents = np.bincount(np.concatenate([left[split], right[split]]), minlength=n)
        if parents[0] != 0 or (parents[1:] != 1).any():
            k = int(np.flatnonzero(np.r_[parents[0] != 0, parents[1:] != 1])[0])
            raise InvalidModelError(
                f"{where}, node {k}: expected {'no parent' if k == 0 else 'one parent'}, "
                f"found {parents[k]}"
            )
        out_of_range = np.flatnonzero(split & ((feature < 0) | (feature >= len(self.features))))
        if len(out_of_range):
            k = out_of_range[0]
            raise InvalidModelError(
                f"{where}, node {k}: feature index {feature[k]} is not one of the "
                f"{len(self.features)} features"
            )
        if not np.isfinite(threshold[split]).all():
            raise InvalidModelError(f"{where}: expected finite thresholds")
        if not np.isfinite(value).all():
            raise InvalidModelError(f"{where}: expected finite values")
        threshold[leaf] = 0.0
        value[split] = 0.0
        missing = tree[5] if len(tree) == 6 else None
        if missing is not None:
            missing = _as_array(missing, object, (n,), f"{where}: missing_left")
            if not all(isinstance(b, (bool, np.bool_)) for b in missing.tolist()):
                raise InvalidModelError(f"{where}: missing_left: expected booleans")
            missing = missing.astype(bool) & split
        return EnsembleTree(feature, threshold, left, right, value, missing)

    # -- the classification function ----------------------------------------------------------
    def numbers(self, X: Any) -> np.ndarray:
        """The rows of ``X`` (values in feature order, unchecked) as the float64 matrix the
        trees compare (:func:`feature_number` column by column)."""
        M = batch_matrix(self.features, X)
        out = np.empty(M.shape, dtype=np.float64)
        for j, f in enumerate(self.features):
            if read_by_code(f):
                codes = {v: float(k) for k, v in enumerate(f.values)}
                try:
                    out[:, j] = [codes[v] for v in M[:, j].tolist()]
                except (KeyError, TypeError):
                    from xpg.errors import InvalidInstanceError

                    raise InvalidInstanceError(
                        f"feature {f.name!r}: expected values among {list(f.values)!r}"
                    ) from None
            else:
                out[:, j] = M[:, j].astype(np.float64)
        return out

    def leaf_indices(self, X: Any) -> np.ndarray:
        """The leaf each row of ``X`` reaches in each tree, shape ``(n_rows, n_trees)``.

        Every tree descends at once, one level per step for as many steps as the deepest
        tree has levels, over the trees' nodes laid end to end (:meth:`_flat_nodes`), where a
        leaf is its own child on both sides."""
        N = self.numbers(X)
        feature, threshold, left, right, offset, depth = self._flat_nodes()
        node = np.broadcast_to(offset, (len(N), len(offset))).copy()
        missing = self._flat_missing() if np.isnan(N).any() else None
        for _ in range(depth):
            x = np.take_along_axis(N, feature[node], axis=1)
            goes_left = x <= threshold[node]
            if missing is not None:  # NaN fails every comparison: route it as the node says
                goes_left |= np.isnan(x) & missing[node]
            node = np.where(goes_left, left[node], right[node])
        return node - offset

    def _flat_missing(self) -> np.ndarray:
        """Per node of :meth:`_flat_nodes`: does a NaN go left (False at a leaf)?"""
        return np.concatenate(
            [
                np.zeros(len(t.left), dtype=bool) if t.missing_left is None else t.missing_left
                for t in self.trees
            ]
        )

    @property
    def routes_missing(self) -> bool:
        """Does some tree route missing values (NaN) by a default direction?"""
        return any(t.missing_left is not None for t in self.trees)

    def _flat_nodes(self) -> tuple[Any, ...]:
        """The trees' nodes end to end: feature (0 at a leaf), threshold, left and right
        children (indices into the concatenation; a leaf's are itself), each tree's first
        index and the largest depth (built once)."""
        if self._flat is None:
            sizes = [len(t.feature) for t in self.trees]
            offset = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
            own = np.arange(sum(sizes), dtype=np.int64)
            left = np.concatenate([t.left + o for t, o in zip(self.trees, offset.tolist())])
            right = np.concatenate([t.right + o for t, o in zip(self.trees, offset.tolist())])
            leaf = np.concatenate([t.left < 0 for t in self.trees])
            feature = np.concatenate([t.feature for t in self.trees]).astype(np.int64)
            self._flat = (
                np.where(leaf, 0, feature),
                np.concatenate([t.threshold for t in self.trees]),
                np.where(leaf, own, left),
                np.where(leaf, own, right),
                offset,
                max(t.depth for t in self.trees),
            )
        return self._flat

    def scores(self, X: Any) -> np.ndarray:
        """The score vectors of the rows of ``X``, shape ``(n_rows, n_scores)``, computed as
        scikit-learn computes them (the same additions in the same order)."""
        return self._scores_of_leaves(self.leaf_indices(X))

    def scores_of_leaves(self, leaves: np.ndarray) -> np.ndarray:
        """The score vectors of rows given by the leaf each reaches in each tree (shape
        ``(n_rows, n_trees)``, as :meth:`leaf_indices` gives them), as :meth:`scores`."""
        return self._scores_of_leaves(leaves)

    def classes_of_scores(self, scores: np.ndarray) -> np.ndarray:
        """The class index of each score vector (the decision rule, ties included)."""
        return self._decide(scores)

    def _scores_of_leaves(self, leaves: np.ndarray) -> np.ndarray:
        return self._sum_in_order(leaves)  # a forest divides the sum by its trees

    def _sum_in_order(self, leaves: np.ndarray) -> np.ndarray:
        """``base + contribution(tree 0) + contribution(tree 1) + ...`` at the leaves
        reached, added left to right as scikit-learn's loop over the trees adds them
        (``np.add.accumulate`` is sequential), rows in chunks that keep the partial sums
        under about 32 MB."""
        if self._terms is None:
            terms = self._contributions()
            offset = np.concatenate([[1], 1 + np.cumsum([len(v) for v in terms])[:-1]])
            table = np.concatenate([np.asarray(self.base, float)[None, :], *terms])
            table = table.astype(self._sum_dtype, copy=False)
            self._terms = (table, offset.astype(np.int64))
        table, offset = self._terms
        out = np.empty((len(leaves), self.n_scores), dtype=np.float64)
        chunk = max(1, 2**22 // ((len(self.trees) + 1) * self.n_scores))
        for a in range(0, len(leaves), chunk):
            index = np.zeros((len(leaves[a : a + chunk]), len(self.trees) + 1), dtype=np.int64)
            index[:, 1:] = leaves[a : a + chunk] + offset
            out[a : a + chunk] = np.add.accumulate(table[index], axis=1)[:, -1]
        return out

    #: the floating-point type the scores are added in (:meth:`_sum_in_order`)
    _sum_dtype: ClassVar[Any] = np.float64
    #: sums of multiples of ``2**-k`` stay exact in :attr:`_sum_dtype` below this magnitude
    exact_sum_limit: ClassVar[float] = 2.0**40

    @property
    def exact_decision(self) -> bool:
        """Is the decision on exact score sums the model's own (no rounding of its own)?"""
        return True

    def vote_rounding(self, magnitude: float, terms: int | None = None) -> float:
        """A bound on the rounding of the sums the explanation oracle states (``base`` plus
        the contributions, before any division by the trees), decision included, when no
        partial sum exceeds ``magnitude`` and a sum adds at most ``terms`` nonzero
        contributions (default: one per tree)."""
        n = len(self.trees) if terms is None else terms
        return (n + 2) ** 2 * 2.0**-50 * magnitude

    def _decide(self, scores: np.ndarray) -> np.ndarray:
        if self.decision == "sign":
            return (scores[:, 0] >= 0).astype(np.int64)
        return np.argmax(scores, axis=1)

    def predict(self, instance: Mapping[str, Any] | Sequence[Any]) -> Any:
        """The class of one instance (checked against the domains; a NaN is a missing value,
        routed as the trees say, when they route missing values)."""
        nan = _missing_names(self.features, instance) if self.routes_missing else set()
        if nan:
            given = (
                dict(instance)
                if isinstance(instance, Mapping)
                else {f.name: v for f, v in zip(self.features, instance)}
            )
            stand_in = {f.name: _some_value(f) for f in self.features if f.name in nan}
            values = instance_dict(self.features, {**given, **stand_in})
            values.update({name: math.nan for name in nan})
        else:
            values = instance_dict(self.features, instance)
        row = np.empty((1, len(self.features)), dtype=object)
        row[0, :] = [values[f.name] for f in self.features]
        return self.classes[int(self._decide(self.scores(row))[0])]

    def predict_batch(self, X: Any) -> np.ndarray:
        """The classes of the rows of ``X`` (values in feature order, unchecked), vectorised."""
        index = self._decide(self.scores(X))
        labels = np.empty(len(index), dtype=object)
        labels[:] = [self.classes[k] for k in index.tolist()]
        return label_array(labels)

    def validate(self) -> None:
        """Nothing to do: the arrays are checked when the ensemble is built, and every input
        reaches one leaf in each tree."""

    def rounding_bound(self) -> float:
        """A bound on how far each of :meth:`scores` (floating point, scikit-learn's order) is
        from the exact sum of the same contributions (the leaves' floats, and for boosting
        the rounded products ``scale * value``, added over the rationals, as
        :meth:`smt_encoding` adds them): when the exact scores of an input are more than
        twice this apart, both give the same class.

        Examples
        --------
        >>> t = EnsembleTree(np.array([-1]), np.array([0.0]), np.array([-1]), np.array([-1]),
        ...                  np.array([[0.25, 0.75]]))
        >>> 0 < Forest([Feature.real("x")], [0, 1], [t, t], [0, 0], 0.5).rounding_bound() < 1e-14
        True
        """
        unit = self.scale  # a forest's is checked to be 1 / n_trees
        big = float(np.abs(self.base).max()) + sum(
            float(np.abs(t.value).max()) * unit for t in self.trees
        )
        return 4.0 * (len(self.trees) + 2) * 2.0**-52 * big + 1e-300

    # -- sizes ---------------------------------------------------------------------------------
    @property
    def n_nodes(self) -> int:
        """The number of nodes of all the trees."""
        return sum(len(t.feature) for t in self.trees)

    @property
    def max_depth(self) -> int:
        """The depth of the deepest tree."""
        return max(t.depth for t in self.trees)

    def tested_features(self) -> list[str]:
        """Names of the features some split tests, in feature order."""
        used: set[int] = set()
        for t in self.trees:
            used.update(int(j) for j in t.feature[t.left >= 0])
        return [f.name for j, f in enumerate(self.features) if j in used]

    def size_text(self) -> str:
        """The model in a few words, for messages: ``"10-tree forest"``."""
        return f"{len(self.trees)}-tree {self.kind_text}"

    def __len__(self) -> int:
        return len(self.trees)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({len(self.features)} features, {len(self.classes)} classes, "
            f"{len(self.trees)} trees, {self.n_nodes} nodes, depth {self.max_depth})"
        )

    # -- JSON ----------------------------------------------------------------------------------
    def to_json_body(self) -> dict[str, Any]:
        """``{"type", "base", "scale", "trees": [{"feature", "threshold", "left", "right",
        "value"}]}``: per tree, per node, the feature's name (null at a leaf), the threshold
        (null at a leaf), the children (-1 at a leaf) and the value row (null at a split).
        Floats are written as Python writes them, so they read back bit-identical."""
        names = [f.name for f in self.features]
        trees = []
        for t in self.trees:
            leaf = (t.left < 0).tolist()
            doc = {
                "feature": [None if lf else names[j] for lf, j in zip(leaf, t.feature.tolist())],
                "threshold": [None if lf else x for lf, x in zip(leaf, t.threshold.tolist())],
                "left": t.left.tolist(),
                "right": t.right.tolist(),
                "value": [row if lf else None for lf, row in zip(leaf, t.value.tolist())],
            }
            if t.missing_left is not None:
                doc["missing_left"] = [
                    None if lf else m for lf, m in zip(leaf, t.missing_left.tolist())
                ]
            trees.append(doc)
        return {
            "type": self.json_type,
            "base": self.base.tolist(),
            "scale": self.scale,
            "trees": trees,
        }

    @classmethod
    def from_json_body(
        cls, body: Mapping[str, Any], features: list[Feature], classes: list[Any]
    ) -> TreeEnsemble:
        """The ensemble of a ``forest`` or ``boosted-trees`` object; errors name the JSON
        location (``model.trees[3].threshold[5]``)."""
        index = {f.name: i for i, f in enumerate(features)}
        trees_doc: Any = body.get("trees")
        expect(
            isinstance(trees_doc, list) and bool(trees_doc),
            "model.trees",
            f"expected a non-empty list of trees, found {shown(trees_doc)}",
        )
        scale: Any = body.get("scale")
        expect(
            isinstance(scale, (int, float)) and not isinstance(scale, bool),
            "model.scale",
            f"expected a number, found {shown(scale)}",
        )
        base = body.get("base")
        expect(
            isinstance(base, list) and all(_is_number(x) for x in base),
            "model.base",
            f"expected a list of numbers, found {shown(base)}",
        )
        trees = [_tree_from_doc(d, f"model.trees[{i}]", index) for i, d in enumerate(trees_doc)]
        try:
            return cls(features, classes, trees, base, scale)
        except InvalidModelError as err:
            raise InvalidModelError(f"model: {err}") from None

    # -- SMT -----------------------------------------------------------------------------------
    def smt_encoding(self) -> SmtModel:
        """The class as an SMT term in linear real arithmetic: each tree's contribution
        selected by its path conditions (``ITE`` down the tree), the scores their sums, the
        class by the decision rule.

        Each contribution is the float scikit-learn adds (``scale * value`` rounded, for
        boosting), and the sums are exact over the rationals.  scikit-learn adds in floating
        point, so the two can differ only where two scores (or a score and 0) are within
        rounding of each other, ``~n_trees * 2**-52`` relative to the values: such an input
        gets the class of the exact sums here and the rounded sums in :meth:`predict`
        (the verifier reports it, never silently).
        """
        enc = SmtModel(self.features, self.classes, self.predict)
        m = enc.mgr
        contributions = self._contributions()
        sums: list[list[FNode]] = [[m.Real(Fraction(float(b)))] for b in self._smt_base()]
        for t, tree in enumerate(self.trees):
            terms = self._tree_terms(enc, tree, contributions[t])
            for k in range(self.n_scores):
                if contributions[t][:, k].any():
                    sums[k].append(terms[k])
        totals = [m.Plus(s) if len(s) > 1 else s[0] for s in sums]
        enc.class_term = self._decision_term(enc, totals)
        return enc

    def _contributions(self) -> list[np.ndarray]:
        """Per tree, per node, what it adds to the scores (before the final division)."""
        return [t.value for t in self.trees]

    def _smt_base(self) -> np.ndarray:
        return self.base

    def _tree_terms(self, enc: SmtModel, tree: EnsembleTree, values: np.ndarray) -> list[FNode]:
        m = enc.mgr
        n = len(tree.left)
        terms: list[list[FNode]] = [[] for _ in range(n)]
        for node in range(n - 1, -1, -1):  # children come after their parent
            if tree.left[node] < 0:
                terms[node] = [m.Real(Fraction(float(v))) for v in values[node]]
            else:
                cond = self._goes_left(enc, int(tree.feature[node]), float(tree.threshold[node]))
                lo, hi = terms[int(tree.left[node])], terms[int(tree.right[node])]
                terms[node] = [m.Ite(cond, a, b) for a, b in zip(lo, hi)]
        return terms[0]

    def _goes_left(self, enc: SmtModel, j: int, cut: float) -> FNode:
        f = self.features[j]
        if f.is_discrete:
            return enc.mgr.Or(
                [enc.is_value(f.name, v) for v in f.values if feature_number(f, v) <= cut]
            )
        return enc.compare(f.name, Fraction(cut), "<=")

    def _decision_term(self, enc: SmtModel, totals: list[FNode]) -> FNode:
        m = enc.mgr
        if self.decision == "sign":
            return m.Ite(m.GE(totals[0], m.Real(0)), m.Int(1), m.Int(0))
        k = len(totals)
        term = m.Int(k - 1)
        for i in range(k - 2, -1, -1):
            beats = [m.GT(totals[i], totals[j]) for j in range(i)]
            beats += [m.GE(totals[i], totals[j]) for j in range(i + 1, k)]
            term = m.Ite(m.And(beats), m.Int(i), term)
        return term

    # -- compilation ---------------------------------------------------------------------------
    def to_decision_graph(self, budget: int = GRAPH_BUDGET) -> DecisionGraph:
        """The exact decision graph of the ensemble (see :func:`compile_ensemble`).

        Raises
        ------
        GraphTooLargeError
            When the compilation takes more than ``budget`` (see :func:`compile_ensemble`).
        """
        return compile_ensemble(self, budget=budget)


class Forest(TreeEnsemble):
    """A random forest or extra-trees classifier: soft voting (JSON type ``forest``).

    ``base`` is zero and ``scale`` is ``1 / n_trees``; :meth:`scores` adds the trees' class
    distributions in order and divides by the number of trees, as scikit-learn does.

    Examples
    --------
    >>> t = EnsembleTree(np.array([0, -1, -1]), np.array([0.5, 0, 0]), np.array([1, -1, -1]),
    ...                  np.array([2, -1, -1]), np.array([[0, 0], [1.0, 0], [0, 1.0]]))
    >>> flip = t._replace(value=t.value[:, ::-1])
    >>> f = Forest([Feature.boolean("a")], ["no", "yes"], [t, flip], [0.0, 0.0], 0.5)
    >>> f.scores([[0], [1]]).tolist(), f.predict({"a": 1})   # a tie: the first class wins
    ([[0.5, 0.5], [0.5, 0.5]], 'no')
    """

    json_type: ClassVar[str] = "forest"
    kind_text: ClassVar[str] = "forest"
    _what: ClassVar[str] = "forest"

    def _check_kind(self) -> None:
        if (self.base != 0).any():
            raise InvalidModelError(f"forest: base: expected zeros, found {self.base.tolist()}")
        if self.scale != 1.0 / len(self.trees):
            raise InvalidModelError(
                f"forest: scale: expected 1 / {len(self.trees)} trees = "
                f"{1.0 / len(self.trees)!r}, found {self.scale!r}"
            )

    def _scores_of_leaves(self, leaves: np.ndarray) -> np.ndarray:
        total = self._sum_in_order(leaves)
        total /= len(self.trees)
        return total


class BoostedTrees(TreeEnsemble):
    """Gradient-boosted trees with the log-loss (JSON type ``boosted-trees``).

    One score for two classes (class 1 when ``base + sum(scale * value) >= 0``), one per
    class otherwise (the first largest).

    Examples
    --------
    >>> t = EnsembleTree(np.array([0, -1, -1]), np.array([0.5, 0, 0]), np.array([1, -1, -1]),
    ...                  np.array([2, -1, -1]), np.array([[0.0], [-1.0], [1.0]]))
    >>> b = BoostedTrees([Feature.boolean("a")], [0, 1], [t], [0.25], 0.1)
    >>> b.decision, b.scores([[0], [1]]).ravel().tolist(), b.predict([1])
    ('sign', [0.15, 0.35], 1)
    """

    json_type: ClassVar[str] = "boosted-trees"
    kind_text: ClassVar[str] = "boosted ensemble"
    _what: ClassVar[str] = "boosted trees"

    def _n_scores(self) -> int:
        k = len(self.classes)
        if k < 2:
            raise InvalidModelError(f"boosted trees: expected two classes or more, found {k}")
        return 1 if k == 2 else k

    @property
    def decision(self) -> str:
        return "sign" if self.n_scores == 1 else "argmax"

    def _contributions(self) -> list[np.ndarray]:
        return [self.scale * t.value for t in self.trees]


def _missing_names(features: Sequence[Feature], instance: Any) -> set[str]:
    """The names of the features whose value in ``instance`` is a float NaN."""
    if isinstance(instance, Mapping):
        pairs = [(k, v) for k, v in instance.items()]
    elif isinstance(instance, str):
        return set()
    else:
        try:
            pairs = [(f.name, v) for f, v in zip(features, instance)]
        except TypeError:
            return set()
    return {
        str(k)
        for k, v in pairs
        if isinstance(v, (float, np.floating)) and math.isnan(v) and not isinstance(v, bool)
    }


def _some_value(f: Feature) -> Any:
    """A value of ``f``'s domain (a stand-in while the other values of an instance are checked)."""
    if f.is_discrete:
        return f.values[0]
    from xpg.core.feature_space import representative

    return representative(f, f.domain_set())


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _tree_from_doc(d: Any, where: str, index: Mapping[str, int]) -> EnsembleTree:
    expect(isinstance(d, dict), where, f"expected an object, found {shown(d)}")
    arrays = {}
    for key in ("feature", "threshold", "left", "right", "value"):
        a = d.get(key)
        expect(isinstance(a, list) and bool(a), f"{where}.{key}", "expected a non-empty list")
        arrays[key] = a
    n = len(arrays["left"])
    for key, a in arrays.items():
        expect(
            len(a) == n, f"{where}.{key}", f"expected {n} entries (one per node), found {len(a)}"
        )
    feature, threshold, value = [], [], []
    width = None
    for k in range(n):
        lo, hi = arrays["left"][k], arrays["right"][k]
        for key, c in (("left", lo), ("right", hi)):
            expect(
                isinstance(c, int) and not isinstance(c, bool),
                f"{where}.{key}[{k}]",
                f"expected an integer, found {shown(c)}",
            )
        if lo < 0:
            expect(arrays["feature"][k] is None, f"{where}.feature[{k}]", "expected null at a leaf")
            expect(
                arrays["threshold"][k] is None, f"{where}.threshold[{k}]", "expected null at a leaf"
            )
            row = arrays["value"][k]
            expect(
                isinstance(row, list) and bool(row) and all(_is_number(x) for x in row),
                f"{where}.value[{k}]",
                f"expected a list of finite numbers at a leaf, found {shown(row)}",
            )
            width = len(row) if width is None else width
            expect(len(row) == width, f"{where}.value[{k}]", f"expected {width} numbers")
            feature.append(-1)
            threshold.append(0.0)
            value.append(row)
        else:
            name = feature_ref(arrays["feature"][k], index, f"{where}.feature[{k}]")
            t = arrays["threshold"][k]
            expect(
                _is_number(t),
                f"{where}.threshold[{k}]",
                f"expected a finite number, found {shown(t)}",
            )
            expect(arrays["value"][k] is None, f"{where}.value[{k}]", "expected null at a split")
            feature.append(index[name])
            threshold.append(float(t))
            value.append(None)
    expect(width is not None, where, "expected a leaf")
    rows = [[0.0] * int(width or 0) if v is None else v for v in value]
    missing = None
    if "missing_left" in d:
        m = d["missing_left"]
        expect(
            isinstance(m, list) and len(m) == n,
            f"{where}.missing_left",
            f"expected {n} entries (one per node), found {shown(m)}",
        )
        for k in range(n):
            ok = m[k] is None if arrays["left"][k] < 0 else isinstance(m[k], bool)
            expect(
                ok,
                f"{where}.missing_left[{k}]",
                f"expected {'null at a leaf' if arrays['left'][k] < 0 else 'a boolean'}, "
                f"found {shown(m[k])}",
            )
        missing = np.asarray([bool(b) for b in m], dtype=bool)
    try:
        return EnsembleTree(
            np.asarray(feature, dtype=np.int64),
            np.asarray(threshold, dtype=np.float64),
            np.asarray(arrays["left"], dtype=np.int64),
            np.asarray(arrays["right"], dtype=np.int64),
            np.asarray(rows, dtype=np.float64),
            missing,
        )
    except OverflowError:
        raise InvalidModelError(f"{where}: a child index is out of range") from None


__all__ = [
    "GRAPH_BUDGET",
    "BoostedTrees",
    "Forest",
    "TreeEnsemble",
]
