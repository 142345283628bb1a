"""Games in threads: each game plays in a public thread started from its lobby card, quietly.

The server keeps the default settings here (threads on; see the ``threads`` marker in
tests/conftest.py). Whole games of every kind are played by slash commands in their threads, counting
what each move shows: in the parent channel only the card (edited as the game goes), in the thread at
most one new message per move, and one DM panel per player per game (edited from then on).
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from bot.registry import RULES
from cogs.updown import rules as updown
from tests.e2e.driver import bot_messages, latest_board, lobby_message, private_reply
from tests.e2e.driver import open_and_start as start
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness
from tests.emulator.models import Channel, MessageRecord, Perm, User
from tests.emulator.world import Scene

pytestmark = pytest.mark.threads

SECRET = {"updown", "numbers", "divisors"}
SMALL = {
    "procession": {"n": 3},
    "dots": {"size": 3},
    "updown": {},
    "numbers": {"m": 3},
    "divisors": {"m": 3},
}


def command_for(kind: str, action: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The slash command (and options) that makes ``action``."""
    kind_of = action["type"]
    if kind == "procession":
        return "procession flip", {"position": action["position"]}
    if kind == "dots":
        start = {"from": action["from"]} if action.get("from") else {}
        return "dots line", {"to": action["to"], **start}
    if kind == "updown" and kind_of == "predict":
        return "updown predict", {"letters": action["letters"]}
    if kind == "updown":
        return "updown play", {"card": updown.rank_label(action["rank"])}
    if kind == "numbers":
        return "numbers pick", {"number": action["number"]}
    assert kind == "divisors" and kind_of == "pick", action
    return "divisors pick", {"card": action["card"]}


async def open_and_start(
    emu: DiscordEmulator, channel: Channel, kind: str, host: User, *others: User, **options: Any
) -> tuple[int, MessageRecord]:
    """Open a lobby of ``kind``, let ``others`` join, start it, and wait for quiet; the game id and
    its card."""
    game_id, card = await start(emu, channel, f"{kind} new", host, *others, **options)
    await emu.wait_idle()
    return game_id, emu.message(card.id)


async def play_out(
    emu: DiscordEmulator, harness: BotHarness, thread: Channel, game_id: int, users: list[User], seed: int
) -> int:
    """Play the game to its end by slash commands in ``thread`` (random legal moves); returns the most
    new thread messages any one move made."""
    rng = random.Random(seed)
    most = 0
    for _ in range(400):
        game = await harness.bot.services.games.get(game_id)
        if not game.row.live:
            return most
        rules = game.rules
        seat = min(rules.to_act(game.state))
        actions = [a for a in rules.legal_actions(game.state, seat) if a["type"] != "drop"]
        name, options = command_for(game.row.kind, rng.choice(actions))
        before = len(emu.channel_messages(thread))
        rec = await emu.slash(users[seat], thread, name, **options)
        await rec.response()
        assert not any("Nothing was changed" in t for t in rec.ephemeral_texts()), rec.ephemeral_texts()
        await emu.wait_idle()
        most = max(most, len(emu.channel_messages(thread)) - before)
    raise AssertionError(f"game #{game_id} did not end")


@pytest.mark.parametrize("kind", sorted(RULES))
async def test_a_whole_game_in_its_thread_is_quiet(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness, kind: str
) -> None:
    users = [scene.alice, scene.bob, scene.carol] if kind in ("procession", "updown", "divisors") else []
    users = users or [scene.alice, scene.bob]
    dms_before = {u.name: len(emu.dm_messages(u)) for u in users}
    game_id, card = await open_and_start(emu, scene.channel, kind, users[0], *users[1:], **SMALL[kind])

    # The thread: started from the card (so it has the card's id), named, with the players in it.
    thread = emu.channels[card.id]
    assert thread.is_thread and thread.parent is scene.channel
    title = RULES[kind].TITLE
    names = (await bot_harness.bot.services.games.get(game_id)).row.names
    assert thread.name == f"{title} #{game_id} · " + ", ".join(names)
    assert {m.id for m in emu.thread_members(thread)} >= {u.id for u in users}
    first = latest_board(emu, thread)
    shown = re.sub(r"<@\d+>", "@someone", first.content)  # as people read it: mentions are names
    assert len(shown) <= 300 and "seat" not in first.content.lower(), shown
    assert f"<#{thread.id}>" in card.content and card.custom_ids == [f"q:{game_id}:-:rules"]

    most = await play_out(emu, bot_harness, thread, game_id, users, seed=len(kind))

    # The parent channel holds the card alone, now with the result and the final board.
    assert [m.id for m in bot_messages(emu, scene.channel)] == [card.id]
    card = emu.message(card.id)
    assert card.attachments and card.attachments[0].description, "the final board, with alt text"
    game = await bot_harness.bot.services.games.get(game_id)
    assert game.row.status == "finished"
    assert card.custom_ids == [f"q:{game_id}:-:rules", f"q:{game_id}:-:rematch"]
    assert "wins" in card.content or "draw" in card.content.lower()
    # At most one new message in the thread per move.
    assert most <= 1, most
    # One DM per player in a game with secrets (the panel, edited from then on); none otherwise.
    for user in users:
        sent = len(emu.dm_messages(user)) - dms_before[user.name]
        assert sent == (1 if kind in SECRET else 0), (
            user.name,
            [m.content[:60] for m in emu.dm_messages(user)],
        )
    # Every image has alt text; no text a person reads says "seat".
    for message in emu.channel_messages(thread):
        assert all(a.description for a in message.attachments), message.content[:80]
        assert not re.search(r"\bseats?\b", message.content, re.I), message.content


