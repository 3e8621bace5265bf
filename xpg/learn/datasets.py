"""Load the benchmark datasets of ``../shared/datasets`` (PMLB, xreason, risk-slim, ARFF, ...).

Nothing is downloaded: the files are read from a data directory, given explicitly, else
``$XPG_SHARED_DIR/datasets`` (``XPG_SHARED_DIR`` names the project's shared folder, which holds
``datasets/`` and ``xpg-examples/``), else, in a checkout, ``<repository root>/../shared/datasets``
(:func:`default_data_dir`; ``XPG_DATA_DIR``, naming the datasets folder itself, is an older
alias that still wins when set).  Installed from a wheel there is no repository root: without
the variable, the error says to set it.
The target column follows each source's convention (``target`` for PMLB; the first column
for the risk-slim and interpretable-robust-trees files; the last column otherwise) unless
``target`` names it.  Rows with a missing value (``?``, empty) are dropped, or the
columns that have one.

Examples
--------
>>> import gzip, tempfile, pathlib
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> (root / "pmlb").mkdir()
>>> with gzip.open(root / "pmlb" / "toy.tsv.gz", "wt") as fh:
...     _ = fh.write("a\\tb\\ttarget\\n0\\t3\\t1\\n1\\t5\\t0\\n")
>>> data = load_dataset("toy", data_dir=root)
>>> data.feature_names, data.y.tolist(), [f.kind for f in data.features]
(['a', 'b'], [1, 0], ['boolean', 'integer'])

References
----------
Olson et al. PMLB: a large benchmark suite for machine learning evaluation and comparison.
BioData Mining 2017; Huang et al. KR 2021, Sec. 7 (the benchmark datasets).
"""

from __future__ import annotations

import csv
import gzip
import io
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from xpg.core.features import Feature
from xpg.errors import DataNotFoundError, ParseError
from xpg.learn.feature_types import infer_features

SUFFIXES = (".tsv.gz", ".csv.gz", ".arff.gz", ".tsv", ".csv", ".arff")
FIRST_COLUMN_TARGET = ("riskslim", "interpretable-robust-trees")
MISSING = ("?", "", "NA", "nan", "NaN")
MissingPolicy = Literal["drop-rows", "drop-columns"]


@dataclass
class Dataset:
    """A dataset read from the data directory: ``X`` (rows x features) and ``y``."""

    name: str
    path: Path
    X: np.ndarray
    y: np.ndarray
    feature_names: list[str]
    target: str
    features: list[Feature] = field(default_factory=list)
    dropped_rows: int = 0


#: the environment variable naming the shared folder (``datasets/``, ``xpg-examples/``)
SHARED_ENV = "XPG_SHARED_DIR"
#: an older variable naming the datasets folder itself; kept, and it wins when set
DATA_ENV = "XPG_DATA_DIR"


def checkout_root() -> Path | None:
    """The repository root when xpg runs from a checkout (an editable install), else None
    (installed from a wheel: the package sits in ``site-packages``)."""
    root = Path(__file__).resolve().parents[2]
    return root if (root / "pyproject.toml").is_file() and (root / "xpg").is_dir() else None


def _data_dir_and_source() -> tuple[Path | None, str]:
    """The default data directory and where it comes from (for messages)."""
    data = os.environ.get(DATA_ENV)
    if data:
        return Path(data), f"${DATA_ENV}"
    shared = os.environ.get(SHARED_ENV)
    if shared:
        return Path(shared) / "datasets", f"${SHARED_ENV}/datasets"
    root = checkout_root()
    if root is None:
        return None, ""
    return root.parent / "shared" / "datasets", "../shared/datasets beside the checkout"


def default_data_dir() -> Path:
    """``$XPG_SHARED_DIR/datasets``; in a checkout, ``<repository root>/../shared/datasets``
    when the variable is not set (``$XPG_DATA_DIR``, an older alias naming the datasets folder
    itself, wins when set).

    Raises
    ------
    DataNotFoundError
        Installed from a wheel (no repository root) with neither variable set: the message
        says to set ``XPG_SHARED_DIR``.
    """
    path, _ = _data_dir_and_source()
    if path is None:
        raise DataNotFoundError(_no_default_message())
    return path


def _no_default_message() -> str:
    where = Path(__file__).resolve().parents[1]
    return (
        f"no data directory: set {SHARED_ENV} to the shared folder holding datasets/ "
        f"(or pass data_dir); xpg is installed at {where}, outside a checkout, so there is "
        "no default ../shared beside the repository"
    )


def dataset_path(name: str, data_dir: str | os.PathLike[str] | None = None) -> Path:
    """The file of a dataset: ``"corral"``, ``"pmlb/corral"`` or a file name."""
    if data_dir is not None:
        root, advice = Path(data_dir), "given as data_dir"
    else:
        found_root, source = _data_dir_and_source()
        if found_root is None:
            raise DataNotFoundError(_no_default_message())
        root = found_root
        advice = f"{source}; set {SHARED_ENV} to the shared folder holding datasets/"
    if not root.is_dir():
        raise DataNotFoundError(f"data directory {root} not found ({advice})")
    direct = root / name
    if direct.is_file():
        return direct
    folder, _, stem = name.rpartition("/")
    found = [
        p
        for p in sorted((root / folder).rglob("*") if folder else root.rglob("*"))
        if p.is_file() and any(p.name == stem + s for s in SUFFIXES)
    ]
    if not found:
        raise DataNotFoundError(
            f"no dataset named {name!r} in {root} (looked for {stem}{{{', '.join(SUFFIXES)}}})"
        )
    if len(found) > 1:
        raise DataNotFoundError(
            f"dataset name {name!r} is ambiguous in {root}: "
            f"{[str(p.relative_to(root)) for p in found]} (prefix it with its folder)"
        )
    return found[0]


