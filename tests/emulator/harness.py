"""Run a discord.py bot in-process against a `DiscordEmulator`, restart it, or crash it on demand."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import queue
import weakref
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from .gateway import GatewaySession
from .models import EmulatorError
from .server import DiscordEmulator

TOKEN = "emulator.bot.token"


def project_bot_factory(
    db_path: str, *, shards: tuple[int, ...] | None = None, shard_count: int | None = None, **settings: Any
) -> Callable[[], Any]:
    """A factory for the project's bot (bot.app.create_bot) on the SQLite file `db_path`, with
    `settings` for its other settings (e.g. ``computer_pause=0.05``). With `shard_count`, the bot
    runs `shards` of that many (default: all of them), as ``quetbot --shard-count N --shards ...``.
    Boards are drawn in a thread unless ``draw_workers`` says otherwise: a worker process per test's
    bot would cost every test its start (the bot run as a process, in the kill sweeps and the
    benchmarks, draws in its worker as in production; tests/unit/test_drawing.py tests the pool)."""
    settings.setdefault("draw_workers", 0)
    if shards is not None and shard_count is None:
        raise EmulatorError("shards need a shard_count")
    if shard_count is not None:
        settings.update(
            shard_count=shard_count, shard_ids=tuple(range(shard_count) if shards is None else shards)
        )

    def make() -> Any:
        from bot.app import create_bot
        from bot.config import Settings

        return create_bot(Settings(token=TOKEN, db_path=db_path, dev_guild=None, **settings))

    return make


# ---- which tasks are the bot's --------------------------------------------------------------------
#
# Every task belongs to the bot that is created while the bot's main task (or another of its tasks,
# or a callback they scheduled) runs: such a task inherits the main task's context, which carries
# this variable. A task factory on the loop notes them as they are created (Python 3.11 cannot ask a
# task for its context). The emulator's tasks (created by its server as connections arrive), the
# test's and pytest's never carry it, so a crash cannot cancel them.


class _Run:
    """One start of the bot: the tasks it created."""

    def __init__(self) -> None:
        self.tasks: weakref.WeakSet[asyncio.Task[Any]] = weakref.WeakSet()

    def live_tasks(self) -> list[asyncio.Task[Any]]:
        return [t for t in self.tasks if not t.done()]


_RUN: contextvars.ContextVar[_Run | None] = contextvars.ContextVar("emulator_harness_run", default=None)


def _note_bot_tasks(loop: asyncio.AbstractEventLoop) -> None:
    """Install (once per loop) the task factory that notes the tasks each bot run creates."""
    previous = loop.get_task_factory()
    if getattr(previous, "notes_bot_tasks", False):
        return

    def factory(loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> asyncio.Future[Any]:
        context: contextvars.Context | None = kwargs.get("context")
        run = context.get(_RUN) if context is not None else _RUN.get()
        if previous is not None:
            task = previous(loop, coro, **kwargs)
        else:
            task = asyncio.Task(coro, loop=loop, **kwargs)
        if run is not None and isinstance(task, asyncio.Task):
            run.tasks.add(task)
        return task

    factory.notes_bot_tasks = True  # type: ignore[attr-defined]
    loop.set_task_factory(factory)


class BotHarness:
    """Starts `factory()` on the emulator and waits until it is ready.

    `restart()` closes the client and starts a fresh one from the same factory (so the same
    database path): what a process restart looks like to Discord and to the bot. `crash()` stops
    it as SIGKILL would (no shutdown logic of the bot runs, nothing more is written); `start()`
    then starts a fresh one.

    Several harnesses may run on one emulator at once, as several processes of one bot would (each
    its own shards, say, over one database); each crashes, stops and restarts its own bot only.
    `sessions` are the emulator's gateway sessions of this harness's bot (one per shard).
    """

    def __init__(
        self,
        emulator: DiscordEmulator,
        factory: Callable[[], Any],
        *,
        token: str = TOKEN,
        ready_timeout: float = 15.0,
    ) -> None:
        self.emulator = emulator
        self.factory = factory
        self.token = token
        self.ready_timeout = ready_timeout
        self.bot: Any = None
        self.starts = 0
        self.crashes = 0
        self._task: asyncio.Task[None] | None = None
        self._run: _Run | None = None
        self._crashing: asyncio.Future[None] | None = None
        emulator.busy_checks.append(handler_running)

    async def start(self) -> Any:
        if self._crashing is not None:  # a crash armed on the emulator is still under way
            await asyncio.shield(self._crashing)
        if self.bot is not None:
            raise EmulatorError("the bot is already running")
        self.emulator.install()
        loop = asyncio.get_running_loop()
        _note_bot_tasks(loop)
        bot = self.factory()
        self.emulator.prepare_client(bot)
        self.bot = bot
        run = self._run = _Run()
        context = contextvars.copy_context()
        context.run(_RUN.set, run)
        self._task = loop.create_task(bot.start(self.token), name="bot-under-test", context=context)
        ready = asyncio.create_task(bot.wait_until_ready())
        done, _ = await asyncio.wait(
            {self._task, ready}, timeout=self.ready_timeout, return_when=asyncio.FIRST_COMPLETED
        )
        if ready not in done:
            ready.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await ready
            error: BaseException | None = None
            if self._task in done:
                error = self._task.exception()
            await self.stop()
            raise EmulatorError(f"the bot did not become ready within {self.ready_timeout}s") from error
        self.starts += 1
        return bot

    @property
    def sessions(self) -> list[GatewaySession]:
        """The emulator's live gateway sessions the running bot holds (one per shard it runs)."""
        ids = {ws.session_id for ws in _gateway_sockets(self.bot)} if self.bot is not None else set()
        return [s for s in self.emulator.gateway.live_sessions if s.id in ids]

    async def stop(self) -> None:
        if self._crashing is not None:
            await asyncio.shield(self._crashing)
        bot, task = self.bot, self._task
        self.bot, self._task, self._run = None, None, None
        if bot is None:
            return
        await bot.close()
        if task is not None:
            try:
                await asyncio.wait_for(task, 5.0)
            except (asyncio.CancelledError, TimeoutError):
                pass
            except Exception:  # the failure was already reported by start() or the bot's logs
                pass

    async def restart(self) -> Any:
        await self.stop()
        return await self.start()

    async def __aenter__(self) -> BotHarness:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def crash(self) -> None:
        """Stop the bot as SIGKILL would.

        At once, the database stops taking work: what the bot had queued and not yet run is dropped,
        and the connection is closed, so an open transaction rolls back and nothing more is written
        (the bot's storage may offer `hard_close()` for this; without it an aiosqlite connection of
        the storage is stopped that way, else its `close()` runs once the bot's tasks are gone).
        Then every task the bot created is cancelled (its main task, handlers, background tasks)
        and its HTTP session and gateway connection are dropped, without the bot's `close()` or any
        other shutdown logic of its own. Awaiting `crash()` returns once all of that is done;
        `start()` then starts a fresh bot on the same database.
        """
        if self._crashing is not None:
            await asyncio.shield(self._crashing)
            return
        bot, run = self.bot, self._run
        if bot is None or run is None:
            raise EmulatorError("there is no running bot to crash")
        self._crashing = asyncio.get_running_loop().create_future()
        self.bot, self._task, self._run = None, None, None
        try:
            await self._kill(bot, run)
            self.crashes += 1
        finally:
            self._crashing.set_result(None)
            self._crashing = None

    async def _kill(self, bot: Any, run: _Run) -> None:
        database = _halt_database(bot)
        me = asyncio.current_task()
        for _ in range(50):  # a task being cancelled may start others: they are the bot's too
            victims = [t for t in run.live_tasks() if t is not me]
            if not victims:
                break
            for task in victims:
                task.cancel()
            await asyncio.wait(victims, timeout=0.2)
        else:
            names = [t.get_name() for t in run.live_tasks()]
            raise EmulatorError(f"these tasks of the crashed bot would not stop: {names}")
        for task in list(run.tasks):
            if task.done() and not task.cancelled():
                task.exception()  # retrieved: a dead process reports nothing
        await _drop_connections(bot)
        await database()


