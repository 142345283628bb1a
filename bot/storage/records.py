"""The server's memory: finished games' results, ratings, rivals and period standings.

Written in the transaction that finishes a game (`on_move`, one of the writes of
`Games.record_move`), so a game is either still live or finished *and* rated, never in between; a
move that does not finish the game adds its mover's time to move to ``move_clock``. The games
finished before these tables existed are recorded once, at the first start after the migration
(`Records.backfill_records`, called by `Storage.open`), in the order they finished.

The rating arithmetic is `bot.memory.ratings` (pure); `Records.recomputed_ratings` replays it over
the stored places from scratch, which must give the ratings kept here (a test checks).

Reads are indexed by server first (``guild_id``): a leaderboard reads its top rows of ``ratings`` (or
``period_standings``) in index order, stats read a player's few rows, history one page of
``results``; none reads the move log or every game.
"""

from __future__ import annotations

import itertools
import json
import logging
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from bot import clock as bot_clock
from bot.jsontypes import DBValue, JSONMap
from bot.memory.periods import ALL_TIME, TIMED, period_key
from bot.memory.ratings import Entry, Finished, Rating, SeatResult, identity_name, rate, seat_results
from bot.storage.driver import Many, Q, Repository, Row, Txn
from bot.storage.privacy import DELETED_FIRST, DELETED_LAST
from bot.storage.rows import BoardLine, HistoryPage, KindRecord, PastGame, PastSeat, Rival, from_row
from bot.storage.tournament_games import tournament_game_over

log = logging.getLogger(__name__)

BACKFILL_KEY = "records_backfill"
PROGRESS_EVERY = 1000  # games between two progress lines of the backfill
TREND_GAMES = 10  # a rating's trend: its change over the player's last this many games
# Who a board shows: not the placeholders of people who asked to be forgotten (`bot.storage.privacy`).
SHOWN = f"NOT (player_id BETWEEN {DELETED_FIRST} AND {DELETED_LAST})"
SHOWN_P = f"NOT (p.player_id BETWEEN {DELETED_FIRST} AND {DELETED_LAST})"


def _is_forfeit(action: JSONMap) -> bool:
    return action.get("type") == "forfeit"


# ---- written with a move ------------------------------------------------------------------------------


def on_move(
    game_id: int,
    seat: int,
    action: JSONMap,
    result: JSONMap | None,
    score_ranked: Collection[str] = (),
) -> Txn[None]:
    """What a move adds to the memory, in the move's own transaction (before the seats' waits are
    synced: the mover's wait says since when the game waited for them): the mover's time to move
    (a forfeit is no move), and with ``result``, the finished game's results and ratings."""
    now = bot_clock.now()
    if not _is_forfeit(action):
        yield Q(
            "INSERT INTO move_clock (game_id, seat, moves, seconds) "
            "SELECT game_id, seat, 1, CASE WHEN since < ? THEN ? - since ELSE 0.0 END FROM waits "
            "WHERE game_id = ? AND seat = ? "
            "ON CONFLICT (game_id, seat) DO UPDATE SET moves = move_clock.moves + 1, "
            "seconds = move_clock.seconds + excluded.seconds",
            (now, now, game_id, seat),
        )
    if result is None:
        return
    rows = yield Q("SELECT seat, moves, seconds FROM move_clock WHERE game_id = ?", (game_id,))
    clock = {int(r[0]): (int(r[1]), float(r[2])) for r in rows}
    yield Q("DELETE FROM move_clock WHERE game_id = ?", (game_id,))
    forfeits = yield Q("SELECT seat FROM moves WHERE game_id = ? AND forfeit IS NOT NULL", (game_id,))
    forfeited = {int(s) for (s,) in forfeits}
    if _is_forfeit(action):
        forfeited.add(seat)
    yield from record_finished(
        game_id, result, forfeited=forfeited, clock=clock, finished_at=now, score_ranked=score_ranked
    )
    yield from tournament_game_over(game_id, result, forfeited)  # (a tournament's game: its pairing)


