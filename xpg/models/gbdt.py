"""Boosted trees as XGBoost, LightGBM and HistGradientBoosting compute them (:class:`GBDT`).

One model kind (JSON type ``gbdt``) for every boosting library: the score vector is ``base``
plus, tree by tree in order, each tree's leaf vector, every addition rounded to
``precision`` (XGBoost adds in float32, LightGBM and scikit-learn in float64); with
``average`` (LightGBM ``boosting=rf``) each score is then divided by its number of trees.
The class is decided by ``decision``:

- ``"threshold"`` (one score, two classes): class 1 iff ``score > cut`` (``strict``) or
  ``score >= cut``; a loader derives ``cut`` from its library's link function so that this
  is exactly the library's ``predict``;
- ``"argmax"``: the first index of the largest score;
- ``"softmax-argmax"``: the first index of the largest softmax probability, computed in
  ``precision`` as the library computes it (ties of the rounded probabilities included);
- ``"sigmoid-argmax"``: the first index of the largest ``1 / (1 + exp(-sigmoid * score))``
  in float64 (LightGBM ``multiclassova``; the probabilities tie at 1.0 for large scores).

Splits are ``x[feature] <= threshold`` on float64 cuts (each loader turns its library's
comparison into that form exactly, e.g. XGBoost's ``float32(x) < t`` with
:func:`xpg.core.float32.float32_bound`); a NaN input goes where the tree's
``missing_left`` says.  A categorical split (a set of category codes goes one way) becomes a
small subtree of such cuts, :func:`set_split_subtree`.

Examples
--------
>>> t = EnsembleTree(np.array([0, -1, -1]), np.array([0.5, 0, 0]), np.array([1, -1, -1]),
...                  np.array([2, -1, -1]), np.array([[0.0], [-1.0], [1.0]]),
...                  np.array([True, False, False]))          # NaN goes left
>>> g = GBDT([Feature.real("x")], ["no", "yes"], [t, t], [0.25], cut=0.0)
>>> g.scores([[0.0], [1.0], [float("nan")]]).ravel().tolist()
[-1.75, 2.25, -1.75]
>>> g.predict_batch([[0.0], [1.0]]).tolist(), g.predict({"x": float("nan")})
(['no', 'yes'], 'no')
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar, Literal, NamedTuple

import numpy as np

from xpg.core.features import Feature
from xpg.core.graph import DecisionGraph
from xpg.core.json_body import expect, shown
from xpg.errors import InvalidModelError
from xpg.models.ensemble import TreeEnsemble, _tree_from_doc
from xpg.models.ensemble_compile import GRAPH_BUDGET, compile_ensemble
from xpg.models.ensemble_tree import EnsembleTree

if TYPE_CHECKING:
    from pysmt.fnode import FNode

    from xpg.solvers.smt import SmtModel

Precision = Literal["float32", "float64"]
Decision = Literal["threshold", "argmax", "softmax-argmax", "sigmoid-argmax"]
PRECISIONS = ("float32", "float64")
DECISIONS = ("threshold", "argmax", "softmax-argmax", "sigmoid-argmax")
_DTYPES = {"float32": np.float32, "float64": np.float64}
#: the unit roundoff of each precision
_UNIT = {"float32": 2.0**-24, "float64": 2.0**-53}


class GBDT(TreeEnsemble):
    """Gradient-boosted decision trees of a boosting library (JSON type ``gbdt``).

    Parameters
    ----------
    features : sequence of Feature
    classes : sequence
        The class labels, in the library's class order.
    trees : sequence of EnsembleTree
        ``value`` of shape ``(n_nodes, n_scores)``: one score for two classes with
        ``decision="threshold"``, one per class otherwise (a multi-class tree holds its
        leaf values in its class's column, zero elsewhere).  Leaf values are what the
        library adds (no scale).
    base : array-like of float, shape (n_scores,)
        The initial scores (margins).
    precision : {"float32", "float64"}
        The type every addition is rounded to; with float32, ``base`` and the leaf values
        must be float32 numbers.
    decision : {"threshold", "argmax", "softmax-argmax", "sigmoid-argmax"}, optional
        Default: ``"threshold"`` for two classes, ``"argmax"`` otherwise.
    cut, strict : float, bool
        ``"threshold"``: class 1 iff ``score > cut`` (``strict``) or ``score >= cut``.
    sigmoid : float
        ``"sigmoid-argmax"``: the positive factor of the scores in the sigmoid.
    average : bool
        Divide each score by its number of trees (``len(trees) / n_scores``) after the sum,
        in float64 (LightGBM ``boosting=rf``).
    source : str
        Free text naming where the model comes from, for messages and JSON.

    Raises
    ------
    InvalidModelError
        Any check of :class:`~xpg.models.ensemble.TreeEnsemble`, an unknown option, a
        number of scores that does not fit the decision, a non-float32 number with float32
        precision, or an average over trees not evenly spread over the scores.
    """

    json_type: ClassVar[str] = "gbdt"
    kind_text: ClassVar[str] = "boosted ensemble"
    _what: ClassVar[str] = "gbdt"
    quick_deletion: ClassVar[bool] = True

    def __init__(
        self,
        features: Sequence[Feature],
        classes: Sequence[Any],
        trees: Sequence[EnsembleTree],
        base: Any,
        *,
        precision: Precision = "float32",
        decision: Decision | None = None,
        cut: float = 0.0,
        strict: bool = True,
        sigmoid: float = 1.0,
        average: bool = False,
        source: str = "",
    ) -> None:
        if precision not in PRECISIONS:
            raise InvalidModelError(
                f"gbdt: precision: expected one of {', '.join(PRECISIONS)}, found {precision!r}"
            )
        try:
            n_classes = len(classes)
        except TypeError:
            raise InvalidModelError(
                f"gbdt: expected a list of classes, found {classes!r}"
            ) from None
        if decision is None:
            decision = "threshold" if n_classes == 2 else "argmax"
        if decision not in DECISIONS:
            raise InvalidModelError(
                f"gbdt: decision: expected one of {', '.join(DECISIONS)}, found {decision!r}"
            )
        if isinstance(cut, bool) or not isinstance(cut, (int, float, np.floating)):
            raise InvalidModelError(f"gbdt: cut: expected a number, found {cut!r}")
        if not math.isfinite(float(cut)):
            raise InvalidModelError(f"gbdt: cut: expected a finite number, found {cut!r}")
        if (
            isinstance(sigmoid, bool)
            or not isinstance(sigmoid, (int, float, np.floating))
            or not (math.isfinite(float(sigmoid)) and sigmoid > 0)
        ):
            raise InvalidModelError(
                f"gbdt: sigmoid: expected a finite positive number, found {sigmoid!r}"
            )
        for name, flag in (("strict", strict), ("average", average)):
            if not isinstance(flag, (bool, np.bool_)):
                raise InvalidModelError(f"gbdt: {name}: expected a boolean, found {flag!r}")
        if not isinstance(source, str):
            raise InvalidModelError(f"gbdt: source: expected a string, found {source!r}")
        self.precision: Precision = precision
        self._decision: Decision = decision
        self.cut = float(cut)
        self.strict = bool(strict)
        self.sigmoid = float(sigmoid)
        self.average = bool(average)
        self.source = source
        self._sum_dtype = _DTYPES[precision]  # type: ignore[misc]
        self.exact_sum_limit = 2.0**23 if precision == "float32" else 2.0**40  # type: ignore[misc]
        super().__init__(features, classes, trees, base, 1.0)

    # -- what the kind allows ---------------------------------------------------------------------
    def _n_scores(self) -> int:
        k = len(self.classes)
        if k < 2:
            raise InvalidModelError(f"gbdt: expected two classes or more, found {k}")
        if self._decision == "threshold":
            if k != 2:
                raise InvalidModelError(
                    f"gbdt: decision 'threshold' decides between two classes, found {k}"
                )
            return 1
        return k

    def _check_kind(self) -> None:
        if self.precision == "float32":
            numbers = [("base", self.base)] + [
                (f"tree {i}: value", t.value) for i, t in enumerate(self.trees)
            ]
            for where, a in numbers:
                if (a.astype(np.float32).astype(np.float64) != a).any():
                    bad = a[a.astype(np.float32).astype(np.float64) != a].ravel()[0]
                    raise InvalidModelError(
                        f"gbdt: {where}: expected float32 numbers (precision float32), "
                        f"found {float(bad)!r}"
                    )
        if self.average and len(self.trees) % self.n_scores:
            raise InvalidModelError(
                f"gbdt: average: expected the same number of trees for each of the "
                f"{self.n_scores} scores, found {len(self.trees)} trees"
            )

    @property
    def decision(self) -> str:
        """``"threshold"``, ``"argmax"``, ``"softmax-argmax"`` or ``"sigmoid-argmax"`` (see
        the module docstring)."""
        return self._decision

    @property
    def trees_per_score(self) -> int:
        """The number of trees each score is divided by when :attr:`average` is set."""
        return len(self.trees) // self.n_scores

    # -- the classification function ------------------------------------------------------------
    def _scores_of_leaves(self, leaves: np.ndarray) -> np.ndarray:
        if len(leaves) == 1 and self._terms is not None:  # one row: the same sums, fewer steps
            rounds = self._rounds()
            if rounds is not None:
                values, first, offset = rounds
                index = np.concatenate((first, leaves[0] + offset))
                summed = np.add.accumulate(values[index].reshape(-1, len(first)), axis=0)
            else:
                table, offset = self._terms
                index = np.concatenate(([0], leaves[0] + offset))
                summed = np.add.accumulate(table[index], axis=0)
            total = summed[-1:].astype(np.float64)
        else:
            total = self._sum_in_order(leaves)  # in self._sum_dtype, tree by tree
        if self.average:
            total /= self.trees_per_score
        return total

    def _rounds(self) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """When tree ``t`` adds to score ``t % n_scores`` only (a multi-class model's boosting
        rounds, one tree per class each), each node's one value (the base scores first), the
        base scores' places and each tree's offset in that table: one row's score ``k`` is
        ``base[k]`` plus its trees' values in order, the zeros of the other trees left out
        (adding ``0.0`` changes no sum but ``-0.0``, which decides alike); else None.
        Built from :meth:`_sum_in_order`'s table on first use."""
        found = self.__dict__.get("_round_table", False)
        if found is False:
            found = None
            k = self.n_scores
            assert self._terms is not None
            table, offset = self._terms
            if k > 1 and len(self.trees) % k == 0:
                column = np.repeat(
                    np.arange(len(self.trees)) % k, np.diff(offset, append=len(table))
                )
                rows = np.arange(len(column))
                nodes = table[1:].copy()
                values = np.concatenate((table[0], nodes[rows, column]))
                nodes[rows, column] = 0
                if not nodes.any():
                    found = (values, np.arange(k), offset + k - 1)
            self._round_table = found
        return found  # type: ignore[no-any-return]

    def _decide(self, scores: np.ndarray) -> np.ndarray:
        if self._decision == "threshold":
            s = scores[:, 0]
            return ((s > self.cut) if self.strict else (s >= self.cut)).astype(np.int64)
        if self._decision == "argmax":
            return np.argmax(scores, axis=1)
        if self._decision == "sigmoid-argmax":
            return np.argmax(sigmoid_probabilities(scores, self.sigmoid), axis=1)
        return softmax_argmax(scores, self.precision)

    # -- rounding ---------------------------------------------------------------------------------
    @property
    def exact_decision(self) -> bool:
        """Is the decision on exact sums the model's (no rounding after the sums)?"""
        return self._decision in ("threshold", "argmax") and not self.average

    def _magnitude(self) -> float:
        return float(np.abs(self.base).max()) + sum(
            float(np.abs(t.value).max()) for t in self.trees
        )

    def _decision_slack(self, magnitude: float) -> float:
        """Rounding after the sums: the softmax's or the sigmoid's, the average's division,
        the cut's, for scores of at most ``magnitude``."""
        slack = abs(self.cut) * 2.0**-50
        if self._decision == "softmax-argmax":
            # probabilities tie when the top scores are within a few units of 1.0
            slack += 2.0**-20 if self.precision == "float32" else 2.0**-48
        if self._decision == "sigmoid-argmax":
            # the float scores may pass the exact bound by their rounding
            grown = magnitude * (1 + 2.0 * (len(self.trees) + 2) * _UNIT[self.precision])
            slack += sigmoid_tie_width(grown, self.sigmoid) / 2
        if self.average:
            slack += 2.0**-50 * magnitude
        return slack

    def rounding_bound(self) -> float:
        """A bound on how far :meth:`scores` (the library's rounded sums, after any average)
        are from the exact sums of the same numbers, widened by the rounding of the decision
        itself (softmax, sigmoid, cut): when the exact scores (or a score and ``cut``) are more than
        twice this apart, the exact sums and the model decide alike.

        Examples
        --------
        >>> t = EnsembleTree(np.array([-1]), np.array([0.0]), np.array([-1]), np.array([-1]),
        ...                  np.array([[0.5]]))
        >>> 0 < GBDT([Feature.real("x")], [0, 1], [t], [0.0]).rounding_bound() < 1e-6
        True
        """
        big = self._magnitude()
        per = big / self.trees_per_score if self.average else big
        return 2.0 * (len(self.trees) + 2) * _UNIT[self.precision] * per + self._decision_slack(per)

    def vote_rounding(self, magnitude: float, terms: int | None = None) -> float:
        """As :meth:`rounding_bound`, for the undivided sums the explanation oracle states
        (no partial sum above ``magnitude``, at most ``terms`` nonzero contributions in one:
        default, one per tree), decision included."""
        n = len(self.trees) if terms is None else terms
        count = self.trees_per_score if self.average else 1
        return (
            2.0 * (n + 2) * _UNIT[self.precision] * magnitude
            + count * self._decision_slack(magnitude / count)
            + 1e-300
        )

    # -- JSON -------------------------------------------------------------------------------------
    def to_json_body(self) -> dict[str, Any]:
        """``{"type": "gbdt", "base", "precision", "decision", "cut", "strict", "sigmoid",
        "average", "source", "trees"}``, trees as :meth:`TreeEnsemble.to_json_body` writes them
        (with ``missing_left`` when a tree routes missing values)."""
        body = super().to_json_body()
        body.pop("scale")
        trees = body.pop("trees")
        body.update(
            precision=self.precision,
            decision=self._decision,
            cut=self.cut,
            strict=self.strict,
            sigmoid=self.sigmoid,
            average=self.average,
            source=self.source,
            trees=trees,
        )
        return body

    @classmethod
    def from_json_body(
        cls, body: Mapping[str, Any], features: list[Feature], classes: list[Any]
    ) -> GBDT:
        """The model of a ``gbdt`` object; errors name the JSON location."""
        index = {f.name: i for i, f in enumerate(features)}
        trees_doc: Any = body.get("trees")
        expect(
            isinstance(trees_doc, list) and bool(trees_doc),
            "model.trees",
            f"expected a non-empty list of trees, found {shown(trees_doc)}",
        )
        base = body.get("base")
        expect(
            isinstance(base, list)
            and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in base),
            "model.base",
            f"expected a list of numbers, found {shown(base)}",
        )
        options: dict[str, Any] = {}
        for key, ok, what in (
            ("precision", lambda v: v in PRECISIONS, f"one of {', '.join(PRECISIONS)}"),
            ("decision", lambda v: v in DECISIONS, f"one of {', '.join(DECISIONS)}"),
            (
                "cut",
                lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
                "a number",
            ),
            ("strict", lambda v: isinstance(v, bool), "a boolean"),
            (
                "sigmoid",
                lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
                "a number",
            ),
            ("average", lambda v: isinstance(v, bool), "a boolean"),
            ("source", lambda v: isinstance(v, str), "a string"),
        ):
            if key in body:
                expect(ok(body[key]), f"model.{key}", f"expected {what}, found {shown(body[key])}")
                options[key] = body[key]
        trees = [_tree_from_doc(d, f"model.trees[{i}]", index) for i, d in enumerate(trees_doc)]
        try:
            return cls(features, classes, trees, base, **options)
        except InvalidModelError as err:
            raise InvalidModelError(f"model: {err}") from None

    # -- SMT --------------------------------------------------------------------------------------
    def _decision_term(self, enc: SmtModel, totals: list[FNode]) -> FNode:
        if self._decision != "threshold":  # argmax over exact sums (an average keeps the order)
            return super()._decision_term(enc, totals)
        m = enc.mgr
        count = self.trees_per_score if self.average else 1
        cut = m.Real(Fraction(self.cut) * count)
        test = m.GT(totals[0], cut) if self.strict else m.GE(totals[0], cut)
        return m.Ite(test, m.Int(1), m.Int(0))

    # -- compilation ------------------------------------------------------------------------------
    def to_decision_graph(self, budget: int = GRAPH_BUDGET) -> DecisionGraph:
        """The exact decision graph of the model (see
        :func:`~xpg.models.ensemble_compile.compile_ensemble`; the last level decides with
        the model's own floats).

        Raises
        ------
        GraphTooLargeError
            When the compilation takes more than ``budget``.
        """
        return compile_ensemble(_CompileView(self), budget=budget)

    def __repr__(self) -> str:
        return (
            f"GBDT({len(self.features)} features, {len(self.classes)} classes, "
            f"{len(self.trees)} trees, {self.n_nodes} nodes, depth {self.max_depth}, "
            f"{self._decision}, {self.precision})"
        )


