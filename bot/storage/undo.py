"""Takebacks: a move taken back is marked in the log (``moves.undone``, the version its takeback
made), never erased; a takeback asked for waits in ``undo_requests`` for the other players' answers
(at most one pending per game); a computer's one accepted takeback per game is ``undo_grants``.

Every change to a request compares-and-swaps its status (and its acceptances), so when several
processes share the database one of them acts on it: the accept that completes it, a decline, or
its expiry."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from bot.jsontypes import DBValue, JSONMap
from bot.storage.driver import Many, Q, Repository, Txn
from bot.storage.errors import StaleVersion
from bot.storage.games import change
from bot.storage.rows import Storable, UndoRequest, Written, dumps
from bot.storage.waits import sync as sync_waits

_COLUMNS = (
    "id, game_id, seat, seq, version, status, accepted, answered_by, channel_id, message_id, "
    "created_at, expires_at"
)


def _request(r: Sequence[DBValue]) -> UndoRequest:
    accepted = str(r[6])
    return UndoRequest(
        id=int(r[0]),  # type: ignore[arg-type]
        game_id=int(r[1]),  # type: ignore[arg-type]
        seat=int(r[2]),  # type: ignore[arg-type]
        seq=int(r[3]),  # type: ignore[arg-type]
        version=int(r[4]),  # type: ignore[arg-type]
        status=str(r[5]),
        accepted=tuple(int(s) for s in accepted.split(",") if s),
        answered_by=None if r[7] is None else int(r[7]),  # type: ignore[arg-type]
        channel_id=None if r[8] is None else int(r[8]),  # type: ignore[arg-type]
        message_id=None if r[9] is None else int(r[9]),  # type: ignore[arg-type]
        created_at=float(r[10]),  # type: ignore[arg-type]
        expires_at=float(r[11]),  # type: ignore[arg-type]
    )


def _seats_text(seats: Collection[int]) -> str:
    return ",".join(str(s) for s in sorted(set(seats)))


def _close(request_id: int, status: str, answered_by: int | None) -> Txn[bool]:
    rows = yield Q(
        "UPDATE undo_requests SET status = ?, answered_by = ? WHERE id = ? AND status = 'pending' "
        "RETURNING id",
        (status, answered_by, request_id),
    )
    return bool(rows)


@dataclass(frozen=True)
class Takeback:
    """A takeback to write: the move ``seq`` of game ``game_id`` taken back by the version after
    ``expected_version``; the state rebuilt without it and the seats it awaits; the request it
    answers (None: a computer's or a lone player's); the computers that accepted; its effects."""

    game_id: int
    expected_version: int
    seq: int
    state: JSONMap
    waiting: Sequence[int]
    effects: Sequence[Storable]
    request_id: int | None
    granted: Collection[int] = ()


def undo_change(t: Takeback) -> Txn[Written]:
    """One transaction: the move marked as taken back by the version this change makes, the state
    rebuilt without it swapped in (compare-and-swap on the version), the seats now awaited (the
    mover again: a fresh deadline), the request (if any) closed as accepted, the computers that
    accepted remembered, the mover's time to move no longer counting the move, and the takeback's
    ``effects`` queued. `StaleVersion` if the game moved or the request was answered meanwhile:
    nothing is written."""

    def mark() -> Txn[None]:
        rows = yield Q(
            "UPDATE moves SET undone = ? WHERE game_id = ? AND seq = ? AND undone IS NULL "
            "RETURNING seat, created_at, forfeit",
            (t.expected_version + 1, t.game_id, t.seq),
        )
        if not rows:
            raise StaleVersion()
        if t.request_id is not None and not (yield from _close(t.request_id, "accepted", None)):
            raise StaleVersion()
        if t.granted:
            yield Many(
                "INSERT INTO undo_grants (game_id, seat) VALUES (?, ?) "
                "ON CONFLICT (game_id, seat) DO NOTHING",
                [(t.game_id, seat) for seat in sorted(t.granted)],
            )
        seat, made_at, forfeit = rows[0]
        if forfeit is None:  # a move counted in the mover's time to move (`bot.storage.records`)
            yield from _uncount(t.game_id, int(seat), float(made_at), t.seq)  # type: ignore[arg-type]

    return change(
        t.game_id,
        t.expected_version,
        {"state": dumps(dict(t.state))},
        mark(),
        sync_waits(t.game_id, t.waiting),
        effects=t.effects,
    )


def _uncount(game_id: int, seat: int, made_at: float, seq: int) -> Txn[None]:
    """The move ``seq`` (made at ``made_at``) no longer counts in its mover's time to move: one move
    less, and the time since the move before it (the wait it answered) taken off."""
    before = yield Q(
        "SELECT MAX(created_at) FROM moves WHERE game_id = ? AND seq < ? AND undone IS NULL", (game_id, seq)
    )
    waited = 0.0 if not before or before[0][0] is None else max(0.0, made_at - float(before[0][0]))  # type: ignore[arg-type]
    clock = yield Q("SELECT moves, seconds FROM move_clock WHERE game_id = ? AND seat = ?", (game_id, seat))
    if not clock or int(clock[0][0]) <= 0:  # type: ignore[arg-type]
        return
    yield Q(
        "UPDATE move_clock SET moves = ?, seconds = ? WHERE game_id = ? AND seat = ?",
        (int(clock[0][0]) - 1, max(0.0, float(clock[0][1]) - waited), game_id, seat),  # type: ignore[arg-type]
    )


class Undos(Repository):
    async def open_undo_request(
        self, *, game_id: int, seat: int, seq: int, version: int, now: float, expires_at: float
    ) -> tuple[UndoRequest | None, list[UndoRequest]]:
        """A new pending request, and the requests it closed (pending ones the game has moved past,
        or whose hour is up: their messages are to say so); None if a live one is pending."""

        def work() -> Txn[tuple[UndoRequest | None, list[UndoRequest]]]:
            closed = yield Q(
                "UPDATE undo_requests SET status = CASE WHEN version != ? THEN 'lapsed' ELSE 'expired' END "
                "WHERE game_id = ? AND status = 'pending' AND (version != ? OR expires_at <= ?) "
                f"RETURNING {_COLUMNS}",
                (version, game_id, version, now),
            )
            rows = yield Q(
                "INSERT INTO undo_requests (game_id, seat, seq, version, status, accepted, created_at, "
                "expires_at) VALUES (?, ?, ?, ?, 'pending', '', ?, ?) "
                "ON CONFLICT (game_id) WHERE status = 'pending' DO NOTHING "
                f"RETURNING {_COLUMNS}",
                (game_id, seat, seq, version, now, expires_at),
            )
            return (_request(rows[0]) if rows else None), [_request(r) for r in closed]

        return await self._db.write(work())

    async def undo_request(self, *, request_id: int) -> UndoRequest | None:
        rows = await self._read(f"SELECT {_COLUMNS} FROM undo_requests WHERE id = ?", (request_id,))
        return _request(rows[0]) if rows else None

    async def pending_undo(self, *, game_id: int) -> UndoRequest | None:
        rows = await self._read(
            f"SELECT {_COLUMNS} FROM undo_requests WHERE game_id = ? AND status = 'pending'", (game_id,)
        )
        return _request(rows[0]) if rows else None

    async def set_undo_message(self, *, request_id: int, channel_id: int, message_id: int) -> None:
        await self._write(
            "UPDATE undo_requests SET channel_id = ?, message_id = ? WHERE id = ?",
            (channel_id, message_id, request_id),
        )

    async def accept_undo(self, *, request_id: int, seat: int, accepted: Collection[int]) -> bool:
        """``seat`` accepts: True if the request was still pending with exactly ``accepted`` (else
        someone else answered meanwhile: read it again)."""
        rows = await self._write(
            "UPDATE undo_requests SET accepted = ? WHERE id = ? AND status = 'pending' AND accepted = ? "
            "RETURNING id",
            (_seats_text([*accepted, seat]), request_id, _seats_text(accepted)),
        )
        return bool(rows)

    async def close_undo(self, *, request_id: int, status: str, answered_by: int | None = None) -> bool:
        """Close a pending request as 'declined', 'expired' or 'lapsed': True if this call did."""
        return await self._db.write(_close(request_id, status, answered_by))

    async def due_undo_requests(self, *, now: float, limit: int = 50) -> list[UndoRequest]:
        rows = await self._read(
            f"SELECT {_COLUMNS} FROM undo_requests WHERE status = 'pending' AND expires_at <= ? "
            "ORDER BY expires_at LIMIT ?",
            (now, limit),
        )
        return [_request(r) for r in rows]

    async def undo_grants(self, *, game_id: int) -> set[int]:
        rows = await self._read("SELECT seat FROM undo_grants WHERE game_id = ?", (game_id,))
        return {int(r[0]) for r in rows}

    async def write_undo(self, takeback: Takeback) -> Written:
        """A takeback, in one transaction: see `undo_change`."""
        return await self._db.write(undo_change(takeback))