def record_finished(
    game_id: int,
    result: JSONMap,
    *,
    forfeited: set[int],
    clock: Mapping[int, tuple[int, float]],
    finished_at: float,
    score_ranked: Collection[str] = (),
) -> Txn[None]:
    """Record a finished game: its seats' results, and every player's rating, tally, rivals and
    period standings. ``clock``: per seat, (moves timed, seconds). A game outside a server is not
    recorded (every figure belongs to a server)."""
    rows = yield Q("SELECT guild_id, kind, hints FROM games WHERE id = ?", (game_id,))
    if not rows or rows[0][0] is None:
        return
    guild_id, kind = int(rows[0][0]), str(rows[0][1])
    # A game played with hints (`/game hint`) is kept in history but changes no rating, standing or
    # tally: its results say the ratings it found, before and after.
    rated = not rows[0][2]
    seat_rows = yield Q("SELECT user_id, name FROM seats WHERE game_id = ? ORDER BY position", (game_id,))
    seats = [int(r[0]) for r in seat_rows]
    names = [str(r[1]) for r in seat_rows]
    results = seat_results(kind in score_ranked, seats, result, forfeited)
    players = sorted({r.player for r in results})
    if rated:
        prior = yield from _claimed_ratings(guild_id, kind, players, finished_at)
        new = rate(prior, [Entry(r.player, r.place) for r in results])
    else:
        prior = yield from _ratings_now(guild_id, kind, players)
        new = {p: prior.get(p, Rating()) for p in players}
    done = yield Q(
        "INSERT INTO finished_games (game_id, guild_id, kind, players, finished_at, rated) "
        "VALUES (?, ?, ?, ?, ?, ?) RETURNING seq",
        (game_id, guild_id, kind, len(seats), finished_at, int(rated)),
    )
    game = _Finished(
        game_id=game_id,
        seq=int(done[0][0]),
        guild_id=guild_id,
        kind=kind,
        names=names,
        results=results,
        clock=clock,
        finished_at=finished_at,
        prior=prior,
        new=new,
    )
    yield _results_rows(game)
    tally = _tally(game)
    if rated:
        yield _ratings_rows(game, tally)
    yield _rivals_rows(guild_id, tally)
    if rated:
        yield _standings_rows(game, tally)


@dataclass(frozen=True)
class _Finished:
    """A finished game being recorded: where and what it was, how its seats did, and its players'
    ratings before (``prior``: a player missing there is new) and after (``new``)."""

    game_id: int
    seq: int  # its place in the order games finished (``finished_games.seq``)
    guild_id: int
    kind: str
    names: Sequence[str]  # the seats' stored names, in seat order
    results: Sequence[SeatResult]
    clock: Mapping[int, tuple[int, float]]  # per seat, (moves timed, seconds)
    finished_at: float
    prior: Mapping[int, Rating]
    new: Mapping[int, Rating]

    def gain(self, player: int) -> float:
        """How much the game moved a player's ordinal."""
        return self.new[player].ordinal - self.prior.get(player, Rating()).ordinal


class _Tally(NamedTuple):
    """One player's part in a finished game (a computer level with two seats counts once)."""

    won: bool
    best: int  # best place
    moves: int
    seconds: float
    name: str


def _claimed_ratings(
    guild_id: int, kind: str, players: Sequence[int], finished_at: float
) -> Txn[dict[int, Rating]]:
    """The players' ratings before the game, their rows claimed first."""
    # Claim the players' rating rows before reading them: a game finishing at the same time with a
    # player in common (on another connection, or in another process) waits here until this one
    # commits, then reads the ratings it wrote; without the claim both would start from the same
    # rating and one update would be lost. A new player's row is made (at the default rating, which
    # is what a missing row means) so that there is a row to claim. In player order: two games
    # claiming the same players never wait for each other in a circle.
    default = Rating()
    yield Many(
        "INSERT INTO ratings (guild_id, kind, player_id, name, mu, sigma, ordinal, games, wins, moves, "
        "move_seconds, last_change, updated_at) VALUES (?, ?, ?, '', ?, ?, ?, 0, 0, 0, 0.0, 0.0, ?) "
        "ON CONFLICT (guild_id, kind, player_id) DO UPDATE SET updated_at = ratings.updated_at",
        [(guild_id, kind, p, default.mu, default.sigma, default.ordinal, finished_at) for p in players],
    )
    marks = ", ".join("?" * len(players))
    prior_rows = yield Q(
        "SELECT player_id, mu, sigma FROM ratings "
        f"WHERE guild_id = ? AND kind = ? AND player_id IN ({marks})",
        (guild_id, kind, *players),
    )
    return {int(r[0]): Rating(float(r[1]), float(r[2])) for r in prior_rows}


