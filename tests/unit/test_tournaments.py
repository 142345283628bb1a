"""Tournaments below Discord: the service over both databases (`bot.events.tournaments`).

Each round's games are finished by writing their outcome as a move would (`finish`), or forfeited
through the moves service; the standings are checked against a count made here by hand.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from fractions import Fraction

import pytest

from bot import clock
from bot.errors import BadInput, GameOver, LobbyError, NotAllowed, NotAPlayer
from bot.events import scoring
from bot.events.tournaments import CARD_GRACE, ROUND_ROBIN, SWISS, Detached, Pairing, Snapshot, Tournaments
from bot.registry import RULES
from bot.service import Services
from bot.storage import Storable, Storage
from bot.storage.tournaments import TournamentPost
from tests.db import query

pytestmark = pytest.mark.both_dbs

KIND = "procession"  # 2 to 8 players: two-player pairings and tables alike
GUILD, CHANNEL = 1, 500


class Forfeiting(Detached):
    """A table whose forfeit is the moves service's (a withdrawn player's live game)."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self.forfeited: list[tuple[int, int]] = []

    def opening(
        self, kind: str, seats: Sequence[int], state: object, version: int, place: str
    ) -> list[Storable]:
        return []

    async def forfeit(self, game_id: int, user_id: int) -> None:
        self.forfeited.append((game_id, user_id))
        await self.services.moves.forfeit(game_id, user_id)


@pytest.fixture
async def services(database: str):
    storage = await Storage.open(database)
    yield Services.build(storage, RULES)
    await storage.close()


@pytest.fixture
def tours(services: Services) -> Tournaments:
    tours = Tournaments(services.games.storage, services.games)
    tours.attach(Forfeiting(services))
    return tours


def name(user_id: int) -> str:
    return f"P{user_id}"


async def signup(tours: Tournaments, n: int, fmt: str = ROUND_ROBIN, **kw: object) -> int:
    t = await tours.open(
        kind=KIND,
        format=fmt,
        guild_id=GUILD,
        channel_id=CHANNEL,
        host_id=1,
        host_name=name(1),
        **kw,  # type: ignore[arg-type]
    )
    for user_id in range(2, n + 1):
        await tours.join(t.id, user_id, name(user_id))
    return t.id


async def finish(storage: Storage, game_id: int, winners: Sequence[int], *, draw: bool = False) -> None:
    """The game ends with ``winners`` (user ids), as a move that ends it writes it."""
    row = await storage.get_game(game_id=game_id)
    seats = [row.seats.index(w) for w in winners]
    await storage.record_move(
        game_id=game_id,
        expected_version=row.version,
        seat=0,
        action={"type": "test"},
        state=row.state or {},
        result={"winners": seats, "draw": draw, "reason": "test"},
    )


Decide = Callable[[Pairing], Sequence[int]]


def lowest_id_wins(p: Pairing) -> list[int]:
    return [min(p.players)]


async def play_round(tours: Tournaments, tid: int, decide: Decide = lowest_id_wins) -> Snapshot:
    """Finish every live game of the tournament's round as ``decide`` says, then move on."""
    snap = await tours.snapshot(tid)
    for p in snap.round_pairings(snap.tournament.round):
        if p.status == "live" and p.game_id is not None:
            winners = decide(p)
            await finish(tours.storage, p.game_id, winners, draw=len(winners) > 1)
    await tours.advance(tid)
    return await tours.snapshot(tid)


async def play_out(tours: Tournaments, tid: int, decide: Decide = lowest_id_wins) -> Snapshot:
    snap = await tours.snapshot(tid)
    for _ in range(40):
        if snap.tournament.status != "running":
            return snap
        snap = await play_round(tours, tid, decide)
    raise AssertionError("the tournament did not end")


