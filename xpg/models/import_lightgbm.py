"""LightGBM classifiers (text models, ``Booster``, ``LGBMClassifier``) as exact
:class:`~xpg.models.gbdt.GBDT` models.

:func:`read_lightgbm` parses the text format of ``save_model`` / ``model_to_string`` (reading a
file or a string does not import lightgbm) and rewrites each tree so that the kind's descent,
``x <= cut`` on float64 with NaN sent by ``missing_left``, is LightGBM's own, input by input:

- LightGBM's dense-row reader drops every ``|x| <= kZeroThreshold`` (:data:`K_ZERO`, the float
  ``1e-35f``), so such inputs are compared as 0; a numerical split then tests ``x <= t`` in
  double, after its ``missing_type``: None (NaN compared as 0), Zero (NaN and the zero band go
  the default way) or NaN (NaN goes the default way).  Each split becomes the few ``<=`` cuts
  with the same effect (a zero band that cuts an interval in two copies a subtree).
- A categorical split sends the codes of its bitset left; NaN, negative codes and codes beyond
  ``int`` go right (a cast to ``int`` truncates toward zero).  Written with
  :func:`~xpg.models.gbdt.set_split_subtree` over the feature's declared codes.
- Scores: the trees' leaf values summed in tree order in double from 0 (the initial score is in
  the first trees' leaves); ``boosting=rf`` averages.  Decision as ``LGBMClassifier.predict``
  decides (``argmax`` of ``predict_proba``): binary, class 1 iff ``1 - p < p`` for
  ``p = 1 / (1 + exp(-sigmoid * score))``, the least such score is the model's ``cut``;
  multiclass, the first largest softmax; multiclassova, the first largest
  ``1 / (1 + exp(-sigmoid * score))`` (``decision="sigmoid-argmax"``).  Inputs
  of ``+inf`` at a split whose threshold is ``inf`` are the one case not reproduced (no finite
  cut passes them); they are outside every declared domain.

Examples
--------
>>> text = '''tree
... version=v4
... num_class=1
... num_tree_per_iteration=1
... label_index=0
... max_feature_idx=0
... objective=binary sigmoid:1
... feature_names=age
... feature_infos=[18:90]
...
... Tree=0
... num_leaves=2
... num_cat=0
... split_feature=0
... threshold=40.5
... decision_type=2
... left_child=-1
... right_child=-2
... leaf_value=-0.5 0.5
... is_linear=0
... shrinkage=1
...
... end of trees
... '''
>>> model = read_lightgbm(text)
>>> [f.name for f in model.features], model.predict_batch([[30.0], [50.0], [float("nan")]]).tolist()
(['age'], [0, 1, 0])
"""

from __future__ import annotations

import math
import os
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from xpg.core.features import Feature
from xpg.errors import InvalidModelError, UnsupportedModelError
from xpg.models.ensemble_tree import EnsembleTree, feature_number
from xpg.models.gbdt import GBDT, SetSplit, set_split_subtree

#: LightGBM's ``kZeroThreshold``: the float ``1e-35f`` as a double
K_ZERO = float(np.float32(1e-35))
_BELOW_ZERO_BAND = math.nextafter(-K_ZERO, -math.inf)
_INT_LIMIT = 2.0**31  # casting a double to int: out of range gives INT_MIN (x86), so "right"
_MAX = sys.float_info.max

_OBJECTIVES = {
    "binary": "binary",
    "multiclass": "multiclass",
    "softmax": "multiclass",
    "multiclassova": "multiclassova",
    "multiclass_ova": "multiclassova",
    "ova": "multiclassova",
    "ovr": "multiclassova",
}
_TREE_KEYS = ("num_leaves", "leaf_value")
_SPLIT_KEYS = ("split_feature", "threshold", "decision_type", "left_child", "right_child")


@dataclass(frozen=True)
class _Tree:
    """One tree of the text format: LightGBM's arrays (children ``< 0`` are ``~leaf``)."""

    split_feature: list[int]
    threshold: list[float]
    decision_type: list[int]
    left_child: list[int]
    right_child: list[int]
    leaf_value: list[float]
    cat_boundaries: list[int]
    cat_threshold: list[int]


