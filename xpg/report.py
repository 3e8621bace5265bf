"""A static HTML report of the records of ``xpg explain --data``.

:func:`read_records` reads the records (JSON Lines, or Parquet written with ``-o
OUT.parquet``) one by one; :func:`write_report` adds them up in one pass
(:class:`~xpg.summary.TableSummary`: a report of 100,000 rows holds no more than its sums and
the rows it shows) and writes one self-contained HTML file: the summary, the plots of
:mod:`xpg.plots` as inline SVG, a sortable and filterable table of at most :data:`MAX_ROWS`
rows (every error row first, then the first rows; the page says how many it shows) and each
shown row's explanations.  Nothing in the page is fetched: inline CSS, inline SVG and a small
inline script; every text from the records (feature names, values, classes) is escaped.

Examples
--------
>>> import json, tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> lines = [{"row": 0, "prediction": "1", "axps": [["a", "b"]], "seconds": 0.5},
...          {"row": 1, "error": "feature 'b': expected one of [0, 1], found 7"}]
>>> _ = (folder / "r.jsonl").write_text("".join(json.dumps(x) + "\\n" for x in lines))
>>> [record["row"] for _, record in read_records(folder / "r.jsonl")]
[0, 1]
>>> write_report(folder / "r.jsonl", folder / "r.html").shown
2

References
----------
Yu, Farr, Ignatiev, Stuckey. Anytime Approximate Formal Feature Attribution. SAT 2024.
Izza, Ignatiev, Stuckey, Marques-Silva. Delivering Inflated Explanations. AAAI 2024.
"""

from __future__ import annotations

import html
import json
import math
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xpg.errors import InvalidParameterError, MissingExtraError, OutputError, ParseError
from xpg.summary import CLASS_LABELS, CLASS_NAMES, TableSummary, missing_field

#: the most rows the row table of a report shows (and details)
MAX_ROWS = 2_000
#: the most bytes a report takes: its row table holds fewer rows when the rows would not fit
MAX_BYTES = 4_600_000
#: the Parquet columns written as JSON text (``xpg.io.batch_output.parquet_columns``)
JSON_COLUMNS = ("counterexamples", "robustness", "attribution", "inflated", "index")

Record = dict[str, Any]


# -- reading ---------------------------------------------------------------------------------------
def read_records(path: str | os.PathLike[str]) -> Iterator[tuple[int, Record]]:
    """The records of a file written by ``xpg explain --data``, one by one, each with where it
    is (its line in JSON Lines, its position in Parquet, from 1): Parquet when the name ends
    in ``.parquet`` or the file starts with ``PAR1``, JSON Lines otherwise.  A Parquet
    record has the fields that are not null, the JSON columns decoded.

    Raises
    ------
    ParseError
        When the file cannot be read, or a line is not a record (a JSON object with a row
        number), naming the file and the line.
    MissingExtraError
        For Parquet without pyarrow.
    """
    for where, record, _ in _read(path, lambda: True):
        yield where, record


#: the fields a report reads only in the rows it shows: two thirds of a record's text with
#: "inflated" (each a list)
SHOWN_ONLY = ("inflated", "conditions", "counterexamples")


def _fast_loads() -> Any:
    """``json.loads``, or orjson's where it is installed (twice as fast on the records of
    100,000 rows), falling back to ``json.loads`` for what orjson refuses (``NaN``)."""
    try:
        import orjson
    except ImportError:
        return json.loads

    def loads(text: str) -> Any:
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            return json.loads(text)

    return loads


