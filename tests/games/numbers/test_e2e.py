"""Numbers To Number end to end: the real bot, through the emulator, by every input path.

A pending pick is secret until both picks of the move are in. After every first pick the leak check
looks at everything the bot has shown publicly since (the text with mentions and ids removed, the
components, the attachments) and at the other player's DMs; the other player's panel is compared
with the panel the cog would draw had the pick been a different number.
"""

from __future__ import annotations

import ast
import dataclasses
import re

import pytest

from bot.i18n import ENGLISH
from bot.service import Loaded
from cogs.numbers import rules as numbers
from tests.e2e.driver import (
    assert_discord_accepted_all,
    assert_png,
    bot_messages,
    closed_dm_notice,
    db_snapshot,
    dm_changes,
    dm_mark,
    dm_panel,
    form_answer,
    game_panels,
    latest_board,
    news_mark,
    news_since,
    panel_messages,
    private_panel,
    private_reply,
    start_game,
    typed_answer,
    wait_dm_control,
)
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness
from tests.emulator.models import MessageRecord
from tests.emulator.world import Channel, Scene, User

IDS = re.compile(r"<[@#]!?\d+>|#\d+|\d{15,}")  # mentions, channel links, game numbers, snowflakes


# ---- playing ----------------------------------------------------------------------------------------


async def open_game(
    emu: DiscordEmulator, channel: Channel, host: User, other: User, m: int, **options: str
) -> int:
    return await start_game(emu, channel, "numbers new", host, other, m=m, **options)


async def game_of(harness: BotHarness, game_id: int) -> Loaded:
    return await harness.bot.services.games.get(game_id)


async def by_modal(emu: DiscordEmulator, user: User, panel: MessageRecord, cid: str, text: str) -> str:
    rec = await emu.click(user, panel, cid)
    await rec.response()
    assert rec.modal is not None, rec.texts()
    sub = await emu.submit_modal(user, rec, values={"number": text})
    return await form_answer(sub, panel)


async def pick(
    emu: DiscordEmulator, scene: Scene, game_id: int, user: User, how: str, number: int, typed: str = ""
) -> tuple[str, MessageRecord]:
    """One pick by ``how``: its private answer, and the channel post that followed."""
    channel = scene.channel
    before = news_mark(emu, channel)
    text = typed or str(number)
    if how == "modal":  # the DM panel's Pick button
        panel, cid = await wait_dm_control(emu, user, game_id, "pick")
        answer = await by_modal(emu, user, panel, cid, text)
    elif how == "reply":  # a plain DM
        answer = await typed_answer(emu, user, text)
    elif how == "command":
        answer = await private_reply(await emu.slash(user, channel, "numbers pick", number=number))
    elif how == "button":  # the My move fallback under the board, then the private panel's Pick
        board = latest_board(emu, channel)
        await private_reply(await emu.click(user, board, board.button("My move")["custom_id"]))
        panel = private_panel(emu, user, game_id)
        answer = await by_modal(emu, user, panel, panel.button("Pick")["custom_id"], text)
    else:
        raise AssertionError(how)
    return answer, await news_since(emu, channel, before)


def assert_one_live_dm_panel(emu: DiscordEmulator, game_id: int, *users: User) -> None:
    """Only a player's newest DM panel of the game may keep controls (older ones were stripped, or
    were already left without controls, which is why they need no stripping)."""
    for user in users:
        panels = game_panels(emu, user, game_id)
        assert all(m.custom_ids == [] for m in panels[:-1]), [m.custom_ids for m in panels]


# ---- secrecy ----------------------------------------------------------------------------------------


def public_keys(emu: DiscordEmulator) -> set[tuple[object, ...]]:
    return {(p.message_id, repr(p.body), p.attachments) for p in emu.all_public_payloads()}


