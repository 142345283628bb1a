"""Up-Down-Stay images: the row of cards with the U/D/S change between each pair of neighbours, and at
a reveal every player's matched window as a bar in their colour with a legend of predictions and
scores; plus a player's own hand (only ever sent to that player).

The row wraps 13 cards to a line. The change into a card is written in the gap at its left, so the
first card of a wrapped line carries the change from the last card of the line above, which ends in
a "↵". Cards are numbered 1..R under the row, as the reveal names windows by card numbers.

Speed: every card face is drawn once into a cached palette sprite (with its number strip) and pasted.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from bot.i18n import ENGLISH, Lang
from bot.render.colours import (
    BACKGROUND,
    BAD,
    CARD_INK,
    CARD_RED,
    GOOD,
    GRID,
    HIGHLIGHT,
    INK,
    MUTED,
    PLAYER_COLOURS,
    RGB,
    WHITE,
    player_colour,
    seat_letter,
)
from bot.render.common import Box, Canvas, seat_name, text_width
from cogs.updown.rules import DealPlayer, DealRecord, DealResult, Phase, View, card_suit

PER_LINE = 13
CARD_W, CARD_H = 38, 52
GAP = 20  # between two cards: room for the change letter
NUM_H = 18  # the card-number strip under each card
LANE = 20  # one window bar's lane under a line of cards
LINE_GAP = 12
PAD = 16
TITLE = 18
TEXT = 14
SMALL = 14
BADGE = 18
LEGEND_ROW = 24
SUIT_SYMBOL = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
CHANGE_COLOUR = {"U": GOOD, "D": BAD, "S": MUTED}

LINE_W = GAP + PER_LINE * (CARD_W + GAP)  # a full line: a gap before each card and after the last
WIDTH = PAD + LINE_W + PAD


@lru_cache(maxsize=64)
def _card(card: str) -> Canvas:
    """A card face: the rank above the suit, red suits red."""
    c = Canvas(CARD_W, CARD_H)
    c.rect((0, 0, CARD_W - 1, CARD_H - 1), fill=WHITE, outline=GRID, radius=5)
    ink = CARD_RED if card_suit(card) in "HD" else CARD_INK
    label = card[:-1]
    c.text((CARD_W // 2, 5), label, 18 if len(label) == 1 else 16, ink, "bold", "c", background=WHITE)
    c.text((CARD_W // 2, 26), SUIT_SYMBOL[card_suit(card)], 18, ink, "sans", "c", background=WHITE)
    return c


@lru_cache(maxsize=64)
def _numbered(index: int) -> Canvas:
    """The strip under card ``index`` (0-based) with its 1-based number."""
    c = Canvas(CARD_W, NUM_H)
    c.text((CARD_W // 2, 0), str(index + 1), SMALL, MUTED, anchor="c")
    return c


def _lines(count: int) -> int:
    return max(1, -(-count // PER_LINE))


def _card_x(index: int) -> int:
    return PAD + GAP + (index % PER_LINE) * (CARD_W + GAP)


class _Row:
    """Geometry of the card row: where each card and each lane of window bars lies."""

    def __init__(self, top: int, slots: int, lanes: int) -> None:
        self.top = top
        self.lanes = lanes
        self.line_h = CARD_H + NUM_H + lanes * LANE + LINE_GAP
        self.height = _lines(slots) * self.line_h

    def card_y(self, index: int) -> int:
        return self.top + (index // PER_LINE) * self.line_h

    def lane_y(self, line: int, lane: int) -> int:
        return self.top + line * self.line_h + CARD_H + NUM_H + lane * LANE


def _draw_row(c: Canvas, geo: _Row, row: Sequence[str], changes: str, slots: int, final: bool) -> None:
    """The placed cards with their changes, and an outline for each slot still to fill."""
    for i in range(slots):
        x, y = _card_x(i), geo.card_y(i)
        if i < len(row):
            c.paste(_card(row[i]), (x, y))
        else:
            c.rect((x, y, x + CARD_W - 1, y + CARD_H - 1), outline=GRID, radius=5)
        c.paste(_numbered(i), (x, y + CARD_H))
        if 0 < i <= len(changes):
            letter = changes[i - 1]
            c.text((x - GAP // 2, y + 16), letter, TEXT, CHANGE_COLOUR[letter], "bold", "c")
        if i % PER_LINE == PER_LINE - 1 and i + 1 < slots:
            c.text((x + CARD_W + GAP // 2, y + 18), "↵", TEXT, MUTED, anchor="c")
    if not final and len(row) < slots:  # the next card goes here
        x, y = _card_x(len(row)), geo.card_y(len(row))
        c.rect((x, y, x + CARD_W - 1, y + CARD_H - 1), outline=INK, width=2, radius=5)


def _hollow(seat: int) -> bool:
    """Seats past the palette's eight player colours reuse a colour: draw theirs hollow."""
    return seat >= len(PLAYER_COLOURS)


