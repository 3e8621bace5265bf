"""Rows of the same cell share their explanations: a batch's records by cell, cached.

On a compiled decision graph, an instance's explanation graph
(:meth:`~xpg.core.xpgraph.ExplanationGraph.from_decision_graph`) depends on the instance only
through which edges' literals it satisfies (:meth:`~xpg.core.edge_table.EdgeTable.satisfied`):
two rows satisfying the same literals, the same *cell*, get the same prediction, AXps, CXps,
``"complete"`` and feature classes.  :class:`CellCache` computes the cell of every row of a
chunk at once (numpy, the edge table's own comparisons), explains one row per cell not seen
before (:meth:`~xpg.explain.batch.BatchExplainer._record`) and writes the records of the other
rows of the cell from its record's text: the record of a row is byte for byte the one it gets
explained alone, but for ``"seconds"``.

``"seconds"`` of a row answered from the cache is the time the chunk spent on such rows (their
cells, the look-ups, their records), shared evenly among them; a row explained has its own
time, as without the cache.

The cache applies only where it is exact (:func:`applies`): the graph route, no time limit per
row (a timed-out enumeration's ``"complete"`` depends on the machine), and kinds among
``"axp"``, ``"cxp"`` and ``"features"`` (a counterexample's values and a robustness distance
depend on the instance's values, not only on its cell).  Rows with a value that the
vectorised checks refuse (missing, out of the domain, text in a numeric column) are explained
by :meth:`~xpg.explain.batch.BatchExplainer.explain_frame`, as without the cache, so that their
error records are unchanged.

Examples
--------
>>> import pandas as pd
>>> from xpg import Explainer
>>> from xpg.examples import and_graph
>>> from xpg.explain.batch import BatchExplainer
>>> batch = BatchExplainer(Explainer(and_graph()))
>>> cache = CellCache(batch)
>>> chunk = cache.encoded(pd.DataFrame({"a": [1, 1, 0], "b": [1, 1, 7]}))
>>> chunk.rows, chunk.errors, len(cache)
(3, 1, 1)
>>> print(chunk.text.splitlines()[1].split(', "seconds"')[0])
{"row": 1, "prediction": "1", "axps": [["a", "b"]], "cxps": [["a"], ["b"]], "complete": true
"""

from __future__ import annotations

import contextlib
import json
import time
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from xpg.errors import XpgError
from xpg.io.tables import ERROR_COLUMN

if TYPE_CHECKING:
    from xpg.explain.records import EncodedChunk, Record

# The batch explainer is typed ``Any`` here: xpg.explain.batch imports this module, and no
# module imports another back (not even for type checkers).

#: the most cells kept (the least recently used go first): a few hundred bytes of text each
DEFAULT_CELLS = 50_000

#: the kinds whose record depends only on the cell
CELL_KINDS = frozenset({"axp", "cxp", "features", "attribution"})

_MISSING = object()

#: the fields of a record that are not the cell's
_OWN_FIELDS = ("row", "label", "seconds")


def applies(batch: Any) -> bool:
    """True when ``batch``'s records are functions of the rows' cells (see the module's
    docstring): a compiled graph with the model's features, no time limit, kinds among
    axp, cxp and features, and the records of :class:`~xpg.explain.batch.BatchExplainer`
    itself (a subclass that changes how a row is explained is left to do so)."""
    from xpg.core.graph import DecisionGraph

    graph = getattr(batch.explainer, "graph", None)
    return (
        isinstance(graph, DecisionGraph)
        and batch.route == "graph"
        and batch.timeout is None
        and set(batch.kinds) <= CELL_KINDS
        and list(graph.features) == list(batch.features)
        and all(_own(type(batch), name) for name in ("_record", "_explained", "explain_frame"))
    )


def _own(cls: type, name: str) -> bool:
    """Is ``cls``'s method ``name`` BatchExplainer's own?  (By where it is defined: a
    subclass may stand in for the name ``BatchExplainer`` itself.)"""
    method = getattr(cls, name)
    return bool(
        method.__module__ == "xpg.explain.batch" and method.__qualname__ == f"BatchExplainer.{name}"
    )


