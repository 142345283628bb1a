"""/tournament: open a sign-up (`new`), see the table (`standings`), withdraw (`leave`), call it off
(`cancel`); and the sign-up card's buttons (Join, Leave, Start, Cancel, Standings).

Everything a tournament does is the service's (`bot.events.tournaments.Tournaments`): it commits
before anyone is answered, and the durable posts it owes (the card kept up to date, each round's
announcement, the final post) are carried by the tournament desk, with the text of
cogs/tournament/present.py. A click on the card is answered by editing the card at once; the desk's
own edit of it follows with the same text.
"""

from __future__ import annotations

import logging

import discord
from discord import app_commands
from discord.ext import commands

import cogs.tournament.present as present
from bot.deadlines import parse_timeout
from bot.errors import BadInput, GameError, NoGameHere
from bot.events.pairing import MAX_PLAYERS
from bot.events.tournaments import FORMATS, ROUND_ROBIN, SWISS, TournamentRow, Tournaments
from bot.i18n.audience import Audiences, reader
from bot.registry import RULES_TEXT, rules_for
from bot.table.commands import TIMEOUT_HELP, Timeout, timeout_autocomplete
from bot.table.ids import ComponentId
from bot.table.lobby import channel_of
from bot.table.replies import NO_PINGS, mention, reply_private, within_time
from bot.table.routing import Router
from bot.table.tournaments import TournamentDesk
from cogs.tournament.present import TournamentPresenter

log = logging.getLogger(__name__)

GAME_CHOICES = [app_commands.Choice(name=text.title, value=key) for key, text in RULES_TEXT.items()]
FORMAT_CHOICES = [
    app_commands.Choice(name="round-robin: everyone plays everyone once", value=ROUND_ROBIN),
    app_commands.Choice(name="swiss: rounds paired by score", value=SWISS),
]
assert {c.value for c in FORMAT_CHOICES} == set(FORMATS)
# The games' own options, one slash option each, with the widest range of any game that has it; the
# chosen game's own range is checked when the command arrives (`game_options`).
Rounds = app_commands.Range[int, 1, MAX_PLAYERS - 1]
OptionValue = app_commands.Range[int, 2, 25]
TournamentId = app_commands.Range[int, 1]  # (no maximum: ids are small)
TableSize = app_commands.Range[int, 2, 10]  # (the game's own player counts are checked by the service)


def game_options(kind: str, given: dict[str, int | None]) -> dict[str, int]:
    """The options of game ``kind`` among those given (None: not given): each in the game's own range;
    one the game does not have is refused."""
    rules = rules_for(kind)
    own = {option.name: option for option in rules.OPTIONS}
    chosen: dict[str, int] = {}
    for name, value in given.items():
        if value is None:
            continue
        option = own.get(name)
        if option is None:
            raise BadInput(
                "{title} has no option {option}: leave it out.", title=rules.TITLE, option=f"`{name}`"
            )
        if not option.allows(value):
            raise BadInput(
                "In {title}, {option} runs from {low} to {high}.",
                title=rules.TITLE,
                option=f"`{name}`",
                low=option.min,
                high=option.max,
            )
        chosen[name] = value
    return chosen


def places_of(interaction: discord.Interaction) -> list[int]:
    """Where a command was used: the channel, and when it is a thread (a tournament game's), the
    channel the thread is in (the tournament's)."""
    places = [channel_of(interaction)]
    parent = getattr(interaction.channel, "parent_id", None)
    if isinstance(parent, int):
        places.append(parent)
    return places


def pick(rows: list[TournamentRow], *, what: str) -> TournamentRow:
    """The one tournament a command without an id means; several: say which ids to choose from."""
    if not rows:
        if what == "leave":
            raise NoGameHere("You are in no tournament here that you could leave.")
        raise NoGameHere("There is no tournament in this channel. Open one with /tournament new.")
    live = [r for r in rows if r.status in ("signup", "running")] or rows
    if len(live) > 1 and what != "standings":
        raise BadInput(
            "There are several tournaments here: #{ids}. Give the number with tournament_id.",
            ids=", #".join(str(r.id) for r in live),
        )
    return live[0]


