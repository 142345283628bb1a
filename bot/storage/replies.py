"""Typed DM answers that could belong to several games, waiting until the player says which game
they meant."""

from __future__ import annotations

from bot import clock
from bot.storage.driver import Q, Repository, Txn


class Replies(Repository):
    async def add_typed_reply(self, *, user_id: int, text: str) -> int:
        def work() -> Txn[int]:
            # Only the newest unsettled answer per player is kept: an older one was superseded, and
            # takes a new id so that the buttons asking about the old one find nothing. One statement
            # (the unique index decides), so two processes storing at once still keep one.
            rows = yield Q(
                "INSERT INTO typed_replies (user_id, text, created_at) VALUES (?, ?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET id = excluded.id, text = excluded.text, "
                "created_at = excluded.created_at RETURNING id",
                (user_id, text, clock.now()),
            )
            return int(rows[0][0])

        return await self._db.write(work())

    async def take_typed_reply(self, *, reply_id: int, user_id: int) -> str | None:
        """The waiting typed answer (removed), or None when it is gone or is not this user's."""

        def work() -> Txn[str | None]:
            rows = yield Q(
                "DELETE FROM typed_replies WHERE id = ? AND user_id = ? RETURNING text", (reply_id, user_id)
            )
            return str(rows[0][0]) if rows else None

        return await self._db.write(work())
