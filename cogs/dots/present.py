"""Lines By The Dots as people see it, from the public view (the game has no secrets).

Every line is answered with what it scored. The board image is posted once a turn is over (and at
the end); between the two lines of a turn the post is text only, with the menu for the horizontal
line (unless that line is a fallback, whose start is chosen looking at the picture). The post's
menus offer the legal endpoints of the line owed; when the line must name its start (the first
line of the game, a fallback line), they offer the legal start dots, grouped by whole columns into
at most four menus of at most 25 (a 10 x 10 grid's first line: four menus of 25 dots, A1-C5 ...
H6-J10).
"""

from __future__ import annotations

from typing import Any

import discord

from bot.games import dots
from bot.render.alt import fit_alt, player, words
from bot.render.colours import seat_letter
from bot.render.dots import render_board
from bot.table.components import select
from bot.table.ids import custom_id
from bot.table.present import News, TableInfo, counted, points, whose_move

View = dots.View
SELECT_MAX = 25  # Discord's limit on the options of one select menu
MENUS_MAX = 4  # menus of start dots on a board: Discord allows five rows, one is kept for buttons


def arrow(a: str, b: str) -> str:
    return f"{a}→{b}"


def start_groups(starts: tuple[dots.Dot, ...]) -> list[tuple[str, list[dots.Dot]]]:
    """Starts (sorted by column) packed into at most four menus of at most 25 options each (the
    board keeps a row for its buttons, like the first board's Rules), each with what it holds.

    Whole columns while they fit ("columns A-B"; a column holds at most 10 dots); when the starts
    need more menus so (a 9 x 9 or 10 x 10 grid's first line), runs of 25 dots ("A1-C5").
    """
    columns: dict[int, list[dots.Dot]] = {}
    for dot in starts:
        columns.setdefault(dot[0], []).append(dot)
    groups: list[list[dots.Dot]] = []
    for column in columns.values():
        if groups and len(groups[-1]) + len(column) <= SELECT_MAX:
            groups[-1].extend(column)
        else:
            groups.append(list(column))
    if len(groups) <= MENUS_MAX:
        spans = [(dots.COLUMNS[g[0][0]], dots.COLUMNS[g[-1][0]]) for g in groups]
        return [
            (f"column {a}" if a == b else f"columns {a}-{b}", g)
            for (a, b), g in zip(spans, groups, strict=True)
        ]
    runs = [list(starts[i : i + SELECT_MAX]) for i in range(0, len(starts), SELECT_MAX)]
    return [(f"{dots.dot_name(r[0])}-{dots.dot_name(r[-1])}", r) for r in runs]


def mid_turn(view: View) -> bool:
    """The last change was a vertical line and its player now owes the horizontal one."""
    if view.outcome is not None or len(view.events) != 1 or view.owed is None:
        return False
    event = view.events[0]
    return (
        event["type"] == "line"
        and event["direction"] == dots.VERTICAL
        and event["seat"] == view.turn
        and view.owed.direction == dots.HORIZONTAL
    )


def owed_text(view: View) -> str:
    o = view.owed
    assert o is not None
    if o.first:
        return f"a {o.direction} line from any dot (the first line)"
    assert view.current is not None
    here = dots.dot_name(view.current)
    if o.fallback:
        return (
            f"no {o.direction} line can start at {here}, so draw one from a non-virgin dot you choose "
            "(fallback)"
        )
    return f"a {o.direction} line from {here}"


def ends_menu(view: View, table: TableInfo, start: dots.Dot, *, arg: str) -> discord.ui.Select[Any]:
    assert view.owed is not None
    options = [
        discord.SelectOption(label=dots.dot_name(end), value=dots.dot_name(end)) for end in view.ends[start]
    ]
    return select(
        custom_id(table.game_id, "to", arg, version=table.version),
        options,
        placeholder=f"Draw the {view.owed.direction} line from {dots.dot_name(start)} to… "
        f"({points(view.line_scores[start])})",
    )


def start_note(view: View, table: TableInfo) -> str:
    return "A turn is a vertical line, then a horizontal one, each from where the last one ended."


def render(view: View, table: TableInfo) -> bytes:
    return render_board(view, table.names)


def board_image(view: View) -> bool:
    """Between the two lines of a turn: the score and the menu, no image; but a horizontal line
    that must start elsewhere (a fallback) is chosen from the picture, the vertical line drawn."""
    return not mid_turn(view) or (view.owed is not None and view.owed.needs_from)


