"""Pictures of formal explanations with matplotlib (the ``plot`` extra).

* :func:`plot_explanation`: one AXp, a row per feature, the inflated range of its values (an
  interval drawn as a bar on the feature's own axis, normalised per feature; a value set
  listed) and the instance's value as a marker;
* :func:`plot_attribution`: one decision's formal feature attribution (a feature's share
  of the AXps that contain it), largest first;
* :func:`plot_table_attribution`: the mean attribution over a table's records, each bar
  coloured by the feature's class over the table (necessary in every row, relevant,
  irrelevant in every row);
* :func:`plot_explanation_sizes` and :func:`plot_robustness`: the distributions of AXp and
  CXp sizes and of robustness distances over a table.

Each function draws on ``ax`` (when None, on a new figure made by pyplot, whose backend the
caller chose) and returns the Axes; none calls ``show()``.  The table functions take the
records of :func:`xpg.explain_many` or ``xpg explain --data`` (any iterable of them, read
once) or their :class:`~xpg.summary.TableSummary`.  Input without the field a picture needs
raises :class:`~xpg.errors.InvalidParameterError` saying which ``--kinds`` writes it.

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> ax = plot_attribution({"a": 0.5, "b": 1.0, "c": 0.0})
>>> [t.get_text() for t in ax.get_yticklabels()], [float(p.get_width()) for p in ax.patches]
(['b', 'a', 'c'], [1.0, 0.5, 0.0])

References
----------
Yu, Farr, Ignatiev, Stuckey. Anytime Approximate Formal Feature Attribution. SAT 2024.
Izza, Ignatiev, Stuckey, Marques-Silva. Delivering Inflated Explanations. AAAI 2024.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from xpg.errors import InvalidParameterError, MissingExtraError

#: the colour of each feature class over a table, and of other bars
COLOURS = {
    "necessary": "#b2182b",
    "relevant": "#ef8a62",
    "irrelevant": "#bababa",
    "axp": "#2166ac",
    "cxp": "#ef8a62",
    "bar": "#4393c3",
}


def _axes(ax: Any, width: float, height: float) -> Any:
    """``ax``, or the axes of a new pyplot figure."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise MissingExtraError(
            "xpg.plots needs matplotlib: pip install -e '.[plot]' from a clone of xpg"
        ) from None
    if ax is not None:
        if not callable(getattr(ax, "barh", None)):
            raise InvalidParameterError(
                f"ax: expected matplotlib Axes or None, found {type(ax).__name__}"
            )
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=(width, height), layout="constrained")
    return ax


def _summary(records: Any) -> Any:
    from xpg.summary import TableSummary

    summary = TableSummary.of(records)
    if not summary.rows:
        raise InvalidParameterError("records: expected at least one record, found none")
    return summary


def _sorted(shares: Mapping[str, float]) -> list[tuple[str, float]]:
    """Largest share first; equal shares in the given order."""
    return sorted(shares.items(), key=lambda item: -item[1])


def _bars(ax: Any, items: list[tuple[str, float]], colours: list[str]) -> None:
    """Horizontal bars, the first on top, one tick label per feature."""
    ax.barh(range(len(items)), [v for _, v in items], color=colours, height=0.7)
    ax.set_yticks(range(len(items)), [name for name, _ in items], parse_math=False)
    ax.set_ylim(len(items) - 0.5, -0.5)
    ax.set_xlim(0, 1)


