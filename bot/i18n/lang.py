"""A language and everything said in it: `Lang` (translate, plurals, numbers, durations, dates,
lists), the languages the bot speaks, and how a Discord locale maps onto one of them.

Pure: no discord import, so the rules and the renderers may use it too.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache

from babel import Locale
from babel.dates import format_date, format_datetime
from babel.lists import format_list
from babel.numbers import format_decimal, format_percent
from babel.units import format_unit

from bot.i18n.catalogs import Messages, load

# The languages the bot speaks: code -> the language's own name. English is the source language
# (its texts are the msgids); the others have a catalog each.
LANGUAGES: Mapping[str, str] = {
    "en": "English",
    "de": "Deutsch",
    "fr": "Français",
    "es": "Español",
    "pt_BR": "Português (Brasil)",
    "ru": "Русский",
}
SOURCE = "en"
TRANSLATED = tuple(code for code in LANGUAGES if code != SOURCE)

_MINUTE, _HOUR, _DAY = 60, 3600, 86400


def N_(msgid: str) -> str:
    """Marks a text for translation where it is defined (a constant, a table) without translating
    it: ``lang.t(CONSTANT)`` translates it where it is read."""
    return msgid


def Np_(context: str, msgid: str) -> str:
    """`N_` for a text translated with a context (``lang.pt(context, CONSTANT)``)."""
    del context
    return msgid


@dataclass(frozen=True)
class Msg:
    """A text to translate later, where its reader is known: an error's sentence, a game's outcome
    reason, a line built before anyone knows who will read it. ``Msg("{n} is odd", n=3)``,
    ``Msg.n("{count} card", "{count} cards", 3)``, ``Msg.pt("board", "Pile")``; `Lang.say` turns it
    into text, and a field whose value is a `Msg` is translated too. ``str(msg)`` is the English."""

    msgid: str
    fields: Mapping[str, object] = field(default_factory=dict)  # each formatted as text
    plural: str | None = None
    count: int = 1
    context: str | None = None

    def __init__(
        self,
        msgid: str,
        /,
        *,
        _plural: str | None = None,
        _count: int = 1,
        _context: str | None = None,
        **fields: object,
    ) -> None:
        self._set(msgid, fields, _plural, _count, _context)

    def _set(
        self, msgid: str, fields: Mapping[str, object], plural: str | None, count: int, context: str | None
    ) -> None:
        object.__setattr__(self, "msgid", msgid)
        object.__setattr__(self, "fields", dict(fields))
        object.__setattr__(self, "plural", plural)
        object.__setattr__(self, "count", count)
        object.__setattr__(self, "context", context)

    @classmethod
    def _of(
        cls,
        msgid: str,
        fields: Mapping[str, object],
        plural: str | None = None,
        count: int = 1,
        context: str | None = None,
    ) -> Msg:
        msg = cls.__new__(cls)
        msg._set(msgid, fields, plural, count, context)
        return msg

    @classmethod
    def n(cls, singular: str, plural: str, count: int, /, **fields: object) -> Msg:
        return cls._of(singular, fields, plural, count)

    @classmethod
    def pt(cls, context: str, msgid: str, /, **fields: object) -> Msg:
        return cls._of(msgid, fields, context=context)

    def with_fields(self, **fields: object) -> Msg:
        """The same text with more fields (an error fills in what it knows: ``shown``, ``low``...)."""
        return Msg._of(self.msgid, {**self.fields, **fields}, self.plural, self.count, self.context)

    def __str__(self) -> str:
        return ENGLISH.say(self)


@dataclass(frozen=True, eq=False)
class Lang:
    """One language: every text a person reads goes through one of these.

    ``t("Hello {name}", name=...)`` translates then fills ``{fields}`` (str.format); with no fields
    the text is not formatted (braces stay as they are). ``n(singular, plural, count)`` picks the
    plural form for ``count`` by the language's CLDR rules, ``{count}`` being the number in the
    language's digits grouping. A text without a translation reads in English.
    """

    code: str
    messages: Messages = field(repr=False, default_factory=Messages)

    def __reduce__(self) -> tuple[Callable[..., Lang], tuple[object, ...]]:
        # One of the bot's languages travels as its code (a board drawn in a worker process: its
        # catalog is loaded there once, not pickled with every board); any other Lang as it is.
        if self.code in LANGUAGES and language(self.code) is self:
            return (language, (self.code,))
        return (Lang, (self.code, self.messages))

    @property
    def name(self) -> str:
        """The language's own name ("Deutsch")."""
        return LANGUAGES[self.code]

    @property
    def locale(self) -> Locale:
        return _locale(self.code)

    @property
    def discord(self) -> str:
        """The language's Discord locale code ("pt-BR", "en-US")."""
        return DISCORD_OF[self.code]

    # ---- texts ----------------------------------------------------------------------------------

    def t(self, msgid: str, /, **fields: object) -> str:
        text = self.messages.single(None, msgid) or msgid
        return self._fill(text, fields)

    def pt(self, context: str, msgid: str, /, **fields: object) -> str:
        """`t` for a text that needs a context to translate (``pt("command name", "join")``)."""
        text = self.messages.single(context, msgid) or msgid
        return self._fill(text, fields)

    def n(self, singular: str, plural: str, count: int, /, **fields: object) -> str:
        return self._plural(None, singular, plural, count, fields)

    def say(self, text: str | Msg) -> str:
        """A `Msg` in this language (a plain string is translated as a msgid: `t` without fields)."""
        if isinstance(text, str):
            return self.t(text)
        if text.plural is not None:
            return self._plural(text.context, text.msgid, text.plural, text.count, dict(text.fields))
        found = self.messages.single(text.context, text.msgid) or text.msgid
        return self._fill(found, text.fields)

    def _plural(
        self, context: str | None, singular: str, plural: str, count: int, fields: dict[str, object]
    ) -> str:
        text = self.messages.plural(context, singular, count)
        if text is None:
            text = singular if count == 1 else plural
        fields.setdefault("count", self.number(count))
        return self._fill(text, fields)

    def _fill(self, text: str, fields: Mapping[str, object]) -> str:
        if not fields:
            return text
        return text.format(**{k: self.say(v) if isinstance(v, Msg) else v for k, v in fields.items()})

    # ---- numbers, durations, dates, lists -------------------------------------------------------

    def number(self, value: float, digits: int | None = None) -> str:
        """``value`` in the language's digits: "1,234.5" (en), "1.234,5" (de). ``digits``: exactly
        that many decimals."""
        if digits is None:
            return format_decimal(value, locale=self.locale)
        pattern = "#,##0" + ("." + "0" * digits if digits > 0 else "")
        return format_decimal(value, format=pattern, locale=self.locale)

    def percent(self, fraction: float) -> str:
        """0.25 -> "25%" (en), "25 %" (de, fr)."""
        return format_percent(fraction, locale=self.locale)

    def duration(self, seconds: float) -> str:
        """A span in at most its two largest whole units: "1 day and 12 hours", "10 Minuten"."""
        rest = int(seconds)
        parts: list[str] = []
        for size, unit in ((_DAY, "duration-day"), (_HOUR, "duration-hour"), (_MINUTE, "duration-minute")):
            count, rest = divmod(rest, size)
            if count:
                parts.append(self._unit(count, unit))
        if not parts:
            return self.t("less than a minute")
        return self.words(parts[:2])

    def _unit(self, count: int, unit: str) -> str:
        """``count`` of a CLDR unit, spelled out. Babel leaves some long forms out (Portuguese
        days: CLDR inherits them by an alias Babel does not follow, and prints "1 duration-day"),
        so the short form stands in for a missing long one."""
        for length in ("long", "short"):
            text = format_unit(count, unit, length=length, locale=self.locale)
            if unit not in text:
                return text
        return format_unit(count, unit, length="long", locale="en")

    def date(self, when: float) -> str:
        """A day from a Unix time (UTC): "Mar 5, 2025", "05.03.2025"."""
        return format_date(
            dt.datetime.fromtimestamp(when, dt.UTC).date(), format="medium", locale=self.locale
        )

    def datetime(self, when: float) -> str:
        """A moment from a Unix time, in UTC: "Mar 5, 2025, 2:30:00 PM UTC". (In a message, prefer
        Discord's ``<t:unix:f>``, which each reader's client shows in their own language and time.)"""
        moment = dt.datetime.fromtimestamp(when, dt.UTC)
        return format_datetime(moment, format="medium", tzinfo=dt.UTC, locale=self.locale) + " UTC"

    def words(self, items: Iterable[str]) -> str:
        """A list in words: "A, B and C" (en), "A, B und C" (de)."""
        return format_list(list(items), style="standard", locale=self.locale)

    def either(self, items: Iterable[str]) -> str:
        """An "or" list: "A, B or C" (en), "A, B ou C" (fr)."""
        return format_list(list(items), style="or", locale=self.locale)


