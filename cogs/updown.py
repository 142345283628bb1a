"""/updown: secret U/D/S predictions, then a row of cards. Rules in bot/games/updown.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.errors import BadInput, IllegalMove
from bot.gamecog import (
    TIMEOUT_HELP,
    GameCog,
    Panel,
    forfeit_text,
    join_words,
    mention,
    timeout_autocomplete,
)
from bot.games import updown
from bot.games.base import Action
from bot.render.updown import render
from bot.service import Loaded, MoveResult
from bot.ui import ComponentId, button, custom_id, select, send_modal

if TYPE_CHECKING:
    from bot.app import QuetBot

SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
CHANGE_WORDS = {"U": "up", "D": "down", "S": "same"}


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


@app_commands.guild_only()
class UpDown(GameCog, group_name="updown", group_description="Up-Down-Stay: predict the ups and downs"):
    rules = updown
    secret = True
    mine_label = "My hand"

    def render(self, view: Any, names: tuple[str, ...]) -> bytes:
        return render(view, names)

    # ---- what the channel reads ---------------------------------------------------------------------

    def start_note(self, game: Loaded) -> str:
        view = updown.view_for(game.state, None)
        return (
            f"Everyone has their hand by DM (or press **My hand**). The row will have {view.row_size} "
            f"cards: predict 1 to {view.max_letters} letters of U (up), D (down), S (same) with the "
            "DM buttons, a DM reply, or `/updown predict`. Predictions stay secret until the reveal."
        )

    def quiet(self, result: MoveResult) -> bool:
        events = result.after.state.events
        return bool(events) and all(e["type"] == "predicted" for e in events)

    def describe(self, result: MoveResult) -> str:
        seats = result.after.row.seats
        lines = []
        for event in result.after.state.events:
            kind = event["type"]
            if kind == "predicted":
                verb = "changed their prediction" if event["replaced"] else "has predicted"
                lines.append(f"{mention(seats[event['seat']])} {verb}.")
            elif kind == "forfeit":
                lost = event.get("cards_removed", 0)
                tail = f" Their {lost} cards leave play." if lost else ""
                lines.append(forfeit_text(result) + tail)
            elif kind == "placing_starts":
                lines.append(
                    f"Every prediction is in. The row will have {event['row_size']} cards; "
                    f"{mention(seats[event['first']])} places first."
                )
            elif kind == "placed":
                change = event.get("change")
                how = f" ({CHANGE_WORDS[change]}: {change})" if change else ""
                lines.append(f"{mention(seats[event['seat']])} placed {card_text(event['card'])}{how}.")
            elif kind == "reveal":
                lines.extend(self._reveal_lines(updown.DealRecord.from_dict(event), seats))
            elif kind == "playoff":
                who = join_words([mention(seats[s]) for s in event["players"]])
                lines.append(
                    f"Tied at {event['tied_score']}: {who} play it off in playoff {event['deal']} "
                    "(a new shuffle, new hands by DM, new predictions)."
                )
        return "\n".join(lines) or f"{mention(seats[result.seat])} moved."

    @staticmethod
    def _reveal_lines(record: updown.DealRecord, seats: tuple[int, ...]) -> list[str]:
        what = "The reveal" if record.deal == 0 else f"The reveal of playoff {record.deal}"
        lines = [f"**{what}.** The changes: `{record.changes}`"]
        for p in record.players:
            who = mention(seats[p.seat])
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

    def panel(self, game: Loaded, seat: int) -> Panel:
        view = updown.view_for(game.state, seat)
        names = game.row.seats
        stage = "" if view.deal == 0 else f" (playoff {view.deal})"
        if view.outcome is not None:
            return Panel(f"The game is over{stage}. See the channel for the reveal.")
        if seat in view.forfeited:
            return Panel("You left this game.")
        if view.hand is None:
            return Panel(f"You are not in this playoff{stage}: the tied players play it among themselves.")
        lines = [f"Your hand{stage}, {len(view.hand)} cards: {cards_text(view.hand)}"]
        if view.opponent_hand is not None:
            other = next(s for s in view.players if s != seat)
            lines.append(
                f"{mention(names[other])}'s hand (the cards you lack): {cards_text(view.opponent_hand)}"
            )
        items: list[discord.ui.Item[Any]] = []
        if view.can_predict:
            limit = f"1 to {view.max_letters} letters of U (up), D (down), S (same)"
            if view.prediction is None:
                lines.append(
                    f"**Your prediction, please:** {limit}, for the {view.row_size}-card row. Press "
                    "**Predict**, or simply reply here with the letters."
                )
            else:
                lines.append(
                    f"Your prediction: `{view.prediction}`. You may change it ({limit}) until the first "
                    "card is placed: press **Change prediction** or reply here."
                )
            label = "Predict" if view.prediction is None else "Change prediction"
            items.append(button(label, custom_id(game.id, "predict"), style=discord.ButtonStyle.primary))
        elif view.prediction is not None:
            lines.append(f"Your prediction: `{view.prediction}` (locked).")
        if view.row:
            lines.append(
                f"The row so far: {cards_text(view.row)}" + (f" · `{view.changes}`" if view.changes else "")
            )
        if view.phase == "place":
            if view.turn == seat:
                lines.append("**Your turn:** choose the card to place (or reply here with its value).")
                options = [
                    discord.SelectOption(
                        label=f"{updown.rank_label(rank)} ×{len(cards)}",
                        value=str(rank),
                        description=cards_text(tuple(cards)),
                    )
                    for rank, cards in rank_counts(view.hand)
                ]
                items.append(select(custom_id(game.id, "play"), options, placeholder="Card to place"))
            elif view.turn is not None:
                lines.append(f"{mention(names[view.turn])} places next.")
        elif view.prediction is not None and view.can_predict:
            waiting = [mention(names[s]) for s in sorted(view.to_act)]
            if waiting:
                lines.append(f"Waiting for {join_words(waiting)} to predict.")
        return Panel("\n".join(lines), items)

    def confirm(self, result: MoveResult) -> str:
        action = result.action
        if action["type"] == "predict":
            mine = result.after.state.predictions[result.seat]
            return f"✅ Your prediction `{mine}` is in (only you can see it)."
        if action["type"] == "play":
            placed = [e for e in result.after.state.events if e["type"] == "placed"]
            return f"✅ You placed {card_text(placed[0]['card'])}." if placed else "✅ Card placed."
        return super().confirm(result)

    # ---- typed answers, controls and forms -----------------------------------------------------------

    def awaits_typed(self, game: Loaded, seat: int) -> bool:
        state = game.state
        return updown.can_predict(state, seat) or (state.phase == "place" and state.turn == seat)

    def typed_action(self, game: Loaded, seat: int, text: str) -> Action:
        """Letters are a prediction, a card value is a card: they never look alike (U, D and S are no
        card values), which matters before the first card, when both are allowed."""
        state = game.state
        my_turn = state.phase == "place" and state.turn == seat
        if updown.can_predict(state, seat):
            try:
                return {"type": "predict", "letters": updown.parse_letters(text)}
            except BadInput:
                if not my_turn:
                    raise
        return {"type": "play", "rank": updown.parse_rank(text)}

    async def on_component(
        self, interaction: discord.Interaction, game: Loaded, cid: ComponentId, values: list[str]
    ) -> None:
        if cid.verb == "predict":
            seat = self.seat_of(game, interaction.user.id)
            if game.state is None or not game.row.live or not updown.can_predict(game.state, seat):
                raise IllegalMove(
                    "Predictions are closed: the first card has been placed (or the game ended)."
                )
            view = updown.view_for(game.state, seat)
            field: discord.ui.TextInput[Any] = discord.ui.TextInput(
                label=f"U, D, S letters (1 to {view.max_letters})",
                custom_id="letters",
                placeholder="for example UUDSU",
                default=view.prediction,
                max_length=100,
            )
            await send_modal(
                interaction, f"Your prediction · game #{game.id}", custom_id(game.id, "predict"), field
            )
            return
        if cid.verb == "play" and values and values[0].isdigit():
            await self.act(interaction, game.id, {"type": "play", "rank": int(values[0])})
            return
        await super().on_component(interaction, game, cid, values)

    async def on_modal(
        self, interaction: discord.Interaction, game: Loaded, cid: ComponentId, fields: dict[str, str]
    ) -> None:
        if cid.verb != "predict":
            await super().on_modal(interaction, game, cid, fields)
            return
        letters = updown.parse_letters(fields.get("letters", ""))
        await self.act(interaction, game.id, {"type": "predict", "letters": letters})

    # ---- slash commands ------------------------------------------------------------------------------

    @app_commands.command(name="new", description="Open an Up-Down-Stay lobby in this channel (2-10 players)")
    @app_commands.describe(timeout=TIMEOUT_HELP)
    @app_commands.autocomplete(timeout=timeout_autocomplete)
    async def new(
        self, interaction: discord.Interaction, timeout: app_commands.Range[str, 1, 40] | None = None
    ) -> None:
        await self.open_lobby(interaction, timeout)

    @app_commands.command(name="predict", description="Submit (or change) your secret U/D/S prediction")
    @app_commands.describe(letters="U (up), D (down), S (same), e.g. UUDSU; only you see it")
    async def predict(
        self, interaction: discord.Interaction, letters: app_commands.Range[str, 1, 100]
    ) -> None:
        game = await self.game_here(interaction)
        await self.act(interaction, game.id, {"type": "predict", "letters": updown.parse_letters(letters)})

    @app_commands.command(name="play", description="Place a card from your hand on the row")
    @app_commands.describe(card="The value to place: A, 2-10, J, Q, K (or 1-13)")
    async def play(self, interaction: discord.Interaction, card: app_commands.Range[str, 1, 10]) -> None:
        game = await self.game_here(interaction)
        await self.act(interaction, game.id, {"type": "play", "rank": updown.parse_rank(card)})

    @play.autocomplete("card")
    async def play_card(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        found = await self.caller_seat(interaction)
        if found is None:
            return []
        state, seat = found
        hand = state.hands[seat]
        typed = current.strip().upper()
        return [
            app_commands.Choice(
                name=f"{updown.rank_label(rank)} ({cards_text(tuple(cards))})", value=updown.rank_label(rank)
            )
            for rank, cards in rank_counts(hand)
            if updown.rank_label(rank).startswith(typed) or str(rank).startswith(typed)
        ][:25]

    @app_commands.command(name="hand", description="Your hand and your prediction (only you see them)")
    async def hand(self, interaction: discord.Interaction) -> None:
        await self.show_panel(interaction, await self.game_here(interaction))


async def setup(bot: QuetBot) -> None:
    cog = UpDown(bot)
    await bot.add_cog(cog)
    bot.register_game(cog)