def plot_attribution(attribution: Mapping[str, Any], ax: Any = None) -> Any:
    """One decision's formal feature attribution as bars, largest share first.

    Parameters
    ----------
    attribution : mapping
        Feature -> share of the AXps containing it (``"attribution"`` of a record), or a
        whole record (whose row, prediction and completeness go in the title).
    ax : matplotlib Axes, optional

    Raises
    ------
    InvalidParameterError
        For a record without attribution, an empty mapping or a share outside [0, 1].
    """
    from xpg.summary import attribution_of

    record = isinstance(attribution, Mapping) and "row" in attribution
    if record:
        shares = attribution_of(attribution)
    else:
        shares = attribution_of({"row": "?", "attribution": attribution})
    if not shares:
        raise InvalidParameterError("attribution: expected a share per feature, found none")
    ax = _axes(ax, 6, 0.8 + 0.3 * len(shares))
    _bars(ax, _sorted(shares), [COLOURS["bar"]] * len(shares))
    ax.set_xlabel("share of the AXps containing the feature")
    title = "formal feature attribution"
    if record:
        title += f" of row {attribution['row']}, prediction {attribution.get('prediction')}"
        if attribution.get("attribution_complete") is False:
            title += "\n(an estimate: the enumeration stopped at its budget)"
    ax.set_title(title)
    return ax


def plot_table_attribution(records: Any, ax: Any = None) -> Any:
    """The mean formal feature attribution over a table, largest first, each bar coloured by
    the feature's class over the table (:meth:`~xpg.summary.TableSummary.classes`), with a
    legend of the classes drawn.

    Raises
    ------
    InvalidParameterError
        For no records, or records without ``"attribution"``.
    """
    from xpg.summary import CLASS_LABELS, CLASS_NAMES

    summary = _summary(records)
    means = summary.mean_attribution()
    classes = summary.classes()
    items = _sorted(means)
    ax = _axes(ax, 6, 1.2 + 0.3 * len(items))
    from matplotlib.patches import Patch  # after _axes, which says when matplotlib is missing

    colours = [COLOURS[classes.get(name, "relevant")] for name, _ in items]
    _bars(ax, items, colours)

    drawn = {classes.get(name, "relevant") for name, _ in items}
    handles = [Patch(color=COLOURS[c], label=CLASS_LABELS[c]) for c in CLASS_NAMES if c in drawn]
    ax.legend(handles=handles, loc="lower right", fontsize="small")
    ax.set_xlabel("mean share of the AXps containing the feature")
    ax.set_title(f"formal feature attribution over {summary.attribution_rows} rows")
    return ax


def plot_explanation_sizes(records: Any, ax: Any = None) -> Any:
    """How many AXps and CXps of each size the records list, side by side.

    Raises
    ------
    InvalidParameterError
        For no records, or records with neither ``"axps"`` nor ``"cxps"``.
    """
    summary = _summary(records)
    if not summary.axp_rows and not summary.cxp_rows:
        from xpg.summary import missing_field

        raise InvalidParameterError(f"no record has 'axps' or 'cxps': {missing_field('axps')}")
    ax = _axes(ax, 6, 3.5)
    shown = [
        (kind, sizes)
        for kind, sizes, rows in (
            ("axp", summary.axp_sizes, summary.axp_rows),
            ("cxp", summary.cxp_sizes, summary.cxp_rows),
        )
        if rows
    ]
    width = 0.8 / len(shown)
    for k, (kind, sizes) in enumerate(shown):
        xs = sorted(sizes)
        offset = (k - (len(shown) - 1) / 2) * width
        ax.bar(
            [x + offset for x in xs],
            [sizes[x] for x in xs],
            width=width,
            color=COLOURS[kind],
            label=f"{kind[0].upper()}X{kind[2]}s ({sum(sizes.values())})",
        )
    every = sorted(set().union(*(sizes for _, sizes in shown))) or [0]
    ax.set_xticks(every if len(every) <= 30 else every[:: math.ceil(len(every) / 30)])
    ax.set_xlabel("features in the explanation")
    ax.set_ylabel("explanations")
    ax.legend(fontsize="small")
    ax.set_title(f"explanation sizes over {max(summary.axp_rows, summary.cxp_rows)} rows")
    return ax


