"""Tournaments at the table: what a round's games owe as they open, a withdrawn player's forfeit, and
the tournament's durable posts (its card, each round's announcement, the final post) carried out.

The posts are rows of ``tournament_posts``, written in the transaction of the change that owes them
(`bot.storage.tournaments`). This desk's pass (its own task, woken when a post is committed or a game
ends, else every `POLL` seconds) first moves every tournament whose round is over on
(`Tournaments.run_due`), then carries out the posts due: the process whose claim on a post succeeds
builds it with the presenter (the tournament cog's: the text is the face's business, `Presenter`)
and sends it with a nonce of its own (a retry after a crash is not a second post), then deletes it.
A card post edits the card in place; with no card recorded (the command that opened the tournament
was never answered) it posts one and records its id.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import discord

from bot.events.tournaments import CARD_GRACE, Snapshot, Tournaments
from bot.rules.base import FORFEIT
from bot.service import Loaded, Moves
from bot.storage import OutboxItem, Storable, Storage
from bot.storage.tournaments import TournamentPost, TournamentRow
from bot.table.boards import TOKEN_LIFETIME
from bot.table.cards import FIRST_ANSWER_WITHIN
from bot.table.catalog import Catalog
from bot.table.effects import Card, Closed, OutboxEffect, Panel, PostCard, Start, Thread
from bot.table.notify import Notify
from bot.table.outbox import Outbox
from bot.table.play import Source, owed
from bot.table.replies import NO_PINGS, original_answer
from bot.table.threads import Places

log = logging.getLogger(__name__)

POLL = 30.0  # seconds between two passes nobody woke (1 when a test may move the clock)
CLAIM = 120.0  # seconds a process has to carry out a post it claimed before another may
MAX_ATTEMPTS = 8  # then the post is dropped (logged): a lost post must not block the others
GAVE_UP = (400, 403, 404)  # Discord refused for good: the post is dropped


@dataclass
class Post:
    """A message a presenter builds: its text, its controls, its files (the standings image)."""

    content: str
    view: discord.ui.View | None = None
    files: list[discord.File] = field(default_factory=list)


class Presenter(Protocol):
    """The tournament's face (the tournament cog): each post's text, in the server's language."""

    async def card(self, snap: Snapshot) -> Post:
        """The card: the sign-up (Join, Leave, Start, Cancel), then the event's progress, then its end."""
        ...

    async def round_post(self, snap: Snapshot, round: int) -> Post:
        """Round ``round`` begins: its games and byes."""
        ...

    async def final_post(self, snap: Snapshot) -> Post:
        """The tournament is over: the winner named."""
        ...


