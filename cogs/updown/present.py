"""Up-Down-Stay as people see it, from views only.

A prediction is a quiet move: the channel reads "X has predicted", never the letters. Hands and
predictions appear only in their owner's panel (their own view) until the reveal.
"""

from __future__ import annotations

from typing import Any

import discord

import cogs.updown.rules as updown
from bot.errors import BadInput
from bot.i18n import ENGLISH, N_, Lang
from bot.render.alt import fit_alt, player
from bot.table.components import button, select
from bot.table.ids import custom_id
from bot.table.present import (
    News,
    Panel,
    Presenter,
    PrivatePresenter,
    TableInfo,
    forfeit_line,
    newly_waiting,
    quiet_when,
)
from cogs.updown.render import render as render_board

View = updown.View
Phase, DealResult = updown.Phase, updown.DealResult
SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
MINE_LABEL = N_("My hand")


def card_text(card: str) -> str:
    return card[:-1] + SUIT_SYMBOLS[card[-1]]


def cards_text(cards: tuple[str, ...], lang: Lang = ENGLISH) -> str:
    return " ".join(card_text(c) for c in cards) if cards else lang.t("(none)")


def rank_counts(hand: tuple[str, ...]) -> list[tuple[int, list[str]]]:
    """The distinct ranks of a hand, lowest first, each with its cards."""
    by_rank: dict[int, list[str]] = {}
    for card in hand:
        by_rank.setdefault(updown.card_rank(card), []).append(card)
    return sorted(by_rank.items())


def render(view: View, table: TableInfo) -> bytes:
    return render_board(view, table.names, lang=table.lang)


def start_note(view: View, table: TableInfo) -> str:
    lang = table.lang
    return lang.n(
        "Your hand is in your DMs (or **{button}**). Predict there, secretly, 1 to {count} letter of "
        "U (up), D (down), S (same).",
        "Your hand is in your DMs (or **{button}**). Predict there, secretly, 1 to {count} letters of "
        "U (up), D (down), S (same).",
        view.max_letters,
        button=lang.t(MINE_LABEL),
    )


def headline(news: News[View], table: TableInfo) -> str:
    lang = table.lang
    lines = []
    for event in news.after.events:
        match event:
            case updown.Predicted(seat=seat, replaced=True):
                lines.append(lang.t("{player} changed their prediction.", player=table.who(seat)))
            case updown.Predicted(seat=seat):
                lines.append(lang.t("{player} has predicted.", player=table.who(seat)))
            case updown.Left(cards_removed=lost):
                line = forfeit_line(news, table)
                if lost:
                    line += " " + lang.n(
                        "Their {count} card leaves play.", "Their {count} cards leave play.", lost
                    )
                lines.append(line)
            case updown.PlacingStarts():
                lines.append(
                    lang.n(
                        "Every prediction is in. The row will have {count} card; {player} places first.",
                        "Every prediction is in. The row will have {count} cards; {player} places first.",
                        event.row_size,
                        player=table.who(event.first),
                    )
                )
            case updown.Placed():
                lines.append(_placed(event, table))
            case updown.Reveal(record=record):
                lines.extend(_reveal_lines(record, table))
            case updown.Playoff():
                lines.append(
                    lang.t(
                        "Tied at {score}: {players} play it off in playoff {deal} (a new shuffle, new "
                        "hands by DM, new predictions).",
                        score=event.tied_score,
                        players=lang.words([table.who(s) for s in event.players]),
                        deal=event.deal,
                    )
                )
    return "\n".join(lines) or lang.t("{player} moved.", player=table.who(news.seat))


def _placed(event: updown.Placed, table: TableInfo) -> str:
    lang, who, card = table.lang, table.who(event.seat), card_text(event.card)
    change = event.change
    if change == "U":
        return lang.t("{player} placed {card} (up: U).", player=who, card=card)
    if change == "D":
        return lang.t("{player} placed {card} (down: D).", player=who, card=card)
    if change == "S":
        return lang.t("{player} placed {card} (same: S).", player=who, card=card)
    return lang.t("{player} placed {card}.", player=who, card=card)


def _reveal_lines(record: updown.DealRecord, table: TableInfo) -> list[str]:
    lang = table.lang
    if record.deal == 0:
        lines = [lang.t("**The reveal.** The changes: `{changes}`", changes=record.changes)]
    else:
        lines = [
            lang.t(
                "**The reveal of playoff {deal}.** The changes: `{changes}`",
                deal=record.deal,
                changes=record.changes,
            )
        ]
    for p in record.players:
        who = table.who(p.seat)
        if p.forfeited:
            lines.append(lang.t("• {player} left the game: 0", player=who))
        elif p.prediction is None:
            lines.append(lang.t("• {player} made no prediction: 0", player=who))
        elif p.window is None:
            lines.append(
                lang.t("• {player} `{prediction}` does not occur: 0", player=who, prediction=p.prediction)
            )
        else:
            first, last = p.window, p.window + len(p.prediction)
            lines.append(
                lang.t(
                    "• {player} `{prediction}` occurs from card {first} ({first_card}) to card {last} "
                    "({last_card}): {score}",
                    player=who,
                    prediction=p.prediction,
                    first=first + 1,
                    first_card=card_text(record.row[first]),
                    last=last + 1,
                    last_card=card_text(record.row[last]),
                    score=p.score,
                )
            )
    if record.leftover:
        lines.append(lang.t("Set aside, unseen: {cards}", cards=cards_text(record.leftover, lang)))
    return lines


