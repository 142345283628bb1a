"""What a game's end writes into its tournament, in the game's own transaction: its pairing done
with its winners, and the tournament's card owed an update (`bot.storage.tournaments` has the rest;
this part stands alone so that `bot.storage.games` and `bot.storage.records` may call it)."""

from __future__ import annotations

import json
from collections.abc import Iterable

from bot import clock
from bot.jsontypes import JSONMap
from bot.storage.driver import Q, Txn
from bot.storage.rows import dumps


def add_post(tournament_id: int, kind: str, *, round: int = 0, delay: float = 0.0) -> Txn[None]:
    """Owe a post. A card post is owed once: one not yet claimed brings the card to what it is when
    it is carried out, so another is not added (the one there is made due no later than this one
    would be)."""
    now = clock.now()
    if kind == "card":
        pending = yield Q(
            "UPDATE tournament_posts SET not_before = CASE WHEN not_before > ? THEN ? ELSE not_before END "
            "WHERE tournament_id = ? AND kind = 'card' AND claimed_by IS NULL RETURNING id",
            (now + delay, now + delay, tournament_id),
        )
        if pending:  # (due no later than this one would be)
            return
    yield Q(
        "INSERT INTO tournament_posts (tournament_id, kind, round, created_at, not_before) "
        "VALUES (?, ?, ?, ?, ?)",
        (tournament_id, kind, round, now, now + delay),
    )


def game_over(game_id: int, winners: Iterable[int] | None) -> Txn[None]:
    """A game ended: if it is a tournament's, its pairing is done with ``winners`` (user ids; None: a
    cancelled game, lost by all), and the tournament's card is owed an update. Written in the game's
    own finishing (or cancelling) transaction."""
    rows = yield Q(
        "UPDATE tournament_games SET status = 'done', winners = ? WHERE game_id = ? AND status = 'live' "
        "RETURNING tournament_id",
        (dumps(sorted(winners or ())), game_id),
    )
    if rows:
        yield from add_post(int(str(rows[0][0])), "card")


def finished_winners(game_id: int, result: JSONMap, forfeited: set[int]) -> Txn[list[int]]:
    """The user ids winning a finished game: its ``winners`` seats (all the remaining seats on a
    draw: a shared win) but those that forfeited."""
    seat_rows = yield Q("SELECT user_id FROM seats WHERE game_id = ? ORDER BY position", (game_id,))
    seats = [int(str(r[0])) for r in seat_rows]
    raw = result.get("winners") or ()
    won = {s for s in raw if isinstance(s, int) and 0 <= s < len(seats)} if isinstance(raw, list) else set()
    return [seats[s] for s in sorted(won - forfeited)]


def tournament_game_over(game_id: int, result: JSONMap, forfeited: set[int]) -> Txn[None]:
    """`game_over` for a finished game (cheap when it is no tournament's: one indexed read)."""
    found = yield Q("SELECT 1 FROM tournament_games WHERE game_id = ? AND status = 'live'", (game_id,))
    if not found:
        return
    winners = yield from finished_winners(game_id, result, forfeited)
    yield from game_over(game_id, winners)


def forget_entrant(old: int, new: int, name: str) -> Txn[None]:
    """A person forgotten (`bot.storage.privacy.forget`): out of the sign-ups they are in; withdrawn
    from the running tournaments (their scheduled pairings credited to the others, as a withdrawal
    does; their live games were forfeited by the same transaction); and ``old`` replaced by the
    placeholder ``new`` (named ``name``) wherever a tournament keeps it."""
    now = clock.now()
    touched = yield Q(
        "SELECT DISTINCT e.tournament_id FROM tournament_entrants e "
        "JOIN tournaments t ON t.id = e.tournament_id "
        "WHERE e.user_id = ? AND t.status IN ('signup', 'running')",
        (old,),
    )
    yield Q(
        "DELETE FROM tournament_entrants WHERE user_id = ? "
        "AND tournament_id IN (SELECT id FROM tournaments WHERE status = 'signup')",
        (old,),
    )
    yield Q(
        "UPDATE tournament_entrants "
        "SET withdrawn = (SELECT t.round FROM tournaments t WHERE t.id = tournament_id) "
        "WHERE user_id = ? AND withdrawn IS NULL "
        "AND tournament_id IN (SELECT id FROM tournaments WHERE status = 'running')",
        (old,),
    )
    rows = yield Q(
        "SELECT tournament_id, round, board, players, status, winners FROM tournament_games "
        "WHERE players LIKE ?",
        (f"%{old}%",),
    )
    for tid, rnd, board, players_text, status, winners_text in rows:
        players = [int(p) for p in json.loads(str(players_text))]
        if old not in players:
            continue
        winners = [int(p) for p in json.loads(str(winners_text))] if winners_text else []
        forfeit = status == "scheduled"
        if forfeit:
            winners = [p for p in players if p != old]
        yield Q(
            "UPDATE tournament_games SET players = ?, winners = ?, "
            "status = CASE WHEN ? = 1 THEN 'done' ELSE status END, "
            "forfeit = CASE WHEN ? = 1 THEN 1 ELSE forfeit END "
            "WHERE tournament_id = ? AND round = ? AND board = ?",
            (
                dumps([new if p == old else p for p in players]),
                dumps([new if p == old else p for p in winners]) if forfeit or status == "done" else None,
                int(forfeit),
                int(forfeit),
                tid,
                rnd,
                board,
            ),
        )
    yield Q("UPDATE tournament_byes SET user_id = ? WHERE user_id = ?", (new, old))
    yield Q("UPDATE tournament_entrants SET user_id = ?, name = ? WHERE user_id = ?", (new, name, old))
    yield Q("UPDATE tournaments SET host_id = ? WHERE host_id = ?", (new, old))
    for (tid,) in touched:
        yield Q("UPDATE tournaments SET version = version + 1, updated_at = ? WHERE id = ?", (now, tid))
        yield from add_post(int(str(tid)), "card")


def export_entrant(user_id: int) -> Txn[dict[str, list[dict[str, object]]]]:
    """The tournaments the person entered, for /game privacy export (their games are among the
    export's games)."""
    rows = yield Q(
        "SELECT t.id, t.guild_id, t.kind, t.format, t.status, e.name, e.withdrawn FROM tournament_entrants e "
        "JOIN tournaments t ON t.id = e.tournament_id WHERE e.user_id = ? ORDER BY t.id",
        (user_id,),
    )
    return {
        "tournaments": [
            {
                "tournament": int(str(tid)),
                "server": None if guild is None else str(guild),
                "game": str(kind),
                "format": str(fmt),
                "status": str(status),
                "name": str(name),
                "withdrawn_in_round": None if withdrawn is None else int(str(withdrawn)),
            }
            for tid, guild, kind, fmt, status, name, withdrawn in rows
        ]
    }
