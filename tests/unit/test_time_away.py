"""Time away and more time (issue 27): the arithmetic of the 14-days-in-30 cap, and deadlines moved
in the database by a stay away, a return, and more time given (on SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from bot import clock
from bot.away import DAY, days_left, kept, overlap
from bot.errors import BadInput
from bot.quiet import next_end, parse_clock, period_at, zone
from bot.storage import Storage
from tests.unit.test_storage import move, started

ANN, BEA = 10, 11  # seats 0 and 1 of `started`


# ---- the cap ----------------------------------------------------------------------------------------


def test_nobody_away_before_may_take_fourteen_days() -> None:
    assert days_left([], 1000 * DAY) == 14


def test_days_away_in_the_last_thirty_count_against_the_next_stay() -> None:
    now = 1000 * DAY
    assert days_left([(now - 10 * DAY, now)], now) == 4
    assert days_left([(now - 14 * DAY, now)], now) == 0
    # Ten days away 25-15 days ago: any stay of 5 days or more makes 15 days in the 30 that end
    # with it (the 30 days before a 5-day stay's end hold all ten; a longer one's, 15 - d of them).
    assert days_left([(now - 25 * DAY, now - 15 * DAY)], now) == 4
    # 28-18 days ago: a 14-day stay's 30 days hold 0 of them.
    assert days_left([(now - 28 * DAY, now - 18 * DAY)], now) == 14
    # Long past: nothing counts.
    assert days_left([(now - 60 * DAY, now - 46 * DAY)], now) == 14


def test_several_stays_add_up_and_old_ones_are_forgotten() -> None:
    now = 1000 * DAY
    periods = [
        (now - 29 * DAY, now - 27 * DAY),
        (now - 5 * DAY, now - 2 * DAY),
        (now - 80 * DAY, now - 70 * DAY),
    ]
    assert overlap(periods, now - 30 * DAY, now) == 5 * DAY
    assert days_left(periods, now) == 11  # (the 30 days ending with an 11-day stay hold 3 days before it)
    assert kept(periods, now) == periods[:2]
    assert kept([(now, now)], now) == []


# ---- deadlines in the database --------------------------------------------------------------------------

pytestmark = pytest.mark.both_dbs


async def test_a_stay_away_moves_deadlines_and_coming_back_takes_the_rest_off(storage: Storage) -> None:
    game = await started(storage)  # waits for Ann (seat 0)
    (before,) = await storage.waits_of_game(game_id=game.id)
    now = clock.now()
    answer = await storage.go_away(user_id=ANN, days=3, now=now)
    assert answer.until == pytest.approx(now + 3 * DAY, abs=1) and answer.left == 11
    (away,) = await storage.waits_of_game(game_id=game.id)
    assert away.deadline == pytest.approx(before.deadline + 3 * DAY, abs=1) and away.since == before.since
    assert away.remind_at == pytest.approx(before.remind_at + 3 * DAY, abs=1)
    assert await storage.away_until(user_ids=[ANN, BEA], now=now + 1) == {
        ANN: pytest.approx(now + 3 * DAY, abs=1)
    }

    # Ann moves; Bea (not away) gets a plain deadline. Then Ann is awaited again while away: her new
    # clock starts when her stay ends.
    moved = await move(storage, game)
    (bea,) = await storage.waits_of_game(game_id=game.id)
    assert bea.seat == 1 and bea.paused == 0
    await storage.record_move(
        game_id=game.id,
        expected_version=moved.row.version,
        seat=1,
        action={"type": "flip", "position": 2},
        state={"turn": 9},
        waiting=[0],
    )
    (ann,) = await storage.waits_of_game(game_id=game.id)
    timeout = before.deadline - before.since
    assert ann.deadline == pytest.approx(now + 3 * DAY + timeout, abs=5)
    assert moved.row.id == game.id

    # Back a day later: two days come off again, so the deadline moved by the day away only.
    assert await storage.come_back(user_id=ANN, now=now + DAY) == pytest.approx(now + 3 * DAY, abs=1)
    (back,) = await storage.waits_of_game(game_id=game.id)
    assert back.deadline == pytest.approx(ann.deadline - 2 * DAY, abs=1)
    assert await storage.away_until(user_ids=[ANN], now=now + DAY + 1) == {}
    assert await storage.come_back(user_id=ANN, now=now + DAY + 2) is None

    # One day used: 13 may be taken; 14 is refused and nothing changes.
    refused = await storage.go_away(user_id=ANN, days=14, now=now + DAY + 3)
    assert refused.until is None and refused.left == 13
    assert await storage.waits_of_game(game_id=game.id) == [back]


async def test_more_time_once_per_giver_per_awaited_move(storage: Storage) -> None:
    game = await started(storage)
    (wait,) = await storage.waits_of_game(game_id=game.id)
    now = clock.now()
    given = await storage.extend_wait(game_id=game.id, seat=0, giver_id=BEA, seconds=3600, now=now)
    assert given.deadline == pytest.approx(wait.deadline + 3600, abs=1)
    again = await storage.extend_wait(game_id=game.id, seat=0, giver_id=BEA, seconds=7200, now=now)
    assert again.deadline is None and again.refused == "given"
    other = await storage.extend_wait(game_id=game.id, seat=0, giver_id=99, seconds=7200, now=now + 1)
    assert other.deadline == pytest.approx(wait.deadline + 3 * 3600, abs=1)
    assert [(e.giver_id, e.seconds) for e in await storage.extensions_of_game(game_id=game.id)] == [
        (BEA, 3600),
        (99, 7200),
    ]
    nobody = await storage.extend_wait(game_id=game.id, seat=1, giver_id=ANN, seconds=60, now=now)
    assert nobody.refused == "not-awaited"
    # The next awaited move is a new one: the extensions of the last are no longer shown.
    await move(storage, game)
    assert await storage.extensions_of_game(game_id=game.id) == []


# ---- quiet hours ----------------------------------------------------------------------------------------


def _berlin(year: int, month: int, day: int, hour: int, minute: int) -> float:
    return datetime(year, month, day, hour, minute, tzinfo=ZoneInfo("Europe/Berlin")).timestamp()


def test_quiet_hours_over_midnight_in_a_time_zone() -> None:
    tz = zone("Europe/Berlin")
    night = (22 * 60, 7 * 60)
    assert period_at(_berlin(2026, 3, 10, 23, 30), *night, tz) == (
        _berlin(2026, 3, 10, 22, 0),
        _berlin(2026, 3, 11, 7, 0),
    )
    assert period_at(_berlin(2026, 3, 11, 6, 59), *night, tz) == (
        _berlin(2026, 3, 10, 22, 0),
        _berlin(2026, 3, 11, 7, 0),
    )
    assert period_at(_berlin(2026, 3, 11, 7, 0), *night, tz) is None  # (the end is not inside)
    assert next_end(_berlin(2026, 3, 11, 12, 0), *night, tz) == _berlin(2026, 3, 12, 7, 0)
    # Within a day, and across the spring change of clocks (29 March 2026: 02:00 -> 03:00).
    assert period_at(_berlin(2026, 3, 29, 1, 30), 60, 6 * 60, tz) == (
        _berlin(2026, 3, 29, 1, 0),
        _berlin(2026, 3, 29, 6, 0),
    )
    assert _berlin(2026, 3, 29, 6, 0) - _berlin(2026, 3, 29, 1, 0) == 4 * 3600


def test_quiet_hours_are_read_as_people_write_them() -> None:
    assert parse_clock("07:30") == 450 and parse_clock(" 7:05 ") == 425 and parse_clock("00:00") == 0
    for bad in ("24:00", "7", "7:5", "ab:cd", "12:60", "٧:٣٠"):
        with pytest.raises(BadInput):
            parse_clock(bad)
    with pytest.raises(BadInput, match="no time zone"):
        zone("Mars/Olympus")
    assert zone(None).key == "UTC"


async def test_going_away_again_while_away_counts_from_now(storage: Storage) -> None:
    game = await started(storage)
    (before,) = await storage.waits_of_game(game_id=game.id)
    now = clock.now()
    await storage.go_away(user_id=ANN, days=3, now=now)
    again = await storage.go_away(user_id=ANN, days=2, now=now + DAY)  # one day used, two more
    assert again.until == pytest.approx(now + 3 * DAY, abs=1) and again.left == 11
    (wait,) = await storage.waits_of_game(game_id=game.id)
    assert wait.deadline == pytest.approx(before.deadline + 3 * DAY, abs=1)
    refused = await storage.go_away(user_id=ANN, days=14, now=now + DAY + 1)
    assert refused.until is None and refused.left == 13  # (one day used; a second more is not counted)
    assert await storage.waits_of_game(game_id=game.id) == [wait]