def by_hand(snap: Snapshot) -> dict[int, tuple[Fraction, Fraction]]:
    """Each player's points and tie-break, counted here from the pairings and byes."""
    points: Counter[int] = Counter()
    for p in snap.pairings:
        if p.status == "done":
            for w in p.winners:
                points[w] += Fraction(1, len(p.winners)) if len(p.winners) == 1 else Fraction(1, 2)
    for players in snap.byes.values():
        for b in players:
            points[b] += 1
    tie: Counter[int] = Counter()
    for p in snap.pairings:
        if p.status != "done":
            continue
        for me in p.players:
            others = sum((Fraction(points[o]) for o in p.players if o != me), Fraction(0))
            if snap.tie_break == scoring.SONNEBORN_BERGER:
                if not p.forfeit and me in p.winners:
                    tie[me] += (1 if len(p.winners) == 1 else Fraction(1, 2)) * others
            else:
                tie[me] += Fraction(points[me]) if p.forfeit else others
    if snap.tie_break == scoring.BUCHHOLZ:
        for players in snap.byes.values():
            for b in players:
                tie[b] += points[b]
    return {
        e.user_id: (Fraction(points[e.user_id]), Fraction(tie[e.user_id])) for e in snap.tournament.entrants
    }


def check_standings(snap: Snapshot) -> None:
    counted = by_hand(snap)
    assert {s.player: (s.points, s.tie_break) for s in snap.standings} == counted
    order = [(-s.points, -s.tie_break) for s in snap.standings]
    assert order == sorted(order)
    assert snap.standings[0].rank == 1


def fewest_floats(players: list[int], score: dict[int, Fraction], met: set[frozenset[int]]) -> int:
    """The fewest games between different scores of any pairing of ``players`` without a repeat."""
    if not players:
        return 0
    first, rest = players[0], players[1:]
    best = 99
    for other in rest:
        if frozenset((first, other)) in met:
            continue
        left = [p for p in rest if p != other]
        best = min(best, int(score[first] != score[other]) + fewest_floats(left, score, met))
    return best


def pairs_of(snap: Snapshot) -> list[frozenset[int]]:
    return [frozenset(p.players) for p in snap.pairings]


# ---- sign-up --------------------------------------------------------------------------------------


async def test_sign_up_join_leave_host_passes_and_start_rights(tours: Tournaments) -> None:
    tid = await signup(tours, 2)
    with pytest.raises(LobbyError):
        await tours.join(tid, 2, name(2))  # already in
    with pytest.raises(LobbyError):
        await tours.start(tid, 1)  # two players: too few
    await tours.join(tid, 3, name(3))
    with pytest.raises(NotAllowed):
        await tours.start(tid, 2)  # only the host
    t = await tours.leave(tid, 1)  # the host leaves: the next one in hosts
    assert t.host_id == 2 and [e.user_id for e in t.entrants] == [2, 3]
    with pytest.raises(NotAPlayer):
        await tours.leave(tid, 1)
    await tours.leave(tid, 2)
    t = await tours.leave(tid, 3)  # the last one out: cancelled
    assert t.status == "cancelled"
    with pytest.raises(GameOver):
        await tours.join(tid, 4, name(4))


async def test_opening_refuses_what_it_cannot_hold(tours: Tournaments) -> None:
    with pytest.raises(BadInput):
        await signup(tours, 1, "knockout")
    with pytest.raises(BadInput):
        await signup(tours, 1, ROUND_ROBIN, rounds=3)  # a round robin's rounds are its own
    with pytest.raises(BadInput):
        await signup(tours, 1, SWISS, table_size=9)  # procession takes at most 8


