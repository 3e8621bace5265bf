"""The benchmarks find their data through :func:`xpg.learn.datasets.default_data_dir` (issue
28: one variable): ``--data-dir``, else ``$XPG_SHARED_DIR/datasets`` (``$XPG_DATA_DIR``, the
older alias, wins when set), else ``../shared/datasets`` beside the checkout.  No benchmark
reads ``XPG_DATA_DIR`` or builds the default itself."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT

from xpg.learn import datasets

sys.path.insert(0, str(REPO_ROOT))  # bench/ is a folder of the checkout, not a package
from bench import data as bench_data  # noqa: E402
from bench.fourier import interpretation_error, paper_figures  # noqa: E402
from bench.membership import membership_speed  # noqa: E402
from bench.probabilistic import common as probabilistic  # noqa: E402

ADVICE = "pass --data-dir DIR or set XPG_SHARED_DIR"


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``XPG_SHARED_DIR`` names ``tmp_path``, an empty shared folder; no ``XPG_DATA_DIR``."""
    monkeypatch.delenv("XPG_DATA_DIR", raising=False)
    monkeypatch.setenv("XPG_SHARED_DIR", str(tmp_path))
    return tmp_path


def test_the_data_folder_is_the_datasets_of_xpg_shared_dir(elsewhere: Path) -> None:
    """Was ``../shared/datasets`` beside the checkout: the benchmarks read only XPG_DATA_DIR."""
    (elsewhere / "datasets").mkdir()
    assert bench_data.data_dir() == elsewhere / "datasets"
    assert probabilistic.data_dir(None) == elsewhere / "datasets"
    assert bench_data.data_dir(elsewhere) == elsewhere  # --data-dir first


def test_the_older_alias_still_wins(elsewhere: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (elsewhere / "datasets").mkdir()
    (elsewhere / "other").mkdir()
    monkeypatch.setenv("XPG_DATA_DIR", str(elsewhere / "other"))
    assert bench_data.data_dir() == elsewhere / "other"
    assert probabilistic.data_dir(None) == elsewhere / "other"


def test_a_missing_data_folder_names_the_variable(elsewhere: Path) -> None:
    with pytest.raises(bench_data.DataError) as err:
        bench_data.data_dir()
    assert str(err.value) == (
        f"data folder {elsewhere / 'datasets'} (from $XPG_SHARED_DIR/datasets) does not exist: "
        f"expected the benchmark datasets of ../shared/datasets; {ADVICE}"
    )
    with pytest.raises(SystemExit) as exit_:
        probabilistic.data_dir(None)
    assert str(exit_.value.code).startswith(
        f"error: data directory {elsewhere / 'datasets'} not found; pass --data-dir or set "
        "XPG_SHARED_DIR "
    )


def _exit_message(call: object) -> str:
    with pytest.raises(SystemExit) as exit_:
        call()  # type: ignore[operator]
    return str(exit_.value.code)


def test_the_scripts_with_readers_of_their_own_follow_the_variable(elsewhere: Path) -> None:
    """The Fourier and membership benchmarks, without ``--data-dir``, look in
    ``$XPG_SHARED_DIR/datasets`` (and say so when a file is missing there)."""
    out = ["--out", str(elsewhere / "out")]
    pmlb = re.escape(str(elsewhere / "datasets" / "pmlb"))
    message = _exit_message(lambda: interpretation_error.main(["--quick", *out]))
    assert re.fullmatch(
        rf"missing dataset {pmlb}/spect\.tsv\.gz: pass --data-dir or set "
        r"XPG_SHARED_DIR",
        message,
    ), message
    message = _exit_message(lambda: paper_figures.main_for("fourier-local", ["--quick", *out]))
    assert re.fullmatch(
        rf"missing dataset {pmlb}/spect\.tsv\.gz: pass --data-dir or set "
        r"XPG_SHARED_DIR",
        message,
    ), message
    message = _exit_message(lambda: membership_speed.main(["--quick", "--part", "speed", *out]))
    assert re.fullmatch(
        rf"membership_speed: missing dataset {pmlb}/\w+\.tsv\.gz \(give --data-dir or set "
        r"XPG_SHARED_DIR to the shared folder holding datasets/pmlb/\)",
        message,
    ), message


def test_without_a_default_data_dir_is_enough(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """xpg installed from a wheel, no variable: ``--data-dir`` alone works (the default is
    looked up only when the option is missing), and without it the error says what to set."""
    monkeypatch.delenv("XPG_DATA_DIR", raising=False)
    monkeypatch.delenv("XPG_SHARED_DIR", raising=False)
    monkeypatch.setattr(datasets, "checkout_root", lambda: None)
    given = tmp_path / "given"
    out = ["--out", str(tmp_path / "out"), "--data-dir", str(given)]
    message = _exit_message(lambda: interpretation_error.main(["--quick", *out]))
    assert message.startswith(f"missing dataset {given / 'pmlb'}/"), message
    message = _exit_message(lambda: paper_figures.main_for("fourier-local", ["--quick", *out]))
    assert message.startswith(f"missing dataset {given / 'pmlb'}/"), message
    message = _exit_message(lambda: membership_speed.main(["--quick", "--part", "speed", *out]))
    assert message.startswith(f"membership_speed: missing dataset {given / 'pmlb'}/"), message
    with pytest.raises(bench_data.DataError) as err:
        bench_data.data_dir()
    assert str(err.value).startswith("no data directory: set XPG_SHARED_DIR to the shared folder")
    assert str(err.value).endswith("; or pass --data-dir DIR")
    message = _exit_message(lambda: probabilistic.data_dir(None))
    assert message.startswith("error: no data directory: set XPG_SHARED_DIR"), message


def test_no_benchmark_reads_the_data_variables_itself() -> None:
    readers = re.compile(r"XPG_DATA_DIR|environ.*XPG_SHARED_DIR|\"shared\" / \"datasets\"")
    scripts = [
        path
        for path in sorted((REPO_ROOT / "bench").rglob("*.py"))
        if not any(part.startswith(".") for part in path.relative_to(REPO_ROOT).parts)
    ]
    assert len(scripts) > 40
    found = [
        f"{path.relative_to(REPO_ROOT)}:{n}"
        for path in scripts
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if readers.search(line)
    ]
    assert found == []
