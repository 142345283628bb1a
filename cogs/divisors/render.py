"""The Numerical Card Game board: the scoreboard, this round's pairings, the last round's results and,
for a seat's private view, that seat's fresh pile.

Only a `View` comes in, so a public board cannot show a secret. Nor does it show who has picked: a
pick is quiet (`bot.table.boards.Boards._quiet` edits the board's text, not its image), so the image
says only what holds until the next board. A pairing still to be revealed is two empty card slots
and "cards are shown when both have picked", whoever has picked; its players are highlighted on the
scoreboard (the round waits for them) without a per-player "to pick"/"picked" note. The board's text,
which every pick brings up to date, says who has picked and who is still choosing.

Words are drawn in the language given (``lang``, English by default): the scoreboard's columns are as
wide as their headings in that language, and every other label is fitted to its room
(`bot.render.fit`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache, partial

from bot.i18n import ENGLISH, Lang, Np_
from bot.render.colours import (
    BACKGROUND,
    BAD,
    CARD_INK,
    GOOD,
    GRID,
    HIGHLIGHT,
    INK,
    MUTED,
    RESULT,
    RGB,
    WHITE,
)
from bot.render.common import Canvas, seat_name
from bot.render.fit import draw_fitted, width_of
from cogs.divisors.rules import DROPPED, EMPTY, EXCHANGE, FORFEITED, IN, MOLDY, Result, View

WIDTH = 760
PAD = 16
ROW_H = 30  # a scoreboard row
PAIR_H = 46  # a pairing row
CARD_W, CARD_H = 34, 30

TITLE_SIZE = 20
TEXT = 14
SMALL = 14
BADGE = 20

# Scoreboard columns: the name from X_NAME, the score right-aligned at X_SCORE; the fresh and moldy
# counts and the state follow, each column as wide as its heading (at least COUNT_W).
X_NAME = PAD + 20
X_SCORE = 300  # right-aligned
COUNT_W = 48
GAP = 18

# Pairing columns.
X_CARD_A = 200
X_CARD_B = X_CARD_A + CARD_W + 10
X_NAME_B = X_CARD_B + CARD_W + 12
X_OUTCOME = 486
OUTCOME_W = WIDTH - PAD - X_OUTCOME

HAND_CELL = CARD_W + 22  # a card and room for its "×2"
HAND_ROW_H = CARD_H + 8
HAND_PER_ROW = (WIDTH - 2 * PAD) // HAND_CELL

STATUS_TEXT = {
    EMPTY: Np_("divisors board", "out: no fresh cards"),
    DROPPED: Np_("divisors board", "dropped out"),
    FORFEITED: Np_("divisors board", "left the game"),
}
KIND_TEXT = {EXCHANGE: Np_("divisors board", "exchanged"), MOLDY: Np_("divisors board", "to the moldy piles")}
LABEL_TEXT = {
    "equal": Np_("divisors board", "Equal"),
    "one": Np_("divisors board", "A 1 against a bigger card"),  # RULES.md's "one is 1, other above 1"
    "divides": Np_("divisors board", "Divides"),
    "shared factor": Np_("divisors board", "Shared factor"),
    "coprime": Np_("divisors board", "Coprime"),
}


@lru_cache(maxsize=256)
def _card(label: str, fill: RGB, ink: RGB) -> Canvas:
    """A card face (or an empty slot), drawn once and pasted everywhere."""
    c = Canvas(CARD_W, CARD_H)
    if fill == BACKGROUND:  # an empty slot: a card not revealed yet
        c.rect((0, 0, CARD_W - 1, CARD_H - 1), outline=GRID, width=2, radius=5)
    else:
        c.rect((0, 0, CARD_W - 1, CARD_H - 1), fill=fill, outline=GRID, width=1, radius=5)
    if label:
        c.text((CARD_W // 2, 5), label, 15, ink, "bold", "c", background=fill)
    return c


def _face(value: int) -> Canvas:
    return _card(str(value), WHITE, CARD_INK)


def _slot() -> Canvas:
    return _card("", BACKGROUND, MUTED)


def _points_text(result: Result, names: Sequence[str], lang: Lang) -> str:
    pa, pb = result.points
    if pa == pb:
        return lang.pt("divisors board", "no points") if pa == 0 else lang.t("+{points} each", points=pa)
    winner = result.seats[0] if pa > pb else result.seats[1]
    return f"+{max(pa, pb)} {seat_name(names, winner, 12, lang)}"


def _two_lines(text: str, size: int, room: int) -> list[str]:
    """``text`` as one line when it fits ``room``, else as two, broken between words where the
    longer line is shortest (each line is then fitted to its room as usual)."""
    words = text.split()
    if width_of(text, size) <= room or len(words) < 2:
        return [text]
    splits = [(" ".join(words[:i]), " ".join(words[i:])) for i in range(1, len(words))]
    first, second = min(splits, key=lambda pair: max(width_of(part, size) for part in pair))
    return [first, second]


def _hand_rows(view: View) -> int:
    return max(1, -(-len(view.hand) // HAND_PER_ROW))


class _Board:
    """One drawing: the canvas, the names and the language."""

    def __init__(self, c: Canvas, names: Sequence[str], lang: Lang) -> None:
        self.c, self.names, self.lang = c, names, lang
        self.fit = partial(draw_fitted, c)  # text fitted to its room (smaller, or cut)

    def section(self, y: int, title: str) -> int:
        self.fit((PAD, y), title, TEXT, WIDTH - 2 * PAD, INK, "bold")
        self.c.line([(PAD, y + 22), (WIDTH - PAD, y + 22)], GRID)
        return y + 28

    def pairing_row(self, y: int, pair: tuple[int, int], result: Result | None) -> None:
        c, names, lang = self.c, self.names, self.lang
        a, b = pair
        mid = y + (PAIR_H - CARD_H) // 2
        text_y = y + (PAIR_H - 17) // 2
        badge_y = y + (PAIR_H - BADGE) // 2
        c.badge((X_CARD_A - 8 - BADGE, badge_y), a, BADGE)
        c.text((X_CARD_A - 16 - BADGE, text_y), seat_name(names, a, 16, lang), TEXT, INK, "bold", "r")
        c.badge((X_NAME_B, badge_y), b, BADGE)
        c.text((X_NAME_B + BADGE + 8, text_y), seat_name(names, b, 12, lang), TEXT, INK, "bold")
        if result is not None and result.cards is not None:
            c.paste(_face(result.cards[0]), (X_CARD_A, mid))
            c.paste(_face(result.cards[1]), (X_CARD_B, mid))
            self.fit(
                (X_OUTCOME, y + 3),
                lang.pt("divisors board", LABEL_TEXT[result.label]),
                TEXT,
                OUTCOME_W,
                INK,
                "bold",
            )
            self.fit(
                (X_OUTCOME, y + 23),
                f"{_points_text(result, names, lang)} · {lang.pt('divisors board', KIND_TEXT[result.kind])}",
                SMALL,
                OUTCOME_W,
                GOOD if any(result.points) else MUTED,
            )
            return
        if result is not None:  # void
            c.paste(_slot(), (X_CARD_A, mid))
            c.paste(_slot(), (X_CARD_B, mid))
            self.fit(
                (X_OUTCOME, text_y),
                lang.pt("divisors board", "called off: a player left"),
                SMALL,
                OUTCOME_W,
                BAD,
            )
            return
        # Still to be revealed: the same whoever has picked (the board's text says who has).
        c.paste(_slot(), (X_CARD_A, mid))
        c.paste(_slot(), (X_CARD_B, mid))
        shown = _two_lines(
            lang.pt("divisors board", "cards are shown when both have picked"), SMALL, OUTCOME_W
        )
        for line, line_y in zip(shown, (text_y,) if len(shown) == 1 else (y + 3, y + 23), strict=True):
            self.fit((X_OUTCOME, line_y), line, SMALL, OUTCOME_W, MUTED)

    def title(self, subs: Sequence[str], finished: bool) -> int:
        """The title and where the game stands; answers the y below them."""
        y = PAD
        self.c.text((PAD, y), "The Numerical Card Game", TITLE_SIZE, INK, "bold")
        y += 30
        for sub in subs:
            self.fit((PAD, y), sub, SMALL, WIDTH - 2 * PAD, RESULT if finished else MUTED)
            y += 22
        return y

    def scoreboard(self, y: int, view: View, playing: set[int], winners: set[int]) -> int:
        """The scoreboard: the count columns as wide as their headings."""
        c, names, lang = self.c, self.names, self.lang
        y = self.section(y, lang.pt("divisors board", "Players"))
        fresh_head, moldy_head = lang.pt("divisors board", "Fresh"), lang.pt("divisors board", "Moldy")
        fresh_w = max(COUNT_W, width_of(fresh_head, SMALL))
        moldy_w = max(COUNT_W, width_of(moldy_head, SMALL))
        x_fresh = X_SCORE + GAP + fresh_w // 2  # centres
        x_moldy = X_SCORE + GAP + fresh_w + GAP + moldy_w // 2
        x_state = X_SCORE + GAP + fresh_w + GAP + moldy_w + GAP
        state_w = WIDTH - PAD - x_state
        self.fit((X_NAME + 8, y + 4), lang.pt("divisors board", "Name"), SMALL, X_SCORE - 70 - X_NAME, MUTED)
        self.fit((X_SCORE, y + 4), lang.pt("divisors board", "Score"), SMALL, 64, MUTED, anchor="r")
        c.text((x_fresh, y + 4), fresh_head, SMALL, MUTED, anchor="c")
        c.text((x_moldy, y + 4), moldy_head, SMALL, MUTED, anchor="c")
        y += ROW_H
        for seat in range(view.n_players):
            bg = HIGHLIGHT if seat in playing else BACKGROUND
            if bg != BACKGROUND:
                c.rect((PAD - 4, y, WIDTH - PAD + 4, y + ROW_H - 3), fill=bg)
            c.badge((PAD, y + 3), seat, BADGE, background=bg)
            c.text((X_NAME + 8, y + 4), seat_name(names, seat, lang=lang), TEXT, INK, "bold", background=bg)
            c.text((X_SCORE, y + 2), str(view.scores[seat]), 16, INK, "bold", "r", background=bg)
            c.text((x_fresh, y + 4), str(view.fresh_counts[seat]), TEXT, INK, anchor="c", background=bg)
            c.text((x_moldy, y + 4), str(view.moldy_counts[seat]), TEXT, INK, anchor="c", background=bg)
            note, ink = _seat_note(view, seat, winners, lang)
            if note:
                self.fit((x_state, y + 5), note, SMALL, state_w, ink, background=bg)
            y += ROW_H
        return y + 8

    def pairings(self, y: int, title: str, rows: Sequence[tuple[tuple[int, int], Result | None]]) -> int:
        """A titled list of pairings, each with its result if it has one."""
        y = self.section(y, title)
        for pair, result in rows:
            self.pairing_row(y, pair, result)
            y += PAIR_H
        return y + 8

    def fresh_pile(self, y: int, view: View) -> None:
        """A seat's own fresh pile, its pick highlighted, and a caption under it."""
        c, lang = self.c, self.lang
        count = len(view.hand_cards)
        y = self.section(
            y, lang.n("Your fresh pile ({count} card)", "Your fresh pile ({count} cards)", count)
        )
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
            caption = lang.pt("divisors board", "No fresh cards.")
        elif view.pending is not None:
            caption = lang.t(
                "Your pick: {card} (hidden from the others until the pairing resolves)", card=view.pending
            )
        else:
            caption = ""
        if caption:
            self.fit((PAD, y), caption, SMALL, WIDTH - 2 * PAD, MUTED)


