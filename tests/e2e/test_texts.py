"""The texts people read, across the games: a short first board with the rules one button away.

Every game's first board reads in at most ~300 characters (heading, the start line, the note on how
to move, whose move), counted as a person sees it: mentions as @name, without markdown. The rules
(the text /game rules gives) are behind the board's Rules button, answered privately to anyone.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from bot.registry import RULES_TEXT
from tests.e2e.driver import latest_board, private_reply, start_game
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness
from tests.emulator.world import Scene

START_TEXT_MAX = 300

# (the game, its players, its options): the usual table of each game, with the default options.
GAMES: list[tuple[str, int, dict[str, Any]]] = [
    ("procession", 3, {}),
    ("updown", 3, {}),
    ("numbers", 2, {}),
    ("divisors", 3, {}),
    ("dots", 3, {}),
]


def as_read(content: str, scene: Scene) -> str:
    """A message's text as a person reads it: mentions as @name, no markdown markers."""
    names = {str(u.id): u.name for u in (*scene.players, scene.mod)}
    text = re.sub(r"<@!?(\d+)>", lambda m: "@" + names.get(m[1], "someone"), content)
    return text.replace("**", "").replace("`", "")


@pytest.mark.parametrize(("kind", "players", "options"), GAMES, ids=[g[0] for g in GAMES])
async def test_the_first_board_is_short_and_has_the_rules_a_button_away(
    emu: DiscordEmulator,
    scene: Scene,
    bot_harness: BotHarness,
    kind: str,
    players: int,
    options: dict[str, Any],
) -> None:
    game_id = await start_game(emu, scene.channel, f"{kind} new", *scene.players[:players], **options)
    board = latest_board(emu, scene.channel)
    text = as_read(board.content, scene)
    assert len(text) <= START_TEXT_MAX, f"{len(text)} characters:\n{text}"
    assert "seat" not in text.lower()
    rules = board.button("Rules")
    assert rules["custom_id"] == f"q:{game_id}:-:rules"
    # In a row of its own, or beside the My hand / My move button: never among a game's moves.
    (row,) = [r for r in board.components if rules in r.get("components", [])]
    assert {c.get("label") for c in row["components"]} <= {"Rules", "My hand", "My move"}
    # Anyone may read the rules (a player, or someone watching); the board does not change.
    for user in (scene.alice, scene.mod):
        answer = await private_reply(await emu.click(user, board, rules["custom_id"]))
        assert answer == RULES_TEXT[kind].body
    assert await private_reply(await emu.slash(scene.bob, scene.channel, "game rules", game=kind)) == (
        RULES_TEXT[kind].body
    )
    assert emu.message(board.id).button("Rules") == rules
