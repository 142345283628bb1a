"""Alt text for the boards: the position in words, for people who cannot see the image.

Each game's presenter builds its sentences from the *public* view (``alt_text(view, table)``); these
helpers name players the way the images mark them ("Alice (A)") and cut the text to what Discord
takes as an attachment's description (1,024 characters) at a clean boundary.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from bot.i18n.lang import ENGLISH, Lang
from bot.render.colours import seat_letter
from bot.render.common import seat_name

ALT_LIMIT = 1000  # Discord takes 1,024 characters: keep a margin


def player(names: Sequence[str], seat: int, lang: Lang = ENGLISH) -> str:
    """A player as the board marks them: their name and letter."""
    return f"{seat_name(names, seat, 32, lang)} ({seat_letter(seat)})"


def words(items: Sequence[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    if not items:
        return ""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def fit_alt(sentences: Iterable[str], limit: int = ALT_LIMIT) -> str:
    """The sentences joined, whole sentences first; the first that does not fit is cut at a word
    (or a "; " list boundary) and ends with "…"; the rest are left out."""
    out = ""
    for sentence in sentences:
        sentence = sentence.strip()
        if not sentence:
            continue
        candidate = f"{out} {sentence}" if out else sentence
        if len(candidate) <= limit:
            out = candidate
            continue
        room = limit - len(out) - (1 if out else 0) - 1
        if room > 40:
            head = sentence[:room]
            cut = max(head.rfind("; "), head.rfind(", "))
            if cut < room // 2:
                cut = head.rfind(" ")
            if cut > 0:
                out = (f"{out} " if out else "") + head[:cut].rstrip(",;") + "…"
        break
    return out
