"""One PNG board per game under assets/boards/ (for the README), and the size of every sample board.

    python bench/render_samples.py [--out DIR] [--sizes]

The boards are drawn from public views of seeded games, with made-up names. ``--sizes`` prints each
sample's size (and a few more positions) without writing anything. The README's Numerical Card Game
board is also drawn in German and in Russian (``divisors.de.png``, ``divisors.ru.png``): a board is
drawn in the language of the message that carries it.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PIL import Image

from bench.render_divisors import busy_game
from bench.render_dots import finished_game
from bench.render_numbers import full_round
from bench.render_procession import longest_game
from bench.render_updown import played_deal
from bot.i18n import language
from cogs.divisors import render as divisors
from cogs.divisors import rules as D
from cogs.dots import render as dots
from cogs.dots import rules as T
from cogs.numbers import render as numbers
from cogs.numbers import rules as N
from cogs.procession import render as procession
from cogs.procession import rules as P
from cogs.updown import render as updown
from cogs.updown import rules as U

NAMES = ("Alice", "Bob", "Chloé", "Dmitri", "Eve", "Fatima", "Gus", "Hana", "Ivo", "Jun")
TRANSLATED_SAMPLES = ("de", "ru")
Sample = tuple[str, Callable[[Any, tuple[str, ...]], bytes], Any, tuple[str, ...]]


def short_procession(n: int, moves: int) -> P.State:
    state = P.new_game(2, {"n": n}, 0)
    for _ in range(moves):
        if state.finished:
            break
        state = P.apply(state, state.turn, {"type": "flip", "position": P.legal_positions(state)[-1]})
    return state


def mid_dots(size: int, players: int, lines: int) -> T.State:
    state = T.new_game(players, {"size": size}, 4)
    for i in range(lines):
        if T.outcome(state) is not None:
            break
        legal = T.legal_actions(state, state.turn)
        state = T.apply(state, state.turn, legal[(i * 7) % len(legal)])
    return state


def samples() -> list[Sample]:
    """The README's board of each game first, then more positions (for sizes)."""
    pending, done = full_round()
    updown_mid = played_deal(3, 5)
    return [
        ("procession", procession.render_board, P.view_for(short_procession(6, 9), None), NAMES[:2]),
        ("updown", updown.render_row, U.view_for(played_deal(3, 4), None), NAMES[:3]),
        ("numbers", numbers.render_board, N.view_for(done, None), NAMES[:2]),
        ("divisors", divisors.render_board, D.view_for(busy_game(3), None), NAMES[:8]),
        ("dots", dots.render_board, T.view_for(mid_dots(6, 3, 14), None), NAMES[:3]),
        (
            "procession n=3 start",
            procession.render_board,
            P.view_for(P.new_game(2, {"n": 3}, 0), None),
            NAMES[:2],
        ),
        (
            "procession n=12 longest",
            procession.render_board,
            P.view_for(longest_game(12, 60), None),
            NAMES[:2],
        ),
        ("updown start", updown.render_row, U.view_for(U.new_game(3, {}, 1), None), NAMES[:3]),
        ("updown 10 players", updown.render_row, U.view_for(played_deal(10, 2), None), NAMES),
        ("updown reveal 3", updown.render_row, U.view_for(updown_mid, None), NAMES[:3]),
        ("numbers pending", numbers.render_board, N.view_for(pending, None), NAMES[:2]),
        ("numbers start", numbers.render_board, N.view_for(N.new_game(2, {"m": 3}, 0), None), NAMES[:2]),
        ("divisors start 2", divisors.render_board, D.view_for(D.new_game(2, {"m": 2}, 0), None), NAMES[:2]),
        ("dots 3x3", dots.render_board, T.view_for(T.new_game(2, {"size": 3}, 0), None), NAMES[:2]),
        ("dots 10x10 finished", dots.render_board, T.view_for(finished_game(10, 6, 1), None), NAMES[:6]),
    ]


def size_of(png: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(png)) as img:
        return img.size


def main() -> None:
    out = Path(sys.argv[sys.argv.index("--out") + 1]) if "--out" in sys.argv else None
    write = "--sizes" not in sys.argv
    if out is None:
        out = Path(__file__).resolve().parents[1] / "assets" / "boards"
    written: set[str] = set()
    for label, render, view, names in samples():
        png = render(view, names)
        w, h = size_of(png)
        print(f"{label:28} {w:4d} x {h:4d}  {len(png) // 1024:3d} kB")
        if write and " " not in label and label not in written:
            out.mkdir(parents=True, exist_ok=True)
            (out / f"{label}.png").write_bytes(png)
            written.add(label)
    for code in TRANSLATED_SAMPLES:
        png = divisors.render_board(D.view_for(busy_game(3), None), NAMES[:8], lang=language(code))
        w, h = size_of(png)
        print(f"{'divisors (' + code + ')':28} {w:4d} x {h:4d}  {len(png) // 1024:3d} kB")
        if write:
            (out / f"divisors.{code}.png").write_bytes(png)


if __name__ == "__main__":
    main()
