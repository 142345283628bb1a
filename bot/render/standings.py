"""A tournament's standings as an image, and its alt text.

Drawn like the leaderboard (a slate card with a light frame): a title (the game and the tournament's
number), a line saying the format, the round and which tie-break ranks equal points, then one row per
player: rank, name, points, tie-break, games left. A withdrawn player's row is muted and marked; the
leader's rank is drawn in gold once the tournament is over. Pure: a `Standings` (plain figures and
names) in, PNG bytes out.

Points and tie-breaks are exact fractions (a shared win is worth a half, and a Sonneborn-Berger sum
may hold quarters): they are shown as whole numbers with ¼, ½ or ¾ ("2½"), anything finer as a
decimal.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from bot.i18n import ENGLISH, Lang, Np_
from bot.render.alt import fit_alt
from bot.render.colours import BACKGROUND, GRID, HIGHLIGHT, INK, MUTED, PANEL, RESULT, RGB
from bot.render.common import MIN_WIDTH, Canvas, text_width

PAD = 18
TITLE = 22
TEXT = 17
SMALL = 15
ROW_H = 32
HEAD_H = 98
NAME_MAX = 24
WIDTH = 620

_QUARTERS = {Fraction(1, 4): "¼", Fraction(1, 2): "½", Fraction(3, 4): "¾"}


@dataclass(frozen=True)
class Row:
    rank: int
    name: str
    points: Fraction
    tie_break: Fraction
    games_left: int
    withdrawn: bool = False
    you: bool = False  # the person who asked


@dataclass(frozen=True)
class Standings:
    title: str  # the game's title
    tournament_id: int
    format_name: str  # "round robin" / "Swiss", in the reader's language
    tie_break_name: str  # "Sonneborn-Berger" / "Buchholz"
    round_no: int  # the round being played (0: not started)
    rounds: int  # how many rounds in all
    rows: tuple[Row, ...]
    finished: bool = False


def figure(value: Fraction, lang: Lang = ENGLISH) -> str:
    """A point count or tie-break as people write it: "3", "2½", "¾", "−1½"; finer fractions as a
    decimal of two places in the reader's way ("1.33", "1,33")."""
    sign = "−" if value < 0 else ""
    value = abs(value)
    whole, part = divmod(value, 1)
    if part == 0:
        return f"{sign}{lang.number(int(whole))}"
    if part in _QUARTERS:
        return f"{sign}{lang.number(int(whole)) if whole else ''}{_QUARTERS[part]}"
    return f"{sign}{lang.number(float(value), 2)}"


POINTS = Np_("standings", "Points")
LEFT = Np_("standings", "Games left")
PLAYER = Np_("standings", "Player")


def _name(name: str) -> str:
    return name if len(name) <= NAME_MAX else name[: NAME_MAX - 1] + "…"


def heading(standings: Standings, lang: Lang) -> str:
    return lang.t(
        "{title} tournament #{tournament_id}",
        title=standings.title,
        tournament_id=standings.tournament_id,
    )


def subtitle(standings: Standings, lang: Lang) -> str:
    """The format, where the tournament is, and the tie-break, in one line."""
    if standings.finished:
        where = lang.n("over after {count} round", "over after {count} rounds", standings.rounds)
    elif standings.round_no == 0:
        where = lang.t("not started")
    else:
        where = lang.t("round {round} of {rounds}", round=standings.round_no, rounds=standings.rounds)
    return lang.t(
        "{format} · {where} · ties broken by {tie_break}",
        format=standings.format_name,
        where=where,
        tie_break=standings.tie_break_name,
    )


def _columns(standings: Standings, lang: Lang) -> list[tuple[str, int]]:
    """(heading, right edge x) of each figure column after the name."""
    right = WIDTH - PAD
    tie = standings.tie_break_name
    if text_width(tie, SMALL) > 150:  # a long name shortens to its initials ("SB")
        tie = "".join(word[0] for word in tie.replace("-", " ").split()).upper()
    return [
        (lang.pt("standings", POINTS), right - 230),
        (tie, right - 100),
        (lang.pt("standings", LEFT), right),
    ]


def render(standings: Standings, *, lang: Lang = ENGLISH) -> bytes:
    """The standings drawn with their words in ``lang``."""
    rows = max(1, len(standings.rows))
    height = HEAD_H + rows * ROW_H + PAD
    c = Canvas(max(WIDTH, MIN_WIDTH), height)
    c.text((PAD, 12), heading(standings, lang), TITLE, INK, "bold")
    c.text((PAD, 44), subtitle(standings, lang), SMALL, MUTED)
    columns = _columns(standings, lang)
    head_y = HEAD_H - ROW_H + 8
    c.text((PAD, head_y), "#", SMALL, MUTED)
    c.text((PAD + 44, head_y), lang.pt("standings", PLAYER), SMALL, MUTED)
    for title, x in columns:
        c.text((x, head_y), title, SMALL, MUTED, anchor="r")
    c.line([(PAD, HEAD_H - 2), (WIDTH - PAD, HEAD_H - 2)], GRID, 1)
    y = HEAD_H
    if not standings.rows:
        c.text((PAD, y + 6), lang.t("Nobody has joined yet."), TEXT, MUTED)
    for i, row in enumerate(standings.rows):
        _row(c, y, row, columns, stripe=i % 2 == 1, champion=standings.finished and row.rank == 1, lang=lang)
        y += ROW_H
    return c.png()


def _row(
    c: Canvas,
    y: int,
    row: Row,
    columns: list[tuple[str, int]],
    *,
    stripe: bool,
    champion: bool,
    lang: Lang,
) -> None:
    bg = HIGHLIGHT if row.you else PANEL if stripe else None
    if bg is not None:
        c.rect((PAD - 6, y + 1, WIDTH - PAD + 6, y + ROW_H - 2), fill=bg, radius=4)
    under = bg if bg is not None else BACKGROUND
    face = "bold" if row.you or champion else "sans"
    ink: RGB = MUTED if row.withdrawn else INK
    text_y = y + (ROW_H - 22) // 2
    c.text((PAD, text_y), str(row.rank), TEXT, RESULT if champion else ink, face, background=under)
    name = _name(row.name)
    if row.withdrawn:
        name = lang.t("{name} (withdrawn)", name=name)
    c.text((PAD + 44, text_y), name, TEXT, ink, face, background=under)
    values = (figure(row.points, lang), figure(row.tie_break, lang), lang.number(row.games_left))
    for text, (_, x) in zip(values, columns, strict=True):
        c.text((x, text_y), text, TEXT, ink, face, anchor="r", background=under)


def alt_text(standings: Standings, lang: Lang = ENGLISH) -> str:
    """The standings in words (Discord's attachment description), in ``lang``."""

    def said(row: Row) -> str:
        fields = {
            "rank": row.rank,
            "name": row.name,
            "points": figure(row.points, lang),
            "tie_break": f"{standings.tie_break_name} {figure(row.tie_break, lang)}",
            "left": lang.n("{count} game left", "{count} games left", row.games_left),
        }
        if row.withdrawn:
            return lang.t("{rank}. {name} (withdrawn): score {points}, {tie_break}.", **fields)
        return lang.t("{rank}. {name}: score {points}, {tie_break}, {left}.", **fields)

    sentences = [heading(standings, lang) + ": " + subtitle(standings, lang) + "."]
    if not standings.rows:
        sentences.append(lang.t("Nobody has joined yet."))
    sentences += [said(row) for row in standings.rows]
    return fit_alt(sentences)