class _CompileView:
    """A :class:`GBDT` as :func:`compile_ensemble` reads it: the early decisions on score
    bounds use ``"sign"`` against ``cut`` (``base - cut``) or ``"argmax"`` (a softmax or a
    sigmoid keeps the order), with the model's rounding bound as slack; the last level uses
    the model."""

    def __init__(self, model: GBDT) -> None:
        self.model = model
        self.features, self.classes, self.trees = model.features, model.classes, model.trees
        self.n_scores, self.n_nodes = model.n_scores, model.n_nodes
        threshold = model.decision == "threshold"
        self.decision = "sign" if threshold else "argmax"
        count = model.trees_per_score if model.average else 1
        self.scale = 1.0 / count
        self.base = model.base / count - (model.cut if threshold else 0.0)
        self.scores_of_leaves = model.scores_of_leaves
        self.classes_of_scores = model.classes_of_scores

    def rounding_bound(self) -> float:
        return 2.0 * self.model.rounding_bound() + 2.0**-50 * self.model._magnitude()


# -- categorical splits as threshold subtrees ------------------------------------------------------
class SetSplit(NamedTuple):
    """One node of the subtree :func:`set_split_subtree` makes: ``x <= cut`` goes to
    ``left``, else to ``right``; a child is another :class:`SetSplit`, or ``True`` for "the
    value is in the set" (the original split's side for the set), ``False`` for the other
    side.  ``missing_left`` sends a NaN on the way to the side asked for (None when not
    asked)."""

    cut: float
    left: SetSplit | bool
    right: SetSplit | bool
    missing_left: bool | None


