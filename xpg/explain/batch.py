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
``null`` distance and counterexample when no input is classified otherwise).
``"attribution"`` adds ``"attribution": {"FEATURE": share, ...}``, every feature's share of the
AXps enumerated (0.0 for a feature in none), kept within what the enumeration proved, as
:func:`xpg.explain.attribution.estimated` does, and ``"attribution_complete"`` (the shares are
exact when the enumeration completed);
``"inflated"`` (which implies ``"axp"``) adds, aligned with ``"axps"``, each AXp inflated
(:mod:`xpg.explain.inflate`): per feature, in the AXp's order, ``{"feature", "condition",
"low", "high", "low_inclusive", "high_inclusive"}`` for an interval (``low``/``high`` null
when unbounded) or ``{"feature", "condition", "values"}`` for a set of values; the
inflations of a row have a time budget of their own, ``timeout`` seconds, and an AXp not
inflated within it is ``null`` (the row then has ``"complete": false``).  A row that
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

import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Literal

import numpy as np

from xpg.core.features import Feature
from xpg.errors import (
    InvalidModelError,
    InvalidParameterError,
    InvalidQueryError,
    XpgError,
)
from xpg.explain.cell_cache import DEFAULT_CELLS
from xpg.explain.marco import _checked_limit, _checked_timeout
from xpg.explain.records import (
    EncodedChunk,
    Record,
    column_values,
    convert_value,
    encode_records,
    label_text,
)

#: what a record may hold besides the prediction: the explanation lists, the feature classes,
#: the exact robustness, the formal feature attribution, the inflated AXps
KINDS: tuple[str, ...] = (
    "axp",
    "cxp",
    "conditions",
    "features",
    "robustness",
    "attribution",
    "inflated",
)