@cache
def _locale(code: str) -> Locale:
    # English lists and dates follow British conventions, the bot's house style ("A, B and C").
    return Locale.parse("en_GB" if code == SOURCE else code)


def language(code: str) -> Lang:
    """The language of ``code`` (one of `LANGUAGES`; anything else is English): one object each."""
    return _language(code if code in LANGUAGES else SOURCE)


@cache
def _language(code: str) -> Lang:
    return Lang(code, Messages() if code == SOURCE else load(code))


ENGLISH = language(SOURCE)

# Discord's locale codes (https://discord.com/developers/docs/reference#locales) for each language.
DISCORD_OF: Mapping[str, str] = {
    "en": "en-US",
    "de": "de",
    "fr": "fr",
    "es": "es-ES",
    "pt_BR": "pt-BR",
    "ru": "ru",
}
# Discord locales that speak one of our languages: the language's own, its regional variants.
_DISCORD_LOCALES: Mapping[str, str] = {
    "en-US": "en",
    "en-GB": "en",
    "de": "de",
    "fr": "fr",
    "es-ES": "es",
    "es-419": "es",
    "pt-BR": "pt_BR",
    "ru": "ru",
}


def code_of_discord(locale: str | None) -> str:
    """Our language code for a Discord locale ("es-419" -> "es"); English for anything else."""
    if not locale:
        return SOURCE
    return _DISCORD_LOCALES.get(str(locale), SOURCE)


def from_discord(locale: object) -> Lang:
    """The language of a Discord locale (a `discord.Locale` or its code, "pt-BR"); English for a
    locale we do not speak, or none."""
    value = getattr(locale, "value", locale)
    return language(code_of_discord(str(value) if value else None))


def discord_locales(code: str) -> tuple[str, ...]:
    """Every Discord locale that speaks language ``code`` (a command's localisations go to each)."""
    return tuple(loc for loc, c in _DISCORD_LOCALES.items() if c == code)
