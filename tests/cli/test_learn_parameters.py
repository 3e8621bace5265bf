"""``xpg learn forest|boosted`` pass the common estimator parameters on (issue 32):
``--max-features``, ``--min-samples-leaf``, ``--class-weight`` and, boosting, ``--subsample``
and ``--learning-rate``, each in the library's own name.  The fitted estimator holds what was
asked for, the file written is the model learned with them, a library without the parameter
is refused in one line (exit status 2), as is a bad value."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import shared_path

from xpg.cli.main import main
from xpg.io import model_to_dict
from xpg.learn import learn_ensemble_from_table
from xpg.learn.ensemble_params import ensemble_params
from xpg.learn.feature_types import declare_domains

PIMA = "pmlb/pima.tsv.gz"

#: (command, --library, the options, what the fitted estimator must hold)
CASES: list[tuple[str, str | None, list[str], dict[str, Any]]] = [
    (
        "forest",
        None,
        ["--max-features", "log2", "--min-samples-leaf", "9", "--class-weight", "balanced"],
        {"max_features": "log2", "min_samples_leaf": 9, "class_weight": "balanced"},
    ),
    ("forest", None, ["--max-features", "all"], {"max_features": None}),
    ("forest", None, ["--max-features", "3"], {"max_features": 3}),
    (
        "boosted",
        "sklearn",
        ["--max-features", "0.5", "--min-samples-leaf", "7", "--subsample", "0.7"],
        {"max_features": 0.5, "min_samples_leaf": 7, "subsample": 0.7},
    ),
    (
        "boosted",
        "hist",
        ["--max-features", "0.5", "--min-samples-leaf", "7", "--class-weight", "balanced"],
        {"max_features": 0.5, "min_samples_leaf": 7, "class_weight": "balanced"},
    ),
    (
        "boosted",
        "xgboost",
        ["--max-features", "0.5", "--subsample", "0.7", "--learning-rate", "0.3"],
        {"colsample_bynode": 0.5, "subsample": 0.7, "learning_rate": 0.3},
    ),
    (
        "boosted",
        "lightgbm",
        ["--max-features", "0.5", "--min-samples-leaf", "7", "--class-weight", "balanced"]
        + ["--subsample", "0.7"],
        {
            "feature_fraction_bynode": 0.5,
            "min_child_samples": 7,
            "class_weight": "balanced",
            "subsample": 0.7,
            "subsample_freq": 1,
        },
    ),
]


def _argv(command: str, library: str | None, out: Path) -> list[str]:
    data = str(shared_path("datasets", PIMA))
    argv = ["learn", command, data, "--target", "target", "--trees", "8", "--seed", "1"]
    return [*argv, *(["--library", library] if library else []), "-o", str(out), "--json"]


def _kind(command: str, library: str | None) -> str:
    from xpg.cli.learn import BOOSTED_LIBRARIES

    return "forest" if library is None else BOOSTED_LIBRARIES[library]


@pytest.mark.parametrize(
    ("command", "library", "options", "expected"),
    CASES,
    ids=[f"{c}-{lib or ''}-{i}" for i, (c, lib, _, _) in enumerate(CASES)],
)
def test_the_parameters_reach_the_estimator(
    command: str,
    library: str | None,
    options: list[str],
    expected: dict[str, Any],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    if library in ("xgboost", "lightgbm"):
        pytest.importorskip(library)
    out = tmp_path / "m.json"
    assert main([*_argv(command, library, out), *options]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["parameters"] == expected  # read back from the fitted estimator
    # the same learner in Python: its fitted estimator holds them, and the file is its model
    data = shared_path("datasets", PIMA)
    kind = _kind(command, library)
    depth = 6 if command == "forest" else 3
    asked = learn_ensemble_from_table(
        data, "target", kind, n_trees=8, max_depth=depth, seed=1, **expected
    )
    held = asked.estimator.get_params()
    assert {k: held[k] for k in expected} == expected
    written = json.loads(out.read_text())  # untested features widened, as xpg learn does
    assert written == json.loads(json.dumps(model_to_dict(declare_domains(asked.model))))
    # and the parameters change the model: a CLI that dropped them would write another file
    default = learn_ensemble_from_table(data, "target", kind, n_trees=8, max_depth=depth, seed=1)
    assert written != json.loads(json.dumps(model_to_dict(declare_domains(default.model))))
    assert default.report.details == {}  # nothing asked for, nothing reported


def test_the_parameters_are_stated_in_the_text_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "m.json"
    argv = [a for a in _argv("forest", None, out) if a != "--json"]
    assert main([*argv, "--max-features", "all", "--min-samples-leaf", "4"]) == 0
    assert "parameters: max_features=none, min_samples_leaf=4" in capsys.readouterr().out


BAD: list[tuple[str, str | None, list[str], str]] = [
    ("forest", None, ["--max-features", "0"], "argument --max-features: expected sqrt, log2"),
    ("forest", None, ["--max-features", "1.5"], "found '1.5'"),
    ("forest", None, ["--max-features", "half"], "found 'half'"),
    ("forest", None, ["--min-samples-leaf", "0"], "argument --min-samples-leaf"),
    ("forest", None, ["--class-weight", "auto"], "argument --class-weight: invalid choice"),
    ("forest", None, ["--subsample", "0.5"], "unrecognized arguments: --subsample"),
    ("boosted", "sklearn", ["--subsample", "0"], "--subsample: expected a fraction in (0, 1]"),
    ("boosted", "sklearn", ["--subsample", "1.2"], "found '1.2'"),
    (
        "boosted",
        "sklearn",
        ["--class-weight", "balanced"],
        "--class-weight: GradientBoostingClassifier has no such parameter",
    ),
    ("boosted", "hist", ["--subsample", "0.5"], "HistGradientBoostingClassifier has no such"),
    ("boosted", "hist", ["--max-features", "sqrt"], "give a fraction in (0, 1] or all"),
    ("boosted", "xgboost", ["--min-samples-leaf", "5"], "XGBClassifier has no such parameter"),
    ("boosted", "xgboost", ["--class-weight", "balanced"], "XGBClassifier has no such"),
    ("boosted", "lightgbm", ["--max-features", "3"], "--max-features 3: LGBMClassifier samples"),
]


@pytest.mark.parametrize(("command", "library", "options", "message"), BAD)
def test_bad_values_and_missing_parameters_are_one_line(
    command: str,
    library: str | None,
    options: list[str],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "m.json"
    argv = [a for a in _argv(command, library, out) if a != "--json"]
    assert main([*argv, *options]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
    assert not out.exists()


def test_the_python_names_are_each_librarys() -> None:
    """``ensemble_params`` in the library's names, and refusals name the library's class."""
    assert ensemble_params("extra-trees", max_features=0.25) == {"max_features": 0.25}
    assert ensemble_params("hist", max_features="all") == {"max_features": 1.0}
    assert ensemble_params("boosted", class_weight="none") == {}
    assert ensemble_params("xgboost", learning_rate=0.5) == {"learning_rate": 0.5}
    from xpg.errors import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="RandomForestClassifier has no such"):
        ensemble_params("forest", subsample=0.5)
    with pytest.raises(InvalidParameterError, match="expected a positive integer, found 2.5"):
        ensemble_params("forest", min_samples_leaf=2.5)  # type: ignore[arg-type]


@pytest.mark.parametrize("command", ["forest", "boosted"])
def test_help_lines_fit_78_columns(
    command: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["learn", command, "--help"]) == 0
    text = capsys.readouterr().out
    assert "--max-features" in text and "--min-samples-leaf" in text and "--class-weight" in text
    assert ("--subsample" in text) == (command == "boosted")
    assert max(len(line) for line in text.splitlines()) <= 78