def set_split_subtree(
    codes: Sequence[float], members: Collection[float], missing_in: bool | None = None
) -> SetSplit | bool:
    """Threshold splits that send exactly the ``members`` among ``codes`` to ``True``.

    The sorted codes fall into runs of consecutive codes on one side; the subtree is a
    balanced tree of ``x <= code`` cuts between the runs (depth ``ceil(log2(runs))``).
    A loader grafts it in place of a categorical split, copying the split's child for
    each ``True`` (the side of the set) and each ``False`` leaf; codes outside ``codes``
    are not the caller's concern (the feature's domain is ``codes``).

    Parameters
    ----------
    codes : sequence of float
        The feature's domain, as the numbers the splits compare (e.g. ``0 .. K-1``).
    members : collection of float
        The codes of the set.
    missing_in : bool, optional
        Where a NaN must end: in the set's side (True) or the other (False); the nodes'
        ``missing_left`` lead it there.  None: no missing-value routing.

    Returns
    -------
    SetSplit or bool
        ``True`` or ``False`` when every code is on one side and a NaN goes there too (or
        is not routed): no split needed.  When every code is on one side and a NaN must go
        to the other, one cut at the largest code sends the codes left and a NaN right.

    Examples
    --------
    >>> s = set_split_subtree([0, 1, 2, 3], {1, 2}, missing_in=True)
    >>> s.cut, s.left, s.right.cut, s.right.left, s.right.right, s.missing_left
    (0, False, 2, True, False, False)
    >>> set_split_subtree([0, 1], {0, 1}), set_split_subtree([0, 1], {0, 1}, missing_in=False)
    (True, SetSplit(cut=1, left=True, right=False, missing_left=False))
    """
    domain = sorted(set(codes))
    inside = set(members)
    runs: list[tuple[float, bool]] = []  # (last code of the run, in the set?)
    for c in domain:
        side = c in inside
        if runs and runs[-1][1] == side:
            runs[-1] = (c, side)
        else:
            runs.append((c, side))

    def build(lo: int, hi: int) -> SetSplit | bool:  # the runs lo .. hi - 1
        if hi - lo == 1:
            return runs[lo][1]
        mid = (lo + hi) // 2
        left, right = build(lo, mid), build(mid, hi)
        missing = None
        if missing_in is not None:
            missing = _reaches(left, missing_in)
        return SetSplit(runs[mid - 1][0], left, right, missing)

    if not runs:
        raise InvalidModelError("categorical split: expected a non-empty domain of codes")
    if len(runs) == 1 and missing_in is not None and missing_in != runs[0][1]:
        return SetSplit(runs[0][0], runs[0][1], missing_in, False)
    return build(0, len(runs))


