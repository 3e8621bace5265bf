"""``xpg import`` recognises boosted-tree files by content, ``xpg learn boosted --library``
trains each library's model, and both write models that predict what the library predicts."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import xpg
from xpg.cli.main import main
from xpg.errors import InvalidModelError, UnsupportedModelError
from xpg.learn import learn_ensemble_from_table
from xpg.learn.importing import file_format

xgb = pytest.importorskip("xgboost")
lgb = pytest.importorskip("lightgbm")
sio = pytest.importorskip("skops.io")

pytestmark = pytest.mark.slow  # trains a model of every library


def _data(seed: int = 0, n: int = 300) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(n, 3)).astype(float)
    X[rng.random(n) < 0.1, 2] = np.nan  # the libraries route missing values
    y = ((X[:, 0] + X[:, 1] > 3) ^ (rng.random(n) < 0.1)).astype(int)
    return X, y


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, object]]:
    """Model files of every format, with misleading names (content decides), and their
    fitted estimators."""
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder

    tmp = tmp_path_factory.mktemp("models")
    X, y = _data()
    out: dict[str, tuple[Path, object]] = {}
    m = xgb.XGBClassifier(n_estimators=6, max_depth=3, n_jobs=1).fit(X, y)
    for name, ext in (("xgboost-json", "json"), ("xgboost-ubjson", "ubj")):
        path = tmp / f"model.{ext}"
        m.save_model(path)
        path.rename(tmp / f"{name}.bin")
        out[name] = (tmp / f"{name}.bin", m)
    lg = lgb.LGBMClassifier(n_estimators=6, verbose=-1, n_jobs=1).fit(X, y)
    lg.booster_.save_model(tmp / "lightgbm.bin")
    out["lightgbm"] = (tmp / "lightgbm.bin", lg)
    hgb = HistGradientBoostingClassifier(max_iter=6, random_state=0).fit(X, y)
    sio.dump(hgb, tmp / "hist.bin")
    out["hist"] = (tmp / "hist.bin", hgb)
    frame = pd.DataFrame(
        {"colour": np.array(["red", "green", "blue"])[X[:, 0].astype(int) % 3], "size": X[:, 1]}
    )
    pipe = Pipeline(
        [
            (
                "encode",
                ColumnTransformer(
                    [("onehot", OneHotEncoder(), ["colour"])], remainder="passthrough"
                ),
            ),
            ("model", HistGradientBoostingClassifier(max_iter=6, random_state=0)),
        ]
    ).fit(frame, y)
    sio.dump(pipe, tmp / "pipeline.bin")
    out["pipeline"] = (tmp / "pipeline.bin", (pipe, frame))
    return out


@pytest.mark.parametrize("name", ["xgboost-json", "xgboost-ubjson", "lightgbm", "hist"])
def test_import_recognises_the_file_and_predicts_as_the_library(
    files: dict[str, tuple[Path, object]],
    name: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path, est = files[name]
    if name != "hist":
        assert file_format(path.read_bytes()[:4096]) == name
    out = tmp_path / "m.json"
    assert main(["import", str(path), "-o", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["model"] == "gbdt" and doc["features"] == 3
    model = xpg.read_model(out)
    X, _ = _data(seed=1)
    assert model.predict_batch(X).tolist() == est.predict(X).tolist()  # type: ignore[attr-defined]


def test_import_pipeline_names_the_original_columns(
    files: dict[str, tuple[Path, object]], tmp_path: Path
) -> None:
    path, (pipe, frame) = files["pipeline"]  # type: ignore[misc]
    out = tmp_path / "m.json"
    assert main(["import", str(path), "-o", str(out)]) == 0
    model = xpg.read_model(out)
    assert [f.name for f in model.features] == ["colour", "size"]
    rows = frame.to_dict("records")
    assert [model.predict(r) for r in rows] == pipe.predict(frame).tolist()


def test_features_from_names_unnamed_models(
    files: dict[str, tuple[Path, object]], tmp_path: Path
) -> None:
    X, y = _data()
    table = tmp_path / "data.csv"
    pd.DataFrame(X, columns=["p", "q", "r"]).assign(label=y).to_csv(table, index=False)
    out = tmp_path / "m.json"
    path, _ = files["xgboost-json"]
    assert (
        main(
            [
                "import",
                str(path),
                "--features-from",
                str(table),
                "--target",
                "label",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    assert [f.name for f in xpg.read_model(out).features] == ["p", "q", "r"]
    assert [f.name for f in xpg.import_model(path).features] == ["f0", "f1", "f2"]


def test_bad_files_exit_2_with_one_line(
    files: dict[str, tuple[Path, object]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junk = tmp_path / "junk.json"
    junk.write_text('{"hello": 1}')
    cut = tmp_path / "cut.json"
    cut.write_bytes(files["xgboost-json"][0].read_bytes()[:300])
    regression = tmp_path / "reg.json"
    X, y = _data()
    xgb.XGBRegressor(n_estimators=2, n_jobs=1).fit(X, y).save_model(regression)
    for path, message in (
        (junk, "not a model file xpg reads"),
        (cut, "cut.json: "),
        (regression, "reg:"),
    ):
        assert main(["import", str(path), "-o", str(tmp_path / "m.json")]) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and message in err, err
        assert not (tmp_path / "m.json").exists()
    with pytest.raises(UnsupportedModelError):
        xpg.import_model(regression)
    with pytest.raises(InvalidModelError, match="expected an XGBoost Booster"):
        xpg.import_model(object())


@pytest.mark.parametrize("library", ["sklearn", "hist", "xgboost", "lightgbm"])
def test_learn_boosted_library(library: str, tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    n = 200
    frame = pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "blue"], n),
            "a": rng.integers(0, 5, n),
            "r": rng.normal(size=n).round(2),
        }
    )
    frame["y"] = np.where((frame.colour == "red") & (frame.a > 1) | (frame.r > 1), "yes", "no")
    table = tmp_path / "t.csv"
    frame.to_csv(table, index=False)
    out = tmp_path / "m.json"
    assert (
        main(
            [
                "learn",
                "boosted",
                str(table),
                "--target",
                "y",
                "--library",
                library,
                "--trees",
                "8",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    assert xpg.read_model(out).classes == ["no", "yes"]
    kind = {"sklearn": "boosted"}.get(library, library)
    learned = learn_ensemble_from_table(frame, "y", kind, n_trees=8, max_depth=3)
    X = learned.data.X.astype(np.float64)
    library_says = learned.estimator.predict(X).tolist()
    if library == "xgboost":  # trained on class positions
        library_says = [learned.model.classes[k] for k in library_says]
    rows = frame[["colour", "a", "r"]].to_numpy(dtype=object)  # no row was dropped
    assert learned.model.predict_batch(rows).tolist() == library_says
