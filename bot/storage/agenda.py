"""What waits on one person across every server: their live games and lobbies, with the seats each
game waits on (/game mine, and the daily digest). Read in one transaction of three statements (the
games, their seats, their waits), however many games the person plays. And the daily digests: who
wants one, at what hour, when the next is due, and which process is sending it."""

from __future__ import annotations

import math
from dataclasses import dataclass

from bot.storage.driver import Q, Repository, Txn
from bot.storage.games import select_games
from bot.storage.rows import AgendaEntry, Awaited, from_row


def order(entry: AgendaEntry) -> tuple[int, float, int]:
    """Games waiting on the person first, then games waiting on others (each soonest deadline first),
    then lobbies (oldest first: the first to close)."""
    if entry.group == 2:
        return 2, entry.game.created_at, entry.game.id
    deadline = entry.deadline
    return entry.group, math.inf if deadline is None else deadline, entry.game.id


def select_agenda(user_id: int) -> Txn[list[AgendaEntry]]:
    games = yield from select_games(
        "WHERE g.id IN (SELECT game_id FROM seats WHERE user_id = ?) AND g.status IN ('lobby', 'active')",
        (user_id,),
    )
    if not games:
        return []
    marks = ", ".join("?" * len(games))
    rows = yield Q(
        f"SELECT game_id, seat, deadline FROM waits WHERE game_id IN ({marks}) ORDER BY deadline, seat",
        [g.id for g in games],
    )
    waits: dict[int, list[Awaited]] = {g.id: [] for g in games}
    by_id = {g.id: g for g in games}
    for game_id, seat, deadline in rows:
        game = by_id[int(game_id)]
        if game.status != "active" or not 0 <= int(seat) < len(game.seats):
            continue
        waits[game.id].append(
            Awaited(
                seat=int(seat),
                user_id=game.seats[int(seat)],
                name=game.names[int(seat)],
                deadline=float(deadline),
            )
        )
    entries = []
    for game in games:
        seat = game.seat_of(user_id)
        if seat is not None:
            entries.append(AgendaEntry(game=game, seat=seat, waits=tuple(waits[game.id])))
    return sorted(entries, key=order)


class Agendas(Repository):
    async def agenda(self, *, user_id: int) -> list[AgendaEntry]:
        """``user_id``'s live games and lobbies, in every server, in the order /game mine lists them
        (see `order`)."""
        return await self._db.read(select_agenda(user_id))


@dataclass(frozen=True)
class Digest:
    """A player's daily digest: their local ``hour`` in ``timezone``, next ``due`` (epoch seconds)."""

    user_id: int
    hour: int
    timezone: str
    due: float


_DIGEST = "user_id, hour, timezone, due"


class Digests(Repository):
    async def set_digest(self, *, user_id: int, hour: int, timezone: str, due: float) -> None:
        await self._write(
            f"INSERT INTO digests ({_DIGEST}) VALUES (?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET "
            "hour = excluded.hour, timezone = excluded.timezone, due = excluded.due, "
            "claimed_until = NULL, claimed_by = NULL",
            (user_id, hour, timezone, due),
        )

    async def drop_digest(self, *, user_id: int) -> None:
        await self._write("DELETE FROM digests WHERE user_id = ?", (user_id,))

    async def digest_of(self, *, user_id: int) -> Digest | None:
        rows = await self._read(f"SELECT {_DIGEST} FROM digests WHERE user_id = ?", (user_id,))
        return from_row(Digest, rows[0]) if rows else None

    async def due_digests(self, *, now: float, holder: str = "", limit: int = 50) -> list[Digest]:
        """Digests due by ``now`` that no other process is sending, the oldest first."""
        rows = await self._read(
            f"SELECT {_DIGEST} FROM digests WHERE due <= ? "
            "AND (claimed_until IS NULL OR claimed_until < ? OR claimed_by = ?) ORDER BY due LIMIT ?",
            (now, now, holder, limit),
        )
        return [from_row(Digest, r) for r in rows]

    async def claim_digest(self, *, user_id: int, due: float, holder: str, now: float, until: float) -> bool:
        """Claim the digest due at ``due`` for ``holder`` until ``until``: True for the one process
        whose claim found it free (or its own, or expired)."""
        rows = await self._write(
            "UPDATE digests SET claimed_until = ?, claimed_by = ? WHERE user_id = ? AND due = ? "
            "AND (claimed_until IS NULL OR claimed_until < ? OR claimed_by = ?) RETURNING user_id",
            (until, holder, user_id, due, now, holder),
        )
        return bool(rows)

    async def finish_digest(self, *, user_id: int, due: float, next_due: float) -> bool:
        """The digest due at ``due`` is done (sent, or nothing waited): the next is due at ``next_due``."""
        rows = await self._write(
            "UPDATE digests SET due = ?, claimed_until = NULL, claimed_by = NULL "
            "WHERE user_id = ? AND due = ? RETURNING user_id",
            (next_due, user_id, due),
        )
        return bool(rows)

    async def next_digest(self) -> float | None:
        rows = await self._read(
            "SELECT MIN(CASE WHEN claimed_until > due THEN claimed_until ELSE due END) FROM digests"
        )
        return None if not rows or rows[0][0] is None else float(rows[0][0])
