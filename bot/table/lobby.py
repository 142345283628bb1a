"""Lobbies: the message people join from, and its four actions (Join, Leave, Start, Cancel).

The same actions come from the lobby's buttons and from `/game join|leave|start|cancel`. A button is
answered by editing the lobby message itself (but Start: the outbox's `card` effect edits the card
once, naming the game's thread, which is started after the answer); a command is answered privately,
and the lobby message is brought up to date by the outbox (`lobby`). Starting a game writes its first
board and, in a game with secrets, every player's DM panel as effects of the same transaction.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import discord

from bot.deadlines import parse_timeout
from bot.errors import BadInput, GameError, LobbyError, NotAllowed
from bot.i18n import N_, Lang
from bot.i18n.audience import Audiences, reader
from bot.players import LEVELS
from bot.players.seats import is_computer, is_deleted
from bot.service import Changed, Games, Loaded, LobbyLife
from bot.storage import OutboxItem
from bot.table.boards import Boards
from bot.table.cards import Cards
from bot.table.catalog import Catalog, SomeKind
from bot.table.components import select
from bot.table.effects import Card, Closed, Expired, Lobby, OutboxEffect, Panel, PostCard, Start, Thread
from bot.table.ids import ComponentId, custom_id
from bot.table.notify import Notify
from bot.table.outbox import Context, Done, Outbox, nonce_of
from bot.table.replies import NO_PINGS, mention, reply_private, within_time
from bot.table.routing import ANY_GAME, Router
from bot.table.threads import Places

log = logging.getLogger(__name__)

VERBS = ("join", "leave", "start", "cancel", "addbot", "dropbot", "rematch")
LEVEL_NAMES = {"easy": N_("Easy"), "normal": N_("Normal"), "hard": N_("Hard")}
LEVEL_HELP = {
    "easy": N_("Easy: plays legal moves, without much of a plan"),
    "normal": N_("Normal: plays soundly"),
    "hard": N_("Hard: the strongest it can"),
}


def channel_of(interaction: discord.Interaction) -> int:
    """The channel (or thread) a game command was used in; games do not live in DMs."""
    if interaction.channel_id is None or interaction.guild_id is None:
        raise GameError("Games are played in a server channel (or a thread), not in DMs.")
    return interaction.channel_id


@dataclass(frozen=True)
class Lobbies:
    client: discord.Client
    games: Games
    lobby: LobbyLife
    catalog: Catalog
    router: Router
    outbox: Outbox
    notify: Notify
    audiences: Audiences
    boards: Boards
    cards: Cards
    places: Places

    def __post_init__(self) -> None:
        for verb in VERBS:
            self.router.on_click(ANY_GAME, verb, self.on_click, in_dms=False)

    def message(self, game: Loaded, lang: Lang) -> tuple[str, discord.ui.View | None]:
        """The card's text and controls (see `Cards.payload`), in ``lang``."""
        payload = self.cards.payload(game, lang)
        return payload["content"], payload["view"]

    async def public(self, game: Loaded) -> Lang:
        """The language of the game's public posts (its server's)."""
        return await self.audiences.server(game.row.guild_id)

    # ---- opening ------------------------------------------------------------------------------------

    async def open(
        self,
        interaction: discord.Interaction,
        kind: SomeKind,
        timeout_text: str | None,
        options: dict[str, int],
    ) -> None:
        """A new lobby, its card the command's public answer. When the lobby is slow to write the
        command is deferred first; when Discord has forgotten the command (it came or was answered
        too late) the card is posted in the channel by the outbox instead.

        The card's id is recorded by the outbox (`post_card`, written with the lobby): handed the
        answer's id here, or after a crash finding the answer again through the command's token."""
        channel_id = channel_of(interaction)
        timeout_s = parse_timeout(timeout_text)
        opening = self.lobby.open_lobby(
            effects=[PostCard(token=interaction.token)],
            timeout_s=timeout_s,
            kind=kind.name,
            guild_id=interaction.guild_id,
            channel_id=channel_id,
            host_id=interaction.user.id,
            host_name=interaction.user.display_name,
            options=options,
        )
        changed, deferred = await within_time(interaction, opening, ephemeral=False)
        game = changed.game
        content, view = self.message(game, await self.public(game))
        assert view is not None
        card = Context()
        try:
            if deferred:
                sent = await interaction.edit_original_response(
                    content=content, view=view, allowed_mentions=NO_PINGS
                )
                card.answer = sent.id
            else:
                response = await interaction.response.send_message(
                    content, view=view, allowed_mentions=NO_PINGS
                )
                card.answer = response.message_id
        except discord.NotFound:
            log.info("Game %s: the command was forgotten by Discord; its card goes to the channel", game.id)
            card.forgotten = True
        finally:
            self.outbox.kick(changed.effects, {item.id: card for item in changed.effects})

    # ---- actions ------------------------------------------------------------------------------------

    async def on_click(
        self, interaction: discord.Interaction, game: Loaded, cid: ComponentId, values: list[str]
    ) -> None:
        if cid.verb == "addbot":
            if values:  # the level, chosen from the private menu
                await self.add_computer(interaction, game, values[0])
            else:  # the card's Add computer button: the levels, privately
                await self.offer_levels(interaction, game)
            return
        if cid.verb == "rematch":
            await self.rematch(interaction, game)
            return
        await self.act(interaction, game, cid.verb)

    # ---- rematches ----------------------------------------------------------------------------------

    async def rematch(self, interaction: discord.Interaction, game: Loaded) -> None:
        """A finished game's Rematch button: the first player to click opens a lobby of the same game
        (the game's computers seated again), posted in the channel of the game's card; each other
        player joins it with one click of the same button."""
        user = interaction.user
        changed, opened = await self.lobby.rematch(
            game.id, user.id, user.display_name, opened=[PostCard()], joined=[Lobby()]
        )
        new = changed.game.row
        where = f"<#{new.channel_id}>"
        lang = reader(interaction)
        if opened:
            # (a forgotten person, a placeholder now, can join nothing)
            others = [u for u in game.row.seats if u != user.id and not is_computer(u) and not is_deleted(u)]
            note = lang.t(
                "You opened game #{game_id}, a rematch of game #{old_id}, in {channel}.",
                game_id=new.id,
                old_id=game.id,
                channel=where,
            )
            if others:
                note += " " + lang.n(
                    "{players} can join with the same button.",
                    "{players} can join with the same button.",
                    len(others),
                    players=lang.words([mention(u) for u in others]),
                )
        else:
            note = lang.n(
                "You joined game #{game_id}, the rematch of game #{old_id}: {count} player is in.",
                "You joined game #{game_id}, the rematch of game #{old_id}: {count} players are in.",
                len(new.seats),
                game_id=new.id,
                old_id=game.id,
            )
        try:
            await reply_private(interaction, note)
        finally:
            self.outbox.kick(changed.effects)

    # ---- computer players -------------------------------------------------------------------------

    async def offer_levels(self, interaction: discord.Interaction, game: Loaded) -> None:
        if interaction.user.id != game.row.host_id:
            raise NotAllowed(
                "Only the host, {host}, can add computer players.", host=mention(game.row.host_id)
            )
        lang = reader(interaction)
        menu = select(
            custom_id(game.id, "addbot"),
            [
                discord.SelectOption(
                    label=lang.t(LEVEL_NAMES[level]), value=level, description=lang.t(LEVEL_HELP[level])
                )
                for level in LEVELS
            ],
            placeholder=lang.pt("placeholder", "How strong a computer player?"),
        )
        await reply_private(
            interaction,
            lang.t("Add a computer player to game #{game_id}:", game_id=game.id),
            view=self.router.view([menu]),
        )

    async def add_computer(self, interaction: discord.Interaction, game: Loaded, level: str) -> None:
        """The host seats a computer at ``level``; the card follows."""
        if level not in LEVELS:
            raise BadInput("There is no level {level}: choose easy, normal or hard.", level=repr(level[:20]))
        changed = await self.lobby.add_computer(game.id, interaction.user.id, level, effects=[Lobby()])
        added = mention(changed.game.row.seats[-1])
        lang = reader(interaction)
        note = lang.n(
            "{player} joined game #{game_id}: {count} player is in.",
            "{player} joined game #{game_id}: {count} players are in.",
            len(changed.game.row.seats),
            player=added,
            game_id=game.id,
        )
        try:
            message = interaction.message
            if (
                interaction.type == discord.InteractionType.component
                and message is not None
                and message.flags.ephemeral
            ):
                await interaction.response.edit_message(content=note, view=None)
            else:
                await reply_private(interaction, note)
        finally:
            self.outbox.kick(changed.effects)

    async def act(self, interaction: discord.Interaction, game: Loaded, verb: str) -> None:
        user = interaction.user
        # A click on the lobby message is answered by editing it. (Its id is recorded just after the
        # lobby is posted: a click that comes first is on it all the same.)
        message = interaction.message if interaction.type == discord.InteractionType.component else None
        on_lobby = message is not None and game.row.lobby_message_id in (None, message.id)
        edit = [] if on_lobby else [Lobby()]
        lang = reader(interaction)
        if verb == "join":
            changed = await self.lobby.join(game.id, user.id, user.display_name, effects=edit)
            note = lang.n(
                "You joined game #{game_id}: {count} player is in.",
                "You joined game #{game_id}: {count} players are in.",
                len(changed.game.row.seats),
                game_id=game.id,
            )
        elif verb == "leave":
            changed = await self.lobby.leave_lobby(game.id, user.id, effects=edit)
            note = lang.t("You left the lobby of game #{game_id}.", game_id=game.id)
        elif verb == "dropbot":
            changed = await self.lobby.remove_computer(game.id, user.id, effects=edit)
            note = lang.t("A computer player left the lobby of game #{game_id}.", game_id=game.id)
        elif verb == "start":
            await self._start(interaction, game, on_lobby)
            return
        elif verb == "cancel":
            await self._cancel(interaction, game, on_lobby)
            return
        else:
            raise LobbyError("That lobby control is not known.")
        await self._answer(interaction, changed, on_lobby, note)

    async def _answer(
        self, interaction: discord.Interaction, changed: Changed, on_lobby: bool, note: str
    ) -> None:
        try:
            if on_lobby:
                content, view = self.message(changed.game, await self.public(changed.game))
                try:
                    await interaction.response.edit_message(
                        content=content, view=view, allowed_mentions=NO_PINGS
                    )
                except discord.NotFound:  # Discord forgot the click: the outbox edits the card
                    self.outbox.kick(await self.games.owe(changed.game.id, [Lobby()]))
            else:
                await reply_private(interaction, note)
        finally:
            self.outbox.kick(changed.effects)

    async def _start(self, interaction: discord.Interaction, game: Loaded, on_lobby: bool) -> None:
        """Start the game. The card is edited once, by the `card` effect, with its final text: where
        the game is played is known only once the `thread` effect has started (or failed to start)
        the thread from the card, after this answer. So a Start click on the card is answered
        without an edit (a deferred update), and the `card` effect comes right after the thread,
        before the first board: the lobby's buttons go as soon as the game has its place. After a
        kill at any point the outbox carries out what is left, the `card` effect included."""
        kind = self.catalog.get(game.row.kind)
        place = await self.places.intent(interaction)

        def effects(started: Loaded) -> list[OutboxEffect]:
            # The thread first: the card names it, and the first board and everything after go there.
            out: list[OutboxEffect] = [Thread()] if place == "thread" else []
            out.append(Card())
            out.append(Start(started.row.version, place))
            if kind.private is not None:
                seats = started.row.seats
                out.extend(Panel(s) for s in range(len(seats)) if not is_computer(seats[s]))
            else:
                out.extend(self.notify.nudges(kind.rules.to_act(started.state), started.row.seats))
            return out

        changed = await self.lobby.start(game.id, interaction.user.id, effects=effects, place=place)
        if not on_lobby:
            note = reader(interaction).t("Game #{game_id} has started.", game_id=game.id)
            await self._answer(interaction, changed, on_lobby, note)
            return
        try:
            await interaction.response.defer()  # the click's answer: the `card` effect edits the card
        except discord.NotFound:
            pass  # Discord forgot the click: the card is edited all the same
        finally:
            self.outbox.kick(changed.effects)

    async def _cancel(self, interaction: discord.Interaction, game: Loaded, on_lobby: bool) -> None:
        can_manage = interaction.permissions.manage_messages
        effects = [Closed(keep_lobby=on_lobby)]
        changed = await self.lobby.cancel(
            game.id, interaction.user.id, can_manage=can_manage, effects=effects
        )
        game = changed.game
        kind = self.catalog.get(game.row.kind)
        lang = await self.public(game)  # both answers are public
        who = mention(interaction.user.id)
        try:
            if on_lobby:  # the card itself says so
                content = self.message(game, lang)[0] + " " + lang.t("(Closed by {player}.)", player=who)
                await interaction.response.edit_message(content=content, view=None, allowed_mentions=NO_PINGS)
            else:
                text = lang.t(
                    "Game #{game_id} ({title}) was cancelled by {player}.",
                    game_id=game.id,
                    title=kind.title,
                    player=who,
                )
                await interaction.response.send_message(text, allowed_mentions=NO_PINGS)
        except discord.NotFound:  # Discord forgot the interaction: the game is cancelled all the same
            if on_lobby:  # and the outbox closes the card
                self.outbox.kick(await self.games.owe(game.id, [Closed()]))
        finally:
            self.outbox.kick(changed.effects)

    # ---- carrying out -------------------------------------------------------------------------------

    def carries(self, outbox: Outbox) -> None:
        outbox.carry(Closed, self.carry_closed)
        outbox.carry(Expired, self.carry_expired)

    async def carry_closed(self, item: OutboxItem, effect: Closed, context: Context) -> Done:
        """A cancelled game: the lobby message says so, and the board loses its controls."""
        game = await self.games.get(item.game_id)
        if not effect.keep_lobby:
            await self.cards.edit(game)
        if game.row.board_message_id is not None:
            await self.boards.strip(game.row.place_id, game.row.board_message_id)
        return Done()

    async def carry_expired(self, item: OutboxItem, effect: Expired, context: Context) -> Done:
        """A lobby that never started closes after a day."""
        game = await self.games.get(item.game_id)
        await self.cards.edit(game)
        kind = self.catalog.get(game.row.kind)
        channel = self.client.get_partial_messageable(game.row.channel_id, guild_id=game.row.guild_id)
        lang = await self.public(game)
        await channel.send(
            lang.t(
                "The {title} lobby #{game_id} closed: it did not start within a day. "
                "Open a new one with /{command} new.",
                title=kind.title,
                game_id=game.id,
                command=kind.name,
            ),
            allowed_mentions=NO_PINGS,
            nonce=nonce_of(item),
        )
        return Done()
