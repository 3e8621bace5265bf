"""Why Cop's precision error is high: the rule loss it minimises against the precision error.

Cop (Koriche et al., Table 1) returns the k-rule of least empirical loss (Eq. 8) on m uniform
samples: its errors are the negatives it fires on *and the positives it does not fire on*.
The precision error (Eq. 1) only counts the negatives among the inputs it fires on.  For each
instance of the Table 2 protocol (``protocol.py``) this script lists, over every body of at
most k features, measured on a reference set of uniform inputs (all of {0, 1}^d when d <= 16,
so exact, else ``--samples`` fresh inputs):

* ``cop`` and ``sat``: the rules the solvers return (m = 1000 samples, as in Table 2);
* ``min-loss``: the body of least rule loss (Eq. 3) on the reference set, found by brute force;
* ``min-error``: the body of least precision error (ties: the smaller body).

Each with its rule loss, precision error and coverage (share of inputs it fires on), and the
share of inputs having the instance's class.  Writes ``cop_loss.csv`` to ``--out``.

Usage::

    python bench/probabilistic/cop_loss.py --datasets iris --instances 5
    python bench/probabilistic/cop_loss.py --datasets compas --instances 10 --samples 200000

References
----------
Koriche, Lagniez, Mengel, Tran. Learning Model Agnostic Explanations via Constraint
Programming, Eq. 1, 3, 8 and Table 1.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as a script: make the checkout's ``bench`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.probabilistic.common import (  # noqa: E402
    DATASETS,
    REPO_ROOT,
    data_dir,
    print_table,
    write_csv,
)
from bench.probabilistic.protocol import Settings, explain, prepare  # noqa: E402

EXACT_UP_TO = 16  # features: up to 2^16 inputs, the reference set is the whole cube


@dataclass(frozen=True)
class BodyScores:
    """Every body of at most k features with its coverage and the share of inputs it fires
    on that have the instance's class, over a reference set of inputs."""

    bodies: list[tuple[int, ...]]
    cover: np.ndarray  # P(fires)
    cover_positive: np.ndarray  # P(fires and has the instance's class)
    positive: float  # P(has the instance's class)

    @property
    def loss(self) -> np.ndarray:
        """Eq. 3: negatives fired on plus positives not fired on."""
        return (self.cover - self.cover_positive) + (self.positive - self.cover_positive)

    @property
    def error(self) -> np.ndarray:
        """Eq. 1: the share of negatives among the inputs fired on (0 when none)."""
        safe = np.where(self.cover > 0, self.cover, 1.0)
        return np.where(self.cover > 0, (self.cover - self.cover_positive) / safe, 0.0)


def score_bodies(agree: np.ndarray, same: np.ndarray, k: int, chunk: int = 2048) -> BodyScores:
    """Coverage of every body of at most ``k`` features on the rows of ``agree``.

    Parameters
    ----------
    agree : bool array (n, d)
        ``agree[i, j]``: input ``i`` has the instance's value on feature ``j``.
    same : bool array (n,)
        Input ``i`` has the instance's class.
    k : int
    chunk : int
        Bodies scored at once (memory: ``chunk * n / 8`` bytes per feature of the body).

    Examples
    --------
    >>> agree = np.array([[1, 1], [1, 0], [0, 1], [0, 0]], dtype=bool)
    >>> s = score_bodies(agree, np.array([True, True, False, False]), 2)
    >>> s.bodies, s.loss.tolist(), s.error.tolist()
    ([(), (0,), (1,), (0, 1)], [0.5, 0.0, 0.5, 0.25], [0.5, 0.0, 0.5, 0.0])
    """
    n, d = agree.shape
    bits = np.packbits(agree, axis=0).T  # (d, ceil(n / 8)): one bit per input, by feature
    valid = np.packbits(np.ones(n, dtype=bool))  # the padding bits are not inputs
    positive_bits = np.packbits(same)
    bodies = [b for r in range(k + 1) for b in itertools.combinations(range(d), r)]
    cover = np.empty(len(bodies))
    cover_positive = np.empty(len(bodies))
    for start in range(0, len(bodies), chunk):
        part = bodies[start : start + chunk]
        fires = np.broadcast_to(valid, (len(part), len(valid))).copy()
        for i, body in enumerate(part):
            for j in body:
                fires[i] &= bits[j]
        cover[start : start + len(part)] = np.bitwise_count(fires).sum(axis=1) / n
        fires &= positive_bits
        cover_positive[start : start + len(part)] = np.bitwise_count(fires).sum(axis=1) / n
    return BodyScores(bodies, cover, cover_positive, float(np.mean(same)))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data-dir",
        help="datasets folder (default: $XPG_SHARED_DIR/datasets or ../shared/datasets)",
    )
    parser.add_argument("--datasets", nargs="+", choices=sorted(DATASETS), default=["iris"])
    parser.add_argument("--instances", type=int, default=5, help="test instances per dataset")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--samples", type=int, default=200_000, help="reference inputs when d > 16")
    parser.add_argument("--deterministic-time", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--out", type=Path, default=REPO_ROOT / "bench" / "results" / "probabilistic"
    )
    args = parser.parse_args(argv)
    settings = Settings(k=args.k, deterministic_time=args.deterministic_time)
    header = ["dataset", "instance", "P(class of x)", "rule", "size", "loss", "error", "cover"]
    rows: list[list[object]] = []
    for name in args.datasets:
        task = prepare(name, data_dir(args.data_dir), args.instances, 1000, 20000, args.seed)
        if task.d <= EXACT_UP_TO:
            Z = np.array(list(itertools.product((0, 1), repeat=task.d)), dtype=float)
        else:
            Z = np.random.default_rng(args.seed + 1).integers(0, 2, (args.samples, task.d))
            Z = Z.astype(float)
        labels = np.concatenate(
            [task.model.predict(Z[i : i + 50_000]) for i in range(0, len(Z), 50_000)]
        )
        names = task.model.feature_names
        for n, x in enumerate(task.instances):
            scores = score_bodies(Z == x, labels == task.model.predict_one(x), args.k)
            where = {b: i for i, b in enumerate(scores.bodies)}
            sizes = np.array([len(b) for b in scores.bodies])
            picks = {}
            for method in ("cop", "sat"):
                r = explain(method, task, x, settings, args.seed * 100_003 + n)
                picks[method] = where[tuple(sorted(names.index(f) for f in r.features))]
            picks["min-loss"] = int(np.lexsort((sizes, scores.loss))[0])
            picks["min-error"] = int(np.lexsort((sizes, scores.error))[0])
            for rule, i in picks.items():
                rows.append(
                    [
                        name,
                        int(task.indices[n]),
                        f"{scores.positive:.4f}",
                        rule,
                        len(scores.bodies[i]),
                        f"{scores.loss[i]:.4f}",
                        f"{scores.error[i]:.4f}",
                        f"{scores.cover[i]:.4f}",
                    ]
                )
            print(f"{name} instance {n + 1}/{len(task.instances)} done", flush=True)
        write_csv(args.out / "cop_loss.csv", header, rows)
    print_table(header, rows)
    print(f"\nwrote {args.out / 'cop_loss.csv'}")


if __name__ == "__main__":
    start = time.perf_counter()
    main()
    print(f"total {time.perf_counter() - start:.0f} s")
