"""Tournaments: the service (sign-up, start, rounds, withdrawals, the end), over the pure core
(`bot.events.pairing`, `bot.events.scoring`) and the storage (`bot.storage.tournaments`).

A tournament is ordinary games scheduled by rounds: each round's games open as started games (their
card in the tournament's channel, a thread each, rated as usual: what they owe the world comes from
the table, `Table.opening`); the next round is paired and opened when every game of the round is
over, exactly once across processes (a compare-and-swap on the tournament's version, in the
transaction that opens it). Every change is one transaction, committed with the durable posts it
owes (its card, a round's announcement, the final post: `bot.table.tournaments`) before anyone is
answered.

Formats: two-player games play a round robin (every round scheduled at the start, by the circle
method) or a Swiss (each round paired when the one before is over); with ``table_size`` of three or
more, every round is tables of that many, seated by score. A round robin breaks ties by
Sonneborn-Berger, the others by Buchholz (`bot.events.scoring`).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Protocol

from bot.deadlines import DEFAULT_TIMEOUT
from bot.errors import BadInput, GameOver, LobbyError, NotAllowed, NotAPlayer
from bot.events import pairing, scoring
from bot.memory.ratings import Rating
from bot.rules.base import AnyRules, resolve_options
from bot.service import Games
from bot.storage import GameRow, OutboxItem, StaleVersion, Storable, Storage
from bot.storage.driver import Txn
from bot.storage.games import cancel_change
from bot.storage.tournaments import GAME_VERSION, Entrant, NewGame, Pairing, TournamentRow

__all__ = [
    "FORMATS",
    "ROUND_ROBIN",
    "SWISS",
    "Entrant",
    "Pairing",
    "Snapshot",
    "Table",
    "TournamentRow",
    "Tournaments",
]

log = logging.getLogger(__name__)

ROUND_ROBIN = "round-robin"
SWISS = "swiss"
FORMATS = (ROUND_ROBIN, SWISS)
CARD_GRACE = 60.0  # seconds after opening before the desk posts the card itself (see `set_card`)
TABLE_ROUNDS = 3  # the rounds of a tournament at tables of three or more, unless told
MAX_ROUNDS = 31
TRIES = 5  # a change lost to another (`StaleVersion`) is read again and tried this many times


class Table(Protocol):
    """What the table layer does for the service (`bot.table.tournaments.TournamentDesk`)."""

    async def place(self, guild_id: int | None, channel_id: int) -> str:
        """Where a round's games are to be played: "thread" (each its own), or why in place ("off",
        "in-thread"), as a lobby's Start says (`bot.table.threads.Places.intent`)."""
        ...

    def opening(
        self, kind: str, seats: Sequence[int], state: object, version: int, place: str
    ) -> list[Storable]:
        """What a round's game owes the world as it opens (its card, thread, first board, panels)."""
        ...

    def closing(self) -> list[Storable]:
        """What a game cancelled with its tournament owes."""
        ...

    async def forfeit(self, game_id: int, user_id: int) -> None:
        """A withdrawn player's live game: their seat forfeits (with what the move owes)."""
        ...

    def kick(self, items: Sequence[OutboxItem]) -> None:
        """Committed outbox items: carry them out soon."""
        ...

    def posted(self) -> None:
        """Tournament posts were committed: carry them out soon."""
        ...


class Detached:
    """No table (service tests): games open owing nothing, posts wait."""

    async def place(self, guild_id: int | None, channel_id: int) -> str:
        return "thread"

    def opening(
        self, kind: str, seats: Sequence[int], state: object, version: int, place: str
    ) -> list[Storable]:
        return []

    def closing(self) -> list[Storable]:
        return []

    async def forfeit(self, game_id: int, user_id: int) -> None:
        return None

    def kick(self, items: Sequence[OutboxItem]) -> None:
        return None

    def posted(self) -> None:
        return None


@dataclass(frozen=True)
class Snapshot:
    """Everything a card, the standings or the final post shows."""

    tournament: TournamentRow
    pairings: tuple[Pairing, ...]  # every round so far (a round robin: all rounds, scheduled too)
    byes: Mapping[int, tuple[int, ...]]  # round -> the players with a bye
    standings: tuple[scoring.Standing, ...]
    tie_break: str  # scoring.SONNEBORN_BERGER | scoring.BUCHHOLZ

    def round_pairings(self, n: int) -> list[Pairing]:
        return [p for p in self.pairings if p.round == n]

    def winners(self) -> list[int]:
        """The players ranked first once the tournament is finished (several when tied)."""
        if self.tournament.status != "finished":
            return []
        return [s.player for s in self.standings if s.rank == 1]


