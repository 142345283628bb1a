"""The bot killed (as SIGKILL would) right after it answered something: whatever it answered is saved,
and after the restart the game goes on as if nothing happened.

- a line drawn from the private "Where does it end?" menu of Lines By The Dots: the menu's answer
  ("drawn") comes only once the line is saved; a stale menu is refused privately;
- a move whose board is late while the next move is saved: each version gets its own board, showing
  that version;
- a secret pick after a restart edits the board's text as it would have without the restart;
- `/<game> new`, and each lobby click: the card keeps working (updated on join, the thread made at
  the start, the right notes).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.registry import RULES
from bot.service import Services
from bot.storage import Storage
from bot.table.replies import ANSWER_WITHIN
from cogs.dots import rules as dots
from cogs.procession import rules as procession
from tests.db import change, query
from tests.e2e.driver import (
    assert_clean,
    bot_messages,
    game_state,
    is_card,
    latest_board,
    lobby_message,
    move_count,
    private_reply,
    start_game,
)
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness
from tests.emulator.models import CallbackType, MessageRecord, Perm
from tests.emulator.world import Scene, User

SETTLE = 5.0  # seconds for what a move owes to arrive (after a restart, too)


# ---- Lines By The Dots: the private "Where does it end?" menu ---------------------------------------


def dots_posts(emu: DiscordEmulator, scene: Scene) -> list[MessageRecord]:
    return [m for m in bot_messages(emu, scene.channel) if m.content.startswith("**Lines By The Dots**")]


def menus(message: MessageRecord) -> list[dict[str, Any]]:
    return [c for c in message.all_components() if c.get("type") == 3]


async def open_picker(emu: DiscordEmulator, scene: Scene, start: str) -> tuple[int, MessageRecord]:
    """A 5 x 5 game of Alice and Bob; Alice picks the first line's start dot from the board: the game's
    id and her private "Where does it end?" menu."""
    await (await emu.slash(scene.alice, scene.channel, "dots new", size=5)).response()
    card = lobby_message(emu, scene.channel)
    game_id = int(card.custom_ids[0].split(":")[1])
    await (await emu.click(scene.bob, card, card.button("Join")["custom_id"])).response()
    await (await emu.click(scene.alice, card, card.button("Start")["custom_id"])).response()
    await emu.wait_until(lambda: dots_posts(emu, scene), timeout=SETTLE, what="the first board")
    await emu.wait_idle()
    board = dots_posts(emu, scene)[-1]
    menu = next(m for m in menus(board) if start in [o["value"] for o in m["options"]])
    rec = await emu.select(scene.alice, board, menu["custom_id"], [start])
    assert f"starts at {start}. Where does it end?" in await private_reply(rec)
    assert rec.original is not None
    return game_id, rec.original


async def test_a_line_from_the_private_menu_is_saved_before_the_menu_says_drawn(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness, bot_db: str
) -> None:
    game_id, picker = await open_picker(emu, scene, "C3")
    (menu,) = menus(picker)
    trap = emu.crash_after_next_answer(bot_harness, user=scene.alice, custom_id="*:to*")
    await (await emu.select(scene.alice, picker, menu["custom_id"], ["C5"])).response()
    assert trap.done and bot_harness.bot is None
    assert emu.message(picker.id).content == "Your line C3→C5: drawn."
    assert emu.message(picker.id).custom_ids == []
    assert move_count(bot_db, game_id) == 1  # saved before the answer said so

    await bot_harness.start()
    await emu.wait_until(
        lambda: any("C3→C5" in m.content for m in dots_posts(emu, scene)), timeout=SETTLE, what="its board"
    )
    await emu.wait_idle()
    stored = game_state(bot_db, game_id)
    assert stored is not None and len(dots.State.from_dict(stored).lines) == 1
    assert len([m for m in dots_posts(emu, scene) if "C3→C5" in m.content]) == 1
    assert_clean(emu)


async def test_a_stale_private_menu_is_refused_privately(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness, bot_db: str
) -> None:
    game_id, picker = await open_picker(emu, scene, "C3")
    (menu,) = menus(picker)
    # The line is drawn by command meanwhile: the menu's version is gone.
    await (await emu.slash(scene.alice, scene.channel, "dots line", {"to": "C1", "from": "C3"})).response()
    await emu.wait_idle()
    rec = await emu.select(scene.alice, picker, menu["custom_id"], ["C5"])
    assert "out of date" in await private_reply(rec)
    assert move_count(bot_db, game_id) == 1
    assert_clean(emu)


# ---- a late board, and the next move saved meanwhile ------------------------------------------------


async def test_a_late_board_shows_the_move_that_made_its_version_whatever_was_saved_since(
    database: str,
) -> None:
    """After a restart the late board of version V is drawn from the log (`Histories.history`).
    The next move may be committed after the game's row was read and before its log was: here a
    second service on the same database commits it, so the first one's row is older than the log,
    as in that moment. The board must still show V's move, not the next one."""
    storage = await Storage.open(database)
    try:
        drawing = Services.build(storage, RULES)
        lobby = drawing.lobby.open_lobby(
            kind="procession", guild_id=1, channel_id=100, host_id=10, host_name="Ann", options={"n": 5}
        )
        game = (await lobby).game
        await drawing.lobby.join(game.id, 11, "Bo")
        started = (await drawing.lobby.start(game.id, 10)).game
        state, users = started.state, started.row.seats

        def flip(state: procession.State) -> tuple[int, dict[str, object]]:
            seat = next(iter(procession.to_act(state)))
            return users[seat], {"type": "flip", "position": procession.legal_positions(state)[0]}

        first = await drawing.moves.act(game.id, *flip(state))
        version = first.after.row.version
        await Services.build(storage, RULES).moves.act(
            game.id, *flip(first.after.state)
        )  # the next move, meanwhile

        history = await drawing.history.history(game.id, until=version)
        step = history.step(version)
        assert (step.before.row, step.after.row) == (state.row, first.after.state.row)
        assert (step.seat, step.forfeit, history.start.row) == (first.seat, None, state.row)
        assert (await drawing.history.history(game.id)).step(version + 1).before.row == first.after.state.row
    finally:
        await storage.close()


