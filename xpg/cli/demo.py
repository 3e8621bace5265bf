"""The main job: train a tree on bundled data, compile it, explain several decisions (with
the one explainer, :class:`xpg.Explainer`, over the compiled graph).

Examples
--------
>>> report = run_demo(n_instances=1, max_depth=3)
>>> report.instances[0].result.complete
True
"""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING, Any, NamedTuple

from xpg.cli.common import add_command, add_json_argument, braces, emit, int_between
from xpg.errors import InvalidParameterError

if TYPE_CHECKING:
    from xpg.explain.marco import EnumerationResult

#: The bundled scikit-learn datasets of the demo: name -> loader in ``sklearn.datasets``.
DATASETS = {"breast_cancer": "load_breast_cancer", "wine": "load_wine", "iris": "load_iris"}
#: The share of each dataset held out as the test set, whose rows the demo explains.
TEST_SIZE = 0.3
#: The seeds scikit-learn and numpy accept.
MAX_SEED = 2**32 - 1
#: Deeper than any tree these datasets (at most 569 rows) can grow; scikit-learn overflows on
#: depths beyond a C integer.
MAX_DEPTH = 10_000


# NamedTuples, not dataclasses: every ``xpg`` command imports this module, and dataclasses
# would make each of them import inspect (a few milliseconds of start-up)
class ExplainedInstance(NamedTuple):
    """One explained decision of the demo."""

    row: int
    prediction: Any
    axp: tuple[str, ...]
    axp_conditions: list[str]
    cxp: tuple[str, ...] | None
    cxp_change: dict[str, Any] | None
    cxp_class: Any
    result: EnumerationResult
    seconds: float


class DemoReport(NamedTuple):
    """Everything the demo printed, for tests and for ``--json``."""

    dataset: str
    n_features: int
    depth: int
    nodes: int
    accuracy: float
    compile_seconds: float
    instances: list[ExplainedInstance]


def run_demo(
    dataset: str = "breast_cancer", n_instances: int = 5, max_depth: int = 6, seed: int = 0
) -> DemoReport:
    """Train, compile, and explain ``n_instances`` test decisions of a depth-limited tree.

    Raises
    ------
    InvalidParameterError
        When ``n_instances`` exceeds the rows of the test set (the message says how many
        there are), or ``dataset``, ``max_depth`` or ``seed`` is out of range.
    """
    import numpy as np
    import sklearn.datasets
    from sklearn.model_selection import train_test_split
    from sklearn.tree import DecisionTreeClassifier

    from xpg.compile.sklearn_tree import from_sklearn_tree
    from xpg.core.features import real_features
    from xpg.explain.describe import explanation_conditions, explanation_counterexample
    from xpg.explain.engine import Explainer

    if dataset not in DATASETS:
        raise InvalidParameterError(
            f"unknown dataset {dataset!r}; expected one of {', '.join(DATASETS)}"
        )
    if not 1 <= max_depth <= MAX_DEPTH or not 0 <= seed <= MAX_SEED:
        raise InvalidParameterError(
            f"expected a depth from 1 to {MAX_DEPTH} and a seed from 0 to {MAX_SEED}, "
            f"found depth {max_depth} and seed {seed}"
        )
    data = getattr(sklearn.datasets, DATASETS[dataset])()
    X_train, X_test, y_train, y_test = train_test_split(
        data.data, data.target, test_size=TEST_SIZE, random_state=seed, stratify=data.target
    )
    if not 1 <= n_instances <= len(X_test):
        raise InvalidParameterError(
            f"--instances {n_instances}: the {dataset} test set has {len(X_test)} rows "
            f"({TEST_SIZE:.0%} of {len(data.data)}); ask for 1 to {len(X_test)}"
        )
    clf = DecisionTreeClassifier(max_depth=max_depth, random_state=seed).fit(X_train, y_train)
    start = time.perf_counter()
    dg = from_sklearn_tree(
        clf, real_features(data.feature_names), [str(n) for n in data.target_names]
    )
    dg.validate()
    report = DemoReport(
        dataset=dataset,
        n_features=len(data.feature_names),
        depth=int(clf.get_depth()),
        nodes=len(dg),
        accuracy=float(clf.score(X_test, y_test)),
        compile_seconds=time.perf_counter() - start,
        instances=[],
    )
    explainer = Explainer(dg)
    rows = np.random.default_rng(seed).choice(len(X_test), size=n_instances, replace=False)
    for row in sorted(rows.tolist()):
        start = time.perf_counter()
        with explainer.explain(list(X_test[row])) as decision:
            axp = decision.axp()
            cxp = decision.cxp()
            change, other = explanation_counterexample(decision, cxp) if cxp else (None, None)
            conditions = explanation_conditions(decision, axp)
            result = decision.enumerate()
        report.instances.append(
            ExplainedInstance(
                row=row,
                prediction=decision.prediction,
                axp=axp,
                axp_conditions=conditions,
                cxp=cxp,
                cxp_change=change,
                cxp_class=other,
                result=result,
                seconds=time.perf_counter() - start,
            )
        )
    return report


