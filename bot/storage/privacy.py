"""People's data: everything kept about one person, exported; and the person forgotten.

`Privacy.export_user` reads, in one snapshot, what the bot keeps about someone: the games they sat
in (with the names at the table and the move log, less what is still secret), their settings, their
ratings and a typed answer still waiting. `Privacy.forget_user` replaces them everywhere by an
anonymous placeholder, in one transaction; `Driver.purge` then makes what was overwritten
unrecoverable from the database's files (SQLite: secure delete, the WAL checkpointed and the file
rewritten). A game of theirs played in a thread of its own is owed, in the same transaction, an outbox
item that renames the thread (the caller's effect: `bot.table.threads`), since its name listed theirs.

A placeholder is a user id in [`DELETED_FIRST`, `DELETED_LAST`] (`bot.players.seats.is_deleted`, which
says why no Discord id can be one). Each forgotten person gets the next one (a counter in ``meta``), so
two forgotten people at one table keep distinct seats, and the tables keyed by player (ratings,
rivals) never collide. Rows keep a fixed marker for the name (`DELETED_NAME`); readers never show it,
but "Deleted player" in their own language, from the seat's id (`bot.present.shown_name`).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence

from bot.jsontypes import JSON, DBValue, JSONObject
from bot.players.seats import DELETED_FIRST, DELETED_LAST
from bot.players.seats import is_deleted as is_deleted  # (kept importable from here)
from bot.storage.driver import Q, Repository, Rows, Txn
from bot.storage.outbox import insert_effects
from bot.storage.puzzles import export_puzzles, forget_puzzles
from bot.storage.rows import OutboxItem, Storable, Written, dumps
from bot.storage.tournament_games import export_entrant, forget_entrant

DELETED_NAME = "Deleted player"  # the stored marker; shown translated (`bot.present.shown_name`)
_COUNTER = "deleted_players"
OVER = ("finished", "cancelled")


def replace_id(value: JSON, old: int, new: int) -> JSON:
    """A JSON value with ``old`` replaced by ``new`` wherever it is: as a number, as a string, inside a
    string (a mention ``<@old>``)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return new if value == old else value
    if isinstance(value, str):
        return value.replace(str(old), str(new))
    if isinstance(value, list):
        return [replace_id(v, old, new) for v in value]
    if isinstance(value, dict):
        return {replace_id(k, old, new): replace_id(v, old, new) for k, v in value.items()}
    return value


def _rewrite_json(table: str, key: str, column: str, old: int, new: int, where: str = "") -> Txn[None]:
    """Every ``column`` (JSON text) of ``table`` that holds ``old`` rewritten with ``new``."""
    rows = yield Q(f"SELECT {key}, {column} FROM {table} WHERE {column} LIKE ?{where}", (f"%{old}%",))
    for row_key, text in rows:
        fixed = dumps(replace_id(json.loads(text), old, new))
        yield Q(f"UPDATE {table} SET {column} = ? WHERE {key} = ?", (fixed, row_key))


