"""The message catalogs: one gettext ``.po`` file per language, read at startup (no compile step).

The catalogs live in ``bot/i18n/locales/<code>/LC_MESSAGES/quetbot.po`` beside the template
``bot/i18n/locales/quetbot.pot`` (made by ``python -m bot.i18n extract``). A message without a
translation (empty, or marked fuzzy) is left out, so it reads in English, never as a key.
Plural forms are chosen by the catalog's own ``Plural-Forms`` header, the forms its translations
were written for (Babel wrote it from CLDR when the catalog was made), never by the plural table of
the installed Babel, which changes between versions (tests/unit/test_i18n.py checks the header, and
that it agrees with CLDR for the counts the bot says).
"""

from __future__ import annotations

import gettext
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from babel.messages.catalog import Catalog as PoCatalog
from babel.messages.pofile import read_po

DOMAIN = "quetbot"
LOCALES_DIR = Path(__file__).resolve().parent / "locales"
TEMPLATE = LOCALES_DIR / f"{DOMAIN}.pot"

Key = tuple[str | None, str]  # (context, msgid)


def po_path(code: str) -> Path:
    return LOCALES_DIR / code / "LC_MESSAGES" / f"{DOMAIN}.po"


def read_catalog(path: Path, code: str | None = None) -> PoCatalog:
    with path.open("rb") as f:
        return read_po(f, locale=code, domain=DOMAIN)


def _english_plural(n: int) -> int:
    return 0 if n == 1 else 1


@dataclass(frozen=True)
class Messages:
    """One language's translated messages, ready to look up."""

    singles: dict[Key, str] = field(default_factory=dict)
    plurals: dict[Key, tuple[str, ...]] = field(default_factory=dict)
    plural_index: Callable[[int], int] = _english_plural

    def single(self, context: str | None, msgid: str) -> str | None:
        return self.singles.get((context, msgid))

    def plural(self, context: str | None, singular: str, count: int) -> str | None:
        forms = self.plurals.get((context, singular))
        if forms is None:
            return None
        index = self.plural_index(abs(int(count)))
        return forms[index] if 0 <= index < len(forms) else None


def messages_of(catalog: PoCatalog) -> Messages:
    singles: dict[Key, str] = {}
    plurals: dict[Key, tuple[str, ...]] = {}
    for message in catalog:
        if not message.id or message.fuzzy:
            continue
        if isinstance(message.id, (tuple, list)):
            forms = tuple(message.string or ())
            if forms and all(forms):  # a plural with a form missing is not used at all
                plurals[(message.context, str(message.id[0]))] = forms
        elif message.string:
            singles[(message.context, str(message.id))] = str(message.string)
    plural_index = gettext.c2py(catalog.plural_expr) if catalog.plural_expr else _english_plural
    return Messages(singles, plurals, plural_index)


def load(code: str) -> Messages:
    """The messages of language ``code`` (no catalog file: none, so everything reads in English)."""
    path = po_path(code)
    if not path.exists():
        return Messages()
    return messages_of(read_catalog(path, code))
