"""Hints end to end (`/game hint`): against computers only, on the caller's move, privately, the move
the hard computer player would make from the caller's own view; the game is then marked "with hints"
on its boards, in history and in its replay, and finishes unrated. Refused with other people at the
table, out of turn, where there is no game, and once the game is over; in a game of secret choices
the hint shows nothing of the computer's secret."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import pytest

from bot.players.seats import computer_id
from bot.registry import GAMES
from bot.table.hints import LEVEL, hint_rng
from tests.db import query
from tests.e2e.driver import latest_board, private_reply, start_game
from tests.e2e.test_computers import settle
from tests.e2e.test_replay import replay_answer, transcript_of
from tests.e2e.test_threads import command_for
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness
from tests.emulator.models import Channel
from tests.emulator.world import Scene, User


async def against_hard(emu: DiscordEmulator, harness: BotHarness, user: User, channel: Channel, kind: str,
                       **options: Any) -> int:  # fmt: skip
    await (await emu.slash(user, channel, f"{kind} new", **options)).response()
    await (await emu.slash(user, channel, "game addbot", level="hard")).response()
    await (await emu.slash(user, channel, "game start")).response()
    await emu.wait_idle()
    live = await harness.bot.services.finder.live_at(channel.id)
    return next(g.id for g in live if g.row.status == "active")


async def hint(emu: DiscordEmulator, user: User, channel: Channel) -> str:
    """``user``'s /game hint, thought out (deferred first) and answered privately: its text."""
    rec = await emu.slash(user, channel, "game hint")
    response = await rec.response()
    assert response.ephemeral, response.data
    await emu.wait_until(lambda: rec.original is not None and not rec.original.loading, what="the hint")
    texts = rec.ephemeral_texts()
    assert texts and "Hint for game" in texts[-1], texts
    return texts[-1]


def hard_move(harness: BotHarness, game: Any, seat: int) -> dict[str, Any]:
    """The move the hard player makes from ``seat``'s own view, with the hint's rng."""
    spec = GAMES[game.row.kind]
    assert spec.player is not None
    return dict(spec.player(game.view(seat), LEVEL, hint_rng(game.row, seat)))


@pytest.mark.both_dbs
async def test_a_hint_against_a_computer_marks_the_game_and_leaves_it_unrated(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness, bot_db: str
) -> None:
    alice, bob = scene.alice, scene.bob
    channel, lounge = scene.channel, scene.other_channel
    games = bot_harness.bot.services.games
    # No game here: refused.
    assert "no live game" in (await private_reply(await emu.slash(alice, lounge, "game hint"))).lower()

    game_id = await against_hard(emu, bot_harness, alice, channel, "procession", n=5)
    game = await games.get(game_id)
    assert game.rules.to_act(game.state) == {0} and game.row.seats[1] == computer_id("hard", 1)
    expected = hard_move(bot_harness, game, 0)
    said = await hint(emu, alice, channel)
    assert f"<@{alice.id}> flipped position {expected['position']}:" in said
    assert "now unrated" in said
    assert query(bot_db, "SELECT hints FROM games WHERE id = ?", (game_id,)) == [(1,)]
    status = await private_reply(await emu.slash(alice, channel, "game status"))
    assert "with hints" in status
    # Asked again for the same position: the same move, and no second "now unrated".
    again = await hint(emu, alice, channel)
    assert "now unrated" not in again and "with hints" in again

    # Played; out of turn (the computer thinks for two seconds), refused.
    name, options = command_for("procession", expected)
    await (await emu.slash(alice, channel, name, **options)).response()
    await emu.wait_idle()
    assert "not your move" in await private_reply(await emu.slash(alice, channel, "game hint"))
    game = await settle(emu, bot_harness, game_id, 0)
    assert "with hints" in latest_board(emu, channel).content

    # Finished (alice leaves): no rating changes, the result is kept in history, marked.
    await (await emu.slash(alice, channel, "game leave")).response()
    await emu.wait_idle()
    assert (await games.get(game_id)).row.status == "finished"
    assert query(bot_db, "SELECT COUNT(*) FROM ratings") == [(0,)]
    assert query(bot_db, "SELECT rated FROM finished_games WHERE game_id = ?", (game_id,)) == [(0,)]
    assert "is over" in await private_reply(await emu.slash(alice, channel, "game hint"))
    history = await emu.slash(alice, channel, "game history")
    await history.response()
    assert "with hints" in history.messages[-1].embeds[0]["description"]
    replay = await replay_answer(emu, await emu.slash(alice, channel, "game replay", game_id=game_id))
    assert "Played with hints" in transcript_of(replay)

    # Another person at the table: refused, nothing marked.
    other = await start_game(emu, lounge, "procession new", alice, bob, n=4)
    refused = await private_reply(await emu.slash(alice, lounge, "game hint"))
    assert "only for games against computers" in refused and f"<@{bob.id}>" in refused
    assert query(bot_db, "SELECT hints FROM games WHERE id = ?", (other,)) == [(0,)]


async def test_a_hint_in_a_game_of_secrets_shows_nothing_of_the_computers_secret(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    alice, channel = scene.alice, scene.channel
    games = bot_harness.bot.services.games
    game_id = await against_hard(emu, bot_harness, alice, channel, "numbers", m=3)
    # The computer picks first (its pick is in the state, secret); then alice asks.
    game = await games.get(game_id)
    for _ in range(200):
        game = await games.get(game_id)
        if game.state.pending[1] is not None:
            break
        await asyncio.sleep(0.05)
    assert game.state.pending == (None, game.state.pending[1]) and game.state.pending[1] is not None
    expected = hard_move(bot_harness, game, 0)
    said = await hint(emu, alice, channel)
    assert f"pick the number **{expected['number']}**" in said
    assert "Computer" not in said and "picked" not in said  # no reveal
    # The hint could not depend on the secret: alice's view, and so the hint, is the same whatever
    # the computer picked.
    for other in range(2**3):
        state = replace(game.state, pending=(None, other))
        assert game.rules.view_for(state, 0) == game.view(0)
