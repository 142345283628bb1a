"""Refusals name players, never seats: an error that names players keeps their seats and builds its
sentence with the namer it is given (``text(name)``); without one, players are "player 2"."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from bot.errors import (
    BadInput,
    GameError,
    GameFinished,
    IllegalMove,
    NotYourTurn,
    OutOfRange,
    YouLeft,
    name_list,
    player_number,
)
from bot.registry import RULES
from cogs.divisors import rules as divisors
from cogs.dots import rules as dots
from cogs.numbers import rules as numbers
from cogs.procession import rules as procession
from cogs.updown import rules as updown


def mention(seat: int) -> str:
    return f"<@{1000 + seat}>"


def refused(rules: Any, state: Any, seat: int, action: Any) -> GameError:
    with pytest.raises(GameError) as info:
        rules.apply(state, seat, action)
    return info.value


def test_plain_errors_read_the_same_with_any_namer() -> None:
    err = BadInput("Type a number.")
    assert err.text() == err.text(mention) == err.message == str(err) == "Type a number."
    assert GameFinished().text(mention) == "The game is over." and isinstance(GameFinished(), IllegalMove)
    assert YouLeft().text(mention).startswith("You left this game") and isinstance(YouLeft(), NotYourTurn)
    assert NotYourTurn("It is <@5>'s turn, not yours.").text(mention) == "It is <@5>'s turn, not yours."
    assert OutOfRange("14", 1, 13).text(mention) == "14 is out of range: pick from 1 to 13."


def test_not_your_turn_names_who_is_awaited() -> None:
    err = NotYourTurn(waiting=(0,))
    assert err.waiting == (0,)
    assert str(err) == err.message == "It is player 1's turn, not yours."
    assert err.text(mention) == "It is <@1000>'s turn, not yours."
    err = NotYourTurn(waiting=(2,), to="place a card")
    assert err.text(mention) == "It is <@1002>'s turn to place a card, not yours."
    err = NotYourTurn(waiting=(0, 2))
    assert err.text(mention) == "It is not your turn: the game waits for <@1000> and <@1002>."
    assert NotYourTurn().text(mention) == "It is not your turn."
    assert name_list((0, 1, 2), mention) == "<@1000>, <@1001> and <@1002>"
    assert name_list(()) == "" and player_number(1) == "player 2"


def test_every_rules_error_that_names_players_takes_a_namer() -> None:
    cases: list[tuple[GameError, str]] = []

    state = procession.new_game(3, {}, 0)
    cases.append((refused(procession, state, 1, procession.Flip(1)), "It is <@1000>'s turn, not yours."))

    state = dots.new_game(2, {}, 0)
    cases.append((refused(dots, state, 1, dots.Line("A3", "A1")), "It is <@1000>'s turn, not yours."))

    state = numbers.apply(numbers.new_game(2, {"m": 3}, 0), 0, numbers.Pick(5))
    cases.append(
        (
            refused(numbers, state, 0, numbers.Pick(6)),
            "You already picked 5 for this move, and a pick is final. Waiting for <@1001> to pick.",
        )
    )

    state = divisors.new_game(3, {"m": 6}, 0)  # round 1: 2-3, seat 1 (index 0) has the bye
    state = divisors.apply(divisors.apply(state, 1, divisors.Pick(2)), 2, divisors.Pick(4))  # round 2: 1-3
    cases.append(
        (
            refused(divisors, state, 1, divisors.Pick(3)),
            "You have no pairing left in this round: wait for the next round "
            "(still playing: <@1000> against <@1002>).",
        )
    )
    state = divisors.apply(state, 0, divisors.Pick(3))
    cases.append(
        (
            refused(divisors, state, 0, divisors.Pick(5)),
            "You already picked your card for this pairing, and picks are final: wait for <@1002> to pick.",
        )
    )

    state = updown.new_game(3, {}, 0)
    cases.append(
        (
            refused(updown, state, 0, updown.Play(2)),
            "Placing starts once every player has predicted: make your prediction first with /updown predict "
            "(<@1001> and <@1002> have not predicted yet either).",
        )
    )
    state = updown.apply(state, 1, updown.Predict("U"))
    cases.append(
        (
            refused(updown, state, 1, updown.Play(2)),
            "Placing starts once every player has predicted; still waiting for <@1000> and <@1002>.",
        )
    )
    state = updown.apply(state, 2, updown.Predict("U"))
    cases.append(
        (
            refused(updown, state, 0, updown.Play(2)),
            "Placing starts once every player has predicted: make your prediction first with /updown predict "
            "(everyone else has).",
        )
    )
    state = updown.new_game(3, {}, 0)
    for seat in range(3):
        state = updown.apply(state, seat, updown.Predict("U"))
    cases.append(
        (refused(updown, state, 2, updown.Play(2)), "It is <@1000>'s turn to place a card, not yours.")
    )

    state = updown.new_game(4, {}, 3)  # seats 2 and 3 tie, and play off
    for seat, letters in ((0, "SSSSSS"), (1, "U"), (2, "U"), (3, "SSSSSS")):
        state = updown.apply(state, seat, updown.Predict(letters))
    while state.deal == 0:
        (seat,) = updown.to_act(state)
        plays = [a for a in updown.legal_actions(state, seat) if a["type"] == "play"]
        state = updown.apply(state, seat, plays[0])
    cases.append(
        (
            refused(updown, state, 0, updown.Predict("U")),
            "You are out of this playoff: only <@1001> and <@1002> play it.",
        )
    )

    for err, expected in cases:
        assert err.text(mention) == expected
        assert "seat" not in str(err) and "<@" not in str(err)
        assert str(err) == err.text() == err.message
        assert re.sub(r"<@100(\d)>", lambda m: f"player {int(m[1]) + 1}", expected) == str(err)


@pytest.mark.parametrize("kind", sorted(RULES))
def test_no_refusal_says_seat(kind: str) -> None:
    """Whole random games, where at every step every seat tries another seat's move, a forfeited or
    finished game's move and garbage: no refusal names a seat, with or without a namer."""
    rules = RULES[kind]
    rng = random.Random(f"errors {kind}")
    for game in range(8):
        players = rng.randint(rules.MIN_PLAYERS, rules.MAX_PLAYERS)
        state = rules.new_game(players, {}, game)
        moves: list[Any] = []
        while True:
            acting = sorted(rules.to_act(state))
            for seat in range(players):
                offered = [a for s in acting for a in rules.legal_actions(state, s)]
                for action in [*rng.sample(offered, min(3, len(offered))), *moves[-2:], {"type": "x"}]:
                    try:
                        rules.apply(state, seat, action)
                    except GameError as err:
                        for text in (str(err), err.text(mention)):
                            assert "seat" not in text.lower(), text
                            assert len(text) < 2000
                        assert not re.search(r"player \d", err.text(mention)), err.text(mention)
            if not acting:
                break
            seat = rng.choice(acting)
            action = dict(rng.choice(rules.legal_actions(state, seat)))
            moves.append(action)
            state = rules.apply(state, seat, action) if rng.random() > 0.02 else rules.forfeit(state, seat)
        outcome = rules.outcome(state)
        assert outcome is not None and "seat" not in str(outcome.reason)
