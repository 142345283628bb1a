"""A game's analysis as a chart, and its alt text (`bot.analysis`; the command: bot/table/analysis.py).

The chart shows, after each move, the mover's standing on the review's scale: their chance
("won" at the top, "lost" at the bottom) or their final score margin. Each player has a line in
their colour through their own moves, with their letter badge in the legend; the moves the answer
names as a player's worst are ringed and numbered. Moves with no value (nothing honest to say) are
left out. Pure: a `Chart` (plain figures and names) in, PNG bytes out.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.i18n import ENGLISH, Lang
from bot.render.alt import fit_alt, player
from bot.render.colours import BAD, GRID, INK, MUTED, player_colour
from bot.render.common import BADGE, Canvas, seat_name, text_width

WIDTH, HEIGHT = 720, 380
PAD = 18
TITLE = 20
SMALL = 14
LEFT = 70  # the plot's left edge (room for the scale's labels)
TOP = 92  # below the title and the legend
BOTTOM = 40  # room for the move numbers
RING = 7


@dataclass(frozen=True)
class Point:
    """The mover's value after move ``index`` (None: not judged)."""

    index: int
    seat: int
    value: float | None


@dataclass(frozen=True)
class Chart:
    title: str  # the game's title
    game_id: int
    scale: str  # "win" or "points" (`bot.analysis.SCALES`)
    names: tuple[str, ...]  # the seats' names
    points: tuple[Point, ...]
    marked: tuple[int, ...] = ()  # the moves named as worst (by index)


def _span(chart: Chart) -> float:
    """The value at the top of the plot (its bottom is minus that)."""
    if chart.scale == "win":
        return 1.0
    values = [abs(p.value) for p in chart.points if p.value is not None]
    return max(1.0, *values) if values else 1.0


def render(chart: Chart, *, lang: Lang = ENGLISH) -> bytes:
    c = Canvas(WIDTH, HEIGHT)
    heading = lang.t("{title} · game #{game_id} · analysis", title=chart.title, game_id=chart.game_id)
    c.text((PAD, 12), heading, TITLE, INK, "bold")
    x = PAD
    for seat in range(len(chart.names)):  # the legend: each player's badge and name
        c.badge((x, 48), seat)
        label = seat_name(chart.names, seat, 18, lang)
        x += BADGE + 6 + c.text((x + BADGE + 6, 48), label, SMALL, INK) + 18
    right, bottom = WIDTH - PAD, HEIGHT - BOTTOM
    span = _span(chart)
    moves = max((p.index for p in chart.points), default=1)

    def at(index: int, value: float) -> tuple[int, int]:
        px = LEFT + (right - LEFT) * (index - 1) // max(1, moves - 1) if moves > 1 else (LEFT + right) // 2
        py = TOP + int((bottom - TOP) * (span - value) / (2 * span))
        return px, py

    c.rect((LEFT, TOP, right, bottom), outline=GRID)
    mid = at(1, 0.0)[1]
    c.line([(LEFT, mid), (right, mid)], GRID, 1)
    top_label, low_label = _labels(chart.scale, span, lang)
    c.text((LEFT - 8, TOP - 2), top_label, SMALL, MUTED, anchor="r")
    c.text((LEFT - 8, mid - 9), "0", SMALL, MUTED, anchor="r")
    c.text((LEFT - 8, bottom - 16), low_label, SMALL, MUTED, anchor="r")
    c.text((LEFT, bottom + 8), lang.t("move {number}", number=1), SMALL, MUTED)
    c.text((right, bottom + 8), lang.t("move {number}", number=moves), SMALL, MUTED, anchor="r")
    judged = [p for p in chart.points if p.value is not None]
    if not judged:
        c.text(((LEFT + right) // 2, mid - 30), lang.t("No move could be judged."), SMALL, MUTED, anchor="c")
    for seat in range(len(chart.names)):
        line = [at(p.index, p.value) for p in judged if p.seat == seat and p.value is not None]
        if len(line) > 1:
            c.line(line, player_colour(seat), 3)
        for px, py in line:
            c.ellipse((px - 3, py - 3, px + 3, py + 3), fill=player_colour(seat))
    for p in judged:
        if p.index in chart.marked and p.value is not None:
            px, py = at(p.index, p.value)
            c.ellipse((px - RING, py - RING, px + RING, py + RING), outline=BAD, width=2)
            label = str(p.index)
            lx = min(max(px, LEFT + text_width(label, SMALL)), right - text_width(label, SMALL))
            c.text(
                (lx, py - RING - 20 if py - RING - 20 > TOP else py + RING + 2),
                label,
                SMALL,
                BAD,
                "bold",
                "c",
            )
    return c.png()


def _labels(scale: str, span: float, lang: Lang) -> tuple[str, str]:
    if scale == "win":
        return lang.pt("analysis chart", "won"), lang.pt("analysis chart", "lost")
    top = f"+{span:g}"
    return top, f"−{span:g}"


def alt_text(chart: Chart, worst: dict[int, list[tuple[int, str]]], lang: Lang = ENGLISH) -> str:
    """The chart in words: what it shows, and each player's worst moves (``worst``: seat -> (move,
    verdict's words))."""
    players = lang.words([player(chart.names, s, lang) for s in range(len(chart.names))])
    if chart.scale == "win":
        shows = lang.t(
            "Analysis chart of {title} game #{game_id}: {players}. After each move, a line per player "
            "shows the mover's standing, from lost at the bottom to won at the top.",
            title=chart.title, game_id=chart.game_id, players=players,
        )  # fmt: skip
    else:
        shows = lang.t(
            "Analysis chart of {title} game #{game_id}: {players}. After each move, a line per player "
            "shows the mover's expected final score margin.",
            title=chart.title, game_id=chart.game_id, players=players,
        )  # fmt: skip
    parts = [shows]
    for seat in range(len(chart.names)):
        moves = worst.get(seat, [])
        who = player(chart.names, seat, lang)
        if moves:
            listed = lang.words([lang.t("move {number}, {verdict}", number=n, verdict=v) for n, v in moves])
            parts.append(lang.t("{player}: ringed, {moves}.", player=who, moves=listed))
        else:
            parts.append(lang.t("{player}: no move ringed.", player=who))
    return fit_alt(parts)
