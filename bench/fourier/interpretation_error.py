"""Interpretation error against neighbourhood radius, Fourier explainers against the usual ones.

Reproduces the protocol of the seed paper's Figure 3 / Appendix I tables on tabular models:
gradient boosting and an MLP (scikit-learn) trained on public datasets with 16 features or
more; for each explained test instance the removal game (removed features averaged over a
background of training rows, output = probability of the predicted class) is explained by
every method with the same budget of game queries, and each interpretation is scored on
neighbourhoods of radius 1, 2, 4, 8 and the whole cube (L1, mean squared error -- the paper's
"L2" --, root mean square, fraction with |error| >= 0.1).  Explainers run with the authors'
settings: Lasso alpha 0.01 for Harmonica, 0.001 for Harmonica-anchor, whose 2,000 / K local
queries come on top of the 2,000 uniform ones; LIME both as the ``lime`` package samples and
as the paper ran it (Captum: coin flips, Lasso 0.001).
Evaluation masks are shared by all methods and do not count towards the budget.

Writes ``interpretation_error.csv`` (one row per dataset, model, instance, method, radius),
``interpretation_error.png`` (mean L1 error against radius, one panel per model) and prints
the table of mean L1 errors with the best method per radius.

Usage::

    python bench/fourier/interpretation_error.py --quick
    python bench/fourier/interpretation_error.py --instances 10 --out bench/fourier/results

References
----------
Zhang, Yuan et al. Trade-off Between Efficiency and Consistency for Removal-based Explanations,
section 5.3, Figure 3, Appendix G and I.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import NamedTuple

import numpy as np
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from xpg.fourier import (
    FaithShapIndex,
    Harmonica,
    HarmonicaAnchor,
    KernelShapExplainer,
    LimeExplainer,
    LowDegree,
    ShapleyTaylorIndex,
    TabularGame,
    errors_on_masks,
)
from xpg.fourier.masks import neighbourhood_masks
from xpg.learn.datasets import default_data_dir

REPO_ROOT = Path(__file__).resolve().parents[2]
DATASETS = {  # name -> file under the data directory (PMLB, target column "target")
    "spect": "pmlb/spect.tsv.gz",
    "hepatitis": "pmlb/hepatitis.tsv.gz",
    "mushroom": "pmlb/mushroom.tsv.gz",
    "pendigits": "pmlb/pendigits.tsv.gz",
    "lymphography": "pmlb/lymphography.tsv.gz",
}
QUICK_DATASETS = ["spect", "hepatitis", "mushroom", "pendigits"]
RADII: list[int | None] = [1, 2, 4, 8, None]
METHODS = [
    "Harmonica-2",
    "Harmonica-3",
    "Harmonica-3 a=0.001",
    "Low-degree-2",
    "Low-degree-3",
    "Harmonica-anchor",
    "LIME",
    "LIME (paper)",
    "KernelSHAP",
    "Shapley-Taylor",
    "Faith-SHAP",
]
BASELINES = ["LIME", "LIME (paper)", "KernelSHAP", "Shapley-Taylor", "Faith-SHAP"]
#: Lasso penalties of the authors' code
HARMONICA_ALPHA = 0.01
ANCHOR_ALPHA = 0.001
MAX_TRAIN_ROWS = 3000
BACKGROUND_ROWS = 16


def load_pmlb(path: Path) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """A PMLB ``.tsv.gz``: a header, tab-separated numbers, the label in column ``target``."""
    with gzip.open(path, "rt") as handle:
        header = handle.readline().rstrip("\n").split("\t")
        data = np.loadtxt(handle, delimiter="\t", ndmin=2)
    label = header.index("target")
    features = [h for j, h in enumerate(header) if j != label]
    return np.delete(data, label, axis=1), data[:, label], features


def make_explainers(budget: int, seed: int) -> dict[str, object]:
    return {
        "Harmonica-2": Harmonica(
            degree=2, n_samples=budget, alpha=HARMONICA_ALPHA, random_state=seed
        ),
        "Harmonica-3": Harmonica(
            degree=3, n_samples=budget, alpha=HARMONICA_ALPHA, random_state=seed
        ),
        "Harmonica-3 a=0.001": Harmonica(degree=3, n_samples=budget, alpha=1e-3, random_state=seed),
        "Low-degree-2": LowDegree(degree=2, n_samples=budget, random_state=seed),
        "Low-degree-3": LowDegree(degree=3, n_samples=budget, random_state=seed),
        "Harmonica-anchor": HarmonicaAnchor(
            degree=3,
            n_anchors=3,
            n_samples=budget,
            alpha=ANCHOR_ALPHA,
            local_queries="extra",
            random_state=seed,
        ),
        "LIME": LimeExplainer(n_samples=budget, random_state=seed),
        "LIME (paper)": LimeExplainer(n_samples=budget, setup="paper", random_state=seed),
        "KernelSHAP": KernelShapExplainer(n_samples=budget, random_state=seed),
        "Shapley-Taylor": ShapleyTaylorIndex(order=2, n_samples=budget, random_state=seed),
        "Faith-SHAP": FaithShapIndex(order=2, n_samples=budget, random_state=seed),
    }


def models(seed: int) -> dict[str, object]:
    return {
        "gradient-boosting": GradientBoostingClassifier(random_state=seed),
        "mlp": make_pipeline(
            StandardScaler(),
            MLPClassifier(hidden_layer_sizes=(64, 64), max_iter=600, random_state=seed),
        ),
    }


def radius_label(radius: int | None) -> str:
    return "full" if radius is None else str(radius)


def write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    with os.fdopen(fd, "w", newline="") as handle:
        handle.write(text)
    os.chmod(tmp, 0o644)  # mkstemp creates files readable by the owner only
    os.replace(tmp, path)


class Split(NamedTuple):
    """One dataset as the paper's runs use it: a seeded stratified 75/25 split (training rows
    capped at ``MAX_TRAIN_ROWS``), the background rows and the explained test rows."""

    X: np.ndarray
    X_train: np.ndarray
    X_test: np.ndarray
    y_train: np.ndarray
    y_test: np.ndarray
    background: np.ndarray
    explained: np.ndarray


def split_dataset(args: argparse.Namespace, name: str) -> Split:
    """:class:`Split` of dataset ``name`` under ``args.data_dir``, ``args.seed`` and
    ``args.instances`` (the run stops with a message when the file is missing)."""
    path = args.data_dir / DATASETS[name]
    if not path.exists():
        sys.exit(f"missing dataset {path}: pass --data-dir or set XPG_SHARED_DIR")
    X, y, _ = load_pmlb(path)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.25, random_state=args.seed, stratify=y
    )
    rng = np.random.default_rng(args.seed)
    if len(X_train) > MAX_TRAIN_ROWS:
        keep = rng.choice(len(X_train), MAX_TRAIN_ROWS, replace=False)
        X_train, y_train = X_train[keep], y_train[keep]
    background = X_train[rng.choice(len(X_train), BACKGROUND_ROWS, replace=False)]
    explained = X_test[rng.choice(len(X_test), args.instances, replace=False)]
    return Split(X, X_train, X_test, y_train, y_test, background, explained)


def run(args: argparse.Namespace) -> list[dict[str, object]]:
    names = QUICK_DATASETS if args.quick else list(DATASETS)
    rows: list[dict[str, object]] = []
    for name in names:
        X, X_train, X_test, y_train, _, background, explained = split_dataset(args, name)
        for model_name, model in models(args.seed).items():
            model.fit(X_train, y_train)  # type: ignore[attr-defined]
            accuracy = model.score(X_test, _)  # type: ignore[attr-defined]
            print(
                f"{name} ({X.shape[1]} features) {model_name}: test accuracy {accuracy:.3f}",
                flush=True,
            )
            for k, instance in enumerate(explained):
                game = TabularGame(model, instance, background=background)
                eval_rng = np.random.default_rng(args.seed + 1000 + k)
                evaluation = []
                for radius in RADII:
                    masks, exact = neighbourhood_masks(
                        game.n_players, radius, args.eval_samples, eval_rng
                    )
                    evaluation.append((radius, masks, game(masks), exact))
                for method, explainer in make_explainers(args.budget, args.seed + k).items():
                    start = time.perf_counter()
                    explainer.fit(game)  # type: ignore[attr-defined]
                    seconds = time.perf_counter() - start
                    interpretation = explainer.interpretation_  # type: ignore[attr-defined]
                    for radius, masks, values, exact in evaluation:
                        err = errors_on_masks(interpretation, masks, values, 0.1, radius, exact)
                        rows.append(
                            {
                                "dataset": name,
                                "n_features": X.shape[1],
                                "model": model_name,
                                "instance": k,
                                "method": method,
                                "radius": radius_label(radius),
                                "l1": round(err.l1, 6),
                                "mse": round(err.mse, 8),
                                "rms": round(err.rms, 6),
                                "fraction_above_0.1": round(err.fraction_above, 6),
                                "n_eval_masks": err.n_masks,
                                "exact_eval": exact,
                                "n_queries": explainer.n_queries_,  # type: ignore[attr-defined]
                                "fit_seconds": round(seconds, 4),
                            }
                        )
    return rows


def mean_table(rows: list[dict[str, object]], metric: str, model: str | None = None):
    cells: dict[tuple[str, str], list[float]] = defaultdict(list)
    for r in rows:
        if model is None or r["model"] == model:
            cells[(str(r["method"]), str(r["radius"]))].append(float(r[metric]))  # type: ignore[arg-type]
    return {key: float(np.mean(v)) for key, v in cells.items()}


def format_table(rows: list[dict[str, object]], metric: str, model: str | None = None) -> str:
    table = mean_table(rows, metric, model)
    labels = [radius_label(r) for r in RADII]
    lines = [
        f"| method | {' | '.join('r=' + lab for lab in labels)} |",
        "|---" * (len(labels) + 1) + "|",
    ]
    for method in METHODS:
        cells = " | ".join(f"{table[(method, lab)]:.4f}" for lab in labels)
        lines.append(f"| {method} | {cells} |")
    lowest = " | ".join(min(METHODS, key=lambda m: table[(m, lab)]) for lab in labels)
    lines.append(f"| lowest | {lowest} |")
    return "\n".join(lines)


def harmonica3_summary(rows: list[dict[str, object]], h3: str = "Harmonica-3") -> str:
    """Per dataset and model: the lowest mean L1 error at each radius, and whether ``h3``
    beats every non-Fourier baseline there."""
    labels = [radius_label(r) for r in RADII]
    cells: dict[tuple[str, str, str, str], list[float]] = defaultdict(list)
    for r in rows:
        key = (str(r["dataset"]), str(r["model"]), str(r["method"]), str(r["radius"]))
        cells[key].append(float(r["l1"]))  # type: ignore[arg-type]
    pairs = sorted({(str(r["dataset"]), str(r["model"])) for r in rows})
    lines = [
        f"| dataset | model | {' | '.join('r=' + lab for lab in labels)} |",
        "|---" * (len(labels) + 2) + "|",
    ]
    beats = {lab: 0 for lab in labels}
    for dataset, model in pairs:
        out = []
        for lab in labels:
            mean = {m: float(np.mean(cells[(dataset, model, m, lab)])) for m in METHODS}
            best = min(METHODS, key=mean.__getitem__)
            wins = all(mean[h3] < mean[b] for b in BASELINES)
            beats[lab] += wins
            out.append(f"{best}{'' if wins else ' (' + h3 + ' beaten by a baseline)'}")
        lines.append(f"| {dataset} | {model} | {' | '.join(out)} |")
    lines.append(
        f"\n{h3} below every baseline ("
        + ", ".join(BASELINES)
        + "): "
        + ", ".join(f"r={lab} {beats[lab]}/{len(pairs)}" for lab in labels)
    )
    return "\n".join(lines)


def plot(rows: list[dict[str, object]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    model_names = sorted({str(r["model"]) for r in rows})
    fig, axes = plt.subplots(
        1, len(model_names), figsize=(6 * len(model_names), 4.5), squeeze=False
    )
    labels = [radius_label(r) for r in RADII]
    for ax, model in zip(axes[0], model_names, strict=True):
        table = mean_table(rows, "l1", model)
        for method in METHODS:
            style = "-o" if method.startswith(("Harmonica", "Low")) else "--s"
            ax.plot(
                range(len(labels)),
                [table[(method, lab)] for lab in labels],
                style,
                label=method,
                markersize=4,
            )
        ax.set_xticks(range(len(labels)), labels)
        ax.set_xlabel("neighbourhood radius (removed features)")
        ax.set_ylabel("mean L1 interpretation error")
        ax.set_yscale("log")
        ax.set_title(model)
        ax.grid(alpha=0.3)
    handles, names = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, names, loc="lower center", ncol=5, fontsize=8)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp.png")
    os.close(fd)
    fig.savefig(tmp, dpi=120)
    plt.close(fig)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data-dir",
        type=Path,
        help="folder holding pmlb/ (default: $XPG_SHARED_DIR/datasets or ../shared/datasets)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=REPO_ROOT / "bench" / "results" / "fourier",
        help="output folder for the CSV and the PNG (default bench/results/fourier, git-ignored; "
        "the published results are in bench/fourier/results)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="four datasets, one instance per model, 500 evaluation masks",
    )
    parser.add_argument("--instances", type=int, default=20, help="instances per dataset and model")
    parser.add_argument("--budget", type=int, default=2000, help="game queries per explainer")
    parser.add_argument(
        "--eval-samples",
        type=int,
        default=2000,
        help="evaluation masks per radius (neighbourhoods at most this large are enumerated)",
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.data_dir is None:
        args.data_dir = default_data_dir()
    if args.quick:
        args.instances, args.eval_samples = 1, 500
    start = time.perf_counter()
    rows = run(args)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    write_atomically(args.out / "interpretation_error.csv", buffer.getvalue())
    plot(rows, args.out / "interpretation_error.png")
    for model in [None, "gradient-boosting", "mlp"]:
        print(f"\nmean L1 interpretation error ({model or 'all models'}):")
        print(format_table(rows, "l1", model))
    print("\nmean squared interpretation error, the paper's 'L2' (all models):")
    print(format_table(rows, "mse"))
    print("\nroot mean square interpretation error (all models):")
    print(format_table(rows, "rms"))
    print("\nfraction of masks with |error| >= 0.1 (all models):")
    print(format_table(rows, "fraction_above_0.1"))
    for h3 in ("Harmonica-3", "Harmonica-3 a=0.001"):
        print(f"\nlowest mean L1 error per dataset and model, against {h3}:")
        print(harmonica3_summary(rows, h3))
    queries = defaultdict(list)
    for r in rows:
        queries[r["method"]].append(int(r["n_queries"]))  # type: ignore[call-overload]
    print("\nmax game queries per fit: " + ", ".join(f"{m} {max(queries[m])}" for m in METHODS))
    print(
        f"\nwrote {args.out / 'interpretation_error.csv'} and "
        f"{args.out / 'interpretation_error.png'} in {time.perf_counter() - start:.0f} s"
    )


if __name__ == "__main__":
    main()
