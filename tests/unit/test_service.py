"""Storage and the game service, below Discord: lobbies, seats, turns, the move log and replay."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.errors import (
    ChannelBusy,
    GameOver,
    IllegalMove,
    LobbyError,
    NotAllowed,
    NotAPlayer,
    NotYourTurn,
    StaleButton,
)
from bot.service import GameService
from bot.storage import MIGRATIONS, StaleVersion, Storage


@pytest.fixture
async def service(tmp_path: Path):
    storage = await Storage.open(str(tmp_path / "games.sqlite3"))
    yield GameService(storage)
    await storage.close()


async def lobby(service: GameService, channel: int = 100, n: int = 5, players: int = 2):
    game = await service.open_lobby(
        kind="procession", guild_id=1, channel_id=channel, host_id=10, host_name="Ann", options={"n": n}
    )
    for i in range(1, players):
        game = await service.join(game.id, 10 + i, f"P{i}")
    return game


async def test_migrations_are_numbered_and_idempotent(tmp_path: Path) -> None:
    path = str(tmp_path / "db.sqlite3")
    storage = await Storage.open(path)
    assert await storage.schema_version() == len(MIGRATIONS)
    await storage.close()
    storage = await Storage.open(path)  # a second start applies nothing and fails nothing
    assert await storage.schema_version() == len(MIGRATIONS)
    await storage.close()


async def test_one_live_game_per_channel_but_threads_are_channels(service: GameService) -> None:
    game = await lobby(service, channel=100)
    with pytest.raises(ChannelBusy, match=f"#{game.id}"):
        await lobby(service, channel=100)
    other = await lobby(service, channel=101)  # a thread has its own channel id
    assert other.id != game.id
    await service.cancel(game.id, 10, can_manage=False)
    again = await lobby(service, channel=100)  # a cancelled game frees the channel
    assert again.row.status == "lobby"


async def test_lobby_seats_host_and_limits(service: GameService) -> None:
    game = await lobby(service, players=1)
    with pytest.raises(LobbyError, match="at least 2"):
        await service.start(game.id, 10)
    game = await service.join(game.id, 11, "Bea")
    with pytest.raises(LobbyError, match="already"):
        await service.join(game.id, 11, "Bea")
    with pytest.raises(NotAllowed, match="host"):
        await service.start(game.id, 11)
    game = await service.leave_lobby(game.id, 10)
    assert game.row.host_id == 11 and game.row.seats == (11,)
    for uid in range(20, 27):
        game = await service.join(game.id, uid, f"U{uid}")
    with pytest.raises(LobbyError, match="full"):
        await service.join(game.id, 99, "late")
    game = await service.start(game.id, 11)
    assert game.row.status == "active" and game.state.n_players == 8
    with pytest.raises(LobbyError, match="started"):
        await service.join(game.id, 98, "later")


async def test_the_last_one_out_closes_the_lobby(service: GameService) -> None:
    game = await lobby(service, players=1)
    game = await service.leave_lobby(game.id, 10)
    assert game.row.status == "cancelled"


async def test_moves_are_checked_logged_and_replayed(service: GameService) -> None:
    game = await lobby(service, players=3)
    game = await service.start(game.id, 10)
    with pytest.raises(NotAPlayer):
        await service.act(game.id, 99, {"type": "flip", "position": 1})
    with pytest.raises(NotYourTurn):
        await service.act(game.id, 11, {"type": "flip", "position": 1})
    result = await service.act(game.id, 10, {"type": "flip", "position": 4})
    with pytest.raises(StaleButton):
        await service.act(
            game.id, 11, {"type": "flip", "position": 1}, expected_version=result.before.row.version
        )
    with pytest.raises(IllegalMove):  # flipping 4 back to 00000 repeats {5}
        await service.act(game.id, 11, {"type": "flip", "position": 4})
    unchanged = await service.get(game.id)
    assert unchanged.row.version == result.after.row.version
    for user, position in [(11, 1), (12, 5), (10, 1)]:
        await service.act(game.id, user, {"type": "flip", "position": position})
    await service.forfeit(game.id, 11)
    game = await service.get(game.id)
    assert await service.replay(game.id) == game.state
    moves = await service.storage.moves(game_id=game.id)
    assert [m.action["type"] for m in moves] == ["flip"] * 4 + ["forfeit"]


async def test_a_finished_game_records_its_result(service: GameService) -> None:
    game = await service.start((await lobby(service)).id, 10)
    for user, position in [(10, 4), (11, 1), (10, 5), (11, 1), (10, 4)]:
        result = await service.act(game.id, user, {"type": "flip", "position": position})
    assert result.after.row.status == "finished"
    assert result.after.row.result == {
        "winners": [0],
        "reason": result.after.rules.outcome(result.after.state).reason,
        "scores": None,
        "draw": False,
    }
    with pytest.raises(GameOver):
        await service.act(game.id, 11, {"type": "flip", "position": 1})


async def test_compare_and_swap_refuses_a_stale_version(service: GameService) -> None:
    game = await service.start((await lobby(service)).id, 10)
    await service.act(game.id, 10, {"type": "flip", "position": 1})
    with pytest.raises(StaleVersion):
        await service.storage.record_move(
            game_id=game.id, expected_version=game.row.version, seat=0, action={"type": "flip"}, state={}
        )


async def test_racing_moves_apply_once(service: GameService) -> None:
    game = await service.start((await lobby(service)).id, 10)
    results = await asyncio.gather(
        *[service.act(game.id, 10, {"type": "flip", "position": 2}) for _ in range(5)], return_exceptions=True
    )
    assert sum(not isinstance(r, BaseException) for r in results) == 1
    assert all(isinstance(r, NotYourTurn) for r in results if isinstance(r, BaseException))
    assert len(await service.storage.moves(game_id=game.id)) == 1


async def test_cancel_needs_host_or_manage_messages(service: GameService) -> None:
    game = await service.start((await lobby(service)).id, 10)
    with pytest.raises(NotAllowed):
        await service.cancel(game.id, 11, can_manage=False)
    game = await service.cancel(game.id, 11, can_manage=True)
    assert game.row.status == "cancelled"
    with pytest.raises(GameOver):
        await service.cancel(game.id, 10, can_manage=True)


# ---- the in-memory copies of game rows and states ----------------------------------------------------


async def test_cached_rows_follow_every_write_and_match_the_database(tmp_path: Path) -> None:
    path = str(tmp_path / "games.sqlite3")
    storage = await Storage.open(path)
    try:
        service = GameService(storage)
        game = await service.start((await lobby(service)).id, 10)
        await storage.set_messages(game_id=game.id, board_message_id=555)
        moved = await service.act(game.id, game.row.seats[0], {"type": "flip", "position": 1})
        await storage.set_messages(game_id=game.id, board_message_id=556, lobby_message_id=9)
        cached = await storage.get_game(game_id=game.id)
        assert (cached.version, cached.board_message_id, cached.lobby_message_id) == (
            moved.after.row.version,
            556,
            9,
        )
        assert cached.state == moved.after.row.state
        # A refused write (stale version) leaves no half-written copy behind.
        with pytest.raises(StaleVersion):
            await storage.record_move(
                game_id=game.id, expected_version=cached.version - 1, seat=1, action={"type": "x"}, state={}
            )
        assert await storage.get_game(game_id=game.id) == cached
    finally:
        await storage.close()
    fresh = await Storage.open(path)  # what a restarted bot reads from the file
    try:
        assert await fresh.get_game(game_id=game.id) == cached
    finally:
        await fresh.close()


async def test_the_row_cache_is_bounded(service: GameService, monkeypatch: pytest.MonkeyPatch) -> None:
    import bot.storage

    monkeypatch.setattr(bot.storage, "GAME_CACHE_SIZE", 3)
    ids = [(await lobby(service, channel=200 + i)).id for i in range(6)]
    assert list(service.storage._rows) == ids[-3:]  # the least recently used went first
    first = await service.get(ids[0])  # read back from the database
    assert first.row.status == "lobby" and first.row.seats == (10, 11)
    assert len(service.storage._rows) == 3


async def test_a_parsed_state_is_reused_only_for_its_own_version(service: GameService) -> None:
    game = await service.start((await lobby(service)).id, 10)
    again = await service.get(game.id)
    assert again.state is game.state  # the same version: parsed once
    moved = await service.act(game.id, game.row.seats[0], {"type": "flip", "position": 1})
    latest = await service.get(game.id)
    assert latest.state is moved.after.state and latest.state != game.state


async def test_the_live_game_of_a_channel_follows_lobbies_and_endings(service: GameService) -> None:
    storage = service.storage
    assert await storage.live_game_in_channel(channel_id=300) is None
    game = await lobby(service, channel=300)
    assert (await storage.live_game_in_channel(channel_id=300)).id == game.id  # type: ignore[union-attr]
    await service.cancel(game.id, 10, can_manage=False)
    assert await storage.live_game_in_channel(channel_id=300) is None
    second = await service.start((await lobby(service, channel=300)).id, 10)
    live = await storage.live_game_in_channel(channel_id=300)
    assert live is not None and live.id == second.id and live.status == "active"
    await service.forfeit(second.id, 11)  # two players: the other one wins, the game is over
    assert await storage.live_game_in_channel(channel_id=300) is None
    storage._rows.clear()  # forgotten rows (a restart): the database answers, the same
    third = await lobby(service, channel=300)
    storage._rows.clear()
    assert (await storage.live_game_in_channel(channel_id=300)).id == third.id  # type: ignore[union-attr]


async def test_dm_links_read_back_what_was_written(tmp_path: Path) -> None:
    path = str(tmp_path / "games.sqlite3")
    storage = await Storage.open(path)
    try:
        game_id = (await lobby(GameService(storage))).id
        assert (await storage.get_dm_link(game_id=game_id, user_id=7)).panel_message_id is None
        await storage.set_dm_panel(game_id=game_id, user_id=7, dm_channel_id=70, panel_message_id=700)
        link = await storage.get_dm_link(game_id=game_id, user_id=7)
        assert (link.blocked, link.dm_channel_id, link.panel_message_id) == (False, 70, 700)
        # A read racing the write that closes the DMs cannot leave "open" behind.
        racing = asyncio.ensure_future(storage.get_dm_link(game_id=game_id, user_id=8))
        await asyncio.sleep(0)  # its read is queued before the write
        assert await storage.mark_dm_blocked(game_id=game_id, user_id=8) is True
        await racing
        assert (await storage.get_dm_link(game_id=game_id, user_id=8)).blocked
        assert await storage.mark_dm_blocked(game_id=game_id, user_id=8) is False  # only the first time
    finally:
        await storage.close()
    fresh = await Storage.open(path)
    try:
        assert (await fresh.get_dm_link(game_id=game_id, user_id=7)).panel_message_id == 700
        assert (await fresh.get_dm_link(game_id=game_id, user_id=8)).blocked
    finally:
        await fresh.close()
