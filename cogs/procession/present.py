"""Procession as people see it: the board's text, its position buttons and its image, from the
public view (Procession has no secrets)."""

from __future__ import annotations

from typing import Any

from bot.games import procession
from bot.render.alt import fit_alt, player, words
from bot.render.colours import seat_letter
from bot.render.procession import render_board
from bot.table.components import button
from bot.table.ids import custom_id
from bot.table.present import News, TableInfo, counted, forfeit_line

View = procession.View


def flipped(before: View, after: View) -> int:
    """The 1-based position that changed between the last two rows."""
    old, new = before.rows[-1], after.rows[-1]
    return next(i + 1 for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b)


def render(view: View, table: TableInfo) -> bytes:
    return render_board(view, table.names)


def start_note(view: View, table: TableInfo) -> str:
    return "Flip one digit with the buttons; the new row's run lengths must not have occurred before."


def headline(news: News[View], table: TableInfo) -> str:
    if news.forfeit is not None:
        return forfeit_line(news, table)
    row = news.after.rows[-1]
    position = flipped(news.before, news.after)
    return (
        f"{table.who(news.seat)} flipped position {position}: `{row}` "
        f"{procession.format_multiset(news.after.multisets[-1])}"
    )


def board_items(view: View, table: TableInfo) -> list[Any]:
    legal = set(view.legal)
    return [
        button(
            str(p),
            custom_id(table.game_id, "flip", p, version=table.version),
            disabled=p not in legal,
            row=(p - 1) // 5,
        )
        for p in range(1, view.n + 1)
    ]


def alt_text(view: View, table: TableInfo) -> str:
    """The board in words: the players, whose move, the current row and the rows before it."""
    names = table.names
    rows, n = view.rows, view.n
    head = [f"Procession board, n = {n}: {player(names, 0)} against {player(names, 1)}."]
    if view.outcome is not None:
        won = words([player(names, s) for s in view.outcome.winners])
        head.append(
            f"Game over after {counted(len(rows) - 1, 'move')}: "
            + (f"{won} wins, " if won else "")
            + f"{view.outcome.reason}."
        )
    elif view.turn is not None:
        legal = ", ".join(map(str, view.legal))
        head.append(f"Move {len(rows)}: {player(names, view.turn)} to flip one of positions {legal}.")
    head.append(f"Current row {rows[-1]}, runs {procession.format_multiset(view.multisets[-1])}.")
    history = []
    for i in range(len(rows) - 1, 0, -1):
        mover = view.movers[i]
        by = f" by {seat_letter(mover)}" if mover is not None else ""
        history.append(f"{i}: {rows[i]}{by}")
    history.append(f"0: {rows[0]}")
    head.append("Rows, latest first: " + "; ".join(history) + ".")
    return fit_alt(head)
