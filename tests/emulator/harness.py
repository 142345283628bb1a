"""Run a discord.py bot in-process against a `DiscordEmulator`, and restart it on demand."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from .models import EmulatorError
from .server import DiscordEmulator

TOKEN = "emulator.bot.token"


def project_bot_factory(db_path: str) -> Callable[[], Any]:
    """A factory for the project's bot (bot.app.create_bot) on the SQLite file `db_path`."""

    def make() -> Any:
        from bot.app import create_bot
        from bot.config import Settings

        return create_bot(Settings(token=TOKEN, db_path=db_path, dev_guild=None))

    return make


class BotHarness:
    """Starts `factory()` on the emulator and waits until it is ready.

    `restart()` closes the client and starts a fresh one from the same factory (so the same
    database path): what a process restart looks like to Discord and to the bot.
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
        self._task: asyncio.Task[None] | None = None
        emulator.busy_checks.append(handler_running)

    async def start(self) -> Any:
        if self.bot is not None:
            raise EmulatorError("the bot is already running")
        self.emulator.install()
        bot = self.factory()
        self.emulator.prepare_client(bot)
        self.bot = bot
        self._task = asyncio.create_task(bot.start(self.token), name="bot-under-test")
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

    async def stop(self) -> None:
        bot, task = self.bot, self._task
        self.bot, self._task = None, None
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
)


def handler_running() -> str | None:
    for task in asyncio.all_tasks():
        name = task.get_name()
        if name.startswith(HANDLER_TASKS) and not task.done():
            return f"the bot is still running a handler ({name})"
    return None
