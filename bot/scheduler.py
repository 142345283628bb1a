"""The deadline clock: reminders halfway to a deadline, forfeits at it, lobbies closed after a day.

Everything it acts on is in the database (`waits`, the lobbies' ages), so nothing lives only in
memory: after a restart it simply looks at what is due. It sleeps until the next due moment (at most
a few minutes, so a change made by another process is seen too), and `poke()` wakes it early when a
move sets a new deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import discord

from bot.deadlines import LOBBY_LIFETIME, MIN_TIMEOUT
from bot.errors import GameError
from bot.storage import Wait

if TYPE_CHECKING:
    from bot.app import QuetBot

log = logging.getLogger(__name__)

MAX_SLEEP = 300.0


class Scheduler:
    def __init__(self, bot: QuetBot, clock: Callable[[], float] = time.time) -> None:
        self.bot = bot
        self.clock = clock
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.idle = asyncio.Event()  # set whenever a pass has finished (tests wait on it)
        self._next_pass = 0.0  # when the sleeping loop looks again, by `clock`

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="quetbot-deadlines")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    def poke(self) -> None:
        """Look again now (a deadline was set or the clock was moved)."""
        self.idle.clear()
        self._wake.set()

    def changed(self) -> None:
        """A game changed (the service says so after every commit). Nothing a change sets falls due
        sooner than a reminder halfway through the shortest timeout, so look early only when the next
        pass is further away than that. (A pass is four queries: made after every move, it was a
        third of all database work under load.)"""
        if self._next_pass > self.clock() + MIN_TIMEOUT / 2:
            self.poke()

    async def _run(self) -> None:
        await self.bot.wait_until_ready()
        while True:
            self._wake.clear()  # before the pass: a poke during it makes another pass at once
            try:
                await self.run_due()
            except Exception:
                log.exception("The deadline pass failed; trying again shortly")
            self.idle.set()
            storage = self.bot.storage
            next_due = await storage.next_due(lobby_lifetime=LOBBY_LIFETIME)
            delay = MAX_SLEEP if next_due is None else min(MAX_SLEEP, max(0.0, next_due - self.clock()))
            self._next_pass = self.clock() + delay
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=max(delay, 0.05))

    async def run_due(self) -> None:
        """Everything due now: reminders first, then forfeits, then stale lobbies."""
        now = self.clock()
        storage = self.bot.storage
        for wait in await storage.due_reminders(now=now):
            await self._remind(wait)
        for wait in await storage.due_waits(now=now):
            await self._time_out(wait, now)
        for game_id in await storage.expired_lobbies(created_before=now - LOBBY_LIFETIME):
            await self._expire_lobby(game_id)

    async def _remind(self, wait: Wait) -> None:
        await self.bot.storage.mark_reminded(game_id=wait.game_id, seat=wait.seat)
        game = await self.bot.service.get(wait.game_id)
        if not game.row.live or wait.seat >= len(game.row.seats):
            return
        user_id = game.row.seats[wait.seat]
        if await self.bot.storage.reminders_muted(game_id=game.id, user_id=user_id):
            return
        cog = self.bot.game_cogs.get(game.row.kind)
        if cog is not None:
            await cog.remind(game, wait)

    async def _time_out(self, wait: Wait, now: float) -> None:
        try:
            result = await self.bot.service.time_out(wait.game_id, wait.seat, now=now)
        except GameError as exc:
            log.warning("Could not time out seat %s of game %s: %s", wait.seat, wait.game_id, exc)
            await self.bot.storage.drop_wait(game_id=wait.game_id, seat=wait.seat)
            return
        if result is None:
            # Nothing to forfeit (the seat moved meanwhile): make sure the stale row goes.
            game = await self.bot.service.get(wait.game_id)
            if not game.row.live or wait.seat not in game.rules.to_act(game.state):
                await self.bot.storage.drop_wait(game_id=wait.game_id, seat=wait.seat)
            return
        cog = self.bot.game_cogs.get(result.after.row.kind)
        if cog is None:
            return
        try:
            await cog.publish(None, result)
            await cog.notify(result)
        except discord.HTTPException as exc:
            log.warning("Could not announce the timeout in game %s: HTTP %s", wait.game_id, exc.status)

    async def _expire_lobby(self, game_id: int) -> None:
        game = await self.bot.service.expire_lobby(game_id)
        if game is None:
            return
        admin = self.bot.get_cog("GameAdmin")
        if admin is not None:
            await admin.lobby_expired(game)  # type: ignore[attr-defined]
