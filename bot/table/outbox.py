"""The outbox: what a move owes the world, carried out once each, in order per game.

A move (or a start, a cancel, a reminder) writes its effects in the same transaction as the game
change: post the new board, send a player their DM panel, refresh a panel, remind someone. This
worker carries them out after the first answer, retrying Discord errors with backoff, and resumes
whatever is left after a restart. An expired interaction or a crash between the answer and the post
therefore delays an announcement; it never loses one.

Order: a game's effects run one at a time in the order they were written, so a delayed board never
overtakes its successor. Different games run side by side.

Once each: every effect is idempotent or made so. Channel posts carry a nonce Discord enforces
(a repeat within minutes returns the first message); edits are edits; a board that answered an
interaction is found again through the interaction's token (its "@original" message). An effect is
completed (deleted, with what it produced recorded) in one transaction.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TypeVar

import discord

from bot.errors import MoveSaved
from bot.i18n.audience import reader
from bot.service import MoveResult
from bot.storage import Completion, OutboxItem, Storable, Storage
from bot.table.effects import OutboxEffect

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 8  # then the effect is dropped (logged): a lost post must not block a game forever
BACKOFF_MAX = 60.0
POLL = 30.0  # how often the worker looks for due effects nobody kicked (retries, restarts)
PAGE = 200  # items read at a time by that look
DONE_KEPT = 10_000
RECORD_EVERY = 0.05  # seconds: carried-out effects are recorded together at most this late
LEASE = 60.0  # seconds a process's hold on a game's outbox lasts unless renewed (see `_hold`)


@dataclass
class Done:
    """What carrying out an effect produced, recorded when it completes."""

    board_message_id: int | None = None
    lobby_message_id: int | None = None
    place_id: int | None = None  # the thread the game is now played in
    dm_panel: tuple[int, int, int, int] | None = None  # game id, user id, DM channel id, message id
    dm_blocked: tuple[int, int] | None = None  # game id, user id
    then: list[Storable] = field(default_factory=list)  # follow-ups (`bot.table.effects`)


def nonce_of(item: OutboxItem) -> str:
    """The nonce of the message an effect posts: the same for every try of that effect, and unique
    beyond its database's ids (a database started afresh reuses them; its items' times differ)."""
    return f"q{item.id:x}.{int(item.created_at * 1000):x}"


@dataclass
class Mover:
    """The interaction of the person whose move wrote the effects: told once if one of them cannot
    be carried out (their move counts all the same)."""

    interaction: discord.Interaction
    told: bool = False

    async def tell(self, game_id: int) -> None:
        if self.told:
            return
        self.told = True
        try:
            text = reader(self.interaction).say(MoveSaved(game_id).msg)
            await self.interaction.followup.send(text, ephemeral=True)
        except discord.HTTPException:
            log.info("Could not tell the mover of game %s that their move is saved", game_id)


@dataclass
class Context:
    """What the process knows beyond the stored effect: the live interaction that may answer it,
    the mover to tell if it fails, and what the code that wrote the effect already had in hand."""

    interaction: discord.Interaction | None = None
    mover: Mover | None = None
    # The move whose news an `announce` effect is, as the process that made it has it (its views
    # computed once); None after a restart (the move is replayed from the log).
    result: MoveResult | None = None
    # A `post_card` effect: the id of the message that answered the command with the card (handed
    # over by that command), or the command was forgotten by Discord (no answer to look for).
    answer: int | None = None
    forgotten: bool = False
    # Set by the carrier once the interaction is answered (or can no longer be): else the code
    # that waited for the effect says where the board went.
    answered: bool = False
    # Held while the interaction is being answered: the handler may defer it (the answer is late)
    # while the carrier is about to answer it; whoever comes second sees the other's answer.
    answering: asyncio.Lock = field(default_factory=asyncio.Lock)


E = TypeVar("E", bound=OutboxEffect)
# What carries out one class of effect: given the stored item, the effect read from it, and the context.
Carrier = Callable[[OutboxItem, E, Context], Awaitable[Done | None]]
_Run = Callable[[OutboxItem, Context], Awaitable[Done | None]]


class Outbox:
    def __init__(
        self,
        storage: Storage,
        clock: Callable[[], float] = time.time,
        *,
        holder: str | None = None,
        on_completed: Callable[[OutboxItem, Done], None] | None = None,
    ) -> None:
        """``on_completed``: told of each item once it is carried out, with what it made (the
        composition root keeps that in the games' cache)."""
        self.storage = storage
        self.clock = clock
        # Processes sharing the database: this one's name in the games' outbox leases (see
        # `_hold`); None when it is alone (then nothing is leased).
        self.holder = holder
        self._leases: dict[int, float] = {}  # game id -> when this process's lease on it expires
        # Game id -> the highest id of its items known when its pending items were last read under
        # the lease: an item above it is carried out only after reading them again (`_carry_queue`).
        self._seen: dict[int, int] = {}
        self._carriers: dict[str, _Run] = {}  # kind -> how its items are carried out
        self._queues: dict[int, dict[int, OutboxItem]] = {}  # game id -> its known items by id
        self._contexts: dict[int, Context] = {}  # item id -> context
        self._drains: dict[int, asyncio.Task[None]] = {}
        self._finished: dict[int, asyncio.Event] = {}  # item id -> set when done (or given up)
        # Items committed whose kick (with the interaction that answers them) is still to come: the
        # game's queue waits for them (see `reserve`).
        self._reserved: dict[int, asyncio.Event] = {}
        # Items this process finished lately: a pass over the database that read one just before it
        # was completed must not carry it out again. Bounded; ids only grow.
        self._done: OrderedDict[int, None] = OrderedDict()
        # Games whose pending items this process has read from the database since it started (see
        # `_run_game`). Bounded; a game forgotten is read again.
        self._loaded: OrderedDict[int, None] = OrderedDict()
        self._task: asyncio.Task[None] | None = None
        self._unrecorded: list[Completion] = []  # see `_flush_soon`
        self._flusher: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self.on_completed = on_completed

    def carry(self, effect: type[E], carrier: Carrier[E]) -> None:
        """Items of ``effect``'s kind are carried out by ``carrier``, each read as an ``effect``
        first (an item that does not fit is refused as a failure: `bot.table.effects.BadEffect`)."""

        async def run(item: OutboxItem, context: Context) -> Done | None:
            return await carrier(item, effect.parse(item.args, token=item.token), context)

        self._carriers[effect.kind] = run

    # ---- feeding ----------------------------------------------------------------------------------

    def reserve(self, items: Sequence[OutboxItem]) -> None:
        """``items`` were just committed, and are kicked once the mover has had a first answer:
        until then they hold their place in their game's order, so nothing written after them (a
        move made meanwhile) is carried out first. The kick must follow (in a ``finally``)."""
        for item in items:
            if item.id not in self._done:
                self._reserved.setdefault(item.id, asyncio.Event())
                self._queues.setdefault(item.game_id, {}).setdefault(item.id, item)
                self._finished.setdefault(item.id, asyncio.Event())

    def kick(self, items: Sequence[OutboxItem], contexts: dict[int, Context] | None = None) -> None:
        """Carry out ``items`` (just written) now, in order per game."""
        for item in items:
            held = self._reserved.pop(item.id, None)
            if held is not None:
                held.set()
        items = [item for item in items if item.id not in self._done]
        for item in items:
            self._queues.setdefault(item.game_id, {})[item.id] = item
            self._finished.setdefault(item.id, asyncio.Event())
        for item_id, context in (contexts or {}).items():
            self._contexts[item_id] = context
        for game_id in {item.game_id for item in items}:
            self._drain(game_id)

    async def wait_for(self, item_id: int) -> None:
        event = self._finished.get(item_id)
        if event is not None:
            await event.wait()

    def _drain(self, game_id: int) -> None:
        task = self._drains.get(game_id)
        if task is None or task.done():
            self._drains[game_id] = asyncio.create_task(
                self._run_game(game_id), name=f"quetbot-outbox-{game_id}"
            )

    # ---- the background pass (restarts, retries) ----------------------------------------------------

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="quetbot-outbox")

    async def stop(self, wait: float = 0.0) -> None:
        """Stop; with ``wait``, first let the games' items under way be carried out (at most that
        many seconds), looking for no new ones."""
        if wait > 0:
            if self._task is not None:
                self._task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._task
                self._task = None
            loop = asyncio.get_running_loop()
            end = loop.time() + wait
            while drains := [t for t in self._drains.values() if not t.done()]:  # (follow-ups too)
                if loop.time() >= end:
                    log.warning("Stopping: the outbox items of %d games are left for later", len(drains))
                    break
                await asyncio.wait(drains, timeout=end - loop.time())
        tasks = [t for t in (self._task, self._flusher, *self._drains.values()) if t is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._task = self._flusher = None
        self._drains.clear()
        if self._unrecorded:
            with contextlib.suppress(Exception):  # (else they are carried out again after the restart)
                await self._record(self._unrecorded)

    def poke(self) -> None:
        self._wake.set()

    async def _run(self) -> None:
        while True:
            self._wake.clear()
            try:
                refresh = getattr(self.clock, "refresh", None)
                if refresh is not None:
                    refresh()
                await self._pass()
            except Exception:
                log.exception("The outbox pass failed; trying again shortly")
            poll = 1.0 if getattr(self.clock, "movable", False) else POLL
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=poll)

    async def _pass(self) -> None:
        """Kick every item due now (of games not being carried out already), page by page: after a
        restart with a long backlog, all of it (read once), not only the first page."""
        now, after, busy = self.clock(), 0, self._busy_games()
        while True:
            due = await self.storage.pending_effects(now=now, holder=self.holder, after=after, limit=PAGE)
            self.kick([i for i in due if i.game_id not in busy and i.id not in self._reserved])
            if len(due) < PAGE:
                return
            after = due[-1].id

    def _busy_games(self) -> set[int]:
        return {g for g, t in self._drains.items() if not t.done()}

    @property
    def busy(self) -> bool:
        return bool(self._busy_games()) or bool(self._unrecorded)

    # ---- carrying out one game's effects ------------------------------------------------------------

    async def _run_game(self, game_id: int) -> None:
        if self.holder is None:
            if game_id not in self._loaded:
                # The first time this process carries out the game's items: those an earlier life
                # left behind come first (a new move's items must not overtake them; the pass over
                # the database reads only so many items, and only every `POLL` seconds).
                await self._load(game_id)
            await self._carry_queue(game_id, None)
            self._queues.pop(game_id, None)
            return
        # Sharing the database: carry the game's items only while holding its lease, all of them in
        # order (another process's too), and record what was done as the lease is given up (and, a
        # game busy for long, each time the lease is renewed).
        completions: list[Completion] = []
        try:
            while await self._hold(game_id):
                await self._carry_queue(game_id, completions)
                if self._queues.get(game_id):
                    continue  # (lost the lease meanwhile: wait for it, or for the items to go)
                results = await self.storage.release_outbox(
                    game_id=game_id, holder=self.holder, completions=completions
                )
                completions.clear()
                self._let_go(game_id)
                follow = [item for result in results for item in result.effects]
                if follow:
                    self.kick(follow)
                if not self._queues.get(game_id):
                    break  # (nothing kicked meanwhile)
        finally:
            if completions:  # stopped half-way: record what was done (else it is done again)
                with contextlib.suppress(Exception):
                    await self.storage.release_outbox(
                        game_id=game_id, holder=self.holder, completions=completions
                    )
                self._let_go(game_id)
        if not self._queues.get(game_id):
            self._queues.pop(game_id, None)

    async def _load(self, game_id: int) -> None:
        """Add the game's items pending in the database to its queue (but those done here)."""
        pending = await self.storage.effects_of_game(game_id=game_id)
        queue = self._queues.setdefault(game_id, {})
        for item in pending:
            if item.id not in self._done:
                queue.setdefault(item.id, item)
                self._finished.setdefault(item.id, asyncio.Event())
        self._loaded[game_id] = None
        if len(self._loaded) > DONE_KEPT:
            self._loaded.popitem(last=False)

    async def _hold(self, game_id: int) -> bool:
        """Take the game's lease (or renew it), adding the game's pending items to its queue: True.
        While another process holds it, wait; False once none of this process's items of the game
        are pending any more (the holder carried them out: handed over, nothing is held)."""
        assert self.holder is not None
        delay = 0.02
        while True:
            now, known = self.clock(), max(self._queues.get(game_id, {}), default=0)
            pending = await self.storage.claim_outbox(
                game_id=game_id, holder=self.holder, now=now, expires=now + LEASE
            )
            queue = self._queues.setdefault(game_id, {})
            if pending is not None:
                self._leases[game_id] = now + LEASE
                self._take(game_id, pending, known)
                return True
            self._let_go(game_id)
            asked = list(queue)  # (not those kicked while the answer comes: they are pending)
            still = await self.storage.pending_of(item_ids=asked)
            self._hand_over(game_id, [i for i in asked if i not in still])
            if not queue:
                return False
            await asyncio.sleep(delay)
            delay = min(2 * delay, 1.0)

    def _let_go(self, game_id: int) -> None:
        self._leases.pop(game_id, None)
        self._seen.pop(game_id, None)

    def _take(self, game_id: int, pending: Sequence[OutboxItem], known: int) -> None:
        """The lease is this process's, and ``pending`` all the game's items not yet completed: add
        them to its queue; those queued here that are no longer pending were carried out elsewhere.
        ``known``: the highest id queued here before that read began (committed before it). No item
        of the game written before these can show up later (see `_carry_queue`)."""
        queue = self._queues.setdefault(game_id, {})
        still = {item.id for item in pending}
        self._hand_over(game_id, [i for i in queue if i <= known and i not in still])
        for item in pending:
            if item.id not in self._done:
                queue.setdefault(item.id, item)
                self._finished.setdefault(item.id, asyncio.Event())
        self._seen[game_id] = max([*still, known])

    def _hand_over(self, game_id: int, item_ids: Sequence[int]) -> None:
        """These items were carried out by another process: whoever waits for them goes on."""
        queue = self._queues.get(game_id, {})
        for item_id in item_ids:
            item = queue.get(item_id)
            if item is not None:
                self._finish(item)

    async def _carry_queue(self, game_id: int, completions: list[Completion] | None) -> None:
        """Carry out the game's queued items in order. ``completions``: where to keep what they
        produced until the lease is given up (None: not leased; recorded together soon)."""
        queue = self._queues.get(game_id, {})
        while queue:
            item = queue[min(queue)]
            wait = item.not_before - self.clock()
            if wait > 0:
                await asyncio.sleep(wait)
            if completions is not None:
                aging = self._leases.get(game_id, 0.0) - self.clock() < LEASE / 2
                if aging or item.id > self._seen.get(game_id, 0):
                    # Renewed, the lease also reads the game's pending items again: another process
                    # may have written some since, which come before this one (ids grow per game
                    # in commit order, see `insert_effects`).
                    if not await self._renew(game_id):
                        # Another process took the game over (this one was too slow): what was done
                        # is recorded at once; the rest is that process's, or comes back with the lease.
                        await self.storage.complete_effects(completions=list(completions))
                        completions.clear()
                        return
                    if aging and completions:
                        # A game busy for long keeps its lease: what was done is recorded now too,
                        # so a crash redoes at most half a lease of it (a post's nonce holds for
                        # minutes).
                        await self._record(completions)
                    continue
            held = self._reserved.get(item.id)
            if held is not None:  # its mover is being answered: it comes first, once kicked
                await held.wait()
                continue
            item = queue.get(item.id, item)
            done = await self._carry_one(item)
            if done is None:
                queue[item.id] = replace(item, attempts=item.attempts + 1, not_before=self._backoff(item))
                continue
            completion = Completion(
                item.id,
                board_message_id=done.board_message_id,
                lobby_message_id=done.lobby_message_id,
                place_id=done.place_id,
                dm_panel=done.dm_panel,
                dm_blocked=done.dm_blocked,
                then=tuple(done.then),
            )
            # Follow-ups get their ids (and their place in the order) now; a game's new place (its
            # thread) is stored before anyone may look for the game there, and its card before
            # anything is started from it (its thread).
            if completion.then or completion.place_id is not None or completion.lobby_message_id is not None:
                await self._record([completion])
            elif completions is not None:
                completions.append(completion)
            else:
                self._unrecorded.append(completion)
                self._flush_soon()
            if self.on_completed is not None:
                self.on_completed(item, done)
            self._finish(item)

    async def _renew(self, game_id: int) -> bool:
        assert self.holder is not None
        now, known = self.clock(), max(self._queues.get(game_id, {}), default=0)
        pending = await self.storage.claim_outbox(
            game_id=game_id, holder=self.holder, now=now, expires=now + LEASE
        )
        if pending is None:
            self._let_go(game_id)
            return False
        self._leases[game_id] = now + LEASE
        self._take(game_id, pending, known)
        return True

    # ---- recording what was carried out -------------------------------------------------------------

    # Carried-out effects are recorded (deleted from the outbox, with what they produced) together,
    # every game's in one transaction a moment later, not one write each. What they produced is in
    # the service's cache at once (`on_completed`), so nothing in this process waits for the write;
    # after a crash before it, they are carried out again, which each effect survives (a post's
    # nonce, an edit, a strip).

    def _flush_soon(self) -> None:
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush_later(), name="quetbot-outbox-record")

    async def _flush_later(self) -> None:
        await asyncio.sleep(RECORD_EVERY)
        while self._unrecorded:
            await self._record(self._unrecorded)

    async def _record(self, completions: list[Completion]) -> None:
        """Record carried-out effects (one transaction), and start their follow-ups."""
        batch = list(completions)
        results = await self.storage.complete_effects(completions=batch)
        del completions[: len(batch)]
        follow = [item for result in results for item in result.effects]
        if follow:
            self.kick(follow)

    def _finish(self, item: OutboxItem) -> None:
        self._queues.get(item.game_id, {}).pop(item.id, None)
        self._contexts.pop(item.id, None)
        event = self._finished.pop(item.id, None)
        if event is not None:
            event.set()
        self._done[item.id] = None
        if len(self._done) > DONE_KEPT:
            self._done.popitem(last=False)

    def _backoff(self, item: OutboxItem) -> float:
        return self.clock() + min(BACKOFF_MAX, 0.5 * 2**item.attempts)

    async def _carry_one(self, item: OutboxItem) -> Done | None:
        """Carry out one effect: what it produced (also when it is given up or refused for good),
        or None when it is to be tried again."""
        carrier = self._carriers.get(item.kind)
        context = self._contexts.get(item.id) or Context()
        try:
            if carrier is None:
                raise LookupError(f"no carrier for outbox effects of kind {item.kind!r}")
            return await carrier(item, context) or Done()
        except (OSError, TimeoutError) as exc:  # Discord could not be reached
            return await self._retry(item, f"no connection ({exc})")
        except discord.HTTPException as exc:
            if exc.status >= 500 or exc.status == 429:
                return await self._retry(item, f"HTTP {exc.status}")
            log.warning(
                "Outbox effect %s (%s) of game %s refused: HTTP %s %s; dropped",
                item.id,
                item.kind,
                item.game_id,
                exc.status,
                exc.code,
            )
            if context.mover is not None:
                await context.mover.tell(item.game_id)
            return Done()
        except Exception:
            log.exception("Outbox effect %s (%s) of game %s failed", item.id, item.kind, item.game_id)
            return await self._retry(item, "an error")

    async def _retry(self, item: OutboxItem, why: str) -> Done | None:
        if item.attempts + 1 >= MAX_ATTEMPTS:
            context = self._contexts.get(item.id)
            if context is not None and context.mover is not None:
                await context.mover.tell(item.game_id)
            log.error(
                "Outbox effect %s (%s) of game %s given up after %s attempts: %s",
                item.id,
                item.kind,
                item.game_id,
                item.attempts + 1,
                why,
            )
            return Done()
        log.info(
            "Outbox effect %s (%s) of game %s will be retried: %s", item.id, item.kind, item.game_id, why
        )
        await self.storage.retry_effect(item_id=item.id, not_before=self._backoff(item))
        return None