@dataclass(frozen=True)
class _Text:
    """What a text model says: header fields, trees, pandas categories."""

    header: dict[str, str]
    trees: list[_Tree]
    pandas_categorical: list[list[Any]] | None
    where: str


# -- the text format ------------------------------------------------------------------------
def _parse_text(text: str, where: str) -> _Text:
    lines = text.splitlines()
    if not lines or lines[0].strip() != "tree":
        first = lines[0][:40] if lines else ""
        raise InvalidModelError(
            f"{where}:1: expected a LightGBM text model (first line 'tree'), found {first!r}"
        )
    header: dict[str, str] = {}
    i = 1
    while i < len(lines) and not lines[i].startswith("Tree="):
        line = lines[i].strip()
        if line == "end of trees":
            break
        if line:
            key, _, value = line.partition("=")
            header[key] = value
        i += 1
    trees: list[_Tree] = []
    ended = False
    while i < len(lines):
        line = lines[i].strip()
        if line == "end of trees":
            ended = True
            break
        if line.startswith("Tree="):
            start = i + 1
            fields: dict[str, str] = {}
            i += 1
            while i < len(lines) and lines[i].strip() and not lines[i].startswith("Tree="):
                key, sep, value = lines[i].strip().partition("=")
                if not sep:
                    raise InvalidModelError(
                        f"{where}:{i + 1}: expected 'key=value' in tree {len(trees)}, "
                        f"found {lines[i][:40]!r}"
                    )
                fields[key] = value
                i += 1
            expected = f"Tree={len(trees)}"
            if line != expected:
                raise InvalidModelError(f"{where}:{start}: expected {expected!r}, found {line!r}")
            trees.append(_tree(fields, len(trees), f"{where}:{start}"))
            continue
        if line:
            raise InvalidModelError(
                f"{where}:{i + 1}: expected 'Tree=N' or 'end of trees', found {line[:40]!r}"
            )
        i += 1
    if not ended:
        raise InvalidModelError(
            f"{where}: expected 'end of trees' after {len(trees)} trees, found the end of the "
            "text (truncated?)"
        )
    sizes = header.get("tree_sizes")
    if sizes is not None and len(sizes.split()) != len(trees):
        raise InvalidModelError(
            f"{where}: tree_sizes lists {len(sizes.split())} trees, found {len(trees)}"
        )
    return _Text(header, trees, _pandas_categorical(lines, where), where)


def _pandas_categorical(lines: list[str], where: str) -> list[list[Any]] | None:
    import json

    for line in reversed(lines):
        if line.startswith("pandas_categorical:"):
            try:
                value = json.loads(line[len("pandas_categorical:") :])
            except ValueError:
                raise InvalidModelError(
                    f"{where}: pandas_categorical: expected JSON, found {line[19:59]!r}"
                ) from None
            if value is not None and not (
                isinstance(value, list) and all(isinstance(c, list) for c in value)
            ):
                raise InvalidModelError(
                    f"{where}: pandas_categorical: expected a list of lists, found {value!r}"
                )
            return value
        if line.strip():
            return None
    return None


def _numbers(fields: dict[str, str], key: str, kind: type, n: int, where: str) -> list[Any]:
    text = fields.get(key)
    if text is None:
        raise InvalidModelError(f"{where}: expected a line '{key}=...', found none")
    try:
        values = [kind(x) if kind is not int else int(x) for x in text.split()]
    except ValueError:
        raise InvalidModelError(f"{where}: {key}: expected numbers, found {text[:40]!r}") from None
    if n >= 0 and len(values) != n:
        raise InvalidModelError(f"{where}: {key}: expected {n} numbers, found {len(values)}")
    return values


