"""The test's database read (or changed) as a second process would: its own connection, each
statement committed at once, on either database the tests run (`query` takes the name `bot_db`
gives: a SQLite path or a PostgreSQL URL). Statements are written in the bot's common dialect
(``?`` placeholders)."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from typing import Any

from bot.storage import sqlite_path


def query(db: str, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    """Run one statement on ``db`` and commit it; its rows.

    Blocking: call it from the event loop for reads only (a read never waits for the bot's
    transactions); a write that could wait for a row the bot holds goes through `change`."""
    path = sqlite_path(db)
    if path is not None:
        with closing(sqlite3.connect(path, timeout=10)) as conn, conn:
            return conn.execute(sql, tuple(args)).fetchall()
    with ThreadPoolExecutor(1) as thread:  # asyncpg needs an event loop: one of its own, there
        return thread.submit(asyncio.run, _postgres(db, sql, args)).result()


async def change(db: str, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    """`query`, run in a thread, so the bot's transactions go on meanwhile."""
    return await asyncio.to_thread(query, db, sql, args)


async def _postgres(url: str, sql: str, args: Sequence[Any]) -> list[tuple[Any, ...]]:
    import asyncpg

    from bot.storage.postgres import postgres_statement

    conn = await asyncpg.connect(url)
    try:
        text, values = postgres_statement(sql, args)
        return [tuple(r) for r in await conn.fetch(text, *values)]
    finally:
        await conn.close()
