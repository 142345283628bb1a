"""Tournaments: their rows, entrants, pairings, byes and durable posts (see `bot.events.tournaments`).

Every change to a tournament compares-and-swaps its row on ``version`` (bumping it) in the
transaction that makes it, so of two processes opening the next round only one commits; the other
gets `StaleVersion` and writes nothing. A round's games are opened as ordinary started games in that
same transaction (`open_game`). A tournament game's end is written into its pairing in the game's own
finishing (or cancelling) transaction (`game_over`, called by `bot.storage.records.on_move` and
`bot.storage.games.cancel_change`), with a post bringing the card up to date.

A post (``tournament_posts``: the card, a round's announcement, the final post) is written with the
change that owes it; a process claims a due one (`claim_post`), carries it out, and deletes it
(`finish_post`), so each is carried out once (a repeat after a crash posts with the same nonce).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot import clock
from bot.errors import BadInput
from bot.jsontypes import JSONMap
from bot.storage.driver import Many, Q, Repository, Row, Txn
from bot.storage.errors import StaleVersion
from bot.storage.games import write_seats
from bot.storage.outbox import insert_effects
from bot.storage.rows import OutboxItem, Storable, dumps
from bot.storage.tournament_games import add_post
from bot.storage.waits import sync as sync_waits

_T_FIELDS = (
    "id guild_id channel_id host_id kind format rounds options table_size timeout_s status round "
    "version card_message_id created_at finished_at"
).split()
_T_COLUMNS = ", ".join(_T_FIELDS)
_G_COLUMNS = "round, board, players, game_id, status, winners, forfeit"
GAME_VERSION = 1  # the version a tournament's game is opened at (as a lobby's start makes it)


def _int(value: object) -> int:
    assert isinstance(value, int | float | str), value
    return int(value)


def _opt_int(value: object) -> int | None:
    return None if value is None else _int(value)


def _float(value: object) -> float:
    assert isinstance(value, int | float | str), value
    return float(value)


def _opt_float(value: object) -> float | None:
    return None if value is None else _float(value)


@dataclass(frozen=True)
class Entrant:
    user_id: int
    name: str
    seed: int  # 0-based: join order in sign-up; seeding (rating, then join order) once started
    withdrawn: int | None = None  # the round in which they withdrew (None: still in)


@dataclass(frozen=True)
class TournamentRow:
    id: int
    guild_id: int | None
    channel_id: int
    host_id: int
    kind: str
    format: str
    rounds: int
    options: JSONMap
    table_size: int
    timeout_s: int
    status: str  # "signup" | "running" | "finished" | "cancelled"
    round: int
    version: int
    card_message_id: int | None
    created_at: float
    finished_at: float | None
    entrants: tuple[Entrant, ...]

    @property
    def live(self) -> bool:
        return self.status in ("signup", "running")

    @property
    def active(self) -> list[int]:
        """The entrants still in (not withdrawn), in seed order."""
        return [e.user_id for e in self.entrants if e.withdrawn is None]

    def name(self, user_id: int) -> str:
        return next((e.name for e in self.entrants if e.user_id == user_id), str(user_id))

    def entrant(self, user_id: int) -> Entrant | None:
        return next((e for e in self.entrants if e.user_id == user_id), None)


@dataclass(frozen=True)
class Pairing:
    round: int
    board: int  # 1-based within the round
    players: tuple[int, ...]  # seat order (seat 0 moves first)
    game_id: int | None  # the ordinary game once opened
    status: str  # "scheduled" | "live" | "done"
    winners: tuple[int, ...] = ()  # when done: () all lost, one: a win, several: a shared win
    forfeit: bool = False  # done by a withdrawal (unplayed)


@dataclass(frozen=True)
class TournamentPost:
    id: int
    tournament_id: int
    kind: str  # "card" | "round" | "final"
    round: int
    created_at: float
    not_before: float
    attempts: int


@dataclass(frozen=True)
class NewGame:
    """A game of a round to open: its pairing, and what the game row starts with."""

    board: int
    players: tuple[int, ...]
    names: tuple[str, ...]
    seed: int
    state: JSONMap
    waiting: tuple[int, ...]
    effects: tuple[Storable, ...]
    place: str = "thread"  # where it is to be played (the games' ``start_place``)


@dataclass(frozen=True)
class Opened:
    """What opening a round committed: the games' ids and the outbox items they owe."""

    game_ids: tuple[int, ...]
    effects: tuple[OutboxItem, ...]


