"""/tournament end to end, beyond tests/e2e/test_tournament.py, on both databases: a tournament at
tables of three (Lines By The Dots, `players:3`), its tables seated by score in the later round, a
shared win, and its standings (points, Buchholz) equal to a count made here from the games as they
were played; a game whose player lets the clock run out forfeited at its deadline and the next round
opened with nobody acting; and two processes (shards 0 and 1 of 2) over one database running one
tournament, its round posts, games, card and final post each once."""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Iterator
from fractions import Fraction
from functools import partial
from typing import Any

import pytest

from bot.render.standings import figure
from tests.db import query
from tests.e2e import test_shards, test_time_away
from tests.e2e.driver import assert_discord_accepted_all, bot_messages
from tests.e2e.test_time_away import Clock, tick
from tests.e2e.test_tournament import (
    BYES,
    PAIR,
    Count,
    Field,
    Game,
    click,
    field_of,
    final_post,
    open_tournament,
    people,
    round_post,
    standings_said,
    thread_of,
)
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness
from tests.emulator.world import Scene, User


@pytest.fixture(autouse=True)
def _discord_accepted_all(emu: DiscordEmulator) -> Iterator[None]:
    """After each test: Discord would have accepted every request, each payload fits its schema."""
    yield
    assert_discord_accepted_all(emu)


pytestmark = [pytest.mark.threads, pytest.mark.both_dbs]

BOARD = re.compile(r"Board (\d+): (.*) · game #(\d+)")
ZERO = Fraction(0)


Table = tuple[tuple[int, ...], tuple[int, ...]]  # a game's players (as seated) and its winners


async def open_dots(f: Field, host: User, others: list[User], **options: object) -> int:
    """A Swiss of Lines By The Dots on the smallest board, at tables of three."""
    rec = await f.emu.slash(host, f.channel, "tournament new", game="dots", size=3, **options)
    await rec.response()
    (card,) = rec.messages
    tournament_id = int(card.custom_ids[0].split(":")[1])
    for user in others:
        assert await click(f, user, tournament_id, "join") == ""
    return tournament_id


def shared_line(rules: Any, state: Any) -> tuple[list[tuple[int, dict[str, Any]]], tuple[int, ...]]:
    """Moves from ``state`` to an end where two players share the win (random playouts, by the rules
    alone), and the winners' seats."""
    for seed in range(1000):
        rng, now, moves = random.Random(seed), state, []
        while rules.outcome(now) is None:
            seat = min(rules.to_act(now))
            action = rng.choice([a for a in rules.legal_actions(now, seat) if a["type"] != "drop"])
            moves.append((seat, action))
            now = rules.apply(now, seat, action)
        if len(rules.outcome(now).winners) == 2:
            return moves, tuple(rules.outcome(now).winners)
    raise AssertionError("no shared win found")


async def play_tables(f: Field, harness: BotHarness, tid: int, number: int, order: list[int]) -> list[Table]:
    """Round ``number``'s tables read from its post. In round 1 the table of three is played to a
    shared win by /dots line in its thread; every other game is ended by its players' /game leave,
    the weakest (later in ``order``) first, until one is left: the winner."""
    post = await f.emu.wait_until(lambda: round_post(f, tid, number), 15, f"round {number}")
    tables = [
        (tuple(int(u) for u in re.findall(r"<@(\d+)>", who)), int(g))
        for _, who, g in BOARD.findall(post.content)
    ]
    assert "bye" not in post.content.lower()
    played: list[Table] = []
    for players, game_id in tables:
        place = await f.emu.wait_until(partial(thread_of, f, game_id), 10, f"game #{game_id}'s thread")
        if number == 1 and len(players) == 3:
            row, rules, state = await test_shards.stored(harness, game_id)
            moves, seats = shared_line(rules, state)
            for seat, action in moves:
                options = {"to": action["to"], **({"from": action["from"]} if action.get("from") else {})}
                rec = await f.emu.slash(f.users[row.seats[seat]], place, "dots line", **options)
                assert not (await rec.response()).ephemeral, rec.ephemeral_texts()
                await f.emu.wait_idle()
            assert (await harness.bot.storage.get_game(game_id=game_id)).status == "finished"
            played.append((players, tuple(row.seats[s] for s in seats)))
            continue
        weakest_first = sorted(players, key=order.index, reverse=True)
        for loser in weakest_first[:-1]:
            rec = await f.emu.slash(f.users[loser], place, "game leave")
            await rec.response()
            await f.emu.wait_idle()
        played.append((players, (weakest_first[-1],)))
    return played


