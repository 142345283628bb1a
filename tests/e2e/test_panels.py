"""DM panels end to end: one panel message per player and game, edited in place from then on; a new
one only when the old one is buried or gone; typed answers answered on the panel. And what a move
costs in requests: printed, with bounds on what the panels add.
"""

from __future__ import annotations

from collections import Counter

from cogs.numbers import rules as numbers
from cogs.updown import rules as updown
from tests.e2e.driver import (
    assert_discord_accepted_all,
    boards,
    dm_changes,
    dm_mark,
    dm_panel,
    game_panels,
    live_controls,
    move_count,
    numbers_pick_from_panel,
    panel_messages,
    private_reply,
    start_game,
    typed_answer,
    wait_dm_control,
)
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness
from tests.emulator.models import RequestRecord
from tests.emulator.world import Scene, User


async def state_of(harness: BotHarness, game_id: int) -> object:
    return (await harness.bot.services.games.get(game_id)).state


def request_kinds(emu: DiscordEmulator, users: list[User], since: int) -> Counter[str]:
    """The bot's REST requests since the ``since``-th, by what they did: to the players' DM channels
    (``dm post``, ``dm edit``), interaction callbacks and follow-ups (``answer``), and anything else
    (``channel``: boards, lines, notices)."""
    dms = {channel.id for u in users if (channel := emu.dm_channel(u)) is not None}

    def kind(r: RequestRecord) -> str:
        if r.path.startswith(("/interactions/", "/webhooks/")):
            return "answer"
        parts = r.path.split("/")
        if len(parts) > 2 and parts[1] == "channels" and int(parts[2]) in dms:
            return "dm post" if r.method == "POST" else "dm edit"
        return "channel"

    return Counter(kind(r) for r in emu.requests[since:])


def per_move(counts: Counter[str], moves: int) -> str:
    total = sum(counts.values())
    parts = ", ".join(f"{k} {n / moves:.2f}" for k, n in sorted(counts.items()))
    return f"{total / moves:.2f} requests per move ({parts}) over {moves} moves"


# ---- Up-Down-Stay, three players: the whole game from the DM panels ---------------------------------


async def test_a_whole_updown_game_has_one_dm_panel_per_player(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness, bot_db: str
) -> None:
    users = [scene.alice, scene.bob, scene.carol]
    game_id = await start_game(emu, scene.channel, "updown new", *users)
    since = len(emu.requests)
    # Predictions: alice by the panel's form, bob typed, carol by the form. Alice's one letter
    # nearly always occurs in the row, the others' long runs of S nearly never: no playoff.
    letters = {scene.alice.id: "U", scene.bob.id: "SSSSU", scene.carol.id: "SSSSD"}
    for user in users:
        if user is scene.bob:
            answer = await typed_answer(emu, user, letters[user.id])
            # The typed answer is answered on the panel, its note at the top (under the heading).
            assert (
                answer.split("\n")[1]
                == f"✅ Your prediction `{letters[user.id]}` is in (only you can see it)."
            )
        else:
            panel, predict = await wait_dm_control(emu, user, game_id, "predict")
            rec = await emu.click(user, panel, predict)
            await rec.response()
            await (await emu.submit_modal(user, rec, values={"letters": letters[user.id]})).response()
        await emu.wait_idle()
    for _ in range(80):
        state = await state_of(bot_harness, game_id)
        assert isinstance(state, updown.State)
        if state.phase == "over":
            break
        assert state.phase == "place" and state.deal == 0, "a playoff: the predictions tied"
        user = users[state.turn]
        others = [u for u in users if u is not user]
        panel, play = await wait_dm_control(emu, user, game_id, "play")
        marks = {u.id: dm_mark(emu, u) for u in others}
        placed_before = len(state.row)
        rec = await emu.select(user, panel, play, [str(updown.card_rank(state.hands[state.turn][0]))])
        await rec.response()
        await emu.wait_idle()
        after = await state_of(bot_harness, game_id)
        assert isinstance(after, updown.State)
        if after.phase == "place" and placed_before > 0:
            # Whoever neither moved nor places next sees nothing new of their own: no edit.
            idle = next(u for u in others if u is not users[after.turn])
            assert dm_changes(emu, idle, marks[idle.id]) == [], "an idle player's panel was edited"
    else:
        raise AssertionError("the game did not end")

    # One DM message per player for the whole game: the panel, edited in place each time.
    for user in users:
        assert len(emu.dm_messages(user)) == 1 and panel_messages(emu, user, game_id) == 1
        panel = dm_panel(emu, user, game_id)
        assert len(panel.versions) > 5 and live_controls(panel) == []
        assert "The game is over" in panel.content
    # Each board pinged the players to move (all chose the default: a mention), nobody else: all
    # three at the start (predictions), then the placer.
    start, *placed, final = boards(emu, scene.channel)
    assert start.pinged == {u.id for u in users} and final.pinged == frozenset()
    assert all(len(b.pinged) == 1 and f"<@{min(b.pinged)}>, your move" in b.content for b in placed)
    moves = move_count(bot_db, game_id)
    counts = request_kinds(emu, users, since)
    print(f"\nUp-Down-Stay, 3 players, {per_move(counts, moves)}")
    assert counts["dm post"] == 0
    assert counts["dm edit"] <= 1.1 * moves
    assert_discord_accepted_all(emu)


# ---- Numbers: typed answers, buried and vanished panels ----------------------------------------------