def plot_robustness(records: Any, ax: Any = None) -> Any:
    """A histogram of the robustness distances (the distance to the nearest input of another
    class); the rows with none (no input gets another class) are counted in the title.

    Raises
    ------
    InvalidParameterError
        For no records, or records without ``"robustness"``.
    """
    import numpy as np

    summary = _summary(records)
    if not summary.robustness_rows:
        from xpg.summary import missing_field

        raise InvalidParameterError(f"no record has 'robustness': {missing_field('robustness')}")
    ax = _axes(ax, 6, 3.5)
    distances = np.asarray(summary.distances, dtype=float)
    values = np.unique(distances)
    if len(values) and len(values) <= 30 and np.all(values == np.round(values)):
        counts = [int(np.count_nonzero(distances == v)) for v in values]  # one bar per value
        ax.bar(values, counts, width=0.8, color=COLOURS["bar"])
        ax.set_xticks(values)
    elif len(values):
        counts_, edges = np.histogram(distances, bins=min(30, len(values)))
        ax.bar(edges[:-1], counts_, width=np.diff(edges), align="edge", color=COLOURS["bar"])
    ax.set_xlabel("robustness distance")
    ax.set_ylabel("rows")
    title = f"robustness over {summary.robustness_rows} rows"
    if summary.no_distance:
        title += f"\n{summary.no_distance} with none (no input gets another class), not drawn"
    ax.set_title(title)
    return ax


# -- one explanation -------------------------------------------------------------------------------
def _inflated(record_or_inflated: Any, index: int | None) -> tuple[list[Any], str]:
    """The inflated AXp to draw (the shortest of a record's, or the given one) and a title."""
    given = record_or_inflated
    if isinstance(given, Mapping):
        row = given.get("row")
        if "inflated" not in given:
            from xpg.summary import missing_field

            why = (
                f"an error record ({given['error']})"
                if "error" in given
                else missing_field("inflated")
            )
            raise InvalidParameterError(f"row {row}: no 'inflated': {why}")
        every = given["inflated"]
        head = f"row {row}, prediction {given.get('prediction')}: "
    else:
        every, head = None, ""
    if every is None:
        if isinstance(given, Sequence) and all(isinstance(x, Mapping) for x in given):
            return list(given), "inflated AXp"
        every = given
    if not isinstance(every, Sequence) or isinstance(every, str) or not every:
        raise InvalidParameterError(
            "expected a record with 'inflated', a list of inflated AXps or one inflated AXp "
            f"(a list of {{'feature', 'condition', ...}}), found {every!r:.60}"
        )
    if index is None:
        index = min(range(len(every)), key=lambda i: len(every[i]))
    if not 0 <= index < len(every):
        raise InvalidParameterError(
            f"index: expected an AXp from 0 to {len(every) - 1}, found {index}"
        )
    return list(every[index]), f"{head}AXp {index} inflated"


def _span(item: Mapping[str, Any], value: Any) -> tuple[float, float]:
    """The stretch of a feature's axis drawn: the finite ends and the instance's value, with
    a margin on each side."""
    ends: list[Any] = [item.get("low"), item.get("high"), value]
    points = [float(v) for v in ends if _finite(v)]
    if not points:  # unbounded both ways, no instance: the whole axis
        return 0.0, 1.0
    low, high = min(points), max(points)
    margin = (high - low) * 0.25 if high > low else max(1.0, abs(low) * 0.1)
    return low - margin, high + margin


