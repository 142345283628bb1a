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
from bot.i18n import ENGLISH, N_, Lang
from bot.i18n.lang import Msg

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
    out_of_range: Msg | None = None,
    not_a_number: Msg | None = None,
) -> int:
    """``text`` as a whole number from ``low`` to ``high``, written in the ASCII digits 0-9 (after an
    optional + or - when ``signed``); whitespace around it is ignored.

    Raises `BadInput` when ``text`` is empty or blank, `NotANumber` when it is not written that way
    and `OutOfRange` (naming the range) when the value is outside it; ``out_of_range`` and
    ``not_a_number``: the caller's own sentences for these two (see `OutOfRange` and `NotANumber`).
    """
    word = text.strip()
    if not word:
        raise BadInput("Type a whole number from {low} to {high}.", low=low, high=high)
    digits = word[1:] if signed and word[0] in "+-" else word
    if not is_ascii_digits(digits):
        raise NotANumber(excerpt(word), low, high, not_a_number)
    if len(digits) > MAX_DIGITS:
        raise OutOfRange(excerpt(word), low, high, out_of_range)
    value = int(word)
    if not low <= value <= high:
        raise OutOfRange(str(value), low, high, out_of_range)
    return value


def binary_number(
    text: str, low: int, high: int, *, out_of_range: Msg | None = None, not_a_number: Msg | None = None
) -> int:
    """``text`` written as ``0b`` and binary digits (``0b101`` is 5), from ``low`` to ``high``; the
    same refusals as `whole_number`."""
    word = text.strip()
    bits = word[2:] if word[:2].lower() == "0b" else ""
    if not bits or set(bits) - {"0", "1"}:
        raise NotANumber(excerpt(word), low, high, not_a_number)
    if len(bits) > 4 * MAX_DIGITS:
        raise OutOfRange(excerpt(word), low, high, out_of_range)
    value = int(bits, 2)
    if not low <= value <= high:
        raise OutOfRange(str(value), low, high, out_of_range)
    return value


def parse_id(text: str) -> int:
    """A Discord id (snowflake) or a game id: ASCII digits only, from 1 to 2^63 - 1, so that it fits
    Discord's and SQLite's 64-bit integers. Raises `BadInput`."""
    word = text.strip()
    if not is_ascii_digits(word) or len(word) > ID_MAX_DIGITS or not 1 <= int(word) <= ID_MAX:
        if shown := excerpt(word):
            raise BadInput(
                "{shown} is not a valid id. Use a whole number of at most {digits} digits (0-9), "
                "from 1 to {largest}.",
                shown=repr(shown),
                digits=ID_MAX_DIGITS,
                largest=ID_MAX,
            )
        raise BadInput(
            "The id is missing. Use a whole number of at most {digits} digits (0-9), from 1 to {largest}.",
            digits=ID_MAX_DIGITS,
            largest=ID_MAX,
        )
    return int(word)


# ---- naming characters ------------------------------------------------------------------------------

_CHARACTER_NAMES = {
    " ": N_("spaces"),
    ",": N_("commas"),
    ".": N_("full stops"),
    ";": N_("semicolons"),
    ":": N_("colons"),
    "-": N_("hyphens"),
    "_": N_("underscores"),
    "/": N_("slashes"),
    "'": N_("apostrophes"),
    '"': N_("quotation marks"),
    "!": N_("exclamation marks"),
    "?": N_("question marks"),
    "(": N_("brackets"),
    ")": N_("brackets"),
    "+": N_("plus signs"),
    "*": N_("asterisks"),
    "#": N_("hash signs"),
}


def character_name(ch: str, lang: Lang = ENGLISH) -> str:
    """A character as a sentence can name it: a letter or digit as itself ("P", "7"), common
    punctuation in words ("commas", in ``lang``), anything else quoted ("'é'") or, when invisible, by
    its code point ("U+200B")."""
    if ch.isascii() and ch.isalnum():
        return ch
    if ch in _CHARACTER_NAMES:
        return lang.t(_CHARACTER_NAMES[ch])
    if ch.isspace():
        return lang.t(_CHARACTER_NAMES[" "])
    if not ch.isprintable():
        return f"U+{ord(ch):04X}"
    return f"'{ch}'"


def not_allowed(chars: Iterable[str], limit: int = 5, lang: Lang = ENGLISH) -> str:
    """ "P is not allowed", "P, W and commas are not allowed" (in ``lang``): the distinct ``chars``
    in the order given, named by `character_name`, at most ``limit`` of them (then "and N more
    characters")."""
    names: list[str] = []
    for ch in chars:
        name = character_name(ch, lang)
        if name not in names:
            names.append(name)
    # A single character (a letter, a quoted one, a code point) is named as itself; words name groups.
    single = [len(name) == 1 or name.startswith(("'", "U+")) for name in names]
    order = sorted(range(len(names)), key=lambda i: not single[i])  # letters first
    shown = [names[i] for i in order[:limit]]
    rest = len(names) - len(shown)
    if rest:
        shown.append(lang.n("{count} more character", "{count} more characters", rest))
    if not shown:
        return lang.t("nothing is refused")
    if len(shown) == 1 and single[order[0]]:
        return lang.t("{character} is not allowed", character=shown[0])
    return lang.t("{characters} are not allowed", characters=lang.words(shown))
