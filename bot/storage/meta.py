"""The bot's own bookkeeping: a key-value table (e.g. the digest of the last synced command tree)."""

from __future__ import annotations

from bot.storage.driver import Repository
from bot.storage.rows import LIVE


class Meta(Repository):
    async def get_meta(self, *, key: str) -> str | None:
        rows = await self._read("SELECT value FROM meta WHERE key = ?", (key,))
        return str(rows[0][0]) if rows else None

    async def set_meta(self, *, key: str, value: str) -> None:
        await self._write(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    # ---- health and metrics (``QUETBOT_HTTP``) ----

    async def ping(self) -> None:
        """One trivial query: raises when the database does not answer."""
        await self._read("SELECT 1")

    async def live_games(self) -> dict[str, int]:
        """How many games of each kind are live (in a lobby or under way)."""
        marks = ", ".join("?" * len(LIVE))
        rows = await self._read(
            f"SELECT kind, COUNT(*) FROM games WHERE status IN ({marks}) GROUP BY kind", tuple(LIVE)
        )
        return {str(r[0]): int(r[1]) for r in rows}

    async def outbox_backlog(self) -> tuple[int, float | None]:
        """How many outbox items are pending, and when the oldest of them was written."""
        rows = await self._read("SELECT COUNT(*), MIN(created_at) FROM outbox")
        if not rows:
            return 0, None
        return int(rows[0][0]), None if rows[0][1] is None else float(rows[0][1])
