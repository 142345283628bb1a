"""The outbox worker on its own (bot/table/outbox.py), over a real database: order per game, retries,
follow-ups, effects kicked while a game's effects are being recorded, and a restart that resumes what
was left. The carriers here only record what they were asked to do."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import ClassVar

import discord
import pytest

from bot.storage import Effect, OutboxItem, Storage
from bot.table import outbox as outbox_module
from bot.table.effects import OutboxEffect, Panel
from bot.table.outbox import LEASE, PAGE, Context, Done, Outbox

# The tests taking `database` run on SQLite and on PostgreSQL (tests/conftest.py).
pytestmark = pytest.mark.both_dbs


async def lobby(storage: Storage, channel: int) -> int:
    row = (
        await storage.create_lobby(
            kind="procession", guild_id=1, channel_id=channel, host_id=10, host_name="Ann", options={}, seed=1
        )
    ).row
    return row.id


# The kinds of effect of these tests (the carriers read the stored item's ``n`` themselves).
@dataclass(frozen=True)
class Note(OutboxEffect):
    kind: ClassVar[str] = "note"


@dataclass(frozen=True)
class Board(OutboxEffect):
    kind: ClassVar[str] = "board"


@dataclass(frozen=True)
class Parent(OutboxEffect):
    kind: ClassVar[str] = "parent"


@dataclass(frozen=True)
class Slow(OutboxEffect):
    kind: ClassVar[str] = "slow"


KINDS = (Note, Board, Parent, Slow)


class Recorder:
    """Carriers that note what they carried out (and can be told to fail or to wait)."""

    def __init__(self) -> None:
        self.carried: list[tuple[int, str]] = []
        self.fail_times: dict[str, int] = {}
        self.gate: asyncio.Event | None = None

    async def carry(self, item: OutboxItem, effect: OutboxEffect, context: Context) -> Done:
        if self.fail_times.get(item.kind, 0) > 0:
            self.fail_times[item.kind] -= 1
            raise discord.DiscordServerError(_Response(503), "unavailable")  # type: ignore[arg-type]
        if self.gate is not None and item.kind == "slow":
            await self.gate.wait()
        self.carried.append((item.game_id, str(item.args.get("n", item.kind))))
        if item.kind == "board":
            return Done(board_message_id=1000 + int(item.args["n"]))
        if item.kind == "parent":
            return Done(then=[Effect("note", {"n": "child"})])
        return Done()


class _Response:
    def __init__(self, status: int) -> None:
        self.status = status
        self.reason = "Service Unavailable"


def worker(storage: Storage, recorder: Recorder) -> Outbox:
    outbox = Outbox(storage)
    for kind in KINDS:
        outbox.carry(kind, recorder.carry)
    return outbox


async def settle(outbox: Outbox) -> None:
    for _ in range(200):
        await asyncio.sleep(0.01)
        if not outbox.busy:
            return
    raise AssertionError("the outbox did not settle")


async def test_a_games_effects_run_in_order_and_are_deleted(storage: Storage) -> None:
    recorder = Recorder()
    outbox = worker(storage, recorder)
    one, two = await lobby(storage, 100), await lobby(storage, 101)
    items = await storage.add_effects(game_id=one, effects=[Effect("note", {"n": i}) for i in range(5)])
    items += await storage.add_effects(game_id=two, effects=[Effect("board", {"n": 7})])
    outbox.kick(items)
    await settle(outbox)
    assert [n for g, n in recorder.carried if g == one] == ["0", "1", "2", "3", "4"]
    assert (two, "7") in recorder.carried
    assert await storage.effects_of_game(game_id=one) == []
    assert (await storage.get_game(game_id=two)).board_message_id == 1007


async def test_a_failing_effect_is_retried_and_holds_back_its_successors(storage: Storage) -> None:
    recorder = Recorder()
    recorder.fail_times["board"] = 2
    outbox = worker(storage, recorder)
    game = await lobby(storage, 100)
    items = await storage.add_effects(
        game_id=game, effects=[Effect("board", {"n": 1}), Effect("note", {"n": 2})]
    )
    outbox.kick(items)
    await settle(outbox)
    assert recorder.carried == [(game, "1"), (game, "2")]  # the note never overtook the board
    assert await storage.effects_of_game(game_id=game) == []


async def test_follow_ups_are_carried_out(storage: Storage) -> None:
    recorder = Recorder()
    outbox = worker(storage, recorder)
    game = await lobby(storage, 100)
    outbox.kick(await storage.add_effects(game_id=game, effects=[Effect("parent")]))
    await settle(outbox)
    assert recorder.carried == [(game, "parent"), (game, "child")]
    assert await storage.effects_of_game(game_id=game) == []


async def test_an_effect_kicked_while_its_game_is_being_recorded_is_carried(storage: Storage) -> None:
    recorder = Recorder()
    outbox = worker(storage, recorder)
    game = await lobby(storage, 100)
    first = await storage.add_effects(game_id=game, effects=[Effect("note", {"n": 1})])
    later = await storage.add_effects(game_id=game, effects=[Effect("board", {"n": 2})])
    real = storage.complete_effects

    async def slow_write(**kwargs: object) -> object:
        outbox.kick(later)  # arrives while the first effect's deletion is being written
        return await real(**kwargs)  # type: ignore[arg-type]

    storage.complete_effects = slow_write  # type: ignore[method-assign]
    outbox.kick(first)
    await settle(outbox)
    assert recorder.carried == [(game, "1"), (game, "2")]


async def test_a_restarted_worker_resumes_what_was_left(storage: Storage) -> None:
    recorder = Recorder()
    recorder.gate = asyncio.Event()
    outbox = worker(storage, recorder)
    game = await lobby(storage, 100)
    items = await storage.add_effects(game_id=game, effects=[Effect("slow"), Effect("note", {"n": 2})])
    outbox.kick(items)
    await asyncio.sleep(0.05)
    await outbox.stop()  # the process ends while the first effect is under way
    assert recorder.carried == []
    recorder.gate.set()
    again = worker(storage, recorder)
    again.start()  # its first pass over the database finds both
    await asyncio.sleep(0.05)
    await settle(again)
    await again.stop()
    assert recorder.carried == [(game, "slow"), (game, "2")]
    assert await storage.effects_of_game(game_id=game) == []


# ---- two processes sharing the database: leases per game ------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def leased_worker(storage: Storage, recorder: Recorder, holder: str, clock: Clock) -> Outbox:
    outbox = Outbox(storage, clock, holder=holder)
    for kind in KINDS:
        outbox.carry(kind, recorder.carry)
    return outbox


async def test_a_process_waits_for_the_lease_and_the_holder_carries_out_in_order(storage: Storage) -> None:
    clock = Clock()
    game = await lobby(storage, 1)
    rec_a, rec_b = Recorder(), Recorder()
    a = leased_worker(storage, rec_a, "a", clock)
    b = leased_worker(storage, rec_b, "b", clock)
    rec_a.gate = asyncio.Event()
    first = await storage.add_effects(game_id=game, effects=[Effect("slow", {"n": 1})])
    a.kick(first)  # A holds the game's lease while its slow item runs ...
    await asyncio.sleep(0.05)
    second = await storage.add_effects(game_id=game, effects=[Effect("note", {"n": 2})])
    b.kick(second)  # ... so B, whose move wrote the next item, waits for it
    await asyncio.sleep(0.1)
    assert rec_b.carried == [] and rec_a.carried == []
    rec_a.gate.set()
    await b.wait_for(second[0].id)  # B goes on once the item is done (by A or by B), in order
    await settle(a)
    await settle(b)
    assert rec_a.carried[0] == (game, "1")  # (the second: by A or B, after it)
    assert rec_a.carried + rec_b.carried == [(game, "1"), (game, "2")]
    assert await storage.effects_of_game(game_id=game) == []
    assert await storage.claim_outbox(game_id=game, holder="c", now=clock.now, expires=clock.now + 1) == []


async def test_the_holder_carries_another_processs_earlier_item_before_its_own_later_one(
    storage: Storage,
) -> None:
    # A holds the game's lease, carrying out item 1. Meanwhile B's move writes item 2 (B waits for
    # the lease), then A's move writes item 3. A must carry out 2 before 3: its own queue knows only
    # 1 and 3, so it reads the game's pending items again before an item it has not seen in the
    # database (once, the found bug: boards posted as versions 14, 18, 16).
    clock = Clock()
    game = await lobby(storage, 1)
    rec_a, rec_b = Recorder(), Recorder()
    a = leased_worker(storage, rec_a, "a", clock)
    b = leased_worker(storage, rec_b, "b", clock)
    rec_a.gate = asyncio.Event()
    first = await storage.add_effects(game_id=game, effects=[Effect("slow", {"n": 1})])
    a.kick(first)
    await asyncio.sleep(0.05)
    second = await storage.add_effects(game_id=game, effects=[Effect("note", {"n": 2})])
    b.kick(second)
    third = await storage.add_effects(game_id=game, effects=[Effect("note", {"n": 3})])
    a.kick(third)
    await asyncio.sleep(0.05)
    rec_a.gate.set()
    await a.wait_for(third[0].id)
    await b.wait_for(second[0].id)
    await settle(a)
    await settle(b)
    assert rec_a.carried == [(game, "1"), (game, "2"), (game, "3")]  # all of them by the holder
    assert rec_b.carried == []
    assert await storage.effects_of_game(game_id=game) == []


async def test_an_item_kicked_while_the_lease_is_asked_for_is_not_taken_as_done(storage: Storage) -> None:
    # B asks for the lease (A holds it); while that answer comes, B's next move writes item 3. The
    # answer says which of B's items are pending: item 3 was not asked about, so it stays B's to
    # carry out (or A's, under the lease), and is not dropped as carried out elsewhere.
    clock = Clock()
    game = await lobby(storage, 1)
    rec_a, rec_b = Recorder(), Recorder()
    a = leased_worker(storage, rec_a, "a", clock)
    b = leased_worker(storage, rec_b, "b", clock)
    rec_a.gate = asyncio.Event()
    a.kick(await storage.add_effects(game_id=game, effects=[Effect("slow", {"n": 1})]))
    await asyncio.sleep(0.05)
    b.kick(await storage.add_effects(game_id=game, effects=[Effect("note", {"n": 2})]))
    real = storage.pending_of
    late: list[OutboxItem] = []

    async def pending_of(*, item_ids: list[int]) -> set[int]:
        answer = await real(item_ids=item_ids)
        if not late:
            late.extend(await storage.add_effects(game_id=game, effects=[Effect("note", {"n": 3})]))
            b.kick(late)
        return answer

    storage.pending_of = pending_of  # type: ignore[method-assign]
    try:
        await asyncio.sleep(0.1)
        assert late
        rec_a.gate.set()
        await b.wait_for(late[0].id)
        await settle(a)
        await settle(b)
    finally:
        del storage.pending_of
    assert sorted(rec_a.carried + rec_b.carried) == [(game, "1"), (game, "2"), (game, "3")]
    assert rec_a.carried[:1] == [(game, "1")]
    assert await storage.effects_of_game(game_id=game) == []


async def test_a_lease_held_by_a_dead_process_is_taken_over_when_it_expires(storage: Storage) -> None:
    clock = Clock()
    game = await lobby(storage, 1)
    items = await storage.add_effects(
        game_id=game, effects=[Effect("note", {"n": 1}), Effect("note", {"n": 2})]
    )
    # A took the lease and died before carrying anything out.
    assert await storage.claim_outbox(game_id=game, holder="a", now=clock.now, expires=clock.now + 60)
    recorder = Recorder()
    b = leased_worker(storage, recorder, "b", clock)
    b.start()
    try:
        b.poke()
        await asyncio.sleep(0.2)
        assert recorder.carried == []  # A's lease still lives: B's pass leaves the game alone
        clock.now += 61
        b.poke()
        for _ in range(200):
            if len(recorder.carried) == 2:
                break
            await asyncio.sleep(0.01)
        await settle(b)
        assert recorder.carried == [(game, "1"), (game, "2")]
        assert await storage.pending_of(item_ids=[i.id for i in items]) == set()
    finally:
        await b.stop()


async def test_a_busy_games_carried_effects_are_recorded_while_its_lease_is_held(storage: Storage) -> None:
    # Processes sharing the database: a game's effects are carried out under its lease, and what was
    # done is recorded when the lease is given up. A game busy for long keeps its lease: what was done
    # is recorded at each renewal too, so a crash redoes at most half a lease of it (Discord keeps a
    # post's nonce for minutes only: a post redone later would be posted twice).
    now = [1000.0]
    gates = {"first": asyncio.Event(), "second": asyncio.Event()}
    carried: list[str] = []

    async def carry(item: OutboxItem, effect: Note, context: Context) -> Done:
        name = str(item.args["n"])
        if name in gates:
            await gates[name].wait()
        carried.append(name)
        return Done()

    outbox = Outbox(storage, lambda: now[0], holder="A")
    outbox.carry(Note, carry)
    game = await lobby(storage, 100)
    names = ["0", "1", "first", "2", "second"]
    items = await storage.add_effects(game_id=game, effects=[Effect("note", {"n": n}) for n in names])
    outbox.kick(items)
    for _ in range(200):
        if carried == ["0", "1"]:
            break
        await asyncio.sleep(0.01)
    now[0] += LEASE / 2 + 1  # more than half the lease has passed: renewed before the next effect
    gates["first"].set()
    for _ in range(200):
        if carried == ["0", "1", "first", "2"]:
            break
        await asyncio.sleep(0.01)
    assert carried == ["0", "1", "first", "2"]  # ... and the game is still busy ("second" waits)
    assert await storage.pending_of(item_ids=[i.id for i in items]) == {items[3].id, items[4].id}
    gates["second"].set()
    await settle(outbox)
    assert await storage.effects_of_game(game_id=game) == []


async def test_a_restarted_worker_carries_a_games_older_effects_before_its_new_one(storage: Storage) -> None:
    # The last process left effects of a game behind (more than its first pass over the database
    # reads, say); the restarted one is kicked with a new effect of that game (a new move) before
    # any pass found the old ones: the old ones still come first, in order.
    recorder = Recorder()
    game = await lobby(storage, 100)
    left = await storage.add_effects(game_id=game, effects=[Effect("note", {"n": i}) for i in range(3)])
    outbox = worker(storage, recorder)  # (not started: no pass over the database)
    new = await storage.add_effects(game_id=game, effects=[Effect("board", {"n": 9})])
    outbox.kick(new)
    await settle(outbox)
    await asyncio.sleep(0.1)  # (what the worker records, a moment after carrying it out)
    assert recorder.carried == [(game, "0"), (game, "1"), (game, "2"), (game, "9")]
    assert await storage.pending_of(item_ids=[i.id for i in (*left, *new)]) == set()


async def test_a_restarted_worker_finds_a_long_backlog_at_once(storage: Storage) -> None:
    # More effects were left behind than one read of the database returns: the first pass reads
    # them all, not only the first page (the next pass would come `POLL` seconds later).
    recorder = Recorder()
    games = [await lobby(storage, 100 + g) for g in range(5)]
    for game in games:
        await storage.add_effects(game_id=game, effects=[Effect("note", {"n": i}) for i in range(PAGE // 2)])
    outbox = worker(storage, recorder)
    outbox.start()
    try:
        await asyncio.sleep(0.05)
        await settle(outbox)
        assert len(recorder.carried) == 5 * (PAGE // 2)
        for game in games:
            assert [n for g, n in recorder.carried if g == game] == [str(i) for i in range(PAGE // 2)]
    finally:
        await outbox.stop()


# ---- items the worker cannot read -------------------------------------------------------------------


async def test_an_item_of_a_kind_no_class_has_is_logged_and_dropped(
    storage: Storage, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # Written by another version of the bot (or left from an older one): refused like a failure,
    # retried, then given up (at the first failure here), and the game's next items go on.
    monkeypatch.setattr(outbox_module, "MAX_ATTEMPTS", 1)
    recorder = Recorder()
    outbox = worker(storage, recorder)
    game = await lobby(storage, 100)
    items = await storage.add_effects(
        game_id=game, effects=[Effect("vanished", {"n": 1}), Effect("note", {"n": 2})]
    )
    with caplog.at_level(logging.INFO, logger="bot.table.outbox"):
        outbox.kick(items)
        await settle(outbox)
        await asyncio.sleep(0.1)  # (what the worker records, a moment after carrying it out)
    assert recorder.carried == [(game, "2")]
    assert await storage.effects_of_game(game_id=game) == []
    assert "no carrier for outbox effects of kind 'vanished'" in caplog.text
    assert f"Outbox effect {items[0].id} (vanished) of game {game} given up" in caplog.text


async def test_a_carrier_gets_its_effect_read_from_the_item_and_a_malformed_one_is_dropped(
    storage: Storage, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(outbox_module, "MAX_ATTEMPTS", 1)
    got: list[Panel] = []

    async def carry_panel(item: OutboxItem, effect: Panel, context: Context) -> Done:
        got.append(effect)
        return Done()

    outbox = Outbox(storage)
    outbox.carry(Panel, carry_panel)
    game = await lobby(storage, 100)
    items = await storage.add_effects(
        game_id=game,
        effects=[
            Effect("panel", {"note": "no seat"}),  # refused: named in the log
            Effect("panel", {"seat": "x"}),  # refused
            Effect("panel", {"seat": 1, "nudge": True, "later": "ignored"}, token="t"),
            Panel(2, "hi"),
        ],
    )
    with caplog.at_level(logging.INFO, logger="bot.table.outbox"):
        outbox.kick(items)
        await settle(outbox)
        await asyncio.sleep(0.1)
    assert got == [Panel(1, nudge=True, token="t"), Panel(2, "hi")]
    assert await storage.effects_of_game(game_id=game) == []
    assert "outbox effect 'panel': no 'seat' among its arguments ['note']" in caplog.text
    assert "outbox effect 'panel': seat='x' is not int" in caplog.text