def tie_break_of(t: TournamentRow) -> str:
    two = t.table_size == 2
    return scoring.SONNEBORN_BERGER if two and t.format == ROUND_ROBIN else scoring.BUCHHOLZ


def results_of(pairings: Sequence[Pairing]) -> list[scoring.Result]:
    return [
        scoring.Result(p.players, frozenset(p.winners), forfeit=p.forfeit)
        for p in pairings
        if p.status == "done"
    ]


def all_byes(byes: Mapping[int, Sequence[int]], up_to: int) -> list[int]:
    return [p for rnd, players in sorted(byes.items()) if rnd <= up_to for p in players]


def history_of(
    pairings: Sequence[Pairing], byes: Mapping[int, Sequence[int]], up_to: int
) -> list[pairing.Round]:
    return [
        pairing.Round(tuple(p.players for p in pairings if p.round == rnd), tuple(byes.get(rnd, ())))
        for rnd in range(1, up_to + 1)
    ]


def snapshot_of(
    t: TournamentRow, pairings: Sequence[Pairing], byes: Mapping[int, tuple[int, ...]]
) -> Snapshot:
    kind = tie_break_of(t)
    players = [e.user_id for e in t.entrants]
    played_to = t.round if t.status == "running" else max([t.round, *byes, *(p.round for p in pairings)])
    unpaired = t.rounds - t.round if t.status == "running" and kind == scoring.BUCHHOLZ else 0
    table = scoring.standings(
        players,
        results_of(pairings),
        all_byes(byes, played_to),
        kind,
        pending=[p.players for p in pairings if p.status != "done"] if t.status == "running" else [],
        rounds_left=unpaired,
        withdrawn={e.user_id for e in t.entrants if e.withdrawn is not None},
    )
    return Snapshot(t, tuple(pairings), dict(byes), tuple(table), kind)