@app_commands.guild_only()
class TournamentCommands(
    commands.GroupCog, group_name="tournament", group_description="Tournaments: rounds of ordinary games"
):
    def __init__(self, tournaments: Tournaments, audiences: Audiences, router: Router) -> None:
        self.tournaments, self.audiences, self.router = tournaments, audiences, router
        self.presenter = TournamentPresenter(audiences, router)
        for verb in present.VERBS:
            router.on_page(verb, self.on_click)
        super().__init__()

    # ---- opening --------------------------------------------------------------------------------

    @app_commands.command(name="new", description="Open a tournament's sign-up in this channel")
    @app_commands.describe(
        game="Which game is played",
        format="round-robin: everyone plays everyone; swiss: rounds paired by score",
        rounds="Swiss only: how many rounds (default: enough to find a winner)",
        n="Procession: how many digits the row has (2-12, default 6)",
        m="Numbers To Number: moves per round (3-8); The Numerical Card Game: cards up to m (2-25)",
        size="Lines By The Dots: dots per side (3-10, default 5)",
        players="Players per game: 2 (default), or more for tables seated by score",
        timeout=TIMEOUT_HELP,
    )
    @app_commands.choices(game=GAME_CHOICES, format=FORMAT_CHOICES)
    @app_commands.autocomplete(timeout=timeout_autocomplete)
    async def new(
        self,
        interaction: discord.Interaction,
        game: str,
        format: str,
        rounds: Rounds | None = None,
        n: OptionValue | None = None,
        m: OptionValue | None = None,
        size: OptionValue | None = None,
        players: TableSize = 2,
        timeout: Timeout = None,
    ) -> None:
        options = game_options(game, {"n": n, "m": m, "size": size})
        opening = self.tournaments.open(
            kind=game,
            format=format,
            guild_id=interaction.guild_id,
            channel_id=channel_of(interaction),
            host_id=interaction.user.id,
            host_name=interaction.user.display_name,
            options=options,
            rounds=rounds,
            table_size=players,
            timeout_s=parse_timeout(timeout),
            token=interaction.token,
        )
        row, deferred = await within_time(interaction, opening, ephemeral=False)
        snap = await self.tournaments.snapshot(row.id)
        post = await self.presenter.card(snap)
        view = post.view if post.view is not None else discord.utils.MISSING
        try:
            if deferred:
                sent = await interaction.edit_original_response(
                    content=post.content, view=post.view, allowed_mentions=NO_PINGS
                )
                message_id: int | None = sent.id
            else:
                response = await interaction.response.send_message(
                    post.content, view=view, allowed_mentions=NO_PINGS
                )
                message_id = response.message_id
        except discord.NotFound:  # Discord forgot the command: the desk posts the card itself
            log.info("Tournament %s: the command was forgotten; the desk posts its card", row.id)
            return
        if message_id is not None:
            await self.tournaments.set_card(row.id, message_id)

    # ---- the standings --------------------------------------------------------------------------

    @app_commands.command(name="standings", description="A tournament's standings (only you see them)")
    @app_commands.describe(tournament_id="Which tournament (default: this channel's)")
    async def standings(
        self, interaction: discord.Interaction, tournament_id: TournamentId | None = None
    ) -> None:
        row = await self._which(interaction, tournament_id, what="standings")
        await self.show_standings(interaction, row.id)

    async def show_standings(self, interaction: discord.Interaction, tournament_id: int) -> None:
        snap = await self.tournaments.snapshot(tournament_id)
        if snap.tournament.guild_id != interaction.guild_id:
            raise NoGameHere(
                "There is no tournament #{tournament_id} on this server.", tournament_id=tournament_id
            )
        lang = reader(interaction)
        text = present.heading(snap.tournament, lang)
        if snap.tournament.status == "signup":
            text += "\n" + lang.t("It has not started yet: the standings begin with its first round.")
        file = present.standings_file(snap, lang, you=interaction.user.id)
        await reply_private(interaction, text, file=file)

    # ---- withdrawing and cancelling -------------------------------------------------------------

    @app_commands.command(
        name="leave", description="Leave a tournament's sign-up, or withdraw from it (your games are lost)"
    )
    @app_commands.describe(tournament_id="Which tournament (default: yours on this server)")
    async def leave(
        self, interaction: discord.Interaction, tournament_id: TournamentId | None = None
    ) -> None:
        row = await self._which(interaction, tournament_id, what="leave")
        await self._leave(interaction, row)

    @app_commands.command(
        name="cancel", description="Cancel a tournament and its games (its host, or Manage Server)"
    )
    @app_commands.describe(tournament_id="Which tournament (default: this channel's)")
    async def cancel(
        self, interaction: discord.Interaction, tournament_id: TournamentId | None = None
    ) -> None:
        row = await self._which(interaction, tournament_id, what="cancel")
        cancelled = await self.tournaments.cancel(
            row.id, interaction.user.id, can_manage=interaction.permissions.manage_guild
        )
        lang = await self.audiences.server(cancelled.guild_id)  # said in the channel: the server's
        await interaction.response.send_message(
            lang.t(
                "Tournament #{tournament_id} ({title}) was cancelled by {player}; its games still "
                "being played are cancelled too.",
                tournament_id=cancelled.id,
                title=present.title_of(cancelled),
                player=mention(interaction.user.id),
            ),
            allowed_mentions=NO_PINGS,
        )

    async def _which(
        self, interaction: discord.Interaction, tournament_id: int | None, *, what: str
    ) -> TournamentRow:
        """The tournament a command means: the one named, else the caller's (leave) or this channel's."""
        if tournament_id is not None:
            row = await self.tournaments.get(tournament_id)
            if row.guild_id != interaction.guild_id:
                raise NoGameHere(
                    "There is no tournament #{tournament_id} on this server.", tournament_id=tournament_id
                )
            return row
        places = places_of(interaction)
        if what == "leave":
            mine = await self.tournaments.for_player(interaction.user.id, interaction.guild_id)
            here = [r for r in mine if r.channel_id in places]
            return pick(here or mine, what=what)
        for place in places:  # this channel's, or (in a game's thread) its channel's
            found = await self.tournaments.in_channel(place)
            if found:
                return pick(found, what=what)
        return pick([], what=what)

    async def _leave(self, interaction: discord.Interaction, row: TournamentRow) -> None:
        lang = reader(interaction)
        user_id = interaction.user.id
        if row.status == "signup":
            await self.tournaments.leave(row.id, user_id)
            note = lang.t("You left the sign-up of tournament #{tournament_id}.", tournament_id=row.id)
        else:
            after = await self.tournaments.withdraw(row.id, user_id)
            note = lang.t(
                "You withdrew from tournament #{tournament_id} in round {round}: your game being played "
                "is forfeited, your games to come count as won by your opponents, and later rounds "
                "are paired without you.",
                tournament_id=row.id,
                round=after.round,
            )
        await reply_private(interaction, note)

    # ---- the card's buttons -----------------------------------------------------------------------

    async def on_click(self, interaction: discord.Interaction, cid: ComponentId, values: list[str]) -> None:
        """Join, Leave, Start, Cancel and Standings on a tournament's card."""
        del values
        row = await self.tournaments.get(cid.game_id)
        if interaction.guild_id is None or interaction.channel_id != row.channel_id:
            raise GameError("That control belongs to a tournament in another channel.")
        user = interaction.user
        if cid.verb == present.TABLE:
            await self.show_standings(interaction, row.id)
            return
        if cid.verb == present.JOIN:
            await self.tournaments.join(row.id, user.id, user.display_name)
        elif cid.verb == present.LEAVE:
            if row.status != "signup":
                raise BadInput("To withdraw from a tournament that has begun, use /tournament leave.")
            await self.tournaments.leave(row.id, user.id)
        elif cid.verb == present.START:
            await self.tournaments.start(row.id, user.id)
        elif cid.verb == present.CANCEL:
            can_manage = interaction.permissions.manage_guild
            await self.tournaments.cancel(row.id, user.id, can_manage=can_manage)
        await self._redraw(interaction, row.id)

    async def _redraw(self, interaction: discord.Interaction, tournament_id: int) -> None:
        """The click's answer: the card as it is now (the desk edits it too, with the same text)."""
        snap = await self.tournaments.snapshot(tournament_id)
        post = await self.presenter.card(snap)
        try:
            await interaction.response.edit_message(
                content=post.content, view=post.view, allowed_mentions=NO_PINGS
            )
        except discord.NotFound:  # Discord forgot the click: the desk's edit follows all the same
            log.info("Tournament %s: a click was forgotten by Discord", tournament_id)


def cog(
    tournaments: Tournaments, desk: TournamentDesk, audiences: Audiences, router: Router
) -> TournamentCommands:
    """The cog (bot/app.py builds it, with the tournament service); the tournament desk carries its
    posts with this cog's presenter from now on."""
    made = TournamentCommands(tournaments, audiences, router)
    desk.present_with(made.presenter)
    return made
