"""``quetbot`` / ``python -m bot``: run the bot with settings from the environment or ``.env``."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from collections.abc import Callable

import discord

from bot.app import create_bot
from bot.config import ConfigError, load_settings


def main() -> None:
    try:
        settings = load_settings()
    except ConfigError as exc:
        print(f"quetbot: {exc}", file=sys.stderr)
        sys.exit(2)
    discord.utils.setup_logging(level=logging.INFO)
    bot = create_bot(settings)

    async def serve() -> None:
        async with bot:
            await bot.start(settings.token)

    # What `bot.run` does, on uvloop's event loop where it is installed (Linux and macOS): the same
    # asyncio API, with socket work and callbacks done in C. Ctrl+C stops the bot cleanly.
    try:
        with (
            asyncio.Runner(loop_factory=event_loop_factory()) as runner,
            contextlib.suppress(KeyboardInterrupt),
        ):
            runner.run(serve())
    except discord.LoginFailure:
        print("quetbot: Discord refused the token: check DISCORD_TOKEN.", file=sys.stderr)
        sys.exit(2)


def event_loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's loop if it is installed, else asyncio's own (None)."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


if __name__ == "__main__":
    main()
