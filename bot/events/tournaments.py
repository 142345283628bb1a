"""Tournaments: the service (sign-up, start, rounds, withdrawals, the end), over the pure core
(`bot.events.pairing`, `bot.events.scoring`) and the storage (`bot.storage.tournaments`).

A tournament is ordinary games scheduled by rounds: each round's games open as started games (their
card in the tournament's channel, a thread each, rated as usual); the next round is paired and opened
when every game of the round is over, exactly once across processes (a compare-and-swap on the
tournament's version, in the transaction that opens it). Every change is one transaction, committed
with the durable posts it owes (`bot.table.tournaments`) before anyone is answered.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from bot.deadlines import DEFAULT_TIMEOUT
from bot.events import scoring
from bot.jsontypes import JSONMap
from bot.service import Games, Loaded
from bot.storage import Storable, Storage

ROUND_ROBIN = "round-robin"
SWISS = "swiss"
FORMATS = (ROUND_ROBIN, SWISS)
CARD_GRACE = 60.0  # seconds after opening before the desk posts the card itself (`set_card`)


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
    def active(self) -> list[int]:
        return [e.user_id for e in self.entrants if e.withdrawn is None]

    def name(self, user_id: int) -> str:
        return next((e.name for e in self.entrants if e.user_id == user_id), str(user_id))


@dataclass(frozen=True)
class Pairing:
    round: int
    board: int
    players: tuple[int, ...]
    game_id: int | None
    status: str  # "scheduled" | "live" | "done"
    winners: tuple[int, ...] = ()
    forfeit: bool = False


@dataclass(frozen=True)
class Snapshot:
    tournament: TournamentRow
    pairings: tuple[Pairing, ...]
    byes: Mapping[int, tuple[int, ...]]
    standings: tuple[scoring.Standing, ...]
    tie_break: str

    def round_pairings(self, n: int) -> list[Pairing]:
        return [p for p in self.pairings if p.round == n]

    def winners(self) -> list[int]:
        if self.tournament.status != "finished":
            return []
        return [s.player for s in self.standings if s.rank == 1]


class Tournaments:
    def __init__(
        self,
        storage: Storage,
        games: Games,
        *,
        game_effects: Callable[[Loaded], Sequence[Storable]] = lambda g: (),
    ) -> None:
        self.storage = storage
        self.games = games
        self.game_effects = game_effects

    async def open(
        self,
        *,
        kind: str,
        format: str,
        guild_id: int | None,
        channel_id: int,
        host_id: int,
        host_name: str,
        options: Mapping[str, object] | None = None,
        rounds: int | None = None,
        table_size: int = 2,
        timeout_s: int = DEFAULT_TIMEOUT,
    ) -> TournamentRow:
        raise NotImplementedError

    async def set_card(self, tournament_id: int, message_id: int) -> None:
        raise NotImplementedError

    async def get(self, tournament_id: int) -> TournamentRow:
        raise NotImplementedError

    async def join(self, tournament_id: int, user_id: int, name: str) -> TournamentRow:
        raise NotImplementedError

    async def leave(self, tournament_id: int, user_id: int) -> TournamentRow:
        raise NotImplementedError

    async def withdraw(self, tournament_id: int, user_id: int) -> TournamentRow:
        raise NotImplementedError

    async def start(self, tournament_id: int, user_id: int) -> TournamentRow:
        raise NotImplementedError

    async def cancel(self, tournament_id: int, user_id: int, *, can_manage: bool) -> TournamentRow:
        raise NotImplementedError

    async def snapshot(self, tournament_id: int) -> Snapshot:
        raise NotImplementedError

    async def for_player(self, user_id: int, guild_id: int | None) -> list[TournamentRow]:
        raise NotImplementedError

    async def in_channel(self, channel_id: int) -> list[TournamentRow]:
        raise NotImplementedError

    async def of_game(self, game_id: int) -> TournamentRow | None:
        raise NotImplementedError

    async def advance(self, tournament_id: int) -> bool:
        raise NotImplementedError

    async def run_due(self) -> None:
        raise NotImplementedError
