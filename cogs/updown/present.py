"""Up-Down-Stay as people see it, from views only.

A prediction is a quiet move: the channel reads "X has predicted", never the letters. Hands and
predictions appear only in their owner's panel (their own view) until the reveal.
"""

from __future__ import annotations

from typing import Any

import discord

from bot.errors import BadInput
from bot.games import updown
from bot.render.alt import fit_alt, player, words
from bot.render.updown import render as render_board
from bot.table.components import button, select
from bot.table.ids import custom_id
from bot.table.present import (
    News,
    Panel,
    TableInfo,
    counted,
    forfeit_line,
    newly_waiting,
    quiet_when,
)
from bot.table.replies import join_words

View = updown.View
SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
CHANGE_WORDS = {"U": "up", "D": "down", "S": "same"}
MINE_LABEL = "My hand"


def card_text(card: str) -> str:
    return card[:-1] + SUIT_SYMBOLS[card[-1]]


def cards_text(cards: tuple[str, ...]) -> str:
    return " ".join(card_text(c) for c in cards) if cards else "(none)"


def rank_counts(hand: tuple[str, ...]) -> list[tuple[int, list[str]]]:
    """The distinct ranks of a hand, lowest first, each with its cards."""
    by_rank: dict[int, list[str]] = {}
    for card in hand:
        by_rank.setdefault(updown.card_rank(card), []).append(card)
    return sorted(by_rank.items())


def render(view: View, table: TableInfo) -> bytes:
    return render_board(view, table.names)


def start_note(view: View, table: TableInfo) -> str:
    return (
        f"Your hand is in your DMs (or **{MINE_LABEL}**). Predict there, secretly, 1 to "
        f"{view.max_letters} letters of U (up), D (down), S (same)."
    )


def headline(news: News[View], table: TableInfo) -> str:
    lines = []
    for event in news.after.events:
        kind = event["type"]
        if kind == "predicted":
            verb = "changed their prediction" if event["replaced"] else "has predicted"
            lines.append(f"{table.who(event['seat'])} {verb}.")
        elif kind == "forfeit":
            lost = event.get("cards_removed", 0)
            tail = f" Their {counted(lost, 'card')} leave{'s' if lost == 1 else ''} play." if lost else ""
            lines.append(forfeit_line(news, table) + tail)
        elif kind == "placing_starts":
            lines.append(
                f"Every prediction is in. The row will have {event['row_size']} cards; "
                f"{table.who(event['first'])} places first."
            )
        elif kind == "placed":
            change = event.get("change")
            how = f" ({CHANGE_WORDS[change]}: {change})" if change else ""
            lines.append(f"{table.who(event['seat'])} placed {card_text(event['card'])}{how}.")
        elif kind == "reveal":
            lines.extend(_reveal_lines(updown.DealRecord.from_dict(event), table))
        elif kind == "playoff":
            who = join_words([table.who(s) for s in event["players"]])
            lines.append(
                f"Tied at {event['tied_score']}: {who} play it off in playoff {event['deal']} "
                "(a new shuffle, new hands by DM, new predictions)."
            )
    return "\n".join(lines) or f"{table.who(news.seat)} moved."


def _reveal_lines(record: updown.DealRecord, table: TableInfo) -> list[str]:
    what = "The reveal" if record.deal == 0 else f"The reveal of playoff {record.deal}"
    lines = [f"**{what}.** The changes: `{record.changes}`"]
    for p in record.players:
        who = table.who(p.seat)
        if p.forfeited:
            lines.append(f"• {who} left the game: 0")
        elif p.prediction is None:
            lines.append(f"• {who} made no prediction: 0")
        elif p.window is None:
            lines.append(f"• {who} `{p.prediction}` does not occur: 0")
        else:
            first, last = p.window, p.window + len(p.prediction)
            lines.append(
                f"• {who} `{p.prediction}` occurs from card {first + 1} "
                f"({card_text(record.row[first])}) to card {last + 1} ({card_text(record.row[last])}): "
                f"{p.score}"
            )
    if record.leftover:
        lines.append(f"Set aside, unseen: {cards_text(record.leftover)}")
    return lines


# ---- what one player sees ------------------------------------------------------------------------


# The panel does not change with whose turn it is: the hand, the prediction and the card menu (the
# board in the thread shows the row and whose turn it is), so other players' moves leave it alone.
TURN_SHOWN = False


def asked(news: News[View], table: TableInfo) -> list[int]:
    """When the cards start to be placed, every player's panel offers the card menu; from then on
    turns pass without touching the panels (the board's mention tells the next placer)."""
    before, after = news.before, news.after
    if after.phase == "place" and before.phase != "place":
        return [s for s in range(len(table.seats)) if s != news.seat]
    if after.phase == "place":
        return []
    return newly_waiting(before.to_act, after.to_act, news.seat)


