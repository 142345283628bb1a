"""Boards: the public post of a game's position (text, image, controls), posted and stripped.

A board is built from the public view only. Its controls are drawn only for the game's current
version, so a board posted late (after a retry) never offers a stale move. Posting is an outbox
effect (`announce`, `start`): the old board's controls come off first, then the new board is posted
with a nonce Discord enforces, then both are recorded; each step can be repeated safely.
"""

from __future__ import annotations

import contextlib
import io
import logging
import time
from dataclasses import dataclass, field, replace

import discord
from discord.http import Route, handle_message_parameters
from discord.utils import MISSING

from bot import clock, metrics
from bot.i18n import N_, Lang
from bot.i18n.audience import Audiences, reader
from bot.jsontypes import JSONObject
from bot.present import away_lines
from bot.rules.base import M, S
from bot.service import Games, Histories, History, Loaded, Step
from bot.spec import V
from bot.storage import OutboxItem
from bot.table.catalog import Catalog, GameKind
from bot.table.components import mine_button, rematch_button, rules_button
from bot.table.drawing import Drawing
from bot.table.effects import Announce, Start, Strip
from bot.table.notify import Notify
from bot.table.outbox import Context, Done, Outbox, nonce_of
from bot.table.present import News, TableInfo
from bot.table.replies import NO_PINGS, fit, original_answer
from bot.table.routing import Router
from bot.table.shown import Shown
from bot.table.threads import IN_PLACE_NOTES, Places

log = logging.getLogger(__name__)

TOKEN_LIFETIME = 14 * 60  # an interaction token works for 15 minutes
LATE_NOTE = N_("✅ Your move is saved. Its board is in the channel.")
UNDONE = N_("↩️ {player}'s last move is taken back, as the others agreed: the position before it is back.")


def headline_of(kind: GameKind[S, V, M], news: News[V], table: TableInfo) -> str:
    """What a board says about the change that made it: the game's own line for a move, the
    table's for a takeback (the game's present knows nothing of takebacks)."""
    if news.undone:
        return table.lang.t(UNDONE, player=table.who(news.seat))
    return kind.present.headline(news, table)


def quiet_move(kind: GameKind[S, V, M], news: News[V]) -> bool:
    """A change that posts no board (a secret choice); a takeback always posts one."""
    return not news.undone and kind.present.quiet(news)