def points_of(ids: list[int], games: list[Table]) -> dict[int, Fraction]:
    """A win 1, a shared win 1/2 to each winner, a loss 0."""
    points = {p: ZERO for p in ids}
    for _, winners in games:
        for w in winners:
            points[w] += 1 if len(winners) == 1 else Fraction(1, 2)
    return points


def buchholz_lines(ids: list[int], games: list[Table], names: dict[int, str]) -> list[str]:
    """The standings by the issue's rules, counted here: Buchholz the sum of the opponents' final
    points over the player's games (every game played, no byes); equals in seeding (join) order."""
    points = points_of(ids, games)
    tie = {p: ZERO for p in ids}
    for players, _ in games:
        for p in players:
            tie[p] += sum((points[q] for q in players if q != p), ZERO)
    order = sorted(ids, key=lambda p: (-points[p], -tie[p]))
    lines, rank, last = [], 0, None
    for place, p in enumerate(order, start=1):
        if (points[p], tie[p]) != last:
            rank, last = place, (points[p], tie[p])
        lines.append(
            f"{rank}. {names[p]}: score {figure(points[p])}, Buchholz {figure(tie[p])}, 0 games left."
        )
    return lines


async def test_tables_of_three_seated_by_score_with_a_shared_win(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness, bot_db: str
) -> None:
    players = people(emu, scene, 5)
    f = field_of(bot_harness, scene, bot_db, players)
    ids = [u.id for u in players]
    tid = await open_dots(f, players[0], players[1:], format="swiss", rounds=2, players=3)
    await click(f, players[0], tid, "start")
    order = [ids[4], ids[2], ids[0], ids[3], ids[1]]  # the earlier in the list wins (by leaving last)
    first = await play_tables(f, bot_harness, tid, 1, order)
    # Five players at tables of up to three: one of three and one of two, nobody left out.
    assert sorted(len(p) for p, _ in first) == [2, 3]
    assert sorted(p for t, _ in first for p in t) == sorted(ids)
    assert sorted(len(w) for _, w in first) == [1, 2]  # a sole win and a shared one
    second = await play_tables(f, bot_harness, tid, 2, order)
    # Seated by score: the first table holds the three highest scores (the winners of round 1).
    (top, _), (rest, _) = second
    assert set(top) == {w for _, winners in first for w in winners}
    assert sorted([*top, *rest]) == sorted(ids)
    names = {u.id: f.name(u.id) for u in players}
    lines = buchholz_lines(ids, first + second, names)
    assert await standings_said(f, players[1], tid) == lines
    post = await final_post(f, tid)
    champion = next(p for p in ids if lines[0].startswith(f"1. {names[p]}:"))
    assert f"<@{champion}>" in post.content


timed = test_time_away.timed  # (the fixture: the bot, games where they are opened, a clock the test moves)


