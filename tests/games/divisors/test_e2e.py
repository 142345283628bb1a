"""The Numerical Card Game end to end: the real bot, through the emulator, by every input path.

Fresh piles and pending cards are secret. After every game a leak check replays the move log and
asserts that each public board image is exactly the drawing of the public view at its version, that no
public text shows a fresh pile or a pending card, and that no public control carries a value.
"""

from __future__ import annotations

import io
import re

import pytest
from PIL import Image

from cogs.divisors import rules as D
from cogs.divisors.present import card_label
from cogs.divisors.render import render_board
from tests.e2e.driver import (
    assert_discord_accepted_all,
    assert_png,
    bot_messages,
    closed_dm_notice,
    db_snapshot,
    dm_changes,
    dm_mark,
    dm_panel,
    latest_board,
    news_mark,
    news_since,
    private_reply,
    start_game,
    typed_answer,
)
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness
from tests.emulator.models import InteractionRecord, MessageRecord
from tests.emulator.world import Channel, Scene, User


async def open_game(emu: DiscordEmulator, channel: Channel, host: User, *others: User, **options: int) -> int:
    return await start_game(emu, channel, "divisors new", host, *others, **options)


async def state_of(harness: BotHarness, game_id: int) -> D.State:
    return (await harness.bot.services.games.get(game_id)).state


def pick_control(message: MessageRecord) -> str | None:
    ids = [cid for cid in message.custom_ids if cid.endswith(":pick")]
    return ids[0] if ids else None


async def dm_menu(emu: DiscordEmulator, user: User, game_id: int) -> MessageRecord:
    """Wait for the newest DM panel of the game to carry the card menu."""

    def find() -> MessageRecord | None:
        panel = dm_panel(emu, user, game_id)
        return panel if pick_control(panel) else None

    found: MessageRecord = await emu.wait_until(find, what=f"{user.name}'s DM menu")
    return found


async def pick(
    emu: DiscordEmulator, channel: Channel, game_id: int, user: User, card: int, how: str
) -> tuple[str, MessageRecord]:
    """Pick ``card`` by ``how`` (select: the DM menu; command; button: My move, then the private
    menu; typed: a DM reply). Returns the private answer and the channel post."""
    before = news_mark(emu, channel)
    if how == "select":
        panel = await dm_menu(emu, user, game_id)
        menu = pick_control(panel)
        assert menu is not None
        rec = await emu.select(user, panel, menu, [str(card)])
        await rec.response()
        answer = emu.message(panel.id).content  # the DM panel is answered in place
    elif how == "command":
        answer = await private_reply(await emu.slash(user, channel, "divisors pick", card=card))
    elif how == "button":
        board = latest_board(emu, channel)
        shown = await emu.click(user, board, board.button("My move")["custom_id"])
        await private_reply(shown)
        panel = shown.messages[-1]
        menu = pick_control(panel)
        assert menu is not None, panel.content
        await (await emu.select(user, panel, menu, [str(card)])).response()
        answer = emu.message(panel.id).content  # the private panel is answered in place
    else:
        assert how == "typed"
        answer = await typed_answer(emu, user, f"{card}")
    post = await news_since(emu, channel, before)
    return answer, post


def pixels(png: bytes) -> bytes:
    """The picture itself (the PNG palette's order depends on what was drawn before)."""
    with Image.open(io.BytesIO(png)) as image:
        return image.convert("RGB").tobytes()


def strip_ids(text: str) -> str:
    return re.sub(r"<[@#]!?\d+>|game #\d+|#\d+", "", text)


