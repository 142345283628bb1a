"""/numbers: two players' simultaneous secret numbers write a binary list. Rules in bot/games/numbers.py.

A pick is a quiet move: the channel reads "X has picked", never the number, and no new board. The pick
that completes a move posts the board with both numbers revealed (and, at a round's end, D and the
points). Everything said about a pending pick is built from `numbers.view_for`, whose public view (and
the other seat's view) holds only whether a seat has picked: the channel, the image, the custom ids and
the other player's DMs cannot carry it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.errors import GameError, GameOver, IllegalMove
from bot.gamecog import (
    TIMEOUT_HELP,
    GameCog,
    Panel,
    forfeit_text,
    mention,
    timeout_autocomplete,
)
from bot.games import numbers
from bot.games.base import Action
from bot.render.numbers import render_board
from bot.service import Loaded, MoveResult
from bot.ui import ComponentId, button, custom_id, send_modal

if TYPE_CHECKING:
    from bot.app import QuetBot

D_BINARY_MAX = 16  # list D's members in binary too when it has at most this many


def ranges_text(values: tuple[int, ...] | list[int]) -> str:
    """Ascending integers, runs of three or more written as a range: ``1-4, 6, 8-10``."""
    parts: list[str] = []
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[j] + 1:
            j += 1
        if j - i >= 2:
            parts.append(f"{values[i]}-{values[j]}")
        else:
            parts.extend(str(v) for v in values[i : j + 1])
        i = j + 1
    return ", ".join(parts)


def number_text(value: int, m: int) -> str:
    return f"**{value}** (`{numbers.binary(value, m)}`)"


def d_text(symbols: str, d: tuple[int, ...] | list[int], m: int) -> str:
    """D in decimal (every member; runs as ranges) and in binary (each member while few, else the
    pattern they all match)."""
    members = "{" + ranges_text(list(d)) + "}"
    if len(d) <= D_BINARY_MAX:
        in_binary = ", ".join(f"`{numbers.binary(v, m)}`" for v in d)
    else:
        in_binary = f"every {m}-digit binary number matching `{symbols}`"
    count = "1 number" if len(d) == 1 else f"{len(d)} numbers"
    return f"D = {members} ({count}); in binary {in_binary}"


def _pending_line(view: numbers.View, names: tuple[int, ...], seat: int) -> str:
    other = 1 - seat
    who = mention(names[other])
    return f"{who} has picked (hidden until you pick too)." if view.picked[other] else f"{who} is picking."


@app_commands.guild_only()
class Numbers(
    GameCog, group_name="numbers", group_description="Numbers To Number: secret numbers write a binary list"
):
    rules = numbers
    secret = True
    mine_label = "My move"

    def render(self, view: Any, names: tuple[str, ...]) -> bytes:
        return render_board(view, names)

    # ---- what the channel reads ---------------------------------------------------------------------

    def start_note(self, game: Loaded) -> str:
        m = game.state.m
        return (
            f"{game.state.n_rounds} rounds of {m} moves. Each move, both of you secretly pick a number "
            f"from 1 to {numbers.largest(m)} you have not played yet, with the DM I sent you, a DM reply, "
            f"`/numbers pick` or the **{self.mine_label}** button. The channel only learns who has "
            "picked; both numbers are revealed together."
        )

    def quiet(self, result: MoveResult) -> bool:
        events = result.after.state.events
        return bool(events) and all(e["type"] == "picked" for e in events)

    def describe(self, result: MoveResult) -> str:
        state: numbers.State = result.after.state
        seats = result.after.row.seats
        m = state.m
        lines: list[str] = []
        events = state.events
        revealed = any(e["type"] == "reveal" for e in events)
        for event in events:
            kind = event["type"]
            if kind == "picked" and not revealed:
                # Only who, never what: this line is posted while the pick is still secret.
                lines.append(f"{mention(seats[event['seat']])} has picked.")
            elif kind == "reveal":
                a, b = event["numbers"]
                lines.append(
                    f"Move {event['move'] + 1} of round {event['round'] + 1}: "
                    f"{mention(seats[0])} {number_text(a, m)} · {mention(seats[1])} {number_text(b, m)} "
                    f"→ `{event['symbol']}`. The list: `{event['list']}`"
                )
            elif kind == "round_end":
                lines.extend(self._round_end_lines(event, state, seats))
            elif kind == "forfeit":
                lines.append(forfeit_text(result))
        return "\n".join(lines) or f"{mention(seats[result.seat])} moved."

    @staticmethod
    def _round_end_lines(event: dict[str, Any], state: numbers.State, seats: tuple[int, ...]) -> list[str]:
        m, number = state.m, event["round"] + 1
        lines = [f"**Round {number} of {state.n_rounds} is over.** The list `{event['list']}`: "]
        lines[0] += d_text(event["list"], event["d"], m) + "."
        scores = []
        for seat in (0, 1):
            got = event["scoring"][seat]
            points = f"{len(got)} point" + ("" if len(got) == 1 else "s")
            scores.append(
                f"{mention(seats[seat])} {points}" + (f" ({', '.join(map(str, got))})" if got else "")
            )
        totals = event["totals"]
        lines.append(
            f"This round: {scores[0]}; {scores[1]}. "
            f"Totals: {mention(seats[0])} {totals[0]}, {mention(seats[1])} {totals[1]}."
        )
        if number < state.n_rounds and not state.finished:
            lines.append(f"Round {number + 1} begins with an empty list.")
        return lines

    # ---- what one player sees ------------------------------------------------------------------------

    def panel(self, game: Loaded, seat: int) -> Panel:
        view = numbers.view_for(game.state, seat)
        names = game.row.seats
        other = 1 - seat
        you_them = f"you {view.totals[seat]} · {mention(names[other])} {view.totals[other]}"
        if view.outcome is not None:
            return Panel(f"The game is over. Totals: {you_them}. The result is in the channel.")
        if seat in view.forfeited:
            return Panel("You left this game.")
        m, move = view.m, len(view.moves) + 1
        lines = [
            f"Round {view.round + 1} of {view.n_rounds} · move {move} of {m} · numbers 1 to "
            f"{numbers.largest(m)} · you are player {seat + 1}"
        ]
        last = view.last_round
        if not view.moves and last is not None:
            lines.append(
                f"Round {view.round} ended: the list `{last.symbols}`, "
                f"{d_text(last.symbols, last.d, m)}. You scored {last.points[seat]}, "
                f"{mention(names[other])} {last.points[other]}."
            )
        if view.moves:
            pairs = " · ".join(
                f"{i + 1}: you {mv[seat]}, them {mv[other]} → `{numbers.symbol(*mv)}`"
                for i, mv in enumerate(view.moves)
            )
            lines.append(
                f"The list so far: `{view.symbols}` (1: player 1's number larger, 0: smaller, _: equal). "
                f"Moves {pairs}"
            )
        lines.append(f"Totals: {you_them}.")
        items: list[discord.ui.Item[Any]] = []
        if view.my_pick is not None:
            lines.append(
                f"Your pick for move {move}: {number_text(view.my_pick, m)} (final). "
                f"Waiting for {mention(names[other])} to pick."
            )
        else:
            lines.append(
                f"**Your pick for move {move}, please:** a number from 1 to {numbers.largest(m)} you have "
                "not played yet. Press **Pick** or simply reply here with the number."
            )
            lines.append(_pending_line(view, names, seat))
            items.append(button("Pick", custom_id(game.id, "pick"), style=discord.ButtonStyle.primary))
        if view.available is not None:
            lines.append(f"Yours still to play ({len(view.available)}): {ranges_text(view.available)}")
        return Panel("\n".join(lines), items)

    def confirm(self, result: MoveResult) -> str:
        if result.action.get("type") != "pick":
            return super().confirm(result)
        state: numbers.State = result.after.state
        other = 1 - result.seat
        reveal = next((e for e in state.events if e["type"] == "reveal"), None)
        mine = number_text(int(result.action["number"]), state.m)
        if reveal is None:
            return f"✅ Your pick {mine} is in (final; nobody else sees it until both picks are in)."
        theirs = number_text(reveal["numbers"][other], state.m)
        return (
            f"✅ You picked {mine}, {mention(result.after.row.seats[other])} picked {theirs} "
            f"→ `{reveal['symbol']}`."
        )

    # ---- typed answers, controls and forms -----------------------------------------------------------

    def awaits_typed(self, game: Loaded, seat: int) -> bool:
        return seat in numbers.to_act(game.state)

    def typed_action(self, game: Loaded, seat: int, text: str) -> Action:
        return {"type": "pick", "number": numbers.parse_number(text, game.state.m)}

    def not_waiting_reason(self, game: Loaded, seat: int) -> str | None:
        try:
            self._require_picking(game, seat)
        except GameError as exc:
            return exc.message
        return None

    def _require_picking(self, game: Loaded, seat: int) -> None:
        """Refuse before opening a form that could not be used."""
        state: numbers.State | None = game.state
        if not game.row.live or state is None or state.finished:
            raise GameOver(f"Game #{game.id} is over. Start a new one with /numbers new.")
        mine = state.pending[seat]
        if mine is not None:
            raise IllegalMove(
                f"You already picked {mine} for this move, and a pick is final. "
                f"Waiting for {mention(game.row.seats[1 - seat])} to pick."
            )

    async def on_component(
        self, interaction: discord.Interaction, game: Loaded, cid: ComponentId, values: list[str]
    ) -> None:
        if cid.verb != "pick":
            await super().on_component(interaction, game, cid, values)
            return
        seat = self.seat_of(game, interaction.user.id)
        self._require_picking(game, seat)
        top = numbers.largest(game.state.m)
        example = top // 2 + 1
        field: discord.ui.TextInput[Any] = discord.ui.TextInput(
            label=f"A number from 1 to {top} you have not played",
            custom_id="number",
            placeholder=f"for example {example} (or in binary: 0b{numbers.binary(example, game.state.m)})",
            max_length=20,
        )
        await send_modal(interaction, f"Your number · game #{game.id}", custom_id(game.id, "pick"), field)

    async def on_modal(
        self, interaction: discord.Interaction, game: Loaded, cid: ComponentId, fields: dict[str, str]
    ) -> None:
        if cid.verb != "pick":
            await super().on_modal(interaction, game, cid, fields)
            return
        seat = self.seat_of(game, interaction.user.id)
        self._require_picking(game, seat)
        number = numbers.parse_number(fields.get("number", ""), game.state.m)
        await self.act(interaction, game.id, {"type": "pick", "number": number})

    # ---- slash commands ------------------------------------------------------------------------------

    @app_commands.command(
        name="new", description="Open a Numbers To Number lobby in this channel (2 players)"
    )
    @app_commands.describe(
        m="Moves per round; numbers go from 1 to 2^m - 1 (3-8, default 6)", timeout=TIMEOUT_HELP
    )
    @app_commands.autocomplete(timeout=timeout_autocomplete)
    async def new(
        self,
        interaction: discord.Interaction,
        m: app_commands.Range[int, 3, 8] = 6,
        timeout: app_commands.Range[str, 1, 40] | None = None,
    ) -> None:
        await self.open_lobby(interaction, timeout, m=m)

    @app_commands.command(name="pick", description="Pick your secret number for this move (final)")
    @app_commands.describe(number="A number from 1 to 2^m - 1 you have not played yet; only you see it")
    async def pick(self, interaction: discord.Interaction, number: app_commands.Range[int, 1, 255]) -> None:
        game = await self.game_here(interaction)
        await self.act(interaction, game.id, {"type": "pick", "number": number})

    @pick.autocomplete("number")
    async def pick_number(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[int]]:
        """The caller's own unused numbers (nothing when they have picked for this move)."""
        found = await self.caller_seat(interaction)
        if found is None:
            return []
        state, seat = found
        if seat not in numbers.to_act(state):
            return []
        typed = str(current).strip()
        return [
            app_commands.Choice(name=f"{k} ({numbers.binary(k, state.m)})", value=k)
            for k in numbers.available(state, seat)
            if str(k).startswith(typed)
        ][:25]

    @app_commands.command(name="mine", description="Your numbers and your pick (only you see them)")
    async def mine(self, interaction: discord.Interaction) -> None:
        await self.show_panel(interaction, await self.game_here(interaction))


async def setup(bot: QuetBot) -> None:
    cog = Numbers(bot)
    await bot.add_cog(cog)
    bot.register_game(cog)
