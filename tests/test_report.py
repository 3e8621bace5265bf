"""``xpg report`` and :func:`xpg.report.write_report`: the page holds the numbers of the records
(counted here again), every text escaped (feature names and values with ``<``, ``&``, quotes,
named as record fields), sections that say which ``--kinds`` they need, a row table within
its caps, the same page from JSON Lines and Parquet; the file is valid HTML (html5lib, strict)
that fetches nothing; bad input is one line and exit status 2, nothing written."""

from __future__ import annotations

import contextlib
import io
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import html5lib
import pytest

import xpg
from xpg.cli.main import main
from xpg.core.features import Feature, Literal
from xpg.core.graph import DecisionGraph
from xpg.errors import InvalidParameterError
from xpg.explain.attribution import mean_attribution
from xpg.report import MAX_BYTES, _read, read_records, write_report
from xpg.summary import TableSummary

SVG = "{http://www.w3.org/2000/svg}"
ALL = "axp,cxp,conditions,features,robustness,attribution,inflated"
RADIUS, COLOUR = "<b>radius</b>", "inflated"  # a tag, and a record field's name
COLOURS = ["red", "<i>blue</i>", 'a & "b"']


def awkward_model() -> DecisionGraph:
    """A decision graph whose feature names and values need escaping or look like fields."""
    features = [
        Feature.real(RADIUS),
        Feature.real("seconds"),
        Feature.categorical(COLOUR, COLOURS),
        Feature.integer("robustness", 0, 9),
    ]
    dg = DecisionGraph(features, classes=["yes", "<no>"])
    dg.add_node(0, RADIUS)
    dg.add_node(1, COLOUR)
    dg.add_node(2, "seconds")
    dg.add_node(3, "robustness")
    dg.add_terminal(10, "yes")
    dg.add_terminal(11, "<no>")
    dg.add_edge(0, 1, Literal.le(RADIUS, 2.5))
    dg.add_edge(0, 2, Literal.gt(RADIUS, 2.5))
    dg.add_edge(1, 10, Literal.isin(COLOUR, ["red"]))
    dg.add_edge(1, 3, Literal.isin(COLOUR, COLOURS[1:]))
    dg.add_edge(2, 10, Literal.gt("seconds", 1.0))
    dg.add_edge(2, 3, Literal.le("seconds", 1.0))
    dg.add_edge(3, 11, Literal.le("robustness", 3))
    dg.add_edge(3, 10, Literal.gt("robustness", 3))
    return dg


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def explained(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """``xpg explain --data`` of the awkward model with every kind: the files and records."""
    folder = tmp_path_factory.mktemp("report")
    xpg.save_model(awkward_model(), folder / "model.json")
    lines = [f"{RADIUS},seconds,{COLOUR},robustness,y"]
    for i in range(30):
        colour = COLOURS[i % 3]
        lines.append(f'{i % 5},{(i * 7) % 3},"{colour.replace(chr(34), 2 * chr(34))}",{i % 10},yes')
    lines.insert(8, "1,1,purple,2,yes")  # outside the domain: an error record (row 7)
    lines.insert(12, "nan,1,red,2,yes")  # another (row 11)
    (folder / "rows.csv").write_text("\n".join(lines) + "\n")
    out = folder / "out.jsonl"
    status, _, err = run("explain", str(folder / "model.json"), "--data",
                         str(folder / "rows.csv"), "--kinds", ALL, "--target", "y",
                         "-o", str(out))  # fmt: skip
    assert status == 1 and "32 rows, 2 errors" in err, err  # 1: some rows are errors
    records = [json.loads(line) for line in out.read_text().splitlines()]
    return {"folder": folder, "records": records, "jsonl": out, "model": folder / "model.json"}


def parse(path: Path) -> Any:
    """The page, parsed strictly (an HTML error raises), with its ids checked unique."""
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    doc = parser.parse(path.read_bytes())
    ids = [e.get("id") for e in doc.iter() if e.get("id") is not None]
    assert [i for i, n in Counter(ids).items() if n > 1] == []
    return doc


def text(element: Any) -> str:
    return "".join(element.itertext())


def section(doc: Any, name: str) -> Any:
    (found,) = [e for e in doc.iter("section") if e.get("id") == name]
    return found


def test_the_page_holds_the_records_numbers(explained: dict[str, Any], tmp_path: Path) -> None:
    records = explained["records"]
    out = tmp_path / "r.html"
    status, printed, _ = run("report", str(explained["jsonl"]), "--model",
                             str(explained["model"]), "-o", str(out), "--json")  # fmt: skip
    assert status == 0
    doc = parse(out)
    errors = [r for r in records if "error" in r]
    assert [r["row"] for r in errors] == [7, 11]
    assert json.loads(printed) == {"output": str(out), "bytes": out.stat().st_size,
                                   "rows": 32, "shown": 32, "errors": 2}  # fmt: skip
    summary = {
        text(tr.find("th")): text(tr.find("td")) for tr in section(doc, "summary").iter("tr")
    }
    assert summary["rows"] == "32" and summary["errors"] == "2" and summary["explained"] == "30"
    incomplete = sum(r.get("complete") is False for r in records)
    assert summary["incomplete (a budget reached)"] == str(incomplete)
    seconds = sum(r.get("seconds", 0) for r in records)
    assert summary["time explaining (sum of the rows' seconds)"] == f"{seconds:.3f} s"
    # the header names the model, its kind and features in its order
    header = text([e for e in doc.iter("p") if e.get("id") == "model"][0])
    assert f"decision-graph, 4 features: {RADIUS}, seconds, {COLOUR}, robustness" in header
    # the attribution table: the mean shares, recounted from the AXps
    good = [r for r in records if "error" not in r]
    names = [RADIUS, "seconds", COLOUR, "robustness"]
    means = {f: sum(sum(f in a for a in r["axps"]) / len(r["axps"]) for r in good) / len(good)
             for f in names}  # fmt: skip
    shown = {text(tr[0]): float(text(tr[1])) for tr in section(doc, "attribution").iter("tr")
             if tr[0].tag == "td"}  # fmt: skip
    assert shown == pytest.approx(means, abs=5e-5)
    assert len(section(doc, "attribution").findall(f".//{SVG}svg")) == 1
    # the classes, in the model's order, with the rows counted here
    rows = [[text(td) for td in tr] for tr in section(doc, "classes").iter("tr")][1:]
    assert [r[0] for r in rows] == [n for n in names if n in {r[0] for r in rows}]
    for name, klass, *counts in rows:
        expected = [
            sum(name in r[c] for r in good) for c in ("necessary", "relevant", "irrelevant")
        ]
        assert [int(c) for c in counts] == expected
        every = {0: "necessary in every row", 2: "irrelevant in every row"}
        assert klass == next((every[k] for k in every if expected[k] == 30), "relevant")
    assert len(section(doc, "distributions").findall(f".//{SVG}svg")) == 2
    assert "not in the records" not in text(doc.find("body"))


def test_every_row_links_to_its_details(explained: dict[str, Any], tmp_path: Path) -> None:
    records = explained["records"]
    out = tmp_path / "r.html"
    write_report(explained["jsonl"], out)
    doc = parse(out)
    table = [e for e in doc.iter("table") if e.get("id") == "row-table"][0]
    body = table.find("tbody")
    articles = {a.get("id"): a for a in section(doc, "details").iter("article")}
    assert len(body) == len(records) == len(articles)
    heads = [text(th) for th in table.find("thead").iter("th")]
    assert heads == ["row", "prediction", "label", "AXps", "shortest AXp", "robustness"]
    for tr, record in zip(body, records):
        cells = [text(td) for td in tr]
        link = tr[0].find("a").get("href")
        assert cells[0] == str(record["row"]) and link == f"#row-{record['row']}"
        article = articles[link[1:]]
        if "error" in record:
            assert tr.get("class") == "error" and cells[4] == f"error: {record['error']}"
            assert record["error"] in text(article)
            continue
        assert cells[1:3] == [record["prediction"], record["label"]]
        assert cells[3] == str(len(record["axps"]))
        k = min(range(len(record["axps"])), key=lambda i: len(record["axps"][i]))
        assert cells[4] == " and ".join(record["conditions"][k])
        distance = record["robustness"]["distance"]
        assert cells[5] == ("none" if distance is None else f"{distance:.4g}")
        items = article.findall(".//ol")[0].findall("li")  # every AXp, inflated too
        assert len(items) == len(record["axps"])
        for item, inflated in zip(items, record["inflated"]):
            assert " and ".join(c["condition"] for c in inflated) in text(item)


def test_every_text_is_escaped(explained: dict[str, Any], tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    write_report(explained["jsonl"], out, explained["model"])
    page = out.read_text()
    for raw in (RADIUS, COLOURS[1], "<no>"):
        assert raw not in page
    doc = parse(out)
    assert not list(doc.iter("b")) and not list(doc.iter("i"))
    body = text(doc.find("body"))
    assert RADIUS in body and "<no>" in body and COLOURS[1] in body
    # nothing is fetched: every link is to the page itself, no source, one inline script
    for element in doc.iter():
        for attribute in ("href", "src", "{http://www.w3.org/1999/xlink}href"):
            value = element.get(attribute)
            assert value is None or value.startswith("#"), (element.tag, value)
    assert [s.get("src") for s in doc.iter("script")] == [None]
    assert not list(doc.iter("link")) and not list(doc.iter("img")) and "@import" not in page


def test_sections_say_which_kinds_they_need(explained: dict[str, Any], tmp_path: Path) -> None:
    source = tmp_path / "axp.jsonl"
    source.write_text(
        "".join(
            json.dumps({k: r[k] for k in ("row", "prediction", "axps") if k in r}) + "\n"
            for r in explained["records"]
            if "error" not in r
        )  # fmt: skip
    )
    write_report(source, tmp_path / "r.html")
    doc = parse(tmp_path / "r.html")
    said = {name: text(section(doc, name)) for name in ("attribution", "classes", "distributions")}
    assert "not in the records: run xpg explain --kinds attribution" in said["attribution"]
    assert "not in the records: run xpg explain --kinds features" in said["classes"]
    assert "not in the records: run xpg explain --kinds robustness" in said["distributions"]
    assert len(section(doc, "distributions").findall(f".//{SVG}svg")) == 1  # the sizes
    # classes over the table come from the attribution when the records have no lists
    attribution = tmp_path / "attribution.jsonl"
    attribution.write_text(
        "".join(
            json.dumps({k: r[k] for k in ("row", "prediction", "attribution") if k in r}) + "\n"
            for r in explained["records"]
        )  # fmt: skip
    )
    write_report(attribution, tmp_path / "a.html")
    classes = section(parse(tmp_path / "a.html"), "classes")
    assert "from the records' attribution" in text(classes)


def test_the_row_table_is_capped_with_every_error_first(tmp_path: Path) -> None:
    source = tmp_path / "r.jsonl"
    lines = [{"row": i, "prediction": "1", "axps": [["a"]]} for i in range(40)]
    for i in (3, 25, 39):
        lines[i] = {"row": i, "error": f"bad row {i}"}
    source.write_text("".join(json.dumps(x) + "\n" for x in lines))
    info = write_report(source, tmp_path / "r.html", max_rows=6)
    doc = parse(tmp_path / "r.html")
    assert (info.rows, info.shown, info.errors) == (40, 6, 3)
    note = text([e for e in doc.iter("p") if e.get("id") == "row-count"][0])
    assert note.startswith("showing 6 of 40 rows: every error row, then the first rows")
    table = [e for e in doc.iter("table") if e.get("id") == "row-table"][0]
    assert [int(text(tr[0])) for tr in table.find("tbody")] == [0, 1, 2, 3, 25, 39]
    assert len(list(section(doc, "details").iter("article"))) == 6


def test_a_large_table_stays_under_the_size_cap(explained: dict[str, Any], tmp_path: Path) -> None:
    """Thousands of rows whose details are long: fewer rows shown, the page under its cap."""
    good = [r for r in explained["records"] if "error" not in r]
    heavy = max(good, key=lambda r: len(json.dumps(r)))
    heavy = {**heavy, "axps": heavy["axps"] * 20, "inflated": heavy["inflated"] * 20,
             "conditions": heavy["conditions"] * 20}  # fmt: skip
    source = tmp_path / "big.jsonl"
    with open(source, "w") as fh:
        for i in range(600):
            fh.write(json.dumps({**heavy, "row": i}) + "\n")
    info = write_report(source, tmp_path / "big.html")
    assert info.bytes == (tmp_path / "big.html").stat().st_size <= MAX_BYTES
    assert 0 < info.shown < 600 and info.rows == 600
    doc = parse(tmp_path / "big.html")
    note = text([e for e in doc.iter("p") if e.get("id") == "row-count"][0])
    assert note.startswith(f"showing {info.shown:,} of 600 rows")


def test_parquet_gives_the_same_page(explained: dict[str, Any], tmp_path: Path) -> None:
    from xpg.explain.batch import parse_kinds
    from xpg.io.batch_output import ParquetWriter, parquet_columns

    records = [{k: v for k, v in r.items() if k != "model"} for r in explained["records"]]
    lines = tmp_path / "out.jsonl"  # Parquet keeps the model's fingerprint in its metadata
    lines.write_text("".join(json.dumps(r) + "\n" for r in records))
    target = tmp_path / "out.parquet"
    writer = ParquetWriter(str(target), parquet_columns(parse_kinds(ALL), "y"), "m")
    writer.write(json.loads(json.dumps(records)))
    writer.finish()
    assert [r for _, r in read_records(target)] == records
    write_report(target, tmp_path / "p.html")
    write_report(lines, tmp_path / "j.html")
    page = (tmp_path / "p.html").read_text().replace("out.parquet", "X")
    assert page == (tmp_path / "j.html").read_text().replace("out.jsonl", "X")


def _summary_fields(summary: TableSummary) -> tuple[Any, ...]:
    names = ("rows", "errors", "incomplete", "seconds", "class_counts", "axp_sizes",
             "cxp_sizes", "distances", "no_distance", "features")  # fmt: skip
    return (summary.mean_attribution(), *(getattr(summary, n) for n in names))


def test_skimmed_records_add_up_as_whole_ones(explained: dict[str, Any], tmp_path: Path) -> None:
    """Past the rows shown, the long fields are not parsed: the sums are the same, also on
    lines laid out otherwise (which are read whole)."""
    lines = explained["jsonl"].read_text().splitlines()
    moved = json.loads(lines[20])  # the same fields in another order
    lines[20] = json.dumps({k: moved[k] for k in sorted(moved)})
    cut = json.loads(lines[21])  # a field after "inflated" missing
    lines[21] = json.dumps({k: v for k, v in cut.items() if k != "robustness"})
    source = tmp_path / "r.jsonl"
    source.write_text("\n".join(lines) + "\n")
    whole = TableSummary()
    for _, record in read_records(source):
        whole.add(record)
    skimmed = TableSummary()
    flags = []
    for _, record, size in _read(source, lambda: False):
        skimmed.add(record)
        flags.append(size is not None)
    assert _summary_fields(skimmed) == _summary_fields(whole)
    assert flags.count(False) >= 25 and flags[20] and flags[21]  # most lines skimmed
    assert mean_attribution(explained["records"]) == pytest.approx(whole.mean_attribution())


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read the records: No such file or directory"),
        ("", "found none"),
        ("\n\n", "found none"),
        ("a,b\n1,2\n", ":1: expected a record of xpg explain --data"),
        ('{"row": 0, "prediction": "1"}\n[1, 2]\n', ":2: expected a record"),
        ('{"row": -1}\n', ":1: expected a record"),
        ('{"row": 0, "axps": "a"}\n', ":1: row 0: 'axps': expected a list of explanations"),
        ('{"row": 0, "attribution": {"a": 2}}\n', ":1: row 0: 'attribution': expected"),
        ('{"row": 0, "robustness": {"distance": "far"}}\n', ":1: row 0: 'robustness'"),
        ('{"row": 0, "axps": [["a"]], "inflated": [[1]]}\n', "row 0: 'inflated': expected one"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", ":1: expected a record"),
        (b"PAR1 not really", "not a Parquet file of records"),
    ],
)
def test_bad_records_are_one_line_and_status_2(content: Any, message: str, tmp_path: Path) -> None:
    source = tmp_path / "records.jsonl"
    if isinstance(content, str):
        source.write_text(content)
    elif content is not None:
        source.write_bytes(content)
    out = tmp_path / "r.html"
    out.write_text("before")
    status, printed, err = run("report", str(source), "-o", str(out))
    assert status == 2 and printed == ""
    assert err.count("\n") == 1 and err.startswith("xpg report: error: ") and message in err
    assert out.read_text() == "before"  # left as it was
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["r.html"] + (["records.jsonl"] if content is not None else [])
    )