def _tree(fields: dict[str, str], index: int, where: str) -> _Tree:
    for key in _TREE_KEYS:
        if key not in fields:
            raise InvalidModelError(f"{where}: tree {index}: expected a line '{key}=...'")
    if fields.get("is_linear", "0").strip() != "0":
        raise UnsupportedModelError(
            f"{where}: tree {index} is a linear tree (is_linear=1): linear leaves are not "
            "supported, only constant leaves"
        )
    (n_leaves,) = _numbers(fields, "num_leaves", int, 1, where)
    if n_leaves < 1:
        raise InvalidModelError(
            f"{where}: tree {index}: num_leaves: expected >= 1, found {n_leaves}"
        )
    leaf_value = _numbers(fields, "leaf_value", float, n_leaves, where)
    if n_leaves == 1:
        return _Tree([], [], [], [], [], leaf_value, [], [])
    n = n_leaves - 1
    feats, cuts, dtypes, lefts, rights = (
        _numbers(fields, key, float if key == "threshold" else int, n, where) for key in _SPLIT_KEYS
    )
    n_cat = int(fields.get("num_cat", "0") or 0)
    bounds = _numbers(fields, "cat_boundaries", int, n_cat + 1, where) if n_cat else []
    bits = _numbers(fields, "cat_threshold", int, -1, where) if n_cat else []
    tree = _Tree(feats, cuts, dtypes, lefts, rights, leaf_value, bounds, bits)
    _check_tree(tree, n_cat, index, where)
    return tree


def _check_tree(t: _Tree, n_cat: int, index: int, where: str) -> None:
    n = len(t.split_feature)
    seen = [0] * n
    leaves = [0] * (n + 1)
    for node in range(n):
        for child in (t.left_child[node], t.right_child[node]):
            if child >= 0:
                if not node < child < n:
                    raise InvalidModelError(
                        f"{where}: tree {index}, node {node}: expected a child in {node + 1}.."
                        f"{n - 1}, found {child}"
                    )
                seen[child] += 1
            elif ~child > n:
                raise InvalidModelError(
                    f"{where}: tree {index}, node {node}: leaf {~child} is not one of {n + 1}"
                )
            else:
                leaves[~child] += 1
        if t.decision_type[node] & 1:
            cat = int(t.threshold[node])
            if not (0 <= cat < n_cat and cat == t.threshold[node]):
                raise InvalidModelError(
                    f"{where}: tree {index}, node {node}: categorical split {t.threshold[node]!r}"
                    f" is not one of the tree's {n_cat} bitsets"
                )
            if not 0 <= t.cat_boundaries[cat] <= t.cat_boundaries[cat + 1] <= len(t.cat_threshold):
                raise InvalidModelError(f"{where}: tree {index}: cat_boundaries out of range")
        elif math.isnan(t.threshold[node]):
            raise InvalidModelError(f"{where}: tree {index}, node {node}: a NaN threshold")
    if any(s != 1 for s in seen[1:]) or any(c != 1 for c in leaves):
        raise InvalidModelError(
            f"{where}: tree {index}: expected every node and leaf reached once from node 0"
        )


# -- LightGBM's decisions, one input at a time --------------------------------------------------
def numerical_goes_left(x: float, threshold: float, decision_type: int) -> bool:
    """Does LightGBM send ``x`` left at a numerical split (its dense-row reader, which reads
    ``|x| <= kZeroThreshold`` as 0, then ``Tree::NumericalDecision``)?

    Examples
    --------
    >>> numerical_goes_left(float("nan"), 0.5, 0), numerical_goes_left(float("nan"), 0.5, 8)
    (True, False)
    >>> numerical_goes_left(1e-36, -1e-36, 0)   # read as 0.0
    False
    """
    if not math.isnan(x) and abs(x) <= K_ZERO:
        x = 0.0
    missing = (decision_type >> 2) & 3
    if math.isnan(x) and missing != 2:
        x = 0.0
    if (missing == 1 and -K_ZERO <= x <= K_ZERO) or (missing == 2 and math.isnan(x)):
        return bool(decision_type & 2)
    return x <= threshold