class TournamentDesk:
    """The table's side of `bot.events.tournaments.Tournaments` (its `Table`), and the posts' pass."""

    def __init__(
        self,
        *,
        client: discord.Client,
        storage: Storage,
        tournaments: Tournaments,
        moves: Moves,
        catalog: Catalog,
        outbox: Outbox,
        notify: Notify,
        places: Places,
        clock: Callable[[], float],
        holder: str = "quetbot",
        ready: Callable[[], Awaitable[object]] | None = None,
    ) -> None:
        self.client, self.storage, self.tournaments = client, storage, tournaments
        self.moves, self.catalog, self.outbox, self.notify, self.places = (
            moves,
            catalog,
            outbox,
            notify,
            places,
        )
        self.clock, self.holder, self.ready = clock, holder, ready
        self.presenter: Presenter | None = None
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closing = False  # stopping: no new pass
        self._between = asyncio.Event()  # set while no pass is under way
        self._between.set()
        self.idle = asyncio.Event()  # set whenever a pass has finished (tests wait on it)
        tournaments.attach(self)

    def present_with(self, presenter: Presenter) -> None:
        """The tournament cog's presenter: posts are carried out from now on."""
        self.presenter = presenter
        self.poke()

    # ---- the service's table (`bot.events.tournaments.Table`) -------------------------------------

    async def place(self, guild_id: int | None, channel_id: int) -> str:
        """Where a round's games are played: each in a thread of its own, unless the server turned
        threads off or the tournament's channel is a thread itself."""
        if isinstance(self.client.get_channel(channel_id), discord.Thread):
            return "in-thread"
        if guild_id is None or not await self.places.threads_on(guild_id):
            return "off"
        return "thread"

    def opening(
        self, kind: str, seats: Sequence[int], state: object, version: int, place: str
    ) -> list[Storable]:
        """As a lobby's Start: the card (posted in the tournament's channel), the thread from it, the
        card brought up to date, the first board, then each person's DM panel or "your move" DM."""
        game_kind = self.catalog.get(kind)
        out: list[OutboxEffect] = [PostCard()]
        if place == "thread":
            out.append(Thread())
        out += [Card(), Start(version, place)]
        users = tuple(seats)
        if game_kind.private is not None:
            out.extend(Panel(s) for s in range(len(users)))
        else:
            out.extend(self.notify.nudges(game_kind.rules.to_act(state), users))
        return list(out)

    def closing(self) -> list[Storable]:
        return [Closed()]

    async def forfeit(self, game_id: int, user_id: int) -> None:
        """A withdrawn player's seat in a live game forfeits, owing what a timeout's forfeit owes."""
        async with self.moves.turn(game_id) as before:
            if not before.row.live or user_id not in before.row.seats:
                return
            kind = self.catalog.get(before.row.kind)
            draft = self.moves.prepare(before, user_id, FORFEIT)
            result = await self.moves.commit(draft, owed(kind, draft, Source.CLOCK, notify=self.notify))
        self.outbox.kick(result.effects)

    def kick(self, items: Sequence[OutboxItem]) -> None:
        self.outbox.kick(items)

    def posted(self) -> None:
        self.poke()

    def changed(self, game: Loaded | None = None) -> None:
        """A game changed (the service's listeners): one that ended may end its round."""
        if game is None or not game.row.live:
            self.poke()

    # ---- the pass ---------------------------------------------------------------------------------

    def start(self) -> None:
        if self._task is None:
            self._closing = False
            self._task = asyncio.create_task(self._run(), name="quetbot-tournaments")

    async def stop(self, wait: float = 0.0) -> None:
        """Take on no new pass; with ``wait``, let the pass under way finish first (at most that many
        seconds): a post half sent is then finished, not left to its claim's expiry."""
        self._closing = True
        if self._task is not None and wait > 0 and not self._between.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._between.wait(), wait)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    def poke(self) -> None:
        self.idle.clear()
        self._wake.set()

    async def _run(self) -> None:
        if self.ready is not None:
            await self.ready()
        while not self._closing:
            self._wake.clear()
            self._between.clear()
            try:
                await self.run_due()
            except Exception:
                log.exception("The tournaments' pass failed; trying again shortly")
            finally:
                self._between.set()
            self.idle.set()
            poll = 1.0 if getattr(self.clock, "movable", False) else POLL
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=poll)

    async def run_due(self) -> None:
        refresh = getattr(self.clock, "refresh", None)
        if refresh is not None:
            refresh()
        await self.tournaments.run_due()
        if self.presenter is None:
            return  # (posts wait for the face: nothing is lost)
        now = self.clock()
        failed: set[int] = set()  # a tournament whose post failed: its later posts wait (order)
        for post in await self.storage.due_posts(now=now, holder=self.holder):
            if self._closing:
                return  # (stopping: the posts left are the next pass's, here or in another process)
            if post.tournament_id in failed:
                continue
            if not await self.storage.claim_post(
                post_id=post.id, holder=self.holder, now=now, until=now + CLAIM
            ):
                failed.add(post.tournament_id)
                continue
            if not await self._carry(post):
                failed.add(post.tournament_id)

    async def _carry(self, post: TournamentPost) -> bool:
        """Carry out one claimed post: True when done (or given up), False when to be tried again."""
        try:
            card_id = await self._send(post)
        except (discord.HTTPException, OSError, TimeoutError) as exc:
            status = getattr(exc, "status", 0)
            if status in GAVE_UP or post.attempts + 1 >= MAX_ATTEMPTS:
                log.warning(
                    "Tournament %s: post %s (%s) dropped: %s", post.tournament_id, post.id, post.kind, exc
                )
                await self.storage.finish_post(post_id=post.id, tournament_id=post.tournament_id)
                return True
            await self._later(post)
            return False
        except _NotYet as wait:  # (a card: it keeps no order with the other posts)
            await self.storage.retry_post(post_id=post.id, not_before=wait.until)
            return True
        except Exception:
            log.exception("Tournament %s: post %s (%s) failed", post.tournament_id, post.id, post.kind)
            await self._later(post)
            return False
        await self.storage.finish_post(
            post_id=post.id, tournament_id=post.tournament_id, card_message_id=card_id
        )
        return True

    async def _later(self, post: TournamentPost) -> None:
        await self.storage.retry_post(
            post_id=post.id, not_before=self.clock() + min(60.0, 2.0**post.attempts)
        )

    async def _send(self, post: TournamentPost) -> int | None:
        """Build and send the post; the card's id when this posted the card."""
        assert self.presenter is not None
        snap = await self.tournaments.snapshot(post.tournament_id)
        t = snap.tournament
        channel = self.client.get_partial_messageable(t.channel_id, guild_id=t.guild_id)
        nonce = f"t{post.id:x}.{int(post.created_at * 1000):x}"[:25]
        if post.kind == "card":
            answer = None if t.card_message_id is not None else await self._answer_of(t)
            if t.card_message_id is None and answer is None and self.clock() < t.created_at + CARD_GRACE:
                raise _NotYet(t.created_at + CARD_GRACE)  # (the command's answer may still record it)
            made = await self.presenter.card(snap)
            if answer is not None:  # the command's answer is the card: brought up to date, recorded
                await answer.edit(content=made.content, view=made.view, allowed_mentions=NO_PINGS)
                return answer.id
            if t.card_message_id is not None:
                message = channel.get_partial_message(t.card_message_id)
                with contextlib.suppress(discord.NotFound):  # (the card was deleted: the event goes on)
                    await message.edit(content=made.content, view=made.view, allowed_mentions=NO_PINGS)
                return None
            return await _post_message(channel, made, nonce)
        if post.kind == "round":
            made = await self.presenter.round_post(snap, post.round)
        elif post.kind == "final":
            made = await self.presenter.final_post(snap)
        else:
            log.warning("Tournament %s: unknown post kind %r dropped", t.id, post.kind)
            return None
        await _post_message(channel, made, nonce)
        return None

    async def _answer_of(self, t: TournamentRow) -> discord.WebhookMessage | None:
        """The answer to the command that opened ``t``, found again through its token when its id was
        never recorded (the process died right after answering): it is the card, not to be posted
        twice. None when there is none (Discord forgot the command, or its token has expired)."""
        if self.clock() - t.created_at >= TOKEN_LIFETIME:
            return None
        token = await self.storage.tournament_card_token(tournament_id=t.id)
        if token is None:
            return None
        if self.clock() < t.created_at + FIRST_ANSWER_WITHIN:  # (the command may still be answered)
            raise _NotYet(t.created_at + FIRST_ANSWER_WITHIN)
        answer = await original_answer(self.client, token)
        return None if answer is None or answer.flags.ephemeral else answer


async def _post_message(channel: discord.PartialMessageable, made: Post, nonce: str) -> int:
    if made.view is None:
        sent = await channel.send(made.content, files=made.files, allowed_mentions=NO_PINGS, nonce=nonce)
    else:
        sent = await channel.send(
            made.content, view=made.view, files=made.files, allowed_mentions=NO_PINGS, nonce=nonce
        )
    return sent.id


class _NotYet(Exception):
    """The post is not due yet (until ``until``)."""

    def __init__(self, until: float) -> None:
        super().__init__(until)
        self.until = until
