"""``xpg demo``'s options at their limits: as many instances as the test set holds, and one
more is a one-line error saying how many there are; seeds and depths scikit-learn refuses
are usage errors (each of these ended in a traceback)."""

from __future__ import annotations

import json

import pytest

from xpg.cli.demo import DATASETS, TEST_SIZE, run_demo
from xpg.cli.main import main
from xpg.errors import InvalidParameterError


def test_size_of_each_test_set_matches_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    import sklearn.datasets

    assert main(["demo", "--help"]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    for name, loader in DATASETS.items():
        rows = len(getattr(sklearn.datasets, loader)().data)
        test_rows = -(-rows * 3 // 10)  # ceil(rows * TEST_SIZE), as train_test_split rounds
        assert TEST_SIZE == 0.3
        assert f"{test_rows} rows for {name}" in help_text or f"{test_rows} for {name}" in help_text
        assert main(["demo", "--dataset", name, "--instances", str(test_rows + 1)]) == 2
        err = capsys.readouterr().err
        assert err == (
            f"xpg demo: error: --instances {test_rows + 1}: the {name} test set has "
            f"{test_rows} rows (30% of {rows}); ask for 1 to {test_rows}\n"
        )


def test_every_test_row_can_be_explained(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--dataset", "iris", "--instances", "45", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert sorted(i["row"] for i in doc["instances"]) == list(range(45))
    assert all(i["complete"] for i in doc["instances"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--instances", "1000"], "--instances 1000: the breast_cancer test set has 171 rows"),
        (["--instances", "0"], "argument --instances: expected an integer from 1 to"),
        (["--instances", "many"], "argument --instances: expected an integer from 1 to"),
        (["--seed", "-1"], "argument --seed: expected an integer from 0 to 4294967295"),
        (["--seed", str(2**32)], "argument --seed: expected an integer from 0 to 4294967295"),
        (["--depth", str(10**20)], "argument --depth: expected an integer from 1 to 10000"),
        (["--dataset", "mnist"], "argument --dataset: invalid choice: 'mnist'"),
    ],
)
def test_bad_options_are_one_line(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["demo", *args]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and message in err, err


def test_the_library_function_checks_too() -> None:
    with pytest.raises(InvalidParameterError, match="the wine test set has 54 rows"):
        run_demo("wine", n_instances=55)
    with pytest.raises(InvalidParameterError, match="seed from 0 to"):
        run_demo("wine", seed=-1)
    with pytest.raises(InvalidParameterError, match="unknown dataset 'mnist'"):
        run_demo("mnist")
