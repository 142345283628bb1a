"""/game replay end to end: whole games of each kind finished against a computer, then replayed.

A finished game is answered in the channel with an animated GIF (one frame per move plus the first,
the last held longest, alt text) and a transcript; a game in progress replays privately to its
players only, up to its position now; unknown numbers, another server's game, a lobby, a cancelled
game and a game in progress asked for by someone else get a private sentence, and nothing changes.
"""

from __future__ import annotations

import asyncio
import io
import random
from typing import Any

import pytest
from PIL import Image

from bot.registry import RULES
from tests.conftest import COMPUTER_PAUSE
from tests.e2e.driver import db_snapshot, lobby_message, private_reply
from tests.e2e.test_threads import command_for
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness
from tests.emulator.models import Channel, InteractionRecord, MessageRecord, User
from tests.emulator.world import Scene

PAUSE = COMPUTER_PAUSE
SMALL = {"procession": {"n": 5}, "dots": {"size": 3}, "updown": {}, "numbers": {"m": 3}, "divisors": {"m": 4}}


async def against_computer(
    emu: DiscordEmulator, bots: BotHarness, channel: Channel, person: User, kind: str
) -> tuple[int, Channel]:
    """``person`` opens a game of ``kind`` in ``channel`` with a hard computer and starts it: the
    game's id and where it is played."""
    await (await emu.slash(person, channel, f"{kind} new", **SMALL[kind])).response()
    card = lobby_message(emu, channel)
    game_id = int(card.custom_ids[0].split(":")[1])
    await (await emu.slash(person, channel, "game addbot", level="hard")).response()
    await emu.wait_idle()
    card = emu.message(card.id)
    await (await emu.click(person, card, card.button("Start")["custom_id"])).response()
    await emu.wait_idle()
    return game_id, emu.channels.get(card.id) or channel


async def play(
    emu: DiscordEmulator, bots: BotHarness, place: Channel, person: User, game_id: int, moves: int = 10_000
) -> Any:
    """``person`` (seat 0) makes random legal moves by slash command until the game is over, or
    until they have made ``moves``; the computer moves when it is due. The game as it is then."""
    rng = random.Random(game_id)
    made = 0
    for _ in range(2000):
        for _ in range(400):  # until the computer has moved
            await emu.wait_idle()
            game = await bots.bot.services.games.get(game_id)
            if not game.row.live or 0 in game.rules.to_act(game.state):
                break
            await asyncio.sleep(PAUSE)
        if not game.row.live or made >= moves:
            return game
        actions = [a for a in game.rules.legal_actions(game.state, 0) if a["type"] != "drop"]
        name, options = command_for(game.row.kind, rng.choice(actions))
        await (await emu.slash(person, place, name, **options)).response()
        made += 1
    raise AssertionError(f"game #{game_id} did not end")


async def replay_answer(emu: DiscordEmulator, rec: InteractionRecord) -> MessageRecord:
    """The replay that answers ``rec``: deferred first, then the message with the files."""
    response = await rec.response()
    assert response.type.value == 5, "a replay is deferred first (it may take seconds to draw)"
    await emu.wait_until(
        lambda: rec.original is not None and not rec.original.loading, timeout=30, what="the replay"
    )
    assert rec.original is not None
    return rec.original


def gif_of(message: MessageRecord) -> tuple[Image.Image, bytes, str]:
    """The message's GIF attachment: opened, its bytes and its description."""
    gifs = [a for a in message.attachments if a.filename.endswith(".gif")]
    assert len(gifs) == 1, [a.filename for a in message.attachments]
    assert gifs[0].data.startswith(b"GIF89a")
    return Image.open(io.BytesIO(gifs[0].data)), gifs[0].data, gifs[0].description or ""


def transcript_of(message: MessageRecord) -> str:
    texts = [a for a in message.attachments if a.filename.endswith(".txt")]
    assert len(texts) == 1, [a.filename for a in message.attachments]
    return texts[0].data.decode("utf-8")


def durations(image: Image.Image) -> list[int]:
    out = []
    for k in range(image.n_frames):
        image.seek(k)
        out.append(int(image.info["duration"]))
    return out


