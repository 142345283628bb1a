"""Deadlines: one row per awaited seat with its deadline (written in the same transaction as the
change that made the seat awaited), halfway reminders, who muted them, and when the scheduler next
has something to do."""

from __future__ import annotations

from collections.abc import Sequence

from bot import clock
from bot.storage.driver import Many, Q, Repository, Txn
from bot.storage.outbox import insert_effects, lock_game
from bot.storage.rows import OutboxItem, Storable, Wait, from_row

_COLUMNS = "game_id, seat, since, deadline, reminded, paused"


# The rest of the time away of the player in a seat (0 unless they are away now). Its arguments:
# the game, the seat, now, now.
_AWAY_REST = (
    "COALESCE((SELECT MAX(a.ends) - ? FROM away a JOIN seats s ON s.user_id = a.user_id "
    "WHERE s.game_id = ? AND s.position = ? AND a.started <= ? AND a.ends > ?), 0)"
)


def sync(game_id: int, waiting: Sequence[int]) -> Txn[None]:
    """The game now waits for exactly ``waiting``. A seat already waited for keeps its deadline
    (unless its wait was claimed); a newly awaited seat gets one from now (the game's ``timeout_s``)."""
    seats = sorted(set(waiting))
    if not seats:  # (an empty ``IN ()`` is SQLite's only)
        yield Q("DELETE FROM waits WHERE game_id = ?", (game_id,))
        return
    marks = ", ".join("?" * len(seats))
    # A claimed wait (a computer that has just moved, a forfeit under way) has served its claim: the
    # game changed. Still awaited, it starts afresh.
    yield Q(
        f"DELETE FROM waits WHERE game_id = ? AND (seat NOT IN ({marks}) OR claimed_until IS NOT NULL)",
        (game_id, *seats),
    )
    now = clock.now()
    # A player away (bot/storage/away.py): the clock starts when the time away ends.
    yield Many(
        "INSERT INTO waits (game_id, seat, since, deadline, paused) "
        f"SELECT ?, ?, ?, ? + timeout_s + {_AWAY_REST}, {_AWAY_REST} FROM games "
        "WHERE id = ? ON CONFLICT (game_id, seat) DO NOTHING",
        [
            (game_id, seat, now, now, *(now, game_id, seat, now, now) * 2, game_id)  # (see _AWAY_REST)
            for seat in seats
        ],
    )