def categorical_goes_left(x: float, bitset: Sequence[int]) -> bool:
    """Does LightGBM send ``x`` left at a categorical split with ``bitset``
    (``Tree::CategoricalDecision``: NaN, negative and out-of-``int`` values go right, others
    are truncated to an integer category and go left when in the bitset)?

    Examples
    --------
    >>> [categorical_goes_left(x, [0b101]) for x in (0.0, 1.0, 2.0, 2.9, -1.0, float("nan"))]
    [True, False, True, True, False, False]
    """
    if math.isnan(x) or not -_INT_LIMIT < x < _INT_LIMIT:
        return False
    code = int(x)  # toward zero, as static_cast<int>
    if code < 0:
        return False
    word = code // 32
    return word < len(bitset) and bool((bitset[word] >> (code % 32)) & 1)


# -- trees ------------------------------------------------------------------------------------
class _Nodes:
    """An EnsembleTree being written in preorder (children after their parent)."""

    def __init__(self, n_scores: int, column: int) -> None:
        self.n_scores, self.column = n_scores, column
        self.feature: list[int] = []
        self.threshold: list[float] = []
        self.left: list[int] = []
        self.right: list[int] = []
        self.leaf_value: list[float] = []
        self.missing_left: list[bool] = []

    def add(self, feature: int, threshold: float, missing_left: bool) -> int:
        self.feature.append(feature)
        self.threshold.append(threshold)
        self.left.append(-1)
        self.right.append(-1)
        self.leaf_value.append(0.0)
        self.missing_left.append(missing_left)
        return len(self.feature) - 1

    def leaf(self, value: float) -> int:
        node = self.add(-1, 0.0, False)
        self.leaf_value[node] = value
        return node

    def tree(self) -> EnsembleTree:
        value = np.zeros((len(self.feature), self.n_scores), dtype=np.float64)
        value[:, self.column] = self.leaf_value
        return EnsembleTree(
            np.array(self.feature, dtype=np.int64),
            np.array(self.threshold, dtype=np.float64),
            np.array(self.left, dtype=np.int64),
            np.array(self.right, dtype=np.int64),
            value,
            np.array(self.missing_left, dtype=bool),
        )


def numerical_pieces(threshold: float, decision_type: int) -> tuple[list[tuple[float, bool]], bool]:
    """A numerical split of LightGBM as ``<=`` cuts: ``([(cut, left?), ...], nan_left)``,
    the real line cut after each ``cut`` (the last piece's cut is ``inf``), sides alternating.

    Examples
    --------
    >>> numerical_pieces(2.5, 8)                       # missing type NaN, default right
    ([(2.5, True), (inf, False)], False)
    >>> numerical_pieces(-1.0, 4 | 2)[0]               # zero band goes left, with x <= -1
    [(-1.0, True), (-1.0000000180025096e-35, False), (1.0000000180025095e-35, True), (inf, False)]
    """

    def left(x: float) -> bool:
        return numerical_goes_left(x, threshold, decision_type)

    # the function of x changes only at the threshold and at the zero band's ends
    cuts = sorted({b for b in (threshold, _BELOW_ZERO_BAND, K_ZERO) if math.isfinite(b)})
    pieces: list[tuple[float, bool]] = []
    for cut, x in zip([*cuts, math.inf], [*cuts, math.nextafter(cuts[-1], math.inf)]):
        if pieces and pieces[-1][1] == left(x):
            pieces[-1] = (cut, pieces[-1][1])
        else:
            pieces.append((cut, left(x)))
    return pieces, left(math.nan)


