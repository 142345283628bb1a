"""Lines By The Dots end to end: the real bot, the real discord.py, the loopback emulator."""

from __future__ import annotations

from typing import Any

import pytest

from cogs.dots import rules as dots
from tests.e2e.driver import assert_clean, assert_png, bot_messages, db_snapshot, is_card, private_reply
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness
from tests.emulator.models import CallbackType, InteractionRecord, MessageRecord
from tests.emulator.world import Channel, Scene, User


async def open_game(emu: DiscordEmulator, scene: Scene, players: int, size: int) -> None:
    host, *others = scene.players[:players]
    rec = await emu.slash(host, scene.channel, "dots new", size=size)
    assert not (await rec.response()).ephemeral
    for user in others:
        rec = await emu.slash(user, scene.channel, "game join")
        assert "You joined" in await private_reply(rec)
    rec = await emu.slash(host, scene.channel, "game start")
    await rec.response()
    await emu.wait_idle()


def latest_post(emu: DiscordEmulator, channel: Channel) -> MessageRecord:
    """The newest public game post: a board (with its image) or, between two lines, the text post."""
    posts = [m for m in bot_messages(emu, channel) if m.content.startswith("**Lines By The Dots**")]
    assert posts, "the bot has posted no board"
    return posts[-1]


async def public_post(emu: DiscordEmulator, rec: InteractionRecord, channel: Channel) -> MessageRecord:
    """The move was answered in public (a line from the private "Where does it end?" menu: that
    menu lost its controls, and the board went to the channel); the newest game post once the bot
    is idle."""
    response = await rec.response()
    if response.ephemeral:
        assert response.type is CallbackType.UPDATE_MESSAGE and rec.original is not None
        assert "drawn" in rec.original.content and rec.original.custom_ids == []
    await emu.wait_idle()
    return latest_post(emu, channel)


async def open_with_a_half_turn(emu: DiscordEmulator, scene: Scene, players: int) -> InteractionRecord:
    """A 5 x 5 game of ``players``, where Alice draws the first line, C3→C5; its interaction (its
    answer not awaited). Her turn's horizontal line, from C5, is owed."""
    await open_game(emu, scene, players, 5)
    return await draw(emu, scene.alice, scene.channel, "C5", "C3")


def menus(message: MessageRecord) -> list[dict[str, Any]]:
    return [c for c in message.all_components() if c.get("type") == 3]


def values(menu: dict[str, Any]) -> list[str]:
    return [o["value"] for o in menu["options"]]


def to_move(scene: Scene, message: MessageRecord) -> User | None:
    """The player the post's last line asks to move."""
    last = message.content.splitlines()[-1]
    return next((u for u in scene.players if last.startswith(f"{u.mention}, your move")), None)


async def draw(
    emu: DiscordEmulator, user: User, channel: Channel, to: str, start: str | None = None
) -> InteractionRecord:
    options = {"to": to} if start is None else {"to": to, "from": start}
    return await emu.slash(user, channel, "dots line", options)


async def pick(
    emu: DiscordEmulator, user: User, message: MessageRecord, menu: dict[str, Any], value: str
) -> InteractionRecord:
    return await emu.select(user, message, menu["custom_id"], [value])


async def picker(rec: InteractionRecord) -> MessageRecord:
    """The private endpoint menu the bot answered a start dot with."""
    assert (await rec.response()).ephemeral
    assert rec.original is not None
    return rec.original


async def draw_by_menus(
    emu: DiscordEmulator, user: User, channel: Channel, to: str, start: str | None = None
) -> InteractionRecord:
    """The same line through the menus: a start dot first when the post offers them."""
    post = latest_post(emu, channel)
    found = menus(post)
    if ":from:" in found[0]["custom_id"]:
        assert start is not None
        menu = next(m for m in found if start in values(m))
        rec = await pick(emu, user, post, menu, start)
        assert f"starts at {start}" in await private_reply(rec)
        private = await picker(rec)
        (menu,) = menus(private)
        return await pick(emu, user, private, menu, to)
    (menu,) = found
    assert menu["custom_id"].endswith(":to")
    return await pick(emu, user, post, menu, to)


async def stored_state(harness: BotHarness, scene: Scene) -> dots.State:
    row = await harness.bot.storage.latest_game_at(place_id=scene.channel.id)
    assert row is not None and row.state is not None
    return dots.State.from_dict(row.state)


