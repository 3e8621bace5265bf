"""One timing method for both sides of every comparison (imported by the runners too).

The clock is the CPU time of the process (``time.process_time``, the clock the reference
implementation itself reports, via ``resource.getrusage``), read the same way inside xpg's
process and inside each peer's runner process. CPU time rather than wall time because the
machine is shared: while another program holds the core, wall time runs on and CPU time does
not. What CPU time cannot remove (caches and memory bandwidth shared with other jobs, clock
frequency) drifts with the load; the protocol below puts both sides under the same drift.

The protocol (the same for PyXAI and for the reference implementation):

* a first call of each side, not measured (warm-up; it also returns the explanations, and its
  duration sets the loop length, :func:`loops_for`);
* a *measurement* repeats the call in a loop of about ``budget`` seconds (garbage collector
  off, as ``timeit`` does) and divides by the loop length, which hides the clock's own cost
  (about 2 microseconds per reading);
* per instance, ``rounds`` rounds; in each round every side is measured once, in an order
  that rotates from round to round and from instance to instance (:func:`rotation`), so that
  neither side is always first; each side keeps its best measurement (:func:`interleave`);
* per dataset, the median over instances of the per-instance ratio (:func:`median_ratio`);
  over several whole runs, the minimum and the median of those medians (:func:`over_runs`).

Some peers run part of their work in child processes (PyXAI's forest explainer calls the MUSER
and Open-WBO executables): their CPU time is not the process's. Such a comparison passes
``clock=cpu_clock_with_children`` to both sides (:func:`cpu_clock_with_children`: the process's
CPU time plus that of its finished children), so each side is charged for all the work it does.

The runners import this file as ``timing`` (it lies beside them and needs only the standard
library); xpg's side imports it as ``bench.runners.timing``.

Examples
--------
>>> seconds, value = cpu_time(lambda: sum(range(1000)))
>>> value, 0 < seconds < 0.01
(499500, True)
>>> rotation(2, 0), rotation(2, 1), rotation(3, 1)
([0, 1], [1, 0], [1, 2, 0])
>>> over_runs([0.5, 0.9, 0.6])
{'min': 0.5, 'median': 0.6, 'runs': 3}
"""

import gc
import math
import resource
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

#: Seconds one measurement loop lasts, about.
BUDGET = 0.005
#: Measurements per side and instance (the best is kept).
ROUNDS = 3


def cpu_clock_with_children() -> float:
    """CPU seconds of this process plus those of its children that have ended (and been
    waited for): the clock for a side that runs solvers as separate programs.

    Examples
    --------
    >>> import subprocess, sys
    >>> before = cpu_clock_with_children()
    >>> _ = subprocess.run([sys.executable, "-c", "sum(range(10**6))"], check=True)
    >>> cpu_clock_with_children() - before > 0.001
    True
    """
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def loops_for(first: float, budget: float = BUDGET) -> int:
    """Calls per measurement loop, given the first call's seconds: a loop of about ``budget``.

    Examples
    --------
    >>> loops_for(0.001), loops_for(2.0), loops_for(0.0), loops_for(1e-9)
    (5, 1, 1000, 10000)
    """
    if first <= 0:
        return 1000
    return max(1, min(10_000, int(budget / first)))


def calibrate(
    fn: Callable[[], Any], budget: float = BUDGET, clock: Callable[[], float] = time.process_time
) -> tuple[float, int, Any]:
    """The first call, not a measurement: ``(its CPU seconds, loop length, its result)``.

    Examples
    --------
    >>> first, loops, out = calibrate(lambda: 7)
    >>> out, loops >= 1, first >= 0
    (7, True, True)
    """
    gc.disable()
    try:
        start = clock()
        out = fn()
        first = clock() - start
    finally:
        gc.enable()
    return first, loops_for(first, budget), out


def measure(
    fn: Callable[[], Any], loops: int = 1, clock: Callable[[], float] = time.process_time
) -> float:
    """One measurement: CPU seconds per call over a loop of ``loops`` calls, collector off.

    Examples
    --------
    >>> 0 <= measure(lambda: sum(range(100)), loops=10) < 0.01
    True
    """
    gc.disable()
    try:
        start = clock()
        for _ in range(loops):
            fn()
        return (clock() - start) / loops
    finally:
        gc.enable()


def cpu_time(
    fn: Callable[[], Any], budget: float = BUDGET, repeat: int = ROUNDS
) -> tuple[float, Any]:
    """``(seconds per call, result)`` of one side alone: best of ``repeat`` loops, each about
    ``budget`` (a first call over 1 s is measured once). Comparisons interleave instead."""
    first, loops, out = calibrate(fn, budget)
    if first >= 1.0:
        return first, out
    return min(measure(fn, loops) for _ in range(repeat)), out


def rotation(n_sides: int, round_index: int, start: int = 0) -> list[int]:
    """The order in which ``n_sides`` sides are measured in round ``round_index`` (rotated
    by one each round; ``start``, e.g. the instance's index, shifts the whole schedule).

    Examples
    --------
    >>> [rotation(2, r, start=1) for r in range(3)]
    [[1, 0], [0, 1], [1, 0]]
    """
    k = (round_index + start) % n_sides
    return [*range(k, n_sides), *range(k)]


def interleave(
    sides: Sequence[Callable[[], float]], rounds: int = ROUNDS, start: int = 0
) -> list[float]:
    """The best of ``rounds`` measurements of each side, the sides measured in turn.

    ``sides[i]()`` takes one measurement (seconds per call) of side ``i``; within a round
    every side is measured once, in :func:`rotation` order. A measurement may be ``inf``
    (e.g. a timed-out run), and is then never the best unless all are.

    Examples
    --------
    >>> log = []
    >>> def side(name, times):
    ...     it = iter(times)
    ...     return lambda: log.append(name) or next(it)
    >>> interleave([side("ours", [3, 1, 2]), side("theirs", [5, 6, 4])], rounds=3)
    [1, 4]
    >>> log
    ['ours', 'theirs', 'theirs', 'ours', 'ours', 'theirs']
    """
    best = [math.inf] * len(sides)
    for r in range(rounds):
        for i in rotation(len(sides), r, start):
            best[i] = min(best[i], sides[i]())
    return best


def ratio(ours: float, theirs: float) -> float:
    """``ours / theirs`` (``inf`` when ``theirs`` is 0 and ``ours`` is not, 1 when both are).

    Examples
    --------
    >>> ratio(1.0, 4.0), ratio(0.0, 0.0), ratio(1.0, 0.0)
    (0.25, 1.0, inf)
    """
    if theirs == 0:
        return 1.0 if ours == 0 else math.inf
    return ours / theirs


def median_ratio(ours: Sequence[float], theirs: Sequence[float]) -> float:
    """The median over instances of the per-instance ratio ``ours[i] / theirs[i]``.

    Not the ratio of the medians: each instance is compared with itself.

    Examples
    --------
    >>> median_ratio([1, 2, 9], [2, 1, 10])
    0.9
    """
    if len(ours) != len(theirs) or not ours:
        raise ValueError(f"need as many timings on both sides, got {len(ours)} and {len(theirs)}")
    return statistics.median(ratio(a, b) for a, b in zip(ours, theirs))


def over_runs(medians: Sequence[float]) -> dict[str, Any]:
    """The minimum and the median over whole runs of one dataset's median ratio."""
    if not medians:
        raise ValueError("no runs")
    return {"min": min(medians), "median": statistics.median(medians), "runs": len(medians)}