class _Converter:
    """LightGBM trees as EnsembleTrees over the model's features."""

    def __init__(self, features: list[Feature], codes: dict[int, list[tuple[float, float]]]):
        self.features = features
        #: per categorical feature: (number the tree compares, LightGBM's category) per value
        self.codes = codes

    def convert(self, t: _Tree, column: int, n_scores: int, where: str) -> EnsembleTree:
        out = _Nodes(n_scores, column)
        if not t.split_feature:
            out.leaf(t.leaf_value[0])
        else:
            self._write(t, 0, out, where)
        return out.tree()

    def _write(self, t: _Tree, node: int, out: _Nodes, where: str) -> int:
        if node < 0:
            return out.leaf(t.leaf_value[~node])
        j = t.split_feature[node]
        if not 0 <= j < len(self.features):
            raise InvalidModelError(
                f"{where}, node {node}: feature {j} is not one of the {len(self.features)}"
            )

        def child(side: bool) -> int:
            return self._write(t, t.left_child[node] if side else t.right_child[node], out, where)

        if t.decision_type[node] & 1:
            return self._categorical(t, node, j, out, child, where)
        pieces, nan_left = numerical_pieces(t.threshold[node], t.decision_type[node])
        return _chain(out, j, pieces, nan_left, child, f"{where}, node {node}")

    def _categorical(
        self, t: _Tree, node: int, j: int, out: _Nodes, child: Callable[[bool], int], where: str
    ) -> int:
        if j not in self.codes:
            raise InvalidModelError(
                f"{where}, node {node}: a categorical split on feature {self.features[j].name!r},"
                " whose declared domain is not finite"
            )
        cat = int(t.threshold[node])
        bits = t.cat_threshold[t.cat_boundaries[cat] : t.cat_boundaries[cat + 1]]
        values = self.codes[j]
        members = {n for n, c in values if categorical_goes_left(c, bits)}
        sub = set_split_subtree([n for n, _ in values], members, missing_in=False)
        return self._graft(sub, j, out, child)

    def _graft(
        self, sub: SetSplit | bool, j: int, out: _Nodes, child: Callable[[bool], int]
    ) -> int:
        if isinstance(sub, bool):
            return child(sub)
        node = out.add(j, float(sub.cut), bool(sub.missing_left))
        out.left[node] = self._graft(sub.left, j, out, child)
        out.right[node] = self._graft(sub.right, j, out, child)
        return node


def _chain(
    out: _Nodes,
    j: int,
    pieces: list[tuple[float, bool]],
    nan_left: bool,
    child: Callable[[bool], int],
    where: str,
) -> int:
    """Write ``pieces`` (:func:`numerical_pieces`) as a chain of cuts on feature ``j``, a
    fresh copy of ``child(side)`` for each piece; returns the chain's first node."""
    if len(pieces) == 1:
        if pieces[0][1] == nan_left:
            return child(nan_left)
        if not pieces[0][1]:
            raise UnsupportedModelError(
                f"{where}: a split that sends every number right and NaN left cannot be "
                "written as x <= cut"
            )
        # every number left, NaN right (threshold inf): one cut above every finite number
        pieces = [(_MAX, True), (math.inf, False)]
    first = parent = -1
    for cut, side in pieces[:-1]:
        # sides alternate, so NaN leaves the chain at the first piece on its side
        node = out.add(j, cut, side == nan_left)
        if parent < 0:
            first = node
        else:
            out.right[parent] = node
        out.left[node] = child(side)
        parent = node
    out.right[parent] = child(pieces[-1][1])
    return first


# -- the features ---------------------------------------------------------------------------
def _feature_infos(text: _Text, n: int) -> list[list[int] | None]:
    """Per feature, the categories of a categorical feature_infos entry, else None."""
    infos = text.header.get("feature_infos", "").split()
    out: list[list[int] | None] = []
    for k in range(n):
        info = infos[k] if k < len(infos) else "none"
        if info.startswith("[") or info == "none":
            out.append(None)
            continue
        try:
            out.append(sorted({int(c) for c in info.split(":") if int(c) >= 0}))
        except ValueError:
            raise InvalidModelError(
                f"{text.where}: feature_infos of feature {k}: expected '[min:max]', 'none' or "
                f"categories 'a:b:...', found {info[:40]!r}"
            ) from None
    return out


def _bitset_codes(text: _Text, n: int) -> dict[int, set[int]]:
    """Per feature with categorical splits, every category a bitset holds."""
    out: dict[int, set[int]] = {}
    for t in text.trees:
        for node, j in enumerate(t.split_feature):
            if t.decision_type[node] & 1 and 0 <= j < n:
                cat = int(t.threshold[node])
                bits = t.cat_threshold[t.cat_boundaries[cat] : t.cat_boundaries[cat + 1]]
                out.setdefault(j, set()).update(
                    32 * w + b for w, word in enumerate(bits) for b in range(32) if word >> b & 1
                )
    return out