class Waits(Repository):
    async def waits_of_game(self, *, game_id: int) -> list[Wait]:
        rows = await self._read(f"SELECT {_COLUMNS} FROM waits WHERE game_id = ? ORDER BY seat", (game_id,))
        return [from_row(Wait, r) for r in rows]

    async def due_waits(self, *, now: float, holder: str = "", limit: int = 50) -> list[Wait]:
        """Waits past their deadline, oldest first (but for those another process is acting on)."""
        rows = await self._read(
            f"SELECT {_COLUMNS} FROM waits WHERE deadline <= ? "
            "AND (claimed_until IS NULL OR claimed_until < ? OR claimed_by = ?) ORDER BY deadline LIMIT ?",
            (now, now, holder, limit),
        )
        return [from_row(Wait, r) for r in rows]

    async def claim_wait(self, *, game_id: int, seat: int, holder: str, now: float, until: float) -> bool:
        """Claim the due wait (a computer's move, a forfeit) for ``holder`` until ``until``: True for
        the one process whose claim found it unclaimed, claimed by itself (restarted), or its claim
        expired (that process died). The change it then makes is still checked against the game's
        version, so it happens once in any case; the claim spares the others the work (a search)."""
        rows = await self._write(
            "UPDATE waits SET claimed_until = ?, claimed_by = ? WHERE game_id = ? AND seat = ? "
            "AND (claimed_until IS NULL OR claimed_until < ? OR claimed_by = ?) RETURNING seat",
            (until, holder, game_id, seat, now, holder),
        )
        return bool(rows)

    async def release_claims(self, *, holder: str) -> int:
        """Give up every claim ``holder`` holds on due work (a graceful stop): another process may
        take it at once, not once the claim expires. How many were released."""
        rows = await self._write(
            "UPDATE waits SET claimed_until = NULL, claimed_by = NULL WHERE claimed_by = ? RETURNING seat",
            (holder,),
        )
        return len(rows)

    async def due_computers(
        self, *, since_before: float, now: float | None = None, holder: str = "", limit: int = 50
    ) -> list[Wait]:
        """Waits of computer seats (a negative user id) that began before ``since_before``: their
        move is due (a computer moves a short pause after the rules start waiting for it)."""
        rows = await self._read(
            f"SELECT {', '.join('w.' + c for c in _COLUMNS.split(', '))} FROM seats s "
            "JOIN waits w ON w.game_id = s.game_id AND w.seat = s.position "
            "WHERE s.user_id < 0 AND w.since <= ? "
            "AND (w.claimed_until IS NULL OR w.claimed_until < ? OR w.claimed_by = ?) "
            "ORDER BY w.since LIMIT ?",
            (since_before, now if now is not None else since_before, holder, limit),
        )
        return [from_row(Wait, r) for r in rows]

    async def delay_computer(self, *, game_id: int, seat: int, until: float) -> None:
        """Try a computer's move again no sooner than ``until`` (its last try failed)."""
        await self._write("UPDATE waits SET since = ? WHERE game_id = ? AND seat = ?", (until, game_id, seat))

    async def due_reminders(self, *, now: float, limit: int = 50) -> list[Wait]:
        """Waits past their halfway point that have not been reminded yet."""
        rows = await self._read(
            f"SELECT {_COLUMNS} FROM waits WHERE reminded = 0 AND (since + paused + deadline) / 2 <= ? "
            "ORDER BY (since + paused + deadline) / 2 LIMIT ?",
            (now, limit),
        )
        return [from_row(Wait, r) for r in rows]

    async def mark_reminded(
        self, *, game_id: int, seat: int, effects: Sequence[Storable] = (), deadline: float | None = None
    ) -> list[OutboxItem]:
        """The reminder is due no more; ``effects`` (the reminder itself) are queued with the mark.

        A claim: only the process whose update finds the wait not yet reminded queues the reminder
        (another process, or a second pass, gets nothing), so a reminder is sent once however many
        processes look at the due waits. With ``deadline`` (that of the wait read as due), only that
        wait is marked: a wait read a moment ago may have been replaced since (the seat moved, and
        is awaited again with a new deadline, not yet due), and another process may have reminded it
        already; marking the new one instead would remind twice of the old deadline, and never of
        the new one."""

        def work() -> Txn[tuple[OutboxItem, ...]]:
            same = "" if deadline is None else " AND deadline = ?"
            if effects:
                yield from lock_game(game_id)  # (before the wait's row, as a move's change does)
            claimed = yield Q(
                f"UPDATE waits SET reminded = 1 WHERE game_id = ? AND seat = ? AND reminded = 0{same} "
                "RETURNING seat",
                (game_id, seat) if deadline is None else (game_id, seat, deadline),
            )
            if not claimed:
                return ()
            return (yield from insert_effects(game_id, effects, locked=True))

        return list(await self._db.write(work()))

    async def drop_wait(self, *, game_id: int, seat: int) -> None:
        await self._write("DELETE FROM waits WHERE game_id = ? AND seat = ?", (game_id, seat))

    async def next_due(self, *, lobby_lifetime: float, computer_pause: float = 0.0) -> float | None:
        """When the scheduler next has something to do (a reminder, a deadline, a lobby expiry, a
        computer's move, the end of someone's quiet hours, a takeback request's hour running out)."""
        rows = await self._read(
            "SELECT (SELECT MIN(CASE WHEN claimed_until > deadline THEN claimed_until ELSE deadline END) "
            "FROM waits), "
            "(SELECT MIN((since + paused + deadline) / 2) FROM waits WHERE reminded = 0), "
            "(SELECT MIN(created_at) FROM games WHERE status = 'lobby'), "
            "(SELECT MIN(CASE WHEN w.claimed_until > w.since THEN w.claimed_until ELSE w.since END) "
            "FROM seats s JOIN waits w ON w.game_id = s.game_id AND w.seat = s.position "
            "WHERE s.user_id < 0), "
            "(SELECT MIN(next_end) FROM quiet_hours), "
            "(SELECT MIN(expires_at) FROM undo_requests WHERE status = 'pending')"
        )
        if not rows:
            return None
        deadline, remind_at, oldest_lobby, computer_since, quiet_ends, takeback_expires = rows[0]
        times = [float(t) for t in (deadline, remind_at, quiet_ends, takeback_expires) if t is not None]
        if computer_since is not None:
            times.append(float(computer_since) + computer_pause)
        if oldest_lobby is not None:
            times.append(float(oldest_lobby) + lobby_lifetime)
        return min(times) if times else None

    async def mute_reminders(self, *, game_id: int, user_id: int) -> None:
        await self._write(
            "INSERT INTO reminder_mutes (game_id, user_id) VALUES (?, ?) "
            "ON CONFLICT (game_id, user_id) DO NOTHING",
            (game_id, user_id),
        )

    async def reminders_muted(self, *, game_id: int, user_id: int) -> bool:
        rows = await self._read(
            "SELECT 1 FROM reminder_mutes WHERE game_id = ? AND user_id = ?", (game_id, user_id)
        )
        return bool(rows)