# ---- a secret pick after a restart edits the board's text as it would have without it ---------------


async def pick(emu: DiscordEmulator, user: User, scene: Scene, number: int) -> MessageRecord:
    """``user`` picks ``number`` by command; the board, once the bot is idle."""
    await (await emu.slash(user, scene.channel, "numbers pick", number=number)).response()
    await emu.wait_idle()
    return latest_board(emu, scene.channel)


def above_status(board: MessageRecord) -> str:
    """A board's text above its status line (its last line)."""
    return board.content.rsplit("\n", 1)[0]


@pytest.mark.parametrize("restart", [False, True])
async def test_a_pick_after_a_restart_keeps_the_reveal_above_it(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness, restart: bool
) -> None:
    """Both pick 5 (the board shows the reveal); after a restart Alice's next pick, still secret,
    edits that board: the reveal stays above the line saying she has picked, as without a restart."""
    await start_game(emu, scene.channel, "numbers new", scene.alice, scene.bob, m=3)
    await pick(emu, scene.alice, scene, 5)
    board = await pick(emu, scene.bob, scene, 5)
    revealed = above_status(board)
    assert revealed.count("**5**") == 2
    if restart:
        await bot_harness.restart()
    edited = await pick(emu, scene.alice, scene, 4)
    assert edited.id == board.id
    assert edited.content.startswith(revealed + "\n")
    assert f"{scene.alice.mention} has picked." in edited.content
    assert_clean(emu)


