"""The life cycle of every object that owns a solver: a context manager, closed once.

A subclass frees its solver in :meth:`SolverOwner._release` and calls
:meth:`SolverOwner._check_open` before using it; :meth:`SolverOwner.close` releases once (a
second close does nothing), ``with`` closes on the way out, and use after close raises
:class:`~xpg.errors.SolverClosedError` with the subclass's :attr:`SolverOwner.closed_message`.

Examples
--------
>>> class Owner(SolverOwner):
...     closed_message = "this Owner is closed"
...     def __init__(self):
...         self.released = 0
...     def _release(self):
...         self.released += 1
...     def use(self):
...         self._check_open()
...         return "used"
>>> with Owner() as owner:
...     owner.use()
'used'
>>> owner.closed, owner.released
(True, 1)
>>> owner.close(); owner.released
1
>>> owner.use()
Traceback (most recent call last):
...
xpg.errors.SolverClosedError: this Owner is closed
"""

from __future__ import annotations

from typing import ClassVar, TypeVar

from xpg.errors import SolverClosedError

_Owner = TypeVar("_Owner", bound="SolverOwner")


class SolverOwner:
    """Base class of the objects that own a SAT or SMT solver (use them as context managers).

    Attributes
    ----------
    closed_message : str
        The message of the :class:`~xpg.errors.SolverClosedError` raised on use after close.
    """

    closed_message: ClassVar[str] = "this solver is closed"
    _closed: bool = False

    def __enter__(self: _Owner) -> _Owner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def closed(self) -> bool:
        """True once :meth:`close` has been called."""
        return self._closed

    def close(self) -> None:
        """Release the solver; closing again does nothing."""
        if not self._closed:
            self._closed = True
            self._release()

    def _release(self) -> None:
        """Free what the object owns (called once, by the first :meth:`close`)."""

    def _check_open(self) -> None:
        """Raise :class:`~xpg.errors.SolverClosedError` when the object is closed."""
        if self._closed:
            raise SolverClosedError(self.closed_message)