def forget(user_id: int, in_threads: Storable | None = None) -> Txn[tuple[int, list[int], list[OutboxItem]]]:
    """The person ``user_id`` replaced by a new placeholder everywhere; their settings, DM links,
    reminder mutes, waiting typed answer and the deferred answers owed to them deleted;
    ``in_threads`` (an effect) owed by each game they sat in that is (or is to be) played in a thread
    of its own. Answers the placeholder, the games they sat in and the outbox items written."""
    counter = yield Q(
        "INSERT INTO meta (key, value) VALUES (?, '1') ON CONFLICT (key) DO UPDATE SET "
        "value = CAST(CAST(meta.value AS INTEGER) + 1 AS TEXT) RETURNING value",
        (_COUNTER,),
    )
    new = DELETED_FIRST + int(counter[0][0]) - 1
    if new > DELETED_LAST:
        raise OverflowError("No placeholder ids are left.")
    old = user_id
    games = yield Q("SELECT game_id FROM seats WHERE user_id = ? ORDER BY game_id", (old,))
    threaded = yield Q(
        "SELECT g.id FROM games g JOIN seats s ON s.game_id = g.id WHERE s.user_id = ? "
        "AND (g.place_id <> g.channel_id OR g.start_place = 'thread') ORDER BY g.id",
        (old,),
    )
    # What is theirs alone goes.
    yield Q("DELETE FROM user_settings WHERE user_id = ?", (old,))
    yield Q("DELETE FROM digests WHERE user_id = ?", (old,))
    yield Q("DELETE FROM typed_replies WHERE user_id = ?", (old,))
    yield Q("DELETE FROM pending_answers WHERE user_id = ?", (old,))
    yield Q("DELETE FROM dm_links WHERE user_id = ?", (old,))
    yield Q("DELETE FROM reminder_mutes WHERE user_id = ?", (old,))
    yield Q("DELETE FROM away WHERE user_id = ?", (old,))
    yield Q("DELETE FROM quiet_hours WHERE user_id = ?", (old,))
    yield from forget_puzzles(old)  # (issue 28: the daily puzzle's answers and streak)
    yield from forget_entrant(old, new, DELETED_NAME)  # (issue 29: their tournaments)
    # What others share with them keeps its shape, under the placeholder.
    yield Q("UPDATE seats SET user_id = ?, name = ? WHERE user_id = ?", (new, DELETED_NAME, old))
    yield Q("UPDATE games SET host_id = ? WHERE host_id = ?", (new, old))
    yield Q("UPDATE extensions SET giver_id = ? WHERE giver_id = ?", (new, old))
    yield from _rewrite_json("games", "id", "options", old, new)
    yield from _rewrite_json("games", "id", "state", old, new)
    yield from _rewrite_json("games", "id", "result", old, new)
    rows = yield Q("SELECT game_id, seq, action FROM moves WHERE action LIKE ?", (f"%{old}%",))
    for game_id, seq, text in rows:
        fixed = dumps(replace_id(json.loads(text), old, new))
        yield Q("UPDATE moves SET action = ? WHERE game_id = ? AND seq = ?", (fixed, game_id, seq))
    yield from _rewrite_json("outbox", "id", "args", old, new)
    yield Q(
        "UPDATE results SET user_id = ?, player_id = ?, name = ? WHERE user_id = ? OR player_id = ?",
        (new, new, DELETED_NAME, old, old),
    )
    # Their rating rows stay (so the kept table is still the recompute of the results, and nobody
    # else's rating moves) under the placeholder, which no leaderboard shows.
    yield Q("UPDATE ratings SET player_id = ?, name = ? WHERE player_id = ?", (new, DELETED_NAME, old))
    yield Q("UPDATE period_standings SET player_id = ? WHERE player_id = ?", (new, old))
    yield Q("UPDATE rivals SET player_id = ? WHERE player_id = ?", (new, old))
    yield Q("UPDATE rivals SET opponent_id = ?, name = ? WHERE opponent_id = ?", (new, DELETED_NAME, old))
    # Their name is in those games' thread names: renaming them is owed (games in the order of their ids).
    owed: list[OutboxItem] = []
    for (game_id,) in threaded:
        if in_threads is not None:
            owed += yield from insert_effects(int(game_id), [in_threads])
    return new, [int(g) for (g,) in games], owed


def _seat_moves(moves: Rows, seat: int, secret: bool, over: bool) -> list[JSONObject]:
    """The move log as the person may see it: every move of a game without secrets; in a game with
    secrets, a forfeit (public) and, once the game is over, their own moves. The others' secret
    moves are listed without their content. A move taken back (`/game undo`) says so."""
    shown = []
    for seq, mover, action, created_at, forfeit, undone in moves:
        entry: JSONObject = {"seq": int(seq), "seat": int(mover), "at": float(created_at)}
        if undone is not None:
            entry["taken_back"] = True
        if not secret or forfeit is not None or (over and int(mover) == seat):
            entry["action"] = json.loads(action)
        else:
            entry["hidden"] = True
        shown.append(entry)
    return shown


