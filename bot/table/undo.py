"""Takebacks on Discord: `/game undo`, the Accept / Decline buttons, and a request's expiry.

A player asks to take back their own last move (`bot.service.undo.Takebacks` says which one, and
refuses where none may be); every other player still in the game must agree. Computers answer at
once: at easy and normal a computer accepts one takeback per game, at hard never. When every
other player is a computer the takeback is made at once; otherwise the request is written down
(durable: its buttons carry the game, its version and the request, and work after a restart) and
asked publicly in the game's place, for an hour. The takeback itself travels as a move does: the
move marked in the log and the rebuilt position committed with the board it owes (an outbox
effect), and only then is anyone answered.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import discord
from discord.http import Route

from bot import clock
from bot.errors import GameError, NotAllowed, StaleButton
from bot.i18n import N_, Lang
from bot.i18n.audience import Audiences, reader
from bot.players.seats import is_computer, level_of
from bot.present import News, mention
from bot.rules.base import forfeit_of
from bot.service import Loaded, MoveResult, Moves
from bot.service.undo import ASK_FOR, Takebacks
from bot.storage import MoveRow, StaleVersion, Storage, UndoRequest
from bot.table.catalog import Catalog
from bot.table.components import button
from bot.table.effects import Announce
from bot.table.ids import ComponentId, custom_id
from bot.table.notify import Notify
from bot.table.outbox import Context, Outbox
from bot.table.play import Source, owed
from bot.table.replies import NO_PINGS, fit, reply_private
from bot.table.routing import ANY_GAME, Router

log = logging.getLogger(__name__)

ACCEPT, DECLINE = "undo_ok", "undo_no"
ASKED = N_(
    "↩️ {player} asks to take back their last move in game #{game_id}: {move}\n"
    "{others}: all of you must accept, by {deadline}; until then nothing changes."
)
COMPUTERS_AGREE = N_("✅ {players} agreed.")
ACCEPTS = N_("✅ {player} accepts.")
TAKEN_BACK = N_("↩️ Taken back: {player}'s move is undone, and the new board is below.")
DECLINED = N_("✖️ {player} declined: nothing changes.")
EXPIRED = N_(
    "⌛ {player}'s request to take back a move in game #{game_id} was not answered within an hour: "
    "nothing changes."
)
LAPSED = N_(
    "⌛ {player}'s request to take back a move in game #{game_id} lapsed: the game has moved on. "
    "Nothing changes."
)


@dataclass(frozen=True)
class Asked:
    """Who answers a takeback of ``seat``'s move: the people (who must accept) and the computers
    (who accept now)."""

    seat: int
    move: MoveRow
    log: list[MoveRow]
    people: tuple[int, ...]
    computers: tuple[int, ...]


@dataclass(frozen=True)
class UndoDesk:
    client: discord.Client
    storage: Storage
    moves: Moves
    takebacks: Takebacks
    catalog: Catalog
    outbox: Outbox
    notify: Notify
    audiences: Audiences

    def routes(self, router: Router) -> None:
        router.on_click(ANY_GAME, ACCEPT, self.on_accept, in_dms=False)
        router.on_click(ANY_GAME, DECLINE, self.on_decline, in_dms=False)

    # ---- asking -----------------------------------------------------------------------------------

    async def ask(self, interaction: discord.Interaction, game: Loaded) -> None:
        """`/game undo`: the caller's last move taken back now (only computers to ask), or asked for."""
        asked = await self._who_answers(game, interaction.user.id)
        if not asked.people:
            result = await self._take_back(game.id, asked.seat, asked.move.seq, request=None)
            await reply_private(
                interaction,
                reader(interaction).t(
                    "↩️ Your last move in game #{game_id} is taken back ({players} accepted). "
                    "The new board is in the channel.",
                    game_id=game.id,
                    players=reader(interaction).words([mention(game.row.seats[s]) for s in asked.computers]),
                ),
            )
            self._carry(result)
            return
        now = clock.now()
        request, closed = await self.storage.open_undo_request(
            game_id=game.id, seat=asked.seat, seq=asked.move.seq, version=game.row.version, now=now,
            expires_at=now + ASK_FOR,
        )  # fmt: skip
        for old in closed:
            await self._edit_closed(game, old)
        if request is None:
            raise GameError(
                "A takeback is already asked for in game #{game_id}: wait for its answers (an hour at most).",
                game_id=game.id,
            )
        lang = await self.audiences.server(game.row.guild_id)
        text = await self._asked_text(game, asked, request, lang)
        view = discord.ui.View(timeout=None)
        for verb, label, style in (
            (ACCEPT, lang.pt("label", "Accept"), discord.ButtonStyle.success),
            (DECLINE, lang.pt("label", "Decline"), discord.ButtonStyle.danger),
        ):
            view.add_item(
                button(label, custom_id(game.id, verb, request.id, version=game.row.version), style=style)
            )
        # Only the people asked are pinged (the requester is named, not pinged).
        pinged = discord.AllowedMentions(users=[discord.Object(game.row.seats[s]) for s in asked.people])
        try:
            await interaction.response.send_message(fit(text), view=view, allowed_mentions=pinged)
        except discord.HTTPException:
            # Nobody saw the request (Discord forgot the interaction): it must not hold the game's
            # one pending request for an hour. Closed, it lets the player ask again.
            await self.storage.close_undo(request_id=request.id, status="lapsed")
            raise
        try:
            message = await interaction.original_response()
        except discord.HTTPException:
            return  # (the buttons still work; only the expiry's edit of the message is lost)
        await self.storage.set_undo_message(
            request_id=request.id, channel_id=message.channel.id, message_id=message.id
        )

    async def _who_answers(self, game: Loaded, user_id: int) -> Asked:
        kind = self.catalog.get(game.row.kind)
        if kind.private is not None:
            raise NotAllowed(
                "Moves cannot be taken back in {title}: it is played with secret choices.",
                title=kind.title,
            )
        seat, move, log = await self.takebacks.last_move(game, user_id)
        out = {m.seat for m in log if m.undone is None and forfeit_of(m.action) is not None}
        others = [s for s in range(len(game.row.seats)) if s != seat and s not in out]
        computers = tuple(s for s in others if is_computer(game.row.seats[s]))
        granted = await self.storage.undo_grants(game_id=game.id)
        for s in computers:
            user = game.row.seats[s]
            if level_of(user) == "hard":
                raise NotAllowed(
                    "{player} never accepts a takeback (a hard computer): the move stands.",
                    player=mention(user),
                )
            if s in granted:
                raise NotAllowed(
                    "{player} has accepted a takeback in this game already (a computer accepts one per "
                    "game): the move stands.",
                    player=mention(user),
                )
        people = tuple(s for s in others if s not in computers)
        return Asked(seat, move, log, people, computers)

    async def _asked_text(self, game: Loaded, asked: Asked, request: UndoRequest, lang: Lang) -> str:
        kind = self.catalog.get(game.row.kind)
        draft = self.takebacks.draft(game, asked.seat, asked.move, asked.log)
        news = News(asked.seat, draft.after.view(None), game.view(None))
        move = kind.present.headline(news, kind.table(game).speaking(lang))
        seats = game.row.seats
        text = lang.t(
            ASKED,
            player=mention(seats[asked.seat]),
            game_id=game.id,
            move=move,
            others=lang.words([mention(seats[s]) for s in asked.people]),
            deadline=f"<t:{int(request.expires_at)}:R>",
        )
        if asked.computers:
            text += "\n" + lang.t(
                COMPUTERS_AGREE, players=lang.words([mention(seats[s]) for s in asked.computers])
            )
        return text

    # ---- answering --------------------------------------------------------------------------------

    async def on_accept(
        self, interaction: discord.Interaction, game: Loaded, cid: ComponentId, values: list[str]
    ) -> None:
        request, seat = await self._answerable(interaction, game, cid)
        if seat in request.accepted:
            raise GameError("You have accepted this takeback already: the others' answers are awaited.")
        accepted = {*request.accepted, seat}
        asked = await self._who_answers(game, game.row.seats[request.seat])
        if asked.move.seq != request.seq:
            await self._close(game, request, "lapsed")
            raise StaleButton("That request has lapsed: the game has moved on. Nothing changes.")
        if not set(asked.people) <= accepted:
            if not await self.storage.accept_undo(
                request_id=request.id, seat=seat, accepted=request.accepted
            ):
                raise GameError("Someone answered at the same moment: press the button again.")
            public = await self.audiences.server(game.row.guild_id)
            content = (
                (interaction.message.content if interaction.message else "")
                + "\n"
                + public.t(ACCEPTS, player=mention(interaction.user.id))
            )
            await interaction.response.edit_message(content=fit(content), allowed_mentions=NO_PINGS)
            return
        try:
            result = await self._take_back(
                game.id, request.seat, request.seq, request=request, computers=asked.computers
            )
        except StaleVersion:
            raise StaleButton(
                "That request was answered, or the game moved, meanwhile: nothing changes."
            ) from None
        public = await self.audiences.server(game.row.guild_id)
        content = (
            (interaction.message.content if interaction.message else "")
            + "\n"
            + public.t(ACCEPTS, player=mention(interaction.user.id))
            + "\n"
            + public.t(TAKEN_BACK, player=mention(game.row.seats[request.seat]))
        )
        try:
            await interaction.response.edit_message(
                content=fit(content), view=None, allowed_mentions=NO_PINGS
            )
        except discord.HTTPException:
            log.info("The answer to a takeback in game %s came too late", game.id)
        finally:
            self._carry(result)

    async def on_decline(
        self, interaction: discord.Interaction, game: Loaded, cid: ComponentId, values: list[str]
    ) -> None:
        request, seat = await self._answerable(interaction, game, cid)
        if not await self.storage.close_undo(request_id=request.id, status="declined", answered_by=seat):
            raise StaleButton("That request has been answered already: nothing changes.")
        public = await self.audiences.server(game.row.guild_id)
        content = (
            (interaction.message.content if interaction.message else "")
            + "\n"
            + public.t(DECLINED, player=mention(interaction.user.id))
        )
        await interaction.response.edit_message(content=fit(content), view=None, allowed_mentions=NO_PINGS)

    async def _answerable(
        self, interaction: discord.Interaction, game: Loaded, cid: ComponentId
    ) -> tuple[UndoRequest, int]:
        """The pending request a button names, and the seat of the player answering it (refused for
        anyone else, for the requester, and for a request closed, lapsed or past its hour)."""
        known = cid.arg.isdigit() and len(cid.arg) <= 18  # (a request's number fits in 64 bits)
        request = await self.storage.undo_request(request_id=int(cid.arg)) if known else None
        if request is None or request.game_id != game.id:
            raise StaleButton("That request is not one I know. Nothing changes.")
        seat = game.row.seat_of(interaction.user.id)
        if seat is None:
            raise NotAllowed(
                "Only the other players of game #{game_id} answer this request.", game_id=game.id
            )
        if seat == request.seat:
            raise NotAllowed("You asked for this takeback: the other players answer it.")
        log = await self.storage.moves(game_id=game.id)
        if any(m.seat == seat and m.undone is None and forfeit_of(m.action) for m in log):
            # (left the game: no longer one of those who answer)
            raise NotAllowed(
                "Only the other players of game #{game_id} answer this request.", game_id=game.id
            )
        if request.status != "pending":
            raise StaleButton("That request has been answered already: nothing changes.")
        if cid.version != game.row.version or request.version != game.row.version or not game.row.live:
            await self._close(game, request, "lapsed")
            raise StaleButton("That request has lapsed: the game has moved on. Nothing changes.")
        if request.expires_at <= clock.now():
            await self._close(game, request, "expired")
            raise StaleButton("That request was not answered within an hour: nothing changes.")
        return request, seat

    # ---- the takeback, and a request closed ---------------------------------------------------------

    async def _take_back(
        self,
        game_id: int,
        seat: int,
        seq: int,
        *,
        request: UndoRequest | None,
        computers: tuple[int, ...] = (),
    ) -> MoveResult:
        """The move taken back and its board owed, committed before anyone is answered."""
        async with self.moves.turn(game_id) as before:
            asked = await self._who_answers(before, before.row.seats[seat])
            if asked.move.seq != seq or (request is not None and request.version != before.row.version):
                raise StaleVersion()
            draft = self.takebacks.draft(before, seat, asked.move, asked.log)
            kind = self.catalog.get(before.row.kind)
            effects = owed(kind, draft, Source.COMPUTER, notify=self.notify)
            granted = asked.computers if request is None else computers
            return await self.takebacks.commit(
                draft, seq, list(effects), request_id=None if request is None else request.id, granted=granted
            )

    def _carry(self, result: MoveResult) -> None:
        contexts = {
            item.id: Context(result=result if item.kind == Announce.kind else None) for item in result.effects
        }
        self.outbox.kick(result.effects, contexts)

    async def _close(self, game: Loaded, request: UndoRequest, status: str) -> None:
        if await self.storage.close_undo(request_id=request.id, status=status):
            await self._edit_closed(game, request, status)

    async def _edit_closed(self, game: Loaded, request: UndoRequest, status: str | None = None) -> None:
        """The request's message says it lapsed or expired (its buttons off)."""
        if request.channel_id is None or request.message_id is None:
            return
        lang = await self.audiences.server(game.row.guild_id)
        template = EXPIRED if (status or request.status) == "expired" else LAPSED
        text = lang.t(template, player=mention(game.row.seats[request.seat]), game_id=game.id)
        route = Route(
            "PATCH", "/channels/{channel_id}/messages/{message_id}",
            channel_id=request.channel_id, message_id=request.message_id,
        )  # fmt: skip
        body = {"content": fit(text), "components": [], "allowed_mentions": {"parse": []}}
        try:
            await self.client.http.request(route, json=body)
        except discord.HTTPException as exc:
            log.info("Could not edit the takeback request %s: %s", request.id, exc)

    async def expire_due(self, now: float) -> None:
        """The scheduler's pass: each pending request past its hour closed (by one process: the one
        whose compare-and-swap on its status succeeds), its message edited. Nothing else changes."""
        for request in await self.storage.due_undo_requests(now=now):
            if await self.storage.close_undo(request_id=request.id, status="expired"):
                game = await self.moves.games.get(request.game_id)
                await self._edit_closed(game, request, "expired")