async def test_two_games_share_a_channel_each_in_its_thread(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    alice, bob, carol, dave = scene.alice, scene.bob, scene.carol, scene.dave
    first, first_card = await open_and_start(emu, scene.channel, "procession", alice, bob, n=3)
    second, second_card = await open_and_start(emu, scene.channel, "dots", carol, dave, size=3)
    one, two = emu.channels[first_card.id], emu.channels[second_card.id]
    assert one is not two and {one.parent, two.parent} == {scene.channel}
    # Each thread takes its own game's commands.
    rec = await emu.slash(alice, one, "procession flip", position=1)
    assert not (await rec.response()).ephemeral
    await emu.wait_idle()
    assert f"game #{first}" in latest_board(emu, one).content
    # In the parent channel, a player's command points to their game's thread, privately.
    reply = await private_reply(await emu.slash(bob, scene.channel, "procession flip", position=2))
    assert f"<#{one.id}>" in reply
    rec = await emu.slash(carol, scene.channel, "game status")
    assert (await rec.response()).ephemeral and f"game #{second}" in rec.ephemeral_texts()[-1]
    # A game's controls work only where the game is.
    board = latest_board(emu, one)
    usable = next(b for b in board.buttons() if not b.get("disabled") and b.get("label", "").isdigit())
    reply = await private_reply(await emu.click(carol, board, usable["custom_id"]))
    assert "not playing" in reply.lower() or "turn" in reply.lower()
    # The parent channel shows just the two cards, each naming whose move it is.
    assert [m.id for m in bot_messages(emu, scene.channel)] == [first_card.id, second_card.id]
    assert bob.mention in emu.message(first_card.id).content
    assert carol.mention in emu.message(second_card.id).content


def started_versions(card: MessageRecord) -> list[str]:
    """The card's texts from the start on: each edit of it after its lobby."""
    texts = [v.content for v in card.versions]
    first = next(i for i, t in enumerate(texts) if "has started" in t)
    return texts[first:]


@pytest.mark.parametrize("thread", [True, False])
async def test_at_the_start_the_card_is_edited_once_with_its_final_text(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness, thread: bool
) -> None:
    """Issue 24: the Start click edited the card ("played here by ..."), then the start's `card`
    effect edited it again ("played in <#thread>"). Now the card goes from the lobby straight to
    the text naming where the game is played, once (in its thread, or here without the permission)."""
    if not thread:
        perms = emu.permissions(scene.guild, emu.bot_user) & ~Perm.CREATE_PUBLIC_THREADS
        emu.set_bot_permissions(scene.guild, perms)
    game_id, card = await open_and_start(emu, scene.channel, "dots", scene.alice, scene.bob, size=3)
    started = started_versions(card)
    if thread:
        where = f"played in <#{emu.channels[card.id].id}>"
    else:
        where = "played here by"
    assert len(started) == 1 and where in started[0], started
    assert [c.split(":")[3] for c in card.custom_ids] == ["rules"]
    assert f"game #{game_id}" in latest_board(emu, emu.channels.get(card.id, scene.channel)).content


async def test_without_thread_permission_the_game_plays_in_place_and_says_so_once(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    perms = emu.permissions(scene.guild, emu.bot_user) & ~Perm.CREATE_PUBLIC_THREADS
    emu.set_bot_permissions(scene.guild, perms)
    game_id, card = await open_and_start(emu, scene.channel, "procession", scene.alice, scene.bob, n=3)
    assert emu.threads_of(scene.channel) == [emu.channels[scene.thread.id]]  # only the scene's own
    board = latest_board(emu, scene.channel)
    assert "may not start threads" in board.content and f"game #{game_id}" in board.content
    rec = await emu.slash(scene.alice, scene.channel, "procession flip", position=1)
    assert not (await rec.response()).ephemeral
    await emu.wait_idle()
    later = latest_board(emu, scene.channel)
    assert later.id != board.id and "may not start threads" not in later.content
    assert "played here" in emu.message(card.id).content


async def test_a_game_opened_in_a_thread_plays_there(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    before = len(emu.threads_of(scene.channel))
    await open_and_start(emu, scene.thread, "dots", scene.alice, scene.bob, size=3)
    assert len(emu.threads_of(scene.channel)) == before  # no thread inside a thread
    assert "opened in a thread" in latest_board(emu, scene.thread).content


async def test_admins_turn_threads_off_for_their_server(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    reply = await private_reply(await emu.slash(scene.alice, scene.channel, "game settings", threads="off"))
    assert "Manage Server" in reply
    assert "thread of their own" in await private_reply(
        await emu.slash(scene.alice, scene.channel, "game settings")
    )
    emu.grant(scene.guild, scene.dave, Perm.MANAGE_GUILD)
    reply = await private_reply(await emu.slash(scene.dave, scene.channel, "game settings", threads="off"))
    assert "threads: off" in reply
    await bot_harness.restart()  # stored, not only remembered
    before = len(emu.threads_of(scene.channel))
    await open_and_start(emu, scene.channel, "procession", scene.alice, scene.bob, n=3)
    assert len(emu.threads_of(scene.channel)) == before
    board = latest_board(emu, scene.channel)
    assert "thread" not in board.content  # the admins' choice: nothing to explain


async def test_an_archived_thread_is_opened_again_for_the_next_board(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    _, card = await open_and_start(emu, scene.channel, "procession", scene.alice, scene.bob, n=3)
    thread = emu.channels[card.id]
    board = latest_board(emu, thread)
    emu.edit_thread(thread, archived=True)  # as Discord does after a week without messages
    rec = await emu.click(scene.alice, board, board.button("1")["custom_id"])
    await rec.response()
    await emu.wait_idle()
    assert not thread.archived
    assert latest_board(emu, thread).id != board.id


@pytest.mark.both_dbs
async def test_a_crash_right_after_the_thread_is_made_loses_nothing(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    emu.crash_after_next_request(bot_harness, "POST /channels/*/messages/*/threads")
    await (await emu.slash(scene.alice, scene.channel, "procession new", n=3)).response()
    card = lobby_message(emu, scene.channel)
    await (await emu.click(scene.bob, card, card.button("Join")["custom_id"])).response()
    await (await emu.click(scene.alice, card, card.button("Start")["custom_id"])).response()
    await emu.wait_until(lambda: bot_harness.crashes == 1, what="the crash")
    await bot_harness.start()
    await emu.wait_until(lambda: card.id in emu.channels and emu.channel_messages(emu.channels[card.id]))
    await emu.wait_idle()
    thread = emu.channels[card.id]
    assert len(emu.threads_of(scene.channel)) == 2  # the scene's thread and this one, once
    assert len([m for m in emu.channel_messages(thread) if m.attachments]) == 1
    assert {m.id for m in emu.thread_members(thread)} >= {scene.alice.id, scene.bob.id}


async def test_a_failed_thread_start_is_retried(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    emu.fail_next("POST /channels/*/messages/*/threads", status=500, times=2)
    game_id, card = await open_and_start(emu, scene.channel, "procession", scene.alice, scene.bob, n=3)
    await emu.wait_until(lambda: card.id in emu.channels and emu.channel_messages(emu.channels[card.id]))
    await emu.wait_idle()
    thread = emu.channels[card.id]
    assert f"game #{game_id}" in latest_board(emu, thread).content
    assert [m.id for m in bot_messages(emu, scene.channel)] == [card.id]


async def test_game_status_in_the_channel_names_its_games_and_links_their_threads(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    """/game status used in the channel whose games play in their threads, by someone playing in
    none of them: each game of the channel, the live ones first, with its thread, in the reader's
    language; before and after a game ends (issue 24: it said no game had been played here)."""
    over, over_card = await open_and_start(emu, scene.channel, "procession", scene.alice, scene.bob, n=3)
    over_thread = emu.channels[over_card.id]
    answer = await private_reply(await emu.slash(scene.mod, scene.channel, "game status"))
    assert f"#{over}" in answer and f"<#{over_thread.id}>" in answer and "No game" not in answer, answer
    stranger = await private_reply(await emu.slash(scene.mod, over_thread, "procession flip", position=1))
    assert "open your own in a channel with /procession new" in stranger and "thread" not in stranger
    await play_out(emu, bot_harness, over_thread, over, [scene.alice, scene.bob], seed=1)
    late = await private_reply(await emu.slash(scene.alice, over_thread, "procession flip", position=1))
    assert "the last board here" in late and f"<#{scene.channel.id}>" in late, late
    live, live_card = await open_and_start(emu, scene.channel, "dots", scene.carol, scene.dave, size=3)
    live_thread = emu.channels[live_card.id]

    answer = await private_reply(await emu.slash(scene.mod, scene.channel, "game status"))
    assert "No game" not in answer, answer
    assert answer.index(f"<#{live_thread.id}>") < answer.index(f"<#{over_thread.id}>"), answer
    assert "Lines By The Dots** #" + str(live) in answer and "Procession** #" + str(over) in answer

    emu.set_locale(scene.mod, "de")
    german = await private_reply(await emu.slash(scene.mod, scene.channel, "game status"))
    assert f"<#{live_thread.id}>" in german and german != answer and "Thread" in german, german