def export(user_id: int, secret_kinds: Collection[str]) -> Txn[JSONObject]:
    games = yield Q(
        "SELECT g.id, g.kind, g.guild_id, g.channel_id, g.status, g.created_at, g.updated_at, g.options, "
        "g.result, s.position FROM games g JOIN seats s ON s.game_id = g.id WHERE s.user_id = ? "
        "ORDER BY g.id",
        (user_id,),
    )
    exported_games = []
    for game_id, kind, guild_id, channel_id, status, created, updated, options, result, seat in games:
        names = yield Q("SELECT name FROM seats WHERE game_id = ? ORDER BY position", (game_id,))
        moves = yield Q(
            "SELECT seq, seat, action, created_at, forfeit, undone FROM moves WHERE game_id = ? ORDER BY seq",
            (game_id,),
        )
        over = status in OVER
        exported_games.append(
            {
                "game": int(game_id),
                "kind": str(kind),
                "server": None if guild_id is None else str(guild_id),
                "channel": str(channel_id),
                "status": str(status),
                "created_at": float(created),
                "updated_at": float(updated),
                "your_seat": int(seat),
                "players": [str(n) for (n,) in names],
                "options": json.loads(options),
                "result": json.loads(result) if result and over else None,
                "moves": _seat_moves(list(moves), int(seat), str(kind) in secret_kinds, over),
            }
        )
    settings = yield Q("SELECT notify, locale FROM user_settings WHERE user_id = ?", (user_id,))
    ratings = yield Q(
        "SELECT guild_id, kind, name, mu, sigma, ordinal, games, wins, moves, move_seconds, updated_at "
        "FROM ratings WHERE player_id = ? ORDER BY guild_id, kind",
        (user_id,),
    )
    typed = yield Q("SELECT text, created_at FROM typed_replies WHERE user_id = ?", (user_id,))
    digest = yield Q("SELECT hour, timezone FROM digests WHERE user_id = ?", (user_id,))
    owed = yield Q("SELECT asked, created_at FROM pending_answers WHERE user_id = ? ORDER BY id", (user_id,))
    time_off = yield from _time_off(user_id)
    time_off |= yield from export_puzzles(user_id)  # (issue 28)
    time_off |= yield from export_entrant(user_id)  # (issue 29)
    return {
        "user_id": str(user_id),
        "games": exported_games,
        "settings": (
            {}
            if not settings
            else {k: v for k, v in zip(("notify", "locale"), settings[0], strict=True) if v is not None}
        )
        | ({"digest": {"hour": int(digest[0][0]), "timezone": str(digest[0][1])}} if digest else {}),
        "ratings": [
            {
                "server": str(r[0]),
                "game": str(r[1]),
                "name": str(r[2]),
                "mu": float(r[3]),
                "sigma": float(r[4]),
                "rating": float(r[5]),
                "games": int(r[6]),
                "wins": int(r[7]),
                "moves_timed": int(r[8]),
                "seconds_to_move": float(r[9]),
                "updated_at": float(r[10]),
            }
            for r in ratings
        ],
        "waiting_typed_answer": (None if not typed else {"text": str(typed[0][0]), "at": float(typed[0][1])}),
        "answers_owed": [{"asked": str(asked), "at": float(at)} for asked, at in owed],  # (not the token)
    } | time_off


