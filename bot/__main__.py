"""``quetbot`` / ``python -m bot``: run the bot with settings from the environment or ``.env``.

``--shard-count N`` and ``--shards 0,1`` (or QUETBOT_SHARD_COUNT / QUETBOT_SHARDS) run the given
gateway shards in this process; the command line wins over the environment.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from typing import NoReturn

import discord

from bot.app import create_bot
from bot.config import ConfigError, load_settings


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """A mistake on the command line is one line and status 2 (argparse prints its usage too)."""
        self.exit(2, f"quetbot: {message} (see quetbot --help)\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="quetbot",
        allow_abbrev=False,
        description="Run Quet Games for Discord. Settings come from the environment or .env "
        "(see .env.example).",
    )
    parser.add_argument(
        "--shard-count",
        metavar="N",
        help="how many gateway shards the bot runs across all its processes (QUETBOT_SHARD_COUNT); "
        "without --shards this process runs all of them",
    )
    parser.add_argument(
        "--shards",
        metavar="IDS",
        help="the shards this process runs, like 0,1 or 0-3 (QUETBOT_SHARDS); the process running "
        "shard 0 receives every direct message and syncs the commands",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    args = _parser().parse_args(argv)
    try:
        settings = load_settings(shard_count=args.shard_count, shards=args.shards)
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
