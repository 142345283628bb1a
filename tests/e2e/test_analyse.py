"""/game analyse end to end: a Procession game between two people, finished, then analysed.

The answer (at once, or deferred first when slow) brings a chart (with alt text) and
``analysis-<n>.json`` of the exact shape the issue gives; its blunders are exactly the moves an
independent solver (written here, by brute force) proves turned a won position into a lost one, and
every better move it names wins. It is private unless ``public:true``; a second request reads the
stored analysis; a game in progress, an unknown number and another server's game are refused
privately.
"""

from __future__ import annotations

import json
import random
from functools import cache

import pytest

from bot.storage.driver import fetch
from tests.e2e.driver import private_reply, start_game
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness
from tests.emulator.models import Channel, InteractionRecord, MessageRecord, User
from tests.emulator.world import Scene

N = 6


def runs(row: str) -> tuple[int, ...]:
    out: list[int] = []
    for i, ch in enumerate(row):
        if i and ch == row[i - 1]:
            out[-1] += 1
        else:
            out.append(1)
    return tuple(sorted(out))


def flipped(row: str, position: int) -> str:
    return row[: position - 1] + ("1" if row[position - 1] == "0" else "0") + row[position:]


@cache
def wins(row: str, seen: frozenset[tuple[int, ...]]) -> bool:
    """Whether the player to move wins (two players, the last to move wins): brute force."""
    return any(
        not wins(nxt, seen | {runs(nxt)})
        for nxt in (flipped(row, p) for p in range(1, len(row) + 1))
        if runs(nxt) not in seen
    )


def winning_flips(rows: list[str]) -> set[int]:
    seen = frozenset(runs(r) for r in rows)
    out = set()
    for p in range(1, len(rows[-1]) + 1):
        nxt = flipped(rows[-1], p)
        if runs(nxt) not in seen and not wins(nxt, seen | {runs(nxt)}):
            out.add(p)
    return out


async def play_out(
    emu: DiscordEmulator, bots: BotHarness, place: Channel, players: list[User], game_id: int
) -> list[int]:
    """Random legal flips by slash command until the game ends; the positions flipped, in order."""
    rng = random.Random(14)
    flips = []
    while True:
        game = await bots.bot.services.games.get(game_id)
        if not game.row.live:
            return flips
        seat = game.state.turn
        position = rng.choice(game.rules.legal_actions(game.state, seat))["position"]
        await (await emu.slash(players[seat], place, "procession flip", position=position)).response()
        await emu.wait_idle()
        flips.append(position)


async def answer(emu: DiscordEmulator, rec: InteractionRecord) -> MessageRecord:
    """The analysis that answers ``rec``: at once, or deferred first ("thinking") when it is slow."""
    await rec.response()
    await emu.wait_until(lambda: rec.original is not None and not rec.original.loading, 30, "the analysis")
    assert rec.original is not None
    return rec.original


@pytest.mark.both_dbs
async def test_a_finished_procession_game_is_analysed_exactly(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    alice, bob, carol = scene.alice, scene.bob, scene.carol
    storage = bot_harness.bot.storage
    game_id = await start_game(emu, scene.channel, "procession new", alice, bob, n=N)
    row = await storage.get_game(game_id=game_id)
    place = emu.channels[row.place_id] if row.place_id in emu.channels else scene.channel

    early = await private_reply(await emu.slash(carol, scene.channel, "game analyse", game_id=game_id))
    assert "not over yet" in early
    flips = await play_out(emu, bot_harness, place, [alice, bob], game_id)
    for bad in (game_id + 1000, 0):
        refused = await private_reply(await emu.slash(carol, scene.channel, "game analyse", game_id=bad))
        assert "There is no game" in refused

    message = await answer(emu, await emu.slash(carol, scene.other_channel, "game analyse", game_id=game_id))
    assert message.ephemeral, "private unless public:true"
    assert f"game #{game_id}" in message.content and "analysis" in message.content
    names = sorted(a.filename for a in message.attachments)
    assert names == [f"analysis-{game_id}.json", f"analysis-{game_id}.png"]
    chart = next(a for a in message.attachments if a.filename.endswith(".png"))
    assert chart.data.startswith(b"\x89PNG") and "Analysis chart" in (chart.description or "")
    data = json.loads(next(a for a in message.attachments if a.filename.endswith(".json")).data)
    assert data["game"] == game_id and data["kind"] == "procession"
    assert [m["index"] for m in data["moves"]] == list(range(1, len(flips) + 1))

    rows = ["0" * N]
    blunders = []
    for i, (move, position) in enumerate(zip(data["moves"], flips, strict=True), start=1):
        assert set(move) >= {
            "index",
            "player",
            "action",
            "verdict",
            "exact",
            "value_before",
            "value_after",
            "better",
        }
        assert move["player"] == (alice.id if i % 2 else bob.id)
        assert move["action"] == {"type": "flip", "position": position}
        assert move["exact"] is True
        good = winning_flips(rows)
        if good and position not in good:
            blunders.append(i)
            assert {b["position"] for b in move["better"]} == good, "better: exactly the winning flips"
        assert (move["verdict"] == "blunder") == (i in blunders), (i, move)
        rows.append(flipped(rows[-1], position))
    assert blunders, "this game (seed 14) holds blunders"
    first = blunders[0]
    assert f"move {first}" in message.content and "blunder" in message.content

    # Kept: a second request (public this time) reads the stored analysis, made once.
    made = await storage.driver.read(fetch("SELECT made_at FROM analyses WHERE game_id = ?", (game_id,)))
    again = await answer(
        emu, await emu.slash(bob, scene.channel, "game analyse", game_id=game_id, public=True)
    )
    assert not again.ephemeral and not again.pinged
    assert json.loads(next(a for a in again.attachments if a.filename.endswith(".json")).data) == data
    assert (
        await storage.driver.read(fetch("SELECT made_at FROM analyses WHERE game_id = ?", (game_id,))) == made
    )

    # Another server's member, asking there, is told there is no such game.
    other = emu.add_guild("Elsewhere")
    hall = emu.add_text_channel(other, "hall")
    stranger = emu.add_user("stranger", guilds=[other])
    await emu.wait_idle()
    refused = await private_reply(await emu.slash(stranger, hall, "game analyse", game_id=game_id))
    assert f"no game #{game_id} in this server" in refused