def headline(news: News[View], table: TableInfo) -> str:
    out: list[str] = []
    for event in news.after.events:
        who = table.who(event["seat"]) if "seat" in event else ""
        if event["type"] == "out":
            if event["seat"] == news.seat:
                out.append(
                    f"{who} ran out of time and forfeits."
                    if news.forfeit == "timeout"
                    else f"{who} left the game (forfeit)."
                )
            else:
                out.append(f"{who} left the game.")
        elif event["type"] == "line":
            out.append(_line_text(news.before, event, who))
    # Skipped lines are told with the change that caused them (a line, a forfeit).
    for event in news.after.events:
        if event["type"] == "skip":
            axis = "column" if event["direction"] == dots.VERTICAL else "row"
            out.append(
                f"{table.who(event['seat'])}'s {event['direction']} line is skipped: no {axis} holds "
                f"both a virgin and a non-virgin dot; play goes on from {event['at']}."
            )
    return " ".join(out)


def _line_text(before: View, event: dict[str, Any], who: str) -> str:
    d, score = event["direction"], event["score"]
    text = f"{who} drew the {d} line {arrow(event['from'], event['to'])}"
    if not before.lines:
        return f"{text}: 0 points (the first line of the game)."
    col, row = dots.parse_dot(event["from"], before.size)
    axis = f"column {dots.COLUMNS[col]}" if d == dots.VERTICAL else f"row {row + 1}"
    dot_word = "dot" if score == 1 else "dots"
    text += f": {points(score)} ({score} non-virgin {dot_word} in {axis})"
    if event["fallback"] and before.current is not None:
        text += f", a fallback line as none could start at {dots.dot_name(before.current)}"
    return text + "."


def status(view: View, table: TableInfo) -> str:
    text = whose_move(table)
    if table.status == "cancelled":
        return text
    if view.outcome is not None or view.turn is None:
        scores = " · ".join(
            f"{table.who(s)} {view.scores[s]}{' (left)' if s in view.forfeited else ''}"
            for s in range(len(table.seats))
        )
        return f"{text}\nFinal scores: {scores}."
    return f"{table.who(view.turn)}, your move: {owed_text(view)}."


def board_items(view: View, table: TableInfo) -> list[Any]:
    o = view.owed
    if o is None:
        return []
    if not o.needs_from:
        assert view.current is not None
        return [ends_menu(view, table, view.current, arg="")]
    groups = start_groups(view.starts)
    items: list[Any] = []
    for span, group in groups:
        where = "" if len(groups) == 1 else f" ({span})"
        options = [_start_option(view, start) for start in group]
        items.append(
            select(
                custom_id(table.game_id, "from", span.split()[-1], version=table.version),
                options,
                placeholder=f"Where does your {o.direction} line start?{where}",
            )
        )
    return items


def _start_option(view: View, start: dots.Dot) -> discord.SelectOption:
    ends = ", ".join(dots.dot_name(d) for d in view.ends[start])
    return discord.SelectOption(
        label=dots.dot_name(start),
        value=dots.dot_name(start),
        description=f"to {ends} · {points(view.line_scores[start])}"[:100],
    )


def alt_text(view: View, table: TableInfo) -> str:
    """The board in words: the scores, the line owed, the current dot and every line by player."""
    names = table.names
    size = f"{view.size} by {view.size}"
    parts = [
        f"Lines By The Dots board, {size} dots "
        f"(columns A to {dots.COLUMNS[view.size - 1]}, rows 1 to {view.size})."
    ]
    scores = []
    for seat in range(view.n_players):
        note = " (left)" if seat in view.forfeited else (" (to move)" if seat == view.turn else "")
        scores.append(f"{player(names, seat)} {view.scores[seat]}{note}")
    parts.append("Scores: " + ", ".join(scores) + ".")
    if view.outcome is not None:
        won = words([player(names, s) for s in view.outcome.winners])
        parts.append("Game over: " + (f"{won} wins, " if won else "") + f"{view.outcome.reason}.")
    elif view.owed is not None and view.turn is not None:
        o = view.owed
        if o.first:
            owed = f"the first line, a {o.direction} line from any dot"
        elif o.fallback and view.current is not None:
            owed = (
                f"a {o.direction} line from a non-virgin dot of their choice (fallback: none can start at "
                f"{dots.dot_name(view.current)})"
            )
        else:
            owed = owed_text(view)
        parts.append(f"{player(names, view.turn)} owes {owed}.")
        if view.current is not None:
            parts.append(f"The current dot is {dots.dot_name(view.current)}.")
    parts.append(f"{counted(len(view.lines), 'line')}, {counted(len(view.marked), 'dot')} used.")
    for seat in range(view.n_players):
        mine = [f"{dots.dot_name(ln.start)}-{dots.dot_name(ln.end)}" for ln in view.lines if ln.seat == seat]
        if mine:
            parts.append(f"{seat_letter(seat)}'s lines: " + ", ".join(mine) + ".")
    return fit_alt(parts)