# ---- what the operating system does to a killed process's resources ---------------------------


def _halt_database(bot: Any) -> Callable[[], Awaitable[None]]:
    """Stop the bot's database now; returns what finishes closing it (awaited after the bot's tasks
    are gone)."""
    storage = getattr(bot, "storage", None)
    if storage is None:
        return _nothing
    hard_close = getattr(storage, "hard_close", None)
    if callable(hard_close):
        result = hard_close()
        if inspect.isawaitable(result):
            pending = asyncio.ensure_future(result)
            return lambda: _finish(pending)
        return _nothing
    connections = list(_aiosqlite_connections(storage))
    if connections:
        stopped = [_stop_aiosqlite(conn) for conn in connections]
        return lambda: _finish(*[f for f in stopped if f is not None])
    close = getattr(storage, "close", None)
    if callable(close):

        async def close_later() -> None:
            result = close()
            if inspect.isawaitable(result):
                await result

        return close_later
    return _nothing


async def _nothing() -> None:
    return None


async def _finish(*pending: Awaitable[Any]) -> None:
    if pending:
        await asyncio.wait_for(asyncio.gather(*pending, return_exceptions=True), 10.0)


def _aiosqlite_connections(storage: Any) -> Iterator[Any]:
    """aiosqlite connections held by the storage object (or by an object it holds)."""
    try:
        import aiosqlite
    except ImportError:  # a bot without aiosqlite (the project's own storage offers hard_close)
        return
    seen: set[int] = set()
    holders = [storage, *(v for v in _attributes(storage) if not isinstance(v, aiosqlite.Connection))]
    for holder in holders:
        for value in _attributes(holder):
            if isinstance(value, aiosqlite.Connection) and id(value) not in seen:
                seen.add(id(value))
                yield value