def _ratings_now(guild_id: int, kind: str, players: Sequence[int]) -> Txn[dict[int, Rating]]:
    """The players' ratings as they are (read only: an unrated game claims and changes none)."""
    marks = ", ".join("?" * len(players))
    rows = yield Q(
        "SELECT player_id, mu, sigma FROM ratings "
        f"WHERE guild_id = ? AND kind = ? AND player_id IN ({marks})",
        (guild_id, kind, *players),
    )
    return {int(r[0]): Rating(float(r[1]), float(r[2])) for r in rows}


def _results_rows(game: _Finished) -> Many:
    """One ``results`` row per seat: its place, score, time and rating before and after."""
    return Many(
        "INSERT INTO results (game_id, seat, seq, guild_id, kind, player_id, user_id, name, place, score, "
        "won, forfeited, finished_at, moves, move_seconds, mu_before, sigma_before, mu_after, sigma_after) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                game.game_id,
                r.seat,
                game.seq,
                game.guild_id,
                game.kind,
                r.player,
                r.user_id,
                game.names[r.seat],
                r.place,
                r.score,
                int(r.won),
                int(r.forfeited),
                game.finished_at,
                *game.clock.get(r.seat, (0, 0.0)),
                game.prior.get(r.player, Rating()).mu,
                game.prior.get(r.player, Rating()).sigma,
                game.new[r.player].mu,
                game.new[r.player].sigma,
            )
            for r in game.results
        ],
    )


def _tally(game: _Finished) -> dict[int, _Tally]:
    """Per player (a computer level with two seats counts once): won, best place, time, name."""
    tally: dict[int, _Tally] = {}
    for r in game.results:
        won, best, moves, seconds, _ = tally.get(r.player, _Tally(False, r.place, 0, 0.0, ""))
        timed = game.clock.get(r.seat, (0, 0.0))
        tally[r.player] = _Tally(
            won or r.won,
            min(best, r.place),
            moves + timed[0],
            seconds + timed[1],
            identity_name(r.user_id, game.names[r.seat]),
        )
    return tally


def _ratings_rows(game: _Finished, tally: Mapping[int, _Tally]) -> Many:
    """Each player's new rating, one more game (and win) and its time, on the claimed rows."""
    return Many(
        "INSERT INTO ratings (guild_id, kind, player_id, name, mu, sigma, ordinal, games, wins, moves, "
        "move_seconds, last_change, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?) "
        "ON CONFLICT (guild_id, kind, player_id) DO UPDATE SET name = excluded.name, mu = excluded.mu, "
        "sigma = excluded.sigma, ordinal = excluded.ordinal, games = ratings.games + 1, "
        "wins = ratings.wins + excluded.wins, moves = ratings.moves + excluded.moves, "
        "move_seconds = ratings.move_seconds + excluded.move_seconds, last_change = excluded.last_change, "
        "updated_at = excluded.updated_at",
        [
            (
                game.guild_id,
                game.kind,
                p,
                name,
                game.new[p].mu,
                game.new[p].sigma,
                game.new[p].ordinal,
                int(won),
                moves,
                seconds,
                game.gain(p),
                game.finished_at,
            )
            for p, (won, _, moves, seconds, name) in tally.items()
        ],
    )


def _rivals_rows(guild_id: int, tally: Mapping[int, _Tally]) -> Many:
    """Every pair of players, both ways: one more game, and who placed better."""
    return Many(
        "INSERT INTO rivals (guild_id, player_id, opponent_id, name, games, wins, losses) "
        "VALUES (?, ?, ?, ?, 1, ?, ?) ON CONFLICT (guild_id, player_id, opponent_id) DO UPDATE SET "
        "name = excluded.name, games = rivals.games + 1, wins = rivals.wins + excluded.wins, "
        "losses = rivals.losses + excluded.losses",
        [
            (guild_id, p, q, tally[q][4], int(tally[p][1] < tally[q][1]), int(tally[p][1] > tally[q][1]))
            for p in tally
            for q in tally
            if p != q
        ],
    )


def _standings_rows(game: _Finished, tally: Mapping[int, _Tally]) -> Many:
    """Each player's standing in every timed period the game finished in."""
    keys = [period_key(period, game.finished_at) for period in TIMED]
    return Many(
        "INSERT INTO period_standings (guild_id, kind, period, player_id, games, wins, start_ordinal, "
        "end_ordinal, gain) VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?) "
        "ON CONFLICT (guild_id, kind, period, player_id) DO UPDATE SET games = period_standings.games + 1, "
        "wins = period_standings.wins + excluded.wins, end_ordinal = excluded.end_ordinal, "
        "gain = excluded.end_ordinal - period_standings.start_ordinal",
        [
            (
                game.guild_id,
                game.kind,
                key,
                p,
                int(won),
                game.prior.get(p, Rating()).ordinal,
                game.new[p].ordinal,
                game.gain(p),
            )
            for key in keys
            for p, (won, *_) in tally.items()
        ],
    )