def _reaches(node: SetSplit | bool, side: bool) -> bool:
    """Can ``node`` lead to ``side`` (the left subtree is tried first by NaN routing)?"""
    if isinstance(node, bool):
        return node == side
    return _reaches(node.left, side) or _reaches(node.right, side)


def _libm_exp(x: np.ndarray) -> np.ndarray:
    """``exp`` of each float64 element by the C library's ``exp`` (Python's ``math.exp``),
    as LightGBM's ``std::exp`` computes it (numpy's own vectorised ``exp`` may round
    differently); ``inf`` past the largest double."""
    flat = np.asarray(x, dtype=np.float64).ravel().tolist()
    out = np.empty(len(flat), dtype=np.float64)
    for i, v in enumerate(flat):
        try:
            out[i] = math.exp(v)
        except OverflowError:
            out[i] = math.inf
    return out.reshape(np.shape(x))


def softmax(scores: np.ndarray, precision: Precision = "float64") -> np.ndarray:
    """Per row, the softmax of ``scores`` as the boosting libraries compute it: the largest
    score subtracted, ``exp`` of each difference, their sum (in float64, class by class:
    LightGBM's ``wsum += exp(x_k - max)``, not numpy's pairwise sum), each divided by the
    sum; float64 with the C library's ``exp`` (LightGBM's ``Common::Softmax``), float32 as
    XGBoost's ``common::Softmax`` (``expf`` of the float32 difference, the float64 sum cast
    to float32, a float32 division).

    Examples
    --------
    >>> softmax(np.array([[0.0, 0.0], [0.0, math.log(3)]])).tolist()
    [[0.5, 0.5], [0.25, 0.75]]
    """
    if precision == "float32":
        x = np.asarray(scores, dtype=np.float32)
        d = x - x.max(axis=1, keepdims=True)
        e = np.exp(d.astype(np.float64)).astype(np.float32)  # expf, correctly rounded
    else:
        y = np.asarray(scores, dtype=np.float64)
        e = _libm_exp(y - y.max(axis=1, keepdims=True))
    total = np.zeros(len(e), dtype=np.float64)
    for k in range(e.shape[1]):  # one class after the other, as the libraries add
        total += e[:, k].astype(np.float64)
    return e / total.astype(e.dtype)[:, None]


