"""Numbers To Number board: one round's list as m cells (1, 0, _ or still empty), under each cell the
two numbers of that move in decimal and binary once revealed, and both totals. After a round ends the
board shows that round with D (the numbers that score, said so in words): its members listed, and every
number that scored highlighted.

Which round is drawn: the current one as soon as one of its moves is revealed; before that (and once
the game is over) the last finished round, so the round-end post shows D.

Speed: each number's cell (decimal over binary, plain or highlighted) is drawn once into a cached
palette sprite and pasted.

Words are drawn in the language given (``lang``, English by default); each label is fitted to its
room (`bot.render.fit`), as translations are often longer than the English.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache, partial
from typing import Any

from bot.i18n import ENGLISH, Lang
from bot.render.colours import BACKGROUND, GOOD, GRID, HIGHLIGHT, INK, MUTED, PANEL
from bot.render.common import Canvas, seat_name
from bot.render.fit import draw_fitted, fitted, width_of
from cogs.numbers.rules import RoundRecord, View, binary, largest

PAD = 16
CELL_W = 74  # fits eight binary digits
SYMBOL_H = 46
NUMBER_H = 46
LABEL_W = 150
RIGHT_W = 96
TITLE = 18
TEXT = 14
SMALL = 14
BADGE = 20
NAME_MAX = 16
D_LIST_MAX = 16  # list D's members when it has at most this many; otherwise describe it


@lru_cache(maxsize=1024)
def _number(value: int, m: int, scored: bool) -> Canvas:
    """A revealed number: decimal over binary; highlighted when it is in D (a point)."""
    bg = HIGHLIGHT if scored else BACKGROUND
    c = Canvas(CELL_W - 6, NUMBER_H - 4, bg)
    c.text(((CELL_W - 6) // 2, 1), str(value), 16, INK, "bold", "c", background=bg)
    c.text(((CELL_W - 6) // 2, 21), binary(value, m), SMALL, MUTED, "mono", "c", background=bg)
    return c


@lru_cache(maxsize=1)
def _slot() -> Canvas:
    """The cell of a number still to be revealed (picked or not: the image does not say)."""
    c = Canvas(CELL_W - 6, NUMBER_H - 4)
    c.rect((0, 0, CELL_W - 7, NUMBER_H - 5), outline=GRID, radius=6)
    return c


@lru_cache(maxsize=8)
def _symbol(symbol: str) -> Canvas:
    """A cell of the list: 1, 0, _ or (empty string) not yet written."""
    c = Canvas(CELL_W - 6, SYMBOL_H - 6)
    if symbol:
        c.rect((0, 0, CELL_W - 7, SYMBOL_H - 7), fill=PANEL, radius=6)
        c.text(((CELL_W - 6) // 2, 4), symbol, 24, INK, "monobold", "c", background=PANEL)
    else:
        c.rect((0, 0, CELL_W - 7, SYMBOL_H - 7), outline=GRID, radius=6)
    return c


def d_lines(record: RoundRecord, m: int, lang: Lang) -> list[str]:
    """D, said for what it is (the numbers that score this round), as one or two lines of text."""
    if len(record.d) <= D_LIST_MAX:
        shown = ", ".join(binary(v, m) for v in record.d[:8]) + (" …" if len(record.d) > 8 else "")
        return [
            lang.t("D, the numbers that score this round: {numbers}", numbers=", ".join(map(str, record.d))),
            lang.t("the binary numbers the list matches (each _ as 0 or 1): {numbers}", numbers=shown),
        ]
    return [
        lang.n(
            "D, the numbers that score this round: the {count} number matching {symbols} (each _ as 0 or 1)",
            "D, the numbers that score this round: all {count} numbers matching {symbols} (each _ as 0 or 1)",
            len(record.d),
            symbols=record.symbols,
        ),
        lang.t("from {low} to {high}", low=record.d[0], high=record.d[-1]),
    ]


class _Board:
    """One drawing of a round: the canvas, what it shows (the round being played, or the last finished
    one with its D), the names and the language."""

    def __init__(self, view: View, names: Sequence[str], lang: Lang) -> None:
        self.view, self.names, self.lang = view, names, lang
        m = self.m = view.m
        finished_round = not view.moves and view.last_round is not None
        record = self.record = view.last_round if finished_round else None
        self.moves = record.moves if record is not None else view.moves
        self.symbols = record.symbols if record is not None else view.symbols
        self.d = set(record.d) if record is not None else set()
        self.round_no = view.round - 1 if record is not None else view.round  # 0-based, as drawn

        self.width = PAD + LABEL_W + m * CELL_W + RIGHT_W + PAD
        self.grid_y = PAD + 56
        self.rows_y = self.grid_y + 18 + SYMBOL_H
        self.foot_y = self.rows_y + 2 * NUMBER_H + 10
        height = self.foot_y + 3 * 22 + PAD
        self.c = Canvas(self.width, height)
        self.fit = partial(draw_fitted, self.c)  # text fitted to its room (smaller, or cut)
        self.x0 = PAD + LABEL_W

    def title(self) -> None:
        """The title and the status: which round, which move, and the numbers in play."""
        view, lang, m = self.view, self.lang, self.m
        self.c.text((PAD, PAD), "Numbers To Number", 18, INK, "bold")
        fields = {
            "round": min(self.round_no, view.n_rounds - 1) + 1,
            "rounds": view.n_rounds,
            "m": m,
            "top": largest(m),
        }
        if self.record is not None:
            status = lang.t("Round {round} of {rounds} · finished  ·  m = {m}: numbers 1-{top}", **fields)
        elif view.outcome is None:
            status = lang.t(
                "Round {round} of {rounds} · move {move} of {m}  ·  m = {m}: numbers 1-{top}",
                move=len(self.moves) + 1,
                **fields,
            )
        else:
            status = lang.t("Round {round} of {rounds}  ·  m = {m}: numbers 1-{top}", **fields)
        self.fit((PAD, PAD + 28), status, TEXT, self.width - 2 * PAD, MUTED)

    def the_list(self) -> None:
        """The list, with the move numbers above it."""
        c, grid_y, symbols = self.c, self.grid_y, self.symbols
        for i in range(self.m):
            x = self.x0 + i * CELL_W
            c.text((x + CELL_W // 2, grid_y), str(i + 1), SMALL, MUTED, anchor="c")
            c.paste(_symbol(symbols[i] if i < len(symbols) else ""), (x + 3, grid_y + 18))
        self.fit((PAD, grid_y + 28), self.lang.pt("numbers board", "List"), TEXT, LABEL_W - 8, MUTED, "bold")

    def player_rows(self) -> None:
        """Each player's numbers under their moves, and the points."""
        # The move being picked is an empty slot for both players, whoever has picked: a pick is quiet
        # (the board's text is edited, its image stays), so the image says only what holds until the
        # next board (who has picked is in the text, which every pick brings up to date).
        pending_cell = len(self.moves) if self.record is None and self.view.outcome is None else None
        for seat in (0, 1):
            self.player_row(seat, pending_cell)
        self.c.line([(PAD, self.foot_y - 6), (self.width - PAD, self.foot_y - 6)], GRID)

    def player_row(self, seat: int, pending_cell: int | None) -> None:
        c, view, lang, m, x0, record = self.c, self.view, self.lang, self.m, self.x0, self.record
        y = self.rows_y + seat * NUMBER_H
        c.badge((PAD, y + 3), seat, BADGE)
        c.text((PAD + 26, y + 3), seat_name(self.names, seat, NAME_MAX - 3, lang), TEXT, INK, "bold")
        if seat in view.forfeited:
            self.fit(
                (PAD + 26, y + 23), lang.pt("numbers board", "left the game"), SMALL, LABEL_W - 30, MUTED
            )
        for i, move in enumerate(self.moves):
            value = move[seat]
            c.paste(_number(value, m, value in self.d), (x0 + i * CELL_W + 3, y + 2))
        if pending_cell is not None and pending_cell < m:
            c.paste(_slot(), (x0 + pending_cell * CELL_W + 3, y + 2))
        right = x0 + m * CELL_W + RIGHT_W
        if record is not None:
            c.text(
                (right, y + 2),
                f"+{record.points[seat]}",
                TEXT,
                GOOD if record.points[seat] else MUTED,
                "bold",
                "r",
            )
        total = lang.t("total {total}", total=view.totals[seat])
        self.fit((right, y + 23), total, SMALL, RIGHT_W - 8, INK, anchor="r")

    def footer(self) -> None:
        """The footer: D after a round, the result after the game."""
        y = self.foot_y
        room = self.width - 2 * PAD
        if self.record is not None:
            for i, line in enumerate(d_lines(self.record, self.m, self.lang)):
                self.fit((PAD, y), line, TEXT if i == 0 else SMALL, room, INK if i == 0 else MUTED)
                y += 22
        if self.view.outcome is not None:
            shown, size = fitted(_result_text(self.view, self.names, self.lang), TEXT, room - 16, "bold")
            w = width_of(shown, size, "bold") + 16
            self.c.rect((PAD - 4, y - 2, PAD + w - 4, y + 20), fill=HIGHLIGHT, radius=4)
            self.c.text((PAD + 4, y + (TEXT - size) // 2), shown, size, INK, "bold", background=HIGHLIGHT)


def _result_text(view: View, names: Sequence[str], lang: Lang) -> str:
    """The finished game's result: a draw, or who won and how."""
    outcome = view.outcome
    assert outcome is not None
    if outcome.draw:
        return lang.t("Draw: {total} each", total=view.totals[0])
    (winner,) = outcome.winners
    who = seat_name(names, winner, NAME_MAX, lang)
    if view.forfeited:
        return lang.t("{player} wins: the other player left", player=who)
    return lang.t(
        "{player} wins, {high} to {low}",
        player=who,
        high=view.totals[winner],
        low=view.totals[1 - winner],
    )


def render_board(view: View, names: Sequence[str] = (), *, lang: Lang = ENGLISH) -> bytes:
    board = _Board(view, names, lang)
    board.title()
    board.the_list()
    board.player_rows()
    board.footer()
    return board.c.png()


def render(view: Any, names: tuple[str, ...], *, lang: Lang = ENGLISH) -> bytes:
    """The public board (the cog's entry point)."""
    return render_board(view, names, lang=lang)
