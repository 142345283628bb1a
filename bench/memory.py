"""The memory at scale: /game leaderboard, stats and history on a database of 100,000 finished games.

    python bench/memory.py [--games N] [--quick] [--samples S] [--keep PATH]

Builds a fresh database through the storage layer: N finished games (90% in one big server of 400
people, the rest in nine small ones; two to four seats, a quarter with a computer; 5% with a forfeit;
ending over the last 180 days) are written in big transactions (games, seats, the forfeits' moves),
then recorded by the storage's own backfill (`Records.backfill_records`: every game's places and
ratings, in the order they finished), which is timed. Then, for random players, games and periods of
the big server, it times each read the commands make (storage alone), and each whole answer as the
command builds it (`Memory.*_answer`: the reads, the leaderboard image, the embed and buttons; only
the HTTP call to Discord is left out), and prints p50 / p99 / max against the 50 ms p99 target.
``--quick`` (CI): 20,000 games and fewer samples, well under a minute.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.memory.periods import PERIODS
from bot.players import LEVELS
from bot.players.seats import computer_id, computer_name
from bot.registry import GAMES, RULES, SCORE_RANKED
from bot.service import Services
from bot.storage import Storage
from bot.storage.driver import Many, Q, Txn
from bot.table.catalog import Catalog, GameKind
from bot.table.records import Memory
from bot.table.replies import Replies
from bot.table.routing import Router

BIG_GUILD = 1
PEOPLE = 400
TARGET_MS = 50.0
KINDS = sorted(RULES)
SCORED = {"dots", "numbers", "divisors"}
CHUNK = 10_000


def plan_games(count: int, rng: random.Random, now: float) -> list[dict[str, Any]]:
    """The games to store, oldest first."""
    start = now - 180 * 86400
    games = []
    for i in range(count):
        guild = BIG_GUILD if rng.random() < 0.9 else rng.randint(2, 10)
        people = [guild * 10**6 + rng.randrange(PEOPLE if guild == BIG_GUILD else 40) for _ in range(4)]
        seated = list(dict.fromkeys(people))[: rng.randint(2, 4)]
        if len(seated) < 2 or rng.random() < 0.25:
            seated = [*seated[:1], computer_id(rng.choice(LEVELS), 1), *seated[1:3]]
        kind = rng.choice(KINDS)
        n = len(seated)
        scores = [rng.randint(0, 20) for _ in range(n)] if kind in SCORED else None
        forfeits = [rng.randrange(1, n)] if rng.random() < 0.05 else []
        stayed = [s for s in range(n) if s not in forfeits]
        best = max(stayed, key=lambda s: scores[s]) if scores else rng.choice(stayed)
        winners = [s for s in stayed if scores and scores[s] == scores[best]] or [best]
        finished = start + (now - start) * (i + 1) / count
        games.append(
            {
                "id": i + 1,
                "guild": guild,
                "kind": kind,
                "seats": seated,
                "result": {"winners": winners, "scores": scores, "draw": False, "reason": "bench"},
                "forfeits": forfeits,
                "finished": finished,
            }
        )
    return games


def write_games(games: list[dict[str, Any]]) -> Txn[None]:
    """One big transaction: the games as the bot leaves them finished, before they are recorded."""
    yield Many(
        "INSERT INTO games (id, kind, guild_id, channel_id, place_id, status, host_id, options, seed, state, "
        "result, version, lobby_message_id, board_message_id, created_at, updated_at) "
        "VALUES (?, ?, ?, ?, ?, 'finished', ?, '{}', 1, '{}', ?, 40, ?, ?, ?, ?)",
        [
            (
                g["id"],
                g["kind"],
                g["guild"],
                g["guild"] * 1000 + 1,
                10**15 + g["id"],
                g["seats"][0],
                json.dumps(g["result"]),
                10**16 + g["id"],
                10**17 + g["id"],
                g["finished"] - 900,
                g["finished"],
            )
            for g in games
        ],
    )
    yield Many(
        "INSERT INTO seats (game_id, position, user_id, name) VALUES (?, ?, ?, ?)",
        [
            (g["id"], p, u, computer_name(u) if u < 0 else f"player{u % 10**6}")
            for g in games
            for p, u in enumerate(g["seats"])
        ],
    )
    yield Many(
        "INSERT INTO moves (game_id, seq, seat, action, created_at) VALUES (?, ?, ?, ?, ?)",
        [
            (g["id"], seq, seat, '{"type":"forfeit"}', g["finished"] - 60 + seq)
            for g in games
            for seq, seat in enumerate(g["forfeits"], start=1)
        ],
    )


def due() -> Txn[None]:
    yield Q("INSERT INTO meta (key, value) VALUES ('records_backfill', 'due') ON CONFLICT (key) DO NOTHING")


def memory_for(storage: Storage) -> Memory:
    """The commands' Memory on ``storage`` (what it uses of the bot: storage, router, catalog)."""
    catalog = Catalog()
    for kind in KINDS:
        catalog.add(GameKind.of(GAMES[kind]))
    router = Router(Services.build(storage, RULES).games, Replies())
    return Memory(storage, router, catalog)


