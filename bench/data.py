"""The benchmark datasets of the core paper, read from ``../shared/datasets`` with its protocol.

Protocol (Sec. 7 of the core paper): duplicate rows are removed; when more than 1,000
instances remain, 30% of them, drawn with a seeded generator, are the tested instances,
otherwise all of them.  Categorical strings (ARFF nominal attributes, string columns) are
coded as integers in sorted order, with a missing value ``?`` as a category of its own;
numeric features become boolean (values 0/1), integer (observed range) or real (unbounded)
features.

The data folder is ``--data-dir``, else :func:`xpg.learn.datasets.default_data_dir`
(``$XPG_SHARED_DIR/datasets``, else ``<repository root>/../shared/datasets``).  Nothing is
downloaded.

Examples
--------
>>> sorted(TABLE1)[:3]
['corral', 'mofn_3_7_10', 'mux6']
>>> SPECS["cancer"].file
'pmlb/breast_w.tsv.gz'

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Sec. 7 (datasets and protocol), Tables 1 and 2.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from xpg.core.features import Feature
from xpg.errors import DataNotFoundError, XpgError
from xpg.learn import datasets as xpg_datasets
from xpg.learn.datasets import SHARED_ENV, default_data_dir, read_rows

REPO_ROOT = Path(__file__).resolve().parent.parent


class DataError(XpgError, FileNotFoundError):
    """A benchmark dataset (or the data folder) is missing or unreadable."""


@dataclass(frozen=True)
class DatasetSpec:
    """Where a dataset lives under the data folder and which column is the class."""

    name: str
    file: str
    target: str  # "last" or "first"


def _pmlb(name: str, stem: str | None = None) -> DatasetSpec:
    stem = stem or name
    return DatasetSpec(name, f"pmlb/{stem}.tsv.gz", "last")


#: Table 1 (binary datasets, decision lists compiled to OBDDs); dbworld-* are not available.
TABLE1: dict[str, DatasetSpec] = {
    s.name: s
    for s in [
        _pmlb("corral"),
        _pmlb("mofn_3_7_10"),
        _pmlb("mux6"),
        _pmlb("parity5+5"),
        _pmlb("spect"),
        _pmlb("threeOf9"),
        _pmlb("xd6"),
    ]
}

#: Table 2 (depth-6 decision trees), under the paper's names; ``bank`` is not available.
TABLE2: dict[str, DatasetSpec] = {
    s.name: s
    for s in [
        _pmlb("adult"),
        _pmlb("agaricus-lepiota", "agaricus_lepiota"),
        DatasetSpec("anneal", "rulekit/anneal.arff.gz", "last"),
        _pmlb("cancer", "breast_w"),
        _pmlb("car"),
        _pmlb("chess"),
        _pmlb("churn"),
        _pmlb("colic"),
        _pmlb("collins"),
        _pmlb("dermatology"),
        DatasetSpec("divorce", "xreason/divorce.csv.gz", "last"),
        _pmlb("dna"),
        _pmlb("hayes-roth", "hayes_roth"),
        _pmlb("hepatitis"),
        _pmlb("house-votes-84", "house_votes_84"),
        _pmlb("iris"),
        _pmlb("irish"),
        _pmlb("kr-vs-kp", "kr_vs_kp"),
        _pmlb("lymphography"),
        _pmlb("molecular-biology-promoters", "molecular_biology_promoters"),
        _pmlb("monk1"),
        _pmlb("monk2"),
        _pmlb("monk3"),
        DatasetSpec("mouse", "xdl-tool/mouse.csv.gz", "last"),
        _pmlb("mushroom"),
        _pmlb("new-thyroid", "new_thyroid"),
        _pmlb("pendigits"),
        DatasetSpec("seismic-bumps", "rulekit/seismic-bumps.arff.gz", "last"),
        _pmlb("shuttle"),
        _pmlb("soybean"),
        _pmlb("spambase"),
        _pmlb("tic-tac-toe", "tic_tac_toe"),
        DatasetSpec("zoo", "xreason/zoo.csv.gz", "last"),
    ]
}

SPECS: dict[str, DatasetSpec] = {**TABLE1, **TABLE2}


@dataclass
class Dataset:
    """A deduplicated dataset: numeric matrix, class labels, features, tested instances."""

    name: str
    X: np.ndarray  # float64, one row per distinct instance
    y: np.ndarray  # class labels (strings or numbers)
    features: list[Feature]
    tested: np.ndarray  # row indices of the instances to explain
    n_rows_raw: int

    @property
    def feature_names(self) -> list[str]:
        return [f.name for f in self.features]

    def is_binary(self) -> bool:
        """True when every feature is boolean."""
        return all(f.kind == "boolean" for f in self.features)


def data_dir(option: str | os.PathLike[str] | None = None) -> Path:
    """The data folder: ``option``, else :func:`xpg.learn.datasets.default_data_dir`
    (``$XPG_SHARED_DIR/datasets``, else ``<repo>/../shared/datasets``).

    Raises
    ------
    DataError
        When the folder does not exist (the message says which one was tried and how to
        choose another), or when there is no default (xpg installed from a wheel and no
        variable set).
    """
    if option is not None:
        path, how = Path(option), "--data-dir"
    else:
        try:
            path = default_data_dir()
        except DataNotFoundError as err:
            raise DataError(f"{err}; or pass --data-dir DIR") from None
        # where the default came from ($XPG_SHARED_DIR/datasets, the checkout, ...), as
        # default_data_dir() found it
        _, how = xpg_datasets._data_dir_and_source()
    if not path.is_dir():
        raise DataError(
            f"data folder {path} (from {how}) does not exist: expected the benchmark datasets "
            f"of ../shared/datasets; pass --data-dir DIR or set {SHARED_ENV}"
        )
    return path


def _column_codes(values: list[str]) -> np.ndarray:
    """Numbers stay numbers (a missing ``?`` among numbers becomes one less than the minimum);
    any other column is coded 0, 1, ... in sorted order of its strings."""
    numbers = []
    for v in values:
        try:
            numbers.append(float(v))
        except ValueError:
            if v != "?":
                levels = sorted(set(values))
                code = {w: i for i, w in enumerate(levels)}
                return np.asarray([code[w] for w in values], dtype=np.float64)
            numbers.append(math.nan)
    out = np.asarray(numbers, dtype=np.float64)
    missing = np.isnan(out)
    if missing.any():
        out[missing] = np.nanmin(out) - 1.0 if not missing.all() else 0.0
    return out


def _feature(name: str, column: np.ndarray) -> Feature:
    if np.isin(column, (0.0, 1.0)).all():
        return Feature.boolean(name)
    if (column == np.round(column)).all():
        return Feature.integer(name, float(column.min()), float(column.max()))
    return Feature.real(name)


def load_dataset(
    name: str,
    folder: str | os.PathLike[str] | None = None,
    *,
    seed: int = 0,
    fraction: float = 0.3,
    threshold: int = 1000,
) -> Dataset:
    """Read one benchmark dataset and apply the paper's protocol.

    Parameters
    ----------
    name : str
        A key of :data:`SPECS` (the paper's dataset names).
    folder : path, optional
        The data folder (see :func:`data_dir`).
    seed : int
        Seed of the draw of tested instances.
    fraction, threshold : float, int
        ``fraction`` of the distinct instances are tested when there are more than
        ``threshold`` of them.

    Raises
    ------
    DataError
        When the dataset is unknown or its file is missing.
    """
    if name not in SPECS:
        raise DataError(f"unknown dataset {name!r}; expected one of {', '.join(sorted(SPECS))}")
    spec = SPECS[name]
    path = data_dir(folder) / spec.file
    if not path.is_file():
        raise DataError(f"dataset {name!r}: missing file {path} (see datasets/SOURCES.md)")
    header, rows = read_rows(path)
    width = len(header)
    t = width - 1 if spec.target == "last" else 0
    names = [h for j, h in enumerate(header) if j != t]
    raw_y = [r[t] for r in rows]
    labels = sorted(set(raw_y), key=_label_key)
    y_code = np.asarray([labels.index(v) for v in raw_y], dtype=np.float64)
    columns = [_column_codes([r[j] for r in rows]) for j in range(width) if j != t]
    table = np.column_stack([*columns, y_code])
    table = np.unique(table, axis=0)  # duplicate rows removed; sorted, so deterministic
    X = table[:, :-1]
    y = np.asarray([_label_value(labels[int(c)]) for c in table[:, -1]], dtype=object)
    features = [_feature(n, X[:, j]) for j, n in enumerate(names)]
    n = len(table)
    if n > threshold:
        rng = np.random.default_rng(seed)
        tested = np.sort(rng.choice(n, size=int(round(fraction * n)), replace=False))
    else:
        tested = np.arange(n)
    return Dataset(name, X, y, features, tested, n_rows_raw=len(rows))


def _label_key(label: str) -> tuple[int, float, str]:
    try:
        return (0, float(label), label)
    except ValueError:
        return (1, 0.0, label)


def _label_value(label: str) -> Any:
    """``"1"`` -> 1, ``"2.5"`` -> 2.5, anything else stays a string."""
    try:
        x = float(label)
    except ValueError:
        return label
    return int(x) if x == int(x) else x


def instance(ds: Dataset, row: int) -> list[Any]:
    """Row ``row`` as an instance for :meth:`DecisionGraph.predict` (feature order)."""
    out: list[Any] = []
    for f, v in zip(ds.features, ds.X[row].tolist(), strict=True):
        out.append(int(v) if f.kind in ("boolean", "integer") else float(v))
    return out
