"""Time away and more time: the arithmetic, pure (the SQL is in `bot.storage.away`).

A player away (`/game away days:<1-14>`) has their clocks paused in every game: each deadline of
theirs moves by the time away, and a move awaited from them while they are away starts its clock
when the time away ends. `/game back` takes the unused rest off again, so in all their deadlines
move by exactly the time they were away. At most `MAX_DAYS` days away in any `WINDOW_DAYS` days.

More time (`/game extend player:<member> hours:<1-72>`): another player of the game, or its host,
moves an awaited player's deadline by some hours, once per awaited move.
"""

from __future__ import annotations

from collections.abc import Sequence

DAY = 24 * 3600.0
MAX_DAYS = 14  # days away in any WINDOW_DAYS days
WINDOW_DAYS = 30
MAX_EXTEND_HOURS = 72
_SLACK = 1.0  # seconds: clock rounding is never counted against anyone

Period = tuple[float, float]  # (start, end), epoch seconds


def overlap(periods: Sequence[Period], start: float, end: float) -> float:
    """Seconds of ``periods`` inside [start, end]."""
    return sum(max(0.0, min(b, end) - max(a, start)) for a, b in periods)


def days_left(periods: Sequence[Period], now: float) -> int:
    """The most whole days one may go away for from ``now``, given the ``periods`` away so far (all
    ended by ``now``): the longest stay such that no window of `WINDOW_DAYS` days holds more than
    `MAX_DAYS` days away. (The window that holds most of the earlier periods with the new stay is
    the one ending where the stay ends.)"""
    for days in range(MAX_DAYS, 0, -1):
        window_start = now + days * DAY - WINDOW_DAYS * DAY
        if overlap(periods, window_start, now) + days * DAY <= MAX_DAYS * DAY + _SLACK:
            return days
    return 0


def kept(periods: Sequence[Period], now: float) -> list[Period]:
    """The periods that can still count against a stay beginning at ``now`` or later (those ending
    in the last `WINDOW_DAYS` days), each at least a moment long."""
    return [(a, b) for a, b in periods if b > now - WINDOW_DAYS * DAY and b > a]
