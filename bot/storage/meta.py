"""The bot's own bookkeeping: a key-value table (e.g. the digest of the last synced command tree)."""

from __future__ import annotations

from bot.storage.driver import Repository


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
