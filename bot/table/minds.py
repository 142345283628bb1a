"""Where computer players think: a pool of worker processes, off the event loop and off its GIL.

A decision is pure CPU work (a game's ``player.choose``); run in a thread it would still share the
interpreter lock with the event loop and slow every other game while it searches. `Minds` sends it to
a worker process instead (``workers`` of them, started on the first decision, with the ``spawn``
method so no thread of the bot is copied into them); the view and the seeded rng travel pickled, so
the choice is the same as in-process. With ``workers=0`` decisions run in a thread (tests of other
things, machines where processes are unwelcome). A worker that dies (killed, out of memory) breaks
the pool: the decision is made in a thread instead and the next one starts a fresh pool.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

from bot.jsontypes import JSONObject
from bot.players import LEVELS
from bot.table.workers import worker_pool

log = logging.getLogger(__name__)

V = TypeVar("V")  # the seat's view, handed to the player as it is
R = TypeVar("R")  # what a piece of work gives back


class Minds:
    def __init__(self, workers: int = 1) -> None:
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = worker_pool(self.workers)
        return self._pool

    async def choose(
        self, choose: Callable[[V, str, random.Random], JSONObject], view: V, level: str, rng: random.Random
    ) -> JSONObject:
        """The computer's action (``choose``: a game's player, see `bot.players`), computed in a
        worker process (``choose`` travels by name: a module-level function)."""
        if level not in LEVELS:
            raise ValueError(f"Unknown level {level!r}; one of {', '.join(LEVELS)}.")
        return await self.think(choose, view, level, rng)

    async def think(self, work: Callable[..., R], *args: object) -> R:
        """``work(*args)`` in a worker process (``work``: a module-level function; its arguments
        and result travel pickled): a computer's choice, a game's analysis (`bot.analysis`)."""
        if self.workers <= 0:
            return await asyncio.to_thread(work, *args)
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor(), work, *args)
        except BrokenProcessPool:
            log.warning("A computer players' worker process died; this work is done in a thread")
            self._discard()
            return await asyncio.to_thread(work, *args)

    def _discard(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    async def stop(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            await asyncio.to_thread(pool.shutdown, wait=True, cancel_futures=True)
