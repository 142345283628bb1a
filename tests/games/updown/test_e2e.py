"""Up-Down-Stay end to end: the real bot, through the emulator, by every input path.

Hands and predictions are secret: a leak check follows every game. The predictions used here are
long runs of S ("SSSSU"), which a shuffled row practically never shows, so finding one in a public
message would mean a leak, not a coincidence.
"""

from __future__ import annotations

from typing import Any

from cogs.updown import rules as updown
from cogs.updown.present import card_text
from cogs.updown.render import render_row
from tests.e2e.driver import (
    assert_discord_accepted_all,
    assert_png,
    boards,
    bot_messages,
    closed_dm_notice,
    db_snapshot,
    dm_panel,
    form_answer,
    latest_board,
    panel_messages,
    private_panel,
    private_reply,
    start_game,
    typed_answer,
    wait_dm_control,
)
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness
from tests.emulator.world import Channel, Scene, User


async def open_game(emu: DiscordEmulator, channel: Channel, host: User, *others: User) -> int:
    return await start_game(emu, channel, "updown new", host, *others)


async def new_board(emu: DiscordEmulator, channel: Channel, boards_before: int) -> None:
    await emu.wait_until(lambda: board_count(emu, channel) > boards_before, what="a new board")
    await emu.wait_idle()


def board_count(emu: DiscordEmulator, channel: Channel) -> int:
    return len(boards(emu, channel))


async def state_of(harness: BotHarness, game_id: int) -> updown.State:
    return (await harness.bot.services.games.get(game_id)).state


async def predict_by_modal(emu: DiscordEmulator, user: User, game_id: int, letters: str) -> str:
    panel, predict = await wait_dm_control(emu, user, game_id, "predict")
    rec = await emu.click(user, panel, predict)
    await rec.response()
    assert rec.modal is not None
    sub = await emu.submit_modal(user, rec, values={"letters": letters})
    text = await form_answer(sub, panel)
    await emu.wait_idle()
    return text


async def predict_by_reply(emu: DiscordEmulator, user: User, game_id: int, letters: str) -> str:
    """A prediction typed in the DM: answered by the DM panel, edited in place."""
    panels = panel_messages(emu, user, game_id)
    answer = await typed_answer(emu, user, letters)
    assert panel_messages(emu, user, game_id) == panels, "a typed answer is not a new DM panel"
    return answer


async def place_all(
    emu: DiscordEmulator, harness: BotHarness, scene: Scene, game_id: int, users: list[User], *, by: str
) -> None:
    """Place every card of the current deal: lowest rank first, by DM select or by command."""
    deal = (await state_of(harness, game_id)).deal
    for _ in range(60):
        state = await state_of(harness, game_id)
        if state.phase != "place" or state.deal != deal:
            return
        user = users[state.turn]
        rank = updown.card_rank(state.hands[state.turn][0])
        boards = board_count(emu, scene.channel)
        if by == "select" or (by == "mixed" and len(state.row) % 2 == 0):
            panel, play = await wait_dm_control(emu, user, game_id, "play")
            rec = await emu.select(user, panel, play, [str(rank)])
        else:
            rec = await emu.slash(user, scene.channel, "updown play", card=updown.rank_label(rank))
        response = await rec.response()
        assert response.ephemeral or rec.channel.is_dm, "a card play is answered privately"
        await new_board(emu, scene.channel, boards)
    raise AssertionError("the deal did not end")


def assert_no_leaks(emu: DiscordEmulator, secrets: list[str], cards: set[str]) -> None:
    """No secret string and no unplayed card anywhere in public: text, components, custom ids."""
    for payload in emu.all_public_payloads():
        blob = repr(payload.body)
        for secret in secrets:
            assert secret not in blob, f"prediction {secret!r} leaked: {blob[:300]}"
        for card in cards:
            assert card_text(card) not in blob, f"card {card} leaked: {blob[:300]}"