def _features(
    text: _Text, given: Sequence[Feature | str] | None
) -> tuple[list[Feature], dict[int, list[tuple[float, float]]]]:
    """The model's features and, per feature with categorical splits or categories, its
    declared values as (number compared by xpg, LightGBM category) pairs."""
    n = _int_field(text, "max_feature_idx") + 1
    names = text.header.get("feature_names", "").split()
    if len(names) != n:
        raise InvalidModelError(
            f"{text.where}: feature_names: expected {n} names, found {len(names)}"
        )
    infos = _feature_infos(text, n)
    split_codes = _bitset_codes(text, n)
    categorical = [k for k in range(n) if infos[k] is not None]
    pandas: dict[int, list[Any]] = {}
    if text.pandas_categorical:
        if len(text.pandas_categorical) != len(categorical):
            raise UnsupportedModelError(
                f"{text.where}: pandas_categorical lists {len(text.pandas_categorical)} columns"
                f" but the model has {len(categorical)} categorical features; pass features="
            )
        pandas = dict(zip(categorical, text.pandas_categorical))
    if given is not None:
        given = list(given)
        if len(given) != n:
            raise InvalidModelError(
                f"features: expected {n} (the model's inputs), found {len(given)}"
            )
        if not all(isinstance(f, (Feature, str)) for f in given):
            raise InvalidModelError("features: expected Feature objects or names")
    features: list[Feature] = []
    for k in range(n):
        g = given[k] if given is not None else None
        if isinstance(g, Feature):
            features.append(g)
            continue
        name = g if isinstance(g, str) else names[k]
        if k in pandas:
            cats = pandas[k]
            numeric = all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in cats)
            features.append(Feature.categorical(name, cats if numeric else [str(c) for c in cats]))
        elif infos[k] is not None or k in split_codes:
            seen = sorted(set(infos[k] or []) | split_codes.get(k, set()))
            features.append(Feature.categorical(name, seen or [0]))
        else:
            features.append(Feature.real(name))
    codes: dict[int, list[tuple[float, float]]] = {}
    for k, f in enumerate(features):
        values = _domain(f)
        if values is None:
            continue
        if k in pandas:  # LightGBM saw each category's position in the pandas categories
            lookup = {c: float(i) for i, c in enumerate(pandas[k])}
            lookup.update({str(c): float(i) for i, c in enumerate(pandas[k])})
            pairs = [(feature_number(f, v), lookup.get(v, math.nan)) for v in values]
        else:
            pairs = [(feature_number(f, v), feature_number(f, v)) for v in values]
        codes[k] = sorted(pairs)
    return features, codes


def _domain(f: Feature) -> list[Any] | None:
    """The values of a finite domain (boolean, categorical, bounded integer), else None."""
    if f.is_discrete:
        return list(f.values)
    if f.kind == "integer" and math.isfinite(f.low) and math.isfinite(f.high):
        if f.high - f.low > 1_000_000:
            return None
        return list(range(int(f.low), int(f.high) + 1))
    return None


def _int_field(text: _Text, key: str) -> int:
    value = text.header.get(key)
    if value is None:
        raise InvalidModelError(f"{text.where}: expected a header line '{key}=...', found none")
    try:
        return int(value)
    except ValueError:
        raise InvalidModelError(
            f"{text.where}: {key}: expected an integer, found {value[:40]!r}"
        ) from None