# ---- what one player sees ------------------------------------------------------------------------


# The panel does not change with whose turn it is: the hand, the prediction and the card menu (the
# board in the thread shows the row and whose turn it is), so other players' moves leave it alone.
TURN_SHOWN = False


def asked(news: News[View], table: TableInfo) -> list[int]:
    """When the cards start to be placed, every player's panel offers the card menu; from then on
    turns pass without touching the panels (the board's mention tells the next placer)."""
    before, after = news.before, news.after
    if after.phase == Phase.PLACE and before.phase != Phase.PLACE:
        return [s for s in range(len(table.seats)) if s != news.seat]
    if after.phase == Phase.PLACE:
        return []
    return newly_waiting(before.to_act, after.to_act, news.seat)


def _hand_line(view: View, hand: tuple[str, ...], lang: Lang) -> str:
    cards = cards_text(hand, lang)
    if view.deal == 0:
        return lang.n(
            "Your hand, {count} card: {cards}", "Your hand, {count} cards: {cards}", len(hand), cards=cards
        )
    return lang.n(
        "Your hand (playoff {deal}), {count} card: {cards}",
        "Your hand (playoff {deal}), {count} cards: {cards}",
        len(hand),
        deal=view.deal,
        cards=cards,
    )


def panel(view: View, seat: int, table: TableInfo) -> Panel:
    """The player's hand and prediction, and what they may do: the same whoever's turn it is."""
    lang = table.lang
    if view.outcome is not None:
        if view.deal == 0:
            return Panel(lang.t("The game is over."))
        return Panel(lang.t("The game is over (playoff {deal}).", deal=view.deal))
    if seat in view.forfeited:
        return Panel(lang.t("You left this game."))
    if view.hand is None:
        return Panel(lang.t("You are not in the playoff: the tied players play it among themselves."))
    lines = [_hand_line(view, view.hand, lang)]
    if view.opponent_hand is not None:
        other = next(s for s in view.players if s != seat)
        lines.append(
            lang.t(
                "{player}'s hand (the cards you lack): {cards}",
                player=table.who(other),
                cards=cards_text(view.opponent_hand, lang),
            )
        )
    items: list[discord.ui.Item[Any]] = []
    if view.can_predict:
        if view.prediction is None:
            label = lang.pt("label", "Predict")
            lines.append(
                lang.n(
                    "**Predict 1 to {count} letter** of U (up), D (down), S (same): press **{button}** or "
                    "reply here.",
                    "**Predict 1 to {count} letters** of U (up), D (down), S (same): press **{button}** or "
                    "reply here.",
                    view.max_letters,
                    button=label,
                )
            )
        else:
            label = lang.pt("label", "Change prediction")
            lines.append(
                lang.t(
                    "Your prediction: `{prediction}` (you may change it until the first card).",
                    prediction=view.prediction,
                )
            )
        items.append(button(label, custom_id(table.game_id, "predict"), style=discord.ButtonStyle.primary))
    elif view.prediction is not None:
        lines.append(lang.t("Your prediction: `{prediction}`.", prediction=view.prediction))
    if view.phase == Phase.PLACE and view.hand:
        lines.append(lang.t("On your turn, choose a card below or reply with its value."))
        options = [
            discord.SelectOption(
                label=f"{updown.rank_label(rank)} ×{len(cards)}",
                value=str(rank),
                description=cards_text(tuple(cards), lang),
            )
            for rank, cards in rank_counts(view.hand)
        ]
        items.append(
            select(
                custom_id(table.game_id, "play"), options, placeholder=lang.pt("placeholder", "Card to place")
            )
        )
    return Panel("\n".join(lines), items)


def confirm(news: News[View], table: TableInfo) -> str:
    lang = table.lang
    if news.forfeit is not None:
        return lang.t("You left game #{game_id}.", game_id=table.game_id)
    events = news.after.events
    predicted = any(isinstance(e, updown.Predicted) for e in events)
    if predicted and news.after.prediction is not None:
        return lang.t(
            "✅ Your prediction `{prediction}` is in (only you can see it).", prediction=news.after.prediction
        )
    placed = [e for e in events if isinstance(e, updown.Placed)]
    if placed:
        return lang.t("✅ You placed {card}.", card=card_text(placed[0].card))
    if predicted:
        return lang.t("✅ Your prediction is in (only you can see it).")
    return lang.t("Done.")


def awaits_typed(view: View, seat: int) -> bool:
    return view.can_predict or (view.phase == Phase.PLACE and view.turn == seat)


