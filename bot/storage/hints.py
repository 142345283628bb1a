"""Hints (`/game hint`): a game where a player asked for one is marked ``games.hints`` for good.

The mark is written before the hint is shown, and only while the game is at the version the hint was
computed for (a hint for a position that is gone is never shown, nor marks the game)."""

from __future__ import annotations

from bot.storage.driver import Q, Repository, Txn


def _mark(game_id: int, version: int) -> Txn[bool | None]:
    newly = yield Q(
        "UPDATE games SET hints = 1 WHERE id = ? AND version = ? AND status = 'active' AND hints = 0 "
        "RETURNING id",
        (game_id, version),
    )
    if newly:
        return True
    marked = yield Q(
        "SELECT id FROM games WHERE id = ? AND version = ? AND status = 'active' AND hints = 1",
        (game_id, version),
    )
    return False if marked else None


class Hints(Repository):
    async def mark_hints(self, *, game_id: int, version: int) -> bool | None:
        """Mark a game being played as played with hints, if it is still at ``version``: True when
        this marked it (its first hint), False when it was marked already, None when the game has
        moved on or ended meanwhile (nothing is written)."""
        return await self._db.write(_mark(game_id, version))
