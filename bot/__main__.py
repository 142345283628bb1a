"""``quetbot`` / ``python -m bot``: run the bot with settings from the environment or ``.env``."""

from __future__ import annotations

import logging
import sys

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
    try:
        bot.run(settings.token, log_handler=None)
    except discord.LoginFailure:
        print("quetbot: Discord refused the token: check DISCORD_TOKEN.", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