def _time_off(user_id: int) -> Txn[JSONObject]:
    """The person's time away, quiet hours and the more time they gave or were given (issue 27)."""
    away = yield Q("SELECT started, ends, earlier FROM away WHERE user_id = ?", (user_id,))
    quiet = yield Q("SELECT starts, ends, tz FROM quiet_hours WHERE user_id = ?", (user_id,))
    given = yield Q(
        "SELECT game_id, seconds, given_at FROM extensions WHERE giver_id = ? ORDER BY given_at", (user_id,)
    )
    received = yield Q(
        "SELECT e.game_id, e.seconds, e.given_at FROM extensions e JOIN seats s "
        "ON s.game_id = e.game_id AND s.position = e.seat WHERE s.user_id = ? ORDER BY e.given_at",
        (user_id,),
    )
    return {
        "time_away": (
            None
            if not away
            else {
                "from": float(away[0][0]),
                "until": float(away[0][1]),
                "earlier_in_the_last_30_days": json.loads(away[0][2]),
            }
        ),
        "quiet_hours": (
            None
            if not quiet
            else {
                "from": _hhmm(int(quiet[0][0])),
                "to": _hhmm(int(quiet[0][1])),
                "timezone": str(quiet[0][2]),
            }
        ),
        "more_time_given": [_given(r) for r in given],
        "more_time_received": [_given(r) for r in received],
    }


def _hhmm(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _given(row: Sequence[DBValue]) -> JSONObject:
    """An extension as exported: the game, the hours given, when (no other person is named)."""
    game_id, seconds, at = row
    return {"game": int(str(game_id)), "hours": float(str(seconds)) / 3600, "at": float(str(at))}


class Privacy(Repository):
    async def export_user(self, *, user_id: int, secret_kinds: Collection[str] = ()) -> JSONObject:
        """Everything kept about ``user_id`` (JSON-ready), as of one moment. ``secret_kinds``: the
        games with secret choices (other players' moves there are listed without their content, and
        the person's own once the game is over)."""
        return await self._db.read(export(user_id, frozenset(secret_kinds)))

    async def forget_user(
        self, *, user_id: int, leaving: Sequence[Txn[Written]] = (), in_threads: Storable | None = None
    ) -> tuple[int, list[int], list[Written], list[OutboxItem]]:
        """One transaction: ``leaving`` (the person's way out of each live game: a forfeit, a lobby
        left, as /game leave writes them), then ``user_id`` replaced everywhere by a new
        placeholder, with ``in_threads`` owed by each of their games played in a thread of its own;
        then the freed bytes are purged from the database's files. Answers the placeholder, the
        games they sat in, what each of ``leaving`` wrote, and the ``in_threads`` items. One of them
        failing (a game changed meanwhile: `StaleVersion`) writes nothing."""

        def work() -> Txn[tuple[int, list[int], list[Written], list[OutboxItem]]]:
            left = []
            for change in leaving:
                left.append((yield from change))
            placeholder, games, owed = yield from forget(user_id, in_threads)
            return placeholder, games, left, owed

        done = await self._db.write(work())
        await self._db.purge()
        return done

    async def live_seats_of(self, *, user_id: int) -> list[tuple[int, str]]:
        """The live games (id, status) someone is seated in."""
        rows = await self._read(
            "SELECT g.id, g.status FROM games g JOIN seats s ON s.game_id = g.id "
            "WHERE s.user_id = ? AND g.status IN ('lobby', 'active') ORDER BY g.id",
            (user_id,),
        )
        return [(int(r[0]), str(r[1])) for r in rows]

    async def drop_stale_tokens(self, *, tokens_before: float, replies_before: float) -> tuple[int, int]:
        """Retention: interaction tokens older than ``tokens_before`` taken off the outbox (they are
        valid 15 minutes; the item is then carried out without answering the interaction) and the
        deferred answers owed with them deleted (`bot.storage.pending`), typed answers older than
        ``replies_before`` deleted. Answers how many of each."""

        def work() -> Txn[tuple[int, int]]:
            tokens = yield Q(
                "UPDATE outbox SET token = NULL WHERE token IS NOT NULL AND created_at < ? RETURNING id",
                (tokens_before,),
            )
            replies = yield Q(
                "DELETE FROM typed_replies WHERE created_at < ? RETURNING id", (replies_before,)
            )
            owed = yield Q(  # (deferred answers: their tokens no longer work)
                "DELETE FROM pending_answers WHERE created_at < ? RETURNING id", (tokens_before,)
            )
            return len(tokens) + len(owed), len(replies)

        return await self._db.write(work())