def _swatch(c: Canvas, box: Box, seat: int) -> None:
    colour = player_colour(seat)
    if _hollow(seat):
        c.rect(box, fill=BACKGROUND, outline=colour, width=2)
    else:
        c.rect(box, fill=colour)


def _lanes(windows: Sequence[tuple[int, int]]) -> list[int]:
    """A lane per window (start card, last card) so that windows sharing a lane never touch; greedy
    by start, which uses as few lanes as the most windows covering one card."""
    order = sorted(range(len(windows)), key=lambda i: windows[i])
    ends: list[int] = []  # the last card of each lane so far
    lanes = [0] * len(windows)
    for i in order:
        start, last = windows[i]
        lane = next((k for k, end in enumerate(ends) if end < start), len(ends))
        if lane == len(ends):
            ends.append(last)
        else:
            ends[lane] = last
        lanes[i] = lane
    return lanes


def _draw_window(c: Canvas, geo: _Row, lane: int, start: int, last: int, seat: int) -> None:
    """A bar under cards ``start`` .. ``last`` (one segment per line of the row)."""
    first_line, last_line = start // PER_LINE, last // PER_LINE
    for line in range(first_line, last_line + 1):
        a = start if line == first_line else line * PER_LINE
        b = last if line == last_line else line * PER_LINE + PER_LINE - 1
        y = geo.lane_y(line, lane)
        x0 = _card_x(a) - (0 if line == first_line else GAP // 2)
        x1 = _card_x(b) + CARD_W - 1 + (0 if line == last_line else GAP // 2)
        _swatch(c, (x0, y + 1, x1, y + LANE - 3), seat)
        # The seat's letter on every segment: the bar never relies on its colour alone.
        fill = BACKGROUND if _hollow(seat) else player_colour(seat)
        ink = player_colour(seat) if _hollow(seat) else CARD_INK
        c.text((x0 + 4, y - 1), seat_letter(seat), SMALL, ink, "bold", background=fill)


def _title(deal: int, lang: Lang) -> str:
    return "Up-Down-Stay" if deal == 0 else lang.t("Up-Down-Stay · playoff {deal}", deal=deal)


def render_row(view: View, names: Sequence[str] = (), *, lang: Lang = ENGLISH) -> bytes:
    """What the channel sees now: the latest reveal (with windows, predictions and scores) when the
    current deal has no card down yet and a deal has been revealed, or when the game is over after
    a reveal; otherwise the current deal's row so far."""
    record = view.last_deal
    if record is not None and (not view.row or (view.phase == Phase.OVER and view.row == record.row)):
        return render_deal(record, names, view.outcome is not None, lang=lang)
    return _render_current(view, names, lang)


def _progress(view: View, lang: Lang) -> str:
    """The line under the title: how far the deal is."""
    if view.phase == Phase.PREDICT:
        # Not how many predictions are in: a prediction edits the board's text, not its image.
        parts = [
            lang.t("Predicting in secret"),
            lang.n("{count} card in the row", "{count} cards in the row", view.row_size),
            lang.n("predict 1-{count} letter", "predict 1-{count} letters", view.max_letters),
        ]
        return "  ·  ".join(parts)
    if view.phase == Phase.PLACE:
        return lang.n(
            "{done} of {count} card placed",
            "{done} of {count} cards placed",
            view.row_size,
            done=len(view.row),
        )
    return lang.t("The game is over")


def _render_current(view: View, names: Sequence[str], lang: Lang) -> bytes:
    slots = max(view.row_size, len(view.row))
    geo = _Row(PAD + 56, slots, 0)
    status_y = geo.top + geo.height
    height = status_y + 20 + LEGEND_ROW * len(view.players) + PAD
    notes = [_note(view, seat, lang) for seat in view.players]
    line = _progress(view, lang)
    width = max(
        WIDTH,
        PAD + text_width(line, TEXT) + PAD,
        PAD + NOTE_X + max((text_width(note, TEXT) for note, _ in notes), default=0) + PAD,
    )
    c = Canvas(width, height)
    c.text((PAD, PAD), _title(view.deal, lang), TITLE, INK, "bold")
    c.text((PAD, PAD + 28), line, TEXT, MUTED)
    _draw_row(c, geo, view.row, view.changes, slots, view.phase != Phase.PLACE)
    y = status_y
    c.line([(PAD, y), (width - PAD, y)], GRID)
    y += 10
    for seat, (note, ink) in zip(view.players, notes, strict=True):
        c.badge((PAD, y), seat, BADGE)
        c.text((PAD + 26, y), seat_name(names, seat), TEXT, INK, "bold")
        c.text((PAD + NOTE_X, y), note, TEXT, ink)
        y += LEGEND_ROW
    return c.png()


NOTE_X = 220  # where a player's note starts in the legend under the row


def _note(view: View, seat: int, lang: Lang) -> tuple[str, RGB]:
    """A player's line in the legend: left, to place, their hand's size. Not whether they have
    predicted: a prediction is quiet (it edits the board's text, which says who has predicted, not
    its image), so the image says only what holds until the next board."""
    cards = view.hand_sizes[seat]
    if view.turn == seat:
        return lang.n("to place · {count} card in hand", "to place · {count} cards in hand", cards), INK
    if seat in view.forfeited:
        return lang.t("left the game"), MUTED
    return lang.n("{count} card in hand", "{count} cards in hand", cards), MUTED


def _result_line(record: DealRecord, names: Sequence[str], over: bool, lang: Lang) -> str:
    who = lang.words([seat_name(names, s) for s in record.top])
    if record.result == DealResult.WINNER and over:
        return lang.t("{player} wins with {score}", player=who, score=record.best)
    if record.result == DealResult.WINNER:
        return lang.t("{player} wins the deal with {score}", player=who, score=record.best)
    if record.result == DealResult.PLAYOFF:
        return lang.t("Tied at {score}: {players} play again", players=who, score=record.best)
    return lang.t("Still tied at {score}: {players} share the win", players=who, score=record.best)


def _legend_note(p: DealPlayer, lang: Lang) -> tuple[str, str, RGB]:
    """A player's result at a reveal: in words, and as short as it gets (when a long prediction
    leaves little room)."""
    if p.forfeited:
        return lang.t("left: scores 0"), "0", MUTED
    if p.window is None:
        return lang.t("no match: 0"), "0", MUTED
    last = p.window + len(p.prediction or "")
    return (
        lang.t("{score} · cards {first}-{last}", score=p.score, first=p.window + 1, last=last + 1),
        str(p.score),
        INK,
    )


def render_deal(
    record: DealRecord, names: Sequence[str] = (), over: bool = True, *, lang: Lang = ENGLISH
) -> bytes:
    """A revealed deal: the row, each matched window under it, the predictions and scores, the
    cards that were set aside, and the deal's result."""
    matched = [p for p in record.players if p.window is not None]
    windows = [(p.window or 0, (p.window or 0) + len(p.prediction or "")) for p in matched]
    lanes = _lanes(windows)
    slots = len(record.row)
    geo = _Row(PAD + 56, slots, max(lanes, default=-1) + 1)
    legend_y = geo.top + geo.height + 8
    leftover_h = CARD_H + 12 if record.leftover else 0
    height = legend_y + LEGEND_ROW * len(record.players) + 10 + leftover_h + PAD
    result = _result_line(record, names, over, lang)
    aside = lang.t("Set aside:")
    aside_w = text_width(aside, TEXT) + 12
    width = max(
        WIDTH,
        PAD + text_width(result, TEXT, "bold") + 16 + PAD,
        PAD + aside_w + len(record.leftover) * (CARD_W + 6) + PAD,
    )
    c = Canvas(width, height)
    if record.deal == 0:
        title = lang.t("Up-Down-Stay · reveal")
    else:
        title = lang.t("Up-Down-Stay · playoff {deal} · reveal", deal=record.deal)
    c.text((PAD, PAD), title, TITLE, INK, "bold")
    w = text_width(result, TEXT, "bold") + 16
    c.rect((PAD - 4, PAD + 25, PAD + w - 4, PAD + 47), fill=HIGHLIGHT, radius=4)
    c.text((PAD + 4, PAD + 27), result, TEXT, INK, "bold", background=HIGHLIGHT)
    _draw_row(c, geo, record.row, record.changes, slots, True)
    for p, lane, (start, last) in zip(matched, lanes, windows, strict=True):
        _draw_window(c, geo, lane, start, last, p.seat)

    y = legend_y
    c.line([(PAD, y - 4), (width - PAD, y - 4)], GRID)
    y += 4
    name_w = max(text_width(seat_name(names, p.seat), TEXT, "bold") for p in record.players)
    pred_x = PAD + 26 + name_w + 16
    for p in record.players:
        c.badge((PAD, y), p.seat, BADGE)
        c.text((PAD + 26, y), seat_name(names, p.seat), TEXT, INK, "bold")
        prediction = p.prediction or "—"
        pred_end = pred_x + c.text((pred_x, y + 1), prediction, TEXT, INK if p.score else MUTED, "mono")
        note, short, ink = _legend_note(p, lang)
        top = p.seat in record.top and not p.forfeited
        face = "bold" if top else "sans"
        star = "★ " if top else ""
        if width - PAD - text_width(star + note, TEXT, face) < pred_end + 12:
            note = short  # the words would run into a long prediction: the score alone
        c.text((width - PAD, y), star + note, TEXT, ink, face, "r")
        y += LEGEND_ROW
    if record.leftover:
        y += 6
        c.text((PAD, y + 18), aside, TEXT, MUTED)
        x = PAD + aside_w
        for card in record.leftover:
            c.paste(_card(card), (x, y))
            x += CARD_W + 6
    return c.png()


def render_hand(view: View, names: Sequence[str] = (), *, lang: Lang = ENGLISH) -> bytes:
    """A player's own hand (and, in a two-player deal, the opponent's), with their prediction.
    Only for that player: never post it in the channel."""
    if view.hand is None or view.seat is None:
        raise ValueError("render_hand needs a player's private view")
    blocks: list[tuple[str, tuple[str, ...]]] = [(lang.t("Your hand"), view.hand)]
    if view.opponent_hand is not None:
        other = next(s for s in view.players if s != view.seat)
        blocks.append(
            (
                lang.t("{player}'s hand (the cards you lack)", player=seat_name(names, other)),
                view.opponent_hand,
            )
        )
    if view.prediction is None:
        said = lang.t("Your prediction: not made yet")
    else:
        said = lang.t("Your prediction: {prediction}", prediction=view.prediction)
    if view.can_predict:
        said += "  ·  " + lang.n("1-{count} letter", "1-{count} letters", view.max_letters)
    step = CARD_W + 4
    hand_w = PAD + PER_LINE * step + PAD
    width = max(
        hand_w,
        420,
        PAD + text_width(said, TEXT) + PAD,
        *(PAD + text_width(label, TEXT) + PAD for label, _ in blocks),
    )
    height = PAD + 52
    for _, cards in blocks:
        height += 24 + _lines(len(cards)) * (CARD_H + 6) + 6
    c = Canvas(width, height + PAD)
    c.text((PAD, PAD), _title(view.deal, lang), TITLE, INK, "bold")
    c.text((PAD, PAD + 26), said, TEXT, MUTED)
    y = PAD + 52
    for label, cards in blocks:
        c.text((PAD, y), label, TEXT, INK)
        y += 24
        if not cards:
            c.text((PAD, y), lang.t("(empty)"), TEXT, MUTED)
        for i, card in enumerate(cards):
            c.paste(_card(card), (PAD + (i % PER_LINE) * step, y + (i // PER_LINE) * (CARD_H + 6)))
        y += _lines(len(cards)) * (CARD_H + 6) + 6
    return c.png()


def render(view: Any, names: tuple[str, ...], *, lang: Lang = ENGLISH) -> bytes:
    """The public board (the cog's entry point)."""
    return render_row(view, names, lang=lang)
