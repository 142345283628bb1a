"""Quiet hours (see `bot.quiet`): who has them, and the end of each one's current or next quiet
period, at which the scheduler sends what was held back (once: a compare-and-swap on that end)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.storage.driver import Q, Repository, Txn
from bot.storage.outbox import insert_effects
from bot.storage.rows import OutboxItem, Storable, Wait, from_row


@dataclass(frozen=True)
class Quiet:
    user_id: int
    starts: int  # minutes after local midnight
    ends: int
    tz: str
    next_end: float


_COLUMNS = "user_id, starts, ends, tz, next_end"


class QuietHours(Repository):
    async def set_quiet(self, *, user_id: int, starts: int, ends: int, tz: str, next_end: float) -> None:
        await self._write(
            f"INSERT INTO quiet_hours ({_COLUMNS}) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (user_id) DO UPDATE SET starts = excluded.starts, ends = excluded.ends, "
            "tz = excluded.tz, next_end = excluded.next_end",
            (user_id, starts, ends, tz, next_end),
        )

    async def clear_quiet(self, *, user_id: int) -> bool:
        rows = await self._write("DELETE FROM quiet_hours WHERE user_id = ? RETURNING user_id", (user_id,))
        return bool(rows)

    async def quiet_of(self, *, user_ids: Sequence[int]) -> dict[int, Quiet]:
        ids = sorted(set(user_ids))
        if not ids:
            return {}
        marks = ", ".join("?" * len(ids))
        rows = await self._read(f"SELECT {_COLUMNS} FROM quiet_hours WHERE user_id IN ({marks})", tuple(ids))
        return {int(r[0]): from_row(Quiet, r) for r in rows}

    async def quiet_of_seat(self, *, game_id: int, seat: int) -> Quiet | None:
        """The quiet hours of the person in ``seat`` of the game, if they have any."""
        rows = await self._read(
            f"SELECT {', '.join('q.' + c for c in _COLUMNS.split(', '))} FROM quiet_hours q "
            "JOIN seats s ON s.user_id = q.user_id WHERE s.game_id = ? AND s.position = ?",
            (game_id, seat),
        )
        return from_row(Quiet, rows[0]) if rows else None

    async def all_quiet(self) -> list[Quiet]:
        return [from_row(Quiet, r) for r in await self._read(f"SELECT {_COLUMNS} FROM quiet_hours")]

    async def quiet_ended(self, *, now: float) -> list[Quiet]:
        """The people whose quiet period has ended (what was held back is due)."""
        rows = await self._read(
            f"SELECT {_COLUMNS} FROM quiet_hours WHERE next_end <= ? ORDER BY next_end", (now,)
        )
        return [from_row(Quiet, r) for r in rows]

    async def waits_of_user(self, *, user_id: int) -> list[Wait]:
        rows = await self._read(
            "SELECT w.game_id, w.seat, w.since, w.deadline, w.reminded, w.paused FROM waits w "
            "JOIN seats s ON s.game_id = w.game_id AND s.position = w.seat WHERE s.user_id = ? "
            "ORDER BY w.game_id",
            (user_id,),
        )
        return [from_row(Wait, r) for r in rows]

    async def move_deadline(self, *, game_id: int, seat: int, deadline: float, to: float) -> bool:
        """The wait's deadline ``deadline`` moved to ``to`` (unless the wait changed meanwhile)."""
        rows = await self._write(
            "UPDATE waits SET deadline = ? WHERE game_id = ? AND seat = ? AND deadline = ? RETURNING seat",
            (to, game_id, seat, deadline),
        )
        return bool(rows)

    async def release_held(
        self, *, user_id: int, next_end: float, then: float, effects: Mapping[int, Sequence[Storable]]
    ) -> list[OutboxItem]:
        """The quiet period ending at ``next_end`` is over: the next one ends ``then``, and what was
        held back (``effects``, by game) is queued, by the one process whose swap succeeds."""

        def work() -> Txn[list[OutboxItem]]:
            claimed = yield Q(
                "UPDATE quiet_hours SET next_end = ? WHERE user_id = ? AND next_end = ? RETURNING user_id",
                (then, user_id, next_end),
            )
            if not claimed:
                return []
            items: list[OutboxItem] = []
            for game_id, owed in sorted(effects.items()):
                items.extend((yield from insert_effects(game_id, owed)))
            return items

        return await self._db.write(work())
