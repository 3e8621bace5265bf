"""Shared by the probabilistic benchmarks: the datasets of Koriche et al.'s Table 2, their
3-bin one-hot discretisation, the paper's published figures, and output helpers."""

from __future__ import annotations

import csv
import gzip
import os
import sys
import tempfile
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.compose import ColumnTransformer
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import KBinsDiscretizer, OneHotEncoder

from xpg.core.features import Feature
from xpg.errors import DataNotFoundError
from xpg.learn.datasets import default_data_dir

REPO_ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Dataset:
    """One benchmark: where its file is and what Koriche et al. report for it (Table 2)."""

    name: str
    path: str  # under the data directory; the target is the last column
    paper_name: str
    paper_cop: str
    paper_sat: str
    paper_anchors: str
    paper_cop_seconds: float
    paper_sat_seconds: float


# Table 2 of Koriche, Lagniez, Mengel, Tran (m = 1000, k = 5): error mean (std) and seconds.
DATASETS: dict[str, Dataset] = {
    d.name: d
    for d in [
        Dataset(
            "compas",
            "xreason/compas.csv.gz",
            "compas",
            "0.09 (0.07)",
            "0.14 (0.09)",
            "0.59 (0.43)",
            60.01,
            0.16,
        ),
        Dataset(
            "pima",
            "pmlb/pima.tsv.gz",
            "diabetes",
            "0.08 (0.06)",
            "0.10 (0.07)",
            "0.62 (0.37)",
            31.91,
            0.03,
        ),
        Dataset(
            "heart",
            "pmlb/heart_c.tsv.gz",
            "heart disease",
            "0.17 (0.12)",
            "0.19 (0.10)",
            "0.32 (0.41)",
            60.01,
            1.79,
        ),
        Dataset(
            "vote",
            "pmlb/vote.tsv.gz",
            "vote",
            "0.07 (0.08)",
            "0.06 (0.06)",
            "0.30 (0.19)",
            60.01,
            0.16,
        ),
        Dataset(
            "iris",
            "pmlb/iris.tsv.gz",
            "iris",
            "0.02 (0.04)",
            "0.03 (0.06)",
            "0.41 (0.27)",
            0.33,
            0.06,
        ),
        Dataset(
            "mushroom",
            "pmlb/mushroom.tsv.gz",
            "mushroom",
            "0.18 (0.09)",
            "0.28 (0.12)",
            "0.53 (0.36)",
            60.04,
            0.85,
        ),
        Dataset(
            "adult",
            "pmlb/adult.tsv.gz",
            "adult census",
            "0.19 (0.21)",
            "0.24 (0.26)",
            "0.44 (0.12)",
            60.05,
            18.02,
        ),
        Dataset(
            "hepatitis",
            "pmlb/hepatitis.tsv.gz",
            "hepatitis",
            "0.14 (0.15)",
            "0.16 (0.17)",
            "0.28 (0.38)",
            59.97,
            6.75,
        ),
        Dataset(
            "shuttle",
            "pmlb/shuttle.tsv.gz",
            "shuttle",
            "0.09 (0.08)",
            "0.10 (0.08)",
            "0.30 (0.35)",
            1.88,
            0.04,
        ),
        Dataset(
            "lymph",
            "pmlb/lymphography.tsv.gz",
            "lymph",
            "0.19 (0.13)",
            "0.24 (0.14)",
            "0.32 (0.26)",
            60.01,
            5.26,
        ),
        Dataset(
            "credit",
            "pmlb/credit_a.tsv.gz",
            "credit approval",
            "0.12 (0.10)",
            "0.18 (0.13)",
            "0.97 (0.30)",
            60.02,
            2.99,
        ),
        Dataset(
            "australian",
            "pmlb/australian.tsv.gz",
            "australian",
            "0.14 (0.12)",
            "0.20 (0.13)",
            "0.51 (0.42)",
            60.05,
            7.13,
        ),
        Dataset(
            "postoperative",
            "pmlb/postoperative_patient_data.tsv.gz",
            "postoperative",
            "0.11 (0.17)",
            "0.17 (0.17)",
            "0.46 (0.29)",
            26.92,
            0.10,
        ),
        Dataset(
            "dermatology",
            "pmlb/dermatology.tsv.gz",
            "dermatology",
            "0.58 (0.38)",
            "0.64 (0.32)",
            "0.75 (0.27)",
            60.02,
            31.30,
        ),
        Dataset(
            "tae", "pmlb/tae.tsv.gz", "tae", "0.23 (0.21)", "0.30 (0.28)", "0.38 (0.36)", 0.46, 0.07
        ),
    ]
}