async def test_a_buried_panel_is_sent_again_and_a_vanished_one_too(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    alice, bob = scene.alice, scene.bob
    game_id = await open_numbers(emu, scene, alice, bob)
    first = dm_panel(emu, alice, game_id)
    # Alice's DM fills up: two answers she typed wrong and the bot's two replies bury her panel.
    for text in ("hello", "twelve"):
        assert "not a whole number" in await typed_answer(emu, alice, text)
    # Her pick by command brings the buried panel up to date in place (nothing is due from her)...
    rec = await emu.slash(alice, scene.channel, "numbers pick", number=5)
    assert "is in" in await private_reply(rec)
    await emu.wait_idle()
    assert panel_messages(emu, alice, game_id) == 1 and live_controls(first) == []
    # ...but her next pick, once due, comes as a new panel; the buried one keeps no control.
    await numbers_pick_from_panel(emu, bob, game_id, 3)
    assert panel_messages(emu, alice, game_id) == 2
    second = dm_panel(emu, alice, game_id)
    assert any(cid.endswith(":pick") for cid in live_controls(second)) and live_controls(first) == []
    assert "move 2 of 3" in second.content
    # Bob's panel was not buried: still his one panel.
    assert panel_messages(emu, bob, game_id) == 1

    # A panel that is gone (the edit answers 404) is sent again when a move is due from its player:
    # bob's pick by command reveals both, and his next pick is due.
    await numbers_pick_from_panel(emu, alice, game_id, 2)
    emu.delete_message(dm_panel(emu, bob, game_id))
    await emu.wait_idle()
    assert game_panels(emu, bob, game_id) == []
    rec = await emu.slash(bob, scene.channel, "numbers pick", number=6)
    assert "You picked **6**" in await private_reply(rec)
    await emu.wait_idle()
    assert len(game_panels(emu, bob, game_id, include_deleted=True)) == 2
    assert any(cid.endswith(":pick") for cid in live_controls(dm_panel(emu, bob, game_id)))
    assert [(v.status, v.code) for v in emu.violations] == [(404, 10008)]  # the edit of the gone panel
    assert emu.schema_violations == []


async def open_numbers(emu: DiscordEmulator, scene: Scene, alice: User, bob: User) -> int:
    return await start_game(emu, scene.channel, "numbers new", alice, bob, m=3)


async def test_typed_answers_edit_the_panel_with_a_note_at_its_top(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    game_id = await open_numbers(emu, scene, scene.alice, scene.bob)
    alice, bob = scene.alice, scene.bob
    panel = dm_panel(emu, bob, game_id)
    heading = panel.content.split("\n")[0]
    # Bob types his pick: the answer is his panel, edited, the note under its heading.
    answer = await typed_answer(emu, bob, "3")
    assert answer.split("\n")[0] == heading
    assert answer.split("\n")[1].startswith("✅ Your pick **3** (`011`) is in")
    assert emu.dm_messages(bob) == [panel] and live_controls(panel) == []
    # Alice's pick reveals both: bob's panel asks for the next pick, in place (the note is gone).
    await numbers_pick_from_panel(emu, alice, game_id, 5)
    assert emu.dm_messages(bob) == [panel] and "✅" not in panel.content
    assert any(cid.endswith(":pick") for cid in live_controls(panel))
    # Alice's second typed answer: the panel again, now with the reveal.
    assert "✅ Your pick **1** (`001`) is in" in await typed_answer(emu, alice, "1")
    assert panel_messages(emu, alice, game_id) == 1
    state = await state_of(bot_harness, game_id)
    assert isinstance(state, numbers.State) and state.pending == (1, None)
    assert_discord_accepted_all(emu)


# ---- Numbers and the Numerical Card Game: whole games from the DM panels ---------------------------


async def play_from_panels(
    emu: DiscordEmulator, harness: BotHarness, game_id: int, users: list[User]
) -> None:
    """Play the game to its end, every pick from the player's DM panel: Numbers by the Pick form (the
    lowest number still allowed), Divisors by the card menu (the lowest card of the fresh pile)."""
    for _ in range(400):
        game = await harness.bot.services.games.get(game_id)
        if not game.row.live:
            return
        state = game.state
        seat = min(game.rules.to_act(state))
        user = users[seat]
        if isinstance(state, numbers.State):
            await numbers_pick_from_panel(emu, user, game_id, numbers.available(state, seat)[0])
            continue
        panel, cid = await wait_dm_control(emu, user, game_id, "pick")
        await (await emu.select(user, panel, cid, [str(min(state.fresh[seat]))])).response()
        await emu.wait_idle()
    raise AssertionError("the game did not end")


async def test_whole_numbers_and_divisors_games_have_one_dm_panel_per_player(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness, bot_db: str
) -> None:
    figures = []
    for command, users, options in (
        ("numbers new", [scene.alice, scene.bob], {"m": 3}),
        ("divisors new", [scene.alice, scene.bob, scene.carol], {"m": 6}),
    ):
        channel = scene.channel if command.startswith("numbers") else scene.other_channel
        game_id = await start_game(emu, channel, command, *users, **options)
        since = len(emu.requests)
        marks = {u.id: len(emu.dm_messages(u)) for u in users}
        await play_from_panels(emu, bot_harness, game_id, users)
        for user in users:
            assert len(emu.dm_messages(user)) == marks[user.id], f"a new DM to {user.name}"
            assert (
                panel_messages(emu, user, game_id) == 1 and live_controls(dm_panel(emu, user, game_id)) == []
            )
        moves = move_count(bot_db, game_id)
        counts = request_kinds(emu, users, since)
        figures.append(f"{command.split()[0]}, {len(users)} players, {per_move(counts, moves)}")
        assert counts["dm post"] == 0 and counts["dm edit"] <= moves, figures[-1]
    print("\n" + "\n".join(figures))
    assert_discord_accepted_all(emu)