# -- the decision -----------------------------------------------------------------------------
def _objective(text: _Text) -> tuple[str, float, int]:
    """``(objective, sigmoid, num_class)`` of a classifier; other objectives are refused."""
    line = text.header.get("objective")
    if line is None:
        raise UnsupportedModelError(
            f"{text.where}: no objective line (a custom objective): only binary, multiclass "
            "and multiclassova models are supported"
        )
    name, *params = line.split()
    kind = _OBJECTIVES.get(name)
    if kind is None:
        raise UnsupportedModelError(
            f"{text.where}: objective {name!r} is not a classifier: expected binary, "
            "multiclass or multiclassova"
        )
    options = dict(p.partition(":")[::2] for p in params)
    try:
        sigmoid = float(options.get("sigmoid", "1"))
    except ValueError:
        raise InvalidModelError(
            f"{text.where}: objective: expected 'sigmoid:<number>', found {line!r}"
        ) from None
    if kind != "multiclass" and not (math.isfinite(sigmoid) and sigmoid > 0):
        raise InvalidModelError(f"{text.where}: objective: expected sigmoid > 0, found {sigmoid}")
    k = _int_field(text, "num_class")
    per_iteration = _int_field(text, "num_tree_per_iteration")
    if kind == "binary" and (k != 1 or per_iteration != 1):
        raise InvalidModelError(
            f"{text.where}: binary objective: expected num_class=1 and one tree per iteration, "
            f"found {k} and {per_iteration}"
        )
    if kind != "binary" and (k < 3 or per_iteration != k):
        raise UnsupportedModelError(
            f"{text.where}: {kind} objective: expected num_class >= 3 with one tree per class "
            f"and iteration, found num_class={k}, num_tree_per_iteration={per_iteration}"
        )
    return kind, sigmoid, k


def _logistic_class(score: float, sigmoid: float) -> bool:
    """LightGBM's binary class of a raw score: its ``predict_proba`` ``[1 - p, p]`` with
    ``p = 1 / (1 + exp(-sigmoid * score))`` in double, then ``argmax`` (ties to class 0)."""
    z = -sigmoid * score
    if z > 709.0:
        return False
    p = 1.0 / (1.0 + math.exp(z))
    return 1.0 - p < p


def binary_cut(sigmoid: float) -> float:
    """The least double raw score LightGBM classifies as class 1 (its decision is monotone
    in the score; found by bisection over the doubles between 0 and 1).

    Examples
    --------
    >>> c = binary_cut(1.0)
    >>> 0 < c < 1e-15, _logistic_class(c, 1.0), _logistic_class(math.nextafter(c, 0), 1.0)
    (True, True, False)
    """
    lo, hi = 0, int(np.float64(1.0).view(np.int64))  # positive doubles order as their bits
    if _logistic_class(0.0, sigmoid) or not _logistic_class(1.0, sigmoid):
        raise InvalidModelError(f"objective: sigmoid {sigmoid} gives no class boundary in (0, 1]")
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _logistic_class(float(np.int64(mid).view(np.float64)), sigmoid):
            hi = mid
        else:
            lo = mid
    return float(np.int64(hi).view(np.float64))


# -- sources ----------------------------------------------------------------------------------
def _text_of(source: Any) -> tuple[str, str, list[Any] | None]:
    """``(model text, where, classes or None)`` of any accepted source."""
    if isinstance(source, (bytes, bytearray)):
        return _decoded(bytes(source), "<bytes>"), "<bytes>", None
    if (
        isinstance(source, str)
        and source.lstrip().startswith("tree\n")
        or (isinstance(source, str) and "\nTree=" in source)
    ):
        return source, "<string>", None
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError as err:
            raise InvalidModelError(f"{path}: cannot read the model file: {err.strerror}") from None
        return _decoded(data, path), path, None
    from xpg.core.library_predict import check_library_predict, library_class

    base = library_class(source)  # a subclass too: then refused if it predicts otherwise
    if base is not None and base.__module__.split(".")[0] == "lightgbm":
        check_library_predict(source)
        booster = source
        classes = None
        if hasattr(source, "booster_") or hasattr(source, "fit"):
            name = base.__name__
            if name != "LGBMClassifier":
                raise UnsupportedModelError(
                    f"expected an LGBMClassifier or a Booster, found {name} (not a classifier)"
                )
            try:
                booster = source.booster_
            except Exception:  # lightgbm raises its own "not fitted" error
                raise InvalidModelError(
                    "expected a fitted LGBMClassifier, found an unfitted one"
                ) from None
            classes = [c.item() if isinstance(c, np.generic) else c for c in source.classes_]
        if not hasattr(booster, "model_to_string"):
            raise InvalidModelError(f"expected a LightGBM Booster, found {type(source).__name__}")
        return booster.model_to_string(), f"<{type(source).__name__}>", classes
    raise InvalidModelError(
        "expected a LightGBM text model (a path, the text, bytes), a Booster or an "
        f"LGBMClassifier, found {type(source).__name__}"
    )


