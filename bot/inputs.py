"""What people type, read strictly, once, where it enters: numbers, ids and quotes of refused input.

Whatever a player sends (a slash command option, a typed DM answer, a form field, a custom_id) is
read here or by a rules module's parser built on these helpers, and turned into a value or refused
with a `BadInput` that says what to type instead. The helpers are pure (no discord).

Strict means: digits are the ASCII digits 0-9 only (Python's ``str.isdigit`` and ``int`` also take
"²", "٣" or "３"), a number longer than anyone needs is refused before ``int`` sees it (Python refuses
to convert more than 4,300 digits, and such input is never a valid move anyway), and a refusal quotes
at most an `excerpt` of the input, so that it always fits in a Discord message.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from bot.errors import BadInput, NotANumber, OutOfRange

MAX_DIGITS = 18
"""The longest number (in digits, leading zeros included) read as a number: more is out of range for
everything the games ask for, and is refused without being converted."""

ID_MAX = 2**63 - 1
"""The largest id: Discord's snowflakes and our game ids are signed 64-bit integers (SQLite's too)."""

ID_MAX_DIGITS = len(str(ID_MAX))  # 19

_QUOTE_LIMIT = 40


def excerpt(text: str, limit: int = _QUOTE_LIMIT) -> str:
    """A short quotable excerpt of ``text`` for a refusal: one line (every run of whitespace, newlines
    included, becomes one space), without control or invisible formatting characters, and at most
    ``limit`` characters, the last an ellipsis when it was cut."""
    out: list[str] = []
    size = 0
    space = False
    for ch in text:
        if ch.isspace():
            space = bool(out)
            continue
        if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn"):
            continue
        if space:
            out.append(" ")
            size += 1
            space = False
        out.append(ch)
        size += 1
        if size > limit:
            break
    if size > limit:
        kept = "".join(out)[: max(limit - 1, 0)].rstrip()
        return kept + "…"
    return "".join(out)


def is_ascii_digits(text: str) -> bool:
    """True when ``text`` is one or more of the ASCII digits 0-9 and nothing else."""
    return bool(text) and text.isascii() and text.isdigit()


def whole_number(
    text: str,
    low: int,
    high: int,
    *,
    signed: bool = False,
    context: str = "",
    hint: str = "",
) -> int:
    """``text`` as a whole number from ``low`` to ``high``, written in the ASCII digits 0-9 (after an
    optional + or - when ``signed``); whitespace around it is ignored.

    Raises `BadInput` when ``text`` is empty or blank, `NotANumber` when it is not written that way
    and `OutOfRange` (naming the range; ``context`` goes before it, e.g. "in this game (m = 3) ")
    when the value is outside it. ``hint`` is added to the not-a-number sentence (e.g. " (or binary,
    like 0b101)").
    """
    word = text.strip()
    if not word:
        raise BadInput("Type a whole number from {low} to {high}.", low=low, high=high)
    digits = word[1:] if signed and word[0] in "+-" else word
    if not is_ascii_digits(digits):
        raise NotANumber(excerpt(word), low, high, hint)
    if len(digits) > MAX_DIGITS:
        raise OutOfRange(excerpt(word), low, high, context)
    value = int(word)
    if not low <= value <= high:
        raise OutOfRange(str(value), low, high, context)
    return value


def binary_number(text: str, low: int, high: int, *, context: str = "", hint: str = "") -> int:
    """``text`` written as ``0b`` and binary digits (``0b101`` is 5), from ``low`` to ``high``; the
    same refusals as `whole_number`."""
    word = text.strip()
    bits = word[2:] if word[:2].lower() == "0b" else ""
    if not bits or set(bits) - {"0", "1"}:
        raise NotANumber(excerpt(word), low, high, hint)
    if len(bits) > 4 * MAX_DIGITS:
        raise OutOfRange(excerpt(word), low, high, context)
    value = int(bits, 2)
    if not low <= value <= high:
        raise OutOfRange(str(value), low, high, context)
    return value


def parse_id(text: str, what: str = "id") -> int:
    """A Discord id (snowflake) or a game id: ASCII digits only, from 1 to 2^63 - 1, so that it fits
    Discord's and SQLite's 64-bit integers. Raises `BadInput` naming ``what``."""
    word = text.strip()
    if not is_ascii_digits(word) or len(word) > ID_MAX_DIGITS or not 1 <= int(word) <= ID_MAX:
        shown = excerpt(word)
        raise BadInput(
            (f"{shown!r} is not a valid {what}." if shown else f"The {what} is missing.")
            + f" Use a whole number of at most {ID_MAX_DIGITS} digits (0-9), from 1 to {ID_MAX}."
        )
    return int(word)


# ---- naming characters ------------------------------------------------------------------------------

_CHARACTER_NAMES = {
    " ": "spaces",
    ",": "commas",
    ".": "full stops",
    ";": "semicolons",
    ":": "colons",
    "-": "hyphens",
    "_": "underscores",
    "/": "slashes",
    "'": "apostrophes",
    '"': "quotation marks",
    "!": "exclamation marks",
    "?": "question marks",
    "(": "brackets",
    ")": "brackets",
    "+": "plus signs",
    "*": "asterisks",
    "#": "hash signs",
}


def character_name(ch: str) -> str:
    """A character as a sentence can name it: a letter or digit as itself ("P", "7"), common
    punctuation in words ("commas"), anything else quoted ("'é'") or, when invisible, by its code
    point ("U+200B")."""
    if ch.isascii() and ch.isalnum():
        return ch
    if ch in _CHARACTER_NAMES:
        return _CHARACTER_NAMES[ch]
    if ch.isspace():
        return "spaces"
    if not ch.isprintable():
        return f"U+{ord(ch):04X}"
    return f"'{ch}'"


def not_allowed(chars: Iterable[str], limit: int = 5) -> str:
    """ "P is not allowed", "P, W and commas are not allowed": the distinct ``chars`` in the order
    given, named by `character_name`, at most ``limit`` of them (then "and N more characters")."""
    names: list[str] = []
    for ch in chars:
        name = character_name(ch)
        if name not in names:
            names.append(name)
    names.sort(key=lambda name: len(name) > 1 and not name.startswith(("'", "U+")))  # letters first
    shown = names[:limit]
    rest = len(names) - len(shown)
    if rest:
        shown.append(f"{rest} more character{'' if rest == 1 else 's'}")
    if not shown:
        return "nothing is refused"
    phrase = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]
    plural = len(shown) > 1 or not (len(names[0]) == 1 or names[0].startswith(("'", "U+")))
    return f"{phrase} {'are' if plural else 'is'} not allowed"