async def check_replay(harness: BotHarness, scene: Scene) -> None:
    service = harness.bot.services
    row = await service.games.storage.latest_game_at(place_id=scene.channel.id)
    assert row is not None and row.status == "finished"
    assert (await service.history.replay(row.id)).to_dict() == row.state


# The rules' 3 x 3 game: a skipped line, a fallback line, and an end between the lines of a turn.
# (player, to, from, what the post says, whether the turn is over so the image comes)
THREE_BY_THREE = [
    (0, "A1", "A2", "drew the vertical line A2→A1: 0 points (the first line of the game).", False),
    (0, "B1", None, "drew the horizontal line A1→B1: 1 point (1 used dot in row 1).", True),
    (1, "B3", None, "drew the vertical line B1→B3: 1 point (1 used dot in column B).", False),
    (1, "A3", None, "drew the horizontal line B3→A3: 1 point (1 used dot in row 3).", True),
    (
        0,
        "C3",
        "B3",
        "drew the horizontal line B3→C3: 2 points (2 used dots in row 3), "
        "from a used dot as no line could start at A3.",
        True,
    ),
    (1, "C1", None, "drew the vertical line C3→C1: 1 point (1 used dot in column C).", True),
]


@pytest.mark.parametrize("by", ["commands", "menus"])
async def test_two_player_three_by_three_game(
    emulator: DiscordEmulator, scene: Scene, bot_harness: BotHarness, by: str
) -> None:
    await open_game(emulator, scene, 2, 3)
    first = latest_post(emulator, scene.channel)
    assert_png(first)
    assert (
        f"{scene.alice.mention}, your move: a vertical line from any dot (the first line)." in first.content
    )
    assert values(menus(first)[0]) == ["A1", "A2", "A3", "B1", "B2", "B3", "C1", "C2", "C3"]
    players = [scene.alice, scene.bob]
    for i, (seat, to, start, said, turn_over) in enumerate(THREE_BY_THREE):
        if i == 4:
            board = latest_post(emulator, scene.channel)
            assert f"{scene.alice.mention}'s vertical line is skipped: no column holds" in board.content
            assert "no horizontal line can start at A3" in board.content
            assert [values(m) for m in menus(board)] == [["B1", "B2", "B3"]]
            rec = await draw(emulator, scene.alice, scene.channel, "C3")
            assert "Say where your horizontal line starts (from)" in await private_reply(rec)
        if by == "commands":
            rec = await draw(emulator, players[seat], scene.channel, to, start)
        else:
            rec = await draw_by_menus(emulator, players[seat], scene.channel, to, start)
        post = await public_post(emulator, rec, scene.channel)
        assert f"{players[seat].mention} {said}" in post.content
        if turn_over:
            assert_png(post)
        else:  # between the two lines of a turn: the score and the next menu, no image
            assert post.attachments == []
            assert f"{players[seat].mention}, your move: a horizontal line from {to}." in post.content
    final = latest_post(emulator, scene.channel)
    assert_png(final)
    assert (
        f"🏆 {scene.alice.mention} and {scene.bob.mention} share the win: every dot is taken."
        in final.content
    )
    assert f"Final scores: {scene.alice.mention} 3 · {scene.bob.mention} 3." in final.content
    assert [b["label"] for b in final.buttons()] == ["Rematch"]  # a finished game's only control
    earlier = [m for m in bot_messages(emulator, scene.channel) if not is_card(m) and m.id != final.id]
    assert all(m.custom_ids == [] for m in earlier)
    await check_replay(bot_harness, scene)
    assert_clean(emulator)


