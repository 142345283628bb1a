"""What a game's slash commands are given to work with, and the helpers they share."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import discord
from discord import app_commands

from bot.deadlines import timeout_choices
from bot.errors import BadInput, GameError, GameOver, NoGameHere
from bot.i18n.audience import reader
from bot.rules.base import Action, TypedAction
from bot.service import Loaded
from bot.storage import GameRow
from bot.table.boards import Boards
from bot.table.deps import Deps
from bot.table.lobby import Lobbies, channel_of
from bot.table.panels import Panels
from bot.table.play import Plays
from bot.table.threads import Places


class Named(Protocol):
    """A game's rules module, as the commands name their game by it."""

    NAME: str


TIMEOUT_HELP = "How long each player has for a move: 10m to 7d (default 24h)"
Timeout = app_commands.Range[str, 1, 40] | None  # the `timeout` option of every `/<game> new`


def started(row: GameRow) -> bool:
    return row.status == "active"


@dataclass(frozen=True)
class Tools:
    deps: Deps
    boards: Boards
    panels: Panels
    plays: Plays
    lobbies: Lobbies
    places: Places

    async def game_here(self, interaction: discord.Interaction, kind: str) -> Loaded:
        """The started game of ``kind`` played in the command's channel or thread (the caller's,
        among several), or an error that says what to do (including "that game is over" right after
        it ended)."""
        place_id = channel_of(interaction)
        try:
            game = await self.deps.finder.game_here(
                place_id, interaction.user.id, kind=kind, prefer=(started,)
            )
        except NoGameHere:
            last = await self.deps.storage.latest_game_at(place_id=place_id)
            if last is not None and last.kind == kind and last.status == "finished":
                if last.place_id != last.channel_id:  # used in the game's own thread
                    raise GameOver(
                        "Game #{game_id} is over: its result is the last board here, and on its card in "
                        "{channel}. Start a new one with /{command} new.",
                        game_id=last.id,
                        channel=f"<#{last.channel_id}>",
                        command=kind,
                    ) from None
                raise GameOver(
                    "Game #{game_id} is over: its result is its last board here. "
                    "Start a new one with /{command} new.",
                    game_id=last.id,
                    command=kind,
                ) from None
            raise
        if game.state is None:
            raise BadInput("The game has not started yet: the host starts it from the lobby.")
        return game

    async def open_lobby(
        self,
        interaction: discord.Interaction,
        rules: Named,
        timeout_text: str | None,
        **options: int,
    ) -> None:
        """`/<game> new`: a lobby of ``rules``' game in the command's channel."""
        await self.lobbies.open(interaction, self.deps.catalog.get(rules.NAME), timeout_text, options)

    async def play(
        self, interaction: discord.Interaction, rules: Named, action: TypedAction | Action
    ) -> None:
        """A move by slash command: ``action`` in the started game of ``rules`` in this channel."""
        await self.plays.act(interaction, await self.game_here(interaction, rules.NAME), action)

    async def _started(self, interaction: discord.Interaction, kind: str) -> Loaded | None:
        if interaction.channel_id is None:
            return None
        try:
            game = await self.deps.finder.game_here(
                interaction.channel_id, interaction.user.id, kind=kind, prefer=(started,)
            )
        except GameError:
            return None
        return game if game.state is not None else None

    async def caller_view(self, interaction: discord.Interaction, kind: str) -> tuple[Any, int] | None:
        """For autocomplete: the caller's own view of the started game of ``kind`` in this channel,
        and their seat; None when there is none (autocomplete then offers nothing). The game comes
        from the service's cache, parsed once, not on every keystroke. (The view is of the game the
        command names by ``kind``: its type is that game's, which a name cannot tell the checker.)"""
        game = await self._started(interaction, kind)
        seat = None if game is None else game.row.seat_of(interaction.user.id)
        if game is None or seat is None:
            return None
        return game.view(seat), seat

    async def public_view(self, interaction: discord.Interaction, kind: str) -> Any | None:
        """For autocomplete: the public view of the started game of ``kind`` in this channel."""
        game = await self._started(interaction, kind)
        return None if game is None else game.view(None)


async def timeout_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    choices = timeout_choices(current, reader(interaction))
    return [app_commands.Choice(name=label, value=value) for label, value in choices]
