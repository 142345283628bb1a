"""The Numerical Card Game board: the scoreboard, this round's pairings, the last round's results and,
for a seat's private view, that seat's fresh pile.

Only a `View` comes in, so a public board cannot show a secret: pending picks appear as a face-down
card ("?"), a pairing still waiting for a pick as an empty card slot.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from bot.games.divisors import DROPPED, EMPTY, EXCHANGE, FORFEITED, IN, MOLDY, Result, View
from bot.render.colours import (
    BACKGROUND,
    BAD,
    CARD_INK,
    GOOD,
    GRID,
    HIGHLIGHT,
    INK,
    MUTED,
    RGB,
    WHITE,
    ink_on,
    player_colour,
)
from bot.render.common import Canvas, seat_name

WIDTH = 760
PAD = 16
ROW_H = 30  # a scoreboard row
PAIR_H = 46  # a pairing row
CARD_W, CARD_H = 34, 30

TITLE_SIZE = 20
TEXT = 14
SMALL = 14
BADGE = 20

# Scoreboard columns (x of the column's left edge, or right edge for numbers).
X_NAME = PAD + 20
X_SCORE = 300  # right-aligned
X_FRESH = 380
X_MOLDY = 450
X_STATE = 500

# Pairing columns.
X_CARD_A = 200
X_CARD_B = X_CARD_A + CARD_W + 10
X_NAME_B = X_CARD_B + CARD_W + 12
X_OUTCOME = 486

HAND_CELL = CARD_W + 22  # a card and room for its "×2"
HAND_ROW_H = CARD_H + 8
HAND_PER_ROW = (WIDTH - 2 * PAD) // HAND_CELL

STATUS_TEXT = {EMPTY: "out: no fresh cards", DROPPED: "dropped out", FORFEITED: "left the game"}
KIND_TEXT = {EXCHANGE: "exchanged", MOLDY: "to the moldy piles"}


@lru_cache(maxsize=256)
def _card(label: str, fill: RGB, ink: RGB) -> Canvas:
    """A card face (or back, or empty slot), drawn once and pasted everywhere."""
    c = Canvas(CARD_W, CARD_H)
    if fill == BACKGROUND:  # an empty slot: a pick still to come
        c.rect((0, 0, CARD_W - 1, CARD_H - 1), outline=GRID, width=2, radius=5)
    else:
        c.rect((0, 0, CARD_W - 1, CARD_H - 1), fill=fill, outline=GRID, width=1, radius=5)
    if label:
        c.text((CARD_W // 2, 5), label, 15, ink, "bold", "c", background=fill)
    return c


def _face(value: int) -> Canvas:
    return _card(str(value), WHITE, CARD_INK)


def _hidden(seat: int) -> Canvas:
    return _card("?", player_colour(seat), ink_on(player_colour(seat)))


def _slot() -> Canvas:
    return _card("", BACKGROUND, MUTED)


def _points_text(result: Result, names: Sequence[str]) -> str:
    pa, pb = result.points
    if pa == pb:
        return "no points" if pa == 0 else f"+{pa} each"
    winner = result.seats[0] if pa > pb else result.seats[1]
    return f"+{max(pa, pb)} {seat_name(names, winner, 12)}"


def _hand_rows(view: View) -> int:
    return max(1, -(-len(view.hand) // HAND_PER_ROW))


def _section(c: Canvas, y: int, title: str) -> int:
    c.text((PAD, y), title, TEXT, INK, "bold")
    c.line([(PAD, y + 22), (WIDTH - PAD, y + 22)], GRID)
    return y + 28


def _pairing_row(
    c: Canvas, y: int, view: View, pair: tuple[int, int], result: Result | None, names: Sequence[str]
) -> None:
    a, b = pair
    mid = y + (PAIR_H - CARD_H) // 2
    text_y = y + (PAIR_H - 17) // 2
    badge_y = y + (PAIR_H - BADGE) // 2
    c.badge((X_CARD_A - 8 - BADGE, badge_y), a, BADGE)
    c.text((X_CARD_A - 16 - BADGE, text_y), seat_name(names, a, 16), TEXT, INK, "bold", "r")
    c.badge((X_NAME_B, badge_y), b, BADGE)
    c.text((X_NAME_B + BADGE + 8, text_y), seat_name(names, b, 12), TEXT, INK, "bold")
    if result is not None and result.cards is not None:
        c.paste(_face(result.cards[0]), (X_CARD_A, mid))
        c.paste(_face(result.cards[1]), (X_CARD_B, mid))
        label = result.label
        c.text((X_OUTCOME, y + 3), f"{label[0].upper()}{label[1:]}", TEXT, INK, "bold")
        c.text(
            (X_OUTCOME, y + 23),
            f"{_points_text(result, names)} · {KIND_TEXT[result.kind]}",
            SMALL,
            GOOD if any(result.points) else MUTED,
        )
        return
    if result is not None:  # void
        c.paste(_slot(), (X_CARD_A, mid))
        c.paste(_slot(), (X_CARD_B, mid))
        c.text((X_OUTCOME, text_y), "called off: a player left", SMALL, BAD)
        return
    waiting = []
    for seat, x in ((a, X_CARD_A), (b, X_CARD_B)):
        if seat in view.picked:
            c.paste(_hidden(seat), (x, mid))
        else:
            c.paste(_slot(), (x, mid))
            waiting.append(seat_name(names, seat))
    c.text((X_OUTCOME, text_y), "choosing: " + " and ".join(waiting), SMALL, MUTED)


def render_board(view: View, names: Sequence[str] = ()) -> bytes:
    n = view.n_players
    winners = set(view.outcome.winners) if view.outcome is not None else set()
    settled = {r.seats: r for r in view.results}
    shown_pairs = list(view.pairings)
    last = list(view.last_results)

    height = PAD + 30 + 22  # title and subtitle
    height += 28 + ROW_H * (n + 1) + 8  # scoreboard
    if shown_pairs:
        height += 28 + PAIR_H * len(shown_pairs) + 8
    if last:
        height += 28 + PAIR_H * len(last) + 8
    if view.seat is not None:
        height += 28 + _hand_rows(view) * HAND_ROW_H + 24
    height += PAD
    c = Canvas(WIDTH, height)

    # Title and where the game stands.
    y = PAD
    c.text((PAD, y), "The Numerical Card Game", TITLE_SIZE, INK, "bold")
    y += 30
    if view.outcome is not None:
        sub = f"Cards 1-{view.m} · game over: {view.outcome.reason}"
        c.text((PAD, y), sub, SMALL, BAD)
    else:
        sub = (
            f"Cards 1-{view.m} · cycle {view.cycle}, round {view.round} of {view.rounds_per_cycle}"
            f" · cycles without a moldy card: {view.quiet_cycles} of {view.m}"
        )
        c.text((PAD, y), sub, SMALL, MUTED)
    y += 22

    # Scoreboard.
    y = _section(c, y, "Players")
    for x, label, anchor in (
        (X_NAME + 8, "Name", "l"),
        (X_SCORE, "Score", "r"),
        (X_FRESH + 24, "Fresh", "c"),
        (X_MOLDY + 24, "Moldy", "c"),
    ):
        c.text((x, y + 4), label, SMALL, MUTED, anchor=anchor)
    y += ROW_H
    for seat in range(n):
        status = view.status[seat]
        bg = HIGHLIGHT if seat in view.to_act else BACKGROUND
        if bg != BACKGROUND:
            c.rect((PAD - 4, y, WIDTH - PAD + 4, y + ROW_H - 3), fill=bg)
        c.badge((PAD, y + 3), seat, BADGE, background=bg)
        c.text((X_NAME + 8, y + 4), seat_name(names, seat), TEXT, INK, "bold", background=bg)
        c.text((X_SCORE, y + 2), str(view.scores[seat]), 16, INK, "bold", "r", background=bg)
        c.text((X_FRESH + 24, y + 4), str(view.fresh_counts[seat]), TEXT, INK, anchor="c", background=bg)
        c.text((X_MOLDY + 24, y + 4), str(view.moldy_counts[seat]), TEXT, INK, anchor="c", background=bg)
        if seat in winners:
            note, ink = "★ wins", GOOD
        elif status != IN:
            note, ink = STATUS_TEXT[status], (BAD if status == FORFEITED else MUTED)
        elif seat in view.to_act:
            note, ink = "to pick a card", INK
        elif seat in view.picked:
            note, ink = "picked ✓", GOOD
        elif view.outcome is None and not any(seat in p for p in view.pairings):
            note, ink = "sits out this round", MUTED
        else:
            note, ink = "", MUTED
        if note:
            c.text((X_STATE, y + 5), note, SMALL, ink, background=bg)
        y += ROW_H
    y += 8

    if shown_pairs:
        y = _section(c, y, f"Round {view.round} of cycle {view.cycle}")
        for pair in shown_pairs:
            _pairing_row(c, y, view, pair, settled.get(pair), names)
            y += PAIR_H
        y += 8

    if last:
        y = _section(c, y, "Last round" if view.outcome is None else "Final round")
        for result in last:
            _pairing_row(c, y, view, result.seats, result, names)
            y += PAIR_H
        y += 8

    if view.seat is not None:
        y = _section(c, y, f"Your fresh pile ({len(view.hand_cards)} cards)")
        for i, (value, count) in enumerate(view.hand):
            row, col = divmod(i, HAND_PER_ROW)
            x, top = PAD + col * HAND_CELL, y + row * HAND_ROW_H
            if value == view.pending:
                c.rect((x - 3, top - 3, x + CARD_W + 2, top + CARD_H + 2), fill=HIGHLIGHT)
            c.paste(_face(value), (x, top))
            if count > 1:  # exchanges can bring a second copy of a value
                c.text((x + CARD_W + 2, top + 12), f"×{count}", SMALL, INK)
        y += _hand_rows(view) * HAND_ROW_H
        if not view.hand:
            caption = "No fresh cards."
        elif view.pending is not None:
            caption = f"Your pick: {view.pending} (hidden from the others until the pairing resolves)"
        else:
            caption = ""
        if caption:
            c.text((PAD, y), caption, SMALL, MUTED)
    return c.png()