def _tournament(row: Row, entrants: Sequence[Entrant]) -> TournamentRow:
    t = dict(zip(_T_FIELDS, row, strict=True))
    return TournamentRow(
        id=_int(t["id"]),
        guild_id=_opt_int(t["guild_id"]),
        channel_id=_int(t["channel_id"]),
        host_id=_int(t["host_id"]),
        kind=str(t["kind"]),
        format=str(t["format"]),
        rounds=_int(t["rounds"]),
        options=json.loads(str(t["options"])),
        table_size=_int(t["table_size"]),
        timeout_s=_int(t["timeout_s"]),
        status=str(t["status"]),
        round=_int(t["round"]),
        version=_int(t["version"]),
        card_message_id=_opt_int(t["card_message_id"]),
        created_at=_float(t["created_at"]),
        finished_at=_opt_float(t["finished_at"]),
        entrants=tuple(entrants),
    )


def select_tournaments(where: str, args: Sequence[object] = ()) -> Txn[list[TournamentRow]]:
    """The tournaments ``FROM tournaments {where}`` with their entrants (in seed order)."""
    rows = yield Q(f"SELECT {_T_COLUMNS} FROM tournaments {where}", tuple(args))
    if not rows:
        return []
    ids = [_int(r[0]) for r in rows]
    marks = ", ".join("?" * len(ids))
    found = yield Q(
        "SELECT tournament_id, user_id, name, seed, withdrawn FROM tournament_entrants "
        f"WHERE tournament_id IN ({marks}) ORDER BY tournament_id, seed, user_id",
        ids,
    )
    entrants: dict[int, list[Entrant]] = {i: [] for i in ids}
    for tid, user_id, name, seed, withdrawn in found:
        entrants[_int(tid)].append(Entrant(_int(user_id), str(name), _int(seed), _opt_int(withdrawn)))
    return [_tournament(r, entrants[_int(r[0])]) for r in rows]


def select_tournament(tournament_id: int) -> Txn[TournamentRow]:
    found = yield from select_tournaments("WHERE id = ?", (tournament_id,))
    if not found:
        raise BadInput("There is no tournament #{tournament_id}.", tournament_id=tournament_id)
    return found[0]


def select_pairings(tournament_id: int) -> Txn[list[Pairing]]:
    rows = yield Q(
        f"SELECT {_G_COLUMNS} FROM tournament_games WHERE tournament_id = ? ORDER BY round, board",
        (tournament_id,),
    )
    return [
        Pairing(
            round=_int(r[0]),
            board=_int(r[1]),
            players=tuple(json.loads(str(r[2]))),
            game_id=_opt_int(r[3]),
            status=str(r[4]),
            winners=() if r[5] is None else tuple(json.loads(str(r[5]))),
            forfeit=bool(r[6]),
        )
        for r in rows
    ]


def select_byes(tournament_id: int) -> Txn[dict[int, tuple[int, ...]]]:
    rows = yield Q(
        "SELECT round, user_id FROM tournament_byes WHERE tournament_id = ? ORDER BY round, user_id",
        (tournament_id,),
    )
    out: dict[int, list[int]] = {}
    for rnd, user_id in rows:
        out.setdefault(_int(rnd), []).append(_int(user_id))
    return {k: tuple(v) for k, v in out.items()}


def bump(tournament_id: int, expected_version: int, sets: Mapping[str, object] | None = None) -> Txn[None]:
    """Compare-and-swap the tournament's row on its version (bumped), setting ``sets``."""
    sets = dict(sets or {})
    assignments = "".join(f"{column} = ?, " for column in sets)
    rows = yield Q(
        f"UPDATE tournaments SET {assignments}version = version + 1, updated_at = ? "
        "WHERE id = ? AND version = ? RETURNING id",
        (*sets.values(), clock.now(), tournament_id, expected_version),
    )
    if not rows:
        raise StaleVersion()


