"""``xpg learn tree|forest|boosted|list|risk-score`` and ``xpg import``: model files from data,
or from scikit-learn.

``xpg learn tree DATA --target COLUMN -o MODEL.json`` trains a scikit-learn decision tree
(``--learner optimal``: an optimal depth-limited tree, with pystreed) on a table (CSV, TSV,
gzip, JSON Lines, Parquet), ``xpg learn forest`` a random forest (or extra trees), ``xpg
learn boosted`` gradient-boosted trees, ``xpg learn list`` a RIPPER decision list
(``--learner cn2``: a CN2 rule list learned by Orange3 in an environment of its own),
``xpg learn risk-score`` a BBM-RS risk score (printing its score card too); all type each
column as a feature, hold out a test set, print the accuracy and size of the model and write
it as a JSON model file (:mod:`xpg.learn.from_table`).  ``xpg import ESTIMATOR -o
MODEL.json`` converts a trained ``DecisionTreeClassifier``, ``RandomForestClassifier``,
``ExtraTreesClassifier`` or ``GradientBoostingClassifier`` saved with skops, or with
pickle/joblib under ``--trust-pickle`` (:mod:`xpg.learn.estimator_import`).

Examples
--------
>>> import argparse
>>> parser = argparse.ArgumentParser(prog="xpg")
>>> register(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["learn", "tree", "d.csv", "--target", "y", "-o", "m.json"])
>>> args.func is cmd_learn_tree, args.max_depth, args.test_size, args.seed
(True, 6, 0.2, 0)
>>> args = parser.parse_args(["learn", "forest", "d.csv", "--target", "y", "-o", "m.json"])
>>> args.func is cmd_learn_ensemble, args.kind, args.trees, args.max_depth
(True, 'forest', 100, 6)
>>> args = parser.parse_args(["import", "t.skops", "-o", "m.json"])
>>> args.func is cmd_import, args.trust_pickle
(True, False)
"""

from __future__ import annotations

import argparse
from typing import Any

from xpg.cli.common import add_command, add_json_argument, emit, positive_float, positive_int

PICKLE_WARNING = (
    "unpickling runs any code the file's author put in it: use --trust-pickle only for files "
    "you trust, and prefer skops (skops.io.dump), which loads without running code"
)


def fraction(text: str) -> float:
    """An option value in [0, 1) (else a usage error)."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"expected a fraction in [0, 1), found {text!r}")
    return value


def max_features(text: str) -> str | int | float:
    """``--max-features``: sqrt, log2, all, an integer or a fraction in (0, 1] (else a usage
    error)."""
    from xpg.errors import InvalidParameterError
    from xpg.learn.ensemble_params import parse_max_features

    try:
        return parse_max_features(text)
    except InvalidParameterError:
        raise argparse.ArgumentTypeError(
            f"expected sqrt, log2, all, a positive integer or a fraction in (0, 1], found {text!r}"
        ) from None


def unit_fraction(text: str) -> float:
    """An option value in (0, 1] (else a usage error)."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"expected a fraction in (0, 1], found {text!r}")
    return value