# ---- round robins ---------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [4, 5])
async def test_a_round_robin_meets_every_pair_once_and_ends_with_a_winner(
    tours: Tournaments, services: Services, database: str, n: int
) -> None:
    tid = await signup(tours, n)
    t = await tours.start(tid, 1)
    assert t.status == "running" and t.round == 1 and t.rounds == (n - 1 if n % 2 == 0 else n)
    first = await tours.snapshot(tid)
    live = [p for p in first.round_pairings(1)]
    assert len(live) == n // 2 and all(p.status == "live" for p in live)
    # Round 1's games are ordinary started games in the tournament's channel, rated as usual.
    for p in live:
        row = await services.games.storage.get_game(game_id=p.game_id or 0)
        assert row.status == "active" and row.channel_id == CHANNEL and list(row.seats) == list(p.players)
        assert row.timeout_s == t.timeout_s
    assert all(p.status == "scheduled" for p in first.pairings if p.round > 1)
    snap = await play_out(tours, tid)
    assert snap.tournament.status == "finished"
    pairs = pairs_of(snap)
    assert sorted(pairs, key=sorted) == sorted(
        (frozenset(c) for c in itertools.combinations(range(1, n + 1), 2)), key=sorted
    )
    byes = [b for players in snap.byes.values() for b in players]
    if n % 2:
        assert sorted(byes) == list(range(1, n + 1))  # each exactly one bye
        assert all(len(players) == 1 for players in snap.byes.values())
    else:
        assert byes == []
    check_standings(snap)
    # Player 1 won every game: the winner, named once by the final post owed.
    assert snap.winners() == [1]
    kinds = [
        k for (k,) in query(database, "SELECT kind FROM tournament_posts WHERE tournament_id = ?", (tid,))
    ]
    assert kinds.count("final") == 1 and kinds.count("round") == snap.tournament.rounds
    rated = query(database, "SELECT COUNT(*) FROM finished_games WHERE rated = 1")[0][0]
    assert rated == len(pairs)


async def test_shared_wins_and_sonneborn_berger_by_hand(tours: Tournaments) -> None:
    tid = await signup(tours, 4)
    await tours.start(tid, 1)

    def decide(p: Pairing) -> list[int]:
        a, b = sorted(p.players)
        if {a, b} == {2, 3}:
            return [2, 3]  # a draw: a win shared
        if {a, b} == {1, 4}:
            return [4]
        return [a]

    snap = await play_out(tours, tid, decide)
    points = {s.player: s.points for s in snap.standings}
    # 1 beat 2 and 3, lost to 4: 2. 2 lost to 1, drew 3, beat 4: 1.5. 3 lost to 1, drew 2, beat 4: 1.5.
    # 4 beat 1 only: 1.
    assert points == {1: 2, 2: Fraction(3, 2), 3: Fraction(3, 2), 4: 1}
    tie = {s.player: s.tie_break for s in snap.standings}
    assert tie[1] == Fraction(3, 2) + Fraction(3, 2)  # beat 2 and 3
    assert tie[2] == Fraction(1, 2) * Fraction(3, 2) + 1  # half of 3's, all of 4's
    assert tie[4] == 2  # beat 1
    check_standings(snap)
    assert [s.rank for s in snap.standings] == [1, 2, 2, 4]


# ---- Swiss ----------------------------------------------------------------------------------------


async def test_a_six_player_swiss_of_three_rounds(tours: Tournaments) -> None:
    tid = await signup(tours, 6, SWISS, rounds=3)
    await tours.start(tid, 1)
    snap = await tours.snapshot(tid)
    for rnd in (1, 2, 3):
        assert snap.tournament.round == rnd
        games = snap.round_pairings(rnd)
        assert len(games) == 3 and not snap.byes.get(rnd)
        # Score groups: the round is paired on the points before it, with as few games between
        # different scores as any pairing without a repeat can have (counted here by brute force).
        before = scoring.points(
            [e.user_id for e in snap.tournament.entrants],
            [scoring.Result(p.players, frozenset(p.winners)) for p in snap.pairings if p.round < rnd],
            [],
        )
        met = {frozenset(p.players) for p in snap.pairings if p.round < rnd}
        floats = [p for p in games if before[p.players[0]] != before[p.players[1]]]
        assert len(floats) == fewest_floats(sorted(before), before, met)
        assert all(abs(before[p.players[0]] - before[p.players[1]]) <= 1 for p in games)
        snap = await play_round(tours, tid)
    assert snap.tournament.status == "finished"
    pairs = pairs_of(snap)
    assert len(pairs) == 9 and len(set(pairs)) == 9  # never the same pair twice
    check_standings(snap)
    assert snap.tie_break == scoring.BUCHHOLZ and snap.winners() == [1]