def _seat_note(view: View, seat: int, winners: set[int], lang: Lang) -> tuple[str, RGB]:
    """A scoreboard row's state: won, out (and how), sitting out this round, or nothing."""
    status = view.status[seat]
    if seat in winners:
        return lang.pt("divisors board", "★ wins"), GOOD
    if status != IN:
        return lang.pt("divisors board", STATUS_TEXT[status]), (BAD if status == FORFEITED else MUTED)
    if view.outcome is None and not any(seat in p for p in view.pairings):
        return lang.pt("divisors board", "sits out this round"), MUTED
    return "", MUTED


def _subtitles(view: View, lang: Lang) -> list[str]:
    """Where the game stands: one line, or two when the language makes it too long for one."""
    if view.outcome is not None:
        return [lang.t("Cards 1-{m} · game over: {reason}", m=view.m, reason=view.outcome.reason_in(lang))]
    where = lang.t(
        "Cards 1-{m} · cycle {cycle}, round {round} of {rounds}",
        m=view.m,
        cycle=view.cycle,
        round=view.round,
        rounds=view.rounds_per_cycle,
    )
    quiet = lang.t("cycles without a moldy card: {quiet} of {m}", quiet=view.quiet_cycles, m=view.m)
    joined = f"{where} · {quiet}"
    return [joined] if width_of(joined, SMALL) <= WIDTH - 2 * PAD else [where, quiet]


