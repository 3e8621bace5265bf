"""What the records of a table add up to: rows, errors, incomplete rows, time, the mean
formal feature attribution, the feature classes over the table, the explanation sizes, the
robustness distances, in one pass (:class:`TableSummary`), so that 100,000 records take no
more memory than their sums.  :mod:`xpg.plots` draws them, :mod:`xpg.report` writes them.

Examples
--------
>>> records = [
...     {"row": 0, "prediction": "1", "axps": [["a", "b"]], "cxps": [["a"], ["b"]],
...      "complete": True, "seconds": 0.5, "attribution": {"a": 1.0, "b": 1.0, "c": 0.0}},
...     {"row": 1, "prediction": "0", "axps": [["a"]], "cxps": [["a"]], "complete": True,
...      "seconds": 0.25, "attribution": {"a": 1.0, "b": 0.0, "c": 0.0}},
...     {"row": 2, "error": "feature 'b': expected one of [0, 1], found 7"},
... ]
>>> summary = TableSummary.of(records)
>>> summary.rows, summary.errors, summary.seconds
(3, 1, 0.75)
>>> summary.mean_attribution()
{'a': 1.0, 'b': 0.5, 'c': 0.0}
>>> summary.classes()
{'a': 'necessary', 'b': 'relevant', 'c': 'irrelevant'}

References
----------
Yu, Farr, Ignatiev, Stuckey. Anytime Approximate Formal Feature Attribution. SAT 2024
(formal feature attribution: a feature's share of the AXps that contain it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from xpg.errors import InvalidParameterError

#: the class of a feature over a table, by what it is in each explained row
CLASS_NAMES = ("necessary", "relevant", "irrelevant")
#: how a class over the table reads (a legend, a table)
CLASS_LABELS = {
    "necessary": "necessary in every row",
    "relevant": "relevant",
    "irrelevant": "irrelevant in every row",
}
#: the kind of ``xpg explain --kinds`` that writes each field a report uses
FIELD_KINDS = {
    "attribution": "attribution",
    "necessary": "features",
    "axps": "axp",
    "cxps": "cxp",
    "robustness": "robustness",
    "inflated": "axp,inflated",
    "conditions": "axp,conditions",
}


def missing_field(field: str) -> str:
    """What a report or a plot says of a field no record has.

    >>> missing_field("robustness")
    'not in the records: run xpg explain --kinds robustness'
    """
    return f"not in the records: run xpg explain --kinds {FIELD_KINDS.get(field, field)}"


# -- adding records up -----------------------------------------------------------------------------
# The checks below run on every record of 100,000: each is one pass in C (map, set, min).
_STR = {str}
_LIST = {list}
_SHARE = {int, float}


def _names(value: Any, field: str, row: Any) -> list[str]:
    if type(value) is not list or not set(map(type, value)) <= _STR:
        raise InvalidParameterError(
            f"row {row}: {field!r}: expected a list of feature names, found {value!r:.60}"
        )
    return value


def _lists(value: Any, field: str, row: Any) -> list[list[str]]:
    # the lists are checked, not each name in them
    if type(value) is not list or not set(map(type, value)) <= _LIST:
        raise InvalidParameterError(
            f"row {row}: {field!r}: expected a list of explanations (lists of feature names), "
            f"found {value!r:.60}"
        )
    return value


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def attribution_of(record: Mapping[str, Any]) -> dict[str, float]:
    """A record's ``"attribution"``, checked: feature -> share from 0 to 1.

    >>> attribution_of({"row": 4, "attribution": {"a": 0.5, "b": 1}})
    {'a': 0.5, 'b': 1.0}

    Raises
    ------
    InvalidParameterError
        When the record has none, or it is not a mapping of shares.
    """
    value = record.get("attribution")
    if value is None:
        why = (
            f"an error record ({record['error']})"
            if "error" in record
            else missing_field("attribution")
        )
        raise InvalidParameterError(f"row {record.get('row')}: no 'attribution': {why}")
    return _shares(value, record.get("row"))


def _shares(value: Any, row: Any) -> dict[str, float]:
    if isinstance(value, Mapping):
        shares = value.values()
        if not shares:
            return {}
        if set(map(type, shares)) <= _SHARE and min(shares) >= 0 and max(shares) <= 1:
            return (
                dict(value)
                if set(map(type, shares)) == {float}
                else {k: float(v) for k, v in value.items()}
            )
    raise InvalidParameterError(
        f"row {row}: 'attribution': expected feature -> share from 0 to 1, found {value!r:.80}"
    )


class TableSummary:
    """What the records of a table add up to, in one pass (:meth:`add` each record).

    Parameters
    ----------
    features : sequence of str, optional
        The model's features, in its order; others met in the records come after them.

    Attributes
    ----------
    rows, errors, incomplete : int
        Records, error records, and records whose enumeration or attribution stopped at a
        budget (``"complete"`` or ``"attribution_complete"`` false).
    seconds : float
        The sum of the records' ``"seconds"``.
    fields : set of str
        Every field of some record.
    attribution_rows, class_rows : int
        The records with an attribution, with feature classes (or an attribution).
    axp_rows, cxp_rows : int
        The records with ``"axps"``, with ``"cxps"``.
    distances : list of float
        The robustness distances (rows with one); ``no_distance`` counts the rows whose
        robustness has none (no input gets another class), ``robustness_rows`` both.
    """

    def __init__(self, features: Sequence[str] = ()) -> None:
        self._features: dict[str, None] = dict.fromkeys(features)
        self.rows = self.errors = self.incomplete = 0
        self.seconds = 0.0
        self.fields: set[str] = set()
        self._known: set[str] = set(features)
        self._shares: dict[str, float] = {}
        self._pending: list[Mapping[str, float]] = []  # attributions not yet added up
        self.attribution_rows = 0
        self._classes: tuple[Counter[str], ...] = (Counter(), Counter(), Counter())
        self._class_names: tuple[list[str], ...] = ([], [], [])  # not yet counted
        self.class_rows = 0
        self._axp_sizes: Counter[int] = Counter()
        self._cxp_sizes: Counter[int] = Counter()
        self._axp_lengths: list[int] = []  # not yet counted
        self._cxp_lengths: list[int] = []
        self.axp_rows = self.cxp_rows = 0
        self.distances: list[float] = []
        self.no_distance = 0
        self.robustness_rows = 0

    @classmethod
    def of(cls, records: Iterable[Any], features: Sequence[str] = ()) -> TableSummary:
        """The summary of ``records`` (mappings, as :func:`xpg.explain_many` yields); a
        summary is returned as it is.

        Raises
        ------
        InvalidParameterError
            For something that is not a record, or a field of the wrong form.
        """
        if isinstance(records, TableSummary):
            return records
        if isinstance(records, (str, bytes, Mapping)) or not hasattr(records, "__iter__"):
            raise InvalidParameterError(
                "records: expected an iterable of records of xpg explain (mappings with a "
                f"row number), found {type(records).__name__}"
            )
        summary = cls(features)
        for record in records:
            summary.add(record)
        return summary

    def add(self, record: Mapping[str, Any]) -> None:
        """Add one record.

        Raises
        ------
        InvalidParameterError
            For something that is not a record, or a field of the wrong form.
        """
        if not isinstance(record, Mapping) or "row" not in record:
            raise InvalidParameterError(
                "expected a record of xpg explain (a mapping with a row number), found "
                f"{record!r:.60}"
            )
        self.rows += 1
        if not self.rows % 4096:
            self._flush()
        self.fields.update(record)
        if "error" in record:
            self.errors += 1
            return
        row = record["row"]
        seconds = record.get("seconds")
        if isinstance(seconds, (int, float)):
            self.seconds += float(seconds)
        if record.get("complete") is False or record.get("attribution_complete") is False:
            self.incomplete += 1
        shares = None
        if "attribution" in record:
            shares = _shares(record["attribution"], row)
            self.attribution_rows += 1
            self._names(shares)
            self._pending.append(shares)
        if "necessary" in record:
            self._count_classes([_names(record.get(c, []), c, row) for c in CLASS_NAMES])
        elif shares is not None and record.get("attribution_complete") is not False:
            # exact shares: a feature in every AXp has the share 1, in none 0 (an estimate
            # says neither)
            self._count_classes(
                [
                    [n for n, s in shares.items() if s == 1.0],
                    [n for n, s in shares.items() if 0.0 < s < 1.0],
                    [n for n, s in shares.items() if s == 0.0],
                ]
            )
        if "axps" in record:
            self.axp_rows += 1
            axps = _lists(record["axps"], "axps", row)
            self._axp_lengths.extend(map(len, axps))
            if shares is None and "necessary" not in record:  # else they name every feature
                for axp in axps:
                    self._names(axp)
        if "cxps" in record:
            self.cxp_rows += 1
            self._cxp_lengths.extend(map(len, _lists(record["cxps"], "cxps", row)))
        if "robustness" in record:
            found = record["robustness"]
            distance = found.get("distance") if isinstance(found, Mapping) else found
            if distance is not None and not _number(distance):
                raise InvalidParameterError(
                    f"row {row}: 'robustness': expected {{'distance': a number or null, ...}}, "
                    f"found {found!r:.60}"
                )
            self.robustness_rows += 1
            if distance is None:
                self.no_distance += 1
            else:
                self.distances.append(float(distance))

    def _names(self, names: Iterable[str]) -> None:
        """Note the features ``names`` (in order, after those known)."""
        if not self._known.issuperset(names):
            self._features.update(dict.fromkeys(names))
            self._known.update(names)

    def _count_classes(self, groups: list[list[str]]) -> None:
        self.class_rows += 1
        for waiting, names in zip(self._class_names, groups):
            waiting.extend(names)
            self._names(names)

    def _flush(self) -> None:
        """Count what waits (a few calls in C for thousands of records): the sizes, the
        feature classes, and the attributions, those laid out alike (every record of a
        model names its features in one order) as the columns of one array."""
        import numpy as np

        self._axp_sizes.update(self._axp_lengths)
        self._cxp_sizes.update(self._cxp_lengths)
        self._axp_lengths, self._cxp_lengths = [], []
        for counter, waiting in zip(self._classes, self._class_names):
            counter.update(waiting)
            waiting.clear()

        by_layout: dict[tuple[str, ...], list[list[float]]] = {}
        for shares in self._pending:
            by_layout.setdefault(tuple(shares), []).append(list(shares.values()))
        self._pending = []
        sums = self._shares
        for names, rows in by_layout.items():
            for name, total in zip(names, np.asarray(rows, dtype=float).sum(axis=0).tolist()):
                sums[name] = sums.get(name, 0.0) + total

    @property
    def features(self) -> list[str]:
        """The features: the model's, then those met in the records, in order."""
        return list(self._features)

    @property
    def axp_sizes(self) -> Counter[int]:
        """How many AXps of each size the records list."""
        self._flush()
        return self._axp_sizes

    @property
    def cxp_sizes(self) -> Counter[int]:
        """How many CXps of each size the records list."""
        self._flush()
        return self._cxp_sizes

    @property
    def class_counts(self) -> dict[str, list[int]]:
        """Feature -> in how many rows it is necessary, relevant, irrelevant (the features
        of some record's classes, in :attr:`features` order)."""
        self._flush()
        counted = set().union(*self._classes)
        return {f: [c[f] for c in self._classes] for f in self.features if f in counted}

    def mean_attribution(self) -> dict[str, float]:
        """Each feature's mean share over the rows with an attribution (0.0 for a feature in
        none of their AXps), in :attr:`features` order.

        Raises
        ------
        InvalidParameterError
            When no record has an attribution.
        """
        if not self.attribution_rows:
            raise InvalidParameterError(
                f"no record has 'attribution': {missing_field('attribution')}"
            )
        self._flush()
        n = self.attribution_rows
        return {f: self._shares[f] / n for f in self.features if f in self._shares}

    def classes(self) -> dict[str, str]:
        """Each feature's class over the table: ``"necessary"`` when it is necessary in every
        explained row (in every AXp of each), ``"irrelevant"`` when it is irrelevant in
        every row (in no AXp), ``"relevant"`` otherwise; from the records' ``"necessary"``,
        ``"relevant"`` and ``"irrelevant"``, else from their complete attribution
        (necessary: share 1, irrelevant: share 0; an incomplete one proves neither).

        Raises
        ------
        InvalidParameterError
            When no record has either.
        """
        if not self.class_rows:
            raise InvalidParameterError(
                f"no record has feature classes or attribution: {missing_field('necessary')}"
            )
        out = {}
        for name, (necessary, _, irrelevant) in self.class_counts.items():
            out[name] = (
                "necessary"
                if necessary == self.class_rows
                else "irrelevant"
                if irrelevant == self.class_rows
                else "relevant"
            )
        return out