@pytest.mark.threads
async def test_a_first_pick_after_a_restart_keeps_the_first_boards_note(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    """A game played in place for want of the thread permission: its first board says so, and the
    first pick, after a restart, edits that board without losing the note."""
    perms = emu.permissions(scene.guild, emu.bot_user) & ~Perm.CREATE_PUBLIC_THREADS
    emu.set_bot_permissions(scene.guild, perms)
    await start_game(emu, scene.channel, "numbers new", scene.alice, scene.bob, m=3)
    board = latest_board(emu, scene.channel)
    first = above_status(board)
    assert "may not start threads" in first
    await bot_harness.restart()
    edited = await pick(emu, scene.alice, scene, 5)
    assert edited.id == board.id
    assert edited.content.startswith(first + "\n")
    assert f"{scene.alice.mention} has picked." in edited.content


# ---- the lobby card: killed right after `/<game> new` or a lobby click is answered ------------------


def players_line(emu: DiscordEmulator, card: MessageRecord) -> str:
    """The card's "Lobby: n of at most ..." line."""
    return next(line for line in emu.message(card.id).content.splitlines() if line.startswith("Lobby:"))


async def click(emu: DiscordEmulator, user: User, card: MessageRecord, label: str) -> None:
    card = emu.message(card.id)
    await (await emu.click(user, card, card.button(label)["custom_id"])).response()


async def assert_starts_in_its_thread(
    emu: DiscordEmulator, scene: Scene, bot_db: str, card: MessageRecord, game_id: int
) -> None:
    """Started from ``card``, the game is played in the thread started from the card: the card is
    the channel's only message of the bot, it names the thread, and the first board is there (and
    says nothing about playing in place)."""
    await emu.wait_until(
        lambda: card.id in emu.channels and emu.channel_messages(emu.channels[card.id]),
        timeout=SETTLE,
        what="the game's thread with its first board",
    )
    await emu.wait_idle()
    thread = emu.channels[card.id]
    board = latest_board(emu, thread)
    assert f"game #{game_id}" in board.content
    assert "played here" not in board.content and "may not start threads" not in board.content
    assert [m.id for m in bot_messages(emu, scene.channel)] == [card.id]
    assert f"<#{thread.id}>" in emu.message(card.id).content
    assert query(bot_db, "SELECT lobby_message_id, place_id FROM games WHERE id = ?", (game_id,)) == [
        (card.id, thread.id)
    ]
    assert_clean(emu)


@pytest.mark.threads
@pytest.mark.parametrize("deferred", [False, True])
async def test_a_card_answered_right_before_a_crash_keeps_working(
    emu: DiscordEmulator,
    scene: Scene,
    bot_harness: BotHarness,
    bot_db: str,
    monkeypatch: pytest.MonkeyPatch,
    deferred: bool,
) -> None:
    """Killed right after `/procession new` answered with the card (at once, or after a "thinking"
    answer when the lobby was slow to write): the restarted bot finds the card again, so a join by
    command updates it and the start makes the game's thread from it."""
    if deferred:
        service = bot_harness.bot.services
        opening = service.lobby.open_lobby

        async def slow_open(**kwargs: Any) -> Any:
            await asyncio.sleep(ANSWER_WITHIN + 0.3)
            return await opening(**kwargs)

        monkeypatch.setattr(service.lobby, "open_lobby", slow_open)
        # The first answer is the "thinking" one; the crash follows the card's edit of it.
        trap = emu.crash_after_next_request(bot_harness, "PATCH /webhooks/*/messages/@original")
    else:
        trap = emu.crash_after_next_answer(bot_harness, user=scene.alice, command="procession new")
    await (await emu.slash(scene.alice, scene.channel, "procession new", n=3)).response()
    await trap.wait()
    assert bot_harness.bot is None
    card = lobby_message(emu, scene.channel)
    game_id = int(card.custom_ids[0].split(":")[1])

    await bot_harness.start()
    await (await emu.slash(scene.bob, scene.channel, "game join")).response()
    await emu.wait_until(
        lambda: scene.bob.mention in emu.message(card.id).content, timeout=SETTLE, what="the card with Bob"
    )
    assert players_line(emu, card).startswith("Lobby: 2 of at most 8 players")
    await click(emu, scene.alice, card, "Start")
    await assert_starts_in_its_thread(emu, scene, bot_db, card, game_id)


@pytest.mark.threads
@pytest.mark.parametrize("label", ["Join", "Leave", "Start", "Cancel"])
async def test_a_lobby_click_answered_right_before_a_crash_leaves_a_working_card(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness, bot_db: str, label: str
) -> None:
    await (await emu.slash(scene.alice, scene.channel, "procession new", n=3)).response()
    card = lobby_message(emu, scene.channel)
    game_id = int(card.custom_ids[0].split(":")[1])
    if label != "Join":
        await click(emu, scene.bob, card, "Join")
    await emu.wait_idle()
    user = scene.alice if label in ("Start", "Cancel") else scene.bob
    trap = emu.crash_after_next_answer(bot_harness, user=user)
    await click(emu, user, card, label)
    assert trap.done and bot_harness.bot is None
    await bot_harness.start()

    if label == "Cancel":
        await emu.wait_idle()
        assert emu.message(card.id).buttons() == []
        assert query(bot_db, "SELECT status FROM games WHERE id = ?", (game_id,)) == [("cancelled",)]
        assert_clean(emu)
        return
    if label == "Leave":
        assert scene.bob.mention not in emu.message(card.id).content
        await (await emu.slash(scene.bob, scene.channel, "game join")).response()
    if label != "Start":
        await (await emu.slash(scene.carol, scene.channel, "game join")).response()
        await emu.wait_until(
            lambda: players_line(emu, card).startswith("Lobby: 3 of"), timeout=SETTLE, what="the card"
        )
        await click(emu, scene.alice, card, "Start")
    await assert_starts_in_its_thread(emu, scene, bot_db, card, game_id)


# ---- a board carried out by the pass over pending effects before the move handed it over ------------


async def test_a_slash_move_whose_board_the_pass_took_up_is_still_answered(
    emu: DiscordEmulator,
    scene: Scene,
    bot_harness: BotHarness,
    bot_db: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The outbox's pass over pending effects may read a move's board between the move's commit and
    the command handing it (with its interaction) to the outbox: the board then goes to the channel
    without answering the command. The command is still answered, privately, saying where the board
    is, never left to fail."""
    bot = bot_harness.bot
    game_id = await start_game(emu, scene.channel, "procession new", scene.alice, scene.bob, n=3)
    committing = bot.services.moves.commit

    async def commit_then_pass(*args: Any, **kwargs: Any) -> Any:
        result = await committing(*args, **kwargs)
        bot.outbox.kick(result.effects)  # as the pass does: no interaction, no mover
        await bot.outbox.wait_for(result.effects[0].id)
        return result

    monkeypatch.setattr(bot.services.moves, "commit", commit_then_pass)
    before = latest_board(emu, scene.channel)
    rec = await emu.slash(scene.alice, scene.channel, "procession flip", position=1)
    assert await private_reply(rec) == "✅ Your move is saved. Its board is in the channel."
    await emu.wait_idle(timeout=SETTLE)
    assert move_count(bot_db, game_id) == 1
    boards = [m for m in bot_messages(emu, scene.channel) if m.attachments and m.id > before.id]
    assert len(boards) == 1, [b.content for b in boards]


# ---- a move made while the answer to the one before is still on its way -------------------------------


def board_versions(emu: DiscordEmulator, scene: Scene) -> list[int]:
    """The versions of the boards in the channel, in the order they were posted (from their images'
    names, ``<kind>-<game>-<version>.png``)."""
    posts = [m for m in bot_messages(emu, scene.channel) if m.attachments and not is_card(m)]
    names = [m.attachments[0].filename for m in posts]
    return [int(name.rsplit("-", 1)[1].removesuffix(".png")) for name in names if name.count("-") == 2]


async def test_a_move_made_while_discord_takes_the_last_answer_does_not_overtake_its_board(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness, bot_db: str
) -> None:
    """Alice flips with the board's button; while Discord is slow to take the bot's answer (the
    button's board losing its controls), Bob flips by command. Bob's board is his command's answer,
    but it comes after Alice's: every version's board in order, once."""
    game_id = await start_game(emu, scene.channel, "procession new", scene.alice, scene.bob, n=3)
    await emu.wait_idle(timeout=SETTLE)
    board = latest_board(emu, scene.channel)
    bob: list[Any] = []

    async def bob_flips_meanwhile() -> None:
        bob.append(await emu.slash(scene.bob, scene.channel, "procession flip", position=3))
        await asyncio.sleep(0.5)  # Discord holds the answer to Alice's click this long

    trap = emu.after_request("POST /interactions/*/callback", bob_flips_meanwhile)
    await (await emu.click(scene.alice, board, board.button("1")["custom_id"])).response()
    await trap.wait()
    await bob[0].response()
    await emu.wait_idle(timeout=SETTLE)
    assert move_count(bot_db, game_id) == 2
    versions = board_versions(emu, scene)
    assert versions == sorted(set(versions)) and len(versions) == 3, versions


# ---- a click on a board whose id the bot had not recorded -------------------------------------------


async def test_a_click_on_a_board_not_yet_recorded_is_answered_as_a_board_click(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness, bot_db: str
) -> None:
    """Killed right after Discord created a board (before the bot heard back), the bot has not
    recorded that board's id: restarted, its row names the board before until the outbox takes the
    post up again. A click on the new board meanwhile is still a click on the board: answered by
    taking that board's controls off, with the next board posted in the channel (not as a reply to
    the click, as a slash command is answered). The row is set back as the kill leaves it."""
    game_id = await start_game(emu, scene.channel, "procession new", scene.alice, scene.bob, n=5)
    users = {scene.alice.id: scene.alice, scene.bob.id: scene.bob}

    def mover() -> User:
        state = procession.State.from_dict(game_state(bot_db, game_id) or {})
        (seat,) = procession.to_act(state)
        uid = query(bot_db, "SELECT user_id FROM seats WHERE game_id = ? AND position = ?", (game_id, seat))
        return users[int(uid[0][0])]

    async def flip(board: MessageRecord) -> Any:
        button = next(b for b in board.buttons() if not b.get("disabled") and b.get("label", "").isdigit())
        rec = await emu.click(mover(), board, button["custom_id"])
        await rec.response()
        await emu.wait_until(lambda: latest_board(emu, scene.channel).id != board.id, timeout=SETTLE)
        await emu.wait_idle()
        return rec

    first = latest_board(emu, scene.channel)
    await flip(first)
    second = latest_board(emu, scene.channel)
    await bot_harness.crash()
    await change(bot_db, "UPDATE games SET board_message_id = ? WHERE id = ?", (first.id, game_id))
    await bot_harness.start()

    rec = await flip(second)
    assert rec.callback.type is CallbackType.UPDATE_MESSAGE
    assert emu.message(second.id).custom_ids == []
    third = latest_board(emu, scene.channel)
    assert third.interaction is None and move_count(bot_db, game_id) == 2
    assert [m.id for m in bot_messages(emu, scene.channel) if m.attachments and not is_card(m)][-3:] == [
        first.id,
        second.id,
        third.id,
    ]
    assert_clean(emu)