async def play_to_the_end(
    emu: DiscordEmulator, scene: Scene, harness: BotHarness, players: list[User], by: str
) -> int:
    """Play whatever is legal (varying the choice) until the game ends; returns the lines drawn."""
    lines = 0
    for step in range(200):
        post = latest_post(emu, scene.channel)
        if all(c.endswith(":rematch") for c in post.custom_ids):  # over: a Rematch at most
            return lines
        state = await stored_state(harness, scene)
        user = players[state.turn]
        assert to_move(scene, post) is user
        legal = dots.legal_actions(state, state.turn)
        if by == "commands":
            # Autocomplete offers exactly the legal values.
            starts = sorted({a["from"] for a in legal if a["from"] is not None})
            offered = await emu.autocomplete(user, scene.channel, "dots line", focused="from")
            assert [c["value"] for c in offered] == starts
            start = starts[step % len(starts)] if starts else None
            typed = {} if start is None else {"from": start}
            offered = await emu.autocomplete(user, scene.channel, "dots line", typed, focused="to")
            ends = [a["to"] for a in legal if a["from"] == start]
            assert [c["value"] for c in offered] == ends
            rec = await draw(emu, user, scene.channel, ends[-1 - step % len(ends)], start)
        else:
            found = menus(post)
            if ":from:" in found[0]["custom_id"]:
                starts = [v for m in found for v in values(m)]
                assert starts == sorted({a["from"] for a in legal})
                start = starts[step % len(starts)]
                rec = await pick(emu, user, post, next(m for m in found if start in values(m)), start)
                private = await picker(rec)
                (menu,) = menus(private)
                assert values(menu) == [a["to"] for a in legal if a["from"] == start]
                rec = await pick(emu, user, private, menu, values(menu)[-1 - step % len(values(menu))])
            else:
                (menu,) = found
                assert values(menu) == [a["to"] for a in legal]
                rec = await pick(emu, user, post, menu, values(menu)[step % len(values(menu))])
        after = await public_post(emu, rec, scene.channel)
        lines += 1
        assert "points" in after.content or "point " in after.content
        # The image comes when the turn is over (or the game is); mid-turn the mover moves again,
        # with the picture only when that line is a fallback (its start is chosen from the picture).
        if to_move(scene, after) is user:
            assert "horizontal line" in after.content.splitlines()[-1]
            if "dot already used" in after.content.splitlines()[-1]:  # a fallback line
                assert_png(after)
            else:
                assert after.attachments == []
        else:
            assert_png(after)
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("by", ["commands", "menus"])
async def test_three_player_game(
    emulator: DiscordEmulator, scene: Scene, bot_harness: BotHarness, by: str
) -> None:
    await open_game(emulator, scene, 3, 4)
    players = [scene.alice, scene.bob, scene.carol]
    lines = await play_to_the_end(emulator, scene, bot_harness, players, by)
    assert lines >= 4
    final = latest_post(emulator, scene.channel)
    assert_png(final)
    state = await stored_state(bot_harness, scene)
    assert len(state.marked) == 16 and state.finished
    scores = " · ".join(f"{u.mention} {state.scores[i]}" for i, u in enumerate(players))
    assert f"Final scores: {scores}." in final.content
    best = max(state.scores)
    winners = [u for i, u in enumerate(players) if state.scores[i] == best]
    verdict = next(line for line in final.content.splitlines() if line.startswith("🏆"))
    assert [u for u in players if u.mention in verdict] == winners
    assert ("share the win" in verdict) == (len(winners) > 1)
    await check_replay(bot_harness, scene)
    assert_clean(emulator)