async def test_a_deadline_forfeits_and_the_next_round_opens(
    emu: DiscordEmulator, scene: Scene, bot_db: str, timed: tuple[BotHarness, Clock]
) -> None:
    harness, clock = timed
    players = people(emu, scene, 3)
    f = field_of(harness, scene, bot_db, players)
    tid = await open_tournament(f, players[0], players[1:], format="round-robin", timeout="30m")
    await click(f, players[0], tid, "start")
    post = await emu.wait_until(lambda: round_post(f, tid, 1), 15, "round 1")
    ((_, a, b, game_id),) = PAIR.findall(post.content)
    game = await harness.bot.services.games.get(int(game_id))
    late, other = game.row.seats[0], game.row.seats[1]  # the first to move lets the clock run
    assert {late, other} == {int(a), int(b)}
    clock.forward(1801)
    await tick(emu, harness)
    # Nobody acts: the game is forfeited at its deadline, and round 2 opens by itself.
    await emu.wait_until(lambda: round_post(f, tid, 2), 15, "round 2")
    game = await harness.bot.services.games.get(int(game_id))
    assert game.row.status == "finished"
    said = [m.content for m in bot_messages(emu, scene.channel)]
    assert any(f"<@{late}> ran out of time and forfeits." in text for text in said)
    snap = await harness.bot.tournaments.snapshot(tid)
    assert snap.tournament.round == 2
    (first,) = snap.round_pairings(1)
    assert first.winners == (other,)
    assert len(snap.round_pairings(2)) == 1 and snap.round_pairings(2)[0].game_id is not None


# Two processes over one database (shards 0 and 1 of 2: tests/e2e/test_shards.py).
scenes = test_shards.scenes
two_processes = test_shards.two_processes


async def test_two_processes_run_one_tournament(
    emu: DiscordEmulator,
    scenes: tuple[Scene, Scene],
    two_processes: tuple[BotHarness, BotHarness],
    bot_db: str,
) -> None:
    first, second = two_processes
    one = scenes[1]  # (server One is on shard 1, the second process; each game in its thread)
    players = [one.alice, one.bob, one.carol]
    f = field_of(second, one, bot_db, players)
    tid = await open_tournament(f, players[0], players[1:], format="round-robin")
    await click(f, players[0], tid, "start")
    count = Count([u.id for u in players])
    for number in (1, 2, 3):
        post = await emu.wait_until(partial(round_post, f, tid, number), 15, f"round {number}")
        ((_, a, b, game_id),) = PAIR.findall(post.content)
        byes = BYES.search(post.content)
        assert byes is not None  # (three players: a bye each round)
        count.byes += [int(u) for u in re.findall(r"<@(\d+)>", byes.group(1))]
        a, b = int(a), int(b)
        place = await emu.wait_until(partial(thread_of, f, int(game_id)), 10, f"game #{game_id}'s thread")
        loser = max(a, b)
        if number == 2:  # by /game leave in its thread: the second process
            rec = await emu.slash(f.users[loser], place, "game leave")
            await rec.response()
        else:  # ended in the first process (as a deadline's pass there would)
            await first.bot.services.moves.forfeit(int(game_id), loser)
        count.games.append(Game((a, b), min(a, b)))
    post = await final_post(f, tid)
    await asyncio.sleep(1.5)  # (both processes' passes have come round since: nothing more comes)
    await emu.wait_idle()
    assert f"<@{min(u.id for u in players)}>" in post.content
    texts = [m.content for m in bot_messages(emu, one.channel)]
    for number in (1, 2, 3):
        assert sum(f"**Round {number} of" in t and f"tournament #{tid}**" in t for t in texts) == 1
    assert sum("is over after" in t for t in texts) == 1
    cards = [m for m in bot_messages(emu, one.channel) if f":{tid}:-:tour_" in str(m.components)]
    assert len(cards) == 1
    assert query(bot_db, "SELECT COUNT(*) FROM games")[0][0] == 3  # one game a round, none doubled
    assert query(bot_db, "SELECT COUNT(*) FROM games WHERE status = 'finished'")[0][0] == 3
    names = {u.id: f.name(u.id) for u in players}
    assert await standings_said(f, players[1], tid) == count.table("Sonneborn-Berger", names)
