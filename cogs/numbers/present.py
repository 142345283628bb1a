"""Numbers To Number as people see it, from views only.

A pick is a quiet move: the channel reads "X has picked", never the number, and no new board. The
pick that completes a move posts the board with both numbers revealed (and, at a round's end, D and
the points). The public view (and the other player's view) holds only whether a seat has picked, so
nothing built here for the channel, the image or the other player's DMs can carry a pending pick.
"""

from __future__ import annotations

from typing import Any

import discord

from bot.errors import GameError, GameOver, IllegalMove
from bot.games import numbers
from bot.render.alt import fit_alt, player, words
from bot.render.numbers import render_board
from bot.table.components import button
from bot.table.ids import custom_id
from bot.table.present import (
    News,
    Panel,
    TableInfo,
    forfeit_line,
    points,
    quiet_when,
)

View = numbers.View
D_BINARY_MAX = 16  # list D's members in binary too when it has at most this many
MINE_LABEL = "My move"


def ranges_text(values: tuple[int, ...] | list[int]) -> str:
    """Ascending integers, runs of three or more written as a range: ``1-4, 6, 8-10``."""
    parts: list[str] = []
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[j] + 1:
            j += 1
        if j - i >= 2:
            parts.append(f"{values[i]}-{values[j]}")
        else:
            parts.extend(str(v) for v in values[i : j + 1])
        i = j + 1
    return ", ".join(parts)


def number_text(value: int, m: int) -> str:
    return f"**{value}** (`{numbers.binary(value, m)}`)"


def d_text(symbols: str, d: tuple[int, ...] | list[int], m: int) -> str:
    """D in decimal (every member; runs as ranges) and in binary (each member while few, else the
    pattern they all match)."""
    members = "{" + ranges_text(list(d)) + "}"
    if len(d) <= D_BINARY_MAX:
        in_binary = ", ".join(f"`{numbers.binary(v, m)}`" for v in d)
    else:
        in_binary = f"every {m}-digit binary number matching `{symbols}`"
    count = "1 number" if len(d) == 1 else f"{len(d)} numbers"
    return f"D = {members} ({count}); in binary {in_binary}"


def refusal(view: View, seat: int, table: TableInfo) -> GameError | None:
    """Why ``seat`` cannot pick now (before a form is opened that could not be used), or None."""
    if view.outcome is not None or not table.live:
        return GameOver(f"Game #{table.game_id} is over. Start a new one with /numbers new.")
    if view.my_pick is not None:
        return IllegalMove(
            f"You already picked {view.my_pick} for this move, and a pick is final. "
            f"Waiting for {table.who(1 - seat)} to pick."
        )
    return None


def render(view: View, table: TableInfo) -> bytes:
    return render_board(view, table.names)


def start_note(view: View, table: TableInfo) -> str:
    return (
        f"{view.n_rounds} rounds of {view.m} moves. Each move, pick a number from 1 to "
        f"{numbers.largest(view.m)} you have not played, in your DMs (or **{MINE_LABEL}**); both picks "
        "are revealed together."
    )


def headline(news: News[View], table: TableInfo) -> str:
    view = news.after
    m = view.m
    lines: list[str] = []
    revealed = any(e["type"] == "reveal" for e in view.events)
    for event in view.events:
        kind = event["type"]
        if kind == "picked" and not revealed:
            # Only who, never what: this line is posted while the pick is still secret.
            lines.append(f"{table.who(event['seat'])} has picked.")
        elif kind == "reveal":
            a, b = event["numbers"]
            lines.append(
                f"Move {event['move'] + 1} of round {event['round'] + 1}: "
                f"{table.who(0)} {number_text(a, m)} · {table.who(1)} {number_text(b, m)} "
                f"→ `{event['symbol']}`. The list: `{event['list']}`"
            )
        elif kind == "round_end":
            lines.extend(_round_end_lines(event, view, table))
        elif kind == "forfeit":
            lines.append(forfeit_line(news, table))
    return "\n".join(lines) or f"{table.who(news.seat)} moved."


def _round_end_lines(event: dict[str, Any], view: View, table: TableInfo) -> list[str]:
    m, number = view.m, event["round"] + 1
    lines = [f"**Round {number} of {view.n_rounds} is over.** The list `{event['list']}`: "]
    lines[0] += d_text(event["list"], event["d"], m) + "."
    scores = []
    for seat in (0, 1):
        got = event["scoring"][seat]
        pts = f"{len(got)} point" + ("" if len(got) == 1 else "s")
        scores.append(f"{table.who(seat)} {pts}" + (f" ({', '.join(map(str, got))})" if got else ""))
    totals = event["totals"]
    lines.append(
        f"This round: {scores[0]}; {scores[1]}. "
        f"Totals: {table.who(0)} {totals[0]}, {table.who(1)} {totals[1]}."
    )
    if number < view.n_rounds and view.outcome is None:
        lines.append(f"Round {number + 1} begins with an empty list.")
    return lines