async def test_an_odd_swiss_gives_the_bye_low_and_once_each(tours: Tournaments) -> None:
    tid = await signup(tours, 5, SWISS, rounds=4)
    await tours.start(tid, 1)
    snap = await play_out(tours, tid)
    byes = [b for players in snap.byes.values() for b in players]
    assert len(byes) == 4 and len(set(byes)) == 4  # one a round, at most one each
    assert snap.byes[1] == (5,)  # round 1: the lowest seed
    assert len(set(pairs_of(snap))) == len(snap.pairings)
    check_standings(snap)


# ---- tables of three or more ----------------------------------------------------------------------


async def test_tables_of_a_three_or_more_player_game_seat_by_score(
    tours: Tournaments, services: Services
) -> None:
    tid = await signup(tours, 7, SWISS, rounds=2, table_size=4)
    await tours.start(tid, 1)
    snap = await tours.snapshot(tid)
    sizes = sorted(len(p.players) for p in snap.round_pairings(1))
    assert sizes == [3, 4] and not snap.byes
    for p in snap.round_pairings(1):
        row = await services.games.storage.get_game(game_id=p.game_id or 0)
        assert len(row.seats) == len(p.players)
    snap = await play_round(tours, tid)  # the lowest id of each table wins
    winners = {w for p in snap.round_pairings(1) for w in p.winners}
    top = snap.round_pairings(2)[0]
    assert winners <= set(top.players)  # the top scores sit together
    snap = await play_round(tours, tid)
    assert snap.tournament.status == "finished"
    check_standings(snap)


# ---- withdrawals -----------------------------------------------------------------------------------


async def test_a_withdrawal_forfeits_the_live_game_and_credits_the_scheduled_ones(
    tours: Tournaments, services: Services
) -> None:
    tid = await signup(tours, 4)
    await tours.start(tid, 1)
    snap = await tours.snapshot(tid)
    mine = next(p for p in snap.round_pairings(1) if 4 in p.players)
    with pytest.raises(NotAPlayer):
        await tours.withdraw(tid, 9)
    t = await tours.leave(tid, 4)  # once started, leaving is withdrawing
    assert t.entrant(4) is not None and t.entrant(4).withdrawn == 1  # type: ignore[union-attr]
    snap = await tours.snapshot(tid)
    live = next(p for p in snap.pairings if p.game_id == mine.game_id)
    opponent = next(q for q in mine.players if q != 4)
    assert live.status == "done" and live.winners == (opponent,) and not live.forfeit  # played, forfeited
    row = await services.games.storage.get_game(game_id=mine.game_id or 0)
    assert row.status == "finished"
    later = [p for p in snap.pairings if p.round > 1 and 4 in p.players]
    assert len(later) == 2
    assert all(p.status == "done" and p.forfeit and 4 not in p.winners and len(p.winners) == 1 for p in later)
    with pytest.raises(NotAPlayer):
        await tours.withdraw(tid, 4)  # already out
    snap = await play_out(tours, tid)
    assert snap.tournament.status == "finished"
    # The games opened after the withdrawal never seat the withdrawn player.
    for p in snap.pairings:
        if p.round > 1 and p.game_id is not None:
            row = await services.games.storage.get_game(game_id=p.game_id)
            assert 4 not in row.seats
    check_standings(snap)
    left = {s.player: s for s in snap.standings}
    assert left[4].points == 0 and left[4].withdrawn and left[4].games_left == 0