async def test_restart_mid_turn_resumes_with_the_horizontal_line_owed(
    emulator: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    rec = await open_with_a_half_turn(emulator, scene, 2)
    mid = await public_post(emulator, rec, scene.channel)
    assert mid.attachments == []
    assert f"{scene.alice.mention}, your move: a horizontal line from C5." in mid.content
    (menu,) = menus(mid)
    assert values(menu) == ["A5", "B5", "D5", "E5"]
    assert menu["placeholder"] == "Draw the horizontal line from C5 to… (1 point)"
    await bot_harness.restart()
    # /game status shows the board with its image, privately, between the two lines too.
    rec = await emulator.slash(scene.bob, scene.channel, "game status")
    response = await rec.response()
    assert response.ephemeral and response.message is not None and response.message.attachments
    assert "your move: a horizontal line from C5" in rec.ephemeral_texts()[-1]
    rec = await draw(emulator, scene.alice, scene.channel, "C1")
    assert "This line must be horizontal: stay in row 5." in await private_reply(rec)
    rec = await pick(emulator, scene.bob, mid, menu, "A5")
    assert "turn" in await private_reply(rec)
    # The menu posted before the restart still draws the line.
    rec = await pick(emulator, scene.alice, mid, menu, "A5")
    board = await public_post(emulator, rec, scene.channel)
    assert_png(board)
    assert (
        f"{scene.alice.mention} drew the horizontal line C5→A5: 1 point (1 used dot in row 5)."
        in board.content
    )
    assert f"{scene.bob.mention}, your move: a vertical line from A5." in board.content
    assert mid.custom_ids == []
    state = await stored_state(bot_harness, scene)
    assert state.scores == (1, 0) and state.turn == 1 and state.direction == dots.VERTICAL
    assert_clean(emulator)


async def test_forfeit_mid_turn_passes_a_whole_turn(
    emulator: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    rec = await open_with_a_half_turn(emulator, scene, 3)
    await rec.response()
    await emulator.wait_idle()
    rec = await emulator.slash(scene.alice, scene.channel, "game leave")
    board = await public_post(emulator, rec, scene.channel)
    assert_png(board)
    assert "left the game (forfeit)" in board.content
    # Bob starts a whole turn from C5, where no vertical line can start: a fallback from C3.
    assert f"{scene.bob.mention}, your move: no vertical line can start at C5" in board.content
    assert [values(m) for m in menus(board)] == [["C3"]]
    rec = await draw_by_menus(emulator, scene.bob, scene.channel, "C1", "C3")
    post = await public_post(emulator, rec, scene.channel)
    assert "drew the vertical line C3→C1: 3 points (3 used dots in column C), from a used dot" in post.content
    assert_clean(emulator)


async def test_bad_input_is_answered_privately_and_changes_nothing(
    emulator: DiscordEmulator, scene: Scene, bot_harness: BotHarness, bot_db: str
) -> None:
    rec = await draw(emulator, scene.alice, scene.channel, "A1")
    assert "There is no Lines By The Dots game in this channel" in await private_reply(rec)
    rec = await emulator.slash(scene.alice, scene.channel, "dots new", size=5)
    await rec.response()
    rec = await draw(emulator, scene.alice, scene.channel, "A1")
    assert "has not started yet" in await private_reply(rec)
    rec = await emulator.slash(scene.bob, scene.channel, "game join")
    await rec.response()
    rec = await emulator.slash(scene.alice, scene.channel, "game start")
    await rec.response()
    await emulator.wait_idle()
    a, b, carol = scene.alice, scene.bob, scene.carol

    async def refused(
        cases: list[tuple[User, str, str | None, str]], menu_cases: list[tuple[User, str, str]]
    ) -> None:
        before = db_snapshot(bot_db)
        count = len(bot_messages(emulator, scene.channel))
        post = latest_post(emulator, scene.channel)
        for user, to, start, expected in cases:
            rec = await draw(emulator, user, scene.channel, to, start)
            assert expected in await private_reply(rec), (to, start)
        for user, value, expected in menu_cases:
            menu = next(m for m in menus(post) if value in values(m))
            rec = await pick(emulator, user, post, menu, value)
            assert expected in await private_reply(rec), value
        await emulator.wait_idle()
        assert db_snapshot(bot_db) == before
        assert len(bot_messages(emulator, scene.channel)) == count

    async def drawn(user: User, *lines: tuple[str, str | None]) -> None:
        """``user`` draws these lines (to, from), one after the other."""
        for to, start in lines:
            rec = await draw(emulator, user, scene.channel, to, start)
            await rec.response()
            await emulator.wait_idle()

    first = latest_post(emulator, scene.channel)
    await refused(
        [
            (a, "A3", None, "Say where your vertical line starts (from): the first line of the game"),
            (a, "C1", "A1", "This line must be vertical: stay in column A."),
            (a, "B2", "A1", "A1 to B2 is diagonal: lines run along a column or a row."),
            (a, "A6", "A1", "A6 is off the grid: columns run A-E, rows 1-5."),
            (a, "A1", "Z9", "Z9 is off the grid"),
            (a, "A1", "A1", "A line must leave its dot."),
            (a, "4C", "A1", '"4C" is not a dot: write a column letter and a row number, like C4.'),
            (b, "A3", "A1", "turn"),
            (carol, "A3", "A1", "You are not playing in game #1."),
        ],
        [(b, "A1", "turn"), (carol, "A1", "You are not playing")],
    )
    await drawn(a, ("A3", "A1"), ("E3", None))
    # Bob is at E3 (A3..E3 are taken).
    await refused(
        [
            (b, "D2", None, "E3 to D2 is diagonal"),
            (b, "B3", None, "This line must be vertical: stay in column E."),
            (b, "F1", None, "F1 is off the grid"),
            (b, "E1", "A1", "Your line starts where the last one ended, at E3: leave out from."),
            (a, "E1", None, "turn"),
            (carol, "E1", None, "You are not playing"),
        ],
        [(a, "E1", "turn"), (carol, "E1", "You are not playing")],
    )
    await drawn(b, ("E1", None), ("B1", None))  # column E: E3 -> 1; row 1: A1, E1 -> 2
    # Alice is at B1: B3 is taken.
    await refused(
        [
            (a, "B3", None, "B3 is already used: a line touched it. From B1 you may draw to: B2."),
            (a, "B5", None, "The line would pass B3, which a line already touched."),
            (a, "A1", None, "This line must be vertical"),
        ],
        [],
    )
    assert first.custom_ids == []  # every older post lost its menus
    assert_clean(emulator)


async def test_ten_by_ten_menus_and_a_start_dot_kept_across_a_restart(
    emulator: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    await open_game(emulator, scene, 2, 10)
    board = latest_post(emulator, scene.channel)
    found = menus(board)
    # 100 start dots: four menus of 25 (five of whole columns would leave no row for Rules).
    assert [m["placeholder"] for m in found] == [
        f"Where does your vertical line start? ({span})" for span in ["A1-C5", "C6-E10", "F1-H5", "H6-J10"]
    ]
    assert [len(values(m)) for m in found] == [25] * 4
    assert values(found[3])[-1] == "J10"
    assert board.button("Rules")["custom_id"].endswith(":rules")
    # Autocomplete: at most 25 choices, narrowed by what is typed.
    choices = await emulator.autocomplete(scene.alice, scene.channel, "dots line", focused="from")
    assert len(choices) == 25
    choices = await emulator.autocomplete(
        scene.alice, scene.channel, "dots line", {"from": "j1"}, focused="from"
    )
    assert [c["value"] for c in choices] == ["J1", "J10"]
    choices = await emulator.autocomplete(
        scene.alice, scene.channel, "dots line", {"from": "J10"}, focused="to"
    )
    assert [c["value"] for c in choices] == [f"J{r}" for r in range(1, 10)]
    rec = await pick(emulator, scene.alice, board, found[3], "J10")
    assert "Your vertical line starts at J10. Where does it end?" in await private_reply(rec)
    private = await picker(rec)
    (menu,) = menus(private)
    assert values(menu) == [f"J{r}" for r in range(1, 10)]
    assert menu["placeholder"] == "Draw the vertical line from J10 to… (0 points)"
    await bot_harness.restart()
    rec = await pick(emulator, scene.alice, private, menu, "J1")  # the start dot survived the restart
    post = await public_post(emulator, rec, scene.channel)
    assert "drew the vertical line J10→J1: 0 points (the first line of the game)." in post.content
    (menu_h,) = menus(post)
    assert values(menu_h) == [f"{c}1" for c in "ABCDEFGHI"]
    assert await emulator.autocomplete(scene.alice, scene.channel, "dots line", focused="from") == []
    choices = await emulator.autocomplete(scene.alice, scene.channel, "dots line", focused="to")
    assert [c["value"] for c in choices] == values(menu_h)
    # The private picker lost its menu with the line drawn: it cannot be used again.
    assert emulator.message(private.id).custom_ids == []
    assert emulator.message(private.id).content == "Your line J10→J1: drawn."
    assert_clean(emulator)


async def test_a_fallback_start_is_chosen_from_the_picture_and_its_private_menu_closes(
    emulator: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    """After Bob's vertical line A3→A2 no horizontal line can start at A2 (B2 is used): his fallback
    start is chosen from a post that shows the picture with A3→A2 drawn; the private "Where does it
    end?" menu he then uses loses its controls with the line drawn."""
    await open_game(emulator, scene, 2, 3)
    first = latest_post(emulator, scene.channel)
    assert first.button("Rules")["custom_id"].endswith(":rules")
    for user, to, start in ((scene.alice, "B3", "B1"), (scene.alice, "A3", None), (scene.bob, "A2", None)):
        post = await public_post(
            emulator, await draw(emulator, user, scene.channel, to, start), scene.channel
        )
    assert "drew the vertical line A3→A2" in post.content
    assert "no horizontal line can start at A2" in post.content
    image = assert_png(post)
    assert "A3" in post.attachments[0].description and image.width >= 400
    found = menus(post)
    assert found and ":from:" in found[0]["custom_id"]
    start = values(found[0])[0]
    rec = await pick(emulator, scene.bob, post, found[0], start)
    assert f"Your horizontal line starts at {start}. Where does it end?" in await private_reply(rec)
    private = await picker(rec)
    (menu,) = menus(private)
    end = values(menu)[0]
    rec = await pick(emulator, scene.bob, private, menu, end)
    board = await public_post(emulator, rec, scene.channel)
    assert (
        f"drew the horizontal line {start}→{end}" in board.content
        and "from a used dot as no line" in board.content
    )
    assert emulator.message(private.id).custom_ids == []
    state = await stored_state(bot_harness, scene)
    assert len(state.lines) == 4
    assert_clean(emulator)
