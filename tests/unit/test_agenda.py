"""/game mine's read (`Storage.agenda`) and its order, and the daily digests' rows and hours, on both
databases."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import cast
from zoneinfo import ZoneInfo

import discord
import pytest

from bot.errors import BadInput
from bot.i18n.audience import Audiences
from bot.storage import AgendaEntry, Awaited, GameRow, Storage
from bot.storage.agenda import order
from bot.storage.driver import fetch
from bot.table.agenda import Agenda
from bot.table.digest import DigestDesk, next_due, timezone_choices

pytestmark = pytest.mark.both_dbs

ME, ANN, BEA = 11, 10, 12


async def game(
    storage: Storage,
    *,
    guild: int,
    host: tuple[int, str],
    others: Sequence[tuple[int, str]],
    waiting: Sequence[int] | None = None,
    timeout_s: int = 3600,
) -> GameRow:
    """A lobby of ``host`` and ``others`` in server ``guild``; started when ``waiting`` is given."""
    row = (
        await storage.create_lobby(
            kind="procession",
            guild_id=guild,
            channel_id=guild * 100,
            host_id=host[0],
            host_name=host[1],
            options={"n": 5},
            seed=1,
            timeout_s=timeout_s,
        )
    ).row
    row = (
        await storage.update_lobby(
            game_id=row.id, expected_version=row.version, seats=[host, *others], host_id=host[0]
        )
    ).row
    if waiting is None:
        return row
    return (
        await storage.start_game(game_id=row.id, expected_version=row.version, state={}, waiting=waiting)
    ).row


async def test_the_agenda_lists_a_players_live_games_in_order(storage: Storage) -> None:
    me, ann, bea = (ME, "Me"), (ANN, "Ann"), (BEA, "Bea")
    lobby_old = await game(storage, guild=1, host=ann, others=[me])
    mine_late = await game(storage, guild=1, host=ann, others=[me], waiting=[1], timeout_s=7200)
    theirs = await game(storage, guild=2, host=ann, others=[me, bea], waiting=[0, 2])
    mine_soon = await game(storage, guild=2, host=me, others=[bea], waiting=[0, 1], timeout_s=600)
    lobby_new = await game(storage, guild=2, host=me, others=[])
    not_mine = await game(storage, guild=1, host=ann, others=[bea], waiting=[0])
    over = await game(storage, guild=1, host=ann, others=[me], waiting=[1])
    await storage.cancel_game(game_id=over.id, expected_version=over.version)
    # Bea's deadline in `theirs` is the sooner one: it is the one shown.
    await storage.driver.write(
        fetch("UPDATE waits SET deadline = deadline - 60 WHERE game_id = ? AND seat = 2", (theirs.id,))
    )

    entries = await storage.agenda(user_id=ME)

    assert [e.game.id for e in entries] == [mine_soon.id, mine_late.id, theirs.id, lobby_old.id, lobby_new.id]
    assert [e.group for e in entries] == [0, 0, 1, 2, 2]
    assert [e.seat for e in entries] == [0, 1, 1, 1, 0]
    soon, late, others = entries[0], entries[1], entries[2]
    assert soon.mine is not None and soon.deadline == soon.mine.deadline
    assert late.deadline is not None and soon.deadline is not None and late.deadline > soon.deadline
    assert late.deadline - mine_late.created_at == pytest.approx(7200, abs=5)
    # The others' wait: who, named as seated, soonest first.
    assert [(w.user_id, w.name) for w in others.waits] == [(BEA, "Bea"), (ANN, "Ann")]
    assert others.mine is None and others.deadline == others.waits[0].deadline
    assert entries[3].waits == () and entries[3].deadline is None
    assert all(e.game.id != not_mine.id for e in entries)
    # Someone in nothing gets nothing; another player gets their own list.
    assert await storage.agenda(user_id=999) == []
    assert [e.game.id for e in await storage.agenda(user_id=BEA)] == [
        mine_soon.id,
        theirs.id,
        not_mine.id,
    ]


def test_the_order_is_waiting_on_me_then_on_others_then_lobbies() -> None:
    def entry(
        game_id: int, status: str, seat: int, waits: tuple[Awaited, ...], created: float
    ) -> AgendaEntry:
        row = GameRow(
            id=game_id, kind="procession", guild_id=1, channel_id=5, status=status, host_id=1, options={},
            seed=0, state=None, result=None, version=1, lobby_message_id=None, board_message_id=None,
            created_at=created, updated_at=created, timeout_s=60, seats=(1, 2), names=("A", "B"),
        )  # fmt: skip
        return AgendaEntry(game=row, seat=seat, waits=waits)

    def wait(seat: int, deadline: float) -> Awaited:
        return Awaited(seat=seat, user_id=seat + 1, name="AB"[seat], deadline=deadline)

    lobby_a = entry(1, "lobby", 0, (), created=50)
    lobby_b = entry(2, "lobby", 1, (), created=10)
    others_late = entry(3, "active", 0, (wait(1, 900),), created=0)
    others_soon = entry(4, "active", 0, (wait(1, 100),), created=0)
    stalled = entry(5, "active", 0, (), created=0)
    me_late = entry(6, "active", 1, (wait(0, 50), wait(1, 800)), created=0)
    me_soon = entry(7, "active", 0, (wait(0, 700),), created=0)
    shuffled = [lobby_a, others_late, me_late, stalled, lobby_b, others_soon, me_soon]
    assert [e.game.id for e in sorted(shuffled, key=order)] == [7, 6, 4, 3, 5, 2, 1]
    assert me_late.deadline == 800 and others_soon.deadline == 100


# ---- the daily digest ------------------------------------------------------------------------------


def test_the_next_digest_is_the_next_local_hour() -> None:
    paris = ZoneInfo("Europe/Paris")
    now = datetime(2026, 3, 28, 19, 30, tzinfo=paris).timestamp()
    # 18:00 has passed today: tomorrow, across the change to summer time (23 hours later in UTC).
    due = next_due(now, 18, "Europe/Paris")
    assert datetime.fromtimestamp(due, paris) == datetime(2026, 3, 29, 18, 0, tzinfo=paris)
    assert next_due(now, 20, "Europe/Paris") == datetime(2026, 3, 28, 20, 0, tzinfo=paris).timestamp()
    assert next_due(0.0, 18, "UTC") == 18 * 3600
    assert next_due(18 * 3600, 18, "UTC") == 18 * 3600 + 86400  # (exactly then: the next day)
    with pytest.raises(BadInput, match="There is no time zone 'Mars/Olympus'"):
        next_due(now, 18, "Mars/Olympus")


def test_timezone_names_are_suggested_as_typed() -> None:
    assert [c.value for c in timezone_choices("paris")] == ["Europe/Paris"]
    assert len(timezone_choices("")) == 25 and timezone_choices("")[0].value == "UTC"
    assert all("america/" in c.value.lower() for c in timezone_choices("America/"))


async def test_a_due_digest_is_claimed_once_and_moves_to_the_next_day(storage: Storage) -> None:
    await storage.set_digest(user_id=ME, hour=18, timezone="UTC", due=1000.0)
    await storage.set_digest(user_id=ANN, hour=9, timezone="Europe/Paris", due=5000.0)
    assert await storage.next_digest() == 1000.0
    assert [d.user_id for d in await storage.due_digests(now=1500.0)] == [ME]
    # Two processes see it due: one claim wins; the winner (restarted) may take it again.
    assert await storage.claim_digest(user_id=ME, due=1000.0, holder="a", now=1500.0, until=1620.0)
    assert not await storage.claim_digest(user_id=ME, due=1000.0, holder="b", now=1500.0, until=1620.0)
    assert await storage.due_digests(now=1500.0, holder="b") == []
    assert await storage.claim_digest(user_id=ME, due=1000.0, holder="a", now=1510.0, until=1630.0)
    assert await storage.next_digest() == 1630.0
    # Done: due tomorrow, unclaimed; finishing it again (a second process late) changes nothing.
    assert await storage.finish_digest(user_id=ME, due=1000.0, next_due=87400.0)
    assert not await storage.finish_digest(user_id=ME, due=1000.0, next_due=999999.0)
    mine = await storage.digest_of(user_id=ME)
    assert mine is not None and (mine.hour, mine.timezone, mine.due) == (18, "UTC", 87400.0)
    # A claim that expired (its process died) is taken over.
    assert await storage.claim_digest(user_id=ANN, due=5000.0, holder="a", now=5000.0, until=5100.0)
    assert await storage.claim_digest(user_id=ANN, due=5000.0, holder="b", now=5101.0, until=5200.0)
    await storage.drop_digest(user_id=ANN)
    assert await storage.digest_of(user_id=ANN) is None and await storage.next_digest() == 87400.0


async def test_a_digest_due_inside_quiet_hours_waits_for_their_end(storage: Storage) -> None:
    """No DM inside someone's quiet hours (`/game quiet`): their digest falls due at the hours' end,
    unsent and unclaimed till then; once they are over it goes (here: nothing waits, so nothing is
    sent) and the next one is due at the next digest hour."""
    await storage.set_digest(user_id=ME, hour=23, timezone="UTC", due=23 * 3600.0)
    quiet_ends = {ME: 31 * 3600.0}  # 07:00 the next day
    desk = DigestDesk(
        client=cast(discord.Client, None),  # (nothing is sent: the person is quiet, then nothing waits)
        storage=storage,
        agenda=cast(Agenda, None),
        audiences=cast(Audiences, None),
        clock=lambda: 23 * 3600.0,
        quiet_until=lambda user_id: quiet_ends.get(user_id),
    )
    await desk.run_due(23 * 3600.0, "a")
    mine = await storage.digest_of(user_id=ME)
    assert mine is not None and mine.due == 31 * 3600.0
    assert await storage.due_digests(now=30 * 3600.0) == []
    quiet_ends.clear()  # 07:00: the quiet hours are over
    await desk.run_due(31 * 3600.0, "a")
    mine = await storage.digest_of(user_id=ME)
    assert mine is not None and mine.due == 47 * 3600.0  # 23:00 that day
