"""The periods a leaderboard covers: all time, this calendar month, this ISO week (UTC).

A finished game counts in the period its end falls in; `period_key` names that period in storage
("m2025-07", "w2025-W28"). Pure: no discord, no SQL.
"""

from __future__ import annotations

from datetime import UTC, datetime

from bot.i18n import N_

ALL_TIME = "all"
# The periods' names: msgids (bot/i18n), translated where they are shown.
PERIODS: dict[str, str] = {ALL_TIME: N_("all time"), "month": N_("this month"), "week": N_("this week")}
TIMED = ("month", "week")  # the periods kept as standings of their own


def period_key(period: str, at: float) -> str:
    """The stored name of the ``period`` ("month" or "week") that the moment ``at`` (epoch seconds)
    falls in."""
    when = datetime.fromtimestamp(at, UTC)
    if period == "month":
        return f"m{when.year:04d}-{when.month:02d}"
    if period == "week":
        year, week, _ = when.isocalendar()
        return f"w{year:04d}-W{week:02d}"
    raise ValueError(f"no period {period!r}")
