"""Procession as people see it: the board's text, its position buttons and its image, from the
public view (Procession has no secrets)."""

from __future__ import annotations

from typing import Any

import cogs.procession.rules as procession
from bot.render.alt import fit_alt, player
from bot.render.colours import seat_letter
from bot.table.components import button
from bot.table.ids import custom_id
from bot.table.present import News, Presenter, PrivatePresenter, TableInfo, forfeit_line
from cogs.procession.render import render_board

View = procession.View


def flipped(before: View, after: View) -> int:
    """The 1-based position that changed between the last two rows."""
    old, new = before.rows[-1], after.rows[-1]
    return next(i + 1 for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b)


def render(view: View, table: TableInfo) -> bytes:
    return render_board(view, table.names, lang=table.lang)


def start_note(view: View, table: TableInfo) -> str:
    return table.lang.t(
        "Flip one digit with the buttons; the new row's run lengths must not have occurred before."
    )


def headline(news: News[View], table: TableInfo) -> str:
    if news.forfeit is not None:
        return forfeit_line(news, table)
    return table.lang.t(
        "{player} flipped position {position}: `{row}` {runs}",
        player=table.who(news.seat),
        position=flipped(news.before, news.after),
        row=news.after.rows[-1],
        runs=procession.format_multiset(news.after.multisets[-1]),
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
    lang, names = table.lang, table.names
    rows, n = view.rows, view.n
    if view.n_players == 2:
        head = [
            lang.t(
                "Procession board, n = {n}: {first} against {second}.",
                n=n,
                first=player(names, 0),
                second=player(names, 1),
            )
        ]
    else:
        everyone = lang.words([player(names, s) for s in range(view.n_players)])
        head = [lang.t("Procession board, n = {n}, players: {players}.", n=n, players=everyone)]
    if view.outcome is not None:
        moves, reason = len(rows) - 1, lang.say(view.outcome.reason)
        won = [player(names, s) for s in view.outcome.winners]
        if not won:
            head.append(
                lang.n(
                    "Game over after {count} move: {reason}.",
                    "Game over after {count} moves: {reason}.",
                    moves,
                    reason=reason,
                )
            )
        elif len(won) == 1:
            head.append(
                lang.n(
                    "Game over after {count} move: {player} wins, {reason}.",
                    "Game over after {count} moves: {player} wins, {reason}.",
                    moves,
                    player=won[0],
                    reason=reason,
                )
            )
        else:
            head.append(
                lang.n(
                    "Game over after {count} move: {players} share the win, {reason}.",
                    "Game over after {count} moves: {players} share the win, {reason}.",
                    moves,
                    players=lang.words(won),
                    reason=reason,
                )
            )
    elif view.turn is not None:
        head.append(
            lang.t(
                "Move {number}: {player} to flip one of positions {positions}.",
                number=len(rows),
                player=player(names, view.turn),
                positions=", ".join(map(str, view.legal)),
            )
        )
    head.append(
        lang.t(
            "Current row {row}, runs {runs}.",
            row=rows[-1],
            runs=procession.format_multiset(view.multisets[-1]),
        )
    )
    history = []
    for i in range(len(rows) - 1, 0, -1):
        mover = view.movers[i]
        if mover is None:
            history.append(f"{i}: {rows[i]}")
        else:
            history.append(
                lang.t("{index}: {row} by {letter}", index=i, row=rows[i], letter=seat_letter(mover))
            )
    history.append(f"0: {rows[0]}")
    head.append(lang.t("Rows, latest first: {rows}.", rows="; ".join(history)))
    return fit_alt(head)


PRESENTER: Presenter[procession.View] = Presenter(
    render=render,
    headline=headline,
    board_items=board_items,
    start_note=start_note,
    alt_text=alt_text,
)

PRIVATE: PrivatePresenter[procession.View] | None = None  # (no secrets)
