"""The daily puzzle (/game puzzle): the day's puzzle, chosen once; each person's one answer a day and
their streak; the servers that post the puzzle daily, and each day's post.

A day is a UTC day, counted from 1970-01-01 (``int(epoch seconds // 86400)``). The first process to
store a day's puzzle wins (insert or ignore, then read back), so every process and shard shows the
same one. An answer and the streak it changes are one transaction, and the answer's primary key
(person, day) makes a second answer that day impossible, even from two processes at once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from bot.jsontypes import JSONObject
from bot.storage.driver import Q, Repository, Txn
from bot.storage.rows import from_row


@dataclass(frozen=True)
class StoredPuzzle:
    day: int
    n: int
    rows: tuple[str, ...]
    answer: int
    source_game_id: int | None


@dataclass(frozen=True)
class PuzzleAnswer:
    user_id: int
    day: int
    position: int
    correct: bool
    guild_id: int | None
    answered_at: float


@dataclass(frozen=True)
class Answered:
    """What answering did: ``fresh`` False when the person had already answered that day (``answer``
    is then their earlier one); ``streak`` their streak after it."""

    fresh: bool
    answer: PuzzleAnswer
    streak: int


@dataclass(frozen=True)
class PuzzleChannel:
    guild_id: int
    channel_id: int
    hour: int


def next_streak(streak: int, last_day: int | None, day: int, correct: bool) -> int:
    """The streak after answering ``day``'s puzzle: a wrong answer ends it; a right one extends a
    streak whose last answer was the day before, else starts one at 1 (a missed day broke it)."""
    if not correct:
        return 0
    return streak + 1 if last_day == day - 1 else 1


def current_streak(streak: int, last_day: int, today: int) -> int:
    """A stored streak as it stands ``today``: kept while its last answer was today or yesterday,
    broken (0) by a day without an answer."""
    return streak if last_day >= today - 1 else 0


_PUZZLE = "day, n, rows, answer, source_game_id"
_ANSWER = "user_id, day, position, correct, guild_id, answered_at"


def _puzzle(row: tuple[object, ...]) -> StoredPuzzle:
    day, n, rows, answer, source = row
    return StoredPuzzle(
        day=int(str(day)),
        n=int(str(n)),
        rows=tuple(str(r) for r in json.loads(str(rows))),
        answer=int(str(answer)),
        source_game_id=None if source is None else int(str(source)),
    )


def _answer(row: tuple[object, ...]) -> PuzzleAnswer:
    return from_row(PuzzleAnswer, row)  # type: ignore[arg-type]


def answer_txn(
    user_id: int, day: int, position: int, correct: bool, guild_id: int | None, now: float
) -> Txn[Answered]:
    inserted = yield Q(
        f"INSERT INTO puzzle_answers ({_ANSWER}) VALUES (?, ?, ?, ?, ?, ?) "
        f"ON CONFLICT (user_id, day) DO NOTHING RETURNING {_ANSWER}",
        (user_id, day, position, int(correct), guild_id, now),
    )
    streaks = yield Q("SELECT streak, last_day FROM puzzle_streaks WHERE user_id = ?", (user_id,))
    streak, last_day = (int(streaks[0][0] or 0), int(streaks[0][1] or 0)) if streaks else (0, None)
    if not inserted:
        earlier = yield Q(
            f"SELECT {_ANSWER} FROM puzzle_answers WHERE user_id = ? AND day = ?", (user_id, day)
        )
        now_streak = 0 if last_day is None else current_streak(streak, last_day, day)
        return Answered(fresh=False, answer=_answer(earlier[0]), streak=now_streak)
    new = next_streak(streak, last_day, day, correct)
    yield Q(
        "INSERT INTO puzzle_streaks (user_id, streak, best, last_day) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (user_id) DO UPDATE SET streak = excluded.streak, last_day = excluded.last_day, "
        "best = CASE WHEN excluded.best > puzzle_streaks.best "
        "THEN excluded.best ELSE puzzle_streaks.best END",
        (user_id, new, new, day),
    )
    return Answered(fresh=True, answer=_answer(inserted[0]), streak=new)


class Puzzles(Repository):
    # ---- the day's puzzle ----------------------------------------------------------------------------

    async def puzzle_of(self, *, day: int) -> StoredPuzzle | None:
        rows = await self._read(f"SELECT {_PUZZLE} FROM puzzles WHERE day = ?", (day,))
        return _puzzle(rows[0]) if rows else None

    async def keep_puzzle(
        self, *, day: int, n: int, rows: tuple[str, ...], answer: int, source_game_id: int | None, now: float
    ) -> StoredPuzzle:
        """Store the day's puzzle unless one is stored already; the day's puzzle either way."""

        def keep() -> Txn[StoredPuzzle]:
            yield Q(
                "INSERT INTO puzzles (day, n, rows, answer, source_game_id, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (day) DO NOTHING",
                (day, n, json.dumps(list(rows)), answer, source_game_id, now),
            )
            found = yield Q(f"SELECT {_PUZZLE} FROM puzzles WHERE day = ?", (day,))
            return _puzzle(found[0])

        return await self._db.write(keep())

    async def puzzle_sources(self, *, kind: str, limit: int = 200) -> list[tuple[int, JSONObject]]:
        """Finished games of ``kind`` no puzzle came from yet, the newest first: (id, state)."""
        rows = await self._read(
            "SELECT id, state FROM games WHERE kind = ? AND status = 'finished' "
            "AND state IS NOT NULL AND id NOT IN "
            "(SELECT source_game_id FROM puzzles WHERE source_game_id IS NOT NULL) ORDER BY id DESC LIMIT ?",
            (kind, limit),
        )
        return [(int(str(game_id)), json.loads(str(state))) for game_id, state in rows]

    # ---- answers and streaks -------------------------------------------------------------------------

    async def answer_puzzle(
        self, *, user_id: int, day: int, position: int, correct: bool, guild_id: int | None, now: float
    ) -> Answered:
        """Record the person's answer to ``day``'s puzzle and move their streak, in one transaction;
        when they had answered that day already, nothing changes (``fresh`` False)."""
        return await self._db.write(answer_txn(user_id, day, position, correct, guild_id, now))

    async def puzzle_answer_of(self, *, user_id: int, day: int) -> PuzzleAnswer | None:
        rows = await self._read(
            f"SELECT {_ANSWER} FROM puzzle_answers WHERE user_id = ? AND day = ?", (user_id, day)
        )
        return _answer(rows[0]) if rows else None

    async def puzzle_streak(self, *, user_id: int, today: int) -> int:
        rows = await self._read("SELECT streak, last_day FROM puzzle_streaks WHERE user_id = ?", (user_id,))
        return current_streak(int(str(rows[0][0])), int(str(rows[0][1])), today) if rows else 0

    async def puzzle_leaders(self, *, guild_id: int, today: int, limit: int = 10) -> list[tuple[int, int]]:
        """The longest current streaks of the people who answered a puzzle in this server: (user id,
        streak), longest first."""
        rows = await self._read(
            "SELECT user_id, streak FROM puzzle_streaks WHERE streak > 0 AND last_day >= ? AND user_id IN "
            "(SELECT user_id FROM puzzle_answers WHERE guild_id = ?) ORDER BY streak DESC, user_id LIMIT ?",
            (today - 1, guild_id, limit),
        )
        return [(int(str(user_id)), int(str(streak))) for user_id, streak in rows]

    # ---- the daily post ------------------------------------------------------------------------------

    async def set_puzzle_channel(self, *, guild_id: int, channel_id: int, hour: int) -> None:
        await self._write(
            "INSERT INTO puzzle_channels (guild_id, channel_id, hour) VALUES (?, ?, ?) "
            "ON CONFLICT (guild_id) DO UPDATE SET channel_id = excluded.channel_id, hour = excluded.hour",
            (guild_id, channel_id, hour),
        )

    async def drop_puzzle_channel(self, *, guild_id: int) -> None:
        await self._write("DELETE FROM puzzle_channels WHERE guild_id = ?", (guild_id,))

    async def puzzle_channel(self, *, guild_id: int) -> PuzzleChannel | None:
        rows = await self._read(
            "SELECT guild_id, channel_id, hour FROM puzzle_channels WHERE guild_id = ?", (guild_id,)
        )
        return from_row(PuzzleChannel, rows[0]) if rows else None

    async def due_puzzle_posts(self, *, day: int, hour: int, now: float, holder: str) -> list[PuzzleChannel]:
        """The servers whose post of ``day``'s puzzle is due (their hour is ``hour`` or earlier), not
        sent yet and not being sent by another process."""
        rows = await self._read(
            "SELECT c.guild_id, c.channel_id, c.hour FROM puzzle_channels c WHERE c.hour <= ? AND NOT EXISTS "
            "(SELECT 1 FROM puzzle_posts p WHERE p.guild_id = c.guild_id AND p.day = ? AND "
            "(p.message_id IS NOT NULL OR (p.claimed_until >= ? AND p.claimed_by <> ?))) "
            "ORDER BY c.guild_id LIMIT 50",
            (hour, day, now, holder),
        )
        return [from_row(PuzzleChannel, r) for r in rows]

    async def claim_puzzle_post(
        self, *, guild_id: int, day: int, channel_id: int, holder: str, now: float, until: float
    ) -> bool:
        """Claim the server's post of ``day``'s puzzle for ``holder`` until ``until``: True for the one
        process whose claim found it unsent and free (or its own, or expired)."""
        rows = await self._write(
            "INSERT INTO puzzle_posts (guild_id, day, channel_id, claimed_until, claimed_by) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (guild_id, day) DO UPDATE SET "
            "claimed_until = excluded.claimed_until, claimed_by = excluded.claimed_by "
            "WHERE puzzle_posts.message_id IS NULL AND (puzzle_posts.claimed_until < ? "
            "OR puzzle_posts.claimed_by = ?) RETURNING guild_id",
            (guild_id, day, channel_id, until, holder, now, holder),
        )
        return bool(rows)

    async def finish_puzzle_post(self, *, guild_id: int, day: int, message_id: int) -> None:
        """The post is made (``message_id`` 0: it could not be, and is not tried again that day)."""
        await self._write(
            "UPDATE puzzle_posts SET message_id = ?, claimed_until = NULL, claimed_by = NULL "
            "WHERE guild_id = ? AND day = ?",
            (message_id, guild_id, day),
        )


# ---- people's data (bot/storage/privacy.py) ------------------------------------------------------------


def export_puzzles(user_id: int) -> Txn[JSONObject]:
    """The person's puzzle answers and streak, for /game privacy export."""
    answers = yield Q(
        "SELECT day, position, correct, guild_id, answered_at FROM puzzle_answers WHERE user_id = ? "
        "ORDER BY day",
        (user_id,),
    )
    streak = yield Q("SELECT streak, best, last_day FROM puzzle_streaks WHERE user_id = ?", (user_id,))
    return {
        "puzzle_answers": [
            {
                "day": int(str(day)),
                "flip": int(str(position)),
                "right": bool(correct),
                "server": None if guild is None else str(guild),
                "at": float(str(at)),
            }
            for day, position, correct, guild, at in answers
        ],
        "puzzle_streak": (
            None
            if not streak
            else {
                "streak": int(str(streak[0][0])),
                "best": int(str(streak[0][1])),
                "last_day": int(str(streak[0][2])),
            }
        ),
    }


def forget_puzzles(user_id: int) -> Txn[None]:
    """The person's puzzle answers and streak deleted (the day's puzzles hold nothing of anyone)."""
    yield Q("DELETE FROM puzzle_answers WHERE user_id = ?", (user_id,))
    yield Q("DELETE FROM puzzle_streaks WHERE user_id = ?", (user_id,))
