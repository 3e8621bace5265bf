"""Explain many rows of data: one record per row, the model compiled once.

Each row is converted to the model's feature domains, its explanation graph is built
(:meth:`~xpg.core.xpgraph.ExplanationGraph.from_decision_graph`) and every AXp and CXp is
enumerated (:func:`~xpg.explain.marco.enumerate_explanations`).  A record is the
``xpg enum --json`` document of the row with the row number and the prediction in front::

    {"row": 17, "prediction": "1", "axps": [["a", "b"]], "cxps": [["a"], ["b"]],
     "complete": true, "seconds": 0.0004}

Feature names are sorted inside each explanation; the lists keep the order in which the
enumeration found them.  ``"label"`` (the target column's value, as text) follows the
prediction when a target column is named and present; ``kinds`` containing ``"features"``
adds ``"necessary"``, ``"relevant"`` and ``"irrelevant"`` (sorted names,
:func:`~xpg.explain.relevance.classify_features`); ``"conditions"`` says what
the explanations mean, as ``xpg enum --json`` does: ``"conditions"`` aligned with ``"axps"``
(the condition each feature satisfies, ``"proline > 900.5"``), ``"counterexamples"`` and
``"counterexample_classes"`` aligned with ``"cxps"``
(:func:`~xpg.explain.describe.explanation_conditions`; opt-in: describing can cost more
than enumerating on small trees), and ``"robustness"`` adds
``"robustness": {"distance": ..., "counterexample": {...}, "counterexample_class": ...}``
(:func:`~xpg.explain.exact_robustness.robustness`, as ``xpg robustness --json`` prints it;
``null`` distance and counterexample when no input is classified otherwise).  A row that
cannot be explained (a missing feature, a value outside its domain, NaN) gives
``{"row": 17, "error": "..."}`` and the rows after it are explained as usual.

Each row is one decision of an :class:`~xpg.explain.engine.Explainer` (made for many rows:
a tree ensemble is compiled when it fits its budget; a model that does not compile, or a kind
explained by its own oracle, gets one oracle per row, made and closed inside
:meth:`BatchExplainer.explain_row`, so that what workers receive is the model, never a
solver).  The records are the same on every route, field by field; ``"robustness"`` is
refused up front (:class:`~xpg.errors.InvalidQueryError`) where the route cannot search
distances.

Each row's enumeration has a budget, so that no row runs unbounded: at most
:data:`DEFAULT_LIMIT` explanations (AXps and CXps together) by default, and on the oracle
routes (ensemble, list) at most :data:`DEFAULT_ORACLE_TIMEOUT` seconds (a compiled graph's rows
take milliseconds: no time limit, which would cost a timer thread per row).  A row that reaches it
has ``"complete": false``; ``limit=None, timeout=None`` lists every explanation.

Examples
--------
>>> from xpg import Explainer
>>> from xpg.examples import and_graph
>>> rows = [{"a": 1, "b": 1}, {"a": 0, "b": 1}, {"a": 1, "b": 7}]
>>> for record in explain_rows(Explainer(and_graph()), rows):
...     print({k: v for k, v in record.items() if k != "seconds"})
{'row': 0, 'prediction': '1', 'axps': [['a', 'b']], 'cxps': [['a'], ['b']], 'complete': True}
{'row': 1, 'prediction': '0', 'axps': [['a']], 'cxps': [['a']], 'complete': True}
{'row': 2, 'error': "feature 'b': expected one of [0, 1], found 7"}

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Def. 3 (explanation graphs) and Alg. 4 (enumeration).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Literal, NamedTuple

import numpy as np

from xpg.core.features import Feature
from xpg.errors import InvalidInstanceError, InvalidModelError, InvalidQueryError, XpgError
from xpg.explain.marco import _checked_limit, _checked_timeout

#: what a record may hold besides the prediction: the explanation lists, the feature classes,
#: the exact robustness
KINDS: tuple[str, ...] = ("axp", "cxp", "conditions", "features", "robustness")

Record = dict[str, Any]

#: the default budget of each row: explanations (AXps and CXps together)...
DEFAULT_LIMIT = 100
#: ... and seconds, on the oracle routes (a tree ensemble or a decision list too large to
#: compile); a compiled graph's rows have no default time limit
DEFAULT_ORACLE_TIMEOUT = 10.0


def _is_interrupt(err: BaseException) -> bool:
    """An error that stands for Ctrl-C: z3 catches SIGINT during a check and answers
    "unknown" (the ensemble oracle then raises an :class:`InvalidQueryError` saying so), and
    python-sat may raise its own error; neither lets Python see the signal."""
    text = str(err).lower()
    if isinstance(err, XpgError):
        return "interrupted from keyboard" in text
    return type(err).__module__ == "pysolvers" and "keyboard interrupt" in text


def parse_kinds(kinds: str | Iterable[str]) -> tuple[str, ...]:
    """The kinds of a record, checked: ``"axp,cxp"`` or an iterable of names.

    >>> parse_kinds("features, axp")
    ('axp', 'features')

    Raises
    ------
    InvalidQueryError
        For an unknown or empty list of kinds.
    """
    names = [k.strip() for k in kinds.split(",")] if isinstance(kinds, str) else list(kinds)
    names = [k for k in names if k]
    for k in names:
        if k not in KINDS:
            raise InvalidQueryError(f"unknown kind {k!r}; expected some of {', '.join(KINDS)}")
    if not names:
        raise InvalidQueryError(f"no kind given; expected some of {', '.join(KINDS)}")
    return tuple(k for k in KINDS if k in names)


def _is_missing(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, (float, np.floating)):
        return math.isnan(value)
    return type(value).__name__ in ("NAType", "NaTType")  # pandas' NA and NaT, unimported


def convert_value(feature: Feature, value: Any) -> Any:
    """``value`` (a Python, numpy or pandas scalar, or text) as a value of ``feature``.

    >>> import numpy as np
    >>> convert_value(Feature.integer("n", 0, 9), np.float64(3.0))
    3
    >>> convert_value(Feature.categorical("c", [1, 2]), "2")
    2

    Raises
    ------
    InvalidInstanceError
        For a missing value (None, NaN) or a value outside the feature's domain.
    """
    if _is_missing(value):
        raise InvalidInstanceError(f"feature {feature.name!r}: missing value (NaN or empty)")
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()  # numpy scalar -> Python
    if feature.is_discrete:
        if isinstance(value, str):
            return feature.parse_value(value)
        if isinstance(value, bool):
            value = int(value)
        try:
            return feature.values[feature.code(value)]  # 1.0 -> the declared 1
        except (KeyError, TypeError):
            if isinstance(value, float) and value.is_integer():
                value = int(value)  # 7, not 7.0, when a missing value made the column float
            raise InvalidInstanceError(
                f"feature {feature.name!r}: expected one of {list(feature.values)!r}, "
                f"found {value!r}"
            ) from None
    return feature.check_value(value.strip() if isinstance(value, str) else value)


def column_values(feature: Feature, column: Any) -> tuple[list[Any], np.ndarray]:
    """A pandas column's values as values of ``feature``, checked with numpy when the column
    is numeric, and which of them are good; the others (and every value of a text column)
    are left to :func:`convert_value`, whose error names the value at fault.

    >>> import pandas as pd
    >>> values, ok = column_values(Feature.integer("n", 0, 9), pd.Series([1.0, 2.5, None]))
    >>> values[0], ok.tolist()
    (1, [True, False, False])
    """
    kind = column.dtype.kind
    if kind not in "biuf":
        return column.tolist(), np.zeros(len(column), dtype=bool)
    a = column.to_numpy(dtype=np.float64)
    if feature.is_discrete:
        numeric = [v for v in feature.values if isinstance(v, (int, float))]
        canonical = {float(v): v for v in numeric}
        ok = np.isin(a, np.asarray(numeric, dtype=np.float64))
        return [canonical.get(x) for x in a.tolist()], ok
    with np.errstate(invalid="ignore"):
        ok = np.isfinite(a) & (a >= feature.low) & (a <= feature.high)
        if feature.kind != "integer":
            return a.tolist(), ok
        ok &= a == np.floor(a)
    if kind in "iu":
        return column.tolist(), ok  # exact, beyond 2**53 too
    return np.where(ok, a, 0).astype(np.int64).tolist(), ok


def _label_text(value: Any) -> str | None:
    if _is_missing(value):
        return None
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)


def _described(target: Any, axps: list[list[str]], cxps: list[list[str]]) -> Record:
    """What the explanations mean: each AXp's conditions, each CXp's counterexample and the
    class it gets (the fields ``xpg enum --json`` adds)."""
    from xpg.explain.describe import explanation_conditions, explanation_counterexample

    changes = [explanation_counterexample(target, c) for c in cxps]
    return {
        "conditions": [explanation_conditions(target, a) for a in axps],
        "counterexamples": [values for values, _ in changes],
        "counterexample_classes": [str(cls) for _, cls in changes],
    }


class BatchExplainer:
    """A compiled model and the options of a batch: turns rows into records.

    Parameters
    ----------
    explainer : Explainer
        The model's :class:`~xpg.explain.engine.Explainer` (``xpg.Explainer(model,
        many=True)``): its route policy decides how each row is explained.
    kinds : str or iterable of str
        Some of ``"axp"``, ``"cxp"``, ``"conditions"``, ``"features"``, ``"robustness"`` (see
        :func:`parse_kinds`).
    limit : int or None
        The most explanations (AXps and CXps together) listed per row; default
        :data:`DEFAULT_LIMIT`, None: no limit.
    timeout : float, None or "auto"
        The most seconds spent enumerating per row; ``"auto"`` (the default):
        :data:`DEFAULT_ORACLE_TIMEOUT` on the oracle routes, no limit on a compiled graph;
        None: no limit.  The attribute ``timeout`` holds the value in force.
    target : str, optional
        A column copied into each record as ``"label"`` when the row has it.
    model_id : str, optional
        Added to every record as its last field, ``"model"`` (``xpg explain`` writes the
        model file's fingerprint there, which ``--resume`` checks).
    The object is picklable: parallel routes send it to each worker once.

    Raises
    ------
    InvalidQueryError
        For ``"robustness"`` on a tree ensemble too large to compile.
    InvalidParameterError
        For a limit below 1 or a negative or infinite timeout.

    Examples
    --------
    >>> from xpg import Explainer
    >>> from xpg.examples import and_graph
    >>> explainer = BatchExplainer(Explainer(and_graph()), kinds="cxp", target="y")
    >>> record = explainer.explain_row(5, {"a": 1, "b": 0, "y": 0, "unused": "x"})
    >>> record["row"], record["prediction"], record["label"], record["cxps"]
    (5, '0', '0', [['b']])
    """

    def __init__(
        self,
        explainer: Any,
        *,
        kinds: str | Iterable[str] = ("axp", "cxp"),
        limit: int | None = DEFAULT_LIMIT,
        timeout: float | Literal["auto"] | None = "auto",
        target: str | None = None,
        model_id: str | None = None,
    ) -> None:
        self.kinds = parse_kinds(kinds)
        self.limit = _checked_limit(limit)  # checked here, not once per row in a record
        if timeout != "auto":
            timeout = _checked_timeout(timeout)
        if not callable(getattr(explainer, "explain", None)):
            raise InvalidModelError(
                f"BatchExplainer takes an xpg.Explainer (xpg.Explainer(model, many=True)), "
                f"found {type(explainer).__name__}"
            )
        self.explainer = explainer
        self.features: list[Feature] = self.explainer.features
        #: "graph" (the model compiled), or the route of its oracle
        self.route = self.explainer.route
        if "robustness" in self.kinds and not self.explainer.supports("robustness"):
            raise InvalidQueryError(
                f"kind 'robustness': not defined on the {self.route} route (axp, cxp and "
                "features work)"
            )
        if timeout == "auto":
            timeout = DEFAULT_ORACLE_TIMEOUT if self.route != "graph" else None
        self.timeout: float | None = timeout
        self.target = target
        self.stamp: Record = {} if model_id is None else {"model": model_id}
        self._enumerate = "axp" in self.kinds or "cxp" in self.kinds

    def error_record(self, row: int, message: str) -> Record:
        """``{"row", "error"}`` (and the stamp, ``"model"``, when there is one)."""
        return {"row": row, "error": message, **self.stamp}

    def _record(
        self, row: int, raw: Sequence[Any], label: tuple[bool, Any], converted: bool = False
    ) -> Record:
        start = time.perf_counter()
        try:
            values = (
                raw
                if converted
                else [convert_value(f, v) for f, v in zip(self.features, raw, strict=True)]
            )
            with self.explainer.explain(values) as decision:
                record = self._explained(row, decision, label)
                if "robustness" in self.kinds:
                    found = decision.robustness()
                    record["robustness"] = {
                        k: v for k, v in found.to_json().items() if k not in ("seconds", "route")
                    }
        except XpgError as err:
            if _is_interrupt(err):
                raise KeyboardInterrupt from None
            return self.error_record(row, " ".join(str(err).split()))
        except Exception as err:
            if _is_interrupt(err):
                raise KeyboardInterrupt from None
            raise
        record["seconds"] = time.perf_counter() - start
        if self.stamp:
            record.update(self.stamp)
        return record

    def _explained(self, row: int, decision: Any, label: tuple[bool, Any]) -> Record:
        """A record's fields from the prediction, the enumeration and the feature classes of
        one explained decision."""
        record: Record = {"row": row, "prediction": str(decision.prediction)}
        if label[0]:
            record["label"] = _label_text(label[1])
        if self._enumerate:
            result = decision.enumerate(limit=self.limit, timeout=self.timeout)
            if "axp" in self.kinds:
                record["axps"] = [sorted(x) for x in result.axps]
            if "cxp" in self.kinds:
                record["cxps"] = [sorted(x) for x in result.cxps]
            record["complete"] = result.complete
            if "conditions" in self.kinds:
                record.update(_described(decision, record.get("axps", []), record.get("cxps", [])))
        if "features" in self.kinds:
            classes = decision.classify_features()
            record["necessary"] = sorted(classes.necessary)
            record["relevant"] = sorted(classes.relevant)
            record["irrelevant"] = sorted(classes.irrelevant)
        return record

    def explain_row(self, row: int, instance: Mapping[str, Any] | Sequence[Any]) -> Record:
        """The record of one row: a mapping column -> value (other columns are ignored), or
        the values in feature order."""
        if isinstance(instance, Mapping):
            missing = [f.name for f in self.features if f.name not in instance]
            if missing:
                names = ", ".join(map(repr, missing))
                return self.error_record(row, f"the row has no value for feature(s) {names}")
            raw: Sequence[Any] = [instance[f.name] for f in self.features]
            has_label = self.target is not None and self.target in instance
            label = (has_label, instance[self.target] if has_label else None)  # type: ignore[index]
        else:
            raw = list(instance)
            if len(raw) != len(self.features):
                return self.error_record(
                    row, f"expected {len(self.features)} values (one per feature), found {len(raw)}"
                )
            label = (False, None)
        return self._record(row, raw, label)

    def explain_frame(self, frame: Any) -> Iterator[Record]:
        """The records of a pandas ``DataFrame``'s rows, numbered by its index (the chunks of
        :func:`xpg.io.tables.iter_table_chunks` are numbered over the whole file)."""
        rows = [int(i) for i in frame.index]
        columns = set(frame.columns)
        missing = [f.name for f in self.features if f.name not in columns]
        if missing:
            names = ", ".join(map(repr, missing))
            for row in rows:
                yield self.error_record(row, f"the data has no column for feature(s) {names}")
            return
        columns_ok = [column_values(f, frame[f.name]) for f in self.features]
        values = [v for v, _ in columns_ok]
        ok = np.logical_and.reduce([m for _, m in columns_ok]).tolist()
        raw = None if all(ok) else [frame[f.name].tolist() for f in self.features]
        has_label = self.target is not None and self.target in columns
        labels = frame[self.target].tolist() if has_label else [None] * len(rows)
        for i, row in enumerate(rows):
            label = (has_label, labels[i])
            if ok[i]:
                yield self._record(row, [column[i] for column in values], label, converted=True)
            else:  # the per-value path names the feature and the value at fault
                yield self._record(row, [column[i] for column in raw], label)  # type: ignore[union-attr]

    def explain_chunk(self, frame: Any) -> list[Record]:
        """:meth:`explain_frame` as a list (what a worker returns for one chunk)."""
        return list(self.explain_frame(frame))

    def explain_lines(self, frame: Any) -> EncodedChunk:
        """:meth:`explain_frame` as JSON Lines text: a worker encodes, so that the process
        writing the output only copies text (its work is the part no worker can share)."""
        return encode_records(self.explain_chunk(frame))


class EncodedChunk(NamedTuple):
    """The records of a chunk as JSON Lines text, with how many rows and errors it holds,
    how many rows stopped at their budget (``"complete": false``) and the seconds the rows
    took (their records' sum)."""

    text: str
    rows: int
    errors: int
    incomplete: int = 0
    seconds: float = 0.0


def chunk_counts(records: Sequence[Record]) -> tuple[int, int, float]:
    """Errors, rows stopped at their budget, and seconds, of some records.

    >>> chunk_counts([{"row": 0, "complete": False, "seconds": 0.5}, {"row": 1, "error": "x"}])
    (1, 1, 0.5)
    """
    errors = incomplete = 0
    seconds = 0.0
    for r in records:
        if "error" in r:
            errors += 1
            continue
        incomplete += r.get("complete") is False
        seconds += r.get("seconds", 0.0)
    return errors, incomplete, seconds


def encode_records(records: Sequence[Record]) -> EncodedChunk:
    """Records as JSON Lines (one ``json.dumps`` per line, as ``xpg enum --json`` prints).

    >>> encode_records([{"row": 3, "error": "bad"}])
    EncodedChunk(text='{"row": 3, "error": "bad"}\\n', rows=1, errors=1, incomplete=0, seconds=0.0)
    """
    text = "".join(json.dumps(r) + "\n" for r in records)
    return EncodedChunk(text, len(records), *chunk_counts(records))


def explain_rows(explainer: Any, rows: Any, *, start: int = 0, **options: Any) -> Iterator[Record]:
    """One record per row, lazily, for an :class:`~xpg.explain.engine.Explainer` (see
    :func:`xpg.explain.engine.explain_many`; ``options`` are those of
    :class:`BatchExplainer`)."""
    batch = BatchExplainer(explainer, **options)
    if hasattr(rows, "columns") and hasattr(rows, "index"):
        yield from batch.explain_frame(rows)
        return
    for row, instance in enumerate(rows, start=start):
        yield batch.explain_row(row, instance)