async def assert_no_leaks(emu: DiscordEmulator, harness: BotHarness, game_id: int) -> None:
    service = harness.bot.services
    game = await service.games.get(game_id)
    moves = await harness.bot.storage.moves(game_id=game_id)
    state = D.new_game(len(game.row.seats), game.row.options, game.row.seed)
    states = [state]
    for move in moves:
        state = (
            D.forfeit(state, move.seat)
            if move.action["type"] == "forfeit"
            else D.apply(state, move.seat, move.action)
        )
        states.append(state)
    first_version = game.row.version - len(moves)
    piles = {
        " · ".join(card_label(v, c) for v, c in D.view_for(s, seat).hand)
        for s in states
        for seat in range(s.n_players)
        if len(s.fresh[seat]) >= 2
    }
    boards = 0
    for payload in emu.all_public_payloads():
        if payload.kind != "message":
            continue
        content = str(payload.body["content"] or "")
        blob = repr(payload.body)
        assert "your fresh pile" not in blob.lower(), blob[:300]
        for pile in piles:
            assert pile not in blob, f"a fresh pile leaked: {pile!r} in {blob[:300]}"
        for row in payload.body["components"] or []:
            for component in row.get("components", []):
                cid = component.get("custom_id", "")
                assert re.fullmatch(r"q:\d+:(\d+|-):[a-z_]+", cid), f"a control carries a value: {cid}"
        if "has chosen a card" in content:  # a quiet pick: no card value at all in what it says
            said = content[content.index("has chosen a card") :]
            assert not re.search(r"\d", strip_ids(said)), content
        for filename, data in payload.attachments:
            m = re.fullmatch(rf"divisors-{game_id}-(\d+)\.png", filename)
            if m is None:
                continue
            at = states[int(m[1]) - first_version]
            expected = render_board(D.view_for(at, None), game.row.names)
            assert pixels(data) == pixels(expected), f"board {filename} is not the public view's drawing"
            boards += 1
    assert boards > 0


# ---- a whole game ---------------------------------------------------------------------------------