def open_game(
    t: TournamentRow, rnd: int, game: NewGame, *, host_id: int
) -> Txn[tuple[int, tuple[OutboxItem, ...]]]:
    """One game of a round opened as an ordinary started game (its seats, deadlines and effects)
    and its pairing recorded (or its scheduled pairing given the game)."""
    now = clock.now()
    rows = yield Q(
        "INSERT INTO games (kind, guild_id, channel_id, place_id, status, host_id, options, seed, state, "
        "version, created_at, updated_at, timeout_s, start_place) "
        "VALUES (?, ?, ?, ?, 'active', ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (
            t.kind,
            t.guild_id,
            t.channel_id,
            t.channel_id,
            host_id,
            dumps(dict(t.options)),
            game.seed,
            dumps(dict(game.state)),
            GAME_VERSION,
            now,
            now,
            t.timeout_s,
            game.place,
        ),
    )
    game_id = _int(rows[0][0])
    yield from write_seats(game_id, list(zip(game.players, game.names, strict=True)))
    yield from sync_waits(game_id, game.waiting)
    items = yield from insert_effects(game_id, game.effects)
    yield Q(
        "INSERT INTO tournament_games (tournament_id, round, board, players, game_id, status) "
        "VALUES (?, ?, ?, ?, ?, 'live') "
        "ON CONFLICT (tournament_id, round, board) DO UPDATE SET game_id = excluded.game_id, status = 'live'",
        (t.id, rnd, game.board, dumps(list(game.players)), game_id),
    )
    return game_id, items


def schedule(tournament_id: int, rnd: int, boards: Sequence[tuple[int, Sequence[int]]]) -> Txn[None]:
    """Pairings of a later round, not opened yet (a round robin's whole schedule)."""
    yield Many(
        "INSERT INTO tournament_games (tournament_id, round, board, players, status) "
        "VALUES (?, ?, ?, ?, 'scheduled')",
        [(tournament_id, rnd, board, dumps(list(players))) for board, players in boards],
    )


def add_byes(tournament_id: int, rnd: int, players: Sequence[int]) -> Txn[None]:
    if players:
        yield Many(
            "INSERT INTO tournament_byes (tournament_id, round, user_id) VALUES (?, ?, ?) "
            "ON CONFLICT DO NOTHING",
            [(tournament_id, rnd, p) for p in players],
        )


