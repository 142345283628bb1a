"""Timing shared by the render benchmarks (bench/render_*.py): how many runs, their median, and the
lines they print."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import TypeVar

from bot.i18n import LANGUAGES, Lang, language

View = TypeVar("View")


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


def print_render_medians(
    render: Callable[[View, tuple[str, ...]], bytes],
    names: tuple[str, ...],
    cases: Sequence[tuple[str, View, bool]],
    runs: int,
) -> None:
    """For each ``(label, view, targeted)``: the median time of ``render(view, names)`` over ``runs``
    runs, printed after ``label`` (with the 5 ms target where ``targeted``). Every view is rendered
    once first, to warm the sprite caches as a running bot has."""
    for _, view, _ in cases:
        render(view, names)
    for label, view, targeted in cases:
        median = median_ms(partial(render, view, names), runs)
        target = " (target < 5 ms)" if targeted else ""
        print(f"{label}, median {median:.2f} ms over {runs} runs{target}")


def bench_language() -> Lang:
    """The language to draw the words in: ``--lang CODE`` (default English)."""
    args = sys.argv[1:]
    code = args[args.index("--lang") + 1] if "--lang" in args[:-1] else "en"
    if code not in LANGUAGES:
        raise SystemExit(f"--lang takes one of {', '.join(LANGUAGES)}")
    return language(code)
