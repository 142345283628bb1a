"""What the readability and alt-text tests share: a table for a public view, PNG sizes, and a few
positions of every game (public views only)."""

from __future__ import annotations

import io
import random
from typing import Any

from PIL import Image

from bot.table.present import TableInfo
from cogs.divisors import rules as D
from cogs.dots import rules as T
from cogs.numbers import rules as N
from cogs.procession import rules as P
from cogs.updown import rules as U

NAMES = ("Alice", "Bartholomew the Magnificent", "Chloé", "Dmitri", "Eve", "Fatima", "Gus", "Hana")


def table_for(rules: Any, state: Any, n: int) -> TableInfo:
    outcome = rules.outcome(state)
    return TableInfo(
        game_id=7,
        kind=rules.NAME,
        title=rules.TITLE,
        version=1,
        current=True,
        status="finished" if outcome is not None else "active",
        seats=tuple(1000 + s for s in range(n)),
        names=NAMES[:n],
        options={},
        timeout_s=600,
        waiting=() if outcome is not None else tuple(sorted(rules.to_act(state))),
        outcome=outcome,
    )


def png_size(data: bytes) -> tuple[int, int]:
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    with Image.open(io.BytesIO(data)) as img:
        img.load()
        return img.size


def png_rgb(data: bytes) -> Image.Image:
    with Image.open(io.BytesIO(data)) as img:
        return img.convert("RGB")


def played(rules: Any, state: Any, steps: int, seed: int) -> list[Any]:
    """The states of a seeded random game, every one from the start to ``steps`` moves (or its end)."""
    rng = random.Random(seed)
    states = [state]
    for _ in range(steps):
        if rules.outcome(state) is not None:
            break
        seat = rng.choice(sorted(rules.to_act(state)))
        state = rules.apply(state, seat, rng.choice(rules.legal_actions(state, seat)))
        states.append(state)
    return states


def positions() -> dict[str, tuple[Any, list[tuple[Any, int]]]]:
    """Per game: its rules module and (state, players) pairs from whole seeded games."""
    out: dict[str, tuple[Any, list[tuple[Any, int]]]] = {}
    out["procession"] = (
        P,
        [(s, 2) for n in (3, 7, 12) for s in played(P, P.new_game(2, {"n": n}, 0), 200, n)],
    )
    out["updown"] = (U, [(s, n) for n in (2, 3, 5) for s in played(U, U.new_game(n, {}, n), 400, n)[::3]])
    out["numbers"] = (N, [(s, 2) for m in (3, 8) for s in played(N, N.new_game(2, {"m": m}, m), 70, m)])
    out["divisors"] = (
        D,
        [(s, n) for n, m in ((2, 4), (8, 25)) for s in played(D, D.new_game(n, {"m": m}, n), 120, n)[::4]],
    )
    dots = [(n, T.new_game(n, {"size": size}, 1)) for n, size in ((2, 3), (6, 10))]
    out["dots"] = (T, [(s, n) for n, start in dots for s in played(T, start, 300, n)[::3]])
    return out