def typed_action(view: View, seat: int, text: str) -> Any:
    """Letters are a prediction, a card value is a card: they never look alike (U, D and S are no
    card values), which matters before the first card, when both are allowed."""
    my_turn = view.phase == Phase.PLACE and view.turn == seat
    if view.can_predict:
        try:
            return updown.Predict(updown.parse_letters(text))
        except BadInput:
            if not my_turn:
                raise
    return updown.Play(updown.parse_rank(text))


quiet = quiet_when(updown.Predicted)


def alt_text(view: View, table: TableInfo) -> str:
    """The board in words, as the image shows it: the latest reveal, or the current deal's row. Not
    who has predicted: like the image, the alt text stays as posted while a prediction edits the
    board's text (which says it)."""
    lang, names = table.lang, table.names
    record = view.last_deal
    if record is not None and (not view.row or (view.phase == Phase.OVER and view.row == record.row)):
        return _reveal_alt(record, names, lang)
    if view.deal == 0:
        parts = [lang.t("Up-Down-Stay board.")]
    else:
        parts = [lang.t("Up-Down-Stay board, playoff {deal}.", deal=view.deal)]
    if view.phase == Phase.PREDICT:  # not how many predictions are in (nor whose), as on the image
        parts.append(lang.t("Predicting in secret."))
        parts.append(
            lang.n("The row will have {count} card.", "The row will have {count} cards.", view.row_size)
        )
        parts.append(
            lang.n(
                "A prediction is 1 to {count} letter.",
                "A prediction is 1 to {count} letters.",
                view.max_letters,
            )
        )
    elif view.phase == Phase.PLACE:
        parts.append(
            lang.n(
                "{done} of {count} card placed.",
                "{done} of {count} cards placed.",
                view.row_size,
                done=len(view.row),
            )
        )
    status = [_player_alt(view, seat, player(names, seat), lang) for seat in view.players]
    parts.append("; ".join(status) + ".")
    if view.row:
        if view.changes:
            parts.append(lang.t("Changes so far: {changes}.", changes=view.changes))
        else:
            parts.append(lang.t("Changes so far: none."))
        parts.append(lang.t("The row: {cards}.", cards=cards_text(view.row, lang)))
    return fit_alt(parts)


def _player_alt(view: View, seat: int, who: str, lang: Lang) -> str:
    cards = view.hand_sizes[seat]
    if seat in view.forfeited:
        return lang.t("{player} left the game", player=who)
    if view.turn == seat:
        return lang.n(
            "{player} to place, {count} card in hand",
            "{player} to place, {count} cards in hand",
            cards,
            player=who,
        )
    return lang.n("{player} {count} card in hand", "{player} {count} cards in hand", cards, player=who)


def _reveal_alt(record: updown.DealRecord, names: tuple[str, ...], lang: Lang) -> str:
    who = lang.words([player(names, s) for s in record.top])
    if record.result == DealResult.WINNER:
        result = lang.t("{player} wins with {score}", player=who, score=record.best)
    elif record.result == DealResult.PLAYOFF:
        result = lang.t("tied at {score}: {players} play again", players=who, score=record.best)
    else:
        result = lang.t("still tied at {score}: {players} share the win", players=who, score=record.best)
    if record.deal == 0:
        parts = [lang.t("Up-Down-Stay reveal: {result}.", result=result)]
    else:
        parts = [lang.t("Up-Down-Stay reveal, playoff {deal}: {result}.", deal=record.deal, result=result)]
    for p in record.players:
        name = player(names, p.seat)
        if p.forfeited:
            parts.append(lang.t("{player} left: 0.", player=name))
        elif p.prediction is None:
            parts.append(lang.t("{player} made no prediction: 0.", player=name))
        elif p.window is None:
            parts.append(
                lang.t("{player} predicted {prediction}, no match: 0.", player=name, prediction=p.prediction)
            )
        else:
            last = p.window + len(p.prediction)
            parts.append(
                lang.t(
                    "{player} predicted {prediction}: {score}, cards {first} to {last}.",
                    player=name,
                    prediction=p.prediction,
                    score=p.score,
                    first=p.window + 1,
                    last=last + 1,
                )
            )
    parts.append(lang.t("Changes: {changes}.", changes=record.changes))
    parts.append(
        lang.n(
            "The row of {count} card: {cards}.",
            "The row of {count} cards: {cards}.",
            len(record.row),
            cards=cards_text(record.row, lang),
        )
    )
    if record.leftover:
        parts.append(lang.t("Set aside: {cards}.", cards=cards_text(record.leftover, lang)))
    return fit_alt(parts)


def awaited(view: View, seat: int) -> str:
    """What /game mine says the game waits for: a prediction, or a card to place."""
    return N_("your prediction") if view.phase == updown.Phase.PREDICT else N_("your move")


PRESENTER: Presenter[updown.View] = Presenter(
    render=render,
    headline=headline,
    quiet=quiet,
    start_note=start_note,
    alt_text=alt_text,
    mine_label=MINE_LABEL,
    awaited=awaited,
)

PRIVATE: PrivatePresenter[updown.View] | None = PrivatePresenter(
    panel=panel,
    confirm=confirm,
    awaits_typed=awaits_typed,
    typed_action=typed_action,
    asked=asked,
    turn_shown=TURN_SHOWN,
)
