"""The README's example analysis (assets/examples/analysis.png and its text), and how long the
answer to /game analyse takes to build once the analysis is made.

    python bench/render_analysis.py [--out PATH] [--quick]

The game: Procession, n = 9, Alice (playing the easy computer's moves) against Bob (the normal one's), seeded,
analysed exactly (`cogs/procession/analysis.py`) and answered as /game analyse answers
(`bot.table.analysis.build`).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.analysis import GameRecord
from bot.i18n import ENGLISH
from bot.registry import GAMES
from bot.storage.rows import GameRow
from bot.table.analysis import build
from bot.table.catalog import GameKind

OUT = Path(__file__).resolve().parents[1] / "assets" / "examples" / "analysis.png"
N = 9
SEED = 6


def sample() -> tuple[GameRow, GameRecord]:
    spec = GAMES["procession"]
    rules = spec.rules
    state = rules.new_game(2, {"n": N}, 0)
    rng = random.Random(SEED)
    log = []
    while not rules.outcome(state):
        seat = state.turn
        action = spec.player(rules.view_for(state, seat), ("easy", "normal")[seat], rng)
        log.append((seat, action))
        state = rules.apply(state, seat, action)
    row = GameRow(
        id=12, kind="procession", guild_id=1, channel_id=2, status="finished", host_id=101,
        options={"n": N}, seed=0, state=state.to_dict(), result=None, version=len(log) + 1,
        lobby_message_id=None, board_message_id=None, created_at=0.0, updated_at=0.0, timeout_s=86400,
        seats=(101, 102), names=("Alice", "Bob"), place_id=2, start_place="channel",
    )  # fmt: skip
    return row, GameRecord("procession", 2, {"n": N}, 0, tuple(log))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--quick", action="store_true", help="accepted for CI (one run either way)")
    args = parser.parse_args()
    row, record = sample()
    kind = GameKind.of(GAMES["procession"])
    t0 = time.perf_counter()
    review = kind.analyse(record, 8.0)
    t1 = time.perf_counter()
    answer = build(row, kind, review, ENGLISH)
    t2 = time.perf_counter()
    args.out.write_bytes(answer.png)
    print(answer.text)
    print(f"\nalt text: {answer.alt}\n")
    analysed, built = 1000 * (t1 - t0), 1000 * (t2 - t1)
    print(f"{len(record.moves)} moves: analysed in {analysed:.0f} ms, answer built in {built:.0f} ms")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