def _open_text(path: Path) -> str:
    try:
        raw = path.read_bytes()
        return (gzip.decompress(raw) if path.name.endswith(".gz") else raw).decode("utf-8")
    except (OSError, UnicodeDecodeError, gzip.BadGzipFile) as err:
        raise ParseError(f"cannot read the dataset: {err}", path=str(path)) from None


def read_rows(path: Path) -> tuple[list[str], list[list[str]]]:
    """Header and rows of a (gzipped) CSV, TSV or ARFF file, as strings (``?`` when missing)."""
    text = _open_text(path)
    if ".arff" in path.name:
        return _read_arff(path, text)
    delimiter = "\t" if ".tsv" in path.name else ","
    rows = list(csv.reader(io.StringIO(text), delimiter=delimiter))
    rows = [r for r in rows if r]
    if len(rows) < 2:
        raise ParseError("expected a header line and at least one row", path=str(path))
    header = [h.strip() for h in rows[0]]
    for i, r in enumerate(rows[1:], start=2):
        if len(r) != len(header):
            raise ParseError(
                f"expected {len(header)} fields (as in the header), found {len(r)}",
                path=str(path),
                line=i,
            )
    return header, [[v.strip() for v in r] for r in rows[1:]]


def _read_arff(path: Path, text: str) -> tuple[list[str], list[list[str]]]:
    from scipy.io import arff

    try:
        data, meta = arff.loadarff(io.StringIO(text))
    except (ValueError, arff.ParseArffError) as err:
        raise ParseError(f"malformed ARFF: {err}", path=str(path)) from None
    header = list(meta.names())
    rows = []
    for rec in data:
        row = []
        for v in rec:
            if isinstance(v, bytes):
                row.append(v.decode("utf-8"))
            elif isinstance(v, float) and math.isnan(v):
                row.append("?")
            else:
                row.append(repr(float(v)) if isinstance(v, (float, np.floating)) else str(v))
        rows.append(row)
    return header, rows


def _column(values: list[str]) -> np.ndarray:
    try:
        numbers = np.array([float(v) for v in values])
    except ValueError:
        return np.array(values, dtype=object)
    if (numbers == np.round(numbers)).all() and np.isfinite(numbers).all():
        return numbers.astype(np.int64)
    return numbers


def load_dataset(
    name: str,
    data_dir: str | os.PathLike[str] | None = None,
    target: str | None = None,
    missing: MissingPolicy = "drop-rows",
) -> Dataset:
    """Read a dataset; features are inferred (see :func:`xpg.learn.feature_types.infer_feature`).

    Parameters
    ----------
    name : str
        ``"corral"``, ``"pmlb/corral"``, ``"xreason/zoo"`` or a path relative to the data dir.
    data_dir : path, optional
        Default :func:`default_data_dir`.
    target : str, optional
        The target column (default: the source's convention).
    missing : {"drop-rows", "drop-columns"}
        Drop the rows with a missing value, or the feature columns with one (rows whose
        target is missing are always dropped).
    """
    path = dataset_path(name, data_dir)
    header, rows = read_rows(path)
    if target is None:
        if "target" in header:
            target = "target"
        elif path.parent.name in FIRST_COLUMN_TARGET:
            target = header[0]
        else:
            target = header[-1]
    if target not in header:
        raise ParseError(f"no column named {target!r} (columns: {header})", path=str(path))
    t = header.index(target)
    if missing not in ("drop-rows", "drop-columns"):
        raise ParseError(f"missing: expected drop-rows or drop-columns, found {missing!r}")
    if missing == "drop-columns":
        keep = [i for i in range(len(header)) if i == t or not any(r[i] in MISSING for r in rows)]
        header = [header[i] for i in keep]
        rows = [[r[i] for i in keep] for r in rows]
        t = header.index(target)
    if not rows:
        raise ParseError("the file has no rows: expected at least one row of data", path=str(path))
    complete = [r for r in rows if not any(v in MISSING for v in r)]
    if not complete:
        if all(r[t] in MISSING for r in rows):
            raise ParseError(
                f"the target column {target!r} is missing in every row ({len(rows)})",
                path=str(path),
            )
        raise ParseError(
            "every row has a missing value (try missing='drop-columns')", path=str(path)
        )
    names = [h for i, h in enumerate(header) if i != t]
    columns = [_column([r[i] for r in complete]) for i in range(len(header))]
    y = columns[t]
    kept = [c for i, c in enumerate(columns) if i != t]
    numeric = all(c.dtype != object for c in kept)
    X: Any = (
        np.column_stack(kept).astype(np.float64)
        if numeric
        else np.array([list(r) for r in zip(*kept, strict=True)], dtype=object)
    )
    stem = path.name
    for s in SUFFIXES:
        stem = stem.removesuffix(s)
    return Dataset(
        name=stem,
        path=path,
        X=X,
        y=y,
        feature_names=names,
        target=target,
        features=infer_features(X, names),
        dropped_rows=len(rows) - len(complete),
    )
