"""A server's leaderboard for one game as an image, and its alt text.

Drawn like the boards (a slate card with a light frame, readable on Discord's dark and light themes):
a title, the period, then one row per player (rank, name, rating, games, wins, and for a period the
rating gained in it); the row of the person who asked is highlighted, and when they are not among the
top rows it follows them, after a gap. Pure: a `Leaderboard` (plain figures and names) in, PNG bytes
out.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.i18n import ENGLISH, Lang, Np_
from bot.render.alt import fit_alt
from bot.render.colours import BACKGROUND, BAD, GOOD, GRID, HIGHLIGHT, INK, MUTED, PANEL, RGB
from bot.render.common import MIN_WIDTH, Canvas

PAD = 18
TITLE = 22
TEXT = 17
SMALL = 15
ROW_H = 32
HEAD_H = 98
NAME_MAX = 22
WIDTH = 600


@dataclass(frozen=True)
class Line:
    rank: int
    name: str
    rating: int  # the number shown
    games: int
    wins: int
    change: int | None = None  # rating gained in the period (None: all time)
    you: bool = False  # the person who asked


@dataclass(frozen=True)
class Leaderboard:
    title: str  # the game's title
    period: str  # "all time", "this week", ...
    lines: tuple[Line, ...]  # the top of the board
    own: Line | None = None  # the asker's line, when it is not among ``lines``
    note: str = ""  # what ranks it ("ranked by rating"), after the period

    @property
    def timed(self) -> bool:
        return any(line.change is not None for line in (*self.lines, *((self.own,) if self.own else ())))


def _name(name: str) -> str:
    return name if len(name) <= NAME_MAX else name[: NAME_MAX - 1] + "…"


def _signed(value: int) -> str:
    return f"+{value:,}" if value > 0 else f"−{-value:,}" if value < 0 else "±0"


RATING = Np_("leaderboard", "Rating")
CHANGE = Np_("leaderboard", "Change")
GAMES = Np_("leaderboard", "Games")
WINS = Np_("leaderboard", "Wins")


def _columns(timed: bool, lang: Lang) -> list[tuple[str, int, str]]:
    """(heading, x, anchor) of each column after the name."""
    right = WIDTH - PAD
    if timed:
        spots = [(RATING, right - 250), (CHANGE, right - 160), (GAMES, right - 80), (WINS, right)]
    else:
        spots = [(RATING, right - 180), (GAMES, right - 90), (WINS, right)]
    return [(lang.pt("leaderboard", heading), x, "r") for heading, x in spots]


def render(board: Leaderboard, *, lang: Lang = ENGLISH) -> bytes:
    """The board drawn with its words in ``lang`` (the reader's: a leaderboard is a private answer)."""
    timed = board.timed
    rows = len(board.lines) + (2 if board.own is not None else 0)
    height = HEAD_H + max(1, rows) * ROW_H + PAD
    c = Canvas(max(WIDTH, MIN_WIDTH), height)
    c.text((PAD, 12), lang.t("{title} · leaderboard", title=board.title), TITLE, INK, "bold")
    subtitle = board.period.capitalize() + (f" · {board.note}" if board.note else "")
    c.text((PAD, 44), subtitle, SMALL, MUTED)
    columns = _columns(timed, lang)
    head_y = HEAD_H - ROW_H + 8
    c.text((PAD, head_y), "#", SMALL, MUTED)
    c.text((PAD + 44, head_y), lang.pt("leaderboard", "Player"), SMALL, MUTED)
    for heading, x, anchor in columns:
        c.text((x, head_y), heading, SMALL, MUTED, anchor=anchor)
    c.line([(PAD, HEAD_H - 2), (WIDTH - PAD, HEAD_H - 2)], GRID, 1)
    y = HEAD_H
    if not board.lines:
        c.text((PAD, y + 6), lang.t("No finished game yet."), TEXT, MUTED)
    for i, line in enumerate(board.lines):
        _row(c, y, line, columns, stripe=i % 2 == 1)
        y += ROW_H
    if board.own is not None:
        c.text((WIDTH // 2, y + 4), "⋯", TEXT, MUTED, anchor="c")
        y += ROW_H
        _row(c, y, board.own, columns, stripe=False)
    return c.png()


def _row(c: Canvas, y: int, line: Line, columns: list[tuple[str, int, str]], *, stripe: bool) -> None:
    bg = HIGHLIGHT if line.you else PANEL if stripe else None
    if bg is not None:
        c.rect((PAD - 6, y + 1, WIDTH - PAD + 6, y + ROW_H - 2), fill=bg, radius=4)
    under = bg if bg is not None else BACKGROUND
    face = "bold" if line.you else "sans"
    text_y = y + (ROW_H - 22) // 2
    c.text((PAD, text_y), str(line.rank), TEXT, INK, face, background=under)
    c.text((PAD + 44, text_y), _name(line.name), TEXT, INK, face, background=under)
    values: list[tuple[str, RGB]] = [(f"{line.rating:,}", INK)]
    if line.change is not None:
        values.append((_signed(line.change), GOOD if line.change > 0 else BAD if line.change < 0 else MUTED))
    elif len(columns) == 4:  # a board of a period, and a line without its change
        values.append(("—", MUTED))
    values += [(f"{line.games:,}", INK), (f"{line.wins:,}", INK)]
    for (text, colour), (_, x, anchor) in zip(values, columns, strict=True):
        c.text((x, text_y), text, TEXT, colour, face, anchor=anchor, background=under)


def alt_text(board: Leaderboard, lang: Lang = ENGLISH) -> str:
    """The leaderboard in words (Discord's attachment description), in ``lang``."""

    def said(line: Line) -> str:
        fields = {
            "rank": line.rank,
            "name": line.name,
            "rating": line.rating,
            "games": lang.n("{count} game", "{count} games", line.games),
            "wins": lang.n("{count} win", "{count} wins", line.wins),
        }
        if line.change is None:
            return lang.t("{rank}. {name}: rating {rating}, {games}, {wins}.", **fields)
        return lang.t(
            "{rank}. {name}: rating {rating}, {change} {period}, {games}, {wins}.",
            change=_signed(line.change),
            period=board.period,
            **fields,
        )

    if board.note:
        head = lang.t(
            "{title} leaderboard, {period}, {note}.", title=board.title, period=board.period, note=board.note
        )
    else:
        head = lang.t("{title} leaderboard, {period}.", title=board.title, period=board.period)
    sentences = [head]
    if not board.lines:
        sentences.append(lang.t("No finished game yet."))
    sentences += [said(line) for line in board.lines]
    if board.own is not None:
        sentences.append(lang.t("You: {line}", line=said(board.own)))
    return fit_alt(sentences)