class Tournaments(Repository):
    # ---- reading --------------------------------------------------------------------------------

    async def get_tournament(self, *, tournament_id: int) -> TournamentRow:
        return await self._db.read(select_tournament(tournament_id))

    async def tournament_state(
        self, *, tournament_id: int
    ) -> tuple[TournamentRow, list[Pairing], dict[int, tuple[int, ...]]]:
        """The tournament, its pairings and its byes, as of one moment."""

        def read() -> Txn[tuple[TournamentRow, list[Pairing], dict[int, tuple[int, ...]]]]:
            t = yield from select_tournament(tournament_id)
            pairings = yield from select_pairings(tournament_id)
            byes = yield from select_byes(tournament_id)
            return t, pairings, byes

        return await self._db.read(read())

    async def tournaments_in_channel(self, *, channel_id: int, limit: int = 10) -> list[TournamentRow]:
        return await self._db.read(
            select_tournaments(
                "WHERE channel_id = ? ORDER BY CASE WHEN status IN ('signup', 'running') THEN 0 ELSE 1 END, "
                "id DESC LIMIT ?",
                (channel_id, limit),
            )
        )

    async def tournaments_of_user(self, *, user_id: int, guild_id: int | None) -> list[TournamentRow]:
        """The live tournaments ``user_id`` is in (not withdrawn), in that server, newest first."""
        where = "AND t.guild_id = ? " if guild_id is not None else "AND t.guild_id IS NULL "
        args: tuple[object, ...] = (user_id, guild_id) if guild_id is not None else (user_id,)
        return await self._db.read(
            select_tournaments(
                "WHERE id IN (SELECT t.id FROM tournaments t JOIN tournament_entrants e "
                "ON e.tournament_id = t.id WHERE e.user_id = ? AND e.withdrawn IS NULL "
                f"AND t.status IN ('signup', 'running') {where}) ORDER BY id DESC",
                args,
            )
        )

    async def tournament_of_game(self, *, game_id: int) -> int | None:
        rows = await self._read("SELECT tournament_id FROM tournament_games WHERE game_id = ?", (game_id,))
        return _int(rows[0][0]) if rows else None

    async def tournaments_due(self) -> list[int]:
        """The running tournaments whose round has no game left to play (to advance)."""
        rows = await self._read(
            "SELECT t.id FROM tournaments t WHERE t.status = 'running' AND NOT EXISTS ("
            "SELECT 1 FROM tournament_games g WHERE g.tournament_id = t.id AND g.round = t.round "
            "AND g.status != 'done') ORDER BY t.id"
        )
        return [_int(r[0]) for r in rows]

    async def withdrawn_in_live_games(self) -> list[tuple[int, int]]:
        """(game id, user id): a withdrawn entrant still seated in a live game of their tournament
        (the withdrawal committed, its forfeit not: a crash between them)."""
        rows = await self._read(
            "SELECT g.game_id, e.user_id FROM tournament_games g JOIN tournament_entrants e "
            "ON e.tournament_id = g.tournament_id AND e.withdrawn IS NOT NULL "
            "JOIN seats s ON s.game_id = g.game_id AND s.user_id = e.user_id "
            "JOIN games x ON x.id = g.game_id AND x.status = 'active' "
            "WHERE g.status = 'live' ORDER BY g.game_id"
        )
        return [(_int(r[0]), _int(r[1])) for r in rows]

    async def rating_ordinals(
        self, *, guild_id: int | None, kind: str, players: Sequence[int]
    ) -> dict[int, float]:
        if guild_id is None or not players:
            return {}
        marks = ", ".join("?" * len(players))
        rows = await self._read(
            "SELECT player_id, ordinal FROM ratings "
            f"WHERE guild_id = ? AND kind = ? AND player_id IN ({marks})",
            (guild_id, kind, *players),
        )
        return {_int(r[0]): _float(r[1]) for r in rows}

    # ---- changing -------------------------------------------------------------------------------

    async def create_tournament(
        self,
        *,
        guild_id: int | None,
        channel_id: int,
        host_id: int,
        host_name: str,
        kind: str,
        format: str,
        rounds: int,
        options: JSONMap,
        table_size: int,
        timeout_s: int,
        card_delay: float,
        card_token: str | None = None,
    ) -> TournamentRow:
        now = clock.now()

        def work() -> Txn[TournamentRow]:
            rows = yield Q(
                "INSERT INTO tournaments (guild_id, channel_id, host_id, kind, format, rounds, options, "
                "table_size, timeout_s, status, created_at, updated_at, card_token) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'signup', ?, ?, ?) RETURNING id",
                (
                    guild_id,
                    channel_id,
                    host_id,
                    kind,
                    format,
                    rounds,
                    dumps(dict(options)),
                    table_size,
                    timeout_s,
                    now,
                    now,
                    card_token,
                ),
            )
            tid = _int(rows[0][0])
            yield Q(
                "INSERT INTO tournament_entrants (tournament_id, user_id, name, seed) VALUES (?, ?, ?, 0)",
                (tid, host_id, host_name),
            )
            yield from add_post(tid, "card", delay=card_delay)
            return (yield from select_tournament(tid))

        return await self._db.write(work())

    async def tournament_card_token(self, *, tournament_id: int) -> str | None:
        """The token of the command that opened the tournament (its answer is the card)."""

        def read() -> Txn[str | None]:
            rows = yield Q("SELECT card_token FROM tournaments WHERE id = ?", (tournament_id,))
            return None if not rows or rows[0][0] is None else str(rows[0][0])

        return await self._db.read(read())

    async def set_tournament_card(self, *, tournament_id: int, message_id: int) -> None:
        """The card's message is known: recorded, and a card post waiting for it due now."""

        def work() -> Txn[None]:
            yield Q(
                "UPDATE tournaments SET card_message_id = ? WHERE id = ? AND card_message_id IS NULL",
                (message_id, tournament_id),
            )
            yield Q(
                "UPDATE tournament_posts SET not_before = ? "
                "WHERE tournament_id = ? AND kind = 'card' AND claimed_by IS NULL AND not_before > ?",
                (clock.now(), tournament_id, clock.now()),
            )

        await self._db.write(work())

    async def change_signup(
        self,
        *,
        tournament_id: int,
        expected_version: int,
        add: tuple[int, str] | None = None,
        remove: int | None = None,
        host_id: int | None = None,
        cancel: bool = False,
    ) -> TournamentRow:
        """A sign-up's entrants changed (one joined, one left; the host passed on, or the last one
        out cancelled it): checked on the version, with the card's update."""

        def work() -> Txn[TournamentRow]:
            sets: dict[str, object] = {}
            if host_id is not None:
                sets["host_id"] = host_id
            if cancel:
                sets["status"] = "cancelled"
                sets["finished_at"] = clock.now()
            yield from bump(tournament_id, expected_version, sets)
            if add is not None:
                yield Q(
                    "INSERT INTO tournament_entrants (tournament_id, user_id, name, seed) "
                    "SELECT ?, ?, ?, COALESCE(MAX(seed), -1) + 1 FROM tournament_entrants "
                    "WHERE tournament_id = ?",
                    (tournament_id, add[0], add[1], tournament_id),
                )
            if remove is not None:
                yield Q(
                    "DELETE FROM tournament_entrants WHERE tournament_id = ? AND user_id = ?",
                    (tournament_id, remove),
                )
            yield from add_post(tournament_id, "card")
            return (yield from select_tournament(tournament_id))

        return await self._db.write(work())

    def open_round(
        self,
        t: TournamentRow,
        rnd: int,
        games: Sequence[NewGame],
        byes: Sequence[int],
        *,
        start: bool = False,
        seeds: Sequence[int] = (),
        rounds: int | None = None,
        later: Mapping[int, Sequence[tuple[int, Sequence[int]]]] | None = None,
        later_byes: Mapping[int, Sequence[int]] | None = None,
    ) -> Txn[Opened]:
        """Round ``rnd`` opened: the tournament swapped on its version to that round (and, with
        ``start``, to running with its seeding and its rounds), its games opened, its byes and
        posts written; ``later``: a round robin's later rounds, scheduled."""
        sets: dict[str, object] = {"round": rnd}
        if start:
            sets["status"] = "running"
        if rounds is not None:
            sets["rounds"] = rounds
        yield from bump(t.id, t.version, sets)
        if seeds:
            yield Many(
                "UPDATE tournament_entrants SET seed = ? WHERE tournament_id = ? AND user_id = ?",
                [(i, t.id, user_id) for i, user_id in enumerate(seeds)],
            )
        game_ids: list[int] = []
        items: list[OutboxItem] = []
        for game in games:
            game_id, owed = yield from open_game(t, rnd, game, host_id=t.host_id)
            game_ids.append(game_id)
            items.extend(owed)
        yield from add_byes(t.id, rnd, byes)
        for later_round, boards in (later or {}).items():
            yield from schedule(t.id, later_round, boards)
        for later_round, players in (later_byes or {}).items():
            yield from add_byes(t.id, later_round, players)
        yield from add_post(t.id, "round", round=rnd)
        yield from add_post(t.id, "card")
        return Opened(tuple(game_ids), tuple(items))

    async def write_round(self, txn: Txn[Opened]) -> Opened:
        return await self._db.write(txn)

    async def finish_tournament(self, *, tournament_id: int, expected_version: int) -> None:
        """The last round is over: the tournament is finished, its final post and card owed."""

        def work() -> Txn[None]:
            yield from bump(
                tournament_id, expected_version, {"status": "finished", "finished_at": clock.now()}
            )
            yield from add_post(tournament_id, "final")
            yield from add_post(tournament_id, "card")

        await self._db.write(work())

    async def withdraw_entrant(
        self,
        *,
        tournament_id: int,
        expected_version: int,
        user_id: int,
        round: int,
        forfeits: Sequence[tuple[int, int, Sequence[int]]],
        drop_byes_after: int,
    ) -> None:
        """``user_id`` withdraws in ``round``: marked so; ``forfeits`` (round, board, winners): their
        scheduled pairings done, unplayed, credited to the others; their byes of later rounds gone."""

        def work() -> Txn[None]:
            yield from bump(tournament_id, expected_version)
            yield Q(
                "UPDATE tournament_entrants SET withdrawn = ? WHERE tournament_id = ? AND user_id = ?",
                (round, tournament_id, user_id),
            )
            if forfeits:
                yield Many(
                    "UPDATE tournament_games SET status = 'done', forfeit = 1, winners = ? "
                    "WHERE tournament_id = ? AND round = ? AND board = ? AND status = 'scheduled'",
                    [(dumps(sorted(w)), tournament_id, r, b) for r, b, w in forfeits],
                )
            yield Q(
                "DELETE FROM tournament_byes WHERE tournament_id = ? AND user_id = ? AND round > ?",
                (tournament_id, user_id, drop_byes_after),
            )
            yield from add_post(tournament_id, "card")

        await self._db.write(work())

    def cancelling(self, *, tournament_id: int, expected_version: int) -> Txn[None]:
        """The statements that cancel a tournament (its live games are cancelled by the caller, in
        the same transaction)."""
        yield from bump(tournament_id, expected_version, {"status": "cancelled", "finished_at": clock.now()})
        yield from add_post(tournament_id, "card")

    # ---- posts ----------------------------------------------------------------------------------

    async def due_posts(self, *, now: float, holder: str, limit: int = 50) -> list[TournamentPost]:
        rows = await self._read(
            "SELECT id, tournament_id, kind, round, created_at, not_before, attempts FROM tournament_posts "
            "WHERE not_before <= ? AND (claimed_until IS NULL OR claimed_until < ? OR claimed_by = ?) "
            "ORDER BY id LIMIT ?",
            (now, now, holder, limit),
        )
        return [
            TournamentPost(
                _int(r[0]), _int(r[1]), str(r[2]), _int(r[3]), _float(r[4]), _float(r[5]), _int(r[6])
            )
            for r in rows
        ]

    async def claim_post(self, *, post_id: int, holder: str, now: float, until: float) -> bool:
        rows = await self._write(
            "UPDATE tournament_posts SET claimed_by = ?, claimed_until = ? "
            "WHERE id = ? AND (claimed_until IS NULL OR claimed_until < ? OR claimed_by = ?) RETURNING id",
            (holder, until, post_id, now, holder),
        )
        return bool(rows)

    async def finish_post(
        self, *, post_id: int, tournament_id: int, card_message_id: int | None = None
    ) -> None:
        """The post was carried out: gone (and the card's id recorded when it was posted)."""

        def work() -> Txn[None]:
            yield Q("DELETE FROM tournament_posts WHERE id = ?", (post_id,))
            if card_message_id is not None:
                yield Q(
                    "UPDATE tournaments SET card_message_id = ? WHERE id = ? AND card_message_id IS NULL",
                    (card_message_id, tournament_id),
                )

        await self._db.write(work())

    async def retry_post(self, *, post_id: int, not_before: float) -> None:
        await self._write(
            "UPDATE tournament_posts SET attempts = attempts + 1, not_before = ?, claimed_by = NULL, "
            "claimed_until = NULL WHERE id = ?",
            (not_before, post_id),
        )

    async def release_posts(self, *, holder: str) -> int:
        """Give up every claim ``holder`` holds on a post (a graceful stop): another process may
        carry it out at once, not once the claim expires. How many were released."""
        rows = await self._write(
            "UPDATE tournament_posts SET claimed_by = NULL, claimed_until = NULL WHERE claimed_by = ? "
            "RETURNING id",
            (holder,),
        )
        return len(rows)

    async def pending_posts(self, *, tournament_id: int) -> list[TournamentPost]:
        rows = await self._read(
            "SELECT id, tournament_id, kind, round, created_at, not_before, attempts FROM tournament_posts "
            "WHERE tournament_id = ? ORDER BY id",
            (tournament_id,),
        )
        return [
            TournamentPost(
                _int(r[0]), _int(r[1]), str(r[2]), _int(r[3]), _float(r[4]), _float(r[5]), _int(r[6])
            )
            for r in rows
        ]
