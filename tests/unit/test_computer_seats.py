"""Computer seats: their ids, names and levels; the storage finds their moves when due."""

from __future__ import annotations

import time

import pytest

from bot.players import LEVELS
from bot.players.seats import (
    computer_id,
    computer_name,
    is_computer,
    level_of,
    next_computer,
    number_of,
    people,
)
from bot.registry import RULES
from bot.service import Services
from bot.storage import Storage
from bot.table.replies import mention

# The tests taking `database` run on SQLite and on PostgreSQL (tests/conftest.py).
pytestmark = pytest.mark.both_dbs


def test_ids_names_and_levels_round_trip() -> None:
    for level in LEVELS:
        for k in (1, 2, 99):
            user = computer_id(level, k)
            assert is_computer(user) and level_of(user) == level and number_of(user) == k
    assert computer_name(computer_id("hard", 1)) == "Computer (hard)"
    assert computer_name(computer_id("easy", 2)) == "Computer 2 (easy)"
    assert mention(computer_id("normal", 1)) == "🤖 Computer (normal)"
    assert mention(12345) == "<@12345>"
    assert next_computer([10, computer_id("hard", 1)], "easy") == computer_id("easy", 2)
    assert people([10, computer_id("hard", 1), 11]) == [10, 11]
    with pytest.raises(ValueError):
        computer_id("brutal", 1)


async def test_a_computer_awaited_is_due_after_the_pause_and_leaves_when_it_moved(database: str) -> None:
    storage = await Storage.open(database)
    try:
        service = Services.build(storage, RULES)
        game = (
            await service.lobby.open_lobby(
                kind="procession", guild_id=1, channel_id=5, host_id=10, host_name="Ann", options={"n": 4}
            )
        ).game
        game = (await service.lobby.add_computer(game.id, 10, "hard")).game
        assert game.row.names[1] == "Computer (hard)"
        game = (await service.lobby.start(game.id, 10)).game
        assert await storage.due_computers(since_before=time.time() + 10) == []  # Ann moves first
        legal = game.view(0).legal
        after = (await service.moves.act(game.id, 10, {"type": "flip", "position": legal[0]})).after
        due = await storage.due_computers(since_before=time.time() + 0.01)
        assert [(w.game_id, w.seat) for w in due] == [(game.id, 1)]
        assert await storage.due_computers(since_before=time.time() - 60) == []  # not before its pause
        soon = await storage.next_due(lobby_lifetime=86400, computer_pause=2.0)
        assert soon is not None and soon <= time.time() + 2.0
        computer = after.row.seats[1]
        await service.moves.act(game.id, computer, {"type": "flip", "position": after.view(1).legal[0]})
        assert await storage.due_computers(since_before=time.time() + 10) == []
    finally:
        await storage.close()
