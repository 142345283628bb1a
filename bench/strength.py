"""The strength of the computer players: every game's table of win shares, one after another.

    python bench/strength.py [--quick] [GAME ...]

Runs ``bench/strength_<game>.py`` for each game (all five by default), passing ``--quick`` on: each
prints its table (win shares with their 95% intervals against the issue's baselines, at least 1,000
games per cell in the full run; ties split evenly) and its decision times. The exit status is 0 when
every script ran, whatever its figures (targets are printed, never enforced).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
GAMES = ("procession", "dots", "updown", "numbers", "divisors")


def main(argv: list[str]) -> int:
    flags = [a for a in argv if a.startswith("--")]
    games = [a for a in argv if not a.startswith("--")] or list(GAMES)
    failed = []
    for game in games:
        script = BENCH / f"strength_{game}.py"
        if not script.exists():
            print(f"\n{game}: no strength benchmark ({script.name} is missing)")
            failed.append(game)
            continue
        started = time.monotonic()
        print(f"\n==== {game} ({' '.join(flags) or 'full'}) ====", flush=True)
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(BENCH.parent), os.environ.get("PYTHONPATH")])),
        }
        code = subprocess.call([sys.executable, str(script), *flags], cwd=BENCH.parent, env=env)
        print(f"---- {game}: {time.monotonic() - started:.0f} s, exit {code}", flush=True)
        if code != 0:
            failed.append(game)
    if failed:
        print(f"\nfailed to run: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