class _Skimmer:
    """Reads a JSON Lines record without the text of its :data:`SHOWN_ONLY` fields (each
    read as ``[]``), when it is laid out as the last record read whole: the same fields in
    the same order (as ``xpg explain`` writes them).

    The text of field ``K`` runs from ``"K": [`` to ``, "NEXT": ``, NEXT the field after it
    in the layout.  That is sound: ``"X": `` with bare quotes is a key (a quote inside a
    string is escaped); the only keys inside these lists are the fixed ones of an inflated
    feature, and a feature name used as a key elsewhere (attribution, counterexamples) has
    no list value; a cut that ends inside the list leaves its brackets unbalanced and the
    text no JSON; a cut past another field leaves the record without it.  Either way the
    record is read whole instead.
    """

    def __init__(self, loads: Any = json.loads) -> None:
        self.layout: tuple[str, ...] = ()
        self.cuts: list[tuple[str, str | None]] = []
        self.loads = loads

    def learn(self, record: Record) -> None:
        keys = tuple(record)
        if keys == self.layout:
            return
        self.layout = keys
        self.cuts = [
            (f'"{k}": [', f', "{keys[i + 1]}": ' if i + 1 < len(keys) else None)
            for i, k in enumerate(keys)
            if k in SHOWN_ONLY
        ]

    def skim(self, line: str) -> Record | None:
        if not self.cuts:
            return None
        parts = []
        at = 0
        for head, tail in self.cuts:
            i = line.find(head, at)
            if i < 0:
                return None
            j = line.find(tail, i) if tail is not None else line.rfind("}")
            if j < 0:
                return None
            parts += [line[at : i + len(head)], "]"]
            at = j
        parts.append(line[at:])
        try:
            record = self.loads("".join(parts))
        except ValueError:
            return None
        return record if type(record) is dict and tuple(record) == self.layout else None


def _read(path: str | os.PathLike[str], whole: Any) -> Iterator[tuple[int, Record, int | None]]:
    """:func:`read_records`, each record with the length of its text when it was read whole
    (0 for Parquet), None when it was skimmed: when ``whole()`` is false, a JSON Lines
    record may be (:class:`_Skimmer`)."""
    name = str(path)
    try:
        with open(name, "rb") as fh:
            head = fh.read(4)
    except OSError as err:
        raise ParseError(f"cannot read the records: {err.strerror}", path=name) from None
    if name.endswith(".parquet") or head == b"PAR1":
        for where, found in _parquet_records(name):
            yield where, found, 0
        return
    loads = _fast_loads()
    skimmer = _Skimmer(loads)
    with open(name, encoding="utf-8", errors="replace") as fh:
        for number, line in enumerate(fh, start=1):
            if not whole():
                skimmed = skimmer.skim(line)
                if skimmed is not None:
                    yield number, skimmed, None
                    continue
            record: Any
            try:
                record = loads(line)
            except json.JSONDecodeError:
                if not line.strip():
                    continue
                record = None
            row = record.get("row") if type(record) is dict else None
            if type(row) is not int or row < 0:
                _check_record(record, name, number, line)
            if "error" not in record:
                skimmer.learn(record)
            yield number, record, len(line)


def _check_record(record: Any, path: str, where: int, text: Any) -> None:
    row = record.get("row") if isinstance(record, dict) else None
    if isinstance(row, bool) or not isinstance(row, int) or row < 0:
        shown = text if isinstance(text, str) else text.decode("utf-8", "replace")
        shown = shown.strip()
        shown = shown[:60] + ("..." if len(shown) > 60 else "")
        raise ParseError(
            f"expected a record of xpg explain --data (a JSON object with a row number), "
            f"found {shown!r}",
            path=path,
            line=where,
        )


def _parquet_records(path: str) -> Iterator[tuple[int, Record]]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise MissingExtraError(
            f"{path}: reading Parquet records needs pyarrow: pip install -e '.[scale]' from a "
            "clone of xpg"
        ) from None
    try:
        source = pq.ParquetFile(path)
    except Exception as err:  # pyarrow raises ArrowInvalid, OSError...
        raise ParseError(f"not a Parquet file of records: {err}", path=path) from None
    where = 0
    for batch in source.iter_batches(batch_size=8192):
        for raw in batch.to_pylist():
            where += 1
            record = {k: v for k, v in raw.items() if v is not None}
            for key in JSON_COLUMNS:
                if isinstance(record.get(key), str):
                    try:
                        record[key] = json.loads(record[key])
                    except json.JSONDecodeError:
                        raise ParseError(
                            f"column {key!r}: expected JSON text, found {record[key][:40]!r}",
                            path=path,
                            line=where,
                        ) from None
            _check_record(record, path, where, repr(raw))
            yield where, record


