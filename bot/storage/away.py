"""Time away and more time (see `bot.away` for the arithmetic): who is away until when, their
earlier periods of the last 30 days, their waits' deadlines moved by the time away, and the more
time players gave an awaited player, once per awaited move per giver.

Each change locks the person's ``away`` row first (an upsert), so two processes handling the same
person's `/game away` at once go one after the other, and a deadline is moved once."""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass

from bot.away import DAY, Period, days_left, kept
from bot.storage.driver import Q, Repository, Txn
from bot.storage.outbox import lock_game

_THEIR_WAITS = (
    "EXISTS (SELECT 1 FROM seats s WHERE s.game_id = waits.game_id AND s.position = waits.seat "
    "AND s.user_id = ?)"
)


@dataclass(frozen=True)
class AwayAnswer:
    """What `/game away` did: away ``until`` (None: refused, only ``left`` days may be taken now)."""

    until: float | None
    left: int


@dataclass(frozen=True)
class Extended:
    """What `/game extend` did: the new ``deadline``, or why not (``"not-awaited"``, ``"given"``)."""

    deadline: float | None
    refused: str = ""


@dataclass(frozen=True)
class Extension:
    seat: int
    giver_id: int
    seconds: float


def _locked(user_id: int) -> Txn[tuple[float, float, list[Period]]]:
    rows = yield Q(
        "INSERT INTO away (user_id, started, ends, earlier) VALUES (?, 0, 0, '[]') "
        "ON CONFLICT (user_id) DO UPDATE SET user_id = excluded.user_id RETURNING started, ends, earlier",
        (user_id,),
    )
    started, ends, earlier = rows[0]
    return float(started), float(ends), [(float(a), float(b)) for a, b in json.loads(str(earlier))]


def _give_back(user_id: int, seconds: float) -> Txn[None]:
    """Take ``seconds`` of time away off the deadlines of ``user_id``'s waits that it moved."""
    yield Q(
        "UPDATE waits SET deadline = deadline - ?, "
        "paused = CASE WHEN paused > ? THEN paused - ? ELSE 0 END "
        f"WHERE paused > 0 AND {_THEIR_WAITS}",
        (seconds, seconds, seconds, user_id),
    )


class Away(Repository):
    async def go_away(self, *, user_id: int, days: int, now: float) -> AwayAnswer:
        """Away from ``now`` for ``days`` days: every wait of theirs has its deadline moved by the
        stay (a stay under way is ended first, its unused rest given back). Refused (nothing
        changes) when the stay would make more than 14 days away in some 30 days."""

        def work() -> Txn[AwayAnswer]:
            started, ends, earlier = yield from _locked(user_id)
            periods = [*earlier, (started, min(ends, now))]
            left = days_left(periods, now)
            if days > left:
                return AwayAnswer(None, left)
            if ends > now:
                yield from _give_back(user_id, ends - now)
            until = now + days * DAY
            yield Q(
                "UPDATE away SET started = ?, ends = ?, earlier = ? WHERE user_id = ?",
                (now, until, json.dumps(kept(periods, now)), user_id),
            )
            yield Q(
                f"UPDATE waits SET deadline = deadline + ?, paused = paused + ? WHERE {_THEIR_WAITS}",
                (until - now, until - now, user_id),
            )
            return AwayAnswer(until, left - days)

        return await self._db.write(work())

    async def come_back(self, *, user_id: int, now: float) -> float | None:
        """Back at ``now``: the stay ends, and its unused rest comes off their deadlines again. The
        end the stay had, or None when they were not away."""

        def work() -> Txn[float | None]:
            started, ends, _ = yield from _locked(user_id)
            if ends <= now:
                return None
            yield from _give_back(user_id, ends - now)
            yield Q("UPDATE away SET ends = ? WHERE user_id = ?", (max(now, started), user_id))
            return ends

        return await self._db.write(work())

    async def away_until(self, *, user_ids: Collection[int], now: float) -> dict[int, float]:
        """Those of ``user_ids`` away at ``now``, with the end of their stay."""
        ids = sorted(set(user_ids))
        if not ids:
            return {}
        marks = ", ".join("?" * len(ids))
        rows = await self._read(
            f"SELECT user_id, ends FROM away WHERE user_id IN ({marks}) AND ends > ? AND started <= ?",
            (*ids, now, now),
        )
        return {int(u): float(e) for u, e in rows}

    async def extend_wait(
        self, *, game_id: int, seat: int, giver_id: int, seconds: float, now: float
    ) -> Extended:
        """``giver_id`` gives the player in ``seat`` ``seconds`` more for the move awaited from them:
        once per awaited move per giver."""

        def work() -> Txn[Extended]:
            yield from lock_game(game_id)  # (before the wait's row, as a move's change does)
            rows = yield Q("SELECT since FROM waits WHERE game_id = ? AND seat = ?", (game_id, seat))
            if not rows:
                return Extended(None, "not-awaited")
            since = rows[0][0]
            given = yield Q(
                "INSERT INTO extensions (game_id, seat, since, giver_id, seconds, given_at) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (game_id, seat, since, giver_id) DO NOTHING "
                "RETURNING seat",
                (game_id, seat, since, giver_id, seconds, now),
            )
            if not given:
                return Extended(None, "given")
            moved = yield Q(
                "UPDATE waits SET deadline = deadline + ? WHERE game_id = ? AND seat = ? AND since = ? "
                "RETURNING deadline",
                (seconds, game_id, seat, since),
            )
            return Extended(float(moved[0][0]))

        return await self._db.write(work())

    async def extensions_of_game(self, *, game_id: int) -> list[Extension]:
        """The more time given for the moves the game awaits now, in the order it was given."""
        rows = await self._read(
            "SELECT e.seat, e.giver_id, e.seconds FROM extensions e JOIN waits w ON w.game_id = e.game_id "
            "AND w.seat = e.seat AND w.since = e.since WHERE e.game_id = ? ORDER BY e.given_at, e.giver_id",
            (game_id,),
        )
        return [Extension(int(s), int(g), float(x)) for s, g, x in rows]
