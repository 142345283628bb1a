"""Seasons (``/game settings seasons:``): each server's choice and the numbering of its current run
(``season_settings``), and the seasons that ended (``seasons_ended``), each with its end post.

The arithmetic of season numbers is `bot.memory.seasons.Run` (pure). A season that has ended gets its
row from whichever process's pass sees it first (`open_ended_seasons`: insert or ignore, the same row
from every process), or from the settings change that ends its run; that row is the durable record
of the season (its period's key, for the leaderboard of a past season and the seasons a player won)
and of its post: claimed by one process (a claim of a process that died expires), sent with a nonce,
then marked sent, as the daily puzzle's posts are (`bot.storage.puzzles`).
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.memory.periods import SEASON_PERIODS
from bot.memory.seasons import Run
from bot.storage.driver import Many, Q, Repository, Row, Txn
from bot.storage.privacy import DELETED_FIRST, DELETED_LAST
from bot.storage.rows import from_row

CATCH_UP = 24  # the most ended seasons one pass records per server (a bot stopped for two years)


@dataclass(frozen=True)
class SeasonSetting:
    """A server's seasons: ``mode`` None when off; ``channel_id`` where a season's end is posted (None:
    nowhere); the current (or last) run's numbering."""

    guild_id: int
    mode: str | None
    channel_id: int | None
    first_season: int
    first_index: int

    @property
    def run(self) -> Run | None:
        return None if self.mode is None else Run(self.mode, self.first_season, self.first_index)


@dataclass(frozen=True)
class EndedSeason:
    guild_id: int
    season: int
    mode: str
    period: str  # the period key of its standings ("m2026-11")
    starts_at: float
    ends_at: float
    channel_id: int | None
    message_id: int | None  # None: its post is not made yet; 0: nothing was posted


@dataclass(frozen=True)
class SeasonWon:
    """A season in which the player topped a game's board (ties at the top share it)."""

    season: int
    kind: str
    starts_at: float
    ends_at: float


_SETTING = "guild_id, mode, channel_id, first_season, first_index"
_ENDED = "guild_id, season, mode, period, starts_at, ends_at, channel_id, message_id"


def _setting(row: Row) -> SeasonSetting:
    return from_row(SeasonSetting, row)


def _ended(row: Row) -> EndedSeason:
    return from_row(EndedSeason, row)


def _record_ended(setting: SeasonSetting, last_recorded: int | None, now: float) -> Txn[None]:
    """The ended seasons of the server's current run that have no row yet get one (insert or ignore:
    two processes write the same rows)."""
    run = setting.run
    if run is None:
        return
    first = max(run.first_season, (last_recorded or 0) + 1)
    last = min(run.ended(now), first + CATCH_UP - 1)
    if last < first:
        return
    yield Many(
        f"INSERT INTO seasons_ended ({_ENDED}) VALUES (?, ?, ?, ?, ?, ?, ?, NULL) "
        "ON CONFLICT (guild_id, season) DO NOTHING",
        [
            (setting.guild_id, n, run.mode, run.key(n), run.starts(n), run.ends(n), setting.channel_id)
            for n in range(first, last + 1)
        ],
    )


def _last_recorded(guild_id: int) -> Txn[int | None]:
    rows = yield Q("SELECT MAX(season) FROM seasons_ended WHERE guild_id = ?", (guild_id,))
    return None if not rows or rows[0][0] is None else int(str(rows[0][0]))


def set_seasons_txn(
    guild_id: int, mode: str | None, channel_id: int | None, now: float, keep_mode: bool
) -> Txn[SeasonSetting]:
    """Change a server's seasons: ``mode`` (None: off), unless ``keep_mode``; ``channel_id``, unless
    None (the channel stays). A new length, or seasons turned on, begins a new run with the next whole
    month or quarter; the seasons of the old run that ended are recorded first (their posts stay due);
    its season under way, if any, ends with no champion, and its number is not used again."""
    if mode is not None and mode not in SEASON_PERIODS:
        raise ValueError(f"no season length {mode!r}")
    rows = yield Q(f"SELECT {_SETTING} FROM season_settings WHERE guild_id = ?", (guild_id,))
    old = _setting(rows[0]) if rows else None
    last = yield from _last_recorded(guild_id)
    if old is not None:
        yield from _record_ended(old, last, now)
        last = yield from _last_recorded(guild_id)
    channel = channel_id if channel_id is not None else (old.channel_id if old else None)
    if old is None and (keep_mode or mode is None):  # (only the channel chosen, seasons still off)
        new = SeasonSetting(guild_id, None, channel, 1, 0)
    elif old is not None and (keep_mode or old.mode == mode):
        new = SeasonSetting(guild_id, old.mode, channel, old.first_season, old.first_index)
    elif mode is None:
        assert old is not None
        new = SeasonSetting(guild_id, None, channel, old.first_season, old.first_index)
    else:
        used = last or 0
        old_run = old.run if old is not None else None
        if old_run is not None:
            used = max(used, old_run.season_at(now))  # (the season under way, if begun, is used up)
        run = Run.starting_after(mode, now, used + 1)
        new = SeasonSetting(guild_id, mode, channel, run.first_season, run.first_index)
    yield Q(
        f"INSERT INTO season_settings ({_SETTING}, changed_at) VALUES (?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (guild_id) DO UPDATE SET mode = excluded.mode, channel_id = excluded.channel_id, "
        "first_season = excluded.first_season, first_index = excluded.first_index, "
        "changed_at = excluded.changed_at",
        (new.guild_id, new.mode, new.channel_id, new.first_season, new.first_index, now),
    )
    return new


