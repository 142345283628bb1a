"""The README's example leaderboard (assets/examples/leaderboard.png), and how long one takes to draw.

    python bench/render_leaderboard.py [--out PATH] [--quick]

The figures come from a made-up season: 300 seeded Lines By The Dots games among eleven people and the
three computer levels, rated as the bot rates them (`bot.memory.ratings.recompute`); the asker is a
player outside the top ten, so their own line shows below it.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.timing import median_ms, run_count
from bot.memory.ratings import Entry, Finished, recompute, seat_results, shown
from bot.players import LEVELS
from bot.players.seats import computer_id, computer_name
from bot.render import leaderboard as L

OUT = Path(__file__).resolve().parents[1] / "assets" / "examples" / "leaderboard.png"
PEOPLE = ("Alice", "Bob", "Chloé", "Dmitri", "Eve", "Fatima", "Gus", "Hana", "Ivo", "Jun", "Kofi")
SKILL = {name: 1.0 + 0.25 * i for i, name in enumerate(reversed(PEOPLE))}


def season(games: int, seed: int) -> L.Leaderboard:
    rng = random.Random(seed)
    ids = {name: 1000 + i for i, name in enumerate(PEOPLE)}
    names = {v: k for k, v in ids.items()} | {
        computer_id(level, 1): computer_name(computer_id(level, 1)) for level in LEVELS
    }
    skill = {ids[n]: s for n, s in SKILL.items()} | {
        computer_id(level, 1): 1.5 + i for i, level in enumerate(LEVELS)
    }
    played = []
    for _ in range(games):
        seated = rng.sample(sorted(skill), rng.randint(2, 4))
        scores = [round(rng.gauss(skill[u] * 4, 3)) for u in seated]
        best = max(scores)
        result = {"winners": [s for s, v in enumerate(scores) if v == best], "scores": scores}
        forfeited = {len(seated) - 1} if rng.random() < 0.04 else set()
        placed = seat_results("dots", seated, result, forfeited)
        played.append(
            Finished(
                1,
                "dots",
                tuple(Entry(r.player, r.place) for r in placed),
                frozenset(r.player for r in placed if r.won),
            )
        )
    table = recompute(played)
    ranked = sorted(table.items(), key=lambda kv: -kv[1].rating.ordinal)
    me = ids["Kofi"]
    lines = []
    for rank, ((_, _, player), standing) in enumerate(ranked, start=1):
        lines.append(
            L.Line(
                rank,
                names[player],
                shown(standing.rating.ordinal),
                standing.games,
                standing.wins,
                you=player == me,
            )
        )
    own = next((line for line in lines[10:] if line.you), None)
    return L.Leaderboard("Lines By The Dots", "all time", tuple(lines[:10]), own=own, note="ranked by rating")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--quick", action="store_true", help="fewer timed runs (CI)")
    args = parser.parse_args()
    board = season(300, 6)
    png = L.render(board)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(png)
    runs = run_count(200)
    median = median_ms(lambda: L.render(board), runs)
    print(f"leaderboard image: {len(png) / 1024:.0f} KB written to {args.out}")
    print(f"leaderboard image: median {median:.2f} ms over {runs} runs")
    print(f"alt text: {L.alt_text(board)}")


if __name__ == "__main__":
    main()