def _finite(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _check_item(item: Any, value: Any) -> None:
    if not isinstance(item, Mapping) or not isinstance(item.get("feature"), str):
        raise InvalidParameterError(
            f"expected an inflated feature {{'feature', 'condition', 'low', 'high'}} or "
            f"{{'feature', 'condition', 'values'}}, found {item!r:.60}"
        )
    if "values" in item:
        return
    ends = [item.get("low"), item.get("high")]
    if not all(e is None or _finite(e) for e in ends) or "low" not in item or "high" not in item:
        raise InvalidParameterError(
            f"feature {item['feature']!r}: expected 'low' and 'high' (numbers, or null when "
            f"unbounded) or 'values', found {item!r:.80}"
        )
    if value is not None and not _finite(value):
        raise InvalidParameterError(
            f"instance: feature {item['feature']!r} has a range: expected a number, found {value!r}"
        )


def plot_explanation(
    record_or_inflated: Any,
    instance: Mapping[str, Any] | None = None,
    ax: Any = None,
    *,
    index: int | None = None,
) -> Any:
    """One inflated AXp: a row per feature, its inflated range drawn on the feature's own
    axis (normalised per feature: the axis spans the finite ends and the instance's value,
    with a margin; an unbounded end runs to the edge), or the allowed values listed for a
    value set, its condition written above; with ``instance``, its value as a marker.

    Parameters
    ----------
    record_or_inflated : mapping or list
        A record with ``"inflated"`` (its shortest AXp is drawn, or AXp ``index``), a
        record's ``"inflated"`` list, or one inflated AXp (a list of
        ``{"feature", "condition", "low", "high", ...}`` or ``{"feature", "condition",
        "values"}``).
    instance : mapping, optional
        Feature -> the instance's value (the row of the data).
    ax : matplotlib Axes, optional
    index : int, optional
        Which AXp of a record (default: the first of the shortest).

    Raises
    ------
    InvalidParameterError
        For a record without ``"inflated"``, an item of the wrong form, or a non-numeric
        instance value of a feature with a range.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> axp = [{"feature": "x", "condition": "1 < x <= 4", "low": 1, "high": 4,
    ...         "low_inclusive": False, "high_inclusive": True},
    ...        {"feature": "c", "condition": "c in {'r', 'g'}", "values": ["r", "g"]}]
    >>> ax = plot_explanation(axp, {"x": 2, "c": "r"})
    >>> [t.get_text() for t in ax.get_yticklabels()], len(ax.patches), len(ax.lines)
    (['x', 'c'], 2, 2)
    """
    items, title = _inflated(record_or_inflated, index)
    if instance is not None and not isinstance(instance, Mapping):
        raise InvalidParameterError(
            f"instance: expected a mapping feature -> value, found {type(instance).__name__}"
        )
    values = {} if instance is None else dict(instance)
    for item in items:
        _check_item(item, values.get(item.get("feature")) if "values" not in item else None)
    ax = _axes(ax, 6, 1.0 + 0.6 * max(1, len(items)))
    marked = False
    for y, item in enumerate(items):
        value = values.get(item["feature"], None)
        if "values" in item:
            start, end = 0.0, 1.0
            where = 0.5
            shown = ", ".join(map(str, item["values"]))
            ax.text(0.5, y + 0.28, f"one of {{{shown}}}", ha="center", va="center", fontsize=8,
                    parse_math=False)  # fmt: skip
            hatch = "//"
        else:
            a, b = _span(item, value)

            def scale(v: float, a: float = a, b: float = b) -> float:
                return (v - a) / (b - a)

            start = 0.0 if item["low"] is None else scale(item["low"])
            end = 1.0 if item["high"] is None else scale(item["high"])
            where = scale(value) if value is not None else 0.5
            hatch = None
        ax.barh(y, end - start, left=start, height=0.35, color=COLOURS["axp"], alpha=0.5,
                hatch=hatch, edgecolor=COLOURS["axp"])  # fmt: skip
        ax.text(0.5, y - 0.32, str(item.get("condition", item["feature"])), ha="center",
                va="center", fontsize=8, parse_math=False)  # fmt: skip
        if item["feature"] in values:
            ax.plot([where], [y], marker="D", color="black", linestyle="none",
                    label=None if marked else "instance")  # fmt: skip
            if "values" in item:
                ax.text(where, y, f"  = {value}", va="center", fontsize=8, parse_math=False)
            marked = True
    ax.set_yticks(range(len(items)), [item["feature"] for item in items], parse_math=False)
    ax.set_ylim(len(items) - 0.4, -0.6)
    ax.set_xlim(-0.02, 1.02)
    ax.set_xticks([])
    ax.set_xlabel("each feature on its own scale")
    if marked:
        ax.legend(loc="lower right", fontsize="small")
    ax.set_title(title if items else f"{title}: empty (the prediction holds everywhere)")
    return ax