class Tournaments:
    """The tournaments' life (see the module's text)."""

    def __init__(self, storage: Storage, games: Games, *, table: Table | None = None) -> None:
        self.storage = storage
        self.games = games
        self.table: Table = table or Detached()

    def attach(self, table: Table) -> None:
        """The table layer, built after the service (`bot.app`)."""
        self.table = table

    # ---- reading ----------------------------------------------------------------------------------

    async def get(self, tournament_id: int) -> TournamentRow:
        return await self.storage.get_tournament(tournament_id=tournament_id)

    async def snapshot(self, tournament_id: int) -> Snapshot:
        t, pairings, byes = await self.storage.tournament_state(tournament_id=tournament_id)
        return snapshot_of(t, pairings, byes)

    async def for_player(self, user_id: int, guild_id: int | None) -> list[TournamentRow]:
        return await self.storage.tournaments_of_user(user_id=user_id, guild_id=guild_id)

    async def in_channel(self, channel_id: int) -> list[TournamentRow]:
        return await self.storage.tournaments_in_channel(channel_id=channel_id)

    async def of_game(self, game_id: int) -> TournamentRow | None:
        tid = await self.storage.tournament_of_game(game_id=game_id)
        return None if tid is None else await self.get(tid)

    # ---- sign-up ----------------------------------------------------------------------------------

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
        token: str | None = None,
    ) -> TournamentRow:
        """A sign-up with its host in, committed with its card's post (due `CARD_GRACE` later: the
        card is the answer to the command, recorded with `set_card`; if it is not by then, the desk
        finds that answer again through the command's ``token``, or posts the card in the channel)."""
        rules = self.games.rules_for(kind)
        if format not in FORMATS:
            raise BadInput(
                "There is no format {format}: choose round-robin or swiss.", format=repr(format[:20])
            )
        low, high = max(2, rules.MIN_PLAYERS), rules.MAX_PLAYERS
        if not low <= table_size <= high:
            raise BadInput(
                "{title} is played by {low} to {high} players: choose a table size in that range.",
                title=rules.TITLE,
                low=low,
                high=high,
            )
        if rounds is not None:
            if format == ROUND_ROBIN and table_size == 2:
                raise BadInput(
                    "A round robin has as many rounds as it takes for everyone to meet: "
                    "leave rounds out, or choose swiss."
                )
            if not 1 <= rounds <= MAX_ROUNDS:
                raise BadInput("A tournament has 1 to {high} rounds.", high=MAX_ROUNDS)
        resolved = resolve_options(rules.OPTIONS, options or {})
        t = await self.storage.create_tournament(
            guild_id=guild_id,
            channel_id=channel_id,
            host_id=host_id,
            host_name=host_name,
            kind=kind,
            format=format,
            rounds=rounds or 0,
            options=resolved,
            table_size=table_size,
            timeout_s=timeout_s,
            card_delay=CARD_GRACE,
            card_token=token,
        )
        self.table.posted()
        return t

    async def set_card(self, tournament_id: int, message_id: int) -> None:
        """The message that answered the command opening the tournament: its card."""
        await self.storage.set_tournament_card(tournament_id=tournament_id, message_id=message_id)
        self.table.posted()

    async def join(self, tournament_id: int, user_id: int, name: str) -> TournamentRow:
        for _ in range(TRIES):
            t = await self.get(tournament_id)
            self._require_signup(t)
            if t.entrant(user_id) is not None:
                raise LobbyError("You are already in tournament #{tournament_id}.", tournament_id=t.id)
            if len(t.entrants) >= pairing.MAX_PLAYERS:
                raise LobbyError(
                    "Tournament #{tournament_id} is full: it takes at most {count} players.",
                    tournament_id=t.id,
                    count=pairing.MAX_PLAYERS,
                )
            try:
                t = await self.storage.change_signup(
                    tournament_id=t.id, expected_version=t.version, add=(user_id, name)
                )
            except StaleVersion:
                continue
            self.table.posted()
            return t
        raise self._busy(tournament_id)

    async def leave(self, tournament_id: int, user_id: int) -> TournamentRow:
        """Out of a sign-up (the host's role passes to the next in; the last one out cancels it);
        once started, a withdrawal (`withdraw`)."""
        for _ in range(TRIES):
            t = await self.get(tournament_id)
            if t.status == "running":
                return await self.withdraw(tournament_id, user_id)
            self._require_signup(t)
            if t.entrant(user_id) is None:
                raise NotAPlayer("You are not in tournament #{tournament_id}.", tournament_id=t.id)
            others = [e.user_id for e in t.entrants if e.user_id != user_id]
            host = t.host_id if t.host_id != user_id or not others else others[0]
            try:
                t = await self.storage.change_signup(
                    tournament_id=t.id,
                    expected_version=t.version,
                    remove=user_id,
                    host_id=host if host != t.host_id else None,
                    cancel=not others,
                )
            except StaleVersion:
                continue
            self.table.posted()
            return t
        raise self._busy(tournament_id)

    # ---- the start and the rounds -----------------------------------------------------------------

    async def start(self, tournament_id: int, user_id: int) -> TournamentRow:
        """The host starts it (3 to 32 players): seeded by rating (then join order), round 1 paired
        and its games opened, in one transaction."""
        t = await self.get(tournament_id)
        self._require_signup(t)
        if user_id != t.host_id:
            raise NotAllowed("Only the host, {host}, can start the tournament.", host=f"<@{t.host_id}>")
        n = len(t.entrants)
        if not pairing.MIN_PLAYERS <= n <= pairing.MAX_PLAYERS:
            raise LobbyError(
                "A tournament starts with {low} to {high} players; tournament #{tournament_id} has "
                "{count}. Wait for more to press Join.",
                low=pairing.MIN_PLAYERS,
                high=pairing.MAX_PLAYERS,
                tournament_id=t.id,
                count=n,
            )
        rules = self.games.rules_for(t.kind)
        ratings = await self.storage.rating_ordinals(
            guild_id=t.guild_id, kind=t.kind, players=[e.user_id for e in t.entrants]
        )
        default = Rating().ordinal
        seeds = [
            e.user_id for e in sorted(t.entrants, key=lambda e: (-ratings.get(e.user_id, default), e.seed))
        ]
        later: dict[int, list[tuple[int, Sequence[int]]]] = {}
        later_byes: dict[int, Sequence[int]] = {}
        if t.table_size > 2:
            first = pairing.tables(seeds, {}, [], max(2, rules.MIN_PLAYERS), t.table_size)
            rounds = t.rounds or TABLE_ROUNDS
        elif t.format == ROUND_ROBIN:
            schedule = pairing.round_robin(seeds)
            first, rounds = schedule[0], len(schedule)
            for number, rnd in enumerate(schedule[1:], start=2):
                later[number] = [(board, game) for board, game in enumerate(rnd.games, start=1)]
                later_byes[number] = rnd.byes
        else:
            first = pairing.swiss(seeds, {}, [])
            rounds = min(t.rounds or (n - 1).bit_length(), pairing.max_swiss_rounds(n))
        seated = replace(t, entrants=tuple(Entrant(p, t.name(p), i) for i, p in enumerate(seeds)))
        place = await self.table.place(t.guild_id, t.channel_id)
        games = self._new_games(seated, rules, list(enumerate(first.games, start=1)), place)
        txn = self.storage.open_round(
            t,
            1,
            games,
            first.byes,
            start=True,
            seeds=seeds,
            rounds=rounds,
            later=later,
            later_byes=later_byes,
        )
        try:
            opened = await self.storage.write_round(txn)
        except StaleVersion:  # (another Start, or a join, came first: say which)
            self._require_signup(await self.get(tournament_id))
            raise self._busy(tournament_id) from None
        self._opened(opened.effects)
        return await self.get(tournament_id)

    def _new_games(
        self, t: TournamentRow, rules: AnyRules, boards: Sequence[tuple[int, Sequence[int]]], place: str
    ) -> list[NewGame]:
        """The games of a round, dealt: each one's state from a fresh seed, and what it owes."""
        out = []
        for board, players in boards:
            seed = secrets.randbits(63)
            state = rules.new_game(len(players), t.options, seed)
            out.append(
                NewGame(
                    board=board,
                    players=tuple(players),
                    names=tuple(t.name(p) for p in players),
                    seed=seed,
                    state=state.to_dict(),
                    waiting=tuple(sorted(rules.to_act(state))),
                    effects=tuple(self.table.opening(t.kind, tuple(players), state, GAME_VERSION, place)),
                    place=place,
                )
            )
        return out

    def _opened(self, effects: Sequence[OutboxItem]) -> None:
        self.games.changed()
        self.table.kick(effects)
        self.table.posted()

    async def advance(self, tournament_id: int) -> bool:
        """If every game of the round is over: the next round paired and opened, or the tournament
        finished after its last round (or when no pairing is left). Exactly once across processes:
        the write is checked on the tournament's version. True if it moved."""
        moved = False
        for _ in range(TRIES * 4):  # (a round robin's round may be all forfeits: then the next)
            t, pairings, byes = await self.storage.tournament_state(tournament_id=tournament_id)
            if t.status != "running" or any(p.round == t.round and p.status != "done" for p in pairings):
                return moved
            try:
                await self._next(t, pairings, byes)
            except StaleVersion:
                continue  # another process moved it: look again
            moved = True
        return moved

    async def _next(
        self, t: TournamentRow, pairings: Sequence[Pairing], byes: Mapping[int, tuple[int, ...]]
    ) -> None:
        """Open round ``t.round + 1``, or finish (`StaleVersion` when another process did first)."""
        rules = self.games.rules_for(t.kind)
        rnd = t.round + 1
        nxt: pairing.Round | None = None
        boards: list[tuple[int, Sequence[int]]] = []
        if rnd <= t.rounds:
            if t.table_size == 2 and t.format == ROUND_ROBIN:
                boards = [
                    (p.board, p.players) for p in pairings if p.round == rnd and p.status == "scheduled"
                ]
                nxt = pairing.Round(())
            else:
                # (a Swiss round's search may take a moment: off the event loop)
                nxt = await asyncio.to_thread(self._pair, t, rules, pairings, byes)
                if nxt is not None:
                    boards = list(enumerate(nxt.games, start=1))
        if nxt is None:
            await self.storage.finish_tournament(tournament_id=t.id, expected_version=t.version)
            self.table.posted()
            return
        games = self._new_games(t, rules, boards, await self.table.place(t.guild_id, t.channel_id))
        opened = await self.storage.write_round(self.storage.open_round(t, rnd, games, nxt.byes))
        self._opened(opened.effects)

    def _pair(
        self,
        t: TournamentRow,
        rules: AnyRules,
        pairings: Sequence[Pairing],
        byes: Mapping[int, tuple[int, ...]],
    ) -> pairing.Round | None:
        """The next Swiss round or tables, by the scores so far; None when none is possible."""
        score: dict[int, Fraction] = scoring.points(
            [e.user_id for e in t.entrants], results_of(pairings), all_byes(byes, t.round)
        )
        history = history_of(pairings, byes, t.round)
        active = t.active
        if len(active) < pairing.MIN_PLAYERS:  # (withdrawals left two, or one: they meet, if they have not)
            met = {frozenset(p.players) for p in pairings}
            if len(active) == 2 and (t.table_size > 2 or frozenset(active) not in met):
                return pairing.Round((tuple(active),))
            return None
        try:
            if t.table_size > 2:
                return pairing.tables(t.active, score, history, max(2, rules.MIN_PLAYERS), t.table_size)
            return pairing.swiss(t.active, score, history)
        except pairing.PairingError as exc:
            log.info("Tournament %s ends after round %s: %s", t.id, t.round, exc)
            return None

    # ---- withdrawals and the cancel ---------------------------------------------------------------

    async def withdraw(self, tournament_id: int, user_id: int) -> TournamentRow:
        """A player leaves a running tournament: their live game forfeited (they lose it; at a table
        of three or more the others play on), their scheduled pairings credited to the opponents,
        later rounds without them."""
        for _ in range(TRIES):
            t, pairings, _byes = await self.storage.tournament_state(tournament_id=tournament_id)
            if t.status == "signup":
                return await self.leave(tournament_id, user_id)
            if not t.live:
                raise GameOver("Tournament #{tournament_id} has ended.", tournament_id=t.id)
            me = t.entrant(user_id)
            if me is None or me.withdrawn is not None:
                raise NotAPlayer("You are not playing in tournament #{tournament_id}.", tournament_id=t.id)
            forfeits = [
                (p.round, p.board, [q for q in p.players if q != user_id])
                for p in pairings
                if p.status == "scheduled" and user_id in p.players
            ]
            try:
                await self.storage.withdraw_entrant(
                    tournament_id=t.id,
                    expected_version=t.version,
                    user_id=user_id,
                    round=t.round,
                    forfeits=forfeits,
                    drop_byes_after=t.round,
                )
            except StaleVersion:
                continue
            self.table.posted()
            for p in pairings:
                if p.status == "live" and p.game_id is not None and user_id in p.players:
                    await self._forfeit(p.game_id, user_id)
            await self.advance(t.id)
            return await self.get(t.id)
        raise self._busy(tournament_id)

    async def _forfeit(self, game_id: int, user_id: int) -> None:
        try:
            await self.table.forfeit(game_id, user_id)
        except Exception:  # (the next pass tries again: `run_due`)
            log.exception("Could not forfeit %s's tournament game %s", user_id, game_id)

    async def cancel(self, tournament_id: int, user_id: int, *, can_manage: bool) -> TournamentRow:
        """The host (or a member who manages the server) cancels it; its live games are cancelled
        in the same transaction."""
        for _ in range(TRIES):
            t, pairings, _byes = await self.storage.tournament_state(tournament_id=tournament_id)
            if not t.live:
                raise GameOver("Tournament #{tournament_id} has ended.", tournament_id=t.id)
            if user_id != t.host_id and not can_manage:
                raise NotAllowed(
                    "Only the host, {host}, or a member with Manage Server can cancel this tournament.",
                    host=f"<@{t.host_id}>",
                )
            live = []
            for p in pairings:
                if p.status == "live" and p.game_id is not None:
                    row = await self.storage.get_game(game_id=p.game_id)
                    if row.live:
                        live.append(row)
            try:
                items = await self.storage.write(self._cancelling(t, live))
            except StaleVersion:
                continue
            for row in live:
                self.games.cache.evict(row.id)
                self.games.release(row.id)
            self.games.changed()
            self.table.kick(items)
            self.table.posted()
            return await self.get(t.id)
        raise self._busy(tournament_id)

    def _cancelling(self, t: TournamentRow, live: Sequence[GameRow]) -> Txn[list[OutboxItem]]:
        """The statements cancelling ``t`` and its ``live`` games (each checked on its version)."""
        yield from self.storage.cancelling(tournament_id=t.id, expected_version=t.version)
        closing = self.table.closing()
        items: list[OutboxItem] = []
        for row in live:
            written = yield from cancel_change(row.id, row.version, effects=closing)
            items.extend(written.effects)
        return items

    # ---- the pass ---------------------------------------------------------------------------------

    async def run_due(self) -> None:
        """Every running tournament whose round is over moves on; a withdrawn player still seated in
        a live game (the process died between the withdrawal and its forfeit) forfeits it."""
        for game_id, user_id in await self.storage.withdrawn_in_live_games():
            await self._forfeit(game_id, user_id)
        for tid in await self.storage.tournaments_due():
            try:
                await self.advance(tid)
            except Exception:
                log.exception("Could not move tournament %s on", tid)

    # ---- checks -----------------------------------------------------------------------------------

    @staticmethod
    def _require_signup(t: TournamentRow) -> None:
        if t.status == "running":
            raise LobbyError("Tournament #{tournament_id} has already started.", tournament_id=t.id)
        if t.status != "signup":
            raise GameOver("Tournament #{tournament_id} has ended.", tournament_id=t.id)

    @staticmethod
    def _busy(tournament_id: int) -> LobbyError:
        return LobbyError(
            "Tournament #{tournament_id} is changing right now: try again in a moment.",
            tournament_id=tournament_id,
        )