def cache_of(batch: Any) -> CellCache | None:
    """``batch``'s cache, made on first use (None when :func:`applies` does not hold, or when
    ``batch.cell_cache_size`` is 0: no cache).

    >>> from xpg import Explainer
    >>> from xpg.examples import and_graph
    >>> from xpg.explain.batch import BatchExplainer
    >>> batch = BatchExplainer(Explainer(and_graph()))
    >>> robust = BatchExplainer(batch.explainer, kinds="robustness")
    >>> cache_of(batch) is cache_of(batch), cache_of(robust)
    (True, None)
    """
    found = batch.__dict__.get("_cells", False)
    if found is False:
        size = batch.cell_cache_size
        found = CellCache(batch, size) if size and applies(batch) else None
        batch.__dict__["_cells"] = found
    return found  # type: ignore[no-any-return]


class Entry(NamedTuple):
    """A cell's record: as text pieces, ``head`` (``"prediction": ...``) and ``rest`` (the
    fields after the label, up to ``"seconds"``); whether the row stopped at its budget; the
    prediction and the other fields of the cell, as values."""

    head: str
    rest: str
    incomplete: bool
    prediction: str
    fields: Record


class CellCache:
    """The records of a batch's rows by cell (a bounded LRU cache), for chunks of rows.

    Parameters
    ----------
    batch : BatchExplainer
        Its records are cached; :func:`applies` must hold.
    size : int
        The most cells kept.
    """

    def __init__(self, batch: Any, size: int = DEFAULT_CELLS) -> None:
        from xpg.core.edge_table import edge_table

        self.batch = batch
        self.size = size
        dg = batch.explainer.graph
        self.features = list(dg.features)
        t = edge_table(dg)
        self.table = t
        edges = np.concatenate([t.code_edge, t.num_edge, t.iv_edge])
        order = np.argsort(edges, kind="stable")
        self._order = order
        _, self._starts = np.unique(edges[order], return_index=True)
        self.entries: OrderedDict[bytes, Entry | None] = OrderedDict()
        self._stamp = "".join(f", {json.dumps(k)}: {json.dumps(v)}" for k, v in batch.stamp.items())

    def __len__(self) -> int:
        return len(self.entries)

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["entries"] = OrderedDict()  # a cache is not worth its bytes in a pickle
        return state

    # -- cells ------------------------------------------------------------------------------------
    def _columns(self, frame: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[list[Any]]]:
        """Per row of ``frame``: whether every value passes the vectorised checks, the code
        of each discrete value and the number of each other value (as
        :meth:`~xpg.core.edge_table.EdgeTable.satisfied` compares them), and the values."""
        from xpg.explain.records import column_values, convert_value

        n = len(frame)
        good = np.ones(n, dtype=bool)
        codes = np.full((n, len(self.features)), -1, dtype=np.int64)
        numbers = np.full((n, len(self.features)), np.nan)
        values: list[list[Any]] = []
        for i, f in enumerate(self.features):
            column = frame[f.name]
            if f.is_discrete and column.dtype.kind not in "biuf":
                import pandas as pd

                inverse, uniques = pd.factorize(column, use_na_sentinel=True)
                converted: list[Any] = []
                unique_codes = np.full(len(uniques) + 1, -1, dtype=np.int64)
                for j, u in enumerate(uniques.tolist()):
                    try:
                        converted.append(convert_value(f, u))
                    except XpgError:
                        converted.append(None)
                        continue
                    unique_codes[j] = f.code(converted[-1])
                row_codes = unique_codes[inverse]  # NA: -1, the last slot
                ok = row_codes >= 0
                converted.append(None)
                column_list = [converted[j] for j in inverse.tolist()]
            else:
                column_list, ok = column_values(f, column)
                if f.is_discrete:
                    row_codes = np.asarray(
                        [f.code(v) if k else -1 for v, k in zip(column_list, ok.tolist())],
                        dtype=np.int64,
                    )
                else:
                    try:
                        numbers[:, i] = np.asarray(column_list, dtype=np.float64)
                    except (TypeError, ValueError, OverflowError):
                        ok = np.zeros(n, dtype=bool)
                    ok = ok & np.isfinite(numbers[:, i])
            if f.is_discrete:
                codes[:, i] = row_codes
            good &= ok
            values.append(column_list)
        return good, codes, numbers, values

    def cells(self, codes: np.ndarray, numbers: np.ndarray) -> np.ndarray:
        """Each row's cell: which edges' literals it satisfies, packed in bytes (rows of
        ``codes``, ``numbers`` as :meth:`_columns` gives them)."""
        t = self.table
        parts = [
            codes[:, t.code_feature] == t.code_value,
            numbers[:, t.num_feature] == t.num_value,
        ]
        v = numbers[:, t.iv_feature]
        parts.append(
            ((v > t.iv_low) | (t.iv_low_closed & (v == t.iv_low)))
            & ((v < t.iv_high) | (t.iv_high_closed & (v == t.iv_high)))
        )
        matched = np.concatenate(parts, axis=1)[:, self._order]
        if matched.shape[1] == 0:
            return np.zeros((len(codes), 1), dtype=np.uint8)
        label = np.logical_or.reduceat(matched, self._starts, axis=1)
        return np.packbits(label, axis=1)

    # -- records --------------------------------------------------------------------------------
    def _entry(self, record: Record) -> Entry | None:
        """The cell's part of ``record``, or None when the template would not rebuild it
        exactly (a field the template does not foresee): then each row is explained."""
        if "error" in record or "prediction" not in record:
            return None
        stamp = self.batch.stamp
        fields = {k: v for k, v in record.items() if k not in _OWN_FIELDS and k not in stamp}
        prediction = fields.pop("prediction")
        head = '"prediction": ' + json.dumps(prediction)
        rest = "".join(f", {json.dumps(k)}: {json.dumps(v)}" for k, v in fields.items())
        entry = Entry(head, rest, fields.get("complete") is False, prediction, fields)
        label = f', "label": {json.dumps(record["label"])}' if "label" in record else ""
        if self._line(record["row"], entry, label, repr(record["seconds"])) != (
            json.dumps(record) + "\n"
        ):
            return None
        return entry

    def _line(self, row: int, entry: Entry, label: str, seconds: str) -> str:
        return (
            f'{{"row": {row}, {entry.head}{label}{entry.rest}, "seconds": {seconds}'
            f"{self._stamp}}}\n"
        )

    def _explain(self, frame: Any) -> tuple[list[Any], list[Any] | None, float] | None:
        """Per row of ``frame``, its record (a row explained), or ``(row, position, label
        text, entry)`` for a row answered from the cache; the target column's values; the
        seconds of each row answered from the cache.  None when the cache does not apply to
        this frame."""
        from xpg.explain.records import label_text

        batch = self.batch
        index = frame.index
        if index.nlevels != 1 or index.dtype.kind not in "iu" or not index.is_unique:
            return None  # rows numbered by position, with their "index": explain_frame's
        names = set(frame.columns)
        if any(f.name not in names for f in self.features):
            return None
        start = time.perf_counter()
        rows = frame.index.tolist()
        good, codes, numbers, values = self._columns(frame)
        if ERROR_COLUMN in names:  # a line the reader could not read: explain_frame says so
            good &= frame[ERROR_COLUMN].isna().to_numpy()
        out: list[Any] = [None] * len(rows)
        spent = 0.0  # by the rows explained, on their own
        bad = np.flatnonzero(~good)
        if len(bad):
            for p, record in zip(bad.tolist(), batch.explain_frame(frame.iloc[bad]), strict=True):
                out[p] = record
                spent += record.get("seconds", 0.0)
        positions = np.flatnonzero(good)
        has_label = batch.target is not None and batch.target in names
        labels = frame[batch.target].tolist() if has_label else None
        if len(positions):
            packed = np.ascontiguousarray(self.cells(codes[positions], numbers[positions]))
            keys = packed.view(np.dtype((np.void, packed.shape[1]))).ravel()
            uniq, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
            found: list[Entry | None] = []
            entries = self.entries
            for u, p in zip(uniq.tolist(), positions[first].tolist(), strict=True):
                key = bytes(u)
                known = entries.get(key, _MISSING)
                if known is not _MISSING:
                    with contextlib.suppress(KeyError):  # evicted by another thread meanwhile
                        entries.move_to_end(key)
                    found.append(known)  # type: ignore[arg-type]
                    continue
                record = self._record(rows[p], p, values, labels)
                spent += record.get("seconds", 0.0)
                out[p] = record
                entry = self._entry(record)
                found.append(entry)
                entries[key] = entry
                while len(entries) > self.size:
                    with contextlib.suppress(KeyError):
                        entries.popitem(last=False)
            texts: dict[tuple[type, Any], str] = {}
            for p, u in zip(positions.tolist(), inverse.ravel().tolist(), strict=True):
                if out[p] is not None:
                    continue
                entry = found[u]
                if entry is None:  # a cell whose rows are explained one by one
                    record = self._record(rows[p], p, values, labels)
                    spent += record.get("seconds", 0.0)
                    out[p] = record
                    continue
                label = ""
                if labels is not None:
                    value = labels[p]
                    key_ = (type(value), value)
                    try:
                        label = texts[key_]
                    except (KeyError, TypeError):
                        label = f', "label": {json.dumps(label_text(value))}'
                        try:
                            texts[key_] = label
                        except TypeError:  # an unhashable value
                            pass
                out[p] = (rows[p], p, label, entry)
        hits = sum(type(r) is tuple for r in out)
        share = max(time.perf_counter() - start - spent, 0.0) / hits if hits else 0.0
        return out, labels, share

    def _record(self, row: int, p: int, values: list[list[Any]], labels: Any) -> Record:
        label = (labels is not None, labels[p] if labels is not None else None)
        return self.batch._record(row, [column[p] for column in values], label, converted=True)

    def encoded(self, frame: Any) -> EncodedChunk | None:
        """The records of ``frame``'s rows as JSON Lines, or None when the cache does not
        apply to the frame (an index that is not of distinct integers, a feature without a
        column)."""
        from xpg.explain.records import EncodedChunk, chunk_counts

        found = self._explain(frame)
        if found is None:
            return None
        out, _, share = found
        seconds = repr(share)
        lines: list[str] = []
        records: list[Record] = []
        incomplete = 0
        line = self._line
        for item in out:
            if type(item) is tuple:
                row, _, label, entry = item
                lines.append(line(row, entry, label, seconds))
                incomplete += entry.incomplete
            else:
                records.append(item)
                lines.append(json.dumps(item) + "\n")
        errors, own_incomplete, own_seconds = chunk_counts(records)
        hits = len(out) - len(records)
        return EncodedChunk(
            "".join(lines),
            len(out),
            errors,
            incomplete + own_incomplete,
            own_seconds + share * hits,
        )

    def records(self, frame: Any) -> list[Record] | None:
        """The records of ``frame``'s rows, or None when the cache does not apply to it."""
        from xpg.explain.records import label_text

        found = self._explain(frame)
        if found is None:
            return None
        out, labels, share = found
        stamp = self.batch.stamp
        records: list[Record] = []
        for item in out:
            if type(item) is not tuple:
                records.append(item)
                continue
            row, p, _, entry = item
            record: Record = {"row": row, "prediction": entry.prediction}
            if labels is not None:
                record["label"] = label_text(labels[p])
            for k, v in entry.fields.items():  # lists copied: each record is its own
                record[k] = [list(x) for x in v] if k in ("axps", "cxps") else _copy(v)
            record["seconds"] = share
            record.update(stamp)
            records.append(record)
        return records


def _copy(value: Any) -> Any:
    return list(value) if isinstance(value, list) else value


__all__ = ["CELL_KINDS", "DEFAULT_CELLS", "CellCache", "applies", "cache_of"]
