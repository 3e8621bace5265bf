"""XGBoost classifiers as :class:`~xpg.models.gbdt.GBDT` models, exact to XGBoost's ``predict``.

:func:`read_xgboost` reads a JSON or UBJSON model file (``save_model``; recognised by its
content), its bytes, an ``xgboost.Booster`` or an ``xgboost.XGBClassifier``.  A file is read
without XGBoost (``json`` and the small UBJSON reader :func:`read_ubjson`); an object is read
through ``Booster.save_raw("json")``.

What XGBoost computes, reproduced:

- the margin: ``base_score`` (as a margin: for ``binary:logistic`` the stored probability
  turned into a margin as XGBoost does, in float32; a per-class vector
  for the multi-class objectives of XGBoost >= 3) plus each tree's leaf value, tree by tree,
  in float32; tree ``i`` adds to class ``tree_info[i]``;
- a split sends ``x`` left when ``float32(x) < split_condition`` (turned into an exact
  float64 cut ``x <= c``), a NaN to the node's default side, and a categorical split sends
  the listed categories right (made a subtree of cuts, :func:`~xpg.models.gbdt.set_split_subtree`);
- ``XGBClassifier.predict``: ``binary:logistic``, class 1 iff the float32 sigmoid of the
  margin is above 0.5 (the least such margin is the cut); ``binary:logitraw``, iff the margin
  is above 0.5; ``binary:hinge``, iff it is above 0; ``multi:softprob``, the first largest
  float32 softmax probability; ``multi:softmax``, the first largest margin.

Anything else (regression, ranking, survival, count objectives, several targets, vector
leaves, ``gblinear``, DART with dropped-tree weights other than 1, a ``missing`` value other
than NaN) is refused with :class:`~xpg.errors.UnsupportedModelError`.

Examples
--------
>>> looks_like_xgboost(b'{"learner": {"gradient_booster": {}}, "version": [3, 2, 0]}')
True
>>> looks_like_xgboost(b"tree\\nversion=v4")
False
"""

from __future__ import annotations

import io
import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from xpg.core.features import Feature
from xpg.core.float32 import float32_cut
from xpg.errors import InvalidModelError, UnsupportedModelError
from xpg.models.ensemble_tree import EnsembleTree, feature_number
from xpg.models.gbdt import GBDT, SetSplit, set_split_subtree

#: the objectives read, and the decision each makes
OBJECTIVES = (
    "binary:logistic",
    "binary:logitraw",
    "binary:hinge",
    "multi:softprob",
    "multi:softmax",
)


# -- sniffing and parsing ------------------------------------------------------------------------
def looks_like_xgboost(data: bytes) -> bool:
    """Does ``data`` start like an XGBoost JSON or UBJSON model (an object whose first keys
    include ``learner``)?"""
    head = bytes(data[:256])
    text = head.lstrip()
    if text.startswith(b"{") and b'"learner"' in head:
        return True
    return head.startswith(b"{") and len(head) > 1 and head[1:2] in b"iUIlL" and b"learner" in head