QUICK_DATASETS = ["compas", "iris", "vote"]


def data_dir(option: str | None) -> Path:
    """The data directory: the option, else :func:`xpg.learn.datasets.default_data_dir`
    ($XPG_SHARED_DIR/datasets, else ../shared/datasets)."""
    try:
        path = Path(option) if option else default_data_dir()
    except DataNotFoundError as err:
        sys.exit(f"error: {err}; or pass --data-dir")
    if not path.is_dir():
        sys.exit(
            f"error: data directory {path} not found; pass --data-dir or set XPG_SHARED_DIR "
            "(expected the project's shared datasets, default $XPG_SHARED_DIR/datasets, "
            "else ../shared/datasets beside the repository)"
        )
    return path


def load(
    dataset: Dataset, directory: Path, max_rows: int, seed: int
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Numeric features, labels (last column) and column names; large sets subsampled."""
    path = directory / dataset.path
    if not path.is_file():
        sys.exit(f"error: {path} not found (dataset {dataset.name!r}; see datasets/SOURCES.md)")
    sep = "\t" if path.name.endswith(".tsv.gz") else ","
    with gzip.open(path, "rt", newline="") as fh:
        rows = list(csv.reader(fh, delimiter=sep))
    header, body = rows[0], rows[1:]
    try:
        X = np.array([[float(v) for v in r[:-1]] for r in body])
    except ValueError as err:
        sys.exit(f"error: {path}: expected numeric feature values ({err})")
    y = np.array([r[-1].strip() for r in body])
    if len(X) > max_rows:
        keep = np.random.default_rng(seed).choice(len(X), max_rows, replace=False)
        X, y = X[keep], y[keep]
    return X, y, [h.strip() for h in header[:-1]]


@dataclass
class Binarised:
    """A train/test split discretised into 3 quantile bins per attribute, one-hot."""

    train: np.ndarray
    test: np.ndarray
    y_train: np.ndarray
    y_test: np.ndarray
    features: list[Feature]


def binarise(X: np.ndarray, y: np.ndarray, names: Sequence[str], seed: int) -> Binarised:
    """Koriche et al.'s protocol: 3 bins per attribute (scikit-learn), one-hot.

    Attributes with more than 3 values get scikit-learn's ``KBinsDiscretizer`` (3 quantile
    bins); attributes with at most 3 values (binary flags, small codes), on which quantile
    bins collapse into one constant column, get one bin per value (``OneHotEncoder``).
    """
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=seed)
    few = [j for j in range(X.shape[1]) if len(np.unique(X_train[:, j])) <= 3]
    many = [j for j in range(X.shape[1]) if j not in few]
    parts = []
    if many:
        kbins = KBinsDiscretizer(n_bins=3, encode="onehot-dense", strategy="quantile")
        parts.append(("bins", kbins, many))
    if few:
        parts.append(("values", OneHotEncoder(sparse_output=False, handle_unknown="ignore"), few))
    transformer = ColumnTransformer(parts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # quantile bins merging on tied values
        B_train = transformer.fit_transform(X_train)
        B_test = transformer.transform(X_test)
    labels = []
    if many:
        for j, edges in zip(many, transformer.named_transformers_["bins"].bin_edges_, strict=True):
            for lo, hi in zip(edges[:-1], edges[1:], strict=True):
                labels.append(f"{names[j]}[{lo:.4g},{hi:.4g})")
    if few:
        for j, values in zip(
            few, transformer.named_transformers_["values"].categories_, strict=True
        ):
            labels += [f"{names[j]}={v:.4g}" for v in values]
    features = [Feature.boolean(n) for n in _distinct(labels)]
    return Binarised(B_train, B_test, y_train, y_test, features)


def _distinct(labels: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else f"{label}#{seen[label]}")
    return out


def write_csv(path: Path, header: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    """Write the whole file or nothing (temporary file in the same folder, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(header)
            writer.writerows(rows)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def mean_std(values: Sequence[float]) -> str:
    """``mean (std)`` with two decimals, or ``-`` for no value."""
    if not len(values):
        return "-"
    return f"{np.mean(values):.2f} ({np.std(values):.2f})"


def print_table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    """A plain fixed-width table on stdout."""
    cells = [[str(c) for c in header]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    for k, r in enumerate(cells):
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))
        if k == 0:
            print("  ".join("-" * w for w in widths))