def test_bad_outputs_and_model(explained: dict[str, Any], tmp_path: Path) -> None:
    source = str(explained["jsonl"])
    status, _, err = run("report", source, "-o", str(tmp_path / "no" / "r.html"))
    assert status == 2 and "cannot write here" in err
    status, _, err = run("report", source, "-o", str(tmp_path))
    assert status == 2 and "Is a directory" in err
    status, _, err = run("report", source, "-o", source)
    assert status == 2 and "found the input" in err
    status, _, err = run("report", source, "--model", source, "-o", str(tmp_path / "r.html"))
    assert status == 2 and err.count("\n") == 1 and not (tmp_path / "r.html").exists()
    status, _, err = run("report", source, "--max-rows", "0", "-o", str(tmp_path / "r.html"))
    assert status == 2 and "--max-rows" in err
    assert list(tmp_path.iterdir()) == []


def test_text_output(explained: dict[str, Any], tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    status, printed, _ = run("report", str(explained["jsonl"]), "-o", str(out), "--max-rows", "5")
    size = out.stat().st_size
    assert status == 0
    assert printed == f"wrote {out} ({size:,} bytes, 32 rows, table: 5 of 32 rows)\n"
    assert re.search(r"showing 5 of 32 rows: every error row, then the first rows", out.read_text())


def test_the_same_page_with_and_without_orjson(
    explained: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """orjson (the plot extra) reads the records when installed; json does otherwise, and
    reads what orjson refuses (NaN, which Python's json writes for a float NaN)."""
    pytest.importorskip("orjson")
    lines = explained["jsonl"].read_text().splitlines()
    nan = json.loads(lines[3])
    nan["seconds"] = float("nan")  # written by json.dumps as NaN
    lines[3] = json.dumps(nan)
    source = tmp_path / "r.jsonl"
    source.write_text("\n".join(lines) + "\n")
    write_report(source, tmp_path / "fast.html")
    monkeypatch.setitem(sys.modules, "orjson", None)  # import orjson fails
    write_report(source, tmp_path / "plain.html")
    assert (tmp_path / "fast.html").read_text() == (tmp_path / "plain.html").read_text()
    assert [r["row"] for _, r in read_records(source)] == [json.loads(x)["row"] for x in lines]


def test_an_incomplete_attribution_classes_no_feature() -> None:
    """Was: a share of 1.0 or 0.0 of an enumeration stopped by its budget counted the feature
    necessary or irrelevant (a row with no AXp found had every feature 'irrelevant')."""
    done = {"row": 0, "attribution": {"a": 1.0, "b": 0.0}, "attribution_complete": True}
    cut = {"row": 1, "attribution": {"a": 0.0, "b": 0.0}, "attribution_complete": False}
    assert TableSummary.of([done, cut]).classes() == {"a": "necessary", "b": "irrelevant"}
    with pytest.raises(InvalidParameterError, match="no record has feature classes"):
        TableSummary.of([cut]).classes()


def test_dollar_signs_in_names_are_text_not_formulas(tmp_path: Path) -> None:
    """Was: a feature named like a TeX formula ('cost $\\frac$') made matplotlib parse it
    and fail (a traceback); every name and value is text."""
    names = ["cost $\\frac$", "$a$ b"]
    inflated = [
        {"feature": n, "condition": f"{n} > 1", "low": 1, "high": None,
         "low_inclusive": False, "high_inclusive": False} for n in names
    ]  # fmt: skip
    record = {"row": 0, "prediction": "1", "axps": [names], "complete": True,
              "attribution": dict.fromkeys(names, 1.0), "attribution_complete": True,
              "inflated": [inflated]}  # fmt: skip
    source = tmp_path / "r.jsonl"
    source.write_text(json.dumps(record) + "\n")
    write_report(source, tmp_path / "r.html")
    page = (tmp_path / "r.html").read_text()
    assert page.count("cost $\\frac$") >= 2 and "$a$ b" in page  # table and plot, as text
    import matplotlib.pyplot as plt

    from xpg.plots import plot_explanation

    ax = plot_explanation(record)
    ax.figure.savefig(tmp_path / "e.svg")  # draws the texts: a formula would fail here
    assert [t.get_text() for t in ax.get_yticklabels()] == names
    plt.close(ax.figure)
