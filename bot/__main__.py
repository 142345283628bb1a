"""``quetbot`` / ``python -m bot``: run the bot with settings from the environment or ``.env``.

``--shard-count N`` and ``--shards 0,1`` (or QUETBOT_SHARD_COUNT / QUETBOT_SHARDS) run the given
gateway shards in this process; the command line wins over the environment.

``quetbot migrate --from FILE --to URL`` copies a SQLite database into an empty PostgreSQL one and
verifies the copy (`bot.storage.transfer`; here only its words and exit status: 0 done and verified,
1 copied but not verified, 2 refused or failed with nothing written).

``quetbot backup --to PATH`` writes a consistent, verified copy of the live database (``--from``, or
QUETBOT_DB) as a SQLite file, safe while the bot runs (`bot.storage.backup`; exit status: 0 written
and verified, 1 not verified, 2 refused or failed; in both PATH is left as it was).

SIGTERM or SIGINT stops the bot gracefully within QUETBOT_STOP_GRACE seconds (`bot.lifecycle`); a
second signal exits at once.

Only a first argument ``migrate`` or ``backup`` selects those, so ``quetbot`` and its options parse
exactly as before.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, NoReturn

import discord
from dotenv import find_dotenv, load_dotenv

from bot import lifecycle, logs
from bot.app import create_bot
from bot.config import ConfigError, load_settings

if TYPE_CHECKING:
    from bot.storage.transfer import NotVerified, Verified


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
        "database and verify the copy (see quetbot migrate --help). "
        "quetbot backup --to PATH: a verified copy of the live database as a SQLite file, safe while "
        "the bot runs (see quetbot backup --help)."
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
    from bot.storage.transfer import migrate  # (asyncpg, loaded only for this)

    args = _migrate_parser().parse_args(argv)

    async def copy() -> Verified:
        source = sqlite_path(args.source)
        if source is None:
            raise StorageError(
                f"--from must be a SQLite file (a path, or sqlite:///path), not {args.source!r}."
            )
        if sqlite_path(args.target) is not None:
            raise StorageError("--to must be a PostgreSQL URL (postgresql://...).")
        done = await migrate(source, args.target, progress=print)
        return done.verified

    def told(checked: Verified) -> None:
        print(
            f"Verified in {checked.seconds:.1f} s: {checked.games:,} games replayed from their move logs "
            f"({checked.moves:,} moves) give their stored state and version; {checked.tables} tables "
            f"({checked.rows:,} rows) hold the same rows as the source."
        )
        print("Done. Point QUETBOT_DB at the PostgreSQL database to use it.")

    return _copied(
        copy(),
        told,
        "the copy",
        faithful="Every table holds the same rows as the source's: the copy is faithful, and these "
        "games do not replay in the source either (changed outside the bot?).",
        after="The target keeps the copy: drop the target database (dropdb, createdb) before "
        "migrating again.",
    )


def _backup_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="quetbot backup",
        allow_abbrev=False,
        description="Write a consistent copy of the bot's database as a SQLite file, safe while the bot "
        "runs (SQLite: its online backup API; PostgreSQL: one repeatable-read snapshot), then verify it "
        "as quetbot migrate does: every game's move log replays to its stored state, and every table "
        "holds the rows the database held at that moment. The copy is written beside PATH and renamed "
        "to PATH only once verified; on any failure PATH is left as it was. To restore, point "
        "QUETBOT_DB at the file, or quetbot migrate --from PATH --to postgresql://...",
    )
    parser.add_argument(
        "--to", dest="target", metavar="PATH", required=True, help="the backup file to write (a new path)"
    )
    parser.add_argument(
        "--from",
        dest="source",
        metavar="DB",
        help="the database: a SQLite file or a postgresql:// URL (default: QUETBOT_DB, from the "
        "environment or .env, else quetbot.sqlite3)",
    )
    parser.add_argument("--force", action="store_true", help="replace PATH if it exists")
    return parser


def run_backup(argv: Sequence[str]) -> int:
    """``quetbot backup``: the exit status."""
    from bot.storage.backup import backup

    args = _backup_parser().parse_args(argv)
    source = args.source
    if source is None:
        load_dotenv(find_dotenv(usecwd=True))  # (.env in the working directory, as documented)
        source = os.environ.get("QUETBOT_DB", "").strip() or "quetbot.sqlite3"

    async def copy() -> Verified:
        done = await backup(source, args.target, force=args.force)
        print(
            f"Backed up {done.source} to {done.path} ({done.method}): schema version "
            f"{done.schema_version}, {len(done.tables)} tables, {done.rows:,} rows, in {done.seconds:.1f} s."
        )
        return done.verified

    def told(checked: Verified) -> None:
        print(
            f"Backup verified: {checked.games:,} games replay to their stored states ({checked.moves:,} "
            f"moves); {checked.tables} tables ({checked.rows:,} rows) hold the database's rows as of the "
            "backup."
        )

    return _copied(
        copy(),
        told,
        "the backup",
        faithful="Every table holds the database's rows: these games do not replay in the database "
        "either (changed outside the bot?).",
        after=f"Nothing was written to {args.target}.",
    )


def _copied(
    copy: Coroutine[object, object, Verified],
    told: Callable[[Verified], None],
    what: str,
    *,
    faithful: str,
    after: str,
) -> int:
    """Run a verified copy (``what``): ``told`` what it verified, status 0; a failure on stderr, 2; a
    copy that does not verify, 1 (`_not_verified`)."""
    from bot.storage import StorageError
    from bot.storage.transfer import NotVerified

    try:
        checked = asyncio.run(copy)
    except NotVerified as exc:
        return _not_verified(exc, what, faithful=faithful, after=after)
    except StorageError as exc:
        print(f"quetbot: {exc}", file=sys.stderr)
        return 2
    told(checked)
    return 0


def _not_verified(exc: NotVerified, what: str, *, faithful: str, after: str) -> int:
    """A copy (``what``) that does not verify, told on stderr: the problems found (the first ones, and
    how many more), ``faithful`` when every table holds the source's rows, then ``after`` (what became
    of the copy). The exit status: 1."""
    print(f"quetbot: {what} does not verify ({_counted(exc.count, 'problem')}):", file=sys.stderr)
    for problem in exc.problems:
        print(f"  {problem}", file=sys.stderr)
    if exc.count > len(exc.problems):
        print(f"  ... and {exc.count - len(exc.problems)} more", file=sys.stderr)
    if exc.faithful:
        print(faithful, file=sys.stderr)
    print(after, file=sys.stderr)
    return 1


def _counted(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def main(argv: Sequence[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["migrate"]:
        sys.exit(run_migrate(argv[1:]))
    if argv[:1] == ["backup"]:
        sys.exit(run_backup(argv[1:]))
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
        status = lifecycle.run(bot, settings.token)
    except discord.LoginFailure:
        print("quetbot: Discord refused the token: check DISCORD_TOKEN.", file=sys.stderr)
        sys.exit(2)
    except OSError as exc:  # (QUETBOT_HTTP's port taken, say)
        print(f"quetbot: {exc}", file=sys.stderr)
        sys.exit(2)
    sys.exit(status)


if __name__ == "__main__":
    main()
