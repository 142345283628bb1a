"""``quetbot`` / ``python -m bot``: run the bot with settings from the environment or ``.env``.

``--shard-count N`` and ``--shards 0,1`` (or QUETBOT_SHARD_COUNT / QUETBOT_SHARDS) run the given
gateway shards in this process; the command line wins over the environment.

``quetbot migrate --from FILE --to URL`` copies a SQLite database into an empty PostgreSQL one and
verifies the copy (`bot.storage.transfer`; here only its words and exit status: 0 done and verified,
1 copied but not verified, 2 refused or failed with nothing written). Only a first argument
``migrate`` selects it, so ``quetbot`` and its options parse exactly as before.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from typing import NoReturn

import discord

from bot import logs
from bot.app import create_bot
from bot.config import ConfigError, load_settings


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """A mistake on the command line is one line and status 2 (argparse prints its usage too)."""
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


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
    parser.epilog = (
        "quetbot migrate --from FILE --to URL: copy a SQLite database into an empty PostgreSQL "
        "database and verify the copy (see quetbot migrate --help)."
    )
    return parser


def _migrate_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="quetbot migrate",
        allow_abbrev=False,
        description="Copy every game, move and setting of a SQLite database into an empty PostgreSQL "
        "database, in one transaction, then verify the copy: every game's move log is replayed and "
        "must give its stored state, and every table must hold the same rows. Stop the bot first. "
        "The source is never changed, except that one made by an older quetbot is first upgraded as "
        "the bot does when it starts.",
    )
    parser.add_argument("--from", dest="source", metavar="FILE", required=True, help="the SQLite database")
    parser.add_argument(
        "--to",
        dest="target",
        metavar="URL",
        required=True,
        help="the PostgreSQL database, empty: postgresql://user:password@host:5432/name",
    )
    return parser


def run_migrate(argv: Sequence[str]) -> int:
    """``quetbot migrate``: the exit status."""
    from bot.storage import StorageError, sqlite_path
    from bot.storage.transfer import NotVerified, migrate  # (asyncpg, loaded only for this)

    args = _migrate_parser().parse_args(argv)
    try:
        source = sqlite_path(args.source)
        if source is None:
            raise StorageError(
                f"--from must be a SQLite file (a path, or sqlite:///path), not {args.source!r}."
            )
        if sqlite_path(args.target) is not None:
            raise StorageError("--to must be a PostgreSQL URL (postgresql://...).")
        done = asyncio.run(migrate(source, args.target, progress=print))
    except NotVerified as exc:
        print(f"quetbot: the copy does not verify ({_counted(exc.count, 'problem')}):", file=sys.stderr)
        for problem in exc.problems:
            print(f"  {problem}", file=sys.stderr)
        if exc.count > len(exc.problems):
            print(f"  ... and {exc.count - len(exc.problems)} more", file=sys.stderr)
        if exc.faithful:
            print(
                "Every table holds the same rows as the source's: the copy is faithful, and these games "
                "do not replay in the source either (changed outside the bot?).",
                file=sys.stderr,
            )
        print(
            "The target keeps the copy: drop the target database (dropdb, createdb) before migrating again.",
            file=sys.stderr,
        )
        return 1
    except StorageError as exc:
        print(f"quetbot: {exc}", file=sys.stderr)
        return 2
    checked = done.verified
    print(
        f"Verified in {checked.seconds:.1f} s: {checked.games:,} games replayed from their move logs "
        f"({checked.moves:,} moves) give their stored state and version; {checked.tables} tables "
        f"({checked.rows:,} rows) hold the same rows as the source."
    )
    print("Done. Point QUETBOT_DB at the PostgreSQL database to use it.")
    return 0


def _counted(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def main(argv: Sequence[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["migrate"]:
        sys.exit(run_migrate(argv[1:]))
    args = _parser().parse_args(argv)
    try:
        settings = load_settings(shard_count=args.shard_count, shards=args.shards)
    except ConfigError as exc:
        print(f"quetbot: {exc}", file=sys.stderr)
        sys.exit(2)
    logs.setup(
        fmt=settings.log_format,
        level=settings.log_level,
        secrets=[settings.token],
        shard=None if settings.shard_count is None else settings.shard_label,
    )
    bot = create_bot(settings)
    try:
        bot.run(settings.token, log_handler=None)
    except discord.LoginFailure:
        print("quetbot: Discord refused the token: check DISCORD_TOKEN.", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
