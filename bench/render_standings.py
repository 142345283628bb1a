"""The README's example tournament standings (assets/examples/tournament-standings.png), and how long
one takes to draw.

    python bench/render_standings.py [--out PATH] [--quick]

The figures come from a made-up Swiss of eight players over three rounds (one of them withdrawn after
the second), scored as the bot scores them (`bot.events.scoring` when it is there; the same sums
here otherwise): points, Buchholz, games left.
"""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.timing import median_ms, run_count
from bot.render import standings as S

OUT = Path(__file__).resolve().parents[1] / "assets" / "examples" / "tournament-standings.png"
PEOPLE = ("Alice", "Bartholomew the Magnificent", "Chloé", "Dmitri", "Eve", "Fatima", "Gus", "Hana")
# Three rounds of a Swiss, each game (first, second, winners): a shared win is a draw.
ROUNDS: tuple[tuple[tuple[int, int, tuple[int, ...]], ...], ...] = (
    ((0, 4, (0,)), (1, 5, (1,)), (2, 6, (6,)), (3, 7, (3, 7))),
    ((0, 1, (0,)), (6, 3, (3,)), (7, 4, (4,)), (5, 2, (2,))),
    ((0, 3, (0, 3)), (1, 6, (1,)), (4, 2, (4,))),  # Hana (7) withdrew: Fatima (5) takes the forfeit
)
WITHDRAWN = 7
FORFEITS = ((5, 7),)  # (credited, withdrawn)


def swiss() -> S.Standings:
    n = len(PEOPLE)
    points = [Fraction(0)] * n
    met: list[list[int]] = [[] for _ in range(n)]
    for games in ROUNDS:
        for a, b, winners in games:
            for p in (a, b):
                points[p] += Fraction(1, len(winners)) if p in winners else 0
            met[a].append(b)
            met[b].append(a)
    for credited, _ in FORFEITS:
        points[credited] += 1
    buchholz = [sum((points[q] for q in met[p]), Fraction(0)) for p in range(n)]
    for credited, _ in FORFEITS:  # an unplayed game counts as an opponent of one's own points
        buchholz[credited] += points[credited]
    order = sorted(range(n), key=lambda p: (-points[p], -buchholz[p], p))
    rows: list[S.Row] = []
    for place, p in enumerate(order, start=1):
        tied = rows and (rows[-1].points, rows[-1].tie_break) == (points[p], buchholz[p])
        rank = rows[-1].rank if tied else place
        rows.append(S.Row(rank, PEOPLE[p], points[p], buchholz[p], 0 if p == WITHDRAWN else 1,
                          withdrawn=p == WITHDRAWN, you=p == 2))  # fmt: skip
    return S.Standings("Procession", 12, "Swiss", "Buchholz", 3, 4, tuple(rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--quick", action="store_true", help="fewer timed runs (CI)")
    args = parser.parse_args()
    table = swiss()
    png = S.render(table)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(png)
    runs = run_count(200)
    median = median_ms(lambda: S.render(table), runs)
    print(f"standings image: {len(png) / 1024:.0f} KB written to {args.out}")
    print(f"standings image: median {median:.2f} ms over {runs} runs")
    print(f"alt text: {S.alt_text(table)}")


if __name__ == "__main__":
    main()
