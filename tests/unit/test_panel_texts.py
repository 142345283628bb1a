"""The private panels' texts, from views: short, naming people, and steady.

A player's DM panel is one message edited in place, and it is edited only when that player's own
news changes (their secrets, or whether they are asked to act); so a panel must read the same
before and after any other move. Played out over seeded random games of each game with secrets.
"""

from __future__ import annotations

import dataclasses
import random
import re
from types import ModuleType
from typing import Any

import pytest

from bot.table.play import secrets_changed
from bot.table.present import News
from cogs.divisors import present as divisors_present
from cogs.divisors import rules as divisors
from cogs.numbers import present as numbers_present
from cogs.numbers import rules as numbers
from cogs.updown import present as updown_present
from cogs.updown import rules as updown
from tests.render.helpers import table_for

# (rules, presenter, players, options)
SECRET_GAMES: list[tuple[ModuleType, ModuleType, int, dict[str, int]]] = [
    (updown, updown_present, 3, {}),
    (updown, updown_present, 2, {}),
    (numbers, numbers_present, 2, {"m": 4}),
    (divisors, divisors_present, 3, {"m": 6}),
    (divisors, divisors_present, 4, {"m": 5}),
]


def own_news(
    rules: ModuleType, present: ModuleType, before: Any, after: Any, mover: int, seat: int, players: int
) -> bool:
    """Whether a move brings ``seat``'s panel up to date: the game ended, the move changed what they
    alone see (a field of their view that differs from the public view), whether they are asked to
    act, or the game's presenter asks them anew (its `asked`: a new pairing, say)."""
    turn = (seat in rules.to_act(before)) != (seat in rules.to_act(after))
    if rules.outcome(after) is not None or (turn and getattr(present, "TURN_SHOWN", True)):
        return True
    asked = getattr(present, "asked", None)
    news = News(mover, rules.view_for(before, None), rules.view_for(after, None))
    if asked is not None and seat in asked(news, table_for(rules, after, players)):
        return True
    return secrets_changed(
        rules.view_for(before, seat),
        rules.view_for(after, seat),
        rules.view_for(before, None),
        rules.view_for(after, None),
    )


def panel_text(rules: ModuleType, present: ModuleType, state: Any, seat: int, players: int) -> str:
    return str(present.panel(rules.view_for(state, seat), seat, table_for(rules, state, players)).content)


@pytest.mark.parametrize(
    ("rules", "present", "players", "options"),
    SECRET_GAMES,
    ids=[f"{g[0].NAME}-{g[2]}" for g in SECRET_GAMES],
)
def test_a_panel_reads_the_same_until_its_players_own_news(
    rules: ModuleType, present: ModuleType, players: int, options: dict[str, int]
) -> None:
    for seed in range(6):
        rng = random.Random(seed)
        state = rules.new_game(players, options, seed)
        for _ in range(400):
            if rules.outcome(state) is not None:
                break
            mover = rng.choice(sorted(rules.to_act(state)))
            after = rules.apply(state, mover, rng.choice(rules.legal_actions(state, mover)))
            for seat in range(players):
                text = panel_text(rules, present, after, seat, players)
                assert not re.search(r"\bseat|\bplayer \d", text, re.IGNORECASE), text
                if seat != mover and not own_news(rules, present, state, after, mover, seat, players):
                    assert panel_text(rules, present, state, seat, players) == text, (seed, seat)
            state = after
        else:
            raise AssertionError("the game did not end")


def test_a_hand_of_one_card_is_one_card() -> None:
    state = updown.new_game(3, {}, 5)
    view = dataclasses.replace(updown.view_for(state, 0), hand=("AS",))
    text = updown_present.panel(view, 0, table_for(updown, state, 3)).content
    assert "Your hand, 1 card: A♠" in text and "1 cards" not in text


def test_the_numbers_panel_repeats_no_legend() -> None:
    state = numbers.new_game(2, {"m": 3}, 1)
    for a, b in ((5, 3), (2, 6)):
        state = numbers.apply(numbers.apply(state, 0, numbers.Pick(a)), 1, numbers.Pick(b))
    table = table_for(numbers, state, 2)
    text = numbers_present.panel(numbers.view_for(state, 1), 1, table).content
    assert text.splitlines() == [
        "Round 1 of 2 · move 3 of 3 · totals: you 0, <@1000> 0",
        "The list: `10` (yours v theirs: 3 v 5, 6 v 2)",
        "**Pick a number from 1 to 7** you have not played: press **Pick** or reply here.",
        "Still yours: 1, 2, 4, 5, 7",
    ]
