"""People's data end to end: /game privacy export answers privately with quetbot-<id>.json holding the
caller's games; /game privacy delete asks first, nobody else can confirm it, and once confirmed the
caller's live game is forfeited, the leaderboard has no row for them and their id is in no cell of
the database; and readers then see them as "Deleted player" in their own language: the forfeited
game's last board (its alt text) in the server's, a replay of their finished game in the asker's."""

from __future__ import annotations

import json

import pytest

from bot.storage.driver import Q, Txn
from tests.e2e.driver import forge_component, private_reply, start_game
from tests.e2e.test_records import finish_game
from tests.e2e.test_replay import gif_of, replay_answer, transcript_of
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness
from tests.emulator.world import Scene

pytestmark = [pytest.mark.threads]


def every_cell() -> Txn[list[str]]:
    names = yield Q("SELECT name FROM sqlite_master WHERE type = 'table'")
    cells: list[str] = []
    for (name,) in names:
        for row in (yield Q(f"SELECT * FROM {name}")):
            cells += [str(value) for value in row if value is not None]
    return cells


async def test_export_then_delete_through_discord(
    emu: DiscordEmulator, scene: Scene, bots: BotHarness
) -> None:
    alice, bob = scene.alice, scene.bob
    storage = bots.bot.storage
    finished = await finish_game(emu, bots, scene, "dots", [alice, bob], [], seed=2, size=3)
    live = await start_game(emu, scene.channel, "dots new", alice, bob, size=3)
    await emu.wait_idle()

    # Export: a private answer with the file; only Alice sees it.
    rec = await emu.slash(alice, scene.channel, "game privacy export")
    await private_reply(rec)
    shown = rec.original
    assert shown is not None and shown.ephemeral and shown.visible_to == alice.id
    (attachment,) = shown.attachments
    assert attachment.filename == f"quetbot-{alice.id}.json"
    data = json.loads(attachment.data)
    assert {g["game"] for g in data["games"]} == {finished, live}
    assert data["user_id"] == str(alice.id)

    # Delete: asks first; Bob cannot confirm for her.
    rec = await emu.slash(alice, scene.channel, "game privacy delete")
    assert "cannot be undone" in await private_reply(rec)
    confirm = rec.original
    assert confirm is not None
    button = confirm.button("Delete my data")["custom_id"]
    assert str(alice.id) in button and ":forget" in button
    refused = await forge_component(emu, bob, scene.channel, button)
    assert "not yours" in await private_reply(refused)
    assert (await storage.get_game(game_id=live)).live
    # A garbled id (another person's number cut short, a verb's tail lost) deletes nothing either.
    for garbled in (button.replace(str(alice.id), str(alice.id)[:-1] + "x"), button[:-3]):
        refused = await forge_component(emu, alice, scene.channel, garbled)
        said = await private_reply(refused)
        assert "not one I recognise" in said, said
    assert (await storage.get_game(game_id=live)).live

    emu.set_locale(scene.guild, "fr")  # the live game's last board is posted after she is forgotten
    await (await emu.click(alice, confirm, button)).response()
    await emu.wait_idle()
    assert "Deleted player" in emu.message(confirm.id).content
    row = await storage.get_game(game_id=live)
    assert row.status == "finished" and alice.id not in row.seats  # forfeited, then forgotten
    board = await storage.leaderboard(guild_id=scene.guild.id, kind="dots")
    assert len(board) == 1  # Bob's row only
    assert alice.id not in {line.player_id for line in board}
    cells = await storage.driver.read(every_cell())
    assert not [c for c in cells if str(alice.id) in c]
    # And Bob's leaderboard answer names nobody deleted.
    answer = await emu.slash(bob, scene.channel, "game leaderboard", game="dots")
    await answer.response()
    assert str(alice.id) not in json.dumps([m.text for m in answer.messages])

    # Readers see her as "Deleted player" in their own language, never the rows' English marker: the
    # forfeited game's last board (the server's French) and a replay of the finished game (Bob's German).
    place = (await storage.get_game(game_id=live)).place_id
    board = emu.channel_messages(emu.channel(place))[-1]
    alts = " ".join(a.description or "" for a in board.attachments)
    assert "Joueur supprimé" in alts and "Deleted player" not in alts, alts
    emu.set_locale(bob, "de")
    replay = await replay_answer(emu, await emu.slash(bob, scene.channel, "game replay", game_id=finished))
    _, _, summary = gif_of(replay)
    said = "\n".join((replay.content, summary, transcript_of(replay)))
    assert "Gelöschter Spieler" in replay.content and "Gelöschter Spieler" in summary, said
    assert "Deleted player" not in said and str(alice.id) not in said, said
