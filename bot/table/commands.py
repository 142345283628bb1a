"""The table as a game's slash commands use it (`GameCommands`), what a game's cog may be given
(`CogParts`), and the helpers every game's commands share (the `/<game> new` command's options)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, ParamSpec, Protocol, TypeVar

import discord
from discord import app_commands
from discord.ext import commands

from bot.deadlines import timeout_choices
from bot.errors import BadInput, GameError, GameOver, NoGameHere
from bot.i18n.audience import reader
from bot.rules.base import TypedAction
from bot.service import Finder, Loaded, Moves
from bot.storage import GameRow, Storage
from bot.table.catalog import Catalog
from bot.table.lobby import Lobbies, channel_of
from bot.table.panels import Panels
from bot.table.play import Plays
from bot.table.routing import Router

if TYPE_CHECKING:  # (discord.py's callback types are for the type checker only)
    from discord.app_commands.commands import CommandCallback

TIMEOUT_HELP = "How long each player has for a move: 10m to 7d (default 24h)"
Timeout = app_commands.Range[str, 1, 40] | None  # the `timeout` option of every `/<game> new`
CHOICES_MAX = 25  # Discord shows at most 25 autocomplete choices

C = TypeVar("C", bound=commands.Cog)  # a game's cog
P = ParamSpec("P")
T = TypeVar("T", str, int)  # an autocomplete choice's value
S = TypeVar("S")  # a game's state
V = TypeVar("V")  # a game's view
S_contra = TypeVar("S_contra", contravariant=True)
V_co = TypeVar("V_co", covariant=True)


class Named(Protocol[S_contra, V_co]):
    """A game's rules module, as its commands name their game by it: its name, and its views (what
    the autocomplete helpers below answer has the type of the game's own views)."""

    NAME: str

    def view_for(self, state: S_contra, seat: int | None, /) -> V_co: ...


def started(row: GameRow) -> bool:
    return row.status == "active"


@dataclass(frozen=True)
class GameCommands:
    """What every game's slash commands do at the table: find the game they are about, open a lobby,
    play a move, show the caller's panel, and look at the game for autocomplete. Each method names
    the game by its rules module (``rules``), so what it answers has that game's types."""

    finder: Finder  # which game a place and a person mean
    storage: Storage  # the last game here, to say it is over
    catalog: Catalog
    lobbies: Lobbies
    plays: Plays
    panels: Panels

    async def game_here(self, interaction: discord.Interaction, rules: Named[S, V]) -> Loaded:
        """The started game of ``rules`` played in the command's channel or thread (the caller's,
        among several), or an error that says what to do (including "that game is over" right after
        it ended)."""
        kind = rules.NAME
        place_id = channel_of(interaction)
        try:
            game = await self.finder.game_here(place_id, interaction.user.id, kind=kind, prefer=(started,))
        except NoGameHere:
            last = await self.storage.latest_game_at(place_id=place_id)
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
        rules: Named[S, V],
        timeout_text: str | None,
        **options: int,
    ) -> None:
        """`/<game> new`: a lobby of ``rules``' game in the command's channel."""
        await self.lobbies.open(interaction, self.catalog.get(rules.NAME), timeout_text, options)

    async def play(self, interaction: discord.Interaction, rules: Named[S, V], action: TypedAction) -> None:
        """A move by slash command: ``action`` in the started game of ``rules`` in this channel."""
        await self.plays.act(interaction, await self.game_here(interaction, rules), action)

    async def show_panel(self, interaction: discord.Interaction, rules: Named[S, V]) -> None:
        """The caller's own panel of the started game of ``rules`` here, privately."""
        await self.panels.show(interaction, await self.game_here(interaction, rules))

    async def _started(self, interaction: discord.Interaction, rules: Named[S, V]) -> Loaded | None:
        if interaction.channel_id is None:
            return None
        try:
            game = await self.finder.game_here(
                interaction.channel_id, interaction.user.id, kind=rules.NAME, prefer=(started,)
            )
        except GameError:
            return None
        return game if game.state is not None else None

    async def caller_view(self, interaction: discord.Interaction, rules: Named[S, V]) -> tuple[V, int] | None:
        """For autocomplete: the caller's own view of the started game of ``rules`` in this channel,
        and their seat; None when there is none (autocomplete then offers nothing). The game comes
        from the service's cache, parsed once, not on every keystroke."""
        game = await self._started(interaction, rules)
        seat = None if game is None else game.row.seat_of(interaction.user.id)
        if game is None or seat is None:
            return None
        return game.view(seat), seat

    async def public_view(self, interaction: discord.Interaction, rules: Named[S, V]) -> V | None:
        """For autocomplete: the public view of the started game of ``rules`` in this channel."""
        game = await self._started(interaction, rules)
        return None if game is None else game.view(None)

    async def offer(
        self,
        interaction: discord.Interaction,
        rules: Named[S, V],
        choices: Callable[[V, int], Iterable[app_commands.Choice[T]]],
    ) -> list[app_commands.Choice[T]]:
        """An autocomplete's answer: the first 25 of ``choices`` (of the caller's own view and seat)
        in the started game of ``rules`` here; none when there is no such game or they do not play."""
        found = await self.caller_view(interaction, rules)
        if found is None:
            return []
        return list(itertools.islice(choices(*found), CHOICES_MAX))


@dataclass(frozen=True)
class CogParts:
    """What the composition root (bot/app.py) holds for the games' cogs. A game's ``spec.py`` hands
    its cog's constructor the parts that cog uses; no cog is given, or keeps, this record."""

    table: GameCommands
    plays: Plays  # the moves of buttons, menus and forms
    router: Router  # where a game's components are routed
    catalog: Catalog
    moves: Moves


def new_command(
    description: str, **options: str
) -> Callable[[CommandCallback[C, P, None]], app_commands.Command[C, P, None]]:
    """`/<game> new`: the command, with the help of its game's ``options`` (by name) and of the
    ``timeout`` option every game's has, and the timeout's autocomplete. (The options themselves are
    the parameters of the decorated method: discord.py reads them from its signature.)"""

    def decorate(callback: CommandCallback[C, P, None]) -> app_commands.Command[C, P, None]:
        completed = app_commands.autocomplete(timeout=timeout_autocomplete)(callback)
        described = app_commands.describe(**options, timeout=TIMEOUT_HELP)(completed)
        return app_commands.command(name="new", description=description)(described)

    return decorate


async def timeout_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    choices = timeout_choices(current, reader(interaction))
    return [app_commands.Choice(name=label, value=value) for label, value in choices]
