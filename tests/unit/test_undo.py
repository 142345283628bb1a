"""Takebacks below Discord: the log replayed without a move taken back (pure), which move a player
may take back, the takeback's transaction (the move marked, the state and version, the waits), the
history's versions around it, and the requests' storage (one pending per game, acceptances and
answers compared-and-swapped, expiry, computers' grants). On SQLite and on PostgreSQL."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from bot.errors import GameError
from bot.jsontypes import JSONObject
from bot.registry import GAMES, RULES
from bot.rules import play, replay
from bot.service import Loaded, Services
from bot.service.undo import Takebacks
from bot.storage import StaleVersion, Storage
from bot.storage.driver import Rows, Txn, fetch
from bot.table.boards import Boards, headline_of
from bot.table.catalog import GameKind

pytestmark = pytest.mark.both_dbs

ALICE, BOB = 11, 12


@dataclass(frozen=True)
class Entry:
    seat: int
    action: JSONObject
    undone: int | None = None


def test_a_log_replays_without_the_moves_taken_back() -> None:
    rules = RULES["procession"]
    start = rules.new_game(2, {"n": 5}, 1)
    first = rules.legal_actions(start, 0)[0]
    after_first = play(rules, start, 0, first)
    second = rules.legal_actions(after_first, 1)[0]
    after_second = play(rules, after_first, 1, second)
    assert replay(rules, start, [Entry(0, first), Entry(1, second)]) == after_second
    assert replay(rules, start, [Entry(0, first), Entry(1, second, undone=4)]) == after_first
    # A move made after a takeback follows the position before the move taken back.
    again = rules.legal_actions(after_first, 1)[-1]
    log = [Entry(0, first), Entry(1, second, undone=4), Entry(1, again)]
    assert replay(rules, start, log) == play(rules, after_first, 1, again)


async def two_players(storage: Storage, channel: int = 100) -> tuple[Services, Loaded]:
    services = Services.build(storage, RULES)
    lobby = await services.lobby.open_lobby(
        kind="procession", guild_id=1, channel_id=channel, host_id=ALICE, host_name="Alice", options={"n": 5}
    )
    await services.lobby.join(lobby.game.id, BOB, "Bob")
    started = await services.lobby.start(lobby.game.id, ALICE)
    return services, started.game


async def flip(services: Services, game_id: int, user: int) -> Loaded:
    game = await services.games.get(game_id)
    seat = game.row.seat_of(user)
    assert seat is not None
    action = game.rules.legal_actions(game.state, seat)[0]
    return (await services.moves.act(game_id, user, action)).after


async def test_a_takeback_marks_the_move_and_rebuilds_the_state(storage: Storage) -> None:
    services, game = await two_players(storage)
    takebacks = Takebacks(services.games)
    with pytest.raises(GameError, match="no move to take back"):
        await takebacks.last_move(game, ALICE)
    start = game.state
    moved = await flip(services, game.id, ALICE)
    with pytest.raises(GameError, match="no move to take back"):
        await takebacks.last_move(moved, BOB)
    seat, move, log = await takebacks.last_move(moved, ALICE)
    assert (seat, move.seq) == (0, 1)
    draft = takebacks.draft(moved, seat, move, log)
    assert draft.after.state == start and draft.undone

    def clock() -> Txn[Rows]:
        return fetch("SELECT seat, moves FROM move_clock WHERE game_id = ?", (game.id,))

    assert await storage.driver.read(clock()) == [(0, 1)]
    done = await takebacks.commit(draft, move.seq, [], request_id=None)
    assert done.after.row.version == moved.row.version + 1
    assert await storage.driver.read(clock()) == [(0, 0)]  # /game stats counts it no more
    assert [(m.seq, m.undone) for m in await storage.moves(game_id=game.id)] == [(1, moved.row.version + 1)]
    assert [w.seat for w in await storage.waits_of_game(game_id=game.id)] == [0]  # alice's move again
    exported = await storage.export_user(user_id=BOB)
    assert exported["games"][0]["moves"][0]["taken_back"] is True  # (a person's copy says so too)
    # Taken back once, it is not taken back twice (the same draft again: the version moved on).
    with pytest.raises(StaleVersion):
        await takebacks.commit(draft, move.seq, [], request_id=None)

    # Play goes on; the history gives each version its change: the move, the takeback, the next moves.
    again = await flip(services, game.id, ALICE)
    after_bob = await flip(services, game.id, BOB)
    assert await services.history.replay(game.id) == after_bob.state
    history = await services.history.history(game.id)
    versions = [step.version for step in history.steps]
    assert versions == list(range(history.start_version + 1, after_bob.row.version + 1))
    taken = history.step(moved.row.version + 1)
    assert taken.undone and taken.before == moved.state and taken.after == start
    assert history.step(again.row.version).before == start
    # A board drawn late for the takeback's version (after a restart: from the log) says what it is.
    kind = GameKind.of(GAMES["procession"])
    news = Boards._news(kind, taken)
    assert news.undone and news.seat == 0
    table = kind.table(after_bob, taken.after, version=taken.version)
    assert headline_of(kind, news, table) == (
        f"↩️ <@{ALICE}>'s last move is taken back, as the others agreed: the position before it is back."
    )
    # Bob moved since alice's move: hers stays.
    with pytest.raises(GameError, match="after your last one"):
        await takebacks.last_move(after_bob, ALICE)


async def test_requests_one_pending_answers_compared_and_expiry(storage: Storage) -> None:
    services, game = await two_players(storage)
    moved = await flip(services, game.id, ALICE)
    version = moved.row.version
    first, closed = await storage.open_undo_request(
        game_id=game.id, seat=0, seq=1, version=version, now=100.0, expires_at=3700.0
    )
    assert first is not None and closed == [] and first.status == "pending" and first.accepted == ()
    # One pending request per game.
    again, _ = await storage.open_undo_request(
        game_id=game.id, seat=0, seq=1, version=version, now=200.0, expires_at=3800.0
    )
    assert again is None
    assert (await storage.pending_undo(game_id=game.id)) == first
    await storage.set_undo_message(request_id=first.id, channel_id=5, message_id=6)
    # Acceptances are compared-and-swapped: a second process working from the old list fails.
    assert await storage.accept_undo(request_id=first.id, seat=1, accepted=())
    assert not await storage.accept_undo(request_id=first.id, seat=2, accepted=())
    stored = await storage.undo_request(request_id=first.id)
    assert stored is not None and stored.accepted == (1,) and (stored.channel_id, stored.message_id) == (5, 6)
    # Due after its hour; closed once, by whoever is first.
    assert await storage.due_undo_requests(now=3699.0) == []
    assert [r.id for r in await storage.due_undo_requests(now=3700.0)] == [first.id]
    assert await storage.close_undo(request_id=first.id, status="expired")
    assert not await storage.close_undo(request_id=first.id, status="declined", answered_by=1)
    assert await storage.pending_undo(game_id=game.id) is None

    # A pending request the game has moved past is closed by the next one (its message to be edited).
    second, _ = await storage.open_undo_request(
        game_id=game.id, seat=0, seq=1, version=version, now=4000.0, expires_at=7600.0
    )
    assert second is not None
    third, closed = await storage.open_undo_request(
        game_id=game.id, seat=1, seq=2, version=version + 1, now=4100.0, expires_at=7700.0
    )
    assert third is not None and [(r.id, r.status) for r in closed] == [(second.id, "lapsed")]

    # Accepted: the takeback closes the request and remembers the computers that agreed.
    takebacks = Takebacks(services.games)
    seat, move, log = await takebacks.last_move(moved, ALICE)
    await storage.close_undo(request_id=third.id, status="declined", answered_by=0)
    fourth, _ = await storage.open_undo_request(
        game_id=game.id, seat=seat, seq=move.seq, version=version, now=5000.0, expires_at=8600.0
    )
    assert fourth is not None
    draft = takebacks.draft(moved, seat, move, log)
    await takebacks.commit(draft, move.seq, [], request_id=fourth.id, granted=(1,))
    closed_request = await storage.undo_request(request_id=fourth.id)
    assert closed_request is not None and closed_request.status == "accepted"
    assert await storage.undo_grants(game_id=game.id) == {1}
