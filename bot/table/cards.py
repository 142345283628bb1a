"""The game's card: the lobby message in the channel, kept up to date for the whole game.

People join from it; once the game starts it names the players, where the game is played (its
thread) and whose move it is; at the end it shows the result with the final board. It never pings.

Edits that matter are outbox effects (`card`: the start, the end, a cancel). Between them the card
follows the game at most every `EVERY` seconds (`Cards.touch`, after a move's board): at once when it
was not edited for a while, else a little later, so a fast game does not edit it on every move.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass, field

import discord
from discord.http import handle_message_parameters
from discord.utils import MISSING

from bot import clock
from bot.i18n import Lang
from bot.i18n.audience import Audiences
from bot.jsontypes import JSONObject
from bot.players.seats import is_computer
from bot.service import Games, Loaded
from bot.storage import OutboxItem
from bot.table.boards import TOKEN_LIFETIME, Boards
from bot.table.catalog import Catalog
from bot.table.components import Control, button, rematch_button, rules_button
from bot.table.effects import Announce, Card, Lobby, PostCard
from bot.table.ids import custom_id
from bot.table.outbox import Carrier, Context, Done, E, Outbox
from bot.table.present import whose_move
from bot.table.replies import NO_PINGS, answer_webhook, fit, original_answer, who
from bot.table.routing import Router
from bot.table.threads import Places

log = logging.getLogger(__name__)

EVERY = 5.0  # seconds: the card follows a game's moves at most this often
FIRST_ANSWER_WITHIN = 3.5  # seconds: Discord takes a command's first answer within 3 s of it


@dataclass(frozen=True)
class Cards:
    client: discord.Client
    games: Games
    catalog: Catalog
    router: Router
    audiences: Audiences
    boards: Boards
    places: Places
    _edited: dict[int, float] = field(default_factory=dict)  # game id -> when its card was last edited
    _later: dict[int, asyncio.Task[None]] = field(default_factory=dict)  # game id -> a deferred edit

    # ---- building -------------------------------------------------------------------------------

    def payload(self, game: Loaded, lang: Lang) -> JSONObject:
        """The card's text and controls: the lobby's buttons while people can join, and Rules. In
        ``lang``: the server's (the card is public), or the reader's (/game status)."""
        kind = self.catalog.get(game.row.kind)
        row = game.row
        table = kind.table(game).speaking(lang)
        title = table.heading
        players = lang.words([who(u, lang) for u in row.seats])
        if row.status == "lobby":
            return self._lobby(game, title, lang)
        if row.status == "cancelled":
            closed = (
                lang.t("This lobby was closed.") if game.state is None else lang.t("This game was cancelled.")
            )
            return {"content": f"{title}\n{closed}", "view": None, "allowed_mentions": NO_PINGS}
        if row.status == "active":
            if row.thread_id is not None:
                started = lang.t(
                    "The game has started, played in {thread} by {players}.",
                    thread=f"<#{row.place_id}>",
                    players=players,
                )
            else:
                started = lang.t("The game has started, played here by {players}.", players=players)
            lines = [title, started, whose_move(table)]
        else:
            if row.thread_id is not None:
                played = lang.t(
                    "Played in {thread} by {players}.", thread=f"<#{row.place_id}>", players=players
                )
            else:
                played = lang.t("Played here by {players}.", players=players)
            lines = [title, played, kind.present.status(game.view(None), table)]
        # The rules stay one button away for whoever reads the card; a finished game offers a rematch.
        items = [rules_button(row.id, lang=lang)] + (
            [rematch_button(row.id, lang)] if row.status == "finished" else []
        )
        view = self.router.view(items)
        return {"content": fit("\n".join(lines)), "view": view, "allowed_mentions": NO_PINGS}

    def _lobby(self, game: Loaded, title: str, lang: Lang) -> JSONObject:
        row = game.row
        rules = self.catalog.get(row.kind).rules
        players = "\n".join(
            f"{i + 1}. "
            + (lang.t("{player} (host)", player=who(u, lang)) if u == row.host_id else who(u, lang))
            for i, u in enumerate(row.seats)
        )
        if rules.MAX_PLAYERS > rules.MIN_PLAYERS:
            can = lang.t("{low}-{high} can play", low=rules.MIN_PLAYERS, high=rules.MAX_PLAYERS)
        else:
            can = lang.n("{count} can play", "{count} can play", rules.MIN_PLAYERS)
        seated = lang.n(
            "Lobby: {joined} of at most {count} player ({can}).",
            "Lobby: {joined} of at most {count} players ({can}).",
            rules.MAX_PLAYERS,
            joined=len(row.seats),
            can=can,
        )
        content = "\n".join(
            (
                title,
                seated,
                players,
                lang.t("Press **Join** to play. The host presses **Start** when everyone is in."),
            )
        )
        view = self.router.view(
            [
                button(
                    lang.pt("label", "Join"), custom_id(row.id, "join"), style=discord.ButtonStyle.success
                ),
                button(lang.pt("label", "Leave"), custom_id(row.id, "leave")),
                button(
                    lang.pt("label", "Start"),
                    custom_id(row.id, "start"),
                    style=discord.ButtonStyle.primary,
                    disabled=len(row.seats) < rules.MIN_PLAYERS,
                ),
                button(
                    lang.pt("label", "Cancel"), custom_id(row.id, "cancel"), style=discord.ButtonStyle.danger
                ),
                rules_button(row.id, lang=lang),
                *self._computer_buttons(game, lang),
            ]
        )
        return {"content": content, "view": view, "allowed_mentions": NO_PINGS}

    def _computer_buttons(self, game: Loaded, lang: Lang) -> list[Control]:
        """The host's controls for computer players, in the row under the lobby's own."""
        row = game.row
        items: list[Control] = []
        if len(row.seats) < self.catalog.get(row.kind).rules.MAX_PLAYERS:
            items.append(
                button(lang.pt("label", "Add computer"), custom_id(row.id, "addbot"), emoji="🤖", row=1)
            )
        if any(is_computer(u) for u in row.seats):
            items.append(button(lang.pt("label", "Remove computer"), custom_id(row.id, "dropbot"), row=1))
        return items

    # ---- editing --------------------------------------------------------------------------------

    async def edit(self, game: Loaded, *, final_board: bool = False) -> None:
        """Bring the card up to date (with the final board's image at the end of a game)."""
        row = game.row
        if row.lobby_message_id is None:
            return
        self._edited[game.id] = time.monotonic()
        lang = await self.audiences.server(row.guild_id)
        payload = self.payload(game, lang)
        if final_board and game.state is not None:
            kind = self.catalog.get(row.kind)
            table = kind.table(game).speaking(lang)
            payload["attachments"] = [await self.boards.image(kind, game.view(None), table)]
        client, card = self.client, row.lobby_message_id

        async def send() -> None:
            # The raw request: the edited card that comes back is not needed, so not parsed.
            with handle_message_parameters(
                content=payload["content"],
                view=payload["view"],
                attachments=payload.get("attachments", MISSING),
                allowed_mentions=payload["allowed_mentions"],
                previous_allowed_mentions=client.allowed_mentions,
            ) as params:
                await client.http.edit_message(row.channel_id, card, params=params)

        try:
            await self.places.call(row.channel_id, send)
        except discord.NotFound:
            pass  # the card was deleted: the game goes on without it
        finally:
            if not game.row.live:
                self._forget(game.id)

    def carries(self, outbox: Outbox) -> None:
        outbox.carry(Announce, self.following(self.boards.carry_announce))  # the board, then the card
        outbox.carry(Card, self.carry_card)
        outbox.carry(Lobby, self.carry_card)
        outbox.carry(PostCard, self.carry_post)

    async def carry_post(self, item: OutboxItem, effect: PostCard, context: Context) -> Done:
        """The lobby's card: the answer to the command that opened it (its id handed over by that
        command, or found again through its token, after a crash), else posted in the channel (a
        rematch's card, or one whose command Discord forgot or was never answered)."""
        game = await self.games.get(item.game_id)
        if game.row.lobby_message_id is not None:
            return Done()
        answer = context.answer
        if answer is None and item.token is not None and not context.forgotten:
            answer = await self._answer(item, game)
        if answer is not None:
            return Done(lobby_message_id=answer)
        row = game.row
        channel = self.client.get_partial_messageable(row.channel_id, guild_id=row.guild_id)
        lang = await self.audiences.server(row.guild_id)
        posted = await self.boards.post(channel, item, self.payload(game, lang))
        return Done(lobby_message_id=posted)

    async def _answer(self, item: OutboxItem, game: Loaded) -> int | None:
        """The card that answered the command of ``item`` (its token), when it has one. Until
        Discord's time for a first answer has passed, the command may still be answered (by the
        process that opened the lobby, a moment from now): the card is looked for after that time.
        A command deferred and never answered (the process died) gets the card now."""
        client = self.client
        assert item.token is not None
        if clock.now() - item.created_at >= TOKEN_LIFETIME:
            return None
        answer = await original_answer(client, item.token)
        wait = item.created_at + FIRST_ANSWER_WITHIN - clock.now()
        if answer is None and wait > 0:
            await asyncio.sleep(wait)
            answer = await original_answer(client, item.token)
        if answer is None or answer.flags.ephemeral:
            return None
        if answer.flags.loading:
            webhook = answer_webhook(client, item.token)
            assert webhook is not None
            lang = await self.audiences.server(game.row.guild_id)
            payload = self.payload(game, lang)
            await webhook.edit_message(
                answer.id, content=payload["content"], view=payload["view"], allowed_mentions=NO_PINGS
            )
        return answer.id

    async def carry_card(self, item: OutboxItem, effect: Card | Lobby, context: Context) -> Done:
        game = await self.games.get(item.game_id)
        await self.edit(game, final_board=game.row.status == "finished")
        return Done()

    def following(self, carrier: Carrier[E]) -> Carrier[E]:
        """``carrier`` (a move's news), then the card follows."""

        async def carry(item: OutboxItem, effect: E, context: Context) -> Done | None:
            done = await carrier(item, effect, context)
            await self.touch(item.game_id)
            return done

        return carry

    async def touch(self, game_id: int) -> None:
        """A move was shown: the card follows, now or (after a recent edit) a little later."""
        if game_id in self._later:
            return
        wait = self._edited.get(game_id, 0.0) + EVERY - time.monotonic()
        if wait <= 0:
            await self._follow(game_id)
            return
        self._later[game_id] = asyncio.get_running_loop().create_task(
            self._follow_later(game_id, wait), name=f"quetbot-card-{game_id}"
        )

    async def _follow_later(self, game_id: int, wait: float) -> None:
        await asyncio.sleep(wait)
        self._later.pop(game_id, None)
        await self._follow(game_id)

    async def _follow(self, game_id: int) -> None:
        game = await self.games.get(game_id)
        if not game.row.live:
            return  # the end is the `card` effect's
        try:
            await self.edit(game)
        except (discord.HTTPException, OSError) as exc:  # the next move brings it up to date
            log.info("The card of game %s was not updated: %s", game_id, exc)

    def _forget(self, game_id: int) -> None:
        self._edited.pop(game_id, None)
        later = self._later.pop(game_id, None)
        if later is not None and later is not asyncio.current_task():
            later.cancel()

    async def stop(self) -> None:
        tasks = list(self._later.values())
        self._later.clear()
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