async def test_a_swiss_skips_a_withdrawn_player(tours: Tournaments) -> None:
    tid = await signup(tours, 6, SWISS, rounds=3)
    await tours.start(tid, 1)
    await play_round(tours, tid)
    await tours.withdraw(tid, 6)
    snap = await tours.snapshot(tid)
    assert all(p.status == "done" for p in snap.round_pairings(2) if 6 in p.players)
    snap = await play_out(tours, tid)
    assert all(6 not in p.players for p in snap.pairings if p.round == 3)
    assert len(snap.byes.get(3, ())) == 1  # five left: one sits out
    check_standings(snap)


# ---- the cancel -----------------------------------------------------------------------------------


async def test_only_the_host_or_a_manager_cancels_and_live_games_go_with_it(
    tours: Tournaments, services: Services
) -> None:
    tid = await signup(tours, 4)
    await tours.start(tid, 1)
    with pytest.raises(NotAllowed):
        await tours.cancel(tid, 2, can_manage=False)
    t = await tours.cancel(tid, 2, can_manage=True)
    assert t.status == "cancelled"
    snap = await tours.snapshot(tid)
    for p in snap.round_pairings(1):
        row = await services.games.storage.get_game(game_id=p.game_id or 0)
        assert row.status == "cancelled"
    with pytest.raises(GameOver):
        await tours.cancel(tid, 1, can_manage=False)
    tid = await signup(tours, 3)
    assert (await tours.cancel(tid, 1, can_manage=False)).status == "cancelled"  # the host, in sign-up


# ---- across processes -----------------------------------------------------------------------------


async def test_two_processes_advance_a_round_exactly_once(tours: Tournaments, database: str) -> None:
    tid = await signup(tours, 6, SWISS, rounds=3)
    await tours.start(tid, 1)
    snap = await tours.snapshot(tid)
    for p in snap.round_pairings(1):
        await finish(tours.storage, p.game_id or 0, [min(p.players)])
    other = await Storage.open(database)
    try:
        elsewhere = Services.build(other, RULES)
        second = Tournaments(other, elsewhere.games)
        moved = await asyncio.gather(*(t.advance(tid) for t in (tours, second, tours, second)))
        assert any(moved)
        for t in (tours, second):
            await t.run_due()  # (the pass finds nothing more to do)
    finally:
        await other.close()
    snap = await tours.snapshot(tid)
    assert snap.tournament.round == 2 and len(snap.round_pairings(2)) == 3
    games = query(database, "SELECT COUNT(*) FROM games")[0][0]
    assert games == 6
    rounds = query(database, "SELECT COUNT(*) FROM tournament_posts WHERE kind = 'round' AND round = 2")
    assert rounds[0][0] == 1


async def test_a_cancelled_game_counts_as_lost_by_both(tours: Tournaments, services: Services) -> None:
    tid = await signup(tours, 3)
    await tours.start(tid, 1)
    snap = await tours.snapshot(tid)
    game = snap.round_pairings(1)[0]
    told: list[str] = []
    services.games.changes.listen(lambda g: told.append(g.row.status if g is not None else "-"))
    await services.lobby.cancel(game.game_id or 0, 1, can_manage=True)
    assert told == ["cancelled"]  # (the listeners are told: the desk looks at the round at once)
    snap = await tours.snapshot(tid)
    done = next(p for p in snap.pairings if p.game_id == game.game_id)
    assert done.status == "done" and done.winners == ()
    await tours.run_due()  # the round is over: the next opens
    assert (await tours.snapshot(tid)).tournament.round == 2


