"""Timing shared by the render benchmarks (bench/render_*.py): how many runs, and their median."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable


def run_count(full: int) -> int:
    """How many timed runs: 30 with ``--quick`` on the command line, else ``full``."""
    return 30 if "--quick" in sys.argv else full


def median_ms(fn: Callable[[], object], runs: int) -> float:
    """The median wall time of ``runs`` calls of ``fn``, in milliseconds (warm any caches first)."""
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2] * 1000