@dataclass(frozen=True)
class Boards:
    client: discord.Client
    games: Games
    history: Histories
    catalog: Catalog
    router: Router
    shown: Shown
    notify: Notify
    audiences: Audiences
    places: Places
    drawing: Drawing = field(default_factory=lambda: Drawing(0))  # where images are drawn

    # ---- building -------------------------------------------------------------------------------

    async def image(self, kind: GameKind[S, V, M], view: V, table: TableInfo) -> discord.File:
        return await board_file(self.drawing, kind, view, table)

    def text(
        self, kind: GameKind[S, V, M], view: V, table: TableInfo, headline: str, *, status: bool = True
    ) -> str:
        lines = [table.heading]
        if headline:
            lines.append(headline)
        if status:
            lines.append(kind.present.status(view, table))
            lines.extend(away_lines(table))
        return fit("\n".join(lines))

    async def with_away(self, table: TableInfo) -> TableInfo:
        """``table`` with the players who are away now (`/game away`) and until when."""
        if not table.live:
            return table
        seats = {user_id: seat for seat, user_id in enumerate(table.seats) if user_id > 0}
        away = await self.games.storage.away_until(user_ids=seats, now=clock.now())
        return replace(table, away=tuple(sorted((seats[u], until) for u, until in away.items())))

    async def payload(
        self,
        kind: GameKind[S, V, M],
        view: V,
        table: TableInfo,
        headline: str,
        *,
        image: bool = True,
        first: bool = False,
    ) -> JSONObject:
        """The board post: text, image and (for the current version of a live game) controls; the
        ``first`` board of a game also has the Rules button."""
        payload: JSONObject = {
            "content": self.text(kind, view, table, headline),
            "allowed_mentions": self.notify.pinged(table.seats[s] for s in table.waiting),
        }
        if image:
            payload["file"] = await self.image(kind, view, table)
        else:
            payload["allowed_mentions"] = NO_PINGS
        lang = table.lang
        items = list(kind.present.board_items(view, table)) if table.current and table.live else []
        if kind.private is not None and table.current and table.live:
            items.append(mine_button(lang.t(kind.present.mine_label), table.game_id))
        if first and table.current and table.live:
            items.append(rules_button(table.game_id, below=items, lang=lang))
        if table.current and table.status == "finished":
            items.append(rematch_button(table.game_id, lang))
        if items:
            payload["view"] = self.router.view(items)
        return payload

    async def status_payload(self, game: Loaded, lang: Lang) -> JSONObject:
        """The latest board, for /game status (no controls, no pings), for a reader of ``lang``."""
        kind = self.catalog.get(game.row.kind)
        table = await self.with_away(kind.table(game).speaking(lang))
        payload = await self.payload(kind, game.view(None), table, "")
        payload.pop("view", None)
        payload["allowed_mentions"] = NO_PINGS
        return payload

    # ---- carrying out ---------------------------------------------------------------------------

    async def strip(self, channel_id: int, message_id: int) -> None:
        """Take the controls off a message (a 404 means it is gone: nothing to take off)."""
        if not self.shown.has_controls(message_id):
            return
        path = "/channels/{channel_id}/messages/{message_id}"
        route = Route("PATCH", path, channel_id=channel_id, message_id=message_id)
        try:
            # The raw request: the edited message that comes back is not needed, so not parsed.
            await self.places.call(
                channel_id, lambda: self.client.http.request(route, json={"components": []})
            )
        except discord.NotFound:
            pass
        self.shown.bare(message_id)

    def carries(self, outbox: Outbox) -> None:
        """(Announcements are carried by the cards, which follow them: see `Cards.carries`.)"""
        outbox.carry(Start, self.carry_start)
        outbox.carry(Strip, self.carry_strip)

    async def carry_strip(self, item: OutboxItem, effect: Strip, context: Context) -> Done:
        await self.strip(effect.channel_id, effect.message_id)
        return Done()

    async def carry_announce(self, item: OutboxItem, effect: Announce, context: Context) -> Done:
        """Tell the game's channel about one move: a new board, or a line of text for a quiet move."""
        game = await self.games.get(item.game_id)
        kind = self.catalog.get(game.row.kind)
        version = effect.version
        result = context.result
        history: History | None = None
        if result is not None:  # the move as the process that made it has it (views computed once)
            table = kind.table(result.after)
            before_view, after_view = result.before.view(None), result.after.view(None)
            news = News(result.seat, before_view, after_view, result.forfeit, undone=result.undone)
            if result.after.row.version != game.row.version:
                table = kind.table(game, result.after.state, version=version)
        else:  # after a restart: the move that made the version, replayed from the log
            history = await self.history.history(game.id, until=version)
            step = history.step(version)
            table = kind.table(game, step.after, version=version)
            news = self._news(kind, step)
        table = await self.with_away(table.speaking(await self.audiences.server(game.row.guild_id)))
        headline = headline_of(kind, news, table)
        place = game.row.place_id
        channel = self.client.get_partial_messageable(place, guild_id=game.row.guild_id)
        if quiet_move(kind, news):
            await self._quiet(game, kind, news, table, headline, item, context, history)
            return Done()
        old = game.row.board_message_id
        if old is not None:
            await self.strip(place, old)
        payload = await self.payload(
            kind, news.after, table, headline, image=kind.present.board_image(news.after)
        )
        message_id = await self._send(item, context, channel, payload)
        if message_id is not None:
            self.shown.posted(message_id, self.text(kind, news.after, table, headline, status=False))
        return Done(board_message_id=message_id)

    async def _quiet(
        self,
        game: Loaded,
        kind: GameKind[S, V, M],
        news: News[V],
        table: TableInfo,
        headline: str,
        item: OutboxItem,
        context: Context,
        history: History | None,
    ) -> None:
        """A secret choice nobody may see yet: the current board's text says who has chosen (one edit,
        no new message). Without a board (a game that has none yet), a line of text is posted."""
        place, board = game.row.place_id, game.row.board_message_id
        status = "\n".join([kind.present.status(news.after, table), *away_lines(table)])
        if board is None:
            channel = self.client.get_partial_messageable(place, guild_id=game.row.guild_id)
            text = fit(
                table.lang.t(
                    "**{title}** · game #{game_id}: {headline}",
                    title=kind.title,
                    game_id=game.id,
                    headline=headline,
                )
                + f"\n{status}"
            )
            await self._send(item, context, channel, {"content": text, "allowed_mentions": NO_PINGS})
            return
        above = self.shown.above(board)
        if above is None:  # posted before a restart, or by another process: rebuilt from the log
            if history is None:
                history = await self.history.history(game.id, until=table.version)
            above = self._shown_above(game, kind, history, table.version - 1, table.lang)
        path = "/channels/{channel_id}/messages/{message_id}"
        route = Route("PATCH", path, channel_id=place, message_id=board)
        body = {"content": fit(f"{above}\n{headline}\n{status}"), "allowed_mentions": {"parse": []}}
        try:
            await self.places.call(place, lambda: self.client.http.request(route, json=body))
        except discord.NotFound:
            pass  # the board was deleted: the next board shows the game as it is

    def _shown_above(
        self, game: Loaded, kind: GameKind[S, V, M], history: History, version: int, lang: Lang
    ) -> str:
        """The text above the status line of the board the game's place shows at ``version``: that
        of the last move before it that was not quiet, else that of the first board. Rebuilt from
        the log (the same text whether or not the bot restarted since that board was posted)."""
        for step in reversed(history.steps[: version - history.start_version]):
            news = self._news(kind, step)
            if not quiet_move(kind, news):
                table = kind.table(game, step.after, version=step.version).speaking(lang)
                return self.text(kind, news.after, table, headline_of(kind, news, table), status=False)
        table = kind.table(game, history.start, version=history.start_version).speaking(lang)
        view = kind.rules.view_for(history.start, None)
        return self.text(kind, view, table, self._first_headline(game, kind, view, table), status=False)

    @staticmethod
    def _news(kind: GameKind[S, V, M], step: Step) -> News[V]:
        before, after = kind.rules.view_for(step.before, None), kind.rules.view_for(step.after, None)
        return News(step.seat, before, after, step.forfeit, undone=step.undone)

    @staticmethod
    def _first_headline(
        game: Loaded, kind: GameKind[S, V, M], view: V, table: TableInfo, place: str = ""
    ) -> str:
        """What the first board says above its status line: the turn order, the game's own note,
        and (played in place although a thread was wanted, or opened in a thread) why, once."""
        lang = table.lang
        players = ", ".join(table.who(i) for i in range(len(table.seats)))
        lines = [lang.t("The game begins. Turn order: {players}.", players=players)]
        note = kind.present.start_note(view, table)
        if note:
            lines.append(note)
        place = game.row.start_place or place
        if place == "thread" and game.row.thread_id is None:  # refused when it was started
            place = "no-permission"
        if place in IN_PLACE_NOTES:
            lines.append(lang.t(IN_PLACE_NOTES[place]))
        return "\n".join(lines)

    async def carry_start(self, item: OutboxItem, effect: Start, context: Context) -> Done:
        """The first board of a game that has just started."""
        game = await self.games.get(item.game_id)
        kind = self.catalog.get(game.row.kind)
        row = game.row
        state = (  # the game's first state (moves were made since): dealt again from its seed
            kind.rules.new_game(len(row.seats), row.options, row.seed)
            if row.version != effect.version
            else game.state
        )
        lang = await self.audiences.server(game.row.guild_id)
        table = await self.with_away(kind.table(game, state, version=effect.version).speaking(lang))
        view = kind.rules.view_for(state, None)
        # (An effect written by a bot that did not keep where the game started says so itself.)
        headline = self._first_headline(game, kind, view, table, effect.place)
        channel = self.client.get_partial_messageable(game.row.place_id, guild_id=game.row.guild_id)
        payload = await self.payload(kind, view, table, headline, first=True)
        message_id = await self._send(item, context, channel, payload)
        if message_id is not None:
            self.shown.posted(message_id, self.text(kind, view, table, headline, status=False))
        return Done(board_message_id=message_id)

    async def _send(
        self, item: OutboxItem, context: Context, channel: discord.PartialMessageable, payload: JSONObject
    ) -> int | None:
        """Post ``payload`` once: as the answer to the live interaction the effect came with, else
        found again as that interaction's answer (after a restart), else to the channel."""
        interaction = context.interaction
        if interaction is not None:
            async with context.answering:
                try:
                    if interaction.response.is_done():
                        # Deferred (privately) while earlier news of the game was late: the board
                        # takes its place in the channel, after that news.
                        posted = await self.post(channel, item, payload)
                        with contextlib.suppress(discord.HTTPException):
                            await interaction.edit_original_response(content=reader(interaction).t(LATE_NOTE))
                        context.answered = True
                        return posted
                    response = await interaction.response.send_message(**payload)
                    context.answered = True
                    if response.message_id is not None:
                        return response.message_id
                    return (await interaction.original_response()).id
                except discord.NotFound:
                    log.info("The interaction for outbox effect %s expired; posting to the channel", item.id)
                    context.answered = True  # (nobody can answer it any more)
                    payload = _fresh(payload)
        elif item.token is not None and time.time() - item.created_at < TOKEN_LIFETIME:
            answered = await self._answer_of(item.token)
            if answered is not None:
                return answered
        return await self.post(channel, item, payload)

    async def post(self, channel: discord.PartialMessageable, item: OutboxItem, payload: JSONObject) -> int:
        """Post to the game's place (opening its thread again if it was archived); the new message's
        id. The raw request: the message that comes back is not parsed (only its id is needed), and
        its controls are routed by custom_id, so no view is stored."""
        client = self.client

        async def send() -> int:
            fresh = _fresh(payload)
            with handle_message_parameters(
                content=fresh.get("content", MISSING),
                file=fresh.get("file", MISSING),
                view=fresh.get("view", MISSING),
                allowed_mentions=fresh.get("allowed_mentions", MISSING),
                previous_allowed_mentions=client.allowed_mentions,
                nonce=nonce_of(item),
            ) as params:
                data = await client.http.send_message(channel.id, params=params)
            return int(data["id"])

        return await self.places.call(channel.id, send)

    async def _answer_of(self, token: str) -> int | None:
        """The message that answered the interaction with ``token`` with the board (after a restart),
        found as its "@original" message; None when it was not answered so."""
        message = await original_answer(self.client, token)
        if message is None:
            return None
        if message.flags.loading or message.flags.ephemeral:
            return None  # deferred privately: the board goes to the channel
        return message.id


async def board_file(drawing: Drawing, kind: GameKind[S, V, M], view: V, table: TableInfo) -> discord.File:
    """The board's image, drawn by ``drawing``, with its alt text."""
    with metrics.render_timer(table.kind):
        png = await drawing.draw(kind.present.render, view, table)
    return discord.File(
        io.BytesIO(png),
        filename=f"{table.kind}-{table.game_id}-{table.version}.png",
        description=kind.present.alt_text(view, table)[:1024],
    )


def _fresh(payload: JSONObject) -> JSONObject:
    """A payload whose file can be sent again (a File is consumed by a send)."""
    file = payload.get("file")
    if isinstance(file, discord.File):
        file.reset()
    return payload