#: top two scores further apart than this: the softmax's rounding cannot reorder them
#: (:func:`softmax_argmax`)
SOFTMAX_GAP = {"float32": 2.0**-18, "float64": 2.0**-40}


def softmax_argmax(scores: np.ndarray, precision: Precision = "float64") -> np.ndarray:
    """Per row, the first index of the largest :func:`softmax` probability: the largest
    score's where it is more than :data:`SOFTMAX_GAP` above every other (the softmax
    computed only for the other rows).

    Why the gap suffices (float32; float64 alike with ``2**-53`` units): the largest score
    gets ``exp(0) = 1``; a score more than ``2**-18`` below it has a rounded difference
    ``d <= -2**-18``, so ``exp(d)`` rounds to at most ``1 - 2**-18 + 2**-24 < 1 - 2**-20``;
    both divided by the same sum and rounded (relative error ``2**-24`` each) stay in strict
    order, as ``(1 - 2**-20)(1 + 2**-24) < 1 - 2**-24``.

    Examples
    --------
    >>> softmax_argmax(np.array([[0.0, 1.0, 0.5], [2.0, 2.0, 0.0]]), "float32").tolist()
    [1, 0]
    """
    x = np.asarray(scores, dtype=np.float64)
    if precision == "float32":
        x = x.astype(np.float32).astype(np.float64)  # the library's rounding first
    gap = SOFTMAX_GAP[precision]
    if len(x) <= 4:  # a few rows (an explanation's questions): cheaper in Python
        found = []
        for row in x.tolist():
            m = max(row)
            i = row.index(m)
            rest = row[:i] + row[i + 1 :]
            if not rest or (math.isfinite(sum(row)) and m - max(rest) > gap):
                found.append(i)
            else:
                found.append(int(np.argmax(softmax(np.array([row]), precision)[0])))
        return np.array(found, dtype=np.int64)
    out = np.argmax(x, axis=1)
    if x.shape[1] < 2:
        return out
    top2 = np.partition(x, x.shape[1] - 2, axis=1)[:, -2:]
    close = ~(top2[:, 1] - top2[:, 0] > gap) | ~np.isfinite(x.sum(axis=1))
    if close.any():
        out[close] = np.argmax(softmax(x[close], precision), axis=1)
    return out