async def test_two_players_modal_reply_select_command_and_playoff(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    alice, bob = scene.alice, scene.bob
    game_id = await open_game(emu, scene.channel, alice, bob)
    state = await state_of(bot_harness, game_id)
    assert [len(h) for h in state.hands] == [26, 26]
    # Each player got their hand by DM, sorted, with suits, naming the game, server and channel.
    for seat, user in enumerate((alice, bob)):
        panel = dm_panel(emu, user, game_id)
        assert scene.guild.name in panel.content and f"<#{scene.channel.id}>" in panel.content
        assert " ".join(card_text(c) for c in state.hands[seat]) in panel.content
        assert "(the cards you lack)" in panel.content  # two players: the opponent's hand too
    board = latest_board(emu, scene.channel)
    assert_png(board)
    assert "My hand" in [b.get("label") for b in board.buttons()]
    (attachment,) = board.attachments

    # Predictions: alice by the DM form, bob by a typed DM reply; alice then changes hers.
    text = await predict_by_modal(emu, alice, game_id, "sssS u")
    assert "SSSSU" in text
    quiet = latest_board(emu, scene.channel)  # a prediction edits the board's text: nothing new posted
    assert "has predicted" in quiet.content and "SSSSU" not in quiet.content
    # Its image stays, and stays true: the public view after the prediction draws the same picture,
    # and neither it nor its alt text says who has predicted (the text above it does).
    assert quiet.id == board.id and quiet.attachments == [attachment]
    after = updown.view_for(await state_of(bot_harness, game_id), None)
    assert render_row(after, (await bot_harness.bot.services.games.get(game_id)).row.names) == attachment.data
    assert "predicted" not in (attachment.description or "")
    text = await predict_by_modal(emu, alice, game_id, "SSSSD")
    assert "SSSSD" in text
    hand_before = list((await state_of(bot_harness, game_id)).hands)
    assert_no_leaks(emu, ["SSSSU", "SSSSD"], {c for h in hand_before for c in h})
    reply = await predict_by_reply(emu, bob, game_id, "ssssu")
    assert "SSSSU" in reply
    state = await state_of(bot_harness, game_id)
    assert state.phase == "place" and state.predictions == ("SSSSD", "SSSSU")
    assert "places first" in latest_board(emu, scene.channel).content
    # Bob's DMs never show alice's prediction.
    assert all("SSSSD" not in m.content for m in emu.dm_messages(bob))

    # Placing: by DM select and by command, alternately.
    await place_all(emu, bot_harness, scene, game_id, [alice, bob], by="mixed")
    assert_no_leaks(emu, [], set())
    state = await state_of(bot_harness, game_id)
    # Both predictions of four S in a row miss: a tie at 0, so a playoff with fresh hands by DM.
    assert state.deal == 1 and state.phase == "predict"
    reveal = bot_messages(emu, scene.channel)[-1]
    assert "The reveal" in reveal.content and "SSSSU" in reveal.content and "SSSSD" in reveal.content
    assert "playoff 1" in reveal.content
    assert "Your hand (playoff 1)" in dm_panel(emu, alice, game_id).content

    await predict_by_modal(emu, alice, game_id, "U")
    await predict_by_reply(emu, bob, game_id, "SSSSS")
    await place_all(emu, bot_harness, scene, game_id, [alice, bob], by="select")
    final = bot_messages(emu, scene.channel)[-1]
    assert_png(final)
    assert f"<@{alice.id}> wins" in final.content
    assert [b["label"] for b in final.buttons()] == ["Rematch"]  # the game's only control now
    row = (await bot_harness.bot.services.games.get(game_id)).row
    assert row.status == "finished" and row.result is not None and row.result["winners"] == [0]
    replayed = await bot_harness.bot.services.history.replay(game_id)
    assert replayed == await state_of(bot_harness, game_id)
    assert_discord_accepted_all(emu)


async def test_four_players_closed_dms_restarts_and_bad_inputs(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness, bot_db: str
) -> None:
    alice, bob, carol, dave, mod = scene.alice, scene.bob, scene.carol, scene.dave, scene.mod
    emu.close_dms(dave)
    game_id = await open_game(emu, scene.channel, alice, bob, carol, dave)
    state = await state_of(bot_harness, game_id)
    assert [len(h) for h in state.hands] == [13, 13, 13, 13]
    # Dave's DMs are closed: one notice in the channel, naming the fallback, revealing nothing.
    closed_dm_notice(emu, scene.channel, dave)
    assert emu.dm_messages(dave) == []

    # Bad predictions and plays: a private answer each, nothing changes.
    snapshot = db_snapshot(bot_db)
    cases: list[tuple[User, str, dict[str, Any], str]] = [
        (alice, "updown predict", {"letters": "UXD"}, "only U (up), D (down) and S (same)"),
        (alice, "updown predict", {"letters": "U" * 52}, "use 1 to 51 letters"),
        (alice, "updown predict", {"letters": "   "}, "empty"),
        (mod, "updown predict", {"letters": "UD"}, "not playing"),
        (alice, "updown play", {"card": "7"}, "Placing starts once every player has predicted"),
        (alice, "updown play", {"card": "Z"}, "not a card value"),
    ]
    for user, command, options, expected in cases:
        rec = await emu.slash(user, scene.channel, command, **options)
        assert expected in await private_reply(rec), (command, options)
    await emu.send_dm(mod, "UUD")
    await emu.wait_idle()
    assert "None of your games is waiting" in emu.dm_messages(mod)[-1].content
    # A prediction typed as words: the comma is named as commas, never listed as a letter.
    await emu.send_dm(alice, "up, down")
    await emu.wait_idle()
    answer = emu.dm_messages(alice)[-1].content
    assert "P, O, W, N and commas are not allowed. To predict up, down, type UD." in answer, answer
    assert ",," not in answer
    board = latest_board(emu, scene.channel)
    mine = board.button("My hand")["custom_id"]
    assert "not playing" in await private_reply(await emu.click(mod, board, mine))
    await emu.wait_idle()
    assert db_snapshot(bot_db) == snapshot

    # Predictions by command, DM form, typed DM, and (dave) the My hand button's form.
    rec = await emu.slash(alice, scene.channel, "updown predict", letters="u")
    assert "`U` is in" in await private_reply(rec)
    await predict_by_modal(emu, bob, game_id, "SSSSU")
    await bot_harness.restart()  # between predictions: nothing is lost
    await predict_by_reply(emu, carol, game_id, "SSSSD")
    shown = await private_reply(await emu.click(dave, latest_board(emu, scene.channel), mine))
    assert " ".join(card_text(c) for c in state.hands[3]) in shown
    panel = private_panel(emu, dave, game_id)
    rec = await emu.click(dave, panel, panel.button("Predict")["custom_id"])
    await rec.response()
    await (await emu.submit_modal(dave, rec, values={"letters": "SSSSS"})).response()
    await emu.wait_idle()
    state = await state_of(bot_harness, game_id)
    assert state.phase == "place" and state.predictions == ("U", "SSSSU", "SSSSD", "SSSSS")
    assert_no_leaks(emu, ["SSSSU", "SSSSD", "SSSSS"], {c for h in state.hands for c in h})

    # Placing-stage bad inputs.
    snapshot = db_snapshot(bot_db)
    missing = [r for r in range(1, 14) if all(updown.card_rank(c) != r for c in state.hands[0])]
    cases = [
        (bob, "updown play", {"card": updown.rank_label(updown.card_rank(state.hands[1][0]))}, "turn"),
    ]
    if missing:  # a 13-card hand nearly always lacks a rank
        cases.append((alice, "updown play", {"card": updown.rank_label(missing[0])}, "You hold no"))
    for user, command, options, expected in cases:
        rec = await emu.slash(user, scene.channel, command, **options)
        assert expected in await private_reply(rec), (command, options)
    await emu.wait_idle()
    assert db_snapshot(bot_db) == snapshot

    # Place half the row, restart, then finish; dave plays from his private panel.
    users = [alice, bob, carol, dave]
    for _ in range(26):
        state = await state_of(bot_harness, game_id)
        user = users[state.turn]
        rank = str(updown.card_rank(state.hands[state.turn][-1]))
        if user is dave:
            await private_reply(await emu.click(dave, latest_board(emu, scene.channel), mine))
            panel = private_panel(emu, dave, game_id)
            select = next(c for c in panel.all_components() if c.get("custom_id", "").endswith(":play"))
            rec = await emu.select(dave, panel, select["custom_id"], [rank])
        else:
            panel, play = await wait_dm_control(emu, user, game_id, "play")
            rec = await emu.select(user, panel, play, [rank])
        boards = board_count(emu, scene.channel)
        await rec.response()
        await new_board(emu, scene.channel, boards)
        if len(state.row) == 0:  # the first card is down: predictions are locked now
            snapshot = db_snapshot(bot_db)
            rec = await emu.slash(bob, scene.channel, "updown predict", letters="UD")
            assert "predictions are locked: yours stays SSSSU" in await private_reply(rec)
            await emu.wait_idle()
            assert db_snapshot(bot_db) == snapshot
    await bot_harness.restart()
    state = await state_of(bot_harness, game_id)
    assert len(state.row) == 26 and state.predictions == ("U", "SSSSU", "SSSSD", "SSSSS")
    assert_no_leaks(emu, ["SSSSU", "SSSSD", "SSSSS"], {c for h in state.hands for c in h})
    await place_all(emu, bot_harness, scene, game_id, users, by="command")
    final = bot_messages(emu, scene.channel)[-1]
    assert f"<@{alice.id}> wins" in final.content, final.content
    assert "`U` occurs from card" in final.content
    assert_discord_accepted_all(emu, closed_dms=1)  # Dave's


async def test_typed_answer_with_two_games_waiting_asks_which(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    alice, bob = scene.alice, scene.bob
    first = await open_game(emu, scene.channel, alice, bob)
    second = await open_game(emu, scene.thread, alice, bob)
    await emu.send_dm(alice, "SSSSU")
    await emu.wait_idle()
    question = emu.dm_messages(alice)[-1]
    assert "Which game" in question.content
    assert all("SSSSU" not in cid for cid in question.custom_ids)
    assert (await state_of(bot_harness, first)).predictions[0] is None
    await bot_harness.restart()  # the waiting answer survives a restart
    rec = await emu.click(
        alice, emu.message(question.id), question.button(f"#{second} Up-Down-Stay")["custom_id"]
    )
    await rec.response()
    await emu.wait_idle()
    assert (await state_of(bot_harness, second)).predictions[0] == "SSSSU"
    assert (await state_of(bot_harness, first)).predictions[0] is None
    # The question became the answer: game #2's panel, and no choice left to press again.
    answered = emu.message(question.id)
    assert f"game #{second}" in answered.content and "Your prediction `SSSSU` is in" in answered.content
    assert not any(":typed:" in cid for cid in answered.custom_ids)


async def test_a_form_opened_before_a_restart_is_taken_after_it(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    alice, bob = scene.alice, scene.bob
    game_id = await open_game(emu, scene.channel, alice, bob)
    panel, predict = await wait_dm_control(emu, alice, game_id, "predict")
    rec = await emu.click(alice, panel, predict)
    await rec.response()
    assert rec.modal is not None and "letters" in str(rec.modal)
    await bot_harness.restart()
    sub = await emu.submit_modal(alice, rec, values={"letters": "SSSSU"})
    answer = await form_answer(sub, panel)
    await emu.wait_idle()
    assert (await state_of(bot_harness, game_id)).predictions[0] == "SSSSU"
    assert "`SSSSU` is in" in answer