@pytest.mark.parametrize("kind", sorted(RULES))
async def test_a_finished_game_of_each_kind_replays_in_the_channel(
    emu: DiscordEmulator, scene: Scene, bots: BotHarness, kind: str
) -> None:
    alice, bob = scene.alice, scene.bob
    game_id, place = await against_computer(emu, bots, scene.channel, alice, kind)
    game = await play(emu, bots, place, alice, game_id)
    assert game.row.status == "finished"
    moves = len(await bots.bot.storage.moves(game_id=game_id))
    before = db_snapshot(bots.bot.settings.db_path)

    # Anyone in the server may replay it (bob did not play), from any channel of the server.
    rec = await emu.slash(bob, scene.other_channel, "game replay", game_id=game_id)
    message = await replay_answer(emu, rec)
    assert not message.ephemeral, "a finished game's replay is posted in the channel"
    assert f"game #{game_id}" in message.content and f"<@{alice.id}>" in message.content
    assert not message.pinged, "the answer names the players without pinging them"
    image, _, description = gif_of(message)
    assert image.is_animated and image.n_frames == moves + 1
    shown = durations(image)
    assert shown[-1] > max(shown[:-1]), "the last frame is held longest"
    name = game.row.names[0]  # alice's display name when she opened the game
    assert f"game #{game_id}" in description and f"{name} (A)" in description and len(description) <= 1024
    text = transcript_of(message)
    assert f"Players, in turn order: {name} (A) and Computer (hard) (B)" in text
    assert f"{moves}. " in text and f"{moves + 1}. " not in text  # every move, numbered
    outcome = game.rules.outcome(game.state)
    assert ("wins" in text or "share the win" in text or "draw" in text) and outcome is not None
    assert db_snapshot(bots.bot.settings.db_path) == before, "a replay changes nothing"


async def test_a_game_in_progress_replays_privately_to_its_players_only(
    emu: DiscordEmulator, scene: Scene, bots: BotHarness
) -> None:
    alice, bob = scene.alice, scene.bob
    game_id, place = await against_computer(emu, bots, scene.channel, alice, "numbers")
    await play(emu, bots, place, alice, game_id, moves=2)  # alice's two picks and the computer's
    moves = len(await bots.bot.storage.moves(game_id=game_id))
    assert moves >= 4 and (await bots.bot.services.games.get(game_id)).row.live

    reply = await private_reply(await emu.slash(bob, scene.channel, "game replay", game_id=game_id))
    assert f"Game #{game_id} is still being played" in reply and "only its players" in reply

    rec = await emu.slash(alice, place, "game replay", game_id=game_id)
    message = await replay_answer(emu, rec)
    assert message.ephemeral and message.visible_to == alice.id
    image, _, _ = gif_of(message)
    # One frame per move made when it was asked, plus the first (the computer may pick meanwhile).
    moves_after = len(await bots.bot.storage.moves(game_id=game_id))
    assert moves + 1 <= image.n_frames <= moves_after + 1
    text = transcript_of(message)
    assert "still being played" in text
    # The channel got nothing from the replay: its last message is still the game's own.
    assert all(m.visible_to is None or m.visible_to == alice.id for m in emu.channel_messages(place))


async def test_games_that_cannot_be_replayed_get_a_private_sentence(
    emu: DiscordEmulator, scene: Scene, bots: BotHarness
) -> None:
    alice, bob = scene.alice, scene.bob
    db = bots.bot.settings.db_path
    # Another server's finished game.
    other = emu.add_guild("Elsewhere")
    elsewhere = emu.add_text_channel(other, "games")
    erin = emu.add_user("erin", guilds=[other])
    await emu.wait_idle()
    foreign, foreign_place = await against_computer(emu, bots, elsewhere, erin, "procession")
    await play(emu, bots, foreign_place, erin, foreign)
    # A lobby, and a cancelled game, here.
    await (await emu.slash(bob, scene.other_channel, "procession new")).response()
    lobby = int(lobby_message(emu, scene.other_channel).custom_ids[0].split(":")[1])
    cancelled, where = await against_computer(emu, bots, scene.channel, alice, "dots")
    await (await emu.slash(alice, where, "game cancel")).response()
    await emu.wait_idle()
    assert (await bots.bot.services.games.get(cancelled)).row.status == "cancelled"
    before = db_snapshot(db)

    async def refused(user: User, game_id: int) -> str:
        return await private_reply(await emu.slash(user, scene.channel, "game replay", game_id=game_id))

    assert f"There is no game #{foreign} in this server" in await refused(alice, foreign)
    assert "There is no game #987654 in this server" in await refused(alice, 987654)
    assert "There is no game #0 in this server" in await refused(alice, 0)
    assert "There is no game #-3 in this server" in await refused(alice, -3)
    assert f"Game #{lobby} has not started yet" in await refused(bob, lobby)
    assert f"Game #{cancelled} was cancelled" in await refused(alice, cancelled)
    assert db_snapshot(db) == before
    posted = [a.filename for m in emu.channel_messages(scene.channel) for a in m.attachments]
    assert not [name for name in posted if name.endswith((".gif", ".txt"))], "nothing was replayed"