async def test_a_forgotten_player_leaves_their_tournaments_under_a_placeholder(tours: Tournaments) -> None:
    signing = await signup(tours, 4)
    tid = await signup(tours, 4)
    await tours.start(tid, 1)
    exported = await tours.storage.export_user(user_id=4, secret_kinds=[])
    assert [(e["tournament"], e["status"]) for e in exported["tournaments"]] == [  # type: ignore[index,union-attr]
        (signing, "signup"),
        (tid, "running"),
    ]
    placeholder, _, _, _ = await tours.storage.forget_user(user_id=4)
    assert [e.user_id for e in (await tours.get(signing)).entrants] == [1, 2, 3]  # out of the sign-up
    snap = await tours.snapshot(tid)
    gone = snap.tournament.entrant(placeholder)
    assert gone is not None and gone.withdrawn == 1 and gone.name == "Deleted player"
    assert all(4 not in p.players for p in snap.pairings)
    later = [p for p in snap.pairings if p.round > 1 and placeholder in p.players]
    assert len(later) == 2 and all(p.forfeit and placeholder not in p.winners for p in later)


async def test_a_withdrawal_at_a_table_forfeits_the_seat_and_the_others_play_on(
    tours: Tournaments, services: Services
) -> None:
    tid = await signup(tours, 7, SWISS, rounds=2, table_size=4)
    await tours.start(tid, 1)
    snap = await tours.snapshot(tid)
    table = next(p for p in snap.round_pairings(1) if len(p.players) == 4)
    leaving = table.players[-1]
    await tours.withdraw(tid, leaving)
    row = await services.games.storage.get_game(game_id=table.game_id or 0)
    assert row.status == "active"  # three play on
    snap = await play_out(tours, tid)
    done = next(p for p in snap.pairings if p.game_id == table.game_id)
    assert leaving not in done.winners
    assert all(leaving not in p.players for p in snap.round_pairings(2))
    check_standings(snap)


async def test_two_processes_starting_at_once_open_round_one_once(tours: Tournaments, database: str) -> None:
    tid = await signup(tours, 4)
    other = await Storage.open(database)
    try:
        second = Tournaments(other, Services.build(other, RULES).games)
        outcomes = await asyncio.gather(tours.start(tid, 1), second.start(tid, 1), return_exceptions=True)
    finally:
        await other.close()
    assert sum(not isinstance(o, BaseException) for o in outcomes) >= 1
    assert all(isinstance(o, LobbyError) for o in outcomes if isinstance(o, BaseException))
    assert query(database, "SELECT COUNT(*) FROM games")[0][0] == 2
    assert query(database, "SELECT COUNT(*) FROM tournament_games WHERE tournament_id = ?", (tid,))[0][0] == 6


async def test_the_card_waits_for_its_grace_only_while_nothing_changed(
    tours: Tournaments, database: str
) -> None:
    def card_due(tid: int) -> list[float]:
        rows = query(
            database, "SELECT not_before - created_at FROM tournament_posts WHERE tournament_id = ?", (tid,)
        )
        return [float(r[0]) for r in rows]

    t = await tours.open(
        kind=KIND, format=ROUND_ROBIN, guild_id=GUILD, channel_id=CHANNEL, host_id=1, host_name="A"
    )
    assert card_due(t.id) == [CARD_GRACE]  # (the command's answer may still record it)
    await tours.set_card(t.id, 777)
    assert len(card_due(t.id)) == 1 and card_due(t.id)[0] < 1  # recorded: due now
    assert (await tours.get(t.id)).card_message_id == 777
    t = await tours.open(
        kind=KIND, format=ROUND_ROBIN, guild_id=GUILD, channel_id=CHANNEL, host_id=1, host_name="A"
    )
    await tours.join(t.id, 2, "B")  # a change: the one card post owed is due now
    assert len(card_due(t.id)) == 1 and card_due(t.id)[0] < 1


class Crashing(Forfeiting):
    """A process that dies between a withdrawal and its forfeit."""

    async def forfeit(self, game_id: int, user_id: int) -> None:
        raise ConnectionError("gone")


