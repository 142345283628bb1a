"""Moving a deployment: ``quetbot migrate`` (bot/storage/transfer.py) timed on many finished games.

    python bench/migrate.py [--games N] [--live L] [--to postgresql://...] [--keep PATH]

Builds a SQLite database through the storage layer: N finished games (default 10,000) and L games
still being played (default 2% of N), each played out with random legal moves by the rules themselves
(the five games in turn, two to four seats as each game allows, a quarter with a computer), written in
big transactions as the bot leaves them (games with their real state, result and version, seats, the
move log; a live game's deadlines and move clock), then recorded by the storage's own backfill
(results, ratings, rivals, period standings). (bench/memory.py's builder writes made-up states,
which would not replay.) Then it runs the migration into an empty PostgreSQL database, a throwaway
server started here (tests/pg.py) unless ``--to`` names one, and prints the time of the copy (one
transaction, COPY in pages of `PAGE_ROWS`) and of the verification (every move log replayed, every
table's rows compared), with the rows per table, as wall time and as this process's CPU time (the
replays are CPU-bound: on a busy machine the wall time grows, the CPU time does not).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.players import LEVELS
from bot.players.seats import computer_id, computer_name
from bot.registry import RULES, SCORE_RANKED
from bot.rules import play
from bot.storage import Storage
from bot.storage.driver import Many, Q, Txn
from bot.storage.rows import dumps
from bot.storage.transfer import PAGE_ROWS, migrate

KINDS = sorted(RULES)
GUILDS = 10
CHUNK = 2_000


def play_out(kind: str, rng: random.Random, live: bool) -> dict[str, Any]:
    """One game with random legal moves: to its end, or (``live``) part of the way."""
    rules = RULES[kind]
    n = rng.randint(rules.MIN_PLAYERS, min(4, rules.MAX_PLAYERS))
    options = {o.name: o.default for o in rules.OPTIONS}
    seed = rng.randrange(2**63)
    state = rules.new_game(n, options, seed)
    log = []
    stop = rng.randint(1, 8) if live else None
    while rules.outcome(state) is None and (stop is None or len(log) < stop):
        seat = min(rules.to_act(state))
        action = rng.choice(list(rules.legal_actions(state, seat)))
        state = play(rules, state, seat, action)
        log.append((seat, action))
    outcome = rules.outcome(state)
    return {
        "kind": kind,
        "n": n,
        "options": options,
        "seed": seed,
        "state": state.to_dict(),
        "result": None if outcome is None else outcome.to_dict(),
        "log": log,
        "waiting": sorted(rules.to_act(state)),
    }


def write_games(games: list[dict[str, Any]], first_id: int, rng: random.Random, now: float) -> Txn[None]:
    """One transaction: the games as the bot leaves them."""
    rows, seats, moves, waits, clocks = [], [], [], [], []
    for i, g in enumerate(games):
        game_id = first_id + i
        guild = 1 + game_id % GUILDS
        people = [guild * 10**6 + rng.randrange(200) + 1000 * k for k in range(g["n"])]
        if rng.random() < 0.25:
            people[-1] = computer_id(rng.choice(LEVELS), 1)
        started = now - 86400 * 90 * rng.random()
        finished = g["result"] is not None
        ended = started + 30 * (len(g["log"]) + 1)
        rows.append(
            (
                game_id, g["kind"], guild, guild * 1000, guild * 1000, "finished" if finished else "active",
                people[0], dumps(g["options"]), g["seed"], dumps(g["state"]),
                None if g["result"] is None else dumps(g["result"]),
                g["n"] + len(g["log"]),  # a lobby change per join, the start, a move each
                10**15 + game_id, 10**16 + game_id, started, ended,
            )
        )  # fmt: skip
        for position, user in enumerate(people):
            seats.append((game_id, position, user, computer_name(user) if user < 0 else f"player{user}"))
        for seq, (seat, action) in enumerate(g["log"], start=1):
            moves.append((game_id, seq, seat, dumps(action), started + 30 * seq))
        if not finished:
            for seat in g["waiting"]:
                waits.append((game_id, seat, ended, ended + 86400))
            for seat in range(g["n"]):
                clocks.append((game_id, seat, sum(1 for s, _ in g["log"] if s == seat), 30.0))
    yield Many(
        "INSERT INTO games (id, kind, guild_id, channel_id, place_id, status, host_id, options, seed, state, "
        "result, version, lobby_message_id, board_message_id, created_at, updated_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    yield Many("INSERT INTO seats (game_id, position, user_id, name) VALUES (?, ?, ?, ?)", seats)
    yield Many("INSERT INTO moves (game_id, seq, seat, action, created_at) VALUES (?, ?, ?, ?, ?)", moves)
    yield Many("INSERT INTO waits (game_id, seat, since, deadline) VALUES (?, ?, ?, ?)", waits)
    yield Many("INSERT INTO move_clock (game_id, seat, moves, seconds) VALUES (?, ?, ?, ?)", clocks)


def due() -> Txn[None]:
    yield Q("INSERT INTO meta (key, value) VALUES ('records_backfill', 'due') ON CONFLICT (key) DO NOTHING")


async def build(path: str, finished: int, live: int) -> None:
    rng = random.Random(16)
    now = time.time()
    t0 = time.perf_counter()
    games = [play_out(KINDS[i % len(KINDS)], rng, live=i >= finished) for i in range(finished + live)]
    rng.shuffle(games)
    played = time.perf_counter() - t0
    storage = await Storage.open(path, score_ranked=SCORE_RANKED)
    try:
        t0 = time.perf_counter()
        for start in range(0, len(games), CHUNK):
            await storage.driver.write(write_games(games[start : start + CHUNK], start + 1, rng, now))
        await storage.driver.write(due())
        recorded = await storage.backfill_records()
        for guild in range(1, GUILDS + 1):
            await storage.set_guild_setting(guild_id=guild, key="threads", value=guild % 2)
        written = time.perf_counter() - t0
    finally:
        await storage.close()
    moves = sum(len(g["log"]) for g in games)
    ended = sum(1 for g in games if g["result"] is not None)  # (a short game may end in its first moves)
    print(
        f"source: {ended:,} finished and {len(games) - ended:,} live games ({moves:,} moves) played out by "
        f"the rules in {played:.0f} s; written and recorded ({recorded:,} games) in {written:.0f} s"
    )


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000, help="finished games (default 10,000)")
    parser.add_argument("--live", type=int, help="games still being played (default 2%% of --games)")
    parser.add_argument("--to", help="an empty PostgreSQL database (default: a throwaway server here)")
    parser.add_argument(
        "--keep", help="build the SQLite source at this path and keep it (or reuse it, if it exists)"
    )
    args = parser.parse_args()
    live = args.games // 50 if args.live is None else args.live
    folder = tempfile.TemporaryDirectory()
    path = args.keep or str(Path(folder.name) / "source.sqlite3")
    server = None
    try:
        if args.keep and os.path.exists(args.keep):  # noqa: ASYNC240  (nothing else runs yet)
            print(f"source: {args.keep} (kept from an earlier run)")
        else:
            await build(path, args.games, live)
        target = args.to
        if target is None:
            from tests.pg import PostgresServer

            server = PostgresServer()
            server.start()
            target = await server.new_database()
        size = os.path.getsize(path) / 2**20  # noqa: ASYNC240  (nothing else runs meanwhile)
        print(f"migrating the {size:.0f} MB SQLite file into PostgreSQL (pages of {PAGE_ROWS:,} rows):")
        cpu_at: dict[str, float] = {}

        def say(line: str) -> None:  # (the CPU time of this process, at the copy's end)
            if line.startswith("Copied "):
                cpu_at["copied"] = time.process_time()
            print("  " + line)

        t0, cpu0 = time.perf_counter(), time.process_time()
        done = await migrate(path, target, progress=say)
        total, cpu = time.perf_counter() - t0, time.process_time() - cpu0
        copy_cpu = cpu_at["copied"] - cpu0
        v = done.verified
        print(
            f"copy: {done.copied.rows:,} rows in {done.copied.seconds:.1f} s "
            f"({done.copied.rows / done.copied.seconds:,.0f} rows/s; {copy_cpu:.1f} s CPU in this process)"
        )
        print(
            f"verify: {v.games:,} games ({v.moves:,} moves) replayed, {v.tables} tables ({v.rows:,} rows) "
            f"compared in {v.seconds:.1f} s ({cpu - copy_cpu:.1f} s CPU in this process)"
        )
        finished = done.copied.tables[[t for t, _ in done.copied.tables].index("finished_games")][1]
        print(f"total: {total:.1f} s for {v.games:,} games ({finished:,} of them finished)")
    finally:
        if server is not None:
            server.stop()
        folder.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
