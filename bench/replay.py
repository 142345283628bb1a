"""Replays of the longest game of each kind: how long /game replay takes to rebuild and draw them,
and how large the animation is, against the targets (under 2 s, under Discord's 8 MB).

    python bench/replay.py [--quick]

Each kind's longest realistic game: computer players ("normal") play seeded games of the largest
size, and the longest is replayed (Procession n = 12; Lines By The Dots 10 x 10 with 6 players;
Up-Down-Stay with 2 players, 26 cards each, ties played off to the fifth playoff; Numbers To Number
m = 8; the Numerical Card Game with 8 players and m = 25). The time is what the bot does in its
replay thread (`bot.table.replays.render`: rebuild, GIF, transcript, alt text), as wall time and as
CPU time (on a machine shared with other work, the CPU time is the steadier figure). ``--quick``
(CI) plays fewer seeds and replays only the first 500 moves of the Numerical Card Game.
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.selfplay import longest
from bot.memory.animation import LIMIT
from bot.memory.replay import GameLog
from bot.registry import GAMES, RULES
from bot.table.catalog import GameKind
from bot.table.replays import render

TARGET_S = 2.0
QUICK = "--quick" in sys.argv
NAMES = ("Alice", "Bartholomew the Magnificent", "Chloé", "Dmitri", "Eve", "Fatima", "Gunnar", "Hiroshi")

# kind, players, options, seeds (full, quick), moves replayed in --quick (None: all)
CASES: tuple[tuple[str, int, dict[str, int], tuple[int, int], int | None], ...] = (
    ("procession", 2, {"n": 12}, (10, 3), None),
    ("dots", 6, {"size": 10}, (10, 2), None),
    ("updown", 2, {}, (5, 1), None),
    ("numbers", 2, {"m": 8}, (1, 1), None),
    ("divisors", 8, {"m": 25}, (10, 1), 500),
)


def longest_game(kind: str, players: int, options: dict[str, int], seeds: int) -> GameLog:
    """The longest of ``seeds`` games of normal computer players."""
    best_seed, best = longest(kind, players, options, seeds)
    return GameLog(
        game_id=1234,
        kind=kind,
        title=RULES[kind].TITLE,
        options=options,
        seed=best_seed,
        seats=tuple(range(1, players + 1)),
        names=NAMES[:players],
        moves=best,
    )


def main() -> None:
    mode = "quick" if QUICK else "full"
    print(f"replay benchmark ({mode}): the longest game of each kind, targets < {TARGET_S:.0f} s and < 8 MB")
    for kind, players, options, (full, quick), cut in CASES:
        log = longest_game(kind, players, options, quick if QUICK else full)
        note = ""
        if QUICK and cut is not None and len(log.moves) > cut:
            note = f" (--quick: the first {cut} of its {len(log.moves)} moves)"
            log = replace(log, moves=log.moves[:cut])
        game = GameKind.of(GAMES[kind])
        render(replace(log, moves=log.moves[:20]), game)  # warm the caches, as a running bot has them
        wall, cpu = time.perf_counter(), time.process_time()
        done = render(log, game)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        a = done.animation
        size = f"{a.size / 1e6:.2f} MB GIF, {a.width}x{a.height}"
        size += "" if a.scale == 1 else f" (drawn at {a.scale} size)"
        time_met = "met" if wall < TARGET_S else "missed"
        size_met = "met" if a.size < LIMIT else "missed"
        options_text = ", ".join(f"{k}={v}" for k, v in options.items()) or "26 cards each"
        print(
            f"replay {kind} ({players} players, {options_text}): {len(log.moves)} moves{note}, "
            f"{a.frames} frames: {wall:.2f} s wall, {cpu:.2f} s CPU ({1000 * cpu / a.frames:.1f} ms "
            f"a frame); {size}; transcript {len(done.transcript) / 1000:.0f} kB; "
            f"time < {TARGET_S:.0f} s {time_met}, size < 8 MB {size_met}"
        )


if __name__ == "__main__":
    main()
