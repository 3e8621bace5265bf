"""One timing method for both sides of every comparison (imported by the runners too).

CPU time of the process (``time.process_time``, the clock the reference implementation
itself reports, via ``resource.getrusage``), so that other programs running on the machine
do not inflate the figures; the garbage collector is off while timing (as ``timeit`` does).
A call faster than ``budget`` seconds is repeated in a loop until the loop takes about that
long, and the loop's time is divided by its length, which removes the clock's own cost
(about 2 microseconds per reading).  The best of ``repeat`` such measurements is returned.

Examples
--------
>>> seconds, value = cpu_time(lambda: sum(range(1000)))
>>> value, 0 < seconds < 0.01
(499500, True)
"""

import gc
import time


def cpu_time(fn, budget=0.005, repeat=3):
    """``(seconds per call, last result)``: best of ``repeat`` loops, each about ``budget``."""
    gc.disable()
    try:
        start = time.process_time()
        out = fn()
        first = time.process_time() - start
        loops = max(1, min(10_000, int(budget / first))) if first > 0 else 1000
        best = first if loops == 1 else float("inf")
        for _ in range(repeat if first < 1.0 else 0):
            start = time.process_time()
            for _ in range(loops):
                out = fn()
            best = min(best, (time.process_time() - start) / loops)
        return best, out
    finally:
        gc.enable()