_RUNS = (
    "SELECT s.guild_id, s.mode, s.channel_id, s.first_season, s.first_index, "
    "(SELECT MAX(e.season) FROM seasons_ended e WHERE e.guild_id = s.guild_id) "
    "FROM season_settings s WHERE s.mode IS NOT NULL"
)


def _ended_unrecorded(rows: list[Row], now: float) -> list[tuple[SeasonSetting, int | None]]:
    """The servers (of ``rows``, read by `_RUNS`) with a season that ended by ``now`` and has no row
    yet, each with its last recorded season."""
    due = []
    for row in rows:
        setting = _setting(row[:5])
        run = setting.run
        last = None if row[5] is None else int(str(row[5]))
        if run is not None and run.ended(now) >= max(run.first_season, (last or 0) + 1):
            due.append((setting, last))
    return due


def open_ended_txn(now: float) -> Txn[None]:
    """Every server with seasons on: the seasons that ended by ``now`` recorded."""
    rows = yield Q(_RUNS)
    for setting, last in _ended_unrecorded(rows, now):
        yield from _record_ended(setting, last, now)


class Seasons(Repository):
    async def season_setting(self, *, guild_id: int) -> SeasonSetting | None:
        rows = await self._read(f"SELECT {_SETTING} FROM season_settings WHERE guild_id = ?", (guild_id,))
        return _setting(rows[0]) if rows else None

    async def set_seasons(
        self, *, guild_id: int, mode: str | None, channel_id: int | None, now: float, keep_mode: bool = False
    ) -> SeasonSetting:
        """``/game settings seasons:<mode> [announce:]`` (see `set_seasons_txn`)."""
        return await self._db.write(set_seasons_txn(guild_id, mode, channel_id, now, keep_mode))

    async def open_ended_seasons(self, *, now: float) -> None:
        """Record the seasons that ended by ``now`` (the scheduler's pass): a read, and a write only
        when a season has ended since the last look."""
        if _ended_unrecorded(await self._read(_RUNS), now):
            await self._db.write(open_ended_txn(now))

    async def ended_season(self, *, guild_id: int, season: int) -> EndedSeason | None:
        rows = await self._read(
            f"SELECT {_ENDED} FROM seasons_ended WHERE guild_id = ? AND season = ?", (guild_id, season)
        )
        return _ended(rows[0]) if rows else None

    async def last_ended_season(self, *, guild_id: int) -> int | None:
        rows = await self._read("SELECT MAX(season) FROM seasons_ended WHERE guild_id = ?", (guild_id,))
        return None if not rows or rows[0][0] is None else int(str(rows[0][0]))

    async def due_season_posts(self, *, now: float, holder: str) -> list[EndedSeason]:
        """The ended seasons whose post is not made yet and not being made by another process."""
        rows = await self._read(
            f"SELECT {_ENDED} FROM seasons_ended WHERE message_id IS NULL AND (claimed_until IS NULL "
            "OR claimed_until < ? OR claimed_by = ?) ORDER BY guild_id, season LIMIT 50",
            (now, holder),
        )
        return [_ended(r) for r in rows]

    async def claim_season_post(
        self, *, guild_id: int, season: int, holder: str, now: float, until: float
    ) -> bool:
        """Claim a season's end post for ``holder`` until ``until``: True for the one process whose
        claim found it unsent and free (or its own, or expired)."""
        rows = await self._write(
            "UPDATE seasons_ended SET claimed_until = ?, claimed_by = ? WHERE guild_id = ? AND season = ? "
            "AND message_id IS NULL AND (claimed_until IS NULL OR claimed_until < ? OR claimed_by = ?) "
            "RETURNING guild_id",
            (until, holder, guild_id, season, now, holder),
        )
        return bool(rows)

    async def finish_season_post(self, *, guild_id: int, season: int, message_id: int) -> None:
        """The post is made (``message_id`` 0: nothing was posted, and nothing will be)."""
        await self._write(
            "UPDATE seasons_ended SET message_id = ?, claimed_until = NULL, claimed_by = NULL "
            "WHERE guild_id = ? AND season = ?",
            (message_id, guild_id, season),
        )

    async def season_kinds(self, *, guild_id: int, period: str) -> list[str]:
        """The games with a rated game finished in the period (a season's), in name order."""
        rows = await self._read(
            "SELECT DISTINCT kind FROM period_standings WHERE guild_id = ? AND period = ? ORDER BY kind",
            (guild_id, period),
        )
        return [str(r[0]) for r in rows]

    async def seasons_won(self, *, guild_id: int, player_id: int) -> list[SeasonWon]:
        """The ended seasons of this server in which the player topped a game's board (by rating
        gained, then wins, as the board ranks; equal figures at the top share it), oldest first."""
        rows = await self._read(
            "SELECT e.season, p.kind, e.starts_at, e.ends_at FROM seasons_ended e "
            "JOIN period_standings p ON p.guild_id = e.guild_id AND p.period = e.period "
            "WHERE e.guild_id = ? AND p.player_id = ? AND NOT EXISTS (SELECT 1 FROM period_standings q "
            "WHERE q.guild_id = p.guild_id AND q.kind = p.kind AND q.period = p.period "
            "AND (q.gain > p.gain OR (q.gain = p.gain AND q.wins > p.wins)) "
            f"AND NOT (q.player_id BETWEEN {DELETED_FIRST} AND {DELETED_LAST})) ORDER BY e.season, p.kind",
            (guild_id, player_id),
        )
        return [from_row(SeasonWon, r) for r in rows]