def assert_hidden(emu: DiscordEmulator, since: set[tuple[object, ...]], number: int, m: int) -> None:
    """Nothing shown publicly since ``since`` names ``number``, in decimal or binary, or draws it."""
    fresh = [p for p in emu.all_public_payloads() if (p.message_id, repr(p.body), p.attachments) not in since]
    assert fresh, "the pick was not announced"
    images = {a for key in since for a in key[2]}  # type: ignore[union-attr]
    for payload in fresh:
        assert set(payload.attachments) <= images, "a new image while a pick is pending"
        # The text that is new (an edited board keeps the lines it had), and what the controls say
        # (their layout numbers, "type": 2, are not the pick).
        seen = {
            line
            for key in since
            if key[0] == payload.message_id
            for line in str(ast.literal_eval(str(key[1]))["content"]).split("\n")
        }
        lines = [line for line in str(payload.body.get("content")).split("\n") if line not in seen]
        labels = [
            f"{c.get('label', '')} {c.get('custom_id', '')} {c.get('options', '')}"
            for row in payload.body.get("components") or []
            for c in row.get("components", [])
        ]
        blob = IDS.sub("", " ".join([*lines, *labels]))
        assert not re.search(rf"(?<!\d){number}(?!\d)", blob), f"{number} leaked: {blob}"
        assert numbers.binary(number, m) not in blob, f"{number} leaked in binary: {blob}"


async def assert_panel_blind(harness: BotHarness, game: Loaded, seat: int, shown: str | None = None) -> None:
    """``seat``'s panel (as ``shown``, or as it would be drawn now) is the same whatever the other
    seat's pending pick is."""
    panels = harness.bot.table.panels
    state: numbers.State = game.state
    other = 1 - seat
    assert state.pending[other] is not None and state.pending[seat] is None
    now = (await panels.payload(game, seat, lang=ENGLISH))["content"]
    assert shown is None or shown == now
    for alt in numbers.available(state, other)[:3]:
        pending = list(state.pending)
        pending[other] = alt
        changed = dataclasses.replace(game, state=dataclasses.replace(state, pending=tuple(pending)))
        assert (await panels.payload(changed, seat, lang=ENGLISH))["content"] == now


# ---- the tests --------------------------------------------------------------------------------------


