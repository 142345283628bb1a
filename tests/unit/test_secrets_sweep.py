"""Secrets, swept: whole random games of every game with secrets (200 each), checking at every move
that nothing public depends on a secret the rules have not revealed.

The test is differential: wherever a player makes a secret choice, the same position is also played
with a different choice. Until the rules reveal it, the public view (all that the channel text and
the board image are drawn from), the move's public description, the status line and whether the move
is announced quietly must be the same either way. The public view also never holds a hand, a fresh
pile, a prediction or a pick.
"""

from __future__ import annotations

import os
import random
import time
from types import ModuleType
from typing import Any

import pytest

from bot.registry import GAMES as SPECS
from bot.service import Loaded
from bot.storage import GameRow
from bot.table.catalog import GameKind
from bot.table.present import News
from cogs.divisors import present as divisors_present
from cogs.divisors import rules as divisors
from cogs.numbers import present as numbers_present
from cogs.numbers import rules as numbers
from cogs.updown import present as updown_present
from cogs.updown import rules as updown

GAMES = int(os.environ.get("QUETBOT_SWEEP_GAMES", "200"))
SWEPT = {"games": 0, "checks": 0}


def _row(kind: str, players: int, version: int) -> GameRow:
    return GameRow(
        id=1,
        kind=kind,
        guild_id=1,
        channel_id=2,
        status="active",
        host_id=100,
        options={},
        seed=0,
        state=None,
        result=None,
        version=version,
        lobby_message_id=None,
        board_message_id=None,
        created_at=0.0,
        updated_at=0.0,
        timeout_s=86400,
        seats=tuple(100 + s for s in range(players)),
        names=tuple(f"p{s}" for s in range(players)),
    )


def _loaded(rules: ModuleType, state: Any, players: int, version: int) -> Loaded:
    row = _row(rules.NAME, players, version)
    if rules.outcome(state) is not None:
        row = GameRow(**{**row.__dict__, "status": "finished"})
    return Loaded(row=row, rules=rules, state=state)


def _public(
    kind: GameKind, rules: ModuleType, before: Any, after: Any, seat: int, action: Any, n: int
) -> Any:
    table = kind.table(_loaded(rules, after, n, 2))
    news = News(seat=seat, before=rules.view_for(before, None), after=rules.view_for(after, None))
    return (
        news.after,
        kind.present.headline(news, table),
        kind.present.status(news.after, table),
        kind.present.quiet(news),
    )


def _no_private_fields(kind: str, view: Any) -> None:
    if kind == "updown":
        assert view.hand is None and view.prediction is None and view.opponent_hand is None
    elif kind == "numbers":
        assert view.my_pick is None and view.available is None
    else:
        assert view.hand == () and view.pending is None


def _secret_alternatives(
    kind: str, state: Any, seat: int, action: dict[str, Any], rng: random.Random
) -> list[Any]:
    """Other choices the same player could make secretly here."""
    if kind == "updown":
        if action["type"] != "predict":
            return []
        top = state.max_letters
        return [
            {"type": "predict", "letters": "".join(rng.choice("UDS") for _ in range(rng.randint(1, top)))}
        ]
    if action["type"] != "pick":
        return []
    legal = [a for a in _legal(kind, state, seat) if a["type"] == action["type"]]
    others = [a for a in rng.sample(legal, min(3, len(legal))) if a != action]
    return others[:2]


def _legal(kind: str, state: Any, seat: int) -> list[dict[str, Any]]:
    rules = {"updown": updown, "numbers": numbers, "divisors": divisors}[kind]
    return [dict(a) for a in rules.legal_actions(state, seat)]


def _reveals(kind: str, state: Any, seat: int) -> bool:
    """Whether this secret choice completes a simultaneous step, so the rules reveal it now."""
    if kind == "numbers":
        return state.pending[1 - seat] is not None
    if kind == "divisors":
        pair = divisors.pairing_of(state, seat)
        return pair is not None and state.picks[pair[0] if pair[1] == seat else pair[1]] is not None
    return False


def _choose(kind: str, state: Any, seat: int, rng: random.Random) -> dict[str, Any]:
    legal = _legal(kind, state, seat)
    action = rng.choice(legal)
    if kind == "updown" and action["type"] == "predict":
        length = rng.randint(1, state.max_letters)
        action = {"type": "predict", "letters": "".join(rng.choice("UDS") for _ in range(length))}
    return action


@pytest.mark.parametrize(
    ("kind", "present"),
    [("updown", updown_present), ("numbers", numbers_present), ("divisors", divisors_present)],
)
def test_nothing_public_depends_on_an_unrevealed_secret(kind: str, present: Any) -> None:
    rules = {"updown": updown, "numbers": numbers, "divisors": divisors}[kind]
    cog = GameKind.of(SPECS[kind])
    rng = random.Random(f"sweep-{kind}")
    started = time.perf_counter()
    for game in range(GAMES):
        players = rng.randint(rules.MIN_PLAYERS, min(rules.MAX_PLAYERS, 6))
        options = {o.name: rng.randint(o.min, min(o.max, o.min + 3)) for o in rules.OPTIONS}
        state = rules.new_game(players, options, game)
        for _ in range(5000):
            if rules.outcome(state) is not None:
                break
            _no_private_fields(kind, rules.view_for(state, None))
            seat = rng.choice(sorted(rules.to_act(state)))
            action = _choose(kind, state, seat, rng)
            after = rules.apply(state, seat, action)
            if not _reveals(kind, state, seat):
                seen = _public(cog, rules, state, after, seat, action, players)
                for other in _secret_alternatives(kind, state, seat, action, rng):
                    alt = rules.apply(state, seat, other)
                    assert _public(cog, rules, state, alt, seat, other, players) == seen, (
                        kind,
                        game,
                        action,
                        other,
                    )
                    SWEPT["checks"] += 1
            state = after
        else:
            pytest.fail(f"{kind} game {game} did not end")
        SWEPT["games"] += 1
    took = time.perf_counter() - started
    print(f"\n{kind}: {GAMES} games swept, {SWEPT['checks']} secret choices compared so far, {took:.1f} s")
