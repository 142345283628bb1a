"""The memory's pure logic (bot/memory): places, the rating update, computers, the recompute."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from bot.memory.periods import period_key
from bot.memory.ratings import (
    Entry,
    Finished,
    Rating,
    identity,
    identity_name,
    places,
    rate,
    recompute,
    seat_results,
    shown,
)
from bot.players.seats import computer_id

ANN, BEA, CY, DI = 11, 12, 13, 14


# ---- places ------------------------------------------------------------------------------------------


def test_scored_games_rank_by_score_and_ties_share_a_place() -> None:
    assert places(True, 4, winners={1}, scores=[3, 9, 5, 5], forfeited=()) == (4, 1, 2, 2)
    assert places(True, 3, winners={0, 2}, scores=[7, 2, 7], forfeited=()) == (1, 3, 1)


def test_procession_and_updown_tie_the_losers_below_the_winners() -> None:
    assert places(False, 4, winners={2}, scores=None, forfeited=()) == (2, 2, 1, 2)
    # Up-Down-Stay after a playoff: the scores come from different deals and are not compared.
    assert places(False, 3, winners={0}, scores=[2, 5, 1], forfeited=()) == (1, 2, 2)


def test_a_forfeit_places_last_below_everyone_and_forfeits_tie() -> None:
    # Bea had the best score when she left: she still places last.
    assert places(True, 4, winners={0}, scores=[4, 9, 1, 0], forfeited={1}) == (1, 4, 2, 3)
    assert places(True, 2, winners={0}, scores=[0, 12], forfeited={1}) == (1, 2)
    assert places(False, 4, winners={3}, scores=None, forfeited={0, 1}) == (3, 3, 2, 1)


def test_seat_results_read_the_stored_outcome() -> None:
    hard = computer_id("hard", 2)
    out = seat_results(
        True, [ANN, hard], {"winners": [0, 1], "scores": [3, 3], "draw": True, "reason": "x"}, set()
    )
    assert [(r.place, r.won, r.forfeited, r.score) for r in out] == [
        (1, False, False, 3),
        (1, False, False, 3),
    ]
    assert out[1].player == computer_id("hard", 1) and out[1].user_id == hard
    left = seat_results(True, [ANN, BEA, CY], {"winners": [2], "scores": [5, 1, 2]}, {0})
    assert [(r.place, r.won, r.forfeited) for r in left] == [
        (3, False, True),
        (2, False, False),
        (1, True, False),
    ]
    # A malformed or partial result still places everyone (here: nobody won, nobody scored).
    assert [r.place for r in seat_results(True, [ANN, BEA], {"scores": [1]}, set())] == [1, 1]


def test_every_computer_of_a_level_is_one_player() -> None:
    assert identity(computer_id("easy", 3)) == identity(computer_id("easy", 1)) == computer_id("easy", 1)
    assert identity(computer_id("easy", 1)) != identity(computer_id("hard", 1))
    assert identity(ANN) == ANN
    assert identity_name(computer_id("normal", 2), "Computer 2 (normal)") == "Computer (normal)"
    assert identity_name(ANN, "Ann") == "Ann"


# ---- the update --------------------------------------------------------------------------------------


def test_a_win_raises_and_a_loss_lowers_and_a_newcomer_shows_1000() -> None:
    assert shown(Rating().ordinal) == Rating().shown == 1000
    new = rate({}, [Entry(ANN, 1), Entry(BEA, 2)])
    assert new[ANN].mu > 25 > new[BEA].mu
    assert new[ANN].sigma < Rating().sigma and new[BEA].sigma < Rating().sigma
    assert new[ANN].shown > 1000 > new[BEA].shown


def test_a_tie_rates_as_a_tie() -> None:
    new = rate({}, [Entry(ANN, 1), Entry(BEA, 1)])
    assert new[ANN] == new[BEA]
    assert new[ANN].mu == pytest.approx(25)  # equal players tying: neither gains
    assert new[ANN].sigma < Rating().sigma  # but the system is surer of both
    # A stronger player tying a weaker one loses rating to them.
    strong, weak = Rating(30, 3), Rating(20, 3)
    after = rate({ANN: strong, BEA: weak}, [Entry(ANN, 1), Entry(BEA, 1)])
    assert after[ANN].mu < strong.mu and after[BEA].mu > weak.mu


def test_a_forfeit_rates_as_last_place() -> None:
    result = seat_results(True, [ANN, BEA, CY], {"winners": [2], "scores": [8, 1, 5]}, {0})
    new = rate({}, [Entry(r.player, r.place) for r in result])
    assert new[CY].mu > new[BEA].mu > new[ANN].mu


def test_two_computers_of_one_level_update_one_rating_with_their_mean() -> None:
    hard = computer_id("hard", 1)
    entries = [Entry(hard, 1), Entry(ANN, 2), Entry(hard, 3)]
    new = rate({}, entries)
    assert set(new) == {hard, ANN}
    # The same game with the two computers as two players: the level takes the mean of theirs.
    apart = rate({}, [Entry(hard, 1), Entry(ANN, 2), Entry(-999, 3)])
    assert new[ANN] == apart[ANN]
    assert new[hard].mu == pytest.approx((apart[hard].mu + apart[-999].mu) / 2)
    assert new[hard].sigma == pytest.approx((apart[hard].sigma + apart[-999].sigma) / 2)


def test_a_game_of_one_entry_changes_nothing() -> None:
    assert rate({ANN: Rating(30, 2)}, [Entry(ANN, 1)]) == {ANN: Rating(30, 2)}


# ---- the recompute -----------------------------------------------------------------------------------


def random_games(rng: random.Random, count: int) -> list[Finished]:
    people = [ANN, BEA, CY, DI]
    computers = [computer_id(level, k) for level in ("easy", "hard") for k in (1, 2)]
    games = []
    for _ in range(count):
        seated = rng.sample(people + computers, rng.randint(2, 5))
        if not any(u > 0 for u in seated):
            seated[0] = ANN
        winners = set(rng.sample(range(len(seated)), rng.choice((1, 1, 1, 2))))
        scores = [rng.randint(0, 4) for _ in seated]
        forfeited = {s for s in range(len(seated)) if rng.random() < 0.1}
        kind = rng.choice(("dots", "procession"))
        result = seat_results(kind, seated, {"winners": sorted(winners), "scores": scores}, forfeited)
        games.append(
            Finished(
                guild_id=rng.choice((1, 2)),
                kind=kind,
                entries=tuple(Entry(r.player, r.place) for r in result),
                winners=frozenset(r.player for r in result if r.won),
            )
        )
    return games


def test_the_recompute_is_the_updates_applied_in_order_per_server_and_game() -> None:
    games = random_games(random.Random(5), 300)
    table = recompute(games)
    # By hand: one game after another, each server's and game's ratings apart.
    kept: dict[tuple[int, str, int], Rating] = {}
    counts: dict[tuple[int, str, int], list[int]] = {}
    for game in games:
        prior = {
            p: kept[(game.guild_id, game.kind, p)]
            for p in {e.player for e in game.entries}
            if (game.guild_id, game.kind, p) in kept
        }
        for player, rating in rate(prior, game.entries).items():
            key = (game.guild_id, game.kind, player)
            kept[key] = rating
            tally = counts.setdefault(key, [0, 0])
            tally[0] += 1
            tally[1] += player in game.winners
    assert {k: s.rating for k, s in table.items()} == kept
    assert {k: [s.games, s.wins] for k, s in table.items()} == counts
    assert {k[0] for k in table} == {1, 2} and {k[1] for k in table} == {"dots", "procession"}
    assert any(k[2] == computer_id("hard", 1) for k in table)
    assert not any(k[2] in (computer_id("hard", 2), computer_id("easy", 2)) for k in table)


def test_periods_are_utc_calendar_months_and_iso_weeks() -> None:
    at = datetime(2025, 12, 31, 23, 30, tzinfo=UTC).timestamp()
    assert period_key("month", at) == "m2025-12"
    assert period_key("week", at) == "w2026-W01"  # ISO: that Wednesday is in 2026's first week
    with pytest.raises(ValueError):
        period_key("year", at)
