"""Bad arguments to the Python API (``ExplanationGraph``'s arrays, ``Enumerator``'s budget):
each raises a project error, and the good ones still work."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import XpgError
from xpg.explain.marco import Enumerator
from xpg.testing import random_xpg


@pytest.mark.parametrize(
    "kwargs",
    [
        {"limit": -1},
        {"limit": 2.5},
        {"limit": True},
        {"timeout": math.nan},
        {"timeout": -1.0},
    ],
    ids=["limit=-1", "limit=2.5", "limit=True", "timeout=nan", "timeout=-1"],
)
def test_enumerator_budget_is_checked(kwargs: dict[str, Any]) -> None:
    xg = random_xpg(1, tree=True)
    with pytest.raises(XpgError):
        with Enumerator(xg, **kwargs) as en:
            list(en)


BASE: dict[str, Any] = {
    "var_names": ["a"],
    "node_ids": [0, 1, 2],
    "root": 0,
    "node_var": np.array([0, -1, -1]),
    "terminal_value": np.array([-1, 1, 0]),
    "edge_src": np.array([0, 0]),
    "edge_dst": np.array([1, 2]),
    "edge_label": np.array([1, 0]),
}


def test_budgets_of_every_number_type_are_taken() -> None:
    xg = random_xpg(1, tree=True)
    with Enumerator(xg, limit=np.int64(1), timeout=np.float32(5.0)) as en:
        assert len(list(en)) == 1 and en.limit == 1


def test_the_base_graph_is_valid() -> None:
    xg = ExplanationGraph(**BASE)
    assert xg.n_nodes == 3


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("edge_dst", np.array([1, 5])),
        ("edge_src", np.array([0, -7])),
        ("edge_dst", np.array([1, -1])),
        ("root", 9),
        ("node_var", np.array([3, -1, -1])),
        ("node_ids", [0, 1]),
        ("edge_label", np.array([1])),
    ],
    ids=["dst-5", "src-negative", "dst-negative", "root-9", "var-3", "ids-short", "labels-short"],
)
def test_out_of_range_arrays_are_refused(key: str, value: Any) -> None:
    with pytest.raises(XpgError):
        ExplanationGraph(**{**BASE, key: value})
