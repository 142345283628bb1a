"""Analysis of a finished Up-Down-Stay game (pure; `bot.analysis` has the shapes): what can be backed
is nothing, and the analysis says so.

A prediction is written before any card is placed, against hands nobody else sees; a card is placed
toward a row every player steers at once. Hindsight says nothing useful (the best prediction with
hindsight is always the whole row's changes, out of anyone's reach), and the ``hard`` player's own
estimates are not calibrated enough to back a verdict. So every move is ``"unknown"``, and the
review's note says why.

Nothing secret is shown: a prediction appears only as the deal's reveal showed it (each player's last
one of the deal, as the reveal records it); a prediction replaced before the placing began, or never
revealed, shows as hidden. Placed cards were seen by everyone.
"""

from __future__ import annotations

import cogs.updown.rules as rules
from bot.analysis import GameRecord, MoveReview, Review
from bot.i18n import N_
from bot.jsontypes import JSONObject
from bot.rules.base import forfeit_of

NOTE = N_(
    "Up-Down-Stay: predictions and cards are chosen against hidden hands and a row everyone steers "
    "at once; no verdict can be backed, so none is given."
)


def analyse(record: GameRecord, seconds: float) -> Review:
    del seconds  # nothing to search
    state = rules.new_game(record.n_players, record.options, record.seed)
    last: dict[tuple[int, int], int] = {}  # (deal, seat) -> the log index of the last prediction
    for i, (seat, action) in enumerate(record.moves, start=1):
        if action.get("type") == rules.Predict.TYPE:
            last[(state.deal, seat)] = i
        state = rules.forfeit(state, seat) if forfeit_of(action) else rules.apply(state, seat, action)
    revealed = {
        last[(deal.deal, p.seat)]: p.prediction
        for deal in state.history
        for p in deal.players
        if p.prediction is not None and (deal.deal, p.seat) in last
    }
    moves = []
    for i, (seat, action) in enumerate(record.moves, start=1):
        shown: JSONObject = dict(action)
        if action.get("type") == rules.Predict.TYPE:
            letters = revealed.get(i)
            shown = (
                {"type": "predict", "hidden": True}
                if letters is None
                else {"type": "predict", "letters": letters}
            )
        moves.append(MoveReview(index=i, seat=seat, action=shown, verdict="unknown"))
    return Review(kind=rules.NAME, scale="points", moves=tuple(moves), notes=(NOTE,))
