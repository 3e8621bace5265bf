"""The solver life cycle shared by every object that owns a solver: ``with`` closes, a second
close does nothing, and use after close raises SolverClosedError, for each owner."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from xpg import SolverClosedError
from xpg.examples import and_graph, and_xpg
from xpg.explain.marco import Enumerator
from xpg.explain.membership import MembershipQueries
from xpg.solvers.lifecycle import SolverOwner
from xpg.solvers.sat import MembershipOracle
from xpg.verify.verifier import Verifier


class Counting(SolverOwner):
    closed_message = "this Counting owner is closed"

    def __init__(self) -> None:
        self.released = 0

    def _release(self) -> None:
        self.released += 1

    def use(self) -> str:
        self._check_open()
        return "used"


def test_with_closes_once_and_closed_use_raises() -> None:
    with Counting() as owner:
        assert isinstance(owner, Counting) and not owner.closed and owner.use() == "used"
    assert owner.closed and owner.released == 1
    owner.close()
    owner.close()
    assert owner.released == 1
    with pytest.raises(SolverClosedError, match="^this Counting owner is closed$"):
        owner.use()


def test_with_closes_when_the_body_raises() -> None:
    with pytest.raises(KeyError), Counting() as owner:
        raise KeyError("boom")
    assert owner.closed and owner.released == 1


OWNERS: dict[str, tuple[Callable[[], Any], Callable[[Any], Any], str]] = {
    "Enumerator": (lambda: Enumerator(and_xpg()), lambda o: list(o), "this Enumerator"),
    "MembershipOracle": (lambda: MembershipOracle(and_xpg()), lambda o: o.query(0), "this Mem"),
    "MembershipQueries": (
        lambda: MembershipQueries(and_xpg(), route="sat"),
        lambda o: o.is_member("a"),
        "these MembershipQueries",
    ),
    "Verifier": (
        lambda: Verifier(and_graph()),
        lambda o: o.verify_axp({"a": 1, "b": 1}, ["a", "b"]),
        "this Verifier",
    ),
}


@pytest.mark.parametrize("name", sorted(OWNERS))
def test_every_solver_owner_shares_the_life_cycle(name: str) -> None:
    make, use, message = OWNERS[name]
    with make() as owner:
        assert isinstance(owner, SolverOwner) and not owner.closed
        use(owner)  # works while open
    assert owner.closed
    owner.close()  # a second close is harmless
    with pytest.raises(SolverClosedError, match=f"^{message}.* closed$"):
        use(owner)