# ---- what one player sees ------------------------------------------------------------------------


def panel(view: View, seat: int, table: TableInfo) -> Panel:
    """The player's pick and what they need to make it: the round, the list with the numbers that
    wrote it, the totals, their unused numbers. Nothing that changes on the other player's pick (the
    board shows who has picked)."""
    other = 1 - seat
    them = table.who(other)
    totals = f"you {view.totals[seat]}, {them} {view.totals[other]}"
    if view.outcome is not None:
        return Panel(f"The game is over. Totals: {totals}.")
    if seat in view.forfeited:
        return Panel("You left this game.")
    m, move = view.m, len(view.moves) + 1
    lines = [f"Round {view.round + 1} of {view.n_rounds} · move {move} of {m} · totals: {totals}"]
    last = view.last_round
    if not view.moves and last is not None:
        lines.append(f"Round {view.round} gave you {points(last.points[seat])}, {them} {last.points[other]}.")
    if view.moves:
        pairs = ", ".join(f"{mv[seat]} v {mv[other]}" for mv in view.moves)
        lines.append(f"The list: `{view.symbols}` (yours v theirs: {pairs})")
    items: list[discord.ui.Item[Any]] = []
    if view.my_pick is not None:
        lines.append(f"Your pick: {number_text(view.my_pick, m)}, final. Waiting for {them}.")
    else:
        lines.append(
            f"**Pick a number from 1 to {numbers.largest(m)}** you have not played: press **Pick** or "
            "reply here."
        )
        if view.available is not None:
            lines.append(f"Still yours: {ranges_text(view.available)}")
        items.append(button("Pick", custom_id(table.game_id, "pick"), style=discord.ButtonStyle.primary))
    return Panel("\n".join(lines), items)


def confirm(news: News[View], table: TableInfo) -> str:
    if news.forfeit is not None:
        return f"You left game #{table.game_id}."
    view, seat = news.after, news.seat
    reveal = next((e for e in view.events if e["type"] == "reveal"), None)
    if reveal is None:
        assert view.my_pick is not None
        mine = number_text(view.my_pick, view.m)
        return f"✅ Your pick {mine} is in (final, hidden until both picks are in)."
    mine = number_text(reveal["numbers"][seat], view.m)
    theirs = number_text(reveal["numbers"][1 - seat], view.m)
    return f"✅ You picked {mine}, {table.who(1 - seat)} picked {theirs} → `{reveal['symbol']}`."


def awaits_typed(view: View, seat: int) -> bool:
    return seat in view.to_act


def typed_action(view: View, seat: int, text: str) -> Any:
    return numbers.Pick(numbers.parse_number(text, view.m))


def not_waiting_reason(view: View, seat: int, table: TableInfo) -> str | None:
    error = refusal(view, seat, table)
    return None if error is None else error.message


quiet = quiet_when("picked")


def alt_text(view: View, table: TableInfo) -> str:
    """The board in words, as the image shows it: the round drawn (the finished one with D, or the
    current one), the moves revealed, who has picked, the totals."""
    names = table.names
    m = view.m
    record = view.last_round if not view.moves and view.last_round is not None else None
    moves = record.moves if record is not None else view.moves
    symbols = record.symbols if record is not None else view.symbols
    round_no = min(view.round - 1 if record is not None else view.round, view.n_rounds - 1) + 1
    a, b = player(names, 0), player(names, 1)
    state = "finished" if record is not None else f"move {len(moves) + 1} of {m}"
    parts = [
        f"Numbers To Number board: {a} against {b}, numbers 1 to {numbers.largest(m)} (m = {m}). "
        f"Round {round_no} of {view.n_rounds}, {state}.",
        f"Totals: {a} {view.totals[0]}, {b} {view.totals[1]}.",
    ]
    if view.outcome is not None:
        won = words([player(names, s) for s in view.outcome.winners])
        parts.append(("Draw" if view.outcome.draw else f"{won} wins") + f": {view.outcome.reason}.")
    elif record is None:
        picks = [f"{player(names, s)} {'has picked' if view.picked[s] else 'is picking'}" for s in (0, 1)]
        parts.append("This move: " + ", ".join(picks) + ".")
    if record is not None:
        parts.append(
            f"Points this round: {a} {record.points[0]}, {b} {record.points[1]}. "
            f"D = {{{ranges_text(list(record.d))}}}."
        )
    parts.append(f"The list so far: {' '.join(symbols) or 'empty'}.")
    if moves:
        pairs = "; ".join(f"{i + 1}: {x} and {y}, {numbers.symbol(x, y)}" for i, (x, y) in enumerate(moves))
        parts.append(f"Moves ({names[0] if names else 'A'} first): {pairs}.")
    return fit_alt(parts)
