"""Execute notebooks/probabilistic_explainers.ipynb from a clean kernel (it must run, and its
exact checks must print True)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "probabilistic_explainers.ipynb"
TIMEOUT_SECONDS = 60


def test_probabilistic_notebook_executes() -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    assert NOTEBOOK.exists(), f"missing {NOTEBOOK}"
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    repo = str(NOTEBOOK.parents[1])
    previous = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = repo + (os.pathsep + previous if previous else "")
    try:
        client = nbclient.NotebookClient(
            notebook,
            timeout=TIMEOUT_SECONDS,
            kernel_name="python3",
            resources={"metadata": {"path": str(NOTEBOOK.parent)}},
        )
        client.execute()
    finally:
        if previous is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = previous
    outputs = [
        out
        for cell in notebook.cells
        if cell.cell_type == "code"
        for out in cell.get("outputs", [])
    ]
    assert not [out for out in outputs if out.get("output_type") == "error"]
    text = "".join(out.get("text", "") for out in outputs)
    assert "delta = 0 gives a core AXp: True" in text
    assert "subset-minimal check: True" in text
