"""Storage and the game service, below Discord: lobbies, seats, turns, the move log and replay."""

from __future__ import annotations

import asyncio

import pytest

from bot.errors import (
    GameOver,
    IllegalMove,
    LobbyError,
    NoGameHere,
    NotAllowed,
    NotAPlayer,
    NotYourTurn,
    StaleButton,
    WhichGame,
)
from bot.registry import RULES
from bot.service import GameCache, Services
from bot.storage import MIGRATIONS, DmLink, StaleVersion, Storage

# The tests taking `database` run on SQLite and on PostgreSQL (tests/conftest.py).
pytestmark = pytest.mark.both_dbs


@pytest.fixture
async def service(database: str):
    storage = await Storage.open(database)
    yield Services.build(storage, RULES)
    await storage.close()


async def lobby(service: Services, channel: int = 100, n: int = 5, players: int = 2):
    game = (
        await service.lobby.open_lobby(
            kind="procession", guild_id=1, channel_id=channel, host_id=10, host_name="Ann", options={"n": n}
        )
    ).game
    for i in range(1, players):
        game = (await service.lobby.join(game.id, 10 + i, f"P{i}")).game
    return game


async def test_migrations_are_numbered_and_idempotent(database: str) -> None:
    path = database
    storage = await Storage.open(path)
    assert await storage.schema_version() == len(MIGRATIONS)
    await storage.close()
    storage = await Storage.open(path)  # a second start applies nothing and fails nothing
    assert await storage.schema_version() == len(MIGRATIONS)
    await storage.close()


async def test_a_channel_holds_several_games_and_commands_find_the_callers(service: Services) -> None:
    first = await lobby(service, channel=100)
    second = await lobby(service, channel=100)
    assert [g.id for g in await service.finder.live_at(100)] == [first.id, second.id]
    # Host 10 sits in both: a command cannot tell which one is meant, and says so, naming both.
    with pytest.raises(WhichGame, match=f"#{first.id} and #{second.id}") as which:
        await service.finder.game_here(100, 10)
    assert which.value.game_ids == (first.id, second.id)
    # A preference narrows it down; then the caller's seat does.
    assert (await service.finder.game_here(100, 10, prefer=[lambda row: row.id == second.id])).id == second.id
    await service.lobby.cancel(first.id, 10, can_manage=False)
    assert (await service.finder.game_here(100, 10)).id == second.id  # a cancelled game is not live
    other = await lobby(service, channel=101)  # a thread has its own games
    assert (await service.finder.game_here(101, 10)).id == other.id


async def test_a_game_moved_to_its_thread_is_found_there_and_pointed_to_from_the_channel(
    service: Services,
) -> None:
    game = await lobby(service, channel=100)
    await service.games.set_messages(game.id, lobby_message_id=555, place_id=555)
    assert (await service.finder.game_here(555, 10)).id == game.id
    with pytest.raises(WhichGame, match="<#555>"):
        await service.finder.game_here(100, 10)  # the caller's own game, in its thread
    with pytest.raises(NoGameHere):
        await service.finder.game_here(100, 99)  # somebody else's game: nothing here for them
    # The same, read afresh from storage (a new process).
    fresh = Services.build(service.games.storage, RULES)
    assert (await fresh.finder.game_here(555, 10)).id == game.id
    assert [g.id for g in await fresh.finder.live_at(100)] == [game.id]


async def test_a_game_is_found_in_the_thread_of_its_card_before_the_thread_is_recorded(
    service: Services,
) -> None:
    """A thread started from a message has the message's id: a command used in a game's new thread,
    before the thread is written down as the game's place, finds the game (not "no game here")."""
    game = await lobby(service, channel=100)
    await service.games.set_messages(game.id, lobby_message_id=555)
    started = await service.lobby.start(game.id, 10, place="thread")
    assert started.game.row.place_id == 100  # the thread is not recorded yet
    assert (await service.finder.game_here(555, 11)).id == game.id
    assert (await service.finder.game_here(100, 10)).id == game.id  # and in the channel, until then
    fresh = Services.build(service.games.storage, RULES)  # the same, read afresh from storage (a new process)
    assert (await fresh.finder.game_here(555, 11)).id == game.id
    # Played in place (no thread asked for), the card's id is no place of the game's.
    other = await lobby(service, channel=200)
    await service.games.set_messages(other.id, lobby_message_id=777)
    await service.lobby.start(other.id, 10, place="off")
    with pytest.raises(NoGameHere):
        await Services.build(service.games.storage, RULES).finder.game_here(777, 11)


