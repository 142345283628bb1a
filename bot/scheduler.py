"""The deadline clock: reminders halfway to a deadline, forfeits at it, lobbies closed after a day,
takeback requests closed after an hour,
and computer players' moves a short pause after the rules start waiting for them; and retention:
interaction tokens dropped after 15 minutes, typed answers after a day.

Everything it acts on is in the database (`waits`, the lobbies' ages), so nothing lives only in
memory: after a restart it simply looks at what is due. What a due item owes the world (a reminder,
a forfeit's board, a lobby's closing note) is written to the outbox in the same transaction as the
item's own change, and carried out from there. It sleeps until the next due moment (at most a few
minutes, so a change made by another process is seen too), and `poke()` wakes it early.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

from bot.deadlines import LOBBY_LIFETIME, MIN_TIMEOUT
from bot.errors import GameError
from bot.quiet import next_end, period_at, zone
from bot.service import Changes, Games, Loaded, LobbyLife
from bot.storage import StaleVersion, Storable, Storage, Wait
from bot.storage.quiet import Quiet
from bot.table.computers import Computers
from bot.table.digest import DigestDesk
from bot.table.effects import Expired, OutboxEffect, Remind, RemindDm
from bot.table.outbox import Outbox
from bot.table.play import Plays

log = logging.getLogger(__name__)

MAX_SLEEP = 300.0
MOVABLE_SLEEP = 1.0  # the longest sleep when a test may move the clock (QUETBOT_CLOCK_OFFSET_FILE)
CLAIM = 60.0  # seconds a process's claim on a due computer move or forfeit holds (then another may)
# Retention (PRIVACY.md): interaction tokens are dropped after their 15 minutes (kept 14, looked at
# every minute: gone by the 15th; the bot uses a token for 14 minutes at most), typed answers waiting
# for a game after a day. The pass sleeps at most that minute.
TOKEN_KEPT = 14 * 60.0
TYPED_KEPT = 24 * 3600.0
RETENTION_EVERY = 60.0
PUZZLE_EVERY = 30.0  # the daily puzzle's posts due are looked at every this many seconds at most
SEASON_EVERY = 30.0  # the seasons ended (and their posts due) likewise (bot/table/seasons.py)


class Scheduler:
    def __init__(
        self,
        storage: Storage,
        games: Games,
        lobby: LobbyLife,
        plays: Plays,
        outbox: Outbox,
        *,
        computers: Computers | None = None,
        ready: Callable[[], Awaitable[object]] | None = None,
        clock: Callable[[], float] = time.time,  # (a `bot.clock.Clock` is refreshed on each pass)
        holder: str = "quetbot",  # this process's name in claims (the same after a restart)
        changes: Changes | None = None,  # (told of every committed change: see `changed`)
        takebacks: Callable[[float], Awaitable[None]] | None = None,  # takeback requests past their hour
        digests: DigestDesk | None = None,  # the daily digests (issue 27)
        puzzles: Callable[[float, str], Awaitable[None]] | None = None,  # the daily puzzle's posts
        seasons: Callable[[float, str], Awaitable[None]] | None = None,  # seasons ended, their posts
    ) -> None:
        self.seasons = seasons
        self._seasons_at = -SEASON_EVERY  # when the seasons ended were last looked at
        self.puzzles = puzzles
        self._puzzles_at = -PUZZLE_EVERY  # when the puzzle posts due were last looked at
        self.holder = holder
        self.takebacks = takebacks
        self.storage = storage
        self.games = games
        self.lobby = lobby
        self.plays = plays
        self.outbox = outbox
        self.computers = computers
        self.digests = digests
        self.ready = ready
        self.clock = clock
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.idle = asyncio.Event()  # set whenever a pass has finished (tests wait on it)
        self._next_pass = 0.0  # when the sleeping loop looks again, by `clock`
        self._retention_at = 0.0  # when stale tokens and typed answers were last dropped
        self._closing = False  # stopping: no new pass
        self._between = asyncio.Event()  # set while no pass is under way
        self._between.set()
        if changes is not None:
            changes.listen(self.changed)

    def start(self) -> None:
        if self._task is None:
            self._closing = False
            self._task = asyncio.create_task(self._run(), name="quetbot-deadlines")

    async def stop(self, wait: float = 0.0) -> None:
        """Take no more due work; with ``wait``, let the pass under way finish first (at most that
        many seconds), so that nothing is left half done."""
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
        """Look again now (a deadline was set or the clock was moved)."""
        self.idle.clear()
        self._wake.set()

    def changed(self, game: Loaded | None = None) -> None:
        """A game changed (the service says so after every commit). Nothing a change sets falls due
        sooner than a reminder halfway through the shortest timeout, so look early only when the next
        pass is further away than that (a pass is four queries: made after every move, it was a
        third of all database work under load), or when the game now waits for a computer."""
        soon = MIN_TIMEOUT / 2
        if self.computers is not None and game is not None and self.computers.awaited(game):
            soon = self.computers.pause
        if self._next_pass > self.clock() + soon:
            self.poke()

    async def _run(self) -> None:
        if self.ready is not None:
            await self.ready()
        while not self._closing:
            self._wake.clear()  # before the pass: a poke during it makes another pass at once
            self._between.clear()
            try:
                await self.run_due()
            except Exception:
                log.exception("The deadline pass failed; trying again shortly")
            finally:
                self._between.set()
            self.idle.set()
            if self._closing:
                return
            pause = self.computers.pause if self.computers is not None else 0.0
            next_due = await self.storage.next_due(lobby_lifetime=LOBBY_LIFETIME, computer_pause=pause)
            if self.digests is not None:
                digest_due = await self.storage.next_digest()
                if digest_due is not None:
                    next_due = digest_due if next_due is None else min(next_due, digest_due)
            longest = MOVABLE_SLEEP if getattr(self.clock, "movable", False) else self._longest_sleep()
            delay = longest if next_due is None else min(longest, max(0.0, next_due - self.clock()))
            self._next_pass = self.clock() + delay
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=max(delay, 0.05))

    def _longest_sleep(self) -> float:
        """Until the next look at what retention drops (see `RETENTION_EVERY`), at most `MAX_SLEEP`."""
        return min(MAX_SLEEP, max(1.0, self._retention_at + RETENTION_EVERY - self.clock()))

    async def run_due(self) -> None:
        """Everything due now: computers' moves, reminders, forfeits, daily digests, then stale lobbies.

        Several processes may share the database, each running this pass. Each item is done once:
        a computer's move and a forfeit by the process whose claim on the wait succeeds (`claim_wait`:
        the same process restarted takes it back at once, another once the claim expires), a
        reminder by the one whose mark finds it unreminded, a lobby's expiry by the one whose
        compare-and-swap on the lobby's version succeeds; whatever each owes the world goes to the
        outbox in the same transaction. A digest is sent by the process whose claim on it succeeds
        (`bot.table.digest`)."""
        refresh = getattr(self.clock, "refresh", None)
        if refresh is not None:
            refresh()  # (a test may have moved the clock of every process)
        now = self.clock()
        if self.computers is not None:
            due = await self.storage.due_computers(
                since_before=now - self.computers.pause, now=now, holder=self.holder
            )
            for wait in due:
                if self.computers.busy(wait.game_id, wait.seat):
                    continue
                if await self.storage.claim_wait(
                    game_id=wait.game_id, seat=wait.seat, holder=self.holder, now=now, until=now + CLAIM
                ):
                    self.computers.due(wait.game_id, wait.seat, now=now)
        for wait in await self.storage.due_reminders(now=now):
            await self._remind(wait)
        for wait in await self.storage.due_waits(now=now, holder=self.holder):
            if await self._after_quiet(wait, now):
                continue
            claimed = await self.storage.claim_wait(
                game_id=wait.game_id, seat=wait.seat, holder=self.holder, now=now, until=now + CLAIM
            )
            if claimed:
                await self._time_out(wait, now)
        for quiet in await self.storage.quiet_ended(now=now):
            await self._release_held(quiet, now)
        if self.takebacks is not None:
            await self.takebacks(now)
        if self.digests is not None:
            await self.digests.run_due(now, self.holder)
        if self.puzzles is not None and (
            now - self._puzzles_at >= PUZZLE_EVERY or getattr(self.clock, "movable", False)
        ):
            self._puzzles_at = now
            await self.puzzles(now, self.holder)
        if self.seasons is not None and (
            now - self._seasons_at >= SEASON_EVERY or getattr(self.clock, "movable", False)
        ):
            self._seasons_at = now
            await self.seasons(now, self.holder)
        for game_id in await self.storage.expired_lobbies(created_before=now - LOBBY_LIFETIME):
            changed = await self.lobby.expire_lobby(game_id, effects=[Expired()])
            if changed is not None:
                self.outbox.kick(changed.effects)
        if now - self._retention_at >= RETENTION_EVERY:
            self._retention_at = now
            await self.storage.drop_stale_tokens(
                tokens_before=now - TOKEN_KEPT, replies_before=now - TYPED_KEPT
            )

    async def _remind(self, wait: Wait) -> None:
        game = await self.games.get(wait.game_id)
        effects: list[OutboxEffect] = []
        if game.row.live and wait.seat < len(game.row.seats):
            user_id = game.row.seats[wait.seat]
            if not await self.storage.reminders_muted(game_id=game.id, user_id=user_id):
                effects = [Remind(wait.seat, wait.deadline), RemindDm(wait.seat, wait.deadline)]
        items = await self.storage.mark_reminded(
            game_id=wait.game_id, seat=wait.seat, effects=effects, deadline=wait.deadline
        )
        self.outbox.kick(items)

    async def _after_quiet(self, wait: Wait, now: float) -> bool:
        """A deadline that fell inside its player's quiet hours (`/game quiet`) moves to their end
        instead of forfeiting them (True: moved)."""
        quiet = await self.storage.quiet_of_seat(game_id=wait.game_id, seat=wait.seat)
        if quiet is None:
            return False
        period = period_at(wait.deadline, quiet.starts, quiet.ends, zone(quiet.tz))
        if period is None or period[1] <= now:
            return False
        await self.storage.move_deadline(
            game_id=wait.game_id, seat=wait.seat, deadline=wait.deadline, to=period[1]
        )
        return True

    async def _release_held(self, quiet: Quiet, now: float) -> None:
        """Their quiet hours are over: what was held back is sent, a reminder for each move awaited
        from them that began, or was to be reminded of, inside them (as they chose with /game notify)."""
        tz = zone(quiet.tz)
        period = period_at(quiet.next_end - 1, quiet.starts, quiet.ends, tz)
        began = period[0] if period is not None else quiet.next_end
        owed: dict[int, list[Storable]] = {}
        for wait in await self.storage.waits_of_user(user_id=quiet.user_id):
            inside = began <= wait.since < quiet.next_end
            held = inside or (wait.reminded and began <= wait.remind_at < quiet.next_end)
            if held and wait.deadline > now:
                owed[wait.game_id] = [Remind(wait.seat, wait.deadline), RemindDm(wait.seat, wait.deadline)]
        then = next_end(max(now, quiet.next_end), quiet.starts, quiet.ends, tz)
        items = await self.storage.release_held(
            user_id=quiet.user_id, next_end=quiet.next_end, then=then, effects=owed
        )
        self.outbox.kick(items)

    async def _time_out(self, wait: Wait, now: float) -> None:
        try:
            done = await self.plays.time_out(wait.game_id, wait.seat, now=now)
        except StaleVersion:
            # Another process changed the game meanwhile (a move racing the deadline): that change
            # renewed the seat's wait (ours was claimed) or ended it; the next pass looks again.
            # Dropping it here would drop the new wait: a seat still awaited, with no deadline.
            return
        except GameError as exc:
            log.warning("Could not time out a player of game %s: %s", wait.game_id, exc)
            await self.storage.drop_wait(game_id=wait.game_id, seat=wait.seat)
            return
        if not done:
            # Nothing to forfeit (the seat moved meanwhile): make sure the stale row goes.
            game = await self.games.get(wait.game_id)
            if not game.row.live or wait.seat not in game.rules.to_act(game.state):
                await self.storage.drop_wait(game_id=wait.game_id, seat=wait.seat)
