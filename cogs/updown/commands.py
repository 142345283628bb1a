"""/updown: secret U/D/S predictions, then a row of cards. Rules in cogs/updown/rules.py."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

import cogs.updown.rules as updown
from bot.errors import IllegalMove
from bot.i18n.audience import reader
from bot.inputs import whole_number
from bot.service import Loaded
from bot.table.commands import CogParts, GameCommands, Timeout, new_command
from bot.table.components import send_modal
from bot.table.ids import ComponentId, custom_id
from bot.table.panels import Panels
from bot.table.play import Plays
from bot.table.routing import Router
from cogs.updown.present import cards_text, rank_counts


@app_commands.guild_only()
class UpDownCommands(
    commands.GroupCog, group_name="updown", group_description="Up-Down-Stay: predict the ups and downs"
):
    def __init__(self, table: GameCommands, plays: Plays, router: Router) -> None:
        self.table, self.plays = table, plays
        super().__init__()
        router.on_click(updown.NAME, "predict", self.on_predict_button)
        router.on_click(updown.NAME, "play", self.on_play_menu)
        router.on_form(updown.NAME, "predict", self.on_predict_form)

    async def on_predict_button(
        self, interaction: discord.Interaction, game: Loaded, cid: ComponentId, values: list[str]
    ) -> None:
        seat = Panels.seat_of(game, interaction.user.id)
        view = game.view(seat) if game.state is not None else None
        if view is None or not game.row.live or not view.can_predict:
            raise IllegalMove("Predictions are closed: the first card has been placed (or the game ended).")
        lang = reader(interaction)
        field: discord.ui.TextInput[Any] = discord.ui.TextInput(
            # i18n: the label of the form's field: at most 45 characters
            label=lang.n(
                "U, D, S letters (1 to {count})", "U, D, S letters (1 to {count})", view.max_letters
            )[:45],
            custom_id="letters",
            placeholder=lang.pt("placeholder", "for example UUDSU"),
            default=view.prediction,
            max_length=100,
        )
        title = lang.pt("form title", "Your prediction · game #{game_id}", game_id=game.id)
        await send_modal(interaction, title, custom_id(game.id, "predict"), field)

    async def on_play_menu(
        self, interaction: discord.Interaction, game: Loaded, cid: ComponentId, values: list[str]
    ) -> None:
        rank = whole_number(values[0] if len(values) == 1 else "", 1, 13)
        await self.plays.act(interaction, game, updown.Play(rank))

    async def on_predict_form(
        self, interaction: discord.Interaction, game: Loaded, cid: ComponentId, fields: dict[str, str]
    ) -> None:
        letters = updown.parse_letters(fields.get("letters", ""))
        await self.plays.act(interaction, game, updown.Predict(letters))

    @new_command("Open an Up-Down-Stay lobby in this channel (2-10 players)")
    async def new(self, interaction: discord.Interaction, timeout: Timeout = None) -> None:
        await self.table.open_lobby(interaction, updown, timeout)

    @app_commands.command(name="predict", description="Submit (or change) your secret U/D/S prediction")
    @app_commands.describe(letters="U (up), D (down), S (same), e.g. UUDSU; only you see it")
    async def predict(
        self, interaction: discord.Interaction, letters: app_commands.Range[str, 1, 100]
    ) -> None:
        await self.table.play(interaction, updown, updown.Predict(updown.parse_letters(letters)))

    @app_commands.command(name="play", description="Place a card from your hand on the row")
    @app_commands.describe(card="The value to place: A, 2-10, J, Q, K (or 1-13)")
    async def play(self, interaction: discord.Interaction, card: app_commands.Range[str, 1, 10]) -> None:
        await self.table.play(interaction, updown, updown.Play(updown.parse_rank(card)))

    @play.autocomplete("card")
    async def play_card(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        typed = current.strip().upper()[:10]

        def ranks(view: updown.View, seat: int) -> Iterator[app_commands.Choice[str]]:
            if view.hand is None:
                return
            for rank, cards in rank_counts(view.hand):
                label = updown.rank_label(rank)
                if label.startswith(typed) or str(rank).startswith(typed):
                    yield app_commands.Choice(name=f"{label} ({cards_text(tuple(cards))})", value=label)

        return await self.table.offer(interaction, updown, ranks)

    @app_commands.command(name="hand", description="Your hand and your prediction (only you see them)")
    async def hand(self, interaction: discord.Interaction) -> None:
        await self.table.show_panel(interaction, updown)


def cog(parts: CogParts) -> UpDownCommands:
    """The cog, given the parts of the table it uses (bot/app.py builds it through the game's spec)."""
    return UpDownCommands(parts.table, parts.plays, parts.router)