async def timed(samples: int, make: Callable[[random.Random], Awaitable[Any]], seed: int) -> list[float]:
    rng = random.Random(seed)
    for _ in range(min(20, samples)):  # warm the caches (SQLite's pages, the text sprites)
        await make(rng)
    times = []
    for _ in range(samples):
        t0 = time.perf_counter()
        await make(rng)
        times.append((time.perf_counter() - t0) * 1000)
    return sorted(times)


def file_mb(path: str) -> float:
    return Path(path).stat().st_size / 2**20


def report(label: str, times: list[float]) -> bool:
    p50 = times[len(times) // 2]
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    met = p99 <= TARGET_MS
    mark = "met" if met else "MISS"
    print(f"  {label:<44} p50 {p50:6.2f} ms  p99 {p99:6.2f} ms  max {times[-1]:6.2f} ms  [{mark}]")
    return met


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, help="finished games (default 100,000; --quick 20,000)")
    parser.add_argument("--quick", action="store_true", help="CI's short form")
    parser.add_argument("--samples", type=int, help="timed calls per figure (default 400; --quick 100)")
    parser.add_argument("--keep", help="build the database at this path and keep it")
    args = parser.parse_args()
    count = args.games or (20_000 if args.quick else 100_000)
    samples = args.samples or (100 if args.quick else 400)
    folder = tempfile.TemporaryDirectory()
    path = args.keep or str(Path(folder.name) / "memory.sqlite3")

    now = time.time()
    games = plan_games(count, random.Random(15), now)
    storage = await Storage.open(path, score_ranked=SCORE_RANKED)
    try:
        t0 = time.perf_counter()
        for i in range(0, len(games), CHUNK):
            await storage.driver.write(write_games(games[i : i + CHUNK]))
        written = time.perf_counter() - t0
        await storage.driver.write(due())
        t0 = time.perf_counter()
        recorded = await storage.backfill_records()
        backfill = time.perf_counter() - t0
        size = file_mb(path)
        print(f"memory: {count:,} finished games ({sum(len(g['seats']) for g in games):,} seats)")
        print(
            f"  written in {written:.1f} s; recorded (results, ratings, rivals, periods) in {backfill:.1f} s"
        )
        print(f"  ({backfill / max(1, recorded) * 1e6:.0f} us per game); database {size:.0f} MB")

        memory = memory_for(storage)
        big = [g for g in games if g["guild"] == BIG_GUILD]
        players = sorted({u for g in big for u in g["seats"] if u > 0})

        def someone(rng: random.Random) -> int:
            return rng.choice(players)

        async def board_reads(rng: random.Random) -> None:
            kind, period = rng.choice(KINDS), rng.choice(list(PERIODS))
            await storage.leaderboard(guild_id=BIG_GUILD, kind=kind, period=period)
            await storage.board_line_of(guild_id=BIG_GUILD, kind=kind, player_id=someone(rng), period=period)

        async def board_answer(rng: random.Random) -> None:
            await memory.leaderboard_answer(
                guild_id=BIG_GUILD,
                user_id=someone(rng),
                kind=rng.choice(KINDS),
                period=rng.choice(list(PERIODS)),
            )

        async def stats_reads(rng: random.Random) -> None:
            player = someone(rng)
            await storage.player_records(guild_id=BIG_GUILD, player_id=player)
            await storage.rivals(guild_id=BIG_GUILD, player_id=player)

        async def stats_answer(rng: random.Random) -> None:
            await memory.stats_answer(guild_id=BIG_GUILD, player_id=someone(rng), name="Someone", own=True)

        async def history_reads(rng: random.Random) -> None:
            kind = rng.choice([None, *KINDS])
            first = await storage.history(guild_id=BIG_GUILD, player_id=someone(rng), kind=kind)
            await storage.history(
                guild_id=BIG_GUILD,
                player_id=someone(rng),
                kind=kind,
                page=rng.randrange(max(1, first.total // 5)),
                anchor=first.anchor,
            )

        async def history_answer(rng: random.Random) -> None:
            # A first page, or a later one (every player of the big server has 15 games or more).
            page = rng.choice((0, 0, 1, 2))
            await memory.history_answer(guild_id=BIG_GUILD, player_id=someone(rng), kind=None, page=page)

        print(f"  per call, {samples} calls each, random players, games and periods of the big server:")
        results = [
            report("leaderboard: reads (top 10 + the asker's line)", await timed(samples, board_reads, 1)),
            report("leaderboard: answer (reads, image, embed)", await timed(samples, board_answer, 2)),
            report("stats: reads (each game, trend, rivals)", await timed(samples, stats_reads, 3)),
            report("stats: answer (reads, embed)", await timed(samples, stats_answer, 4)),
            report("history: reads (first page, a later page)", await timed(samples, history_reads, 5)),
            report("history: answer (reads, embed, buttons)", await timed(samples, history_answer, 6)),
        ]
        print(f"  target: p99 <= {TARGET_MS:.0f} ms: {'met' if all(results) else 'MISSED'}")
    finally:
        await storage.close()
        folder.cleanup()


if __name__ == "__main__":
    asyncio.run(main())
