"""The tournament engine in the running bot, below its slash commands (the face's tests are
tests/e2e/test_tournament.py): a round robin of three driven through the service, its games opened as
ordinary games (the card in the tournament's channel, a thread, the first board), each round opened by
the desk's pass once the one before is over, a withdrawal's live game forfeited by the desk and its
later game credited, and the event's posts (card, rounds, final) carried out once each by a stand-in
presenter."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator

import pytest

from bot.events.tournaments import ROUND_ROBIN, Snapshot
from bot.table.tournaments import Post
from tests.db import change, query
from tests.e2e.driver import assert_discord_accepted_all, bot_messages
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness
from tests.emulator.world import Scene


@pytest.fixture(autouse=True)
def _discord_accepted_all(emu: DiscordEmulator) -> Iterator[None]:
    """After each test: Discord would have accepted every request, each payload fits its schema."""
    yield
    assert_discord_accepted_all(emu)


class Stand:
    """A presenter that says only what it was asked for (the face writes the real one)."""

    def __init__(self) -> None:
        self.asked: Counter[str] = Counter()

    async def card(self, snap: Snapshot) -> Post:
        self.asked["card"] += 1
        return Post(
            f"Tournament #{snap.tournament.id}: {snap.tournament.status}, round {snap.tournament.round}"
        )

    async def round_post(self, snap: Snapshot, round: int) -> Post:
        self.asked[f"round {round}"] += 1
        return Post(f"Tournament #{snap.tournament.id}: round {round} begins")

    async def final_post(self, snap: Snapshot) -> Post:
        self.asked["final"] += 1
        return Post(f"Tournament #{snap.tournament.id}: won by <@{snap.winners()[0]}>")


@pytest.mark.both_dbs
@pytest.mark.threads  # (each game in a thread of its own, as on a server with the default settings)
async def test_a_round_robin_of_three_runs_its_rounds_and_posts_once(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness, bot_db: str
) -> None:
    bot = bot_harness.bot
    tours, desk = bot.tournaments, bot.tournament_desk
    stand = Stand()
    alice, bob, carol = scene.alice, scene.bob, scene.carol
    # The desk's pass is held while the event is set up (the cog's presenter is already there: a pass
    # could read the card's post before the changes below and put it back after them).
    await desk.stop()
    t = await tours.open(
        kind="procession", format=ROUND_ROBIN, guild_id=scene.guild.id, channel_id=scene.channel.id,
        host_id=alice.id, host_name="alice", options={"n": 5}, timeout_s=3600,
    )  # fmt: skip
    await tours.join(t.id, bob.id, "bob")
    await tours.join(t.id, carol.id, "carol")
    # Nobody recorded the card (the face's command would): past its grace, the desk posts it.
    await change(bot_db, "UPDATE tournaments SET created_at = created_at - 120 WHERE id = ?", (t.id,))
    await change(bot_db, "UPDATE tournament_posts SET not_before = 0 WHERE tournament_id = ?", (t.id,))
    desk.present_with(stand)  # (the stand says what it was asked for: each post once)
    desk.start()

    def card() -> int | None:
        return query(bot_db, "SELECT card_message_id FROM tournaments WHERE id = ?", (t.id,))[0][0]

    await emu.wait_until(lambda: card() is not None, what="the card")
    await emu.wait_idle()
    card_id = card()

    await tours.start(t.id, alice.id)
    for rnd in (1, 2, 3):
        snap = await tours.snapshot(t.id)
        assert snap.tournament.round == rnd
        (game,) = snap.round_pairings(rnd)
        if rnd == 3:  # carol withdrew in round 2: her game is bob's without playing, and it is over
            assert game.forfeit and game.game_id is None and game.winners == (bob.id,)
            break
        assert game.game_id is not None

        def opened(game_id: int = game.game_id) -> bool:
            rows = query(bot_db, "SELECT board_message_id FROM games WHERE id = ?", (game_id,))
            return rows[0][0] is not None

        await emu.wait_until(opened, what=f"round {rnd}'s first board")
        row = await bot.storage.get_game(game_id=game.game_id)
        assert row.status == "active" and row.lobby_message_id is not None  # its card, in the channel
        assert row.place_id == row.lobby_message_id  # played in the thread started from its card
        loser = max(game.players)
        if rnd == 1:
            await bot.services.moves.forfeit(game.game_id, loser)  # the round is over: the desk moves on
        else:  # a withdrawal: the desk forfeits her live game (its board says so)
            assert loser == carol.id
            await tours.withdraw(t.id, loser)
            await emu.wait_until(lambda game_id=game.game_id: query(
                bot_db, "SELECT status FROM games WHERE id = ?", (game_id,)
            )[0][0] == "finished", what="the forfeit")  # fmt: skip

        def moved(rnd: int = rnd) -> bool:
            rows = query(bot_db, "SELECT round, status FROM tournaments WHERE id = ?", (t.id,))
            return rows[0][0] > rnd or rows[0][1] == "finished"

        await emu.wait_until(moved, timeout=10.0, what=f"the end of round {rnd}")
    await emu.wait_until(lambda: stand.asked["final"] == 1, what="the final post")
    await emu.wait_idle()
    snap = await tours.snapshot(t.id)
    assert snap.tournament.status == "finished" and snap.winners() == [alice.id]
    # alice: beat bob, carol forfeited to her, a bye; bob: a bye, carol's credited game; carol: a bye.
    assert [(s.player, s.points, s.withdrawn) for s in snap.standings] == [
        (alice.id, 3, False),
        (bob.id, 2, False),
        (carol.id, 1, True),
    ]
    assert [stand.asked[f"round {n}"] for n in (1, 2, 3)] == [1, 1, 1] and stand.asked["final"] == 1
    texts = [m.content for m in bot_messages(emu, scene.channel)]
    assert texts.count(f"Tournament #{t.id}: won by <@{alice.id}>") == 1
    assert sum(f"Tournament #{t.id}: round" in text for text in texts) == 3
    card = next(m for m in bot_messages(emu, scene.channel) if m.id == card_id)
    assert card.content == f"Tournament #{t.id}: finished, round 3"  # the card followed the event
    assert query(bot_db, "SELECT COUNT(*) FROM tournament_posts")[0][0] == 0


class Held(Stand):
    """A presenter whose card waits until the test lets it go: a post is under way meanwhile."""

    def __init__(self) -> None:
        super().__init__()
        self.building, self.go = asyncio.Event(), asyncio.Event()

    async def card(self, snap: Snapshot) -> Post:
        self.building.set()
        await self.go.wait()
        return await super().card(snap)


@pytest.mark.both_dbs
@pytest.mark.parametrize("wait", [3.0, 0.0], ids=["with-grace", "no-grace"])
async def test_a_graceful_stop_finishes_the_post_under_way_or_gives_up_its_claim(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness, bot_db: str, wait: float
) -> None:
    """Stopping with time to spare, the desk's pass under way ends first: the card it was building is
    posted and recorded, once. Stopping with none, the post is left to the next pass, and the
    process's claim on it is given up, so that another process takes it up at once."""
    bot = bot_harness.bot
    tours, desk = bot.tournaments, bot.tournament_desk
    await desk.stop()
    t = await tours.open(
        kind="procession", format=ROUND_ROBIN, guild_id=scene.guild.id, channel_id=scene.channel.id,
        host_id=scene.alice.id, host_name="alice", options={"n": 5}, timeout_s=3600,
    )  # fmt: skip
    await change(bot_db, "UPDATE tournaments SET created_at = created_at - 120 WHERE id = ?", (t.id,))
    await change(bot_db, "UPDATE tournament_posts SET not_before = 0 WHERE tournament_id = ?", (t.id,))
    held = Held()
    desk.present_with(held)
    desk.start()
    await asyncio.wait_for(held.building.wait(), 5.0)
    stopping = asyncio.ensure_future(desk.stop(wait=wait))
    await asyncio.sleep(0.2)
    held.go.set()
    await asyncio.wait_for(stopping, 5.0)
    await bot.storage.release_posts(holder=desk.holder)  # (as the bot's close does after the stop)
    await emu.wait_idle()
    card_id, posts = (
        query(bot_db, "SELECT card_message_id FROM tournaments WHERE id = ?", (t.id,))[0][0],
        query(bot_db, "SELECT claimed_by FROM tournament_posts WHERE tournament_id = ?", (t.id,)),
    )
    cards = [m for m in bot_messages(emu, scene.channel) if m.content.startswith(f"Tournament #{t.id}:")]
    if wait:
        assert held.asked["card"] == 1 and card_id is not None and posts == []
        assert [m.id for m in cards] == [card_id]
    else:  # (cancelled while building: nothing sent, the post waits, claimed by nobody)
        assert held.asked["card"] == 0 and card_id is None and cards == []
        assert posts == [(None,)]
