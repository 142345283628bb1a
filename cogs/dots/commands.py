"""/dots: Lines By The Dots, a vertical line then a horizontal line per turn. Rules in cogs/dots/rules.py.

Moving without typing: the board's menus (see present.py). Picking a start dot answers privately
with a menu of its endpoints whose custom_id carries the start dot, so the choice survives a
restart and nothing is kept in memory.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

import cogs.dots.rules as dots
from bot.errors import BadInput, IllegalMove, NotYourTurn
from bot.i18n import N_
from bot.i18n.audience import reader
from bot.service import Loaded, Moves
from bot.table.catalog import Catalog
from bot.table.commands import CogParts, GameCommands, Timeout, new_command
from bot.table.ids import ComponentId
from bot.table.play import Plays
from bot.table.replies import reply_private
from bot.table.routing import Router
from cogs.dots.present import SELECT_MAX, ends_menu
from cogs.dots.rules import directed

SIZE = dots.SIZE_OPTION
SizeRange = app_commands.Range[int, SIZE.min, SIZE.max]  # type: ignore[valid-type]
DOT_TEXT_MAX = 10  # a dot's name is a letter and a number: longer text is not a dot


class DotsCommands(
    commands.GroupCog, group_name="dots", group_description="Lines By The Dots: lines over unused dots"
):
    def __init__(
        self, table: GameCommands, plays: Plays, router: Router, moves: Moves, catalog: Catalog
    ) -> None:
        self.table, self.plays, self.router, self.moves, self.catalog = table, plays, router, moves, catalog
        super().__init__()
        router.on_click(dots.NAME, "from", self.on_from, in_dms=False)
        router.on_click(dots.NAME, "to", self.on_to, in_dms=False)

    async def on_to(
        self, interaction: discord.Interaction, game: Loaded, cid: ComponentId, values: list[str]
    ) -> None:
        version = cid.require_version()
        if len(values) != 1:
            raise BadInput("Pick one dot from the menu.")
        action = dots.parse_action({"type": "line", "to": values[0], "from": cid.arg or None})
        message = interaction.message
        note = None
        if message is not None and message.flags.ephemeral and isinstance(action, dots.Line):
            note = self._drawn(interaction, game, action)
        await self.plays.act(interaction, game, action, expected_version=version, note=note)

    @staticmethod
    def _drawn(interaction: discord.Interaction, game: Loaded, action: dots.Line) -> str | None:
        """What the private "Where does it end?" menu says once its line is saved (it then loses its
        controls, so it cannot be used again; the board goes to the channel)."""
        if action.from_ is None:
            return None
        size = game.view(None).size
        start, end = dots.parse_dot(action.from_, size), dots.parse_dot(action.to, size)
        line = f"{dots.dot_name(start)}→{dots.dot_name(end)}"
        return reader(interaction).t("Your line {line}: drawn.", line=line)

    async def on_from(
        self, interaction: discord.Interaction, game: Loaded, cid: ComponentId, values: list[str]
    ) -> None:
        """A start dot: nothing is drawn yet; its endpoints are offered privately."""
        if len(values) != 1:
            raise BadInput("Pick one dot from the menu.")
        seat = self.moves.check_turn(game, interaction.user.id, cid.require_version())
        view = game.view(seat)
        if view.turn != seat:
            raise (
                NotYourTurn(waiting=(view.turn,))
                if view.turn is not None
                else IllegalMove("The game is over.")
            )
        start = dots.parse_dot(values[0], view.size)
        if start not in view.starts:
            raise IllegalMove(
                "Your line cannot start at {dot}. Pick a dot from the menu.", dot=dots.dot_name(start)
            )
        lang = reader(interaction)
        table = self.catalog.get(dots.NAME).table(game).speaking(lang)
        menu = ends_menu(view, table, start, arg=dots.dot_name(start))
        assert view.owed is not None
        question = directed(
            view.owed.direction,
            N_("Your vertical line starts at {dot}. Where does it end?"),
            N_("Your horizontal line starts at {dot}. Where does it end?"),
        )
        await reply_private(
            interaction,
            lang.t(question, dot=dots.dot_name(start)),
            view=self.router.view([menu]),
        )

    @new_command("Open a Lines By The Dots lobby in this channel", size=SIZE.description)
    async def new(
        self, interaction: discord.Interaction, size: SizeRange = SIZE.default, timeout: Timeout = None
    ) -> None:
        await self.table.open_lobby(interaction, dots, timeout, size=size)

    @app_commands.command(name="line", description="Draw the line you owe now")
    @app_commands.rename(from_="from")
    @app_commands.describe(
        to="The dot your line ends at, like C4",
        from_="Only for the first line, or when no line can start where the last ended: the dot it starts at",
    )
    async def line(self, interaction: discord.Interaction, to: str, from_: str | None = None) -> None:
        game = await self.table.game_here(interaction, dots)
        start = from_.strip().upper() if from_ and from_.strip() else None
        action = dots.parse_action({"type": "line", "to": to.strip().upper(), "from": start})
        await self.plays.act(interaction, game, action)

    @line.autocomplete("to")
    async def line_to(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        view = await self.table.public_view(interaction, dots)
        if view is None or view.owed is None:
            return []
        starts = view.starts
        typed_from = getattr(interaction.namespace, "from", None)
        if len(starts) > 1 and isinstance(typed_from, str) and len(typed_from) <= DOT_TEXT_MAX:
            try:
                chosen = dots.parse_dot(typed_from, view.size)
            except BadInput:
                chosen = None
            if chosen in starts:
                starts = (chosen,)
        ends: dict[dots.Dot, list[dots.Dot]] = {}
        for start in starts:
            for end in view.ends[start]:
                ends.setdefault(end, []).append(start)
        prefix = current.strip().upper()[:DOT_TEXT_MAX]
        lang = reader(interaction)
        which = directed(
            view.owed.direction,
            N_("{dot} (vertical line from {start})"),
            N_("{dot} (horizontal line from {start})"),
        )
        choices = []
        for end in sorted(ends):
            name = dots.dot_name(end)
            if not name.startswith(prefix):
                continue
            froms = ends[end]
            label = name
            if len(froms) == 1:
                label = lang.t(which, dot=name, start=dots.dot_name(froms[0]))
            choices.append(app_commands.Choice(name=label, value=name))
        return choices[:SELECT_MAX]

    @line.autocomplete("from_")
    async def line_from(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        view = await self.table.public_view(interaction, dots)
        if view is None or view.owed is None or not view.owed.needs_from:
            return []  # the line starts where the last one ended: no from
        prefix = current.strip().upper()[:DOT_TEXT_MAX]
        lang = reader(interaction)
        choices = []
        for start in view.starts:
            name = dots.dot_name(start)
            if name.startswith(prefix):
                ends = ", ".join(dots.dot_name(d) for d in view.ends[start])
                label = lang.t("{dot} (to {ends})", dot=name, ends=ends)[:100]
                choices.append(app_commands.Choice(name=label, value=name))
        return choices[:SELECT_MAX]


def cog(parts: CogParts) -> DotsCommands:
    """The cog, given the parts of the table it uses (bot/app.py builds it through the game's spec)."""
    return DotsCommands(parts.table, parts.plays, parts.router, parts.moves, parts.catalog)