def _log_clock(moves: Sequence[tuple[int, JSONMap, float]]) -> dict[int, tuple[int, float]]:
    """Time to move read from a move log (for the games finished before the clock was kept): each
    move's time since the move before it (the first move, whose start is unknown, is not timed)."""
    clock: dict[int, tuple[int, float]] = {}
    for (_, _, before), (seat, action, at) in itertools.pairwise(moves):
        if _is_forfeit(action):
            continue
        count, seconds = clock.get(seat, (0, 0.0))
        clock[seat] = (count + 1, seconds + max(0.0, at - before))
    return clock


def backfill(score_ranked: Collection[str]) -> Txn[int]:
    """Record every finished game not recorded yet, in the order they finished (their last change),
    if the migration asked for it; answers how many."""
    # Taking the mark off first is the claim: of two processes starting together, the second waits
    # for the first's transaction, then finds no mark (reading it first, both would record).
    due = yield Q("DELETE FROM meta WHERE key = ? RETURNING value", (BACKFILL_KEY,))
    if not due:
        return 0
    games = yield Q(
        "SELECT id, result, updated_at FROM games WHERE status = 'finished' "
        "AND id NOT IN (SELECT game_id FROM finished_games) ORDER BY updated_at, id"
    )
    started = time.monotonic()
    if games:
        log.info("Recording %d games finished before the memory existed (ratings, stats)", len(games))
    for done, (game_id, result, finished_at) in enumerate(games, 1):
        if done % PROGRESS_EVERY == 0:
            log.info(
                "Recorded %d of %d finished games (%.0f s)", done, len(games), time.monotonic() - started
            )
        logged = yield Q(
            "SELECT seat, action, created_at, forfeit FROM moves WHERE game_id = ? ORDER BY seq", (game_id,)
        )
        moves = [(int(s), json.loads(a), float(t)) for s, a, t, _ in logged]
        forfeited = {int(s) for s, _, _, f in logged if f is not None}
        yield from record_finished(
            int(game_id),
            json.loads(result) if result else {},
            forfeited=forfeited,
            clock=_log_clock(moves),
            finished_at=float(finished_at),
            score_ranked=score_ranked,
        )
    if games:
        log.info("Recorded the %d finished games in %.1f s", len(games), time.monotonic() - started)
    return len(games)


# ---- reading ------------------------------------------------------------------------------------------


def _period(period: str, now: float | None) -> str | None:
    """The stored key of a timed period now; None for all time."""
    if period == ALL_TIME:
        return None
    return period_key(period, bot_clock.now() if now is None else now)