@pytest.mark.both_dbs
async def test_whole_m3_game_by_every_input_path_with_a_restart(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    alice, bob = scene.alice, scene.bob
    game_id = await open_game(emu, scene.channel, alice, bob, m=3)
    start = latest_board(emu, scene.channel)
    assert_png(start)
    assert "2 rounds of 3 moves" in start.content and "My move" in [b.get("label") for b in start.buttons()]
    for user, other in ((alice, bob), (bob, alice)):
        panel = emu.dm_messages(user)[-1]
        assert scene.guild.name in panel.content and f"<#{scene.channel.id}>" in panel.content
        assert f"Round 1 of 2 · move 1 of 3 · totals: you 0, <@{other.id}> 0" in panel.content
        assert "**Pick a number from 1 to 7** you have not played" in panel.content
        assert "Still yours: 1-7" in panel.content
        assert "player" not in panel.content  # people are named, and no legend is repeated

    # Each move: the first pick (checked for leaks), then the second, which reveals both.
    # Round 1: 5 > 3, 2 < 6, 4 = 4: the list 10_, D = {4, 5}; alice played 5 and 4, bob 4.
    # Round 2: 6 > 2, 1 < 7, 3 < 5: the list 100, D = {4}, which neither may play again.
    plan = [
        ((alice, "modal", 5, ""), (bob, "reply", 3, "")),
        ((alice, "command", 2, ""), (bob, "button", 6, "")),
        ((bob, "command", 4, ""), (alice, "button", 4, "")),
        ((alice, "reply", 6, "0b110"), (bob, "modal", 2, "")),
        ((bob, "command", 7, ""), (alice, "modal", 1, "")),
        ((alice, "command", 3, ""), (bob, "reply", 5, "")),
    ]
    boards: list[MessageRecord] = []
    for i, (first, second) in enumerate(plan):
        user, how, number, typed = first
        other = bob if user is alice else alice
        since, dms = public_keys(emu), dm_mark(emu, other)
        posts = len(bot_messages(emu, scene.channel))
        answer, line = await pick(emu, scene, game_id, user, how, number, typed)
        assert f"Your pick **{number}** (`{numbers.binary(number, 3)}`) is in" in answer, answer
        # A pick still secret posts nothing: the current board's text says who has picked.
        assert f"<@{user.id}> has picked." in line.content
        assert (
            len(bot_messages(emu, scene.channel)) == posts and line.id == latest_board(emu, scene.channel).id
        )
        assert_hidden(emu, since, number, 3)
        assert dm_changes(emu, other, dms) == [], "the other player was told something"
        if i == 2:  # the bot restarts between the two picks: the pick is kept, and still hidden
            await bot_harness.restart()
            game = await game_of(bot_harness, game_id)
            assert game.state.pending == (None, 4)
            rec = await emu.slash(bob, scene.channel, "numbers mine")
            assert "Your pick: **4** (`100`), final." in await private_reply(rec)
            board = latest_board(emu, scene.channel)
            shown = await private_reply(await emu.click(alice, board, board.button("My move")["custom_id"]))
            # Her panel does not change with bob's pick (the board says he has picked).
            assert "**Pick a number from 1 to 7**" in shown and "picked" not in shown
            await assert_panel_blind(bot_harness, game, 0, private_panel(emu, alice, game_id).content)
            assert_hidden(emu, since, number, 3)
        if i == 4:  # alice's panel, waiting for her pick, is blind to bob's
            await assert_panel_blind(bot_harness, await game_of(bot_harness, game_id), 0)
        user, how, number, typed = second
        answer, board = await pick(emu, scene, game_id, user, how, number, typed)
        first_number = first[2]
        assert f"You picked **{number}**" in answer and f"picked **{first_number}**" in answer, answer
        assert_png(board)
        boards.append(board)
        assert_one_live_dm_panel(emu, game_id, alice, bob)
        if i == 0:  # the panels show the list with the numbers that wrote it, each from its side
            for user, pairs in ((alice, "5 v 3"), (bob, "3 v 5")):
                await emu.wait_until(
                    lambda u=user, p=pairs: (
                        f"The list: `1` (yours v theirs: {p})" in dm_panel(emu, u, game_id).content
                    ),
                    what="a panel with the list",
                )

    assert "Move 1 of round 1: " in boards[0].content
    first_move = f"<@{alice.id}> **5** (`101`) · <@{bob.id}> **3** (`011`) → `1`. The list: `1`"
    assert first_move in boards[0].content
    assert "→ `_`. The list: `10_`" in boards[2].content
    assert (
        "**Round 1 of 2 is over.** The list `10_`: the numbers that score, D = {4, 5} (2 numbers; "
        "in binary `100`, `101`)." in (boards[2].content)
    )
    assert f"This round: <@{alice.id}> 2 points (5, 4); <@{bob.id}> 1 point (4)." in boards[2].content
    assert f"Totals: <@{alice.id}> 2, <@{bob.id}> 1." in boards[2].content
    assert "Round 2 begins" in boards[2].content
    assert "the numbers that score, D = {4} (1 number; in binary `100`)" in boards[5].content
    assert f"🏆 <@{alice.id}> wins: the higher total (2 to 1)." in boards[5].content
    assert [b["label"] for b in boards[5].buttons()] == ["Rematch"]
    # The round-end board is a different picture from the move before it (D is drawn).
    assert boards[2].attachments[0].data != boards[1].attachments[0].data

    game = await game_of(bot_harness, game_id)
    assert game.row.status == "finished" and game.row.result is not None
    assert game.row.result["winners"] == [0] and game.row.result["scores"] == [2, 1]
    assert game.state.played(0) == (5, 2, 4, 6, 1, 3) and game.state.played(1) == (3, 6, 4, 2, 7, 5)
    assert await bot_harness.bot.services.history.replay(game_id) == game.state
    # One DM panel message each for the whole game (typed answers included): edited, never re-sent.
    assert [panel_messages(emu, user, game_id) for user in (alice, bob)] == [1, 1]
    # No DM panel keeps a Pick button once the game is over.
    for user in (alice, bob):
        assert not any(cid.endswith(":pick") for m in emu.dm_messages(user) for cid in m.custom_ids)
    assert "The game is over" in emu.dm_messages(alice)[-1].content
    assert_discord_accepted_all(emu)


async def test_closed_dms_bad_inputs_and_autocomplete(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness, bot_db: str
) -> None:
    alice, bob, mod = scene.alice, scene.bob, scene.mod
    emu.close_dms(bob)
    game_id = await open_game(emu, scene.channel, alice, bob, m=3)
    assert "**My move**" in closed_dm_notice(emu, scene.channel, bob).content
    assert emu.dm_messages(bob) == []

    choices = await emu.autocomplete(alice, scene.channel, "numbers pick", focused="number", number="")
    assert [c["value"] for c in choices] == list(range(1, 8))
    assert choices[4]["name"] == "5 (101)"
    assert await emu.autocomplete(mod, scene.channel, "numbers pick", focused="number", number="") == []

    # Bad input before anyone picked: a private answer each, nothing changes.
    snapshot = db_snapshot(bot_db)
    rec = await emu.slash(alice, scene.channel, "numbers pick", number=9)
    assert "9 is out of range: in this game (m = 3) pick from 1 to 7." in await private_reply(rec)
    rec = await emu.slash(mod, scene.channel, "numbers pick", number=3)
    assert "You are not playing in game" in await private_reply(rec)
    board = latest_board(emu, scene.channel)
    rec = await emu.click(mod, board, board.button("My move")["custom_id"])
    assert "You are not playing in game" in await private_reply(rec)
    panel, cid = await wait_dm_control(emu, alice, game_id, "pick")
    assert "'abc' is not a whole number" in await by_modal(emu, alice, panel, cid, "abc")
    assert "'4.5' is not a whole number" in await by_modal(emu, alice, panel, cid, "4.5")
    assert "0 is out of range" in await by_modal(emu, alice, panel, cid, "0")
    for text, expected in (("seven", "not a whole number"), ("12", "12 is out of range")):
        await emu.send_dm(alice, text)
        await emu.wait_idle()
        assert expected in emu.dm_messages(alice)[-1].content
    await emu.send_dm(mod, "3")
    await emu.wait_idle()
    assert "None of your games is waiting" in emu.dm_messages(mod)[-1].content
    await emu.wait_idle()
    assert db_snapshot(bot_db) == snapshot

    # Alice picks; picking again, by any path, is refused privately and changes nothing.
    since = public_keys(emu)
    await pick(emu, scene, game_id, alice, "command", 5)
    assert_hidden(emu, since, 5, 3)
    snapshot = db_snapshot(bot_db)
    rec = await emu.slash(alice, scene.channel, "numbers pick", number=6)
    refused = await private_reply(rec)
    assert "You already picked 5 for this move, and a pick is final." in refused
    # Her DM panel was brought up to date: it shows the pick and offers no Pick button any more.
    panel = dm_panel(emu, alice, game_id)
    assert not any(cid.endswith(":pick") for cid in panel.custom_ids) and "5" in panel.content
    await emu.send_dm(alice, "6")
    await emu.wait_idle()
    assert "None of your games is waiting" not in emu.dm_messages(alice)[-1].content  # one answer
    assert "You already picked 5 for this move" in emu.dm_messages(alice)[-1].content
    assert await emu.autocomplete(alice, scene.channel, "numbers pick", focused="number", number="") == []
    choices = await emu.autocomplete(bob, scene.channel, "numbers pick", focused="number", number="5")
    assert [c["value"] for c in choices] == [5]  # bob's own numbers: alice's pick does not matter
    await emu.wait_idle()
    assert db_snapshot(bot_db) == snapshot
    # Bob, without DMs, sees his panel under the board; it does not depend on alice's pick.
    board = latest_board(emu, scene.channel)
    await private_reply(await emu.click(bob, board, board.button("My move")["custom_id"]))
    shown = private_panel(emu, bob, game_id).content
    assert "**Pick a number from 1 to 7**" in shown and "picked" not in shown
    await assert_panel_blind(bot_harness, await game_of(bot_harness, game_id), 1, shown)
    assert_hidden(emu, since, 5, 3)

    _, board = await pick(emu, scene, game_id, bob, "button", 5)
    assert "→ `_`. The list: `_`" in board.content

    # Numbers already played, by either player, in this round or an earlier one.
    snapshot = db_snapshot(bot_db)
    rec = await emu.slash(alice, scene.channel, "numbers pick", number=5)
    assert "You already played 5 (earlier this round)." in await private_reply(rec)
    board = latest_board(emu, scene.channel)
    await private_reply(await emu.click(bob, board, board.button("My move")["custom_id"]))
    panel = private_panel(emu, bob, game_id)
    answer = await by_modal(emu, bob, panel, panel.button("Pick")["custom_id"], "5")
    assert "You already played 5 (earlier this round)" in answer
    await emu.wait_idle()
    assert db_snapshot(bot_db) == snapshot

    # Round 1: 5 = 5, 1 < 2, 2 > 1: the list _01, D = {1, 5}: 2 points each.
    for a, b in ((1, 2), (2, 1), (3, 3), (4, 4)):
        await pick(emu, scene, game_id, alice, "command", a)
        await pick(emu, scene, game_id, bob, "command", b)
        if (a, b) == (2, 1):
            snapshot = db_snapshot(bot_db)
            rec = await emu.slash(bob, scene.channel, "numbers pick", number=1)
            assert "You already played 1 (in round 1)." in await private_reply(rec)
            assert db_snapshot(bot_db) == snapshot
    # Alice opens the form for the last pick, but picks by command; bob's pick ends the game.
    panel, cid = await wait_dm_control(emu, alice, game_id, "pick")
    stale = await emu.click(alice, panel, cid)
    await stale.response()
    await pick(emu, scene, game_id, alice, "command", 6)
    _, final = await pick(emu, scene, game_id, bob, "command", 7)
    # Round 2: 3 = 3, 4 = 4, 6 < 7: the list __0, D = {0, 2, 4, 6}; alice played 4 and 6, bob 4.
    assert (
        "The list `__0`: the numbers that score, D = {0, 2, 4, 6} (4 numbers; in binary `000`, `010`, "
        "`100`, `110`)." in (final.content)
    )
    assert f"This round: <@{alice.id}> 2 points (4, 6); <@{bob.id}> 1 point (4)." in final.content
    assert f"🏆 <@{alice.id}> wins: the higher total (4 to 3)." in final.content
    game = await game_of(bot_harness, game_id)
    assert game.row.status == "finished"

    # Picking once the game is over: the command, the stale form, a DM reply.
    snapshot = db_snapshot(bot_db)
    rec = await emu.slash(alice, scene.channel, "numbers pick", number=1)
    assert f"Game #{game_id} is over" in await private_reply(rec)
    sub = await emu.submit_modal(alice, stale, values={"number": "1"})
    assert f"Game #{game_id} is over" in await private_reply(sub)
    await emu.send_dm(alice, "1")
    await emu.wait_idle()
    assert "None of your games is waiting" in emu.dm_messages(alice)[-1].content
    await emu.wait_idle()
    assert db_snapshot(bot_db) == snapshot
    assert_discord_accepted_all(emu, closed_dms=1)  # Bob's


async def test_forfeit_with_a_pick_pending_reveals_nothing(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    alice, bob = scene.alice, scene.bob
    game_id = await open_game(emu, scene.channel, alice, bob, m=4, timeout="2h")
    assert "m = 4, 2 hours per move" in latest_board(emu, scene.channel).content
    since = public_keys(emu)
    await pick(emu, scene, game_id, alice, "command", 13)
    before = news_mark(emu, scene.channel)
    await (await emu.slash(bob, scene.channel, "game leave")).response()
    final = await news_since(emu, scene.channel, before)
    assert f"<@{bob.id}> left the game (forfeit)." in final.content
    assert f"🏆 <@{alice.id}> wins: the other player left the game." in final.content
    game = await game_of(bot_harness, game_id)
    assert game.row.status == "finished" and game.state.pending == (None, None)
    for payload in emu.all_public_payloads():
        if (payload.message_id, repr(payload.body), payload.attachments) in since:
            continue
        # The text and what the controls say (their layout numbers, "type": 2, are not the pick).
        labels = [
            f"{c.get('label', '')} {c.get('custom_id', '')} {c.get('options', '')}"
            for row in payload.body.get("components") or []
            for c in row.get("components", [])
        ]
        blob = IDS.sub("", " ".join([str(payload.body.get("content")), *labels]))
        assert not re.search(r"(?<!\d)13(?!\d)", blob) and "1101" not in blob, blob
    assert all("13" not in IDS.sub("", m.content) for m in emu.dm_messages(bob))