def seed(text: str) -> int:
    """An option value that must be a non-negative integer (else a usage error)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, found {text!r}")
    return value


def _finish(
    args: argparse.Namespace, model: Any, doc: dict[str, Any], lines: list[str], learned: bool
) -> int:
    """Save the model and report; a ``learned`` model's untested features take any value of
    their kind (:func:`~xpg.learn.feature_types.declare_domains`)."""
    from xpg.io import save_model
    from xpg.learn.feature_types import declare_domains

    save_model(declare_domains(model) if learned else model, args.output)
    return emit(args, {"output": args.output, **doc}, "\n".join([*lines, f"wrote {args.output}"]))


def _learn(args: argparse.Namespace, learn_from_table: Any, /, **params: Any) -> Any:
    """``learn_from_table`` (a ``learn_*_from_table``) run on the command's table with its
    split and missing-value options and ``params``: its :class:`~xpg.learn.from_table.Learned`
    (``params`` may hold a ``learner``)."""
    return learn_from_table(
        args.data,
        args.target,
        seed=args.seed,
        test_size=args.test_size,
        missing=args.missing,
        **params,
    )


def _finish_learned(args: argparse.Namespace, learned: Any) -> int:
    """Save a learned model and print its report."""
    report = learned.report
    return _finish(args, learned.model, report.to_dict(), report.lines(), learned=True)


def cmd_learn_tree(args: argparse.Namespace) -> int:
    """Handler of ``xpg learn tree``."""
    from xpg.learn.from_table import learn_tree_from_table

    optimal: dict[str, Any] = {}
    if args.tree_learner == "optimal":
        optimal = {"learner": "optimal", "time_limit": args.time_limit}
        if args.complexity is not None:
            optimal["complexity"] = args.complexity
    elif args.time_limit is not None or args.complexity is not None:
        from xpg.errors import InvalidParameterError

        option = "--time-limit" if args.time_limit is not None else "--complexity"
        raise InvalidParameterError(f"{option} applies to --learner optimal only")
    params = {"max_depth": args.max_depth, "encoding": args.encoding, **optimal}
    return _finish_learned(args, _learn(args, learn_tree_from_table, **params))


def cmd_learn_ensemble(args: argparse.Namespace) -> int:
    """Handler of ``xpg learn forest`` and ``xpg learn boosted``."""
    from xpg.learn.ensemble_params import ensemble_params
    from xpg.learn.from_table import learn_ensemble_from_table

    kind = args.kind if args.library is None else BOOSTED_LIBRARIES[args.library]
    own = ensemble_params(  # refused here, before the table is read, when the library lacks one
        kind,
        max_features=args.max_features,
        min_samples_leaf=args.min_samples_leaf,
        class_weight=args.class_weight,
        subsample=args.subsample,
        learning_rate=args.learning_rate,
    )
    params = {"kind": kind, "n_trees": args.trees, "max_depth": args.max_depth, **own}
    return _finish_learned(args, _learn(args, learn_ensemble_from_table, **params))


def cmd_learn_list(args: argparse.Namespace) -> int:
    """Handler of ``xpg learn list``."""
    from xpg.learn.from_table import learn_list_from_table

    if args.list_learner == "cn2" and (args.positive is not None or args.max_rules is not None):
        from xpg.errors import InvalidParameterError

        raise InvalidParameterError("--positive and --max-rules apply to --learner ripper only")
    params = {"positive": args.positive, "learner": args.list_learner}
    if args.max_rules is not None:
        params["max_rules"] = args.max_rules
    return _finish_learned(args, _learn(args, learn_list_from_table, **params))


def cmd_learn_risk_score(args: argparse.Namespace) -> int:
    """Handler of ``xpg learn risk-score``: the report, then the score card."""
    from xpg.learn.from_table import learn_risk_score_from_table

    params = {"conditions": args.conditions, "tau": args.tau, "positive": args.positive}
    learned = _learn(args, learn_risk_score_from_table, **params)
    card = learned.model.describe()
    doc = {**learned.report.to_dict(), "score_card": card}
    return _finish(args, learned.model, doc, [*learned.report.lines(), card], learned=True)


def cmd_import(args: argparse.Namespace) -> int:
    """Handler of ``xpg import``."""
    from xpg.errors import InvalidModelError
    from xpg.learn.estimator_import import read_feature_spec
    from xpg.learn.importing import import_model
    from xpg.models.tree import DecisionTree, Split

    if args.target is not None and args.features_from is None:
        raise InvalidModelError("--target names the class column of --features-from DATA")
    features = read_feature_spec(args.features) if args.features is not None else None
    model = import_model(
        args.estimator,
        features,
        features_from=args.features_from,
        target=args.target,
        trust_pickle=args.trust_pickle,
    )
    kinds: dict[str, int] = {}
    for f in model.features:
        kinds[f.kind] = kinds.get(f.kind, 0) + 1
    if isinstance(model, DecisionTree):
        used = {node.feature for _, node in model.walk() if isinstance(node, Split)}
        size = {"nodes": len(model), "depth": model.depth}
        size_text = f"{len(model)} nodes, depth {model.depth}"
    else:
        used = set(model.tested_features())
        size = {"trees": len(model.trees), "nodes": model.n_nodes, "depth": model.max_depth}
        size_text = f"{len(model.trees)} trees, {model.n_nodes} nodes, depth {model.max_depth}"
    doc = {
        "estimator": args.estimator,
        "model": model.json_type,
        "classes": list(model.classes),
        "features": len(model.features),
        "feature_kinds": kinds,
        "size": size,
        "features_used": [f.name for f in model.features if f.name in used],
    }
    kind_text = ", ".join(f"{n} {k}" for k, n in kinds.items())
    lines = [
        f"{model.json_type} from {args.estimator}: {len(model.classes)} classes, "
        f"{len(model.features)} features ({kind_text})",
        f"size: {size_text}; features used: {len(used)}",
    ]
    # domains read off --features-from are learned; a --features file declares its own
    return _finish(args, model, doc, lines, learned=args.features is None)


def _data_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("data", metavar="DATA", help="a table: .csv, .tsv, .jsonl, .parquet (or .gz)")
    p.add_argument("--target", required=True, metavar="COLUMN", help="the class column")
    p.add_argument(
        "--seed", type=seed, default=0, help="seed of the train/test split and the learner"
    )
    p.add_argument(
        "--test-size",
        type=fraction,
        default=0.2,
        metavar="FRACTION",
        help="share of the rows held out for the test accuracy (default 0.2; 0: none)",
    )
    p.add_argument(
        "--missing",
        choices=("drop-rows", "drop-columns"),
        default="drop-rows",
        help="rows with a missing value are dropped (default), or the columns with one",
    )
    p.add_argument("-o", "--output", required=True, metavar="MODEL.json", help="file to write")
    add_json_argument(p)


#: ``xpg learn boosted --library NAME``: the kind of :func:`learn_ensemble_from_table` it trains
BOOSTED_LIBRARIES: dict[str, str] = {
    "sklearn": "boosted",
    "hist": "hist",
    "xgboost": "xgboost",
    "lightgbm": "lightgbm",
}

#: each learner's sub-command ``xpg learn NAME``: its help line, description and example
LEARNER_TEXTS: dict[str, tuple[str, str, str]] = {
    "tree": (
        "a decision tree: scikit-learn's CART, or an optimal tree (--learner optimal)",
        "Train scikit-learn's DecisionTreeClassifier, or with --learner optimal "
        "the most accurate tree of the depth limit on the training rows (STreeD, pystreed); "
        "categorical columns are encoded for it and tested by sets of their categories in "
        "the written model.",
        "xpg learn tree data.csv --target label --max-depth 4 -o tree.json",
    ),
    "forest": (
        "a scikit-learn random forest (or extra trees)",
        "Train scikit-learn's RandomForestClassifier (ExtraTreesClassifier with "
        "--extra-trees); the written model computes its predict exactly (soft voting). "
        "Categorical columns are given to the trees as category codes.",
        "xpg learn forest data.csv --target label --trees 50 -o forest.json",
    ),
    "boosted": (
        "gradient-boosted trees: scikit-learn, HistGradientBoosting, XGBoost or LightGBM",
        "Train gradient-boosted trees (--library sklearn: GradientBoostingClassifier with "
        "the log-loss, the default; hist: HistGradientBoostingClassifier; xgboost: "
        "XGBClassifier; lightgbm: LGBMClassifier); the written model computes the library's "
        "predict exactly. Categorical columns are given to the trees as category codes.",
        "xpg learn boosted data.csv --target y --library xgboost -o xgb.json",
    ),
    "list": (
        "a decision list: RIPPER (the 'rules' extra), or CN2 with Orange3 (--learner cn2)",
        "Learn a decision list with RIPPER (wittgenstein: pip install -e "
        "'.[rules]' from the clone), whose conditions test feature = value, so every feature "
        "column must be boolean, integer or categorical; or, with --learner cn2, an ordered "
        "CN2 rule list learned by Orange3 (the core paper's learner), which also tests "
        "real columns by thresholds. Orange3 runs in an environment of its own, created on "
        "first use in $XPG_ENVS_DIR/orange3 (default ~/.cache/xpg/envs/orange3; pip, about "
        "470 MB, a minute or so).",
        "xpg learn list data.csv --target label --positive yes -o list.json",
    ),
    "risk-score": (
        "a BBM-RS risk score (Moshkovitz, Yang and Chaudhuri 2021)",
        "Learn a risk score with BBM-RS: at most T conditions feature >= "
        "threshold with one point per boosting round, the positive class when the total "
        "score is >= 0. Feature columns must be numeric (boolean, integer or real) and the "
        "target must have two classes; the score card is printed in the data's own units.",
        "xpg learn risk-score data.csv --target y --conditions 5 -o card.json",
    ),
}


def _learner_parser(learners: Any, name: str) -> argparse.ArgumentParser:
    """The sub-command ``xpg learn NAME``, with its texts (:data:`LEARNER_TEXTS`) and the
    table arguments every learner takes."""
    helptext, description, example = LEARNER_TEXTS[name]
    p = learners.add_parser(
        name, help=helptext, description=description, epilog=f"example: {example}"
    )
    _data_arguments(p)
    return p


def _ensemble_arguments(p: argparse.ArgumentParser, kind: str) -> None:
    """The estimator parameters ``xpg learn forest|boosted`` pass on, each in the library's
    own name (:func:`~xpg.learn.ensemble_params.ensemble_params`; refused in one line where the
    library has none)."""
    p.add_argument(
        "--max-features",
        type=max_features,
        metavar="sqrt|log2|all|F|N",
        help="the features tried at each split: sqrt or log2 of their number, all, a "
        "fraction F in (0, 1] or N of them (XGBoost, LightGBM, hist: F or all); "
        + ("default sqrt" if kind == "forest" else "default all"),
    )
    p.add_argument(
        "--min-samples-leaf",
        type=positive_int,
        metavar="N",
        help="at least N training rows in a leaf (LightGBM: min_child_samples; "
        "not XGBoost); the library's default otherwise",
    )
    p.add_argument(
        "--class-weight",
        choices=("balanced", "none"),  # xpg.learn.ensemble_params.CLASS_WEIGHTS
        help="balanced: weigh the classes inversely to their frequency "
        + ("(default none)" if kind == "forest" else "(hist, lightgbm; default none)"),
    )
    if kind == "boosted":
        p.add_argument(
            "--subsample",
            type=unit_fraction,
            metavar="F",
            help="fit each round on a share F in (0, 1] of the rows (sklearn, xgboost; "
            "lightgbm: bagging every round); default 1",
        )


def register(subparsers: Any) -> None:
    """Add ``learn`` (``tree``, ``forest``, ``boosted``, ``list``, ``risk-score``) and
    ``import`` to the sub-commands."""
    p = add_command(
        subparsers,
        "learn",
        cmd_learn_tree,
        help="learn a model from a data table and write it as a JSON model file",
        description="Learn a model from a data table (CSV, TSV, JSON Lines, Parquet; "
        "gzip allowed). Each column is typed as a feature: 0/1 values boolean, integers "
        "integer on their observed range, strings categorical, other numbers real.",
        file_arguments=False,
        example="xpg learn tree data.csv --target label -o model.json",
    )
    learners = p.add_subparsers(dest="learner", metavar="LEARNER", required=True)
    tree = _learner_parser(learners, "tree")
    tree.add_argument("--max-depth", type=positive_int, default=6, help="default 6")
    tree.add_argument(
        "--encoding",
        choices=("one-hot", "ordinal"),
        default="one-hot",
        help="how the tree sees a categorical column: one 0/1 column per category "
        "(default) or one column of category codes",
    )
    tree.add_argument(
        "--learner",
        dest="tree_learner",
        choices=("cart", "optimal"),
        default="cart",
        help="cart: scikit-learn's greedy CART (default); optimal: the most accurate tree "
        "of depth at most --max-depth on the training rows (STreeD; pip install -e "
        "'.[optimal]' from the clone)",
    )
    tree.add_argument(
        "--time-limit",
        type=positive_float,
        metavar="SECONDS",
        help="stop the optimal tree's search after this long and keep the best tree found "
        "so far, reported as not proved optimal (default 60)",
    )
    tree.add_argument(
        "--complexity",
        type=fraction,
        metavar="CP",
        help="optimal tree: a cost per split, as a fraction of the training rows (a split "
        "must save CP x rows training errors; IAI's and CART's cp); default 0, no penalty",
    )
    tree.set_defaults(func=cmd_learn_tree)
    for kind, depth in (("forest", 6), ("boosted", 3)):
        ens = _learner_parser(learners, kind)
        ens.add_argument("--trees", type=positive_int, default=100, metavar="N", help="default 100")
        ens.add_argument("--max-depth", type=positive_int, default=depth, help=f"default {depth}")
        _ensemble_arguments(ens, kind)
        if kind == "forest":
            ens.add_argument(
                "--extra-trees",
                dest="kind",
                action="store_const",
                const="extra-trees",
                default="forest",
                help="extremely randomised trees (ExtraTreesClassifier)",
            )
            ens.set_defaults(learning_rate=None, library=None, subsample=None)
        else:
            ens.add_argument(
                "--learning-rate",
                type=positive_float,
                default=None,
                metavar="RATE",
                help="default 0.1",
            )
            ens.add_argument(
                "--library",
                choices=tuple(BOOSTED_LIBRARIES),
                default="sklearn",
                help="sklearn: GradientBoostingClassifier (default); hist: "
                "HistGradientBoostingClassifier; xgboost: XGBClassifier; lightgbm: "
                "LGBMClassifier (pip install -e '.[xgboost]' or '.[lightgbm]' from the clone)",
            )
            ens.set_defaults(kind="boosted")
        ens.set_defaults(func=cmd_learn_ensemble)
    rules = _learner_parser(learners, "list")
    rules.add_argument(
        "--learner",
        dest="list_learner",
        choices=("ripper", "cn2"),
        default="ripper",
        help="ripper (default) or cn2 (Orange3's CN2Learner with its defaults)",
    )
    rules.add_argument(
        "--positive",
        metavar="CLASS",
        help="ripper: the class whose rules come first (binary targets)",
    )
    rules.add_argument(
        "--max-rules", type=positive_int, help="ripper: at most this many rules per class"
    )
    rules.set_defaults(func=cmd_learn_list)
    risk = _learner_parser(learners, "risk-score")
    risk.add_argument(
        "--conditions",
        type=positive_int,
        required=True,
        metavar="T",
        help="boosting rounds, so at most T conditions (odd T avoids ties; the paper: 5..30)",
    )
    risk.add_argument(
        "--tau",
        type=fraction,
        default=0.05,
        help="noise level, a fraction of each feature's range (default 0.05)",
    )
    risk.add_argument(
        "--positive", metavar="CLASS", help="the class of a total score >= 0 (default: the greater)"
    )
    risk.set_defaults(func=cmd_learn_risk_score)

    p = add_command(
        subparsers,
        "import",
        cmd_import,
        help="write a trained tree model (XGBoost, LightGBM, scikit-learn) as a JSON model file",
        description="Convert a trained classifier into a JSON model file that predicts exactly "
        "what it predicts. The file is recognised by its content: an XGBoost JSON or UBJSON "
        "model or a LightGBM text model (save_model; neither library is needed), or a "
        "scikit-learn DecisionTreeClassifier, RandomForestClassifier, ExtraTreesClassifier, "
        "GradientBoostingClassifier, HistGradientBoostingClassifier or Pipeline "
        "(ColumnTransformer then a tree model) saved with skops (skops.io.dump). Feature "
        "names come from the model when it has them, else f0, f1, ... (x0, x1, ... for "
        "scikit-learn) or the header of --features-from. Pickle and joblib files load only "
        "with --trust-pickle: " + PICKLE_WARNING + ".",
        file_arguments=False,
        example="xpg import model.json --features-from data.csv -o xpg-model.json",
    )
    p.add_argument(
        "estimator",
        metavar="FILE",
        help="an XGBoost (.json/.ubj) or LightGBM (.txt) model, a .skops file (or a pickle)",
    )
    p.add_argument("-o", "--output", required=True, metavar="MODEL.json", help="file to write")
    source = p.add_mutually_exclusive_group()
    source.add_argument(
        "--features-from",
        metavar="DATA",
        help="name and type the features from the columns of this table (matched by the "
        "model's feature names, else in order); default: the model's names, real features",
    )
    source.add_argument(
        "--features",
        metavar="SPEC.json",
        help='a JSON list of features, as in a model file\'s "features"',
    )
    p.add_argument(
        "--target", metavar="COLUMN", help="the class column of --features-from, left out"
    )
    p.add_argument("--trust-pickle", action="store_true", help="load a pickle: " + PICKLE_WARNING)
    add_json_argument(p)