def format_report(report: DemoReport) -> str:
    """The demo's text output."""
    lines = [
        f"Decision tree on {report.dataset} ({report.n_features} real features): "
        f"depth {report.depth}, {report.nodes} nodes, test accuracy {report.accuracy:.3f}, "
        f"compiled and validated in {report.compile_seconds * 1000:.1f} ms",
        "",
    ]
    for k, inst in enumerate(report.instances, start=1):
        lines.append(f"[{k}] test row {inst.row}: predicted {inst.prediction!r}")
        lines.append(
            f"    why (one AXp, {len(inst.axp)} features): " + ", ".join(inst.axp_conditions)
        )
        if inst.cxp is None:
            lines.append("    why not (CXp): none, no change of features can change the prediction")
        else:
            change = ", ".join(f"{k} = {v:g}" for k, v in (inst.cxp_change or {}).items())
            lines.append(
                f"    why not (one CXp): change {braces(inst.cxp)}, "
                f"e.g. {change} gives {inst.cxp_class!r}"
            )
        res = inst.result
        lines.append(
            f"    all: {len(res.axps)} AXps, {len(res.cxps)} CXps "
            f"({'complete' if res.complete else 'incomplete'}, {res.sat_calls} SAT calls)"
        )
        for axp in res.axps:
            lines.append(f"      AXp {braces(axp)}")
        for cxp in res.cxps:
            lines.append(f"      CXp {braces(cxp)}")
        lines.append("")
    n_axp = sum(len(i.result.axps) for i in report.instances)
    n_cxp = sum(len(i.result.cxps) for i in report.instances)
    total = sum(i.seconds for i in report.instances)
    lines.append(
        f"Summary: {len(report.instances)} decisions explained, {n_axp} AXps and {n_cxp} CXps "
        f"in {total * 1000:.1f} ms ({total / max(1, len(report.instances)) * 1000:.2f} ms "
        "per decision, every list complete)"
        if all(i.result.complete for i in report.instances)
        else f"Summary: {len(report.instances)} decisions, {n_axp} AXps, {n_cxp} CXps "
        f"in {total * 1000:.1f} ms (some lists incomplete)"
    )
    return "\n".join(lines)


def report_to_json(report: DemoReport) -> dict[str, Any]:
    """The demo's ``--json`` document."""
    return {
        "dataset": report.dataset,
        "depth": report.depth,
        "nodes": report.nodes,
        "accuracy": report.accuracy,
        "instances": [
            {
                "row": i.row,
                "prediction": i.prediction,
                "axp": sorted(i.axp),
                "axp_conditions": i.axp_conditions,
                "cxp": sorted(i.cxp) if i.cxp else None,
                "cxp_change": i.cxp_change,
                "cxp_class": i.cxp_class,
                **i.result.to_json(),
            }
            for i in report.instances
        ],
    }


def cmd_demo(args: argparse.Namespace) -> int:
    """Handler of ``xpg demo``."""
    report = run_demo(args.dataset, args.instances, args.depth, args.seed)
    return emit(args, report_to_json(report), format_report(report))


def register(subparsers: Any) -> None:
    """Add ``demo`` to the ``xpg`` sub-commands."""
    p = add_command(
        subparsers,
        "demo",
        cmd_demo,
        help="train a tree on bundled data and explain several decisions",
        file_arguments=False,
        example="xpg demo --dataset wine --instances 3",
    )
    p.add_argument("--dataset", choices=list(DATASETS), default="breast_cancer")
    p.add_argument(
        "--instances",
        type=int_between(1, 2**31 - 1),
        default=5,
        help="decisions to explain: rows of the test set, drawn at random (at most the test "
        "set's size: 171 rows for breast_cancer, 54 for wine, 45 for iris)",
    )
    p.add_argument("--depth", type=int_between(1, MAX_DEPTH), default=6, help="maximum tree depth")
    p.add_argument(
        "--seed",
        type=int_between(0, MAX_SEED),
        default=0,
        help="seed of the train/test split, the tree and the rows drawn",
    )
    add_json_argument(p)