def _decoded(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InvalidModelError(
            f"{where}: expected a LightGBM text model, found bytes that are not UTF-8 text "
            f"(at byte {err.start})"
        ) from None


def looks_like_lightgbm(data: bytes) -> bool:
    """Do the first bytes of a file look like a LightGBM text model (``save_model``)?

    Examples
    --------
    >>> looks_like_lightgbm(b"tree\\nversion=v4\\nnum_class=1\\n"), looks_like_lightgbm(b"{}")
    (True, False)
    """
    head = bytes(data[:512]).replace(b"\r\n", b"\n")
    return head.startswith(b"tree\n") and bool(
        re.search(rb"\n(version=v\d|num_class=\d|max_feature_idx=\d)", head)
    )


def read_lightgbm(source: Any, features: Sequence[Feature | str] | None = None) -> GBDT:
    """A LightGBM classifier as an exact :class:`~xpg.models.gbdt.GBDT`.

    Parameters
    ----------
    source : path, str, bytes, lightgbm.Booster or lightgbm.LGBMClassifier
        A text model file (``save_model``), its text (``model_to_string``) or bytes, or a
        trained booster or classifier (read through ``model_to_string()``, which holds the
        iterations ``predict`` uses by default).  Reading text does not import lightgbm.
    features : sequence of Feature or str, optional
        One per input column: names replacing ``feature_names``, or features whose domains
        the explanations range over.  Default: real features, and categorical features
        declared with the categories LightGBM saw (``pandas_categorical`` values, else the
        integer codes of ``feature_infos`` and the bitsets).

    Returns
    -------
    GBDT
        ``predict`` equals ``LGBMClassifier.predict`` (class indices ``0 .. K-1`` for a
        booster or a file, the classifier's ``classes_`` for a classifier) on float64 rows.

    Raises
    ------
    UnsupportedModelError
        Another objective (regression, ranking, cross-entropy), linear trees.
    InvalidModelError
        A malformed or truncated text, or features that do not fit the model.
    """
    text, where, classes = _text_of(source)
    model = _parse_text(text, where)
    kind, sigmoid, k = _objective(model)
    feats, codes = _features(model, features)
    n_scores = 1 if kind == "binary" else k
    if not model.trees:
        raise InvalidModelError(f"{where}: expected at least one tree, found none")
    if len(model.trees) % n_scores:
        raise InvalidModelError(
            f"{where}: expected a multiple of {n_scores} trees (one per class and iteration), "
            f"found {len(model.trees)}"
        )
    converter = _Converter(feats, codes)
    trees = [
        converter.convert(t, i % n_scores, n_scores, f"{where}: tree {i}")
        for i, t in enumerate(model.trees)
    ]
    labels = classes if classes is not None else list(range(max(k, 2)))
    if len(labels) != max(k, 2):
        raise InvalidModelError(
            f"{where}: expected {max(k, 2)} classes, found {len(labels)} ({labels!r})"
        )
    options: dict[str, Any] = {}
    if kind == "binary":
        options = {"decision": "threshold", "cut": binary_cut(sigmoid), "strict": False}
    elif kind == "multiclass":
        options = {"decision": "softmax-argmax"}
    else:
        options = {"decision": "sigmoid-argmax", "sigmoid": sigmoid}
    version = model.header.get("version", "?")
    return GBDT(
        feats,
        labels,
        trees,
        [0.0] * n_scores,
        precision="float64",
        average="average_output" in model.header,
        source=f"lightgbm {version} {model.header.get('objective', '')}".strip(),
        **options,
    )


__all__ = [
    "K_ZERO",
    "binary_cut",
    "categorical_goes_left",
    "looks_like_lightgbm",
    "numerical_goes_left",
    "numerical_pieces",
    "read_lightgbm",
]
