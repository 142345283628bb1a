"""/divisors: the Numerical Card Game, secret card picks in round-robin pairings.

Rules in bot/games/divisors.py. A player's fresh pile and pending card are secrets: they only appear in
that player's panel (DM, or ephemeral through the **My move** button and /divisors pile) and private
answers. The channel learns who has chosen (a line of text) and, once both cards of a pairing are in,
the reveal and a new board drawn from the public view.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from math import gcd
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.errors import BadInput
from bot.gamecog import (
    TIMEOUT_HELP,
    GameCog,
    Panel,
    forfeit_text,
    join_words,
    mention,
    timeout_autocomplete,
)
from bot.games import divisors
from bot.games.base import Action
from bot.games.divisors import Result
from bot.render.divisors import render_board
from bot.service import Loaded, MoveResult
from bot.ui import ComponentId, custom_id, select

if TYPE_CHECKING:
    from bot.app import QuetBot

log = logging.getLogger(__name__)

_TYPED_CARD = re.compile(r"(?:card\s*)?#?\s*(\d{1,3})", re.IGNORECASE)

END_RULE = {divisors.END_DEAD: "dead", divisors.END_NO_PROGRESS: "no progress"}


def cards(count: int) -> str:
    return "1 card" if count == 1 else f"{count} cards"


def card_label(value: int, count: int) -> str:
    return f"{value} ×{count}" if count > 1 else str(value)


def result_text(result: Result, poss: Callable[[int], str], obj: Callable[[int], str]) -> str:
    """A settled pairing in words: "@A's **3** against @B's **12**: 3 divides 12, +2 to @A; ..."

    ``poss(seat)`` names a seat as an owner ("@A's", "your"), ``obj(seat)`` as an object ("@A", "you").
    """
    a, b = result.seats
    if result.cards is None:
        return f"the pairing of {obj(a)} and {obj(b)} was called off: nothing was revealed"
    ca, cb = result.cards
    head = f"{poss(a)} **{ca}** against {poss(b)} **{cb}**"
    if result.label == "equal":
        why = "equal cards, +2 each"
    elif result.label == "one":
        holder = a if ca == 1 else b
        why = f"a 1, +2 to {obj(holder)}"
    elif result.label == "divides":
        small, big = sorted((ca, cb))
        holder = a if ca == small else b
        why = f"{small} divides {big}, +2 to {obj(holder)}"
    elif result.label == "shared factor":
        why = f"common factor {gcd(ca, cb)}, +1 each"
    else:
        why = "coprime, no points"
    where = (
        "the cards are exchanged into the fresh piles"
        if result.kind == divisors.EXCHANGE
        else "both cards go to the moldy piles"
    )
    return f"{head}: {why}; {where}"


def parse_card(text: str) -> int:
    """A typed card value: "7", "card 7", "#7"."""
    m = _TYPED_CARD.fullmatch(text.strip())
    if m is None:
        raise BadInput(
            f"I could not read {text.strip()[:30]!r} as a card. Reply with the number of a card from your "
            "fresh pile, for example 5."
        )
    return int(m[1])


@app_commands.guild_only()
class Divisors(
    GameCog, group_name="divisors", group_description="The Numerical Card Game: divisors, secret cards"
):
    rules = divisors
    secret = True
    mine_label = "My move"

    def render(self, view: Any, names: tuple[str, ...]) -> bytes:
        return render_board(view, names)

    # ---- what the channel reads ---------------------------------------------------------------------

    @staticmethod
    def _round_text(seats: tuple[int, ...], state: divisors.State, event: dict[str, Any]) -> str:
        pairs = [f"{mention(seats[a])} against {mention(seats[b])}" for a, b in event["pairings"]]
        paired = {s for p in event["pairings"] for s in p}
        idle = [mention(seats[s]) for s in state.in_play() if s not in paired]
        tail = f" ({join_words(idle)} {'sits' if len(idle) == 1 else 'sit'} out)" if idle else ""
        return f"Cycle {event['cycle']}, round {event['round']}: {join_words(pairs)}{tail}."

    def start_note(self, game: Loaded) -> str:
        state: divisors.State = game.state
        seats = game.row.seats
        rounds = [e for e in state.events if e["type"] == "round"]
        first = self._round_text(seats, state, rounds[0]) if rounds else ""
        return (
            f"Everyone's fresh pile (cards 1-{state.m}) is in their DMs, seen only by them (or press "
            f"**{self.mine_label}**). {first}\nChoose your card from the DM menu, by replying to my DM "
            "with its value, or with `/divisors pick`. Picks stay secret until both cards of a pairing "
            "are in; `/divisors drop` leaves the game (your score still counts)."
        )

    def quiet(self, result: MoveResult) -> bool:
        events = result.after.state.events
        return bool(events) and all(e["type"] == "picked" for e in events)

    def describe(self, result: MoveResult) -> str:
        state: divisors.State = result.after.state
        seats = result.after.row.seats
        before = divisors.view_for(result.before.state, None)

        def who(seat: int) -> str:
            return mention(seats[seat])

        revealed = {s for e in state.events if e["type"] == "resolved" for s in e["seats"]}
        lines: list[str] = []
        for event in state.events:
            kind = event["type"]
            if kind == "picked" and event["seat"] not in revealed:
                lines.append(f"{who(event['seat'])} has chosen a card.")
            elif kind == "resolved":
                result_ = Result.from_dict(event)
                lines.append("Revealed: " + result_text(result_, lambda s: f"{who(s)}'s", who) + ".")
            elif kind == "void":
                a, b = event["seats"]
                lines.append(
                    f"The pairing of {who(a)} and {who(b)} is called off: nothing is revealed, and a card "
                    "already chosen stays in its owner's fresh pile."
                )
            elif kind == "out":
                seat, reason = event["seat"], event["reason"]
                score = state.scores[seat]
                if reason == divisors.EMPTY:
                    lines.append(f"{who(seat)}'s fresh pile is empty: out of play, keeping {score} points.")
                elif reason == divisors.DROPPED:
                    lost = before.fresh_counts[seat]
                    lines.append(
                        f"{who(seat)} dropped out, keeping {score} points (and a chance to win); "
                        f"their {lost} fresh cards leave play."
                    )
                else:
                    lost = before.fresh_counts[seat]
                    tail = f" Their {lost} fresh cards leave play." if lost else ""
                    lines.append(
                        f"{forfeit_text(result)}{tail} Their score stays on the board but cannot win."
                    )
            elif kind == "round":
                lines.append(self._round_text(seats, state, event))
            elif kind == "end" and event["reason"] in END_RULE:
                # The outcome line under it says why the rule fired.
                lines.append(f"The termination rule **{END_RULE[event['reason']]}** ends the game.")
        return "\n".join(lines) or f"{who(result.seat)} moved."

    # ---- what one player sees ------------------------------------------------------------------------

    def panel(self, game: Loaded, seat: int) -> Panel:
        state: divisors.State = game.state
        view = divisors.view_for(state, seat)
        seats = game.row.seats

        def poss(s: int) -> str:
            return "your" if s == seat else f"{mention(seats[s])}'s"

        def obj(s: int) -> str:
            return "you" if s == seat else mention(seats[s])

        status = view.status[seat]
        score = view.scores[seat]
        last = [r for r in (*reversed(view.results), *reversed(view.last_results)) if seat in r.seats]
        last_line = f"Your last pairing: {result_text(last[0], poss, obj)}." if last else ""
        if view.outcome is not None:
            lines = [f"The game is over: see the channel for the result. Your final score: {score}."]
            return Panel("\n".join([*lines, last_line] if last_line else lines))
        if status == divisors.DROPPED:
            return Panel(
                f"You dropped out of this game: you play no more cards, and your score ({score}) counts."
            )
        if status == divisors.FORFEITED:
            return Panel("You left this game.")
        if status == divisors.EMPTY:
            return Panel(f"Your fresh pile is empty, so you are out of play. Your score, {score}, counts.")
        pile = " · ".join(card_label(v, c) for v, c in view.hand)
        lines = [
            f"Your fresh pile ({cards(view.fresh_counts[seat])}): {pile}",
            f"Score: {score} · moldy pile: {cards(view.moldy_counts[seat])}",
        ]
        if last_line:
            lines.append(last_line)
        items: list[discord.ui.Item[Any]] = []
        pairing = divisors.pairing_of(state, seat)
        if pairing is None:
            waiting = [mention(seats[s]) for s in sorted(view.to_act)]
            lines.append(
                f"You sit out the rest of this round (cycle {view.cycle}, round {view.round}); "
                f"waiting for {join_words(waiting)}."
            )
        else:
            other = pairing[1] if pairing[0] == seat else pairing[0]
            if view.pending is None:
                lines.append(
                    f"**Your pairing: you against {mention(seats[other])}.** Choose your card from the menu, "
                    "or reply here with its value (or use `/divisors pick`). It stays secret until both "
                    "cards are in."
                )
                options = [
                    discord.SelectOption(
                        label=card_label(v, c),
                        value=str(v),
                        description=f"{c} cards of {v} in your pile" if c > 1 else None,
                    )
                    for v, c in view.hand
                ]
                items.append(select(custom_id(game.id, "pick"), options, placeholder="Your card"))
            else:
                lines.append(
                    f"You picked **{view.pending}** against {mention(seats[other])} (only you know it); "
                    f"waiting for {mention(seats[other])}'s card."
                )
        return Panel("\n".join(lines), items)

    def confirm(self, result: MoveResult) -> str:
        action = result.action
        state: divisors.State = result.after.state
        if action["type"] == "pick":
            if any(e["type"] == "resolved" and result.seat in e["seats"] for e in state.events):
                return "✅ Both cards are in."
            return f"✅ Your card **{action['card']}** is in (only you know it)."
        if action["type"] == "drop":
            return (
                f"You dropped out of game #{result.after.id}. Your score, {state.scores[result.seat]}, still "
                "counts (and can win); your fresh cards leave play."
            )
        return super().confirm(result)

    async def notify(self, result: MoveResult) -> None:
        """DM a fresh panel to every other player whose situation changed: newly asked for a card, asked
        for a card in a new pairing (a new round), or no longer asked (their pairing was called off).
        The framework's rule (only players newly asked) would leave a panel showing a stale pairing.
        Once the game is over, every other player's DM panel becomes its final form, without controls.
        """
        before: divisors.State | None = result.before.state
        after: divisors.State = result.after.state
        others = [s for s in range(after.n_players) if s != result.seat]
        if not result.after.row.live:
            await super().notify(result)  # every DM panel in its final form
            return
        if before is None:
            return
        acting_before, acting_after = divisors.to_act(before), divisors.to_act(after)

        def stance(state: divisors.State, acting: frozenset[int], seat: int) -> tuple[Any, ...]:
            return (seat in acting, divisors.pairing_of(state, seat), state.round_no)

        changed = [
            s
            for s in others
            if (s in acting_before or s in acting_after)
            and stance(before, acting_before, s) != stance(after, acting_after, s)
        ]
        await self.send_panels(result.after, changed)

    # ---- typed answers and controls ------------------------------------------------------------------

    def awaits_typed(self, game: Loaded, seat: int) -> bool:
        return seat in divisors.to_act(game.state)

    def typed_action(self, game: Loaded, seat: int, text: str) -> Action:
        return {"type": "pick", "card": parse_card(text)}

    async def on_component(
        self, interaction: discord.Interaction, game: Loaded, cid: ComponentId, values: list[str]
    ) -> None:
        if cid.verb == "pick" and values and values[0].isdigit():
            await self.act(interaction, game.id, {"type": "pick", "card": int(values[0])})
            return
        await super().on_component(interaction, game, cid, values)

    # ---- slash commands ------------------------------------------------------------------------------

    @app_commands.command(
        name="new", description="Open a Numerical Card Game lobby in this channel (2-8 players)"
    )
    @app_commands.describe(m="Each player's cards run from 1 to m (2-25, default 12)", timeout=TIMEOUT_HELP)
    @app_commands.autocomplete(timeout=timeout_autocomplete)
    async def new(
        self,
        interaction: discord.Interaction,
        m: app_commands.Range[int, 2, 25] = 12,
        timeout: app_commands.Range[str, 1, 40] | None = None,
    ) -> None:
        await self.open_lobby(interaction, timeout, m=m)

    @app_commands.command(name="pick", description="Secretly choose the card for your pairing")
    @app_commands.describe(card="A card from your fresh pile (only you see your choice)")
    async def pick(self, interaction: discord.Interaction, card: app_commands.Range[int, 1, 25]) -> None:
        game = await self.game_here(interaction)
        await self.act(interaction, game.id, {"type": "pick", "card": card})

    @pick.autocomplete("card")
    async def pick_card(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[int]]:
        found = await self.caller_seat(interaction)
        if found is None:
            return []
        state, seat = found
        hand = divisors.view_for(state, seat).hand
        typed = str(current).strip()
        return [
            app_commands.Choice(name=f"{v} (you hold {c})" if c > 1 else str(v), value=v)
            for v, c in hand
            if str(v).startswith(typed)
        ][:25]

    @app_commands.command(name="drop", description="Drop out of the game: your score still counts")
    async def drop(self, interaction: discord.Interaction) -> None:
        game = await self.game_here(interaction)
        await self.act(interaction, game.id, {"type": "drop"})

    @app_commands.command(name="pile", description="Your fresh pile and your pairing (only you see them)")
    async def pile(self, interaction: discord.Interaction) -> None:
        await self.show_panel(interaction, await self.game_here(interaction))


async def setup(bot: QuetBot) -> None:
    cog = Divisors(bot)
    await bot.add_cog(cog)
    bot.register_game(cog)
