"""Execute notebooks/fourier_explainers.ipynb from a clean kernel (it must run without error)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "fourier_explainers.ipynb"
TIMEOUT_SECONDS = 120


def test_fourier_notebook_executes() -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    pytest.importorskip("lime")
    pytest.importorskip("shap")
    assert NOTEBOOK.exists(), f"missing {NOTEBOOK}"
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    repo = str(NOTEBOOK.parents[1])
    env_path = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = repo + (os.pathsep + env_path if env_path else "")
    try:
        client = nbclient.NotebookClient(
            notebook,
            timeout=TIMEOUT_SECONDS,
            kernel_name="python3",
            resources={"metadata": {"path": repo}},
        )
        client.execute()
    finally:
        if env_path:
            os.environ["PYTHONPATH"] = env_path
        else:
            del os.environ["PYTHONPATH"]
    outputs = [
        out.get("text", "")
        for cell in notebook.cells
        if cell.cell_type == "code"
        for out in cell.get("outputs", [])
    ]
    text = "".join(outputs)
    assert "brute-force check: True" in text
    assert not any(
        out.get("output_type") == "error"
        for cell in notebook.cells
        if cell.cell_type == "code"
        for out in cell.get("outputs", [])
    )
