"""Below Discord: the notify choices (stored, kept in memory, what a board pings), when a DM panel
counts as buried, and what `owed()` writes per move of a secret game."""

from __future__ import annotations

import asyncio

import pytest

from bot.errors import BadInput
from bot.registry import GAMES, RULES
from bot.service import Loaded, Services
from bot.storage import Storage
from bot.table.catalog import GameKind
from bot.table.notify import Notify
from bot.table.panels import BURIED_AFTER, DmTraffic
from bot.table.play import Source, owed
from cogs.numbers import rules as numbers
from cogs.updown import rules as updown

ALICE, BOB, CAROL = 10, 11, 12

# The tests taking `database` run on SQLite and on PostgreSQL (tests/conftest.py).
pytestmark = pytest.mark.both_dbs


# ---- the choices ---------------------------------------------------------------------------------------


async def test_choices_are_stored_and_read_once_at_startup(storage: Storage) -> None:
    notify = Notify(storage)
    await notify.load()
    assert notify.mode(ALICE) == "mention" and notify.pings(ALICE) and not notify.dms(ALICE)
    await notify.choose(ALICE, "dm")
    await notify.choose(BOB, "both")
    await notify.choose(CAROL, "off")
    await notify.choose(CAROL, "mention")  # back to the default: stored as no value
    assert await storage.notify_choices() == {ALICE: "dm", BOB: "both"}
    assert await storage.get_user_settings(user_id=CAROL) == {}
    with pytest.raises(BadInput, match="mention, dm, both, off or digest"):
        await notify.choose(ALICE, "loud")
    again = Notify(storage)
    await again.load()
    assert [again.mode(u) for u in (ALICE, BOB, CAROL)] == ["dm", "both", "mention"]
    assert (again.dms(ALICE), again.pings(ALICE), again.dms(BOB), again.pings(BOB)) == (
        True,
        False,
        True,
        True,
    )


async def test_following_reads_another_process_s_choices_and_keeps_one_made_meanwhile(
    storage: Storage,
) -> None:
    here, there = Notify(storage), Notify(storage)
    await here.load()
    await there.load()
    await there.choose(ALICE, "dm")  # through another process
    assert here.mode(ALICE) == "mention"
    here.follow(every=0.01)
    try:
        for _ in range(500):
            if here.mode(ALICE) == "dm":
                break
            await asyncio.sleep(0.01)
        assert here.mode(ALICE) == "dm"
        await there.choose(ALICE, "mention")
        for _ in range(500):
            if here.mode(ALICE) == "mention":
                break
            await asyncio.sleep(0.01)
        assert here.mode(ALICE) == "mention"
    finally:
        await here.stop()

    # A read under way when a choice is made here is not used (it may predate the choice).
    reading = asyncio.Event()
    real = storage.notify_choices

    async def slow_read() -> dict[int, str]:
        choices = await real()
        reading.set()
        await asyncio.sleep(0.05)
        return choices

    here.storage = type("Slow", (), {"notify_choices": staticmethod(slow_read)})()  # type: ignore[assignment]
    load = asyncio.ensure_future(here.load())
    await reading.wait()
    here.storage = storage
    await here.choose(BOB, "off")
    await load
    assert here.mode(BOB) == "off"


async def test_a_board_pings_only_who_wants_a_mention(storage: Storage) -> None:
    notify = Notify(storage)
    await notify.choose(ALICE, "dm")
    await notify.choose(CAROL, "off")
    allowed = notify.pinged([ALICE, BOB, CAROL, BOB])
    assert allowed.to_dict() == {"parse": [], "users": [BOB]}
    # Alice chose DMs but cannot get them (closed): the board mentions her after all.
    notify.unreachable(ALICE)
    assert notify.pinged([ALICE, CAROL]).to_dict()["users"] == [ALICE]
    notify.reachable(ALICE)
    assert notify.pinged([ALICE]).to_dict()["users"] == []


# ---- buried panels -----------------------------------------------------------------------------------


def test_a_panel_is_buried_by_enough_later_messages_in_its_channel() -> None:
    traffic = DmTraffic()
    traffic.seen(1, 100)  # the panel itself
    assert not traffic.buried(1, 100)
    for message_id in range(101, 100 + BURIED_AFTER):
        traffic.seen(1, message_id)
        traffic.seen(2, message_id + 1000)  # another DM channel counts for nothing here
    assert not traffic.buried(1, 100)
    traffic.seen(1, 100 + BURIED_AFTER)
    assert traffic.buried(1, 100) and not traffic.buried(1, 101)
    assert not traffic.buried(3, 100)  # a channel never seen (after a restart): not buried
    # Events may come out of order; the ids say what came later. A repeated event counts once.
    late = DmTraffic()
    for message_id in (205, 203, 205, 204):
        late.seen(1, message_id)
    assert late.buried(1, 200) and not late.buried(1, 203)