async def test_lobby_seats_host_and_limits(service: Services) -> None:
    game = await lobby(service, players=1)
    with pytest.raises(LobbyError, match="at least 2"):
        await service.lobby.start(game.id, 10)
    game = (await service.lobby.join(game.id, 11, "Bea")).game
    with pytest.raises(LobbyError, match="already"):
        await service.lobby.join(game.id, 11, "Bea")
    with pytest.raises(NotAllowed, match="host"):
        await service.lobby.start(game.id, 11)
    game = (await service.lobby.leave_lobby(game.id, 10)).game
    assert game.row.host_id == 11 and game.row.seats == (11,)
    for uid in range(20, 27):
        game = (await service.lobby.join(game.id, uid, f"U{uid}")).game
    with pytest.raises(LobbyError, match="full"):
        await service.lobby.join(game.id, 99, "late")
    game = (await service.lobby.start(game.id, 11)).game
    assert game.row.status == "active" and game.state.n_players == 8
    with pytest.raises(LobbyError, match="started"):
        await service.lobby.join(game.id, 98, "later")


async def test_the_last_one_out_closes_the_lobby(service: Services) -> None:
    game = await lobby(service, players=1)
    game = (await service.lobby.leave_lobby(game.id, 10)).game
    assert game.row.status == "cancelled"


async def test_moves_are_checked_logged_and_replayed(service: Services) -> None:
    game = await lobby(service, players=3)
    game = (await service.lobby.start(game.id, 10)).game
    with pytest.raises(NotAPlayer):
        await service.moves.act(game.id, 99, {"type": "flip", "position": 1})
    with pytest.raises(NotYourTurn):
        await service.moves.act(game.id, 11, {"type": "flip", "position": 1})
    result = await service.moves.act(game.id, 10, {"type": "flip", "position": 4})
    with pytest.raises(StaleButton):
        await service.moves.act(
            game.id, 11, {"type": "flip", "position": 1}, expected_version=result.before.row.version
        )
    with pytest.raises(IllegalMove):  # flipping 4 back to 00000 repeats {5}
        await service.moves.act(game.id, 11, {"type": "flip", "position": 4})
    unchanged = await service.games.get(game.id)
    assert unchanged.row.version == result.after.row.version
    for user, position in [(11, 1), (12, 5), (10, 1)]:
        await service.moves.act(game.id, user, {"type": "flip", "position": position})
    await service.moves.forfeit(game.id, 11)
    game = await service.games.get(game.id)
    assert await service.history.replay(game.id) == game.state
    moves = await service.games.storage.moves(game_id=game.id)
    assert [m.action["type"] for m in moves] == ["flip"] * 4 + ["forfeit"]


async def test_a_finished_game_records_its_result(service: Services) -> None:
    game = (await service.lobby.start((await lobby(service)).id, 10)).game
    for user, position in [(10, 4), (11, 1), (10, 5), (11, 1), (10, 4)]:
        result = await service.moves.act(game.id, user, {"type": "flip", "position": position})
    assert result.after.row.status == "finished"
    assert result.after.row.result == {
        "winners": [0],
        "reason": result.after.rules.outcome(result.after.state).reason,
        "scores": None,
        "draw": False,
    }
    with pytest.raises(GameOver):
        await service.moves.act(game.id, 11, {"type": "flip", "position": 1})


async def test_compare_and_swap_refuses_a_stale_version(service: Services) -> None:
    game = (await service.lobby.start((await lobby(service)).id, 10)).game
    await service.moves.act(game.id, 10, {"type": "flip", "position": 1})
    with pytest.raises(StaleVersion):
        await service.games.storage.record_move(
            game_id=game.id, expected_version=game.row.version, seat=0, action={"type": "flip"}, state={}
        )


async def test_racing_moves_apply_once(service: Services) -> None:
    game = (await service.lobby.start((await lobby(service)).id, 10)).game
    results = await asyncio.gather(
        *[service.moves.act(game.id, 10, {"type": "flip", "position": 2}) for _ in range(5)],
        return_exceptions=True,
    )
    assert sum(not isinstance(r, BaseException) for r in results) == 1
    assert all(isinstance(r, NotYourTurn) for r in results if isinstance(r, BaseException))
    assert len(await service.games.storage.moves(game_id=game.id)) == 1


async def test_cancel_needs_host_or_manage_messages(service: Services) -> None:
    game = (await service.lobby.start((await lobby(service)).id, 10)).game
    with pytest.raises(NotAllowed):
        await service.lobby.cancel(game.id, 11, can_manage=False)
    game = (await service.lobby.cancel(game.id, 11, can_manage=True)).game
    assert game.row.status == "cancelled"
    with pytest.raises(GameOver):
        await service.lobby.cancel(game.id, 10, can_manage=True)


# ---- the parsed states kept in memory ------------------------------------------------------------


