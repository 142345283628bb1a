"""Move deadlines: the `timeout` option of every `/<game> new`, read and written as people say it.

A game waits for each awaited player at most its timeout (10 minutes to 7 days, 24 hours unless the
host chose otherwise). Halfway there the player is reminded; at the deadline they forfeit. Lobbies
that never start close after a day. The clock runs in the database (see `Storage.sync_waits`), so a
restart changes nothing; `bot/scheduler.py` acts on it.
"""

from __future__ import annotations

import re

from bot.errors import BadInput
from bot.i18n import ENGLISH, Lang
from bot.inputs import excerpt, is_ascii_digits

MINUTE = 60
HOUR = 60 * MINUTE
DAY = 24 * HOUR
MIN_TIMEOUT = 10 * MINUTE
MAX_TIMEOUT = 7 * DAY
DEFAULT_TIMEOUT = DAY
LOBBY_LIFETIME = DAY

SUGGESTIONS = (
    10 * MINUTE,
    30 * MINUTE,
    HOUR,
    3 * HOUR,
    6 * HOUR,
    12 * HOUR,
    DAY,
    2 * DAY,
    3 * DAY,
    7 * DAY,
)

# The unit words a timeout may use, in every language the bot speaks (anyone may write any of them:
# they do not clash), with and without plural endings and abbreviations' dots.
_UNIT_WORDS = {
    MINUTE: (
        "m min mins minute minutes",  # en
        "minuten",  # de (min, minute)
        "minuto minutos",  # es, pt (fr: min, minute, minutes)
        "мин минута минуты минут минуту",  # ru
    ),
    HOUR: (
        "h hr hrs hour hours",
        "std stunde stunden",
        "heure heures",
        "hora horas",
        "ч час часа часов",
    ),
    DAY: (
        "d day days",
        "t tg tag tage tagen",
        "j jour jours",
        "día días dia dias",
        "д дн день дня дней",
    ),
    7 * DAY: (
        "w wk wks week weeks",
        "wo woche wochen",
        "sem semaine semaines semana semanas",
        "н нед неделя недели недель неделю",
    ),
}
_UNITS = {word: size for size, groups in _UNIT_WORDS.items() for group in groups for word in group.split()}
_CONNECTORS = re.compile(r"(?<!\w)(?:and|und|et|y|e|и)(?!\w)|[,&+]")
# A number in ASCII digits, then maybe a unit word (letters of any script, maybe an abbreviation's dot).
_PART = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*([^\W\d_]*)\.?")
_MAX_NUMBER = 12  # characters of one number: more is far beyond 7 days in any unit, and is not read


def parse_timeout(text: str | None) -> int:
    """Seconds from "90m", "2h", "1d 12h", "3 days", "45" (minutes), in ASCII digits, with the unit
    words of any language the bot speaks ("2 Stunden", "1 jour et 12 h", "3 дня"); None is the
    default. Raises ``BadInput`` saying how to write it (blank text included)."""
    if text is None:
        return DEFAULT_TIMEOUT
    raw = text.strip().lower()
    if not raw:
        raise BadInput(
            "Write a timeout like 30m, 2h, 1d or 3 days (10 minutes to 7 days), or leave the option "
            "out for the default (24 hours)."
        )
    parts = _PART.findall(raw)
    leftover = _CONNECTORS.sub("", _PART.sub("", raw)).strip()
    if not parts or leftover or any(unit and unit not in _UNITS for _, unit in parts):
        raise BadInput(
            "I could not read {text} as a timeout. Write it like 30m, 2h, 1d or "
            "3 days (10 minutes to 7 days), or pick one from the list.",
            text=repr(excerpt(text)),
        )
    if any(len(number) > _MAX_NUMBER for number, _ in parts):
        raise _out_of_range(excerpt(text))
    seconds = round(sum(float(number) * _UNITS[unit or "m"] for number, unit in parts))
    if not MIN_TIMEOUT <= seconds <= MAX_TIMEOUT:
        raise _out_of_range(excerpt(text))
    return seconds


def _out_of_range(given: str) -> BadInput:
    return BadInput(
        "The timeout must be from 10 minutes to 7 days (you gave {given}). Write it like 30m, 2h, 1d "
        "or 3 days, or pick one from the list.",
        given=given,
    )


def format_duration(seconds: int) -> str:
    """6 days 2 hours, 1 hour 30 minutes, 10 minutes, ... in English, as `parse_timeout` reads it
    (the value of a timeout choice; what people read is ``lang.duration``)."""
    parts = []
    for size, word in ((DAY, "day"), (HOUR, "hour"), (MINUTE, "minute")):
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count} {word}{'' if count == 1 else 's'}")
    return " ".join(parts[:2]) or "less than a minute"


def timeout_choices(current: str, lang: Lang = ENGLISH) -> list[tuple[str, str]]:
    """(label, value) suggestions for the `timeout` option, the typed text first when it reads. The
    labels are in ``lang``; the values in English, as `parse_timeout` reads them."""
    out: list[tuple[str, str]] = []
    typed = current.strip()
    if typed:
        try:
            seconds = parse_timeout(typed)
        except BadInput:
            pass
        else:
            out.append((lang.duration(seconds)[:100], typed[:100]))
    for seconds in SUGGESTIONS:
        label = lang.duration(seconds)
        if seconds == DEFAULT_TIMEOUT:
            label = lang.t("{duration} (default)", duration=label)
        english = format_duration(seconds)
        if (
            not typed
            or label.lower().startswith(typed.lower())
            or english.startswith(typed.lower())
            or is_ascii_digits(typed)
        ):
            out.append((label, english))
    return out[:25]
