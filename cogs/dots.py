"""/dots: Lines By The Dots, a vertical line then a horizontal line per turn. Rules in bot/games/dots.py.

Every line is answered with what it scored. The board image is posted once a turn is over (and at the
end); between the two lines of a turn the post is text only, with the menu for the horizontal line.

Moving without typing: the post carries a select menu of the legal endpoints of the line owed. When the
line must name its start (the first line of the game, a fallback line), the post instead offers the
legal start dots, grouped by whole columns into menus of at most 25 (a 10 x 10 grid's first line is
five menus, A-B, C-D, ... I-J); picking a start answers privately with a menu of its endpoints whose
custom_id carries the start dot, so the choice survives a restart and nothing is kept in memory.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.errors import BadInput, GameOver, IllegalMove, NotAPlayer, NotYourTurn, StaleButton
from bot.gamecog import TIMEOUT_HELP, GameCog, forfeit_text, mention, timeout_autocomplete
from bot.games import dots
from bot.render.dots import render_board
from bot.service import Loaded, MoveResult
from bot.ui import NO_PINGS, ComponentId, components, custom_id, reply_private, select

if TYPE_CHECKING:
    from bot.app import QuetBot

SELECT_MAX = 25  # Discord's limit on the options of one select menu


def _points(n: int) -> str:
    return f"{n} point" if n == 1 else f"{n} points"


def _arrow(a: str, b: str) -> str:
    return f"{a}→{b}"


def _column_groups(starts: tuple[dots.Dot, ...]) -> list[list[dots.Dot]]:
    """Starts (sorted by column) packed into menus of whole columns, at most 25 options each.

    A column holds at most 10 dots, so a menu closes only when two columns no longer fit: at most five
    menus, one per action row, even for a 10 x 10 grid's first line.
    """
    columns: dict[int, list[dots.Dot]] = {}
    for dot in starts:
        columns.setdefault(dot[0], []).append(dot)
    groups: list[list[dots.Dot]] = []
    for column in columns.values():
        if groups and len(groups[-1]) + len(column) <= SELECT_MAX:
            groups[-1].extend(column)
        else:
            groups.append(list(column))
    return groups


def _mid_turn(state: dots.State | None) -> bool:
    """The last change was a vertical line and its player now owes the horizontal one."""
    if state is None or state.finished or len(state.events) != 1:
        return False
    event = state.events[0]
    return (
        event["type"] == "line"
        and event["direction"] == dots.VERTICAL
        and event["seat"] == state.turn
        and state.direction == dots.HORIZONTAL
    )


def _owed_text(state: dots.State) -> str:
    o = dots.owed(state)
    assert o is not None
    if o.first:
        return f"the first line of the game, a {o.direction} line from any dot you choose"
    assert state.current is not None
    here = dots.dot_name(state.current)
    if o.fallback:
        return (
            f"no {o.direction} line can start at {here}, so draw one from a non-virgin dot you choose "
            "(fallback)"
        )
    return f"a {o.direction} line from {here}"


class Dots(GameCog, group_name="dots", group_description="Lines By The Dots: lines over virgin dots"):
    rules = dots

    def render(self, view: Any, names: tuple[str, ...]) -> bytes:
        return render_board(view, names)

    # ---- what the posts say -----------------------------------------------------------------------

    def describe(self, result: MoveResult) -> str:
        seats = result.after.row.seats
        out: list[str] = []
        for event in result.after.state.events:
            who = mention(seats[event["seat"]]) if "seat" in event else ""
            if event["type"] == "out":
                out.append(forfeit_text(result) if event["seat"] == result.seat else f"{who} left the game.")
            elif event["type"] == "line":
                out.append(self._line_text(result, event, who))
        return " ".join(out)

    @staticmethod
    def _line_text(result: MoveResult, event: dict[str, Any], who: str) -> str:
        d, score = event["direction"], event["score"]
        text = f"{who} drew the {d} line {_arrow(event['from'], event['to'])}"
        before: dots.State = result.before.state
        if not before.lines:
            return f"{text}: 0 points (the first line of the game)."
        col, row = dots.parse_dot(event["from"], before.size)
        axis = f"column {dots.COLUMNS[col]}" if d == dots.VERTICAL else f"row {row + 1}"
        dot_word = "dot" if score == 1 else "dots"
        text += f": {_points(score)} ({score} non-virgin {dot_word} in {axis})"
        if event["fallback"] and before.current is not None:
            text += f", a fallback line as none could start at {dots.dot_name(before.current)}"
        return text + "."

    @staticmethod
    def _skip_notes(game: Loaded) -> list[str]:
        notes = []
        for event in game.state.events if game.state is not None else ():
            if event["type"] == "skip":
                d = event["direction"]
                axis = "column" if d == dots.VERTICAL else "row"
                notes.append(
                    f"{mention(game.row.seats[event['seat']])}'s {d} line is skipped: no {axis} holds "
                    f"both a virgin and a non-virgin dot; play goes on from {event['at']}."
                )
        return notes

    def board_text(self, game: Loaded, headline: str) -> str:
        # Skipped lines are announced with the change that caused them (a line, a forfeit).
        if headline:
            headline = " ".join([headline, *self._skip_notes(game)])
        return super().board_text(game, headline)

    def status_text(self, game: Loaded) -> str:
        state: dots.State | None = game.state
        text = super().status_text(game)
        if state is None or game.row.status == "cancelled":
            return text
        if state.finished:
            scores = " · ".join(
                f"{mention(u)} {state.scores[s]}{' (left)' if s in state.forfeited else ''}"
                for s, u in enumerate(game.row.seats)
            )
            return f"{text}\nFinal scores: {scores}."
        who = mention(game.row.seats[state.turn])
        return f"{who}, your move: {_owed_text(state)}."

    async def board_payload(self, game: Loaded, headline: str) -> dict[str, Any]:
        if not _mid_turn(game.state):
            return await super().board_payload(game, headline)
        # Between the two lines of a turn: the score and the menu, no image, no second ping.
        payload: dict[str, Any] = {
            "content": self.board_text(game, headline),
            "allowed_mentions": NO_PINGS,
        }
        items = self.board_items(game) if game.row.live else []
        if items:
            payload["view"] = components(*items)
        return payload

    async def show_status(self, interaction: discord.Interaction, game: Loaded) -> None:
        # Always with the image, even between the two lines of a turn (board_payload leaves it out).
        payload = await super().board_payload(game, "")
        payload.pop("view", None)
        payload["allowed_mentions"] = NO_PINGS
        await interaction.response.send_message(ephemeral=True, **payload)

    # ---- menus ------------------------------------------------------------------------------------

    def board_items(self, game: Loaded) -> list[discord.ui.Item[Any]]:
        state: dots.State = game.state
        o = dots.owed(state)
        if o is None:
            return []
        version = game.row.version
        if not o.needs_from:
            assert state.current is not None
            return [self._ends_menu(game, state.current, arg="")]
        groups = _column_groups(dots.legal_starts(state))
        items: list[discord.ui.Item[Any]] = []
        for group in groups:
            first, last = dots.dot_name(group[0])[0], dots.dot_name(group[-1])[0]
            span = first if first == last else f"{first}-{last}"
            where = "" if len(groups) == 1 else f" (column{'s' if first != last else ''} {span})"
            options = [self._start_option(state, start) for start in group]
            items.append(
                select(
                    custom_id(game.id, "from", span, version=version),
                    options,
                    placeholder=f"Where does your {o.direction} line start?{where}",
                )
            )
        return items

    @staticmethod
    def _start_option(state: dots.State, start: dots.Dot) -> discord.SelectOption:
        ends = ", ".join(dots.dot_name(d) for d in dots.legal_ends(state, start))
        return discord.SelectOption(
            label=dots.dot_name(start),
            value=dots.dot_name(start),
            description=f"to {ends} · {_points(dots.line_score(state, start))}"[:100],
        )

    @staticmethod
    def _ends_menu(game: Loaded, start: dots.Dot, *, arg: str) -> discord.ui.Item[Any]:
        state: dots.State = game.state
        name = dots.dot_name(start)
        options = [
            discord.SelectOption(label=dots.dot_name(end), value=dots.dot_name(end))
            for end in dots.legal_ends(state, start)
        ]
        points = _points(dots.line_score(state, start))
        return select(
            custom_id(game.id, "to", arg, version=game.row.version),
            options,
            placeholder=f"Draw the {state.direction} line from {name} to… ({points})",
        )

    async def on_component(
        self, interaction: discord.Interaction, game: Loaded, cid: ComponentId, values: list[str]
    ) -> None:
        if cid.verb not in ("from", "to"):
            await super().on_component(interaction, game, cid, values)
            return
        if len(values) != 1:
            raise BadInput("Pick one dot from the menu.")
        if cid.verb == "to":
            action = {"type": "line", "to": values[0], "from": cid.arg or None}
            await self.act(interaction, game.id, action, expected_version=cid.version)
            return
        # A start dot: nothing is drawn yet, so the checks service.act makes are made here.
        state = self._check_turn(game, interaction.user.id, cid.version)
        start = dots.parse_dot(values[0], state.size)
        if start not in dots.legal_starts(state):
            raise IllegalMove(
                f"Your {state.direction} line cannot start at {values[0]}. Pick a dot from the menu."
            )
        menu = self._ends_menu(game, start, arg=dots.dot_name(start))
        await reply_private(
            interaction,
            f"Your {state.direction} line starts at {dots.dot_name(start)}. Where does it end?",
            view=components(menu),
        )

    @staticmethod
    def _check_turn(game: Loaded, user_id: int, version: int | None) -> dots.State:
        row = game.row
        if not row.live:
            raise GameOver(f"Game #{row.id} is over. Start a new one with /dots new.")
        if game.state is None:
            raise IllegalMove(f"Game #{row.id} has not started yet: the host starts it from the lobby.")
        seat = row.seat_of(user_id)
        if seat is None:
            raise NotAPlayer(
                f"You are not playing in game #{row.id}. Wait for the next one, or start your own "
                "in a thread."
            )
        if version != row.version:
            raise StaleButton(
                "That board is out of date: the game has moved on. Use the latest board "
                "(or /game status to see it)."
            )
        state: dots.State = game.state
        if seat != state.turn:
            raise NotYourTurn(f"It is {mention(row.seats[state.turn])}'s turn, not yours.")
        return state

    # ---- slash commands ---------------------------------------------------------------------------

    @app_commands.command(name="new", description="Open a Lines By The Dots lobby in this channel")
    @app_commands.describe(size="Dots per side of the square grid (3-10, default 5)", timeout=TIMEOUT_HELP)
    @app_commands.autocomplete(timeout=timeout_autocomplete)
    async def new(
        self,
        interaction: discord.Interaction,
        size: app_commands.Range[int, 3, 10] = 5,
        timeout: app_commands.Range[str, 1, 40] | None = None,
    ) -> None:
        await self.open_lobby(interaction, timeout, size=size)

    @app_commands.command(name="line", description="Draw the line you owe now")
    @app_commands.rename(from_="from")
    @app_commands.describe(
        to="The dot your line ends at, like C4",
        from_="Only for the first line of the game or a fallback line: the dot it starts at",
    )
    async def line(self, interaction: discord.Interaction, to: str, from_: str | None = None) -> None:
        game = await self.game_here(interaction)
        start = from_.strip().upper() if from_ and from_.strip() else None
        await self.act(interaction, game.id, {"type": "line", "to": to.strip().upper(), "from": start})

    async def _live_state(self, interaction: discord.Interaction) -> dots.State | None:
        if interaction.channel_id is None:
            return None
        row = await self.bot.storage.live_game_in_channel(channel_id=interaction.channel_id)
        if row is None or row.kind != self.name or row.state is None:
            return None
        state = dots.State.from_dict(row.state)
        return None if state.finished else state

    @line.autocomplete("to")
    async def line_to(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        state = await self._live_state(interaction)
        if state is None:
            return []
        starts = dots.legal_starts(state)
        typed_from = getattr(interaction.namespace, "from", None)
        if len(starts) > 1 and isinstance(typed_from, str):
            try:
                chosen = dots.parse_dot(typed_from, state.size)
            except BadInput:
                chosen = None
            if chosen in starts:
                starts = (chosen,)
        ends: dict[dots.Dot, list[dots.Dot]] = {}
        for start in starts:
            for end in dots.legal_ends(state, start):
                ends.setdefault(end, []).append(start)
        prefix = current.strip().upper()
        choices = []
        for end in sorted(ends):
            name = dots.dot_name(end)
            if not name.startswith(prefix):
                continue
            froms = ends[end]
            label = name
            if len(froms) == 1:
                label += f" ({state.direction} line from {dots.dot_name(froms[0])})"
            choices.append(app_commands.Choice(name=label, value=name))
        return choices[:SELECT_MAX]

    @line.autocomplete("from_")
    async def line_from(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        state = await self._live_state(interaction)
        o = None if state is None else dots.owed(state)
        if state is None or o is None or not o.needs_from:
            return []  # the line starts where the last one ended: no from
        prefix = current.strip().upper()
        choices = []
        for start in dots.legal_starts(state):
            name = dots.dot_name(start)
            if name.startswith(prefix):
                ends = ", ".join(dots.dot_name(d) for d in dots.legal_ends(state, start))
                choices.append(app_commands.Choice(name=f"{name} (to {ends})"[:100], value=name))
        return choices[:SELECT_MAX]


async def setup(bot: QuetBot) -> None:
    cog = Dots(bot)
    await bot.add_cog(cog)
    bot.register_game(cog)