def _attributes(obj: Any) -> list[Any]:
    try:
        return list(vars(obj).values())
    except TypeError:
        return []


def _stop_aiosqlite(conn: Any) -> asyncio.Future[Any] | None:
    """Drop the work queued for the connection's thread and close it right after what it is
    running now: nothing queued before the crash is written, and an open transaction rolls back.
    (aiosqlite runs queued work in order; `stop()` refuses new work at once and closes.)"""
    tx = getattr(conn, "_tx", None)
    if tx is not None:
        while True:
            try:
                future, _work = tx.get_nowait()
            except queue.Empty:
                break
            if future is not None and not future.done():
                future.cancel()
    stopped: asyncio.Future[Any] | None = conn.stop()
    return stopped


def _gateway_sockets(bot: Any) -> list[Any]:
    """The discord.py gateway websockets of a bot: its one `ws`, or one per shard it runs."""
    ws = getattr(bot, "ws", None)
    if ws is not None:
        return [ws]
    shards = getattr(bot, "shards", None)  # an AutoShardedClient: {shard id: ShardInfo}
    if isinstance(shards, dict):
        return [info._parent.ws for info in shards.values()]
    return []


async def _drop_connections(bot: Any) -> None:
    """The bot's sockets close with the process: no gateway close frame, no more requests."""
    for ws in _gateway_sockets(bot):
        keep_alive = getattr(ws, "_keep_alive", None)
        if keep_alive is not None:
            keep_alive.stop()  # discord.py's heartbeat thread
        response = getattr(getattr(ws, "socket", None), "_response", None)
        if response is not None:
            response.close()  # the gateway connection: dropped, no close frame
    http = getattr(bot, "http", None)
    if http is not None:
        await http.close()  # discord.py's HTTP client: its aiohttp session, and the websocket with it


# The names discord.py gives the tasks that run a bot's handlers: slash commands and autocomplete, the
# callbacks of persistent components, and event listeners (forms arrive as `interaction`, DMs as
# `message`). While one runs, the bot may still send something (a board drawn after the first
# answer), so the emulator is not idle.
HANDLER_TASKS = (
    "CommandTree-invoker",
    "discord-ui-dynamic-item-",
    "discord-ui-view-dispatch-",
    "discord.py: interaction",
    "discord.py: message",
    "quetbot-outbox-",  # the project's bot carrying out what a move owes (its board, DM panels)
    "quetbot-computer-",  # the project's bot making a computer player's move
)


def handler_running() -> str | None:
    for task in asyncio.all_tasks():
        name = task.get_name()
        if name.startswith(HANDLER_TASKS) and not task.done():
            return f"the bot is still running a handler ({name})"
    return None