#: kinds that bring others with them (an inflated AXp is listed in ``"axps"``)
IMPLIED: dict[str, tuple[str, ...]] = {"inflated": ("axp",)}


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
    """The kinds of a record, checked: ``"axp,cxp"`` or an iterable of names (with those
    they imply, :data:`IMPLIED`).

    >>> parse_kinds("features, axp"), parse_kinds("inflated")
    (('axp', 'features'), ('axp', 'inflated'))

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
    names += [implied for k in names for implied in IMPLIED.get(k, ())]
    return tuple(k for k in KINDS if k in names)


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
        Some of ``"axp"``, ``"cxp"``, ``"conditions"``, ``"features"``, ``"robustness"``,
        ``"attribution"``, ``"inflated"`` (see :func:`parse_kinds`).
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
    cell_cache_size : int
        The most cells whose records :meth:`explain_chunk` and :meth:`explain_lines` keep
        (:mod:`xpg.explain.cell_cache`, where it applies); 0: no cache.
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
        cell_cache_size: int = DEFAULT_CELLS,
    ) -> None:
        self.kinds = parse_kinds(kinds)
        self.cell_cache_size = cell_cache_size
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
        # inflating asks about sets of values, as the robustness search does: the same routes
        if "inflated" in self.kinds and not self.explainer.supports("robustness"):
            raise InvalidQueryError(
                f"kind 'inflated': not defined on the {self.route} route (it needs a decision "
                "graph or an oracle over the cells of the features; axp, cxp, features and "
                "attribution work)"
            )
        if timeout == "auto":
            timeout = DEFAULT_ORACLE_TIMEOUT if self.route != "graph" else None
        self.timeout: float | None = timeout
        self.target = target
        self.stamp: Record = {} if model_id is None else {"model": model_id}
        # the attribution counts the AXps enumerated (inflated implies axp)
        wanted = set(self.kinds) | ({"axp"} if "attribution" in self.kinds else set())
        self._enumerated = [k for k in ("axp", "cxp") if k in wanted]

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
            record["label"] = label_text(label[1])
        if self._enumerated:
            # one kind asked for: looked for first (else the cheaper kind comes first)
            first = self._enumerated[0] if len(self._enumerated) == 1 else None
            result = decision.enumerate(limit=self.limit, timeout=self.timeout, first=first)
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
        if "attribution" in self.kinds:
            from xpg.explain.attribution import estimated

            # as xpg.feature_attribution estimates it, from the proofs this enumeration made
            tested = set(decision.oracle.tested())
            names = decision.features
            record["attribution"], _ = estimated(
                names,
                result.axps,
                result.complete,
                necessary=[x[0] for x in result.cxps if len(x) == 1],
                irrelevant=[n for v, n in enumerate(names) if v not in tested],
            )
            record["attribution_complete"] = result.complete
        if "inflated" in self.kinds:
            record["inflated"], whole = _inflated(decision, record["axps"], self.timeout)
            record["complete"] = record["complete"] and whole
        return record

    def explain_row(self, row: int, instance: Mapping[str, Any] | Sequence[Any]) -> Record:
        """The record of one row: a mapping column -> value (other columns are ignored; a
        pandas ``Series`` whose labels hold every feature is one), or the values in feature
        order (a list, a tuple, a one-dimensional array).  Anything else (a number, None,
        text, a set) gives the row an error record.

        >>> from xpg import Explainer
        >>> from xpg.examples import and_graph
        >>> BatchExplainer(Explainer(and_graph())).explain_row(3, None)["error"][:40]
        'expected a mapping (feature -> value) or'
        """
        instance = _row_form(instance, self.features)
        if isinstance(instance, str):
            return self.error_record(row, instance)
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

    def explain_frame(self, frame: Any, start: int = 0) -> Iterator[Record]:
        """The records of a pandas ``DataFrame``'s rows.  A frame indexed by unique integers
        (a ``RangeIndex``, a slice of one; the chunks of
        :func:`xpg.io.tables.iter_table_chunks`, numbered over the whole file) is numbered
        by its index; any other index (text, dates, floats, repeated values, several levels)
        numbers the rows by position, ``start``, ``start + 1``..., and each record keeps the
        row's index value as ``"index"``, after ``"row"`` (as JSON: a date as its text, a
        tuple of levels as a list).  A row marked by the table reader
        (:data:`xpg.io.tables.ERROR_COLUMN`: a line that could not be read) gets
        ``{"row", "error"}`` with the reader's message.

        >>> import pandas as pd
        >>> from xpg import Explainer
        >>> from xpg.examples import and_graph
        >>> batch = BatchExplainer(Explainer(and_graph()), kinds="axp")
        >>> frame = pd.DataFrame({"a": [1, 0], "b": [1, 1]}, index=["ann", "bob"])
        >>> [(r["row"], r["index"], r["axps"]) for r in batch.explain_frame(frame)]
        [(0, 'ann', [['a', 'b']]), (1, 'bob', [['a']])]
        """
        rows, index = _frame_rows(frame, start)
        if index is None:
            yield from self._frame_records(frame, rows)
            return
        for record, value in zip(self._frame_records(frame, rows), index, strict=True):
            yield {"row": record.pop("row"), "index": value, **record}

    def _frame_records(self, frame: Any, rows: list[int]) -> Iterator[Record]:
        from xpg.io.tables import ERROR_COLUMN

        unread = frame[ERROR_COLUMN].tolist() if ERROR_COLUMN in frame.columns else None
        if unread is not None:  # the rows the reader could not read: their own message
            good = [i for i, e in enumerate(unread) if not isinstance(e, str)]
            rest = frame.iloc[good].drop(columns=ERROR_COLUMN)
            records = self._frame_records(rest, [rows[i] for i in good])
            for i, row in enumerate(rows):
                message = unread[i]
                yield self.error_record(row, message) if isinstance(message, str) else next(records)
            return
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
        """:meth:`explain_frame` as a list (what a worker returns for one chunk); on a
        compiled graph, the rows of a cell already explained take its record
        (:mod:`xpg.explain.cell_cache`: the same records, but for ``"seconds"``)."""
        from xpg.explain.cell_cache import cache_of

        cache = cache_of(self)
        records = None if cache is None else cache.records(frame)
        return list(self.explain_frame(frame)) if records is None else records

    def explain_lines(self, frame: Any) -> EncodedChunk:
        """:meth:`explain_chunk` as JSON Lines text: a worker encodes, so that the process
        writing the output only copies text (its work is the part no worker can share)."""
        from xpg.explain.cell_cache import cache_of

        cache = cache_of(self)
        chunk = None if cache is None else cache.encoded(frame)
        return encode_records(list(self.explain_frame(frame))) if chunk is None else chunk


def _inflated(
    decision: Any, axps: list[list[str]], timeout: float | None
) -> tuple[list[Any], bool]:
    """The ``"inflated"`` field of a row: each AXp inflated in its order, within ``timeout``
    seconds for them all (None: no limit); an AXp not inflated in time is None.  Whether
    every one was."""
    from xpg.explain.decision import QueryTimeout
    from xpg.explain.inflate import inflate_decision

    deadline = None if timeout is None else time.perf_counter() + timeout
    out: list[Any] = []
    for axp in axps:
        left = None if deadline is None else max(0.0, deadline - time.perf_counter())
        try:
            found = inflate_decision(decision, axp, timeout=left)
        except QueryTimeout:
            out += [None] * (len(axps) - len(out))
            return out, False
        out.append([f.as_dict() for f in found.features])
    return out, True


def explain_rows(explainer: Any, rows: Any, *, start: int = 0, **options: Any) -> Iterator[Record]:
    """One record per row, lazily, for an :class:`~xpg.explain.engine.Explainer` (see
    :func:`xpg.explain.engine.explain_many`; ``options`` are those of
    :class:`BatchExplainer`).  The arguments are checked at the call (a bad ``kinds``,
    ``limit``, ``timeout``, ``start`` or ``rows`` raises here, not at the first ``next()``);
    the rows are read as the records are asked for.

    Raises
    ------
    InvalidQueryError
        For unknown kinds.
    InvalidParameterError
        For a bad limit, timeout or start, or ``rows`` that is no table (a number, None,
        text, a single mapping).
    """
    batch = BatchExplainer(explainer, **options)
    if isinstance(start, bool) or not isinstance(start, (int, np.integer)) or start < 0:
        raise InvalidParameterError(f"start: expected a row number from 0 up, found {start!r}")
    start = int(start)
    if hasattr(rows, "columns") and hasattr(rows, "index"):
        return batch.explain_frame(rows, start=start)
    if isinstance(rows, (str, bytes, Mapping)) or not hasattr(rows, "__iter__"):
        hint = (
            " (one row? pass [row]; columns: pandas.DataFrame(rows))"
            if isinstance(rows, Mapping)
            else ""
        )
        raise InvalidParameterError(
            "rows: expected a pandas DataFrame, a numpy array or an iterable of rows, found "
            f"{type(rows).__name__}{hint}"
        )
    return _row_records(batch, rows, start)


def _row_records(batch: BatchExplainer, rows: Iterable[Any], start: int) -> Iterator[Record]:
    for row, instance in enumerate(rows, start=start):
        yield batch.explain_row(row, instance)


#: what a row that is none says
NOT_A_ROW = "expected a mapping (feature -> value) or a sequence of values (one per feature)"


def _row_form(instance: Any, features: Sequence[Feature]) -> Any:
    """``instance`` as a mapping or a list, or the message (a ``str``) saying it is no row."""
    if isinstance(instance, Mapping):
        return instance
    if isinstance(instance, np.ndarray):
        if instance.ndim == 1:
            return instance.tolist()
        return f"{NOT_A_ROW}, found an array of shape {instance.shape}"
    if hasattr(instance, "index") and callable(getattr(instance, "to_dict", None)):
        labels = set(instance.index)  # a pandas Series: by its labels when they name the features
        if all(f.name in labels for f in features):
            return instance.to_dict()
        return instance.tolist()
    if isinstance(instance, (str, bytes, bytearray)) or not isinstance(instance, Sequence):
        return f"{NOT_A_ROW}, found {type(instance).__name__}"
    return list(instance)


def _frame_rows(frame: Any, start: int) -> tuple[list[int], list[Any] | None]:
    """A frame's row numbers, and its index values when they are not the row numbers (see
    :meth:`BatchExplainer.explain_frame`)."""
    index = frame.index
    if index.nlevels == 1 and index.dtype.kind in "iu" and index.is_unique:
        return index.tolist(), None
    return list(range(start, start + len(index))), [_json_value(v) for v in index]


def _json_value(value: Any) -> Any:
    """An index value as JSON holds it: numpy scalars as Python's, tuples as lists, other
    objects (dates) as their text."""
    if isinstance(value, tuple):
        return [_json_value(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        try:
            value = value.item()
        except (TypeError, ValueError):
            pass
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)
