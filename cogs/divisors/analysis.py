"""Analysis of a finished Numerical Card Game, move by move (pure; `bot.analysis` has the shapes).

The two cards of a pairing are chosen in secret, at once, so no engine can prove a choice right or
wrong before the other card was known. What can be backed is a judgement **with hindsight**: given
the card the other player then showed, which card of the mover's fresh pile would have scored best
in that pairing (RULES.md's table: the points to the mover less the points to the other). The scale
is ``"points"``: ``value_after`` is the pairing's margin the mover got, ``value_before`` the best any
card of their fresh pile would have got; ``better`` lists up to `SHOWN` such cards, smallest first.
The fresh pile at any moment follows from the cards everyone saw (each pile starts as 1..m, and every
card that moves was shown), so naming better cards reveals nothing new.

Where the cards then go (exchanged or moldy) shapes the rest of the game; hindsight on one pairing
does not weigh it, which is why verdicts stop short of ``"blunder"``: a margin lost of 2
``"inaccuracy"``, of 4 ``"mistake"``, none ``"best"``. ``exact`` is false, ``basis`` ``"hindsight"``.
A pick that was never shown (its pairing was called off) is hidden and ``"unknown"``, as are drops
and forfeits.
"""

from __future__ import annotations

import cogs.divisors.rules as rules
from bot.analysis import GameRecord, MoveReview, Review
from bot.i18n import N_
from bot.jsontypes import JSONMap, JSONObject
from bot.rules.base import forfeit_of

SHOWN = 5  # better cards listed, at most
NOTE = N_(
    "The Numerical Card Game: each card is judged with hindsight, against the card the other player "
    "then showed: what another card of the fresh pile would have scored in that pairing."
)


def verdict(lost: int) -> str:
    return "best" if lost <= 0 else "inaccuracy" if lost <= 2 else "mistake"


def margin(card: int, other: int) -> int:
    mine, theirs, _ = rules.resolve(card, other)
    return mine - theirs


def analyse(record: GameRecord, seconds: float) -> Review:
    del seconds  # one table look-up a card: always quick
    state = rules.new_game(record.n_players, record.options, record.seed)
    pending: dict[int, tuple[int, tuple[int, ...]]] = {}  # seat -> (log index, its fresh pile then)
    judged: dict[int, MoveReview] = {}
    for i, (seat, action) in enumerate(record.moves, start=1):
        if action.get("type") == rules.Pick.TYPE:
            pending[seat] = (i, state.fresh[seat])
        state = rules.forfeit(state, seat) if forfeit_of(action) else rules.apply(state, seat, action)
        for event in state.events:
            if not isinstance(event, rules.Resolved) or event.result.cards is None:
                continue
            for side, mover in enumerate(event.result.seats):
                index, pile = pending.pop(mover)
                card, other = event.result.cards[side], event.result.cards[1 - side]
                got = margin(card, other)
                best = max(margin(c, other) for c in pile)
                better = [c for c in pile if margin(c, other) == best and c != card][:SHOWN]
                judged[index] = MoveReview(
                    index=index, seat=mover, action=_pick(card), verdict=verdict(best - got),
                    value_before=float(best), value_after=float(got),
                    better=tuple(_pick(c) for c in better) if best > got else (), basis="hindsight",
                )  # fmt: skip
    moves = tuple(
        judged.get(i) or _unjudged(i, seat, action) for i, (seat, action) in enumerate(record.moves, start=1)
    )
    return Review(kind=rules.NAME, scale="points", moves=moves, notes=(NOTE,))


def _pick(card: int) -> JSONObject:
    return rules.Pick(card).to_json()


def _unjudged(index: int, seat: int, action: JSONMap) -> MoveReview:
    """A drop, a forfeit, or a pick never shown (its pairing called off): unknown, and hidden."""
    shown: JSONObject = {"type": "pick", "hidden": True} if action.get("type") == "pick" else dict(action)
    return MoveReview(index=index, seat=seat, action=shown, verdict="unknown")