def _height(view: View, subs: Sequence[str]) -> int:
    """The board's height: the title, the scoreboard, the pairings and results, a seat's pile."""
    height = PAD + 30 + 22 * len(subs)  # title and subtitle
    height += 28 + ROW_H * (view.n_players + 1) + 8  # scoreboard
    if view.pairings:
        height += 28 + PAIR_H * len(view.pairings) + 8
    if view.last_results:
        height += 28 + PAIR_H * len(view.last_results) + 8
    if view.seat is not None:
        height += 28 + _hand_rows(view) * HAND_ROW_H + 24
    return height + PAD


def render_board(view: View, names: Sequence[str] = (), *, lang: Lang = ENGLISH) -> bytes:
    winners = set(view.outcome.winners) if view.outcome is not None else set()
    settled = {r.seats: r for r in view.results}
    # The players of the pairings still to be revealed: until the next board, whoever has picked.
    playing = {s for p in view.pairings if p not in settled for s in p} if view.outcome is None else set()
    subs = _subtitles(view, lang)
    c = Canvas(WIDTH, _height(view, subs))
    board = _Board(c, names, lang)
    y = board.title(subs, view.outcome is not None)
    y = board.scoreboard(y, view, playing, winners)
    if view.pairings:
        title = lang.t("Round {round} of cycle {cycle}", round=view.round, cycle=view.cycle)
        y = board.pairings(y, title, [(pair, settled.get(pair)) for pair in view.pairings])
    if view.last_results:
        title = (
            lang.pt("divisors board", "Last round")
            if view.outcome is None
            else lang.pt("divisors board", "Final round")
        )
        y = board.pairings(y, title, [(result.seats, result) for result in view.last_results])
    if view.seat is not None:
        board.fresh_pile(y, view)
    return c.png()
