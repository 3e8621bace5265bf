"""The runners' request loop: one JSON object per line in, one per line out.

A runner started with ``--serve`` stays alive and answers requests one at a time, so that
xpg's process and the peer's process can take turns measuring the same instance
(:func:`timing.interleave`); :class:`bench.peers.RunnerSession` is the other end.

Request: ``{"op": NAME, ...}``; ``{"op": "quit"}`` ends the loop. Answer: the handler's
dictionary with ``"ok": true``, or ``{"ok": false, "error": "..."}`` when it raised. The
answers go to a copy of the original standard output (:func:`take_stdout`, called before the
peer is imported: PyXAI prints when imported); standard output itself is pointed at standard
error, so that whatever the peer prints (from Python or from C) cannot corrupt them.
Only the standard library is used (this file runs inside the peers' environments).

Examples
--------
>>> import io
>>> out = io.StringIO()
>>> lines = ['{"op": "add", "a": 2, "b": 3}', '{"op": "oops"}', '{"op": "quit"}', '{"op": "add"}']
>>> serve({"add": lambda req: {"sum": req["a"] + req["b"]}}, lines, out)
>>> print(out.getvalue(), end="")
{"sum": 5, "ok": true}
{"ok": false, "error": "unknown op 'oops'"}
"""

import json
import os
import sys
import traceback
from collections.abc import Callable, Iterable
from typing import Any, TextIO

Handler = Callable[[dict[str, Any]], dict[str, Any]]


def answer(handlers: dict[str, Handler], request: dict[str, Any]) -> dict[str, Any]:
    """The handler's answer to one request, or the error it raised (the loop goes on)."""
    op = request.get("op")
    if op not in handlers:
        return {"ok": False, "error": f"unknown op {op!r}"}
    try:
        return {**handlers[op](request), "ok": True}
    except Exception as err:  # the peer's assertions and bugs are reported, not fatal
        return {"ok": False, "error": traceback.format_exception_only(type(err), err)[-1].strip()}


def take_stdout() -> TextIO:
    """A copy of standard output for the answers; file descriptor 1 and ``sys.stdout`` then
    point at standard error."""
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return channel


def serve(
    handlers: dict[str, Handler],
    lines: Iterable[str] | None = None,
    channel: TextIO | None = None,
) -> None:
    """Answer requests from ``lines`` (default standard input) on ``channel`` until ``quit``.

    With no ``channel``, answers go to the original standard output (:func:`take_stdout`).
    """
    if channel is None:
        channel = take_stdout()
    for line in sys.stdin if lines is None else lines:
        if not line.strip():
            continue
        request = json.loads(line)
        if request.get("op") == "quit":
            break
        channel.write(json.dumps(answer(handlers, request)) + "\n")
        channel.flush()
