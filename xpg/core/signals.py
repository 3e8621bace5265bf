"""A signal handler for the length of a block, in the main thread only.

Examples
--------
>>> import signal
>>> with handling(signal.SIGINT, signal.SIG_IGN) as installed:
...     installed, signal.getsignal(signal.SIGINT) is signal.SIG_IGN
(True, True)
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Callable, Iterator
from typing import Any

Handler = Callable[[int, Any], Any] | int | signal.Handlers | None


@contextlib.contextmanager
def handling(signum: int, handler: Handler) -> Iterator[bool]:
    """``handler`` for ``signum`` within the block, the previous one restored after; yields
    whether it was installed (Python installs handlers in the main thread only: elsewhere
    nothing changes and the block runs as it is)."""
    try:
        previous = signal.signal(signum, handler)  # type: ignore[arg-type]
    except ValueError:  # not the main thread
        yield False
        return
    try:
        yield True
    finally:
        signal.signal(signum, previous)


__all__ = ["handling"]
