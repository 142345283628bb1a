"""Where boards are drawn: a pool of worker processes, off the event loop and off its GIL.

Drawing a board (a presenter's ``render``: view -> PNG) is a few milliseconds of pure CPU work; run in
a thread it still holds the interpreter lock, so every interaction that arrives meanwhile waits for
it. `Drawing` sends it to a worker process instead, as `bot.table.minds.Minds` does with decisions:
``workers`` processes, started with the ``spawn`` method (no thread of the bot is copied into them).
The function travels by name (a module-level function), the view and the table pickled (a `Lang` as
its code: see `Lang.__reduce__`), the PNG back as bytes: the same image as drawn in-process (its
palette may list the colours in another order: see `bot.render.common`). The bot starts its pool as
it starts (``warm``: the drawing functions whose modules its worker imports then, the games'
presenters, discord.py among them: about half a second of CPU, once); until the pool has answered
once, boards are drawn in a thread, so no board waits for a process to start. With ``workers=0``
boards are drawn in a thread (tests, machines where processes are unwelcome). A worker that dies
breaks the pool: that board is drawn in a thread and the next board starts a fresh pool.
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import logging
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import ParamSpec

from bot.table.workers import worker_pool

log = logging.getLogger(__name__)

P = ParamSpec("P")


def _warm(*modules: str) -> None:
    """Run in a new worker: import the drawing functions' modules before the first board needs them."""
    for module in modules:
        importlib.import_module(module)


class Drawing:
    def __init__(self, workers: int = 1, *, warm: Iterable[Callable[..., bytes]] = ()) -> None:
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None
        self._warming: Future[None] | None = None
        self.in_workers = 0  # boards drawn by a worker process so far
        if warm and workers > 0:  # start the pool now, its worker importing what will draw
            self._executor(*sorted({render.__module__ for render in warm}))

    def _executor(self, *modules: str) -> ProcessPoolExecutor | None:
        """The pool, once it has started (None while its first worker is starting: draw in a thread)."""
        if self._pool is None:
            self._pool = worker_pool(self.workers)
            self._warming = self._pool.submit(_warm, *modules)
        warming = self._warming
        if warming is not None:
            if not warming.done():
                return None
            self._warming = None
            if warming.exception() is not None:  # the pool broke while starting
                self._discard()
                return None
        return self._pool

    async def draw(self, render: Callable[P, bytes], /, *args: P.args, **kwargs: P.kwargs) -> bytes:
        """``render(*args, **kwargs)`` (a module-level function returning a PNG), in a worker process."""
        call = functools.partial(render, *args, **kwargs)
        if self.workers <= 0:
            return await asyncio.to_thread(call)
        pool = self._executor(render.__module__)
        if pool is None:
            return await asyncio.to_thread(call)
        loop = asyncio.get_running_loop()
        try:
            png = await loop.run_in_executor(pool, call)
        except BrokenProcessPool:
            log.warning("A drawing worker process died; this board is drawn in a thread")
            if self._pool is pool:
                self._discard()
            return await asyncio.to_thread(call)
        self.in_workers += 1
        return png

    async def ready(self) -> bool:
        """Wait for the pool's first worker to have started: whether boards are now drawn in it."""
        warming = self._warming
        if warming is not None:
            await asyncio.wrap_future(warming)
        return self.workers > 0 and self._executor() is not None

    def _discard(self) -> None:
        pool, self._pool, self._warming = self._pool, None, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    async def stop(self) -> None:
        pool, self._pool, self._warming = self._pool, None, None
        if pool is not None:
            await asyncio.to_thread(pool.shutdown, wait=True, cancel_futures=True)