def sigmoid_probabilities(scores: np.ndarray, sigmoid: float = 1.0) -> np.ndarray:
    """``1 / (1 + exp(-sigmoid * score))`` of each score in float64 with the C library's
    ``exp``, as LightGBM's ``multiclassova`` computes its probabilities (0 once ``exp``
    overflows, 1.0 for every score above about ``36.7 / sigmoid``).

    Examples
    --------
    >>> sigmoid_probabilities(np.array([[0.0, 40.0, 100.0, -800.0]])).tolist()
    [[0.5, 1.0, 1.0, 0.0]]
    """
    z = -float(sigmoid) * np.asarray(scores, dtype=np.float64)
    return 1.0 / (1.0 + _libm_exp(z))


def sigmoid_tie_width(magnitude: float, sigmoid: float = 1.0) -> float:
    """A bound on ``|a - b|`` over the scores ``a, b`` in ``[-magnitude, magnitude]`` whose
    :func:`sigmoid_probabilities` are equal (the probabilities are non-decreasing in the
    score, so a larger score can lose only to an equal probability of an earlier class).

    Each probability is within ``E = 2**-53 * sigmoid * magnitude + 2**-49`` of the exact
    sigmoid ``f`` (rounding of the product, ``exp`` within one unit, the addition and the
    division); two equal probabilities then have exact sigmoids within ``2 E``, and ``f``
    rises at least ``f'(magnitude) = sigmoid / (2 + 2 cosh(sigmoid * magnitude))`` per unit
    of score on the interval.  At most ``4 * magnitude + 1``: past that the bound says
    nothing more than "any two scores" (the explanation oracle then checks every candidate
    with the model's floats).

    Examples
    --------
    >>> sigmoid_tie_width(10.0) < 1e-9, sigmoid_tie_width(60.0) == 4 * 60.0 + 1
    (True, True)
    """
    cap = 4.0 * magnitude + 1.0
    x = sigmoid * magnitude
    if x > 700.0:
        return cap
    error = 2.0**-53 * x + 2.0**-49 + 2.0**-1060
    return min(cap, 2.0 * error * (2.0 + 2.0 * math.cosh(x)) / sigmoid * (1 + 2.0**-20))


__all__ = [
    "DECISIONS",
    "GBDT",
    "PRECISIONS",
    "SetSplit",
    "set_split_subtree",
    "sigmoid_probabilities",
    "sigmoid_tie_width",
    "softmax",
    "softmax_argmax",
]
