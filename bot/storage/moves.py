"""The append-only move log: every action applied to a game, in order (a game can be replayed from
its initial state and this log, skipping the moves marked as taken back: ``undone``)."""

from __future__ import annotations

import json

from bot import clock
from bot.jsontypes import JSONMap
from bot.rules.base import forfeit_of
from bot.storage.driver import Q, Repository, Txn
from bot.storage.rows import MoveRow, dumps


def append(game_id: int, seat: int, action: JSONMap) -> Txn[None]:
    """Log the move after the game's last one (inside the transaction that swaps in its state), with
    how it forfeited, if it is a forfeit (``moves.forfeit``: 'left' or 'timeout')."""
    yield Q(
        "INSERT INTO moves (game_id, seq, seat, action, created_at, forfeit) VALUES "
        "(?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM moves WHERE game_id = ?), ?, ?, ?, ?)",
        (game_id, game_id, seat, dumps(dict(action)), clock.now(), forfeit_of(action)),
    )


def select_moves(game_id: int) -> Txn[list[MoveRow]]:
    """The game's move log, in order."""
    rows = yield Q(
        "SELECT game_id, seq, seat, action, created_at, undone FROM moves WHERE game_id = ? ORDER BY seq",
        (game_id,),
    )
    return [
        MoveRow(
            game_id=r[0],
            seq=r[1],
            seat=r[2],
            action=json.loads(r[3]),
            created_at=r[4],
            undone=None if r[5] is None else int(r[5]),
        )
        for r in rows
    ]


class Moves(Repository):
    async def moves(self, *, game_id: int) -> list[MoveRow]:
        return await self._db.read(select_moves(game_id))