# -- the rows a report shows -----------------------------------------------------------------------
class _RowSample:
    """The rows of the row table: every error row first (up to the cap), then the first
    rows, kept while the records stream by."""

    def __init__(self, cap: int, room: int) -> None:
        self.cap = cap
        self.room = room  # the text of the first rows kept, at most (beyond: no room shown)
        self.errors: list[Record] = []
        self.first: list[Record] = []

    def add(self, record: Record, size: int) -> None:
        kept = self.errors if "error" in record else self.first
        if len(kept) < self.cap and (kept is self.errors or self.room > 0):
            kept.append(record)
            if kept is self.first:
                self.room -= size

    def wants_first(self) -> bool:
        """Whether the next record, unless an error, is one of the first rows kept."""
        return len(self.first) < self.cap and self.room > 0

    def chosen(self) -> list[Record]:
        """In the order they are given room: the errors, then the first rows."""
        return (self.errors + self.first)[: self.cap]


# -- HTML ------------------------------------------------------------------------------------------
def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _number_text(value: float) -> str:
    return f"{value:.4g}" if math.isfinite(value) else str(value)


# the details are laid out when scrolled to (content-visibility): those of 1,200 rows took
# Chromium a second and a half of layout before the first frame
_STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;
max-width:1100px;padding:0 16px 48px;color:#222}
h1{font-size:1.5em;margin:.8em 0 .2em}h2{border-bottom:1px solid #ccc;margin-top:1.6em}
nav a{margin-right:1em}table{border-collapse:collapse;margin:.5em 0}
td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}
#row-table th{cursor:pointer;user-select:none;position:sticky;top:0}
#row-table th[aria-sort=ascending]::after{content:" \\25B2"}
#row-table th[aria-sort=descending]::after{content:" \\25BC"}
tr.error td{background:#fdecea}.missing{color:#8a6d3b;background:#fcf8e3;padding:6px 10px}
figure{margin:.5em 0}svg{max-width:100%;height:auto}.note{color:#555}
article{border-top:1px solid #eee;padding:.3em 0;content-visibility:auto;
contain-intrinsic-size:auto 400px}article h3{margin:.4em 0 .2em}
code{font-size:.95em}.necessary{color:#b2182b}.irrelevant{color:#777}
"""

_SCRIPT = """
(function () {
  var table = document.getElementById("row-table");
  if (!table) { return; }
  var body = table.tBodies[0], heads = table.tHead.rows[0].cells;
  var input = document.getElementById("row-filter"), status = document.getElementById("row-status");
  function key(row, col) {
    var cell = row.cells[col], v = cell.getAttribute("data-sort");
    if (v === null) { v = cell.textContent; }
    var n = Number(v);
    return v !== "" && !isNaN(n) ? n : v.toLowerCase();
  }
  function sortBy(col, descending) {
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a, col), y = key(b, col), c;
      if (typeof x !== typeof y) { c = typeof x === "number" ? -1 : 1; }
      else { c = x < y ? -1 : (x > y ? 1 : 0); }
      return descending ? -c : c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    for (var i = 0; i < heads.length; i++) { heads[i].removeAttribute("aria-sort"); }
    heads[col].setAttribute("aria-sort", descending ? "descending" : "ascending");
  }
  function filter(text) {
    var wanted = text.toLowerCase(), shown = 0, rows = body.rows;
    for (var i = 0; i < rows.length; i++) {
      var hit = rows[i].textContent.toLowerCase().indexOf(wanted) >= 0;
      rows[i].hidden = !hit;
      shown += hit ? 1 : 0;
    }
    status.textContent = wanted ? shown + " of " + rows.length + " rows match" : "";
  }
  function column(name) {
    for (var i = 0; i < heads.length; i++) {
      if (heads[i].getAttribute("data-key") === name) { return i; }
    }
    return -1;
  }
  function fromHash() {
    var params = new URLSearchParams(location.hash.slice(1));
    var sort = params.get("sort"), text = params.get("filter");
    if (sort) {
      var down = sort.charAt(0) === "-", col = column(down ? sort.slice(1) : sort);
      if (col >= 0) { sortBy(col, down); }
    }
    if (text !== null) { input.value = text; filter(text); }
  }
  Array.prototype.forEach.call(heads, function (head, col) {
    head.addEventListener("click", function () {
      sortBy(col, head.getAttribute("aria-sort") === "ascending");
    });
  });
  input.addEventListener("input", function () { filter(input.value); });
  window.addEventListener("hashchange", fromHash);
  fromHash();
})();
"""

_SVG_REF = re.compile(r'(id="|url\(#|href="#)([^")]+)')


def _svg(draw: Any, data: Any, name: str, size: tuple[float, float]) -> str:
    """A plot of :mod:`xpg.plots` as inline SVG: text as text, no metadata, every id
    prefixed with ``name`` (several plots share one page)."""
    import io

    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": name}):
        fig = Figure(figsize=size, layout="constrained")
        draw(data, ax=fig.add_subplot())
        out = io.StringIO()
        fig.savefig(out, format="svg")
    text = out.getvalue()
    text = text[text.index("<svg") :]
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.S)
    return _SVG_REF.sub(lambda m: f"{m[1]}{name}-{m[2]}", text).strip()


def _figure(draw: Any, data: Any, name: str, size: tuple[float, float], caption: str) -> str:
    return (
        f'<figure id="{name}">{_svg(draw, data, name, size)}'
        f"<figcaption>{_e(caption)}</figcaption></figure>"
    )


def _missing(field: str) -> str:
    return f'<p class="missing">{_e(missing_field(field))}</p>'


def _shortest(record: Record) -> tuple[str, int]:
    """The shortest AXp as readable conditions, and its size (-1: none)."""
    axps = record.get("axps")
    if not axps:
        return "", -1
    i = min(range(len(axps)), key=lambda k: len(axps[k]))
    return _axp_text(record, i), len(axps[i])


def _inflated(record: Record, i: int) -> list[str] | None:
    """The inflated conditions of AXp ``i`` of a record (``[]``: not in the record; None:
    not inflated within the row's budget).

    Raises
    ------
    InvalidParameterError
        For an ``"inflated"`` field that is not one list of conditions per AXp.
    """
    inflated = record.get("inflated")
    if inflated is None:
        return []
    mine = inflated[i] if type(inflated) is list and i < len(inflated) else ()
    if mine is None:
        return None
    if type(mine) is not list or not all(type(c) is dict and "feature" in c for c in mine):
        raise InvalidParameterError(
            f"row {record.get('row')}: 'inflated': expected one list of "
            f'{{"feature", "condition", ...}} per AXp, found {inflated!r:.80}'
        )
    return [str(c.get("condition", c["feature"])) for c in mine]


def _axp_text(record: Record, i: int) -> str:
    """AXp ``i`` of a record: its conditions, or its inflated conditions, or its names."""
    conditions = record.get("conditions")
    inflated = _inflated(record, i)
    if isinstance(conditions, list) and i < len(conditions):
        parts = [str(c) for c in conditions[i]]
    elif inflated:
        parts = inflated
    else:
        parts = [str(n) for n in record["axps"][i]]
    return " and ".join(parts) if parts else "(empty: the prediction holds everywhere)"


def _changes(values: Any) -> str:
    if isinstance(values, Mapping):
        return ", ".join(f"{k} = {v}" for k, v in values.items())
    return str(values)


class _Page:
    """The HTML text of a report, built in parts."""

    def __init__(self, summary: TableSummary, source: str, model: Any, path: str) -> None:
        self.summary = summary
        self.source = source
        self.model = model
        self.model_path = path
        self.parts: list[str] = []
        s = summary.fields
        self.has_label = "label" in s
        self.has_index = "index" in s
        self.has_robustness = "robustness" in s
        self.has_axps = "axps" in s

    def header(self) -> str:
        s = self.summary
        lines = [f"<h1>Explanations of {_e(os.path.basename(self.source))}</h1>"]
        if self.model is not None:
            names = [f.name for f in self.model.features]
            kind = getattr(self.model, "json_type", type(self.model).__name__)
            classes = getattr(self.model, "classes", None)
            lines.append(
                f'<p id="model">model <strong>{_e(os.path.basename(self.model_path))}</strong>: '
                f"{_e(kind)}, {len(names)} features: {_e(', '.join(names))}"
                + (f"; classes: {_e(', '.join(map(str, classes)))}" if classes else "")
                + "</p>"
            )
        lines.append(
            '<nav><a href="#summary">summary</a><a href="#attribution">attribution</a>'
            '<a href="#classes">feature classes</a><a href="#distributions">distributions</a>'
            '<a href="#rows">rows</a><a href="#details">details</a></nav>'
        )
        explained = s.rows - s.errors
        mean = s.seconds / explained if explained else 0.0
        cells = [
            ("rows", f"{s.rows:,}"),
            ("explained", f"{explained:,}"),
            ("errors", f"{s.errors:,}"),
            ("incomplete (a budget reached)", f"{s.incomplete:,}"),
            ("time explaining (sum of the rows' seconds)", f"{s.seconds:.3f} s"),
            ("mean per explained row", f"{mean * 1000:.3f} ms"),
            ("fields", ", ".join(sorted(s.fields))),
        ]
        rows = "".join(f'<tr><th>{_e(k)}</th><td class="num">{_e(v)}</td></tr>' for k, v in cells)
        lines.append(f'<section id="summary"><h2>Summary</h2><table>{rows}</table></section>')
        return "\n".join(lines)

    def attribution(self) -> str:
        from xpg.plots import plot_table_attribution

        s = self.summary
        head = '<section id="attribution"><h2>Formal feature attribution over the table</h2>'
        if not s.attribution_rows:
            return head + _missing("attribution") + "</section>"
        means = s.mean_attribution()
        height = 1.2 + 0.28 * len(means)
        figure = _figure(
            plot_table_attribution, s, "plot-attribution", (7, height),
            "each feature's mean share of the AXps that contain it; colour: its class over "
            "the table",
        )  # fmt: skip
        rows = "".join(
            f'<tr><td>{_e(f)}</td><td class="num">{v:.4f}</td></tr>'
            for f, v in sorted(means.items(), key=lambda item: -item[1])
        )
        return (
            f"{head}{figure}<table><thead><tr><th>feature</th><th>mean share</th></tr></thead>"
            f"<tbody>{rows}</tbody></table></section>"
        )

    def classes(self) -> str:
        s = self.summary
        head = '<section id="classes"><h2>Feature classes</h2>'
        if not s.class_rows:
            return head + _missing("necessary") + "</section>"
        classes = s.classes()
        rows = "".join(
            f'<tr><td>{_e(f)}</td><td class="{c}">{_e(CLASS_LABELS[c])}</td>'
            + "".join(f'<td class="num">{n:,}</td>' for n in s.class_counts[f])
            + "</tr>"
            for f, c in classes.items()
        )
        source = "feature classes" if "necessary" in s.fields else "attribution (share 1: "
        source += "" if "necessary" in s.fields else "necessary, 0: irrelevant)"
        return (
            f'{head}<p class="note">over {s.class_rows:,} explained rows, from the records\' '
            f"{_e(source)}</p><table><thead><tr><th>feature</th><th>over the table</th>"
            "<th>necessary in</th><th>relevant in</th><th>irrelevant in</th></tr></thead>"
            f"<tbody>{rows}</tbody></table></section>"
        )

    def distributions(self) -> str:
        from xpg.plots import plot_explanation_sizes, plot_robustness

        s = self.summary
        parts = ['<section id="distributions"><h2>Distributions</h2><h3>Explanation sizes</h3>']
        if s.axp_rows or s.cxp_rows:
            parts.append(
                _figure(
                    plot_explanation_sizes,
                    s,
                    "plot-sizes",
                    (7, 3.2),
                    "how many AXps and CXps of each size the rows have",
                )  # fmt: skip
            )
        else:
            parts.append(_missing("axps"))
        parts.append("<h3>Robustness</h3>")
        if s.robustness_rows:
            parts.append(
                _figure(
                    plot_robustness,
                    s,
                    "plot-robustness",
                    (7, 3.2),
                    "the distance from each row to the nearest input of another class",
                )  # fmt: skip
            )
        else:
            parts.append(_missing("robustness"))
        parts.append("</section>")
        return "".join(parts)

    def row_cells(self, record: Record, anchor: str) -> str:
        row = record["row"]
        error = record.get("error")
        cells = [f'<td class="num" data-sort="{row}"><a href="#{anchor}">{row}</a></td>']
        if self.has_index:
            cells.append(f"<td>{_e(json.dumps(record.get('index', '')))}</td>")
        cells.append(f"<td>{_e(record.get('prediction', 'error' if error else ''))}</td>")
        if self.has_label:
            cells.append(f"<td>{_e(record.get('label', ''))}</td>")
        if self.has_axps:
            text, size = ("", -1) if error else _shortest(record)
            count = len(record.get("axps") or [])
            more = "+" if record.get("complete") is False else ""
            cells.append(f'<td class="num" data-sort="{count}">{count}{more}</td>')
            shown = f"error: {error}" if error else text
            cells.append(f'<td data-sort="{size:04d} {_e(shown)}">{_e(shown)}</td>')
        elif error:
            cells.append(f"<td>error: {_e(error)}</td>")
        if self.has_robustness:
            found = record.get("robustness")
            distance = found.get("distance") if isinstance(found, Mapping) else None
            if found is None:
                cells.append('<td class="num" data-sort=""></td>')
            elif distance is None:
                cells.append('<td class="num" data-sort="Infinity">none</td>')
            else:
                cells.append(
                    f'<td class="num" data-sort="{float(distance)!r}">'
                    f"{_e(_number_text(float(distance)))}</td>"
                )
        klass = ' class="error"' if error else ""
        return f"<tr{klass}>{''.join(cells)}</tr>"

    def details(self, record: Record, anchor: str) -> str:
        row = record["row"]
        out = [f'<article id="{anchor}"><h3>Row {row}</h3><ul>']
        fields = [("index", json.dumps(record["index"]))] if "index" in record else []
        fields += [(k, record[k]) for k in ("prediction", "label", "error") if k in record]
        if "complete" in record:
            fields.append(("complete", "yes" if record["complete"] else "no (a budget reached)"))
        if isinstance(record.get("seconds"), (int, float)):
            fields.append(("seconds", f"{record['seconds']:.4g}"))
        out += [f"<li>{_e(k)}: {_e(v)}</li>" for k, v in fields]
        out.append("</ul>")
        axps = record.get("axps")
        if axps is not None:
            out.append(f"<h4>AXps ({len(axps)})</h4><ol>")
            for i in range(len(axps)):
                item = f"<li>{_e(_axp_text(record, i))}"
                mine = _inflated(record, i)
                if mine is None:
                    item += "<br>inflated: not within the row's time budget"
                elif mine and "conditions" in record:
                    item += f"<br>inflated: {_e(' and '.join(mine))}"
                out.append(item + "</li>")
            out.append("</ol>")
        cxps = record.get("cxps")
        if cxps is not None:
            out.append(f"<h4>CXps ({len(cxps)})</h4><ol>")
            changes = record.get("counterexamples") or []
            classes = record.get("counterexample_classes") or []
            for i, cxp in enumerate(cxps):
                item = f"<li>{_e(', '.join(map(str, cxp)))}"
                if i < len(changes):
                    gives = f" gives {classes[i]}" if i < len(classes) else ""
                    item += f": {_e(_changes(changes[i]) + gives)}"
                out.append(item + "</li>")
            out.append("</ol>")
        if "necessary" in record:
            out.append("<h4>Feature classes</h4><ul>")
            for c in CLASS_NAMES:
                names = ", ".join(map(str, record.get(c, []))) or "none"
                out.append(f'<li class="{c}">{c}: {_e(names)}</li>')
            out.append("</ul>")
        shares = record.get("attribution")
        if isinstance(shares, Mapping):
            shown = ", ".join(
                f"{k} {float(v):.3f}"
                for k, v in sorted(shares.items(), key=lambda item: -item[1])
                if v
            )
            estimate = " (an estimate)" if record.get("attribution_complete") is False else ""
            out.append(f"<h4>Attribution{estimate}</h4><p>{_e(shown or 'none')}</p>")
        found = record.get("robustness")
        if isinstance(found, Mapping):
            distance = found.get("distance")
            text = (
                "none: no input gets another class"
                if distance is None
                else f"{_number_text(float(distance))}: {_changes(found.get('counterexample'))}"
                f" gives {found.get('counterexample_class')}"
            )
            out.append(f"<h4>Robustness</h4><p>{_e(text)}</p>")
        out.append('<p><a href="#rows">back to the rows</a></p></article>')
        return "".join(out)

    def rows(self, sample: _RowSample, room: int) -> tuple[str, int]:
        """The row table and the details of the rows shown, within the cap of rows and
        ``room`` bytes, and how many rows they show."""
        used: set[str] = set()
        made: list[tuple[int, str, str]] = []
        size = 0
        for record in sample.chosen():
            anchor = f"row-{record['row']}"
            while anchor in used:  # a row given twice (a file written twice over)
                anchor += "-again"
            used.add(anchor)
            line, detail = self.row_cells(record, anchor), self.details(record, anchor)
            size += len(line.encode("utf-8")) + len(detail.encode("utf-8"))
            if size > room and made:
                break
            made.append((record["row"], line, detail))
        made.sort(key=lambda item: item[0])
        s = self.summary
        shown = len(made)
        how = (
            f"showing all {s.rows:,} rows"
            if shown == s.rows
            else f"showing {shown:,} of {s.rows:,} rows: "
            + ("every error row, then " if s.errors else "")
            + "the first rows"
        )
        heads = [("row", "row")]
        if self.has_index:
            heads.append(("index", "index"))
        heads.append(("prediction", "prediction"))
        if self.has_label:
            heads.append(("label", "label"))
        if self.has_axps:
            heads += [("axps", "AXps"), ("shortest", "shortest AXp")]
        elif s.errors:
            heads.append(("error", "error"))
        if self.has_robustness:
            heads.append(("robustness", "robustness"))
        head = "".join(f'<th data-key="{k}">{_e(t)}</th>' for k, t in heads)
        text = (
            '<section id="rows"><h2>Rows</h2>'
            f'<p id="row-count" class="note">{_e(how)}; click a column to sort, type to '
            "filter; the row number links to its details</p>"
            '<p><label>filter <input id="row-filter" type="search"></label> '
            '<span id="row-status"></span></p>'
            f'<table id="row-table"><thead><tr>{head}</tr></thead><tbody>'
            + "".join(line for _, line, _ in made)
            + '</tbody></table></section><section id="details"><h2>Row details</h2>'
            + "".join(detail for _, _, detail in made)
            + "</section>"
        )
        return text, shown


@dataclass
class ReportInfo:
    """What :func:`write_report` wrote: the file, its bytes, the rows of the records, the
    rows the row table shows and the error rows."""

    output: str
    bytes: int
    rows: int
    shown: int
    errors: int


def write_report(
    records_path: str | os.PathLike[str],
    output: str | os.PathLike[str],
    model: Any = None,
    *,
    max_rows: int = MAX_ROWS,
) -> ReportInfo:
    """Write the HTML report of the records of ``xpg explain --data`` (JSON Lines or Parquet),
    whole or not at all.

    Parameters
    ----------
    records_path : path
        The records.
    output : path
        The HTML file to write.
    model : path or model, optional
        The model file (or model object) that wrote them: its name, kind and features go in
        the header, and its feature order in the tables.
    max_rows : int
        The most rows in the row table (the page says how many it shows).

    Raises
    ------
    ParseError
        When the records cannot be read, a line is not a record, or there is none.
    OutputError
        When the output cannot be written.
    MissingExtraError
        Without matplotlib (the ``plot`` extra).

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> lines = [{"row": 0, "prediction": "1", "axps": [["a"]], "seconds": 0.1},
    ...          {"row": 1, "error": "feature 'a': <missing>"}]
    >>> _ = (folder / "r.jsonl").write_text("".join(json.dumps(x) + "\\n" for x in lines))
    >>> info = write_report(folder / "r.jsonl", folder / "r.html")
    >>> info.rows, info.shown, info.errors
    (2, 2, 1)
    >>> "&lt;missing&gt;" in (folder / "r.html").read_text()
    True
    """
    from xpg.io.atomic import write_text_atomic

    if isinstance(max_rows, bool) or not isinstance(max_rows, int) or max_rows < 1:
        raise InvalidParameterError(f"max_rows: expected a positive integer, found {max_rows!r}")
    try:
        import matplotlib  # noqa: F401  (the plots: checked before the records are read)
    except ImportError:
        raise MissingExtraError(
            "xpg report needs matplotlib: pip install -e '.[plot]' from a clone of xpg"
        ) from None
    source = str(records_path)
    model_path = ""
    if model is not None and isinstance(model, (str, os.PathLike)):
        from xpg.io.model_json import read_model

        model_path = str(model)
        model = read_model(model)
    elif model is not None:
        model_path = type(model).__name__
    features = [f.name for f in model.features] if model is not None else []
    summary = TableSummary(features)
    sample = _RowSample(max_rows, 4 * MAX_BYTES)  # details take less than their JSON
    for where, record, size in _read(source, sample.wants_first):
        try:
            summary.add(record)
        except InvalidParameterError as err:
            raise ParseError(str(err), path=source, line=where) from None
        if size is not None:
            sample.add(record, size)
    if not summary.rows:
        raise ParseError(
            "expected the records of xpg explain --data (one JSON object per line), found none",
            path=source,
        )
    page = _Page(summary, source, model, model_path)
    body = [page.header(), page.attribution(), page.classes(), page.distributions()]
    room = MAX_BYTES - sum(len(part.encode("utf-8")) for part in body) - 20_000
    table, shown = page.rows(sample, room)
    text = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>xpg report: {_e(os.path.basename(source))}</title>"
        f"<style>{_STYLE}</style></head><body>\n"
        + "\n".join(body)
        + "\n"
        + table
        + f"\n<script>{_SCRIPT}</script>\n</body></html>\n"
    )
    target = Path(output)
    if target.is_dir():
        raise OutputError(f"{target}: cannot write: Is a directory")
    write_text_atomic(target, text)
    return ReportInfo(str(output), len(text.encode("utf-8")), summary.rows, shown, summary.errors)