class Records(Repository):
    async def backfill_records(self) -> int:
        """Record the games finished before the memory existed (once, after the migration)."""
        return await self._db.write(backfill(self.score_ranked))

    async def leaderboard(
        self,
        *,
        guild_id: int,
        kind: str,
        period: str = ALL_TIME,
        limit: int = 10,
        now: float | None = None,
        key: str | None = None,
    ) -> list[BoardLine]:
        """The top of a server's board for one game: for all time, by rating; for a period ("month",
        "week"), by the rating gained in it, then wins. ``key``: the stored period key of the
        standings to rank instead (a season's: "m2026-11")."""
        key = key or _period(period, now)

        def work() -> Txn[list[BoardLine]]:
            if key is None:
                rows = yield Q(
                    "SELECT player_id, name, ordinal, games, wins, last_change FROM ratings "
                    f"WHERE guild_id = ? AND kind = ? AND {SHOWN} "
                    "ORDER BY ordinal DESC, games DESC, player_id LIMIT ?",
                    (guild_id, kind, limit),
                )
            else:
                rows = yield Q(
                    "SELECT p.player_id, r.name, r.ordinal, p.games, p.wins, p.gain "
                    "FROM period_standings p JOIN ratings r ON r.guild_id = p.guild_id AND r.kind = p.kind "
                    "AND r.player_id = p.player_id WHERE p.guild_id = ? AND p.kind = ? AND p.period = ? "
                    f"AND {SHOWN_P} ORDER BY p.gain DESC, p.wins DESC, p.player_id LIMIT ?",
                    (guild_id, kind, key, limit),
                )
            lines: list[BoardLine] = []
            for i, r in enumerate(rows):
                ahead = i
                if lines and _figures(key, lines[-1]) == _figures(key, _line(0, r)):
                    ahead = lines[-1].rank - 1
                lines.append(_line(ahead + 1, r))
            return lines

        return await self._db.read(work())

    async def board_line_of(
        self,
        *,
        guild_id: int,
        kind: str,
        player_id: int,
        period: str = ALL_TIME,
        now: float | None = None,
        key: str | None = None,
    ) -> BoardLine | None:
        """A player's own line of the board (with their rank), or None when they have no game there
        (``key``: as for `leaderboard`)."""
        key = key or _period(period, now)

        def work() -> Txn[BoardLine | None]:
            if key is None:
                rows = yield Q(
                    "SELECT player_id, name, ordinal, games, wins, last_change FROM ratings "
                    "WHERE guild_id = ? AND kind = ? AND player_id = ?",
                    (guild_id, kind, player_id),
                )
                if not rows:
                    return None
                ahead = yield Q(
                    "SELECT COUNT(*) FROM ratings WHERE guild_id = ? AND kind = ? AND ordinal > ? "
                    f"AND {SHOWN}",
                    (guild_id, kind, rows[0][2]),
                )
            else:
                rows = yield Q(
                    "SELECT p.player_id, r.name, r.ordinal, p.games, p.wins, p.gain "
                    "FROM period_standings p JOIN ratings r ON r.guild_id = p.guild_id AND r.kind = p.kind "
                    "AND r.player_id = p.player_id "
                    "WHERE p.guild_id = ? AND p.kind = ? AND p.period = ? AND p.player_id = ?",
                    (guild_id, kind, key, player_id),
                )
                if not rows:
                    return None
                gain, wins = rows[0][5], rows[0][4]
                ahead = yield Q(
                    "SELECT COUNT(*) FROM period_standings WHERE guild_id = ? AND kind = ? AND period = ? "
                    f"AND (gain > ? OR (gain = ? AND wins > ?)) AND {SHOWN}",
                    (guild_id, kind, key, gain, gain, wins),
                )
            return _line(int(ahead[0][0]) + 1, rows[0])

        return await self._db.read(work())

    async def player_records(self, *, guild_id: int, player_id: int) -> list[KindRecord]:
        """A player's record in each game they finished in this server, with the trend of their
        rating (its change over their last `TREND_GAMES` games of that kind)."""

        def work() -> Txn[list[KindRecord]]:
            rows = yield Q(
                "SELECT kind, name, mu, sigma, ordinal, games, wins, moves, move_seconds FROM ratings "
                "WHERE guild_id = ? AND player_id = ? ORDER BY games DESC, kind",
                (guild_id, player_id),
            )
            records = []
            for kind, name, mu, sigma, ordinal, games, wins, moves, seconds in rows:
                past = yield Q(
                    "SELECT mu_before, sigma_before FROM results WHERE guild_id = ? AND player_id = ? "
                    "AND kind = ? AND seq IN (SELECT seq FROM finished_games WHERE rated = 1) "
                    "ORDER BY seq DESC LIMIT 1 OFFSET ?",
                    (guild_id, player_id, kind, min(int(games), TREND_GAMES) - 1),
                )
                start = Rating(float(past[0][0]), float(past[0][1])).ordinal if past else 0.0
                records.append(
                    KindRecord(
                        kind=str(kind),
                        name=str(name),
                        mu=float(mu),
                        sigma=float(sigma),
                        ordinal=float(ordinal),
                        games=int(games),
                        wins=int(wins),
                        moves=int(moves),
                        move_seconds=float(seconds),
                        trend=float(ordinal) - start,
                        trend_games=min(int(games), TREND_GAMES),
                    )
                )
            return records

        return await self._db.read(work())

    async def rivals(self, *, guild_id: int, player_id: int, limit: int = 3) -> list[Rival]:
        """The players someone met most often in this server's finished games."""
        rows = await self._read(
            "SELECT opponent_id, name, games, wins, losses FROM rivals WHERE guild_id = ? AND player_id = ? "
            "ORDER BY games DESC, opponent_id LIMIT ?",
            (guild_id, player_id, limit),
        )
        return [from_row(Rival, r) for r in rows]

    async def history(
        self,
        *,
        guild_id: int,
        player_id: int,
        kind: str | None = None,
        page: int = 0,
        per_page: int = 5,
        anchor: int | None = None,
    ) -> HistoryPage:
        """A page of a player's finished games in this server, newest first. ``anchor``: count only
        the games finished up to that one (its ``seq``), so pages do not shift as games end; None:
        up to the latest."""
        top = (1 << 62) if anchor is None else anchor
        where = "guild_id = ? AND player_id = ?" + (" AND kind = ?" if kind else "") + " AND seq <= ?"
        args: tuple[DBValue, ...] = (guild_id, player_id, *((kind,) if kind else ()), top)

        def work() -> Txn[HistoryPage]:
            counted = yield Q(f"SELECT COUNT(*), MAX(seq) FROM results WHERE {where}", args)
            total, newest = int(counted[0][0]), counted[0][1]
            ids = yield Q(
                f"SELECT game_id FROM results WHERE {where} ORDER BY seq DESC LIMIT ? OFFSET ?",
                (*args, per_page, max(0, page) * per_page),
            )
            games = yield from _past_games([int(r[0]) for r in ids])
            return HistoryPage(games=games, total=total, anchor=int(newest) if newest is not None else 0)

        return await self._db.read(work())

    async def rating_table(self) -> dict[tuple[int, str, int], tuple[float, float, int, int]]:
        """Every rating kept: (guild, kind, player) -> (mu, sigma, games, wins)."""
        rows = await self._read("SELECT guild_id, kind, player_id, mu, sigma, games, wins FROM ratings")
        return {
            (int(r[0]), str(r[1]), int(r[2])): (float(r[3]), float(r[4]), int(r[5]), int(r[6])) for r in rows
        }

    async def recorded_games(self) -> list[Finished]:
        """Every rated game's places, in the order the games finished: what `bot.memory.ratings.
        recompute` rebuilds the table from."""

        def work() -> Txn[list[Finished]]:
            rows = yield Q(
                "SELECT f.seq, f.guild_id, f.kind, r.player_id, r.place, r.won FROM finished_games f "
                "JOIN results r ON r.game_id = f.game_id WHERE f.rated = 1 ORDER BY f.seq, r.seat"
            )
            return [_finished(list(seats)) for _, seats in itertools.groupby(rows, key=lambda r: r[0])]

        return await self._db.read(work())