def _document(source: Any) -> tuple[dict[str, Any], str]:
    """The parsed model document of a path or bytes, and where it came from (for messages)."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data, where = bytes(source), "XGBoost model bytes"
    else:
        path = Path(os.fspath(source))
        where = str(path)
        try:
            data = path.read_bytes()
        except OSError as err:
            raise InvalidModelError(
                f"{where}: cannot read the model file: {err.strerror}"
            ) from None
    if not data.strip():
        raise InvalidModelError(f"{where}: expected an XGBoost model, found an empty file")
    if data.lstrip()[:1] == b"{" and data[1:2] not in b"iUIlL":
        try:
            doc = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as err:
            raise InvalidModelError(
                f"{where}: expected an XGBoost JSON model, found invalid JSON ({err})"
            ) from None
    elif data[:1] == b"{":
        doc = read_ubjson(data, where)
    else:
        raise InvalidModelError(
            f"{where}: expected an XGBoost JSON or UBJSON model, found {data[:16]!r}..."
        )
    if not (isinstance(doc, dict) and isinstance(doc.get("learner"), dict)):
        raise InvalidModelError(
            f"{where}: expected an XGBoost model (an object with 'learner'), found "
            f"{type(doc).__name__} with keys {sorted(doc)[:5] if isinstance(doc, dict) else []}"
        )
    return doc, where


_UBJ_INT = {b"i": ">i1", b"U": ">u1", b"I": ">i2", b"l": ">i4", b"L": ">i8"}
_UBJ_NUM = {**_UBJ_INT, b"d": ">f4", b"D": ">f8"}


def read_ubjson(data: bytes, where: str = "UBJSON") -> Any:
    """The value of a UBJSON document (ubjson.org, draft 12; the optimised containers
    ``[$type#count`` and ``{$type#count`` included).  Float32 numbers (``d``) are read as
    the exact float64 of their value.

    Raises
    ------
    InvalidModelError
        For a truncated document or an unknown marker (with its byte offset).

    Examples
    --------
    >>> read_ubjson(b"{i\\x01a[$i#i\\x02\\x01\\x02i\\x01bSi\\x02hi}")
    {'a': [1, 2], 'b': 'hi'}
    """
    stream = io.BytesIO(data)

    def take(n: int) -> bytes:
        b = stream.read(n)
        if len(b) != n:
            raise InvalidModelError(f"{where}: truncated UBJSON at byte {stream.tell()}")
        return b

    def marker() -> bytes:
        m = take(1)
        while m == b"N":
            m = take(1)
        return m

    def count(m: bytes | None = None) -> int:
        m = marker() if m is None else m
        if m not in _UBJ_INT:
            raise InvalidModelError(
                f"{where}: expected a UBJSON length at byte {stream.tell() - 1}, found {m!r}"
            )
        n = int(np.frombuffer(take(np.dtype(_UBJ_INT[m]).itemsize), _UBJ_INT[m])[0])
        if n < 0:
            raise InvalidModelError(f"{where}: negative UBJSON length at byte {stream.tell()}")
        return n

    def value(m: bytes) -> Any:
        if m in _UBJ_NUM:
            dt = np.dtype(_UBJ_NUM[m])
            x = np.frombuffer(take(dt.itemsize), dt)[0]
            return float(x) if m in b"dD" else int(x)
        if m == b"S" or m == b"H":
            s = take(count()).decode("utf-8", errors="replace")
            return s
        if m == b"C":
            return take(1).decode("latin-1")
        if m == b"Z":
            return None
        if m in (b"T", b"F"):
            return m == b"T"
        if m == b"[":
            return array()
        if m == b"{":
            return obj()
        raise InvalidModelError(f"{where}: unknown UBJSON marker {m!r} at byte {stream.tell() - 1}")

    def header() -> tuple[bytes | None, int | None]:
        kind: bytes | None = None
        n: int | None = None
        pos = stream.tell()
        m = take(1)
        if m == b"$":
            kind = take(1)
            m = take(1)
            if m != b"#":
                raise InvalidModelError(f"{where}: expected '#' after a UBJSON type at {pos}")
        if m == b"#":
            n = count()
        else:
            stream.seek(pos)
        return kind, n

    def array() -> list[Any]:
        kind, n = header()
        if n is None:
            out: list[Any] = []
            while True:
                m = marker()
                if m == b"]":
                    return out
                out.append(value(m))
        if kind is not None and kind in _UBJ_NUM:
            dt = np.dtype(_UBJ_NUM[kind])
            a = np.frombuffer(take(n * dt.itemsize), dt)
            return a.astype(np.float64).tolist() if kind in b"dD" else a.astype(int).tolist()
        return [value(kind if kind is not None else marker()) for _ in range(n)]

    def obj() -> dict[str, Any]:
        kind, n = header()
        out: dict[str, Any] = {}
        if n is None:
            while True:
                m = marker()
                if m == b"}":
                    return out
                key = take(count(m)).decode("utf-8", errors="replace")
                out[key] = value(marker())
        for _ in range(n):
            key = take(count()).decode("utf-8", errors="replace")
            out[key] = value(kind if kind is not None else marker())
        return out

    result = value(marker())
    return result


# -- the model -----------------------------------------------------------------------------------
def read_xgboost(source: Any, features: Sequence[Feature | str] | None = None) -> GBDT:
    """The :class:`~xpg.models.gbdt.GBDT` of an XGBoost classifier.

    Parameters
    ----------
    source : path, bytes, xgboost.Booster or xgboost.XGBClassifier
        A JSON or UBJSON model file (recognised by content) or its bytes; a booster; a
        fitted classifier (its ``classes_``, and its ``best_iteration`` as its ``predict``
        uses it).
    features : sequence of Feature or str, optional
        The features (or their names), in the model's column order.  Default: the model's
        ``feature_names`` and ``feature_types`` (``"int"`` integer, ``"i"`` boolean, ``"c"``
        categorical, else real), or ``f0, f1, ...`` real.

    Raises
    ------
    InvalidModelError
        A file that is not an XGBoost model, or malformed.
    UnsupportedModelError
        A model whose predictions xpg cannot reproduce exactly (see the module docstring).

    Examples
    --------
    >>> import json
    >>> tree = {"left_children": [1, -1, -1], "right_children": [2, -1, -1],
    ...         "split_indices": [0, 0, 0], "split_conditions": [0.5, -1.0, 1.0],
    ...         "default_left": [1, 0, 0], "split_type": [0, 0, 0]}
    >>> doc = {"version": [3, 2, 0], "learner": {
    ...     "objective": {"name": "binary:logitraw"}, "feature_names": ["x"],
    ...     "learner_model_param": {"base_score": "[0E0]", "num_class": "0",
    ...                             "num_feature": "1", "num_target": "1"},
    ...     "gradient_booster": {"name": "gbtree", "model": {"trees": [tree], "tree_info": [0],
    ...         "gbtree_model_param": {"num_parallel_tree": "1"}}}}}
    >>> m = read_xgboost(json.dumps(doc).encode())
    >>> m.predict_batch([[0.0], [0.5], [float("nan")]]).tolist(), m.cut, m.strict
    ([0, 1, 0], 0.5, True)
    """
    classes: list[Any] | None = None
    best: int | None = None
    missing: Any = math.nan
    if isinstance(source, (str, os.PathLike, bytes, bytearray, memoryview)):
        doc, where = _document(source)
    else:
        booster, classes, best, missing = _from_object(source)
        doc, where = _document(bytes(booster.save_raw("json")))
        where = f"{type(source).__name__}"
    if not (isinstance(missing, float) and math.isnan(missing)):
        raise UnsupportedModelError(
            f"{where}: missing={missing!r}: expected NaN as the missing value (xpg routes "
            f"only NaN to the default side)"
        )
    return _model(doc, where, features, classes, best)


def _from_object(obj: Any) -> tuple[Any, list[Any] | None, int | None, Any]:
    """The booster of an XGBoost object, the classes, the best iteration and ``missing``."""
    from xpg.core.library_predict import check_library_predict

    check_library_predict(obj)
    if hasattr(obj, "get_booster") and hasattr(obj, "classes_"):
        classes = np.asarray(obj.classes_).tolist()
        booster = obj.get_booster()
        best = None
        if "best_iteration" in booster.attributes():
            best = int(booster.attributes()["best_iteration"])
        return booster, classes, best, getattr(obj, "missing", math.nan)
    if hasattr(obj, "get_booster") and not hasattr(obj, "classes_"):
        raise InvalidModelError(
            f"expected a fitted XGBClassifier, found {type(obj).__name__} (not a fitted classifier)"
        )
    if hasattr(obj, "save_raw") and hasattr(obj, "attributes"):
        return obj, None, None, math.nan
    raise InvalidModelError(
        f"expected an XGBoost model file, bytes, Booster or XGBClassifier, found "
        f"{type(obj).__name__}"
    )


def _get(d: Any, key: str, where: str, kind: type | tuple[type, ...] = dict) -> Any:
    if not isinstance(d, dict) or key not in d:
        raise InvalidModelError(f"{where}: expected a key {key!r}")
    v = d[key]
    if not isinstance(v, kind):
        raise InvalidModelError(f"{where}.{key}: expected {kind}, found {type(v).__name__}")
    return v


def _int(x: Any, where: str) -> int:
    try:
        return int(x)
    except (TypeError, ValueError):
        raise InvalidModelError(f"{where}: expected an integer, found {x!r}") from None


def _f32(x: Any) -> float:
    return float(np.float32(float(x)))


def _base_scores(text: Any, where: str) -> list[float]:
    """``base_score``: ``"5E-1"`` or ``"[5E-1,...]"`` (XGBoost >= 3), as float32 numbers."""
    s = str(text).strip()
    parts = s[1:-1].split(",") if s.startswith("[") and s.endswith("]") else [s]
    try:
        values = [_f32(p) for p in parts if p.strip()]
    except ValueError:
        raise InvalidModelError(f"{where}: expected numbers, found {text!r}") from None
    if not values or not all(math.isfinite(v) for v in values):
        raise InvalidModelError(f"{where}: expected finite numbers, found {text!r}")
    return values


def _logit32(p: float, where: str) -> float:
    """``-logf(1.0f / p - 1.0f)`` (XGBoost's ``ProbToMargin`` of the logistic objectives)."""
    if not 0.0 < p < 1.0:
        raise InvalidModelError(f"{where}: expected a probability in (0, 1), found {p!r}")
    one = np.float32(1.0)
    r = one / np.float32(p) - one
    return -float(np.float32(math.log(float(r))))


def _sigmoid32(m: Any) -> Any:
    """XGBoost's float32 ``common::Sigmoid``: ``1 / (expf(min(-x, 88.7)) + 1 + 1e-16)``."""
    x = np.minimum(-np.asarray(m, dtype=np.float32), np.float32(88.7))
    e = np.exp(x.astype(np.float64)).astype(np.float32)
    denom = (e + np.float32(1.0)) + np.float32(1e-16)
    return np.float32(1.0) / denom


def logistic_cut() -> float:
    """The least float32 margin whose float32 sigmoid (:func:`_sigmoid32`) is above 0.5:
    ``binary:logistic`` predicts class 1 exactly from it up.

    >>> c = logistic_cut()
    >>> 0 < c < 1e-7, bool(_sigmoid32(np.float32(c)) > 0.5)
    (True, True)
    """

    def key(f: float) -> int:
        b = int(np.float32(f).view(np.int32))
        return b if b >= 0 else -(b & 0x7FFFFFFF)

    def value(k: int) -> np.float32:
        b = k if k >= 0 else (-k) | -0x80000000
        return np.int32(b).view(np.float32)

    lo, hi = key(-1.0), key(1.0)  # the sigmoid is above 0.5 at hi, not at lo; monotone
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _sigmoid32(value(mid)) > np.float32(0.5):
            hi = mid
        else:
            lo = mid
    return float(value(hi))


def _model(
    doc: dict[str, Any],
    where: str,
    features: Sequence[Feature | str] | None,
    classes: list[Any] | None,
    best: int | None,
) -> GBDT:
    learner = _get(doc, "learner", where)
    w = f"{where}: learner"
    objective = _get(_get(learner, "objective", w), "name", f"{w}.objective", str)
    version = doc.get("version")
    lmp = _get(learner, "learner_model_param", w)
    num_class = _int(lmp.get("num_class", "0"), f"{w}.learner_model_param.num_class")
    num_target = _int(lmp.get("num_target", "1"), f"{w}.learner_model_param.num_target")
    num_feature = _int(lmp.get("num_feature"), f"{w}.learner_model_param.num_feature")
    if objective not in OBJECTIVES:
        raise UnsupportedModelError(
            f"{where}: objective {objective!r}: expected a classification objective, one of "
            f"{', '.join(OBJECTIVES)}"
        )
    if num_target != 1:
        raise UnsupportedModelError(
            f"{where}: num_target {num_target}: expected one target (multi-output models "
            f"are not read)"
        )
    multi = objective.startswith("multi:")
    if multi and num_class < 2:
        raise InvalidModelError(f"{where}: {objective} with num_class {num_class}")
    if not multi and num_class > 1:
        raise UnsupportedModelError(
            f"{where}: {objective} with num_class {num_class}: expected a binary model"
        )
    if objective == "multi:softprob" and num_class == 2 and classes is not None:
        raise UnsupportedModelError(
            f"{where}: multi:softprob with 2 classes: XGBClassifier.predict returns a 0/1 "
            f"matrix for it, not a class"
        )
    n_scores = num_class if multi else 1
    base_text = lmp.get("base_score", "0.5")
    bases = _base_scores(base_text, f"{w}.learner_model_param.base_score")
    if len(bases) == 1:
        bases = bases * n_scores
    if len(bases) != n_scores:
        raise UnsupportedModelError(
            f"{where}: base_score {base_text!r}: expected 1 or {n_scores} numbers"
        )
    if objective == "binary:logistic":  # logitraw and hinge keep it as the margin
        bases = [_logit32(b, f"{w}.learner_model_param.base_score") for b in bases]
    feats = _features(learner, num_feature, features, doc, where)
    trees = _trees(learner, feats, n_scores, where, best)
    n_classes = num_class if multi else 2
    if classes is None:
        classes = list(range(n_classes))
    if len(classes) != n_classes:
        raise InvalidModelError(
            f"{where}: expected {n_classes} classes for {objective}, found {len(classes)}"
        )
    vtext = ".".join(str(v) for v in version) if isinstance(version, list) else "?"
    source = f"xgboost {vtext} {objective}"
    opts: dict[str, Any]
    if objective == "binary:logistic":
        opts = {"decision": "threshold", "cut": logistic_cut(), "strict": False}
    elif objective == "binary:logitraw":
        opts = {"decision": "threshold", "cut": 0.5, "strict": True}
    elif objective == "binary:hinge":
        opts = {"decision": "threshold", "cut": 0.0, "strict": True}
    elif objective == "multi:softprob":
        opts = {"decision": "softmax-argmax"}
    else:
        opts = {"decision": "argmax"}
    try:
        return GBDT(feats, classes, trees, bases, precision="float32", source=source, **opts)
    except InvalidModelError as err:
        raise InvalidModelError(f"{where}: {err}") from None


def _features(
    learner: dict[str, Any],
    n: int,
    given: Sequence[Feature | str] | None,
    doc: dict[str, Any],
    where: str,
) -> list[Feature]:
    if given is not None:
        given = list(given)
        if len(given) != n:
            raise InvalidModelError(
                f"{where}: expected {n} features (num_feature), found {len(given)}"
            )
        return [g if isinstance(g, Feature) else Feature.real(str(g)) for g in given]
    names = learner.get("feature_names") or [f"f{j}" for j in range(n)]
    types = learner.get("feature_types") or ["float"] * n
    if len(names) != n or len(types) != n:
        raise InvalidModelError(
            f"{where}: expected {n} feature names and types, found {len(names)} and {len(types)}"
        )
    cats = _category_values(learner, n)
    out = []
    for j, (name, kind) in enumerate(zip(names, types)):
        name = str(name)
        if kind == "c":
            values = cats.get(j)
            if values is None:
                values = list(range(_largest_category(learner, j) + 1))
            out.append(Feature.categorical(name, values))
        elif kind == "int":
            out.append(Feature.integer(name))
        elif kind == "i":
            out.append(Feature.boolean(name))
        else:
            out.append(Feature.real(name))
    return out


def _category_values(learner: dict[str, Any], n: int) -> dict[int, list[Any]]:
    """Per categorical feature, its category values in code order, when the model stores
    them (XGBoost >= 3.1 ``cats``)."""
    model = _booster_model(learner, "learner")
    cats = model.get("cats")
    if not isinstance(cats, dict) or not cats.get("enc"):
        return {}
    enc = cats["enc"]
    out: dict[int, list[Any]] = {}
    for j in range(min(n, len(enc))):  # one encoding per feature, empty for a numeric one
        e = enc[j] if isinstance(enc[j], dict) else {}
        values = list(e.get("values", []))
        if "offsets" in e:  # strings: their UTF-8 bytes end to end, cut at the offsets
            off = list(e["offsets"])
            text = bytes(int(c) for c in values)
            values = [text[a:b].decode("utf-8", errors="replace") for a, b in zip(off, off[1:])]
        if values:
            out[j] = values
    return out


def _largest_category(learner: dict[str, Any], j: int) -> int:
    model = _booster_model(learner, "learner")
    top = 0
    for t in model.get("trees", []):
        for node, seg, size in zip(
            t.get("categories_nodes", []),
            t.get("categories_segments", []),
            t.get("categories_sizes", []),
        ):
            if t["split_indices"][node] == j and size:
                top = max(top, max(int(c) for c in t["categories"][seg : seg + size]))
    return top


def _booster_model(learner: dict[str, Any], where: str) -> dict[str, Any]:
    gb = _get(learner, "gradient_booster", where)
    name = gb.get("name")
    if name == "gbtree":
        return _get(gb, "model", f"{where}.gradient_booster")
    if name == "dart":
        weights = gb.get("weight_drop", [])
        if any(float(x) != 1.0 for x in weights):
            raise UnsupportedModelError(
                f"{where}: a DART booster whose trees are weighted (weight_drop other than "
                f"1): expected gbtree, or dart with every weight 1"
            )
        return _get(_get(gb, "gbtree", f"{where}.gradient_booster"), "model", "gbtree")
    raise UnsupportedModelError(
        f"{where}: booster {name!r}: expected a tree booster (gbtree or dart)"
    )


def _trees(
    learner: dict[str, Any],
    features: list[Feature],
    n_scores: int,
    where: str,
    best: int | None,
) -> list[EnsembleTree]:
    model = _booster_model(learner, f"{where}: learner")
    docs = _get(model, "trees", f"{where}: gradient_booster.model", list)
    info = model.get("tree_info", [0] * len(docs))
    if len(info) != len(docs):
        raise InvalidModelError(f"{where}: tree_info has {len(info)} entries for {len(docs)} trees")
    if best is not None:  # XGBClassifier.predict uses the trees up to the best iteration
        indptr = model.get("iteration_indptr")
        if isinstance(indptr, list) and best + 1 < len(indptr):
            docs, info = docs[: indptr[best + 1]], info[: indptr[best + 1]]
        else:
            per = max(1, _int(model["gbtree_model_param"]["num_parallel_tree"], where)) * (n_scores)
            docs, info = docs[: (best + 1) * per], info[: (best + 1) * per]
    if not docs:
        raise InvalidModelError(f"{where}: expected at least one tree, found none")
    out = []
    for i, (d, k) in enumerate(zip(docs, info)):
        k = _int(k, f"{where}: tree_info[{i}]")
        if not 0 <= k < n_scores:
            raise InvalidModelError(
                f"{where}: tree {i} adds to class {k}, expected one of 0..{n_scores - 1}"
            )
        out.append(_tree(d, f"{where}: tree {i}", features, n_scores, k))
    return out


def _tree(
    doc: Any, where: str, features: list[Feature], n_scores: int, column: int
) -> EnsembleTree:
    if not isinstance(doc, dict):
        raise InvalidModelError(f"{where}: expected an object, found {type(doc).__name__}")
    param = doc.get("tree_param", {})
    if _int(param.get("size_leaf_vector", "1") or "1", where) > 1:
        raise UnsupportedModelError(
            f"{where}: vector leaves (multi_strategy='multi_output_tree'): expected one value "
            f"per leaf"
        )
    try:
        left = [int(x) for x in doc["left_children"]]
        right = [int(x) for x in doc["right_children"]]
        index = [int(x) for x in doc["split_indices"]]
        cond = [_f32(x) for x in doc["split_conditions"]]
        default = [bool(x) for x in doc["default_left"]]
        kind = [int(x) for x in doc.get("split_type", [0] * len(left))]
    except KeyError as err:
        raise InvalidModelError(f"{where}: expected the array {err.args[0]!r}") from None
    except (TypeError, ValueError) as err:
        raise InvalidModelError(f"{where}: expected numbers in the node arrays ({err})") from None
    n = len(left)
    if n == 0 or any(len(a) != n for a in (right, index, cond, default, kind)):
        raise InvalidModelError(f"{where}: expected node arrays of one length, found others")
    sets: dict[int, set[int]] = {}
    categories = doc.get("categories", [])
    for node, seg, size in zip(
        doc.get("categories_nodes", []),
        doc.get("categories_segments", []),
        doc.get("categories_sizes", []),
    ):
        sets[int(node)] = {int(c) for c in categories[int(seg) : int(seg) + int(size)]}

    feature: list[int] = []
    threshold: list[float] = []
    lefts: list[int] = []
    rights: list[int] = []
    values: list[float] = []
    missing: list[bool] = []

    def new(j: int, cut: float, leaf_value: float, miss: bool) -> int:
        feature.append(j)
        threshold.append(cut)
        lefts.append(-1)
        rights.append(-1)
        values.append(leaf_value)
        missing.append(miss)
        return len(feature) - 1

    def emit(nid: int, depth: int) -> int:
        if not 0 <= nid < n or depth > n:
            raise InvalidModelError(f"{where}: node {nid} is out of range or in a cycle")
        if left[nid] == -1:
            return new(-1, 0.0, cond[nid], False)
        j = index[nid]
        if not 0 <= j < len(features):
            raise InvalidModelError(
                f"{where}, node {nid}: feature index {j} is not one of the {len(features)} features"
            )
        if kind[nid] == 0:
            below = float(np.nextafter(np.float32(cond[nid]), np.float32(-np.inf)))
            k = new(j, float32_cut(below), 0.0, default[nid])  # float32(x) < t goes left
            lefts[k] = emit(left[nid], depth + 1)
            rights[k] = emit(right[nid], depth + 1)
            return k
        return categorical(nid, j, depth)

    def categorical(nid: int, j: int, depth: int) -> int:
        f = features[j]
        if not f.is_discrete:
            raise UnsupportedModelError(
                f"{where}, node {nid}: a categorical split on feature {f.name!r}, declared "
                f"{f.kind}: expected a categorical feature of category codes"
            )
        codes = [feature_number(f, v) for v in f.values]
        right_set = sets.get(nid, set())
        members = [feature_number(f, f.values[c]) for c in right_set if 0 <= c < len(f.values)]
        # XGBoost sends the listed categories right, the others (and NaN, by default) left
        sub = set_split_subtree(codes, members, missing_in=not default[nid])
        return graft(sub, nid, j, depth)

    def graft(sub: SetSplit | bool, nid: int, j: int, depth: int) -> int:
        if isinstance(sub, bool):
            return emit(right[nid] if sub else left[nid], depth + 1)
        k = new(j, float(sub.cut), 0.0, bool(sub.missing_left))
        lefts[k] = graft(sub.left, nid, j, depth)
        rights[k] = graft(sub.right, nid, j, depth)
        return k

    emit(0, 0)
    value = np.zeros((len(feature), n_scores))
    value[:, column] = values
    return EnsembleTree(
        np.asarray(feature, dtype=np.int64),
        np.asarray(threshold, dtype=np.float64),
        np.asarray(lefts, dtype=np.int64),
        np.asarray(rights, dtype=np.int64),
        value,
        np.asarray(missing, dtype=bool),
    )


__all__ = ["OBJECTIVES", "looks_like_xgboost", "read_ubjson", "read_xgboost"]
