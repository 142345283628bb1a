"""Quiet hours (`/game quiet from:<HH:MM> to:<HH:MM> [timezone:<IANA>]`): the arithmetic, pure.

Every day from ``start`` to ``end`` (minutes after local midnight in the person's time zone; a span
over midnight when ``start > end``) the person gets no pings or DMs (held, then sent once the quiet
hours end), and a deadline of theirs falling inside them moves to their end.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.errors import BadInput
from bot.inputs import excerpt

DEFAULT_ZONE = "UTC"


def parse_clock(text: str) -> int:
    """Minutes after midnight of "07:30", "7:30" or "23:00"; BadInput saying how to write it."""
    hours, sep, minutes = text.strip().partition(":")
    if (
        not sep
        or not (hours.isascii() and hours.isdigit() and minutes.isascii() and minutes.isdigit())
        or len(minutes) != 2
        or len(hours) > 2
        or int(hours) > 23
        or int(minutes) > 59
    ):
        raise BadInput(
            "I could not read {text} as a time of day. Write it as HH:MM, from 00:00 to 23:59 (like 22:30).",
            text=repr(excerpt(text)),
        )
    return int(hours) * 60 + int(minutes)


def zone(name: str | None) -> ZoneInfo:
    """The time zone called ``name`` (an IANA name such as Europe/Berlin; default UTC)."""
    try:
        return ZoneInfo((name or DEFAULT_ZONE).strip())
    except (ZoneInfoNotFoundError, ValueError):
        raise BadInput(
            "There is no time zone {name}: write an IANA name such as Europe/Berlin or Asia/Tokyo, "
            "or pick one from the list.",
            name=repr(excerpt(name or "")),
        ) from None


def _at(day: date, minutes: int, tz: ZoneInfo) -> float:
    return datetime.combine(day, time(minutes // 60, minutes % 60), tzinfo=tz).timestamp()


def period_at(moment: float, start: int, end: int, tz: ZoneInfo) -> tuple[float, float] | None:
    """The quiet period (its start and end, epoch seconds) that ``moment`` falls in, or None."""
    local = datetime.fromtimestamp(moment, tz)
    today = local.date()
    for first in (today - timedelta(days=1), today):  # a period begins on the day before or that day
        begins = _at(first, start, tz)
        ends = _at(first + timedelta(days=1 if start >= end else 0), end, tz)
        if begins <= moment < ends:
            return begins, ends
    return None


def next_end(moment: float, start: int, end: int, tz: ZoneInfo) -> float:
    """The end of the quiet period under way at ``moment``, else of the next one."""
    current = period_at(moment, start, end, tz)
    if current is not None:
        return current[1]
    today = datetime.fromtimestamp(moment, tz).date()
    for day in (today, today + timedelta(days=1), today + timedelta(days=2)):
        begins = _at(day, start, tz)
        if begins > moment:
            return _at(day + timedelta(days=1 if start >= end else 0), end, tz)
    raise AssertionError("a quiet period begins within two days")  # pragma: no cover


def clock_text(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"