def _finished(seats: Sequence[Row]) -> Finished:
    """A recorded game from its seats' rows (seq, guild, kind, player, place, won)."""
    return Finished(
        guild_id=int(seats[0][1]),
        kind=str(seats[0][2]),
        entries=tuple(Entry(int(r[3]), int(r[4])) for r in seats),
        winners=frozenset(int(r[3]) for r in seats if r[5]),
    )


def _line(rank: int, r: Row) -> BoardLine:
    return from_row(BoardLine, (rank, *r))


def _figures(period: str | None, line: BoardLine) -> tuple[float, ...]:
    """What ranks a line: its rating (all time), or its gain and wins (a period)."""
    return (line.ordinal,) if period is None else (line.gain, line.wins)


def _past_games(game_ids: list[int]) -> Txn[tuple[PastGame, ...]]:
    if not game_ids:
        return ()
    marks = ", ".join("?" * len(game_ids))
    rows = yield Q(
        "SELECT f.game_id, f.seq, f.kind, f.finished_at, f.guild_id, g.channel_id, g.place_id, "
        "g.board_message_id, g.lobby_message_id, f.rated "
        "FROM finished_games f JOIN games g ON g.id = f.game_id "
        f"WHERE f.game_id IN ({marks})",
        game_ids,
    )
    seat_rows = yield Q(
        "SELECT game_id, user_id, name, place, score, won, forfeited FROM results "
        f"WHERE game_id IN ({marks}) ORDER BY game_id, seat",
        game_ids,
    )
    seats: dict[int, list[PastSeat]] = {game_id: [] for game_id in game_ids}
    for game_id, *seat in seat_rows:
        seats[int(game_id)].append(from_row(PastSeat, seat))
    games = {
        int(r[0]): PastGame(
            game_id=int(r[0]),
            seq=int(r[1]),
            kind=str(r[2]),
            finished_at=float(r[3]),
            guild_id=int(r[4]),
            channel_id=int(r[5]),
            place_id=int(r[6] or r[5]),
            board_message_id=None if r[7] is None else int(r[7]),
            lobby_message_id=None if r[8] is None else int(r[8]),
            seats=tuple(seats[int(r[0])]),
            hints=not r[9],
        )
        for r in rows
    }
    return tuple(games[game_id] for game_id in game_ids if game_id in games)