async def test_a_parsed_state_is_reused_only_for_its_own_version(service: Services) -> None:
    game = (await service.lobby.start((await lobby(service)).id, 10)).game
    again = await service.games.get(game.id)
    assert again.state is game.state  # the same version: parsed once
    moved = await service.moves.act(game.id, game.row.seats[0], {"type": "flip", "position": 1})
    latest = await service.games.get(game.id)
    assert latest.state is moved.after.state and latest.state != game.state


async def test_a_move_read_back_does_not_forget_a_board_or_thread_not_yet_stored(
    service: Services,
) -> None:
    """The outbox tells the cache of a new board (or the game's thread) at once and stores it a moment
    later; a move committed meanwhile reads back the older row, which must not undo what is known."""
    game = (await service.lobby.start((await lobby(service)).id, 10)).game
    service.games.cache.set_messages(game.id, lobby_message_id=None, board_message_id=900, place_id=555)
    await service.moves.act(game.id, 10, {"type": "flip", "position": 1})
    row = (await service.games.get(game.id)).row
    assert (row.board_message_id, row.place_id, row.thread_id) == (900, 555, 555)
    assert [g.id for g in await service.finder.live_at(555)] == [game.id]
    # A later board (a larger id) replaces it; an older one read from storage does not.
    service.games.cache.set_messages(game.id, lobby_message_id=None, board_message_id=901)
    service.games.load(await service.games.storage.get_game(game_id=game.id))
    assert (await service.games.get(game.id)).row.board_message_id == 901


async def test_a_failed_write_does_not_forget_a_board_not_yet_stored(database: str) -> None:
    """Shared (two processes), a board this process posted is stored when it gives the game's outbox
    lease up. A move refused meanwhile (the other process moved first) evicts the game from the cache;
    the row read next still names the newer board, and so does a board posted while it is out of the
    cache (else a quiet move's edit lands on an older board: found by bench/crash_safety.py)."""
    one = await Storage.open(database)
    two = await Storage.open(database)
    try:
        # (``a`` trusts its cache, so its move is checked by the write itself, which fails.)
        a, b = Services.build(one, RULES), Services.build(two, RULES, shared=True)
        game = (await a.lobby.start((await lobby(a)).id, 10)).game
        a.games.cache.set_messages(game.id, lobby_message_id=None, board_message_id=900)
        mover = game.state.turn
        await b.moves.act(game.id, 10 + mover, {"type": "flip", "position": 1})
        with pytest.raises(StaleVersion):
            await a.moves.act(game.id, 10 + mover, {"type": "flip", "position": 2})
        assert a.games.cache.get(game.id) is None  # evicted
        assert (await a.games.get(game.id)).row.board_message_id == 900
        a.games.cache.evict(game.id)
        a.games.cache.set_messages(game.id, lobby_message_id=None, board_message_id=901)
        assert (await a.games.get(game.id)).row.board_message_id == 901
    finally:
        await one.close()
        await two.close()


async def test_shared_services_never_answer_from_a_stale_row(database: str) -> None:
    """Two processes on one database (`shared`): what one writes, the other reads at once (its games,
    a channel's live games), and a move there is checked against the current version."""
    one = await Storage.open(database)
    two = await Storage.open(database)
    try:
        a, b = Services.build(one, RULES, shared=True), Services.build(two, RULES, shared=True)
        game = await lobby(a, channel=100)
        assert [g.id for g in await b.finder.live_at(100)] == [game.id]  # b caches nothing yet, reads it
        await b.lobby.start(game.id, 10)
        assert (await a.games.get(game.id)).row.status == "active"  # a's cached lobby row is not served
        mover = (await a.games.get(game.id)).state.turn
        await a.moves.act(game.id, 10 + mover, {"type": "flip", "position": 1})
        assert len((await b.games.get(game.id)).state.rows) == 2
        second = await lobby(b, channel=100)
        assert [g.id for g in await a.finder.live_at(100)] == [game.id, second.id]  # b's new lobby, untold
        # A move a made from a row b has since changed is refused, not applied over b's.
        unshared = Services.build(one, RULES)
        seen = await unshared.games.get(game.id)
        mover = (await b.games.get(game.id)).state.turn
        await b.moves.act(game.id, 10 + mover, {"type": "flip", "position": 2})
        with pytest.raises(StaleVersion):
            await unshared.moves.act(game.id, 10 + seen.state.turn, {"type": "flip", "position": 3})
    finally:
        await one.close()
        await two.close()


def test_a_deleted_persons_dm_links_leave_the_cache() -> None:
    cache = GameCache()
    cache.put_link(DmLink(7, 11, False, 500, 600))
    cache.put_link(DmLink(8, 11, True, None, None))
    cache.put_link(DmLink(7, 12, False, 501, 601))
    cache.forget_links_of(11)
    assert cache.link(7, 11) is None and cache.link(8, 11) is None
    assert cache.link(7, 12) == DmLink(7, 12, False, 501, 601)
