"""What waits on one person across every server: their live games and lobbies, with the seats each
game waits on (/game mine, and the daily digest). Read in one transaction of three statements (the
games, their seats, their waits), however many games the person plays."""

from __future__ import annotations

import math

from bot.storage.driver import Q, Repository, Txn
from bot.storage.games import select_games
from bot.storage.rows import AgendaEntry, Awaited


def order(entry: AgendaEntry) -> tuple[int, float, int]:
    """Games waiting on the person first, then games waiting on others (each soonest deadline first),
    then lobbies (oldest first: the first to close)."""
    if entry.group == 2:
        return 2, entry.game.created_at, entry.game.id
    deadline = entry.deadline
    return entry.group, math.inf if deadline is None else deadline, entry.game.id


def select_agenda(user_id: int) -> Txn[list[AgendaEntry]]:
    games = yield from select_games(
        "WHERE g.id IN (SELECT game_id FROM seats WHERE user_id = ?) AND g.status IN ('lobby', 'active')",
        (user_id,),
    )
    if not games:
        return []
    marks = ", ".join("?" * len(games))
    rows = yield Q(
        f"SELECT game_id, seat, deadline FROM waits WHERE game_id IN ({marks}) ORDER BY deadline, seat",
        [g.id for g in games],
    )
    waits: dict[int, list[Awaited]] = {g.id: [] for g in games}
    by_id = {g.id: g for g in games}
    for game_id, seat, deadline in rows:
        game = by_id[int(game_id)]
        if game.status != "active" or not 0 <= int(seat) < len(game.seats):
            continue
        waits[game.id].append(
            Awaited(
                seat=int(seat),
                user_id=game.seats[int(seat)],
                name=game.names[int(seat)],
                deadline=float(deadline),
            )
        )
    entries = []
    for game in games:
        seat = game.seat_of(user_id)
        if seat is not None:
            entries.append(AgendaEntry(game=game, seat=seat, waits=tuple(waits[game.id])))
    return sorted(entries, key=order)


class Agendas(Repository):
    async def agenda(self, *, user_id: int) -> list[AgendaEntry]:
        """``user_id``'s live games and lobbies, in every server, in the order /game mine lists them
        (see `order`)."""
        return await self._db.read(select_agenda(user_id))