async def test_after_a_restart_the_pass_finishes_what_was_left(
    tours: Tournaments, services: Services, database: str
) -> None:
    tid = await signup(tours, 4)
    await tours.start(tid, 1)
    tours.attach(Crashing(services))
    await tours.withdraw(tid, 4)  # committed; its live game not forfeited (the process "died")
    snap = await tours.snapshot(tid)
    mine = next(p for p in snap.round_pairings(1) if 4 in p.players)
    assert mine.status == "live"
    other = next(p for p in snap.round_pairings(1) if 4 not in p.players)
    await finish(tours.storage, other.game_id or 0, [min(other.players)])  # nobody moves the round on
    # A new process over the same database: its pass forfeits the game and opens round 2.
    storage = await Storage.open(database)
    try:
        again = Services.build(storage, RULES)
        restarted = Tournaments(storage, again.games)
        restarted.attach(Forfeiting(again))
        await restarted.run_due()
        snap = await restarted.snapshot(tid)
    finally:
        await storage.close()
    done = next(p for p in snap.pairings if p.game_id == mine.game_id)
    assert done.status == "done" and 4 not in done.winners
    assert snap.tournament.round == 2 and all(
        p.status == "live" for p in snap.round_pairings(2) if not p.forfeit
    )


async def test_a_swiss_down_to_two_lets_them_meet_once_then_ends(tours: Tournaments) -> None:
    tid = await signup(tours, 4, SWISS, rounds=3)
    await tours.start(tid, 1)
    first = {frozenset(p.players) for p in (await tours.snapshot(tid)).round_pairings(1)}
    assert frozenset({1, 2}) not in first
    await tours.withdraw(tid, 3)  # both in round 1: their games forfeited, the round over
    await tours.withdraw(tid, 4)
    snap = await tours.snapshot(tid)
    assert [set(p.players) for p in snap.round_pairings(2)] == [{1, 2}] and not snap.byes.get(2)
    snap = await play_out(tours, tid)
    assert snap.tournament.status == "finished" and snap.tournament.round == 2  # no pairing left: the end
    check_standings(snap)


async def test_finding_a_players_a_channels_and_a_games_tournament(tours: Tournaments) -> None:
    old = await signup(tours, 3)
    await tours.cancel(old, 1, can_manage=False)
    tid = await signup(tours, 3)
    await tours.start(tid, 1)
    assert [t.id for t in await tours.in_channel(CHANNEL)] == [tid, old]  # the live one first
    assert [t.id for t in await tours.for_player(2, GUILD)] == [tid]
    assert await tours.for_player(2, GUILD + 1) == [] and await tours.for_player(9, GUILD) == []
    game = (await tours.snapshot(tid)).round_pairings(1)[0]
    found = await tours.of_game(game.game_id or 0)
    assert found is not None and found.id == tid
    assert await tours.of_game(10**6) is None
    with pytest.raises(BadInput):
        await tours.get(10**6)


async def test_a_post_is_claimed_by_one_process_and_gone_once_carried(
    tours: Tournaments, database: str
) -> None:
    tid = await signup(tours, 3)
    await tours.start(tid, 1)
    posts = await tours.storage.due_posts(now=10**10, holder="a")
    assert sorted(p.kind for p in posts) == ["card", "round"] and {
        p.round for p in posts if p.kind == "round"
    } == {1}
    post = posts[0]
    now = clock.now() + 1
    other = await Storage.open(database)
    try:
        claims = await asyncio.gather(
            tours.storage.claim_post(post_id=post.id, holder="a", now=now, until=now + 100),
            other.claim_post(post_id=post.id, holder="b", now=now, until=now + 100),
        )
        assert sorted(claims) == [False, True]
        winner = "a" if claims[0] else "b"

        def due(at: float, holder: str) -> Awaitable[list[TournamentPost]]:
            return other.due_posts(now=now + at, holder=holder)

        assert post.id not in {p.id for p in await due(50, "c")}  # held
        assert post.id in {p.id for p in await due(50, winner)}  # its holder's, again (a restart)
        assert post.id in {p.id for p in await due(200, "c")}  # expired: anyone's
        await other.finish_post(post_id=post.id, tournament_id=tid)
    finally:
        await other.close()
    assert post.id not in {p.id for p in await tours.storage.pending_posts(tournament_id=tid)}