@pytest.mark.both_dbs
async def test_three_players_m6_by_every_input_path_with_a_restart(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    alice, bob, carol = scene.alice, scene.bob, scene.carol
    game_id = await open_game(emu, scene.channel, alice, bob, carol, m=6)
    channel = scene.channel

    # The start: a board with My move, the first round named; every pile by DM, only there.
    board = latest_board(emu, channel)
    assert_png(board)
    assert "m = 6" in board.content
    assert f"<@{bob.id}> against <@{carol.id}> (<@{alice.id}> sits out)." in board.content
    assert f"Waiting for <@{bob.id}> and <@{carol.id}>." in board.content
    assert [b["label"] for b in board.buttons()] == ["My move", "Rules"]
    assert "Your fresh pile (6 cards): 1 · 2 · 3 · 4 · 5 · 6" in dm_panel(emu, alice, game_id).content
    assert "You sit out" in dm_panel(emu, alice, game_id).content
    assert pick_control(dm_panel(emu, alice, game_id)) is None
    assert pick_control(dm_panel(emu, bob, game_id)) is not None
    choices = await emu.autocomplete(carol, channel, "divisors pick", focused="card", card="")
    assert [c["value"] for c in choices] == [1, 2, 3, 4, 5, 6]

    # Cycle 1, round 1: bob by the DM menu, then a restart with his card pending, then carol by My move.
    answer, post = await pick(emu, channel, game_id, bob, 6, "select")
    assert "Your card **6** is in" in answer and "You picked **6**" in answer
    # A pick still secret edits the board's text: who has chosen, whose move.
    assert post.content.endswith(f"<@{carol.id}>, your move.") and post.id == latest_board(emu, channel).id
    assert f"<@{bob.id}> has chosen a card." in post.content
    assert (await state_of(bot_harness, game_id)).picks == (None, 6, None)
    await bot_harness.restart()
    answer, post = await pick(emu, channel, game_id, carol, 6, "button")
    assert "✅ Both cards are in." in answer
    assert f"Your last pairing: <@{bob.id}>'s **6** against your **6**: equal cards, +2 each" in answer
    assert_png(post)
    assert (
        f"Revealed: <@{bob.id}>'s **6** against <@{carol.id}>'s **6**: equal cards, +2 each; "
        "both cards go to the moldy piles." in post.content
    )
    assert f"Cycle 1, round 2: <@{alice.id}> against <@{carol.id}> (<@{bob.id}> sits out)." in post.content
    state = await state_of(bot_harness, game_id)
    assert state.scores == (0, 2, 2) and state.moldy == ((), (6,), (6,))

    # Round 2: alice by command, carol by a typed DM. 2 divides 4: +2 to alice.
    answer, post = await pick(emu, channel, game_id, alice, 2, "command")
    assert "Your card **2** is in" in answer
    answer, post = await pick(emu, channel, game_id, carol, 4, "typed")
    assert (
        f"Your last pairing: <@{alice.id}>'s **2** against your **4**: 2 divides 4, +2 to <@{alice.id}>"
        in answer
    )
    assert (
        f"<@{alice.id}>'s **2** against <@{carol.id}>'s **4**: 2 divides 4, +2 to <@{alice.id}>"
        in post.content
    )
    # Round 3: alice by a typed DM, bob by command. Equal: +2 each.
    await pick(emu, channel, game_id, alice, 3, "typed")
    await pick(emu, channel, game_id, bob, 3, "command")
    assert "Cycle 2, round 1" in bot_messages(emu, channel)[-1].content
    # Cycle 2. Bob's 1 against carol's 5: +2 to bob, exchanged.
    await pick(emu, channel, game_id, bob, 1, "select")
    _, post = await pick(emu, channel, game_id, carol, 5, "command")
    assert (
        "a 1 against a bigger card, +2 to" in post.content
        and "the cards are exchanged into the fresh piles" in post.content
    )
    state = await state_of(bot_harness, game_id)
    assert state.fresh[1] == (2, 4, 5, 5) and state.fresh[2] == (1, 1, 2, 3)
    # Alice's 4 against carol's 2 (both by the DM menu): +2 to carol. Then 6 against 4: +1 each.
    await pick(emu, channel, game_id, alice, 4, "select")
    await pick(emu, channel, game_id, carol, 2, "select")
    await pick(emu, channel, game_id, alice, 6, "button")
    _, post = await pick(emu, channel, game_id, bob, 4, "typed")
    assert "common factor 2, +1 each; both cards go to the moldy piles" in post.content
    # Cycle 3: bob holds two 5s, and his menu says so. 5 against 3: coprime, exchanged.
    panel = await dm_menu(emu, bob, game_id)
    assert "Your fresh pile (3 cards): 2 · 5 ×2" in panel.content
    menu = panel.component(pick_control(panel) or "")
    assert menu is not None
    assert [o["label"] for o in menu["options"]] == ["2", "5 ×2"]
    await pick(emu, channel, game_id, bob, 5, "select")
    _, post = await pick(emu, channel, game_id, carol, 3, "typed")
    assert "coprime, no points; the cards are exchanged" in post.content
    # Alice's 5 against carol's 5: the fresh cards left are 1 | 2, 3, 5 | 1: the dead rule ends it.
    await pick(emu, channel, game_id, alice, 5, "command")
    _, final = await pick(emu, channel, game_id, carol, 5, "select")
    assert_png(final)
    assert "The termination rule **dead** ends the game." in final.content
    assert "no two fresh cards above 1 share a factor any more" in final.content
    assert f"<@{alice.id}> and <@{bob.id}> share the win" in final.content
    assert [b["label"] for b in final.buttons()] == ["Rematch"]  # the game's only control now
    state = await state_of(bot_harness, game_id)
    assert state.end_reason == D.END_DEAD and state.scores == (7, 7, 6)
    row = (await bot_harness.bot.services.games.get(game_id)).row
    assert row.status == "finished" and row.result is not None and row.result["winners"] == [0, 1]
    assert await bot_harness.bot.services.history.replay(game_id) == state
    for user, score in ((alice, 7), (bob, 7), (carol, 6)):  # DM panels end without controls
        await emu.wait_until(lambda u=user: "The game is over" in dm_panel(emu, u, game_id).content)
        panel = dm_panel(emu, user, game_id)
        assert f"Your final score: {score}." in panel.content and panel.custom_ids == []
    await assert_no_leaks(emu, bot_harness, game_id)
    assert_discord_accepted_all(emu)


# ---- a pick edits the board's text, not its image --------------------------------------------------


async def test_a_pick_edits_the_boards_text_and_its_image_stays_true(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    """A pick is quiet: the board's text is edited to say who has chosen, its image is not redrawn.
    So the image (and its alt text) must not say who has picked: after Alice's pick it still reads as
    it did, and it is exactly the drawing of the public view after her pick, not an older truth
    ("choosing: Alice, Bob" or an empty slot where her face-down card now is)."""
    alice, bob, channel = scene.alice, scene.bob, scene.channel
    game_id = await open_game(emu, channel, alice, bob, m=6)
    board = latest_board(emu, channel)
    (attachment,) = board.attachments
    image, alt = attachment.data, attachment.description or ""
    assert f"Waiting for <@{alice.id}> and <@{bob.id}>." in board.content
    assert "cards shown when both have picked" in alt and "choosing" not in alt

    answer, post = await pick(emu, channel, game_id, alice, 4, "command")
    assert "Your card **4** is in" in answer
    # The same message, its text edited: who has chosen, who is still choosing.
    assert post.id == board.id and len([m for m in bot_messages(emu, channel) if m.attachments]) == 1
    assert f"<@{alice.id}> has chosen a card." in post.content
    assert post.content.endswith(f"<@{bob.id}>, your move.")
    # Its image stays, and stays true: the public view after the pick draws the very same picture.
    assert [(a.data, a.description) for a in post.attachments] == [(image, alt)]
    state = await state_of(bot_harness, game_id)
    assert state.picks == (4, None)
    names = (await bot_harness.bot.services.games.get(game_id)).row.names
    assert pixels(render_board(D.view_for(state, None), names)) == pixels(image)
    assert "has picked" not in alt and "picked ✓" not in alt

    # Bob's pick reveals the pairing: a new board, drawn with both cards.
    _, post = await pick(emu, channel, game_id, bob, 2, "typed")
    assert post.id != board.id and post.attachments[0].data != image
    assert f"<@{alice.id}>'s **4** against <@{bob.id}>'s **2**" in post.content
    await assert_no_leaks(emu, bot_harness, game_id)


# ---- bad input, drop, forfeit, closed DMs ---------------------------------------------------------


async def refused(rec: InteractionRecord, expected: str) -> None:
    text = await private_reply(rec)
    assert expected in text, text


async def test_bad_inputs_drop_forfeit_and_closed_dms(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness, bot_db: str
) -> None:
    alice, bob, carol, mod = scene.alice, scene.bob, scene.carol, scene.mod
    channel = scene.channel
    emu.close_dms(carol)
    game_id = await open_game(emu, channel, alice, bob, carol)  # m = 12 by default
    assert "m = 12" in latest_board(emu, channel).content
    assert "My move" in closed_dm_notice(emu, channel, carol).content
    board = latest_board(emu, channel)
    mine = board.button("My move")["custom_id"]

    # Round 1 is bob against carol; alice sits out. Bad inputs: each answered privately, nothing changes.
    snapshot = db_snapshot(bot_db)
    await refused(await emu.slash(alice, channel, "divisors pick", card=3), "no pairing left in this round")
    await refused(await emu.slash(bob, channel, "divisors pick", card=20), "Cards run from 1 to 12")
    await refused(await emu.slash(mod, channel, "divisors pick", card=3), "not playing")
    await refused(await emu.slash(mod, channel, "divisors drop"), "not playing")
    await refused(await emu.slash(mod, channel, "divisors pile"), "not playing")
    await refused(await emu.click(mod, board, mine), "not playing")
    assert await emu.autocomplete(mod, channel, "divisors pick", focused="card", card="") == []
    await emu.send_dm(bob, "seven")
    await emu.wait_until(lambda: "could not read 'seven'" in emu.dm_messages(bob)[-1].content, what="answer")
    await emu.send_dm(alice, "3")
    await emu.wait_until(lambda: "you sit out the rest of this round" in emu.dm_messages(alice)[-1].content)
    assert "None of your games is waiting" not in emu.dm_messages(alice)[-1].content  # one answer
    await emu.wait_idle()
    assert db_snapshot(bot_db) == snapshot

    # Bob picks by command: his DM panel follows (no menu any more). Picking twice is refused.
    await pick(emu, channel, game_id, bob, 6, "command")
    panel = dm_panel(emu, bob, game_id)
    assert "You picked **6**" in panel.content and pick_control(panel) is None
    snapshot = db_snapshot(bot_db)
    await refused(await emu.slash(bob, channel, "divisors pick", card=5), "already picked")
    await emu.send_dm(bob, "5")
    await emu.wait_until(lambda: "you already chose your card" in emu.dm_messages(bob)[-1].content)
    # A second typed card is told why, as in Numbers (only that: one answer): the pick is already in.
    assert "None of your games is waiting" not in emu.dm_messages(bob)[-1].content
    assert (
        f"Game #{game_id} (The Numerical Card Game): you already chose your card (6), and a pick is final. "
        f"Waiting for <@{carol.id}>'s card." in emu.dm_messages(bob)[-1].content
    )
    await emu.wait_idle()
    assert db_snapshot(bot_db) == snapshot
    # Carol (closed DMs) sees her pile privately and picks from it.
    shown = await private_reply(await emu.slash(carol, channel, "divisors pile"))
    assert "Your fresh pile (12 cards)" in shown
    await pick(emu, channel, game_id, carol, 6, "button")
    # A card carol does not hold any more.
    snapshot = db_snapshot(bot_db)
    await refused(
        await emu.slash(carol, channel, "divisors pick", card=6),
        "You have no 6 in your fresh pile. Your cards: 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12.",
    )
    choices = await emu.autocomplete(carol, channel, "divisors pick", focused="card", card="1")
    assert [c["value"] for c in choices] == [1, 10, 11, 12]
    await emu.wait_idle()
    assert db_snapshot(bot_db) == snapshot

    # Round 2 is alice against carol. Alice opens her panel by My move (a menu that stays on screen),
    # then drops: the pairing is void, round 3 (alice-bob) is skipped.
    shown_rec = await emu.click(alice, latest_board(emu, channel), mine)
    await private_reply(shown_rec)
    stale = shown_rec.messages[-1]
    assert pick_control(stale) is not None
    before = news_mark(emu, channel)
    answer = await private_reply(await emu.slash(alice, channel, "divisors drop"))
    assert "You dropped out" in answer
    post = await news_since(emu, channel, before)
    assert_png(post)
    assert f"<@{alice.id}> dropped out, keeping 0 points" in post.content
    assert "their 12 fresh cards leave play" in post.content
    assert f"Cycle 2, round 1: <@{bob.id}> against <@{carol.id}>." in post.content
    state = await state_of(bot_harness, game_id)
    assert state.status[0] == D.DROPPED and state.left[0] == tuple(range(1, 13))
    panel = dm_panel(emu, alice, game_id)
    assert "You dropped out of this game" in panel.content and pick_control(panel) is None
    # Bad input after dropping: commands, and the menu still on alice's screen.
    snapshot = db_snapshot(bot_db)
    await refused(await emu.slash(alice, channel, "divisors pick", card=2), "You dropped out of this game")
    await refused(await emu.slash(alice, channel, "divisors drop"), "You dropped out of this game")
    await refused(await emu.select(alice, stale, pick_control(stale) or "", ["2"]), "You dropped out")
    await emu.wait_idle()
    assert db_snapshot(bot_db) == snapshot

    # Bob picks by his DM menu, then carol forfeits (/game leave): the pairing is void, bob's card
    # stays his and is never shown, and the game ends; alice (dropped) and bob could win, carol not.
    await pick(emu, channel, game_id, bob, 7, "select")
    before = news_mark(emu, channel)
    await private_reply(await emu.slash(carol, channel, "game leave"))
    final = await news_since(emu, channel, before)
    assert f"<@{carol.id}> left the game (forfeit)" in final.content
    assert f"<@{bob.id}> wins" in final.content
    assert not re.search(r"\b7\b", strip_ids(final.content)), final.content
    state = await state_of(bot_harness, game_id)
    assert state.end_reason == D.END_PLAYERS and 7 in state.fresh[1] and state.scores == (0, 2, 2)
    # Every DM panel of the game now shows the end, without controls.
    for user in (alice, bob):
        await emu.wait_until(
            lambda u=user: "The game is over" in dm_panel(emu, u, game_id).content, what="a final DM panel"
        )
        assert dm_panel(emu, user, game_id).custom_ids == []

    # After the end: commands, old menus and typed answers are refused privately.
    snapshot = db_snapshot(bot_db)
    await refused(await emu.slash(bob, channel, "divisors pick", card=2), f"Game #{game_id} is over")
    await refused(await emu.slash(bob, channel, "divisors drop"), f"Game #{game_id} is over")
    await refused(
        await emu.select(alice, stale, pick_control(stale) or "", ["3"]), f"Game #{game_id} is over"
    )
    await emu.send_dm(bob, "2")
    await emu.wait_until(lambda: "None of your games is waiting" in emu.dm_messages(bob)[-1].content)
    await emu.wait_idle()
    assert db_snapshot(bot_db) == snapshot
    await assert_no_leaks(emu, bot_harness, game_id)
    assert_discord_accepted_all(emu, closed_dms=1)  # Carol's


async def test_the_no_progress_rule_ends_a_game(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    alice, bob = scene.alice, scene.bob
    game_id = await open_game(emu, scene.thread, alice, bob, m=2)
    # 1 against 2 twice: two exchanges, so no card went moldy during the last m = 2 cycles.
    await pick(emu, scene.thread, game_id, alice, 1, "typed")
    _, post = await pick(emu, scene.thread, game_id, bob, 2, "typed")
    assert "a 1 against a bigger card, +2 to" in post.content and "Cycle 2, round 1" in post.content
    await pick(emu, scene.thread, game_id, alice, 2, "typed")
    _, final = await pick(emu, scene.thread, game_id, bob, 1, "typed")
    assert "The termination rule **no progress** ends the game." in final.content
    assert "no card went moldy during the last 2 full cycles of the schedule" in final.content
    assert f"<@{alice.id}> and <@{bob.id}> share the win" in final.content
    state = await state_of(bot_harness, game_id)
    assert state.end_reason == D.END_NO_PROGRESS and state.scores == (2, 2)
    await assert_no_leaks(emu, bot_harness, game_id)


async def test_a_second_typed_card_gets_one_clear_answer(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    """A card typed in the DM after the player's pick is in: one answer, saying the pick is made
    and final (issue 24: it also said that none of their games was waiting for a typed answer)."""
    await start_game(emu, scene.channel, "divisors new", scene.alice, scene.bob)
    await typed_answer(emu, scene.alice, "6")
    mark = dm_mark(emu, scene.alice)
    answer = await typed_answer(emu, scene.alice, "5")
    assert len(dm_changes(emu, scene.alice, mark)) == 1, "one answer"
    assert "already chose your card (6)" in answer, answer
    assert "None of your games" not in answer, answer
