"""People's data end to end: /game privacy export answers privately with quetbot-<id>.json holding the
caller's games; /game privacy delete asks first, nobody else can confirm it, and once confirmed the
caller's live game is forfeited, the leaderboard has no row for them and their id is in no cell of
the database; and readers then see them as "Deleted player" in their own language: the forfeited
game's last board (its alt text) in the server's, a replay of their finished game in the asker's; the
threads of their games (a finished one archived and locked, a live one) are renamed without their name,
the finished one archived again, also when the bot is killed along the way."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from bot.storage.driver import Q, Txn
from tests.e2e.driver import assert_discord_accepted_all, forge_component, private_reply, start_game
from tests.e2e.test_records import finish_game
from tests.e2e.test_replay import gif_of, replay_answer, transcript_of
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness
from tests.emulator.world import Channel, Scene

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


# ---- the threads of their games ------------------------------------------------------------------------


@dataclass
class Threads:
    """Alice and Bob's finished game's thread and their live game's, and their names before."""

    finished: Channel
    live: Channel
    names: tuple[str, str]
    alice: str  # her name, as the threads named her


async def two_threads(emu: DiscordEmulator, scene: Scene, bots: BotHarness) -> Threads:
    """Alice and Bob's finished game's thread (archived, as Discord does after a week without
    messages, and locked, as a moderator may) and their live game's thread, both naming Alice; the
    server speaks French."""
    alice, bob = scene.alice, scene.bob
    storage = bots.bot.storage
    finished = await finish_game(emu, bots, scene, "dots", [alice, bob], [], seed=2, size=3)
    live = await start_game(emu, scene.channel, "dots new", alice, bob, size=3)
    await emu.wait_idle()
    rows = [await storage.get_game(game_id=g) for g in (finished, live)]
    name, other = (rows[0].names[rows[0].seats.index(u.id)] for u in (alice, bob))
    done, playing = (emu.channel(row.place_id) for row in rows)
    assert done.is_thread and playing.is_thread
    assert (done.name, playing.name) == (
        f"Lines By The Dots #{finished} · {name}, {other}",
        f"Lines By The Dots #{live} · {name}, {other}",
    )
    emu.edit_thread(done, archived=True, locked=True)
    emu.set_locale(scene.guild, "fr")
    return Threads(done, playing, (done.name, playing.name), name)


async def forget_alice(emu: DiscordEmulator, scene: Scene) -> None:
    rec = await emu.slash(scene.alice, scene.channel, "game privacy delete")
    await private_reply(rec)
    confirm = rec.original
    assert confirm is not None
    await (await emu.click(scene.alice, confirm, confirm.button("Delete my data")["custom_id"])).response()


GONE = "Joueur supprimé"  # "Deleted player" in the server's French


async def assert_renamed(emu: DiscordEmulator, threads: Threads) -> None:
    """Both threads name "Joueur supprimé" where they named Alice, keeping their title and number;
    the finished game's is archived and locked again, the live one's open; Discord refused nothing."""
    finished, live = threads.finished, threads.live
    expected = tuple(n.replace(threads.alice, GONE) for n in threads.names)

    def renamed() -> bool:
        return (finished.name, live.name) == expected and finished.archived

    await emu.wait_until(renamed, what="the threads renamed")
    await emu.wait_idle()
    assert (finished.name, live.name) == expected
    assert finished.archived and finished.locked and not live.archived
    assert_discord_accepted_all(emu)


@pytest.mark.both_dbs
async def test_forgetting_renames_the_threads_of_their_games(
    emu: DiscordEmulator, scene: Scene, bots: BotHarness
) -> None:
    threads = await two_threads(emu, scene, bots)
    await forget_alice(emu, scene)
    await assert_renamed(emu, threads)


@pytest.mark.parametrize(
    "moment",
    [
        "the live thread read",  # the forget committed and answered for; nothing renamed yet
        "the finished thread unarchived",  # renamed and open: not archived again yet
    ],
)
async def test_the_renames_survive_a_crash(
    emu: DiscordEmulator, scene: Scene, bots: BotHarness, moment: str
) -> None:
    threads = await two_threads(emu, scene, bots)
    finished, live = threads.finished, threads.live
    pattern = {
        "the live thread read": f"GET /channels/{live.id}",
        "the finished thread unarchived": f"PATCH /channels/{finished.id}",
    }[moment]
    trap = emu.crash_after_next_request(bots, pattern)
    await forget_alice(emu, scene)
    await trap.wait()
    assert bots.bot is None
    if moment == "the finished thread unarchived":
        assert GONE in finished.name and not finished.archived  # the moment of the crash
    await bots.start()
    await assert_renamed(emu, threads)
