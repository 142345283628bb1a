"""The periods a leaderboard covers: all time, this calendar month, this ISO week (UTC), and the
calendar quarters that seasons may be (`bot.table.seasons`).

A finished game counts in the period its end falls in; `period_key` names that period in storage
("m2025-07", "w2025-W28", "q2025-Q3"). Months and quarters are also counted (`period_index`: months
or quarters since year 0), so that a server's seasons are numbered by arithmetic: season n is the
n-th calendar month (or quarter) of its run. Pure: no discord, no SQL.
"""

from __future__ import annotations

from datetime import UTC, datetime

from bot.i18n import N_

ALL_TIME = "all"
# The periods' names: msgids (bot/i18n), translated where they are shown.
PERIODS: dict[str, str] = {ALL_TIME: N_("all time"), "month": N_("this month"), "week": N_("this week")}
TIMED = ("month", "week", "quarter")  # the periods kept as standings of their own
SEASON_PERIODS = ("month", "quarter")  # what a season may be (`/game settings seasons:`)
_MONTHS = {"month": 1, "quarter": 3}


def period_key(period: str, at: float) -> str:
    """The stored name of the ``period`` ("month", "week" or "quarter") that the moment ``at`` (epoch
    seconds) falls in."""
    when = datetime.fromtimestamp(at, UTC)
    if period == "month":
        return f"m{when.year:04d}-{when.month:02d}"
    if period == "week":
        year, week, _ = when.isocalendar()
        return f"w{year:04d}-W{week:02d}"
    if period == "quarter":
        return f"q{when.year:04d}-Q{(when.month - 1) // 3 + 1}"
    raise ValueError(f"no period {period!r}")


def _months(period: str) -> int:
    if period not in _MONTHS:
        raise ValueError(f"no counted period {period!r}")
    return _MONTHS[period]


def period_index(period: str, at: float) -> int:
    """Which month or quarter (counted from year 0) the moment ``at`` falls in."""
    when = datetime.fromtimestamp(at, UTC)
    return (when.year * 12 + when.month - 1) // _months(period)


def index_start(period: str, index: int) -> float:
    """The moment (epoch seconds, UTC) the month or quarter ``index`` begins."""
    month = index * _months(period)
    return datetime(month // 12, month % 12 + 1, 1, tzinfo=UTC).timestamp()


def index_key(period: str, index: int) -> str:
    """The stored name (`period_key`) of the month or quarter ``index``."""
    return period_key(period, index_start(period, index))