def test_the_channels_kept_are_bounded() -> None:
    traffic = DmTraffic(depth=1, channels=2)
    for channel in (1, 2, 3):
        traffic.seen(channel, 50)
    assert not traffic.buried(1, 10) and traffic.buried(2, 10) and traffic.buried(3, 10)


# ---- what a move owes the DM panels --------------------------------------------------------------------


async def started(service: Services, kind: str, players: int, **options: int) -> Loaded:
    game = (
        await service.lobby.open_lobby(
            kind=kind, guild_id=1, channel_id=100, host_id=ALICE, host_name="A", options=options
        )
    ).game
    for user in (BOB, CAROL)[: players - 1]:
        game = (await service.lobby.join(game.id, user, str(user))).game
    return (await service.lobby.start(game.id, ALICE)).game


def panel_effects(effects: list) -> list[tuple[str, dict]]:
    return [(e.kind, dict(e.args)) for e in effects if e.kind in ("panel", "refresh", "nudge")]


async def test_owed_edits_only_the_panels_whose_player_has_news(storage: Storage) -> None:
    service = Services.build(storage, RULES)
    notify = Notify(storage)
    await notify.choose(CAROL, "dm")
    kind = GameKind.of(GAMES["updown"])
    game = await started(service, "updown", 3)
    written: list[list[tuple[str, dict]]] = []

    async def move(user: int, action: object, source: Source) -> None:
        result = await service.moves.act(game.id, user, action)
        effects = owed(kind, result, source, note="n", notify=notify)
        assert effects[0].kind == "announce"
        written.append(panel_effects(effects))

    # Predictions from the panels: quiet; nobody else's panel changes, and the last one starts the
    # placing: every other panel now offers the card menu.
    await move(ALICE, updown.Predict("U"), Source.DM_PANEL)
    await move(BOB, updown.Predict("SSSSU"), Source.TYPED)
    await move(CAROL, updown.Predict("SSSSD"), Source.DM_PANEL)
    assert written == [
        [],
        [("panel", {"seat": 1, "note": "n"})],
        [("panel", {"seat": 0}), ("panel", {"seat": 1})],
    ]
    # The first card locks every prediction: each other panel loses its Change button; a move by
    # command also refreshes the mover's own panel.
    state = (await service.games.get(game.id)).state
    await move(ALICE, updown.Play(updown.card_rank(state.hands[0][0])), Source.COMMAND)
    assert written[-1] == [("refresh", {"seat": 0}), ("refresh", {"seat": 1}), ("refresh", {"seat": 2})]
    # From then on the panels (hand and card menu, whoever's turn it is) are left alone as the turn
    # passes: the board's mention tells the next placer, and carol, who chose DMs, gets a nudge.
    for seat, user in ((1, BOB), (2, CAROL)):
        state = (await service.games.get(game.id)).state
        await move(user, updown.Play(updown.card_rank(state.hands[seat][0])), Source.DM_PANEL)
    assert written[-2:] == [[("nudge", {"seat": 2})], []]


async def test_owed_in_numbers_reveals_and_the_end(storage: Storage) -> None:
    service = Services.build(storage, RULES)
    kind = GameKind.of(GAMES["numbers"])
    game = await started(service, "numbers", 2, m=3)
    rows: list[list[tuple[str, dict]]] = []
    for user, number, source in ((ALICE, 1, Source.DM_PANEL), (BOB, 1, Source.DM_PANEL)):
        result = await service.moves.act(game.id, user, numbers.Pick(number))
        rows.append(panel_effects(owed(kind, result, source)))
    # A quiet pick: nothing for anyone; the reveal: alice asked again (her pick is gone).
    assert rows[:2] == [[], [("panel", {"seat": 0})]]
    game = await service.games.get(game.id)
    while game.row.live:
        seat = min(numbers.to_act(game.state))
        result = await service.moves.act(
            game.id, game.row.seats[seat], numbers.Pick(numbers.available(game.state, seat)[0])
        )
        game = result.after
        last = panel_effects(owed(kind, result, Source.TYPED, note="n"))
    # The end: every panel takes its final form; the typed mover's with the note.
    assert sorted(last, key=lambda e: e[1]["seat"]) == sorted(
        [("panel", {"seat": result.seat, "note": "n"}), ("refresh", {"seat": 1 - result.seat})],
        key=lambda e: e[1]["seat"],
    )
