"""Due work claimed in the database, for several processes sharing it (issue 16): a game's outbox
lease, claims on due waits (computers' moves, forfeits), one waiting typed answer per player, and
the clock tests can move. Every storage test here runs on SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.clock import Clock
from bot.registry import RULES
from bot.scheduler import Scheduler
from bot.service import Services
from bot.storage import Completion, Effect, StaleVersion, Storage
from bot.table.outbox import Outbox
from tests.unit.test_storage import move, started

pytestmark = pytest.mark.both_dbs

A, B = "host-a:0", "host-b:1"


async def test_a_games_outbox_lease_goes_to_one_process_until_it_expires(storage: Storage) -> None:
    game = await started(storage)
    other = await started(storage, channel=101)
    first, second = (await move(storage, game, Effect("board"), Effect("panel"))).effects
    (elsewhere,) = await storage.add_effects(game_id=other.id, effects=[Effect("board")])

    # A takes the lease and gets every pending item of the game, in order (whoever wrote them).
    assert await storage.claim_outbox(game_id=game.id, holder=A, now=100.0, expires=160.0) == [first, second]
    # B is refused while A's lease lives; B's pass over pending items skips the game.
    assert await storage.claim_outbox(game_id=game.id, holder=B, now=150.0, expires=210.0) is None
    assert [i.id for i in await storage.pending_effects(now=150.0, holder=B)] == [elsewhere.id]
    assert [i.id for i in await storage.pending_effects(now=150.0, holder=A)] == [
        first.id,
        second.id,
        elsewhere.id,
    ]
    # A renews; still A's.
    assert await storage.claim_outbox(game_id=game.id, holder=A, now=155.0, expires=215.0) == [first, second]
    assert await storage.claim_outbox(game_id=game.id, holder=B, now=200.0, expires=260.0) is None
    # A dies: once its lease has expired, B takes the game over, with what is still pending.
    assert await storage.claim_outbox(game_id=game.id, holder=B, now=216.0, expires=276.0) == [first, second]
    assert await storage.claim_outbox(game_id=game.id, holder=A, now=217.0, expires=277.0) is None

    # B records what it did as it gives the lease up: one transaction.
    results = await storage.release_outbox(
        game_id=game.id, holder=B, completions=[Completion(first.id, board_message_id=55)]
    )
    assert [r.completed for r in results] == [True]
    assert (await storage.get_game(game_id=game.id)).board_message_id == 55
    assert await storage.pending_of(item_ids=[first.id, second.id, elsewhere.id]) == {second.id, elsewhere.id}
    # Free again: anyone may take it at once.
    assert await storage.claim_outbox(game_id=game.id, holder=A, now=218.0, expires=278.0) == [second]


async def test_giving_up_a_lease_one_no_longer_holds_changes_nobodys_lease(storage: Storage) -> None:
    game = await started(storage)
    (item,) = (await move(storage, game, Effect("board"))).effects
    assert await storage.claim_outbox(game_id=game.id, holder=A, now=0.0, expires=60.0) == [item]
    assert await storage.claim_outbox(game_id=game.id, holder=B, now=61.0, expires=121.0) == [item]
    await storage.release_outbox(game_id=game.id, holder=A)  # A, late: B keeps the game
    assert await storage.claim_outbox(game_id=game.id, holder=A, now=62.0, expires=122.0) is None


async def test_racing_claims_of_a_lease_grant_one(storage: Storage) -> None:
    game = await started(storage)
    await move(storage, game, Effect("board"))
    results = await asyncio.gather(
        *[storage.claim_outbox(game_id=game.id, holder=f"p{i}", now=0.0, expires=60.0) for i in range(6)]
    )
    assert sum(r is not None for r in results) == 1


async def test_a_due_wait_is_claimed_once_and_taken_back_by_its_holder(storage: Storage) -> None:
    game = await started(storage)  # (waits for seat 0)
    (wait,) = await storage.waits_of_game(game_id=game.id)
    now = wait.deadline + 1
    assert [w.seat for w in await storage.due_waits(now=now, holder=A)] == [wait.seat]
    racing = await asyncio.gather(
        *[
            storage.claim_wait(game_id=game.id, seat=wait.seat, holder=h, now=now, until=now + 60)
            for h in (A, B, "host-c:2")
        ]
    )
    assert sorted(racing) == [False, False, True]
    winner = (A, B, "host-c:2")[racing.index(True)]
    loser = A if winner != A else B
    # The others neither see it due nor may claim it while the claim lives ...
    assert await storage.due_waits(now=now + 1, holder=loser) == []
    assert not await storage.claim_wait(
        game_id=game.id, seat=wait.seat, holder=loser, now=now + 1, until=now + 61
    )
    # ... but its holder, restarted, sees it and takes it back at once ...
    assert [w.seat for w in await storage.due_waits(now=now + 1, holder=winner)] == [wait.seat]
    assert await storage.claim_wait(
        game_id=game.id, seat=wait.seat, holder=winner, now=now + 1, until=now + 61
    )
    # ... and another process once the claim has expired (its holder died).
    assert [w.seat for w in await storage.due_waits(now=now + 62, holder=loser)] == [wait.seat]
    assert await storage.claim_wait(
        game_id=game.id, seat=wait.seat, holder=loser, now=now + 62, until=now + 122
    )
    # The scheduler of a process that may not claim it does not wake for it before the claim ends.
    await storage.mark_reminded(game_id=game.id, seat=wait.seat)  # (the halfway reminder is not claimed)
    assert await storage.next_due(lobby_lifetime=10**9) == pytest.approx(now + 122, abs=0.5)
    # It wakes sooner for the end of someone's quiet hours (what they held is sent then), and for a
    # takeback request whose hour runs out (its message then says nothing changed).
    await storage.set_quiet(user_id=4242, starts=0, ends=60, tz="UTC", next_end=now + 100)
    assert await storage.next_due(lobby_lifetime=10**9) == pytest.approx(now + 100, abs=0.5)
    request, _ = await storage.open_undo_request(
        game_id=game.id, seat=wait.seat, seq=1, version=game.version, now=now, expires_at=now + 90
    )
    assert request is not None
    assert await storage.next_due(lobby_lifetime=10**9) == pytest.approx(now + 90, abs=0.5)


async def test_a_move_ends_the_claims_on_its_games_waits(storage: Storage) -> None:
    game = await started(storage)
    (wait,) = await storage.waits_of_game(game_id=game.id)
    assert await storage.claim_wait(game_id=game.id, seat=wait.seat, holder=A, now=0.0, until=10**12)
    # Seat 0 moves and is awaited again (another turn): a fresh wait, unclaimed.
    await storage.record_move(
        game_id=game.id,
        expected_version=game.version,
        seat=0,
        action={"type": "flip", "position": 1},
        state={"turn": 2},
        waiting=[0],
    )
    (fresh,) = await storage.waits_of_game(game_id=game.id)
    assert fresh.seat == wait.seat and fresh.since >= wait.since
    assert await storage.claim_wait(game_id=game.id, seat=wait.seat, holder=B, now=0.0, until=10.0)


async def test_a_reminder_marks_the_wait_read_as_due_not_the_one_after_it(storage: Storage) -> None:
    game = await started(storage)  # (waits for seat 0)
    (due,) = await storage.waits_of_game(game_id=game.id)
    # Two processes read the wait as due; one reminds of it.
    args = {"seat": 0, "deadline": due.deadline}
    reminded = await storage.mark_reminded(
        game_id=game.id, seat=0, effects=[Effect("remind", args)], deadline=due.deadline
    )
    assert len(reminded) == 1
    # Seat 0 moves, then is awaited again: a new wait, with a new deadline, not due yet.
    moved = await move(storage, game)  # (now waits for seat 1)
    await storage.record_move(
        game_id=game.id,
        expected_version=moved.row.version,
        seat=1,
        action={"type": "flip", "position": 2},
        state={"turn": 3},
        waiting=[0],
    )
    (fresh,) = await storage.waits_of_game(game_id=game.id)
    assert fresh.deadline > due.deadline and not fresh.reminded
    # The other process, late with what it read, reminds of nothing: not of the old deadline again,
    # and the new wait keeps its own reminder for its own halfway point.
    late = await storage.mark_reminded(
        game_id=game.id, seat=0, effects=[Effect("remind", args)], deadline=due.deadline
    )
    assert late == []
    assert [w.reminded for w in await storage.waits_of_game(game_id=game.id)] == [False]


async def test_a_forfeit_losing_the_race_to_a_move_leaves_the_new_wait(storage: Storage) -> None:
    game = await started(storage)  # (waits for seat 0)
    (due,) = await storage.waits_of_game(game_id=game.id)
    await storage.mark_reminded(game_id=game.id, seat=0)  # (only the deadline is due)

    class RacedPlays:
        """The forfeit is tried while another process commits a move: seat 1 moves and the game
        waits for seat 0 again (its claimed wait renewed); the forfeit's write then loses."""

        async def time_out(self, game_id: int, seat: int, *, now: float) -> bool:
            await storage.record_move(
                game_id=game.id,
                expected_version=game.version,
                seat=1,
                action={"type": "flip", "position": 2},
                state={"turn": 2},
                waiting=[0],
            )
            raise StaleVersion()

    service = Services.build(storage, RULES, shared=True)
    scheduler = Scheduler(
        storage,
        service.games,
        service.lobby,
        RacedPlays(),  # type: ignore[arg-type]
        Outbox(storage),
        clock=lambda: due.deadline + 1,
        holder=A,
    )
    await scheduler.run_due()
    # The seat is still awaited, and still has a deadline (a fresh one): it may still be reminded
    # and still forfeit.
    (fresh,) = await storage.waits_of_game(game_id=game.id)
    assert fresh.seat == 0 and fresh.since >= due.since and not fresh.reminded


async def test_typed_replies_keep_one_per_player_when_stored_at_once(storage: Storage) -> None:
    ids = await asyncio.gather(*[storage.add_typed_reply(user_id=7, text=f"answer {i}") for i in range(5)])
    assert len(set(ids)) == 5
    kept = [i for i in ids if await storage.take_typed_reply(reply_id=i, user_id=7) is not None]
    assert len(kept) == 1  # one waiting answer per player, whichever came last


def test_the_clock_adds_the_offset_file_and_rereads_it(tmp_path: Path) -> None:
    assert Clock(None).offset == 0.0
    path = tmp_path / "offset"
    clock = Clock(str(path))  # (no file yet: no offset)
    before = clock()
    path.write_text("3600.5\n")
    assert clock() - before >= 3600 and clock.offset == 3600.5
    path.write_text("nonsense")
    clock.refresh()
    assert clock.offset == 3600.5  # kept (logged once)
    path.write_text("")
    clock.refresh()
    assert clock.offset == 0.0