def panel(view: View, seat: int, table: TableInfo) -> Panel:
    """The player's hand and prediction, and what they may do: the same whoever's turn it is."""
    stage = "" if view.deal == 0 else f" (playoff {view.deal})"
    if view.outcome is not None:
        return Panel(f"The game is over{stage}.")
    if seat in view.forfeited:
        return Panel("You left this game.")
    if view.hand is None:
        return Panel("You are not in the playoff: the tied players play it among themselves.")
    lines = [f"Your hand{stage}, {counted(len(view.hand), 'card')}: {cards_text(view.hand)}"]
    if view.opponent_hand is not None:
        other = next(s for s in view.players if s != seat)
        lines.append(f"{table.who(other)}'s hand (the cards you lack): {cards_text(view.opponent_hand)}")
    items: list[discord.ui.Item[Any]] = []
    if view.can_predict:
        if view.prediction is None:
            lines.append(
                f"**Predict 1 to {view.max_letters} letters** of U (up), D (down), S (same): press "
                "**Predict** or reply here."
            )
        else:
            lines.append(f"Your prediction: `{view.prediction}` (you may change it until the first card).")
        label = "Predict" if view.prediction is None else "Change prediction"
        items.append(button(label, custom_id(table.game_id, "predict"), style=discord.ButtonStyle.primary))
    elif view.prediction is not None:
        lines.append(f"Your prediction: `{view.prediction}`.")
    if view.phase == "place" and view.hand:
        lines.append("On your turn, choose a card below or reply with its value.")
        options = [
            discord.SelectOption(
                label=f"{updown.rank_label(rank)} ×{len(cards)}",
                value=str(rank),
                description=cards_text(tuple(cards)),
            )
            for rank, cards in rank_counts(view.hand)
        ]
        items.append(select(custom_id(table.game_id, "play"), options, placeholder="Card to place"))
    return Panel("\n".join(lines), items)


def confirm(news: News[View], table: TableInfo) -> str:
    if news.forfeit is not None:
        return f"You left game #{table.game_id}."
    events = news.after.events
    if any(e["type"] == "predicted" for e in events) and news.after.prediction is not None:
        return f"✅ Your prediction `{news.after.prediction}` is in (only you can see it)."
    placed = [e for e in events if e["type"] == "placed"]
    if placed:
        return f"✅ You placed {card_text(placed[0]['card'])}."
    if any(e["type"] == "predicted" for e in events):
        return "✅ Your prediction is in (only you can see it)."
    return "Done."


def awaits_typed(view: View, seat: int) -> bool:
    return view.can_predict or (view.phase == "place" and view.turn == seat)


def typed_action(view: View, seat: int, text: str) -> Any:
    """Letters are a prediction, a card value is a card: they never look alike (U, D and S are no
    card values), which matters before the first card, when both are allowed."""
    my_turn = view.phase == "place" and view.turn == seat
    if view.can_predict:
        try:
            return updown.Predict(updown.parse_letters(text))
        except BadInput:
            if not my_turn:
                raise
    return updown.Play(updown.parse_rank(text))


quiet = quiet_when("predicted")


def alt_text(view: View, table: TableInfo) -> str:
    """The board in words, as the image shows it: the latest reveal, or the current deal's row."""
    names = table.names
    stage = "" if view.deal == 0 else f", playoff {view.deal}"
    record = view.last_deal
    if record is not None and (not view.row or (view.phase == "over" and view.row == record.row)):
        return _reveal_alt(record, names, stage)
    parts = [f"Up-Down-Stay board{stage}."]
    if view.phase == "predict":
        still_in = [s for s in view.players if s not in view.forfeited]
        parts.append(
            f"Predicting: {len(view.predicted)} of {len(still_in)} predictions in; the row will have "
            f"{view.row_size} cards, predictions are 1 to {view.max_letters} letters."
        )
    elif view.phase == "place":
        parts.append(f"{len(view.row)} of {view.row_size} cards placed.")
    status = []
    for seat in view.players:
        if seat in view.forfeited:
            note = "left the game"
        elif view.turn == seat:
            note = f"to place, {counted(view.hand_sizes[seat], 'card')} in hand"
        elif view.phase == "predict":
            note = "predicted" if seat in view.predicted else "predicting"
        else:
            note = f"{counted(view.hand_sizes[seat], 'card')} in hand"
        status.append(f"{player(names, seat)} {note}")
    parts.append("; ".join(status) + ".")
    if view.row:
        parts.append(f"Changes so far: {view.changes or 'none'}.")
        parts.append(f"The row: {cards_text(view.row)}.")
    return fit_alt(parts)


def _reveal_alt(record: updown.DealRecord, names: tuple[str, ...], stage: str) -> str:
    who = words([player(names, s) for s in record.top])
    if record.result == "winner":
        result = f"{who} wins with {record.best}"
    elif record.result == "playoff":
        result = f"tied at {record.best}: {who} play again"
    else:
        result = f"still tied at {record.best}: {who} share the win"
    parts = [f"Up-Down-Stay reveal{stage}: {result}."]
    for p in record.players:
        if p.forfeited:
            parts.append(f"{player(names, p.seat)} left: 0.")
        elif p.prediction is None or p.window is None:
            said = f"predicted {p.prediction}, no match" if p.prediction else "made no prediction"
            parts.append(f"{player(names, p.seat)} {said}: 0.")
        else:
            last = p.window + len(p.prediction)
            parts.append(
                f"{player(names, p.seat)} predicted {p.prediction}: {p.score}, "
                f"cards {p.window + 1} to {last + 1}."
            )
    parts.append(f"Changes: {record.changes}.")
    parts.append(f"The row of {len(record.row)} cards: {cards_text(record.row)}.")
    if record.leftover:
        parts.append(f"Set aside: {cards_text(record.leftover)}.")
    return fit_alt(parts)
