"""The computer player of Up-Down-Stay: a secret prediction, then cards steered towards it.

Pure (no discord, SQL or PIL) and fed only the seat's own view. The deal's other hands are unknown
except in a two-player deal, where the view shows the opponent's hand (the cards this seat lacks);
otherwise the player reasons about the pool of unseen cards (the deck minus its hand and the row).

- Prediction: alternations (UDUD...) are the commonest long runs of a row of cards (a middle card is a
  peak or a valley two times in three), so they are the easiest strings to see realised. ``easy``
  writes two or three random letters, ``normal`` a five-letter zigzag, ``hard`` a longer zigzag: one
  letter more than the longest prediction the other players revealed in earlier deals (playoffs), and
  at least seven in a two-player deal, six with more players (the computer then places fewer of the
  cards, so a longer zigzag is less often realised: seven letters win 89% among three random players,
  six letters 97%, and both win every game among players who predict four- or five-letter zigzags).
- Placing: the player follows its prediction the way a matcher does: how much of it the row's changes
  end with now (a prefix of the prediction), and which change would extend that. Among the cards that
  make the wanted change, the card's value is chosen to make the *next* player's change the one the
  prediction wants after it (a high card leaves mostly downs). ``hard`` estimates that next change from
  the cards the next player can hold (exactly, in a two-player deal) and from how often the other
  players continued a zigzag so far in this deal; once its prediction has occurred (its score is then
  certain) it plays to break the zigzags the others may be building: it repeats the last change or stays.
- ``easy`` places a random card half the time.

No search: a choice costs a few hundred operations, and it depends only on the view and the rng.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from cogs.updown.rules import DECK, Phase, Play, Predict, View, card_rank

UP, DOWN, STAY = "U", "D", "S"

NORMAL_LETTERS = 5
HARD_MIN_LETTERS = {2: 7}  # by the deal's player count; more players: HARD_MANY_LETTERS
HARD_MANY_LETTERS = 6
HARD_MAX_LETTERS = 11


def choose(view: View, level: str, rng: random.Random) -> dict[str, Any]:
    """The seat's action for its own ``view`` at ``level`` ("easy", "normal" or "hard")."""
    if view.phase == Phase.PREDICT:
        return Predict(predict(view, level, rng)).to_json()
    return Play(place(view, level, rng)).to_json()


# ---- the prediction -------------------------------------------------------------------------------


def zigzag(length: int, first: str) -> str:
    """The alternating string of ``length`` letters starting with ``first`` (U or D)."""
    other = DOWN if first == UP else UP
    return "".join(first if i % 2 == 0 else other for i in range(length))


def predict(view: View, level: str, rng: random.Random) -> str:
    """The secret prediction of ``level`` for this deal (never longer than the deal allows)."""
    first = rng.choice((UP, DOWN))
    if level == "easy":
        letters = "".join(rng.choice((UP, DOWN)) for _ in range(rng.choice((2, 3))))
    elif level == "normal":
        letters = zigzag(NORMAL_LETTERS, first)
    else:
        letters = zigzag(hard_length(view), first)
    return letters[: view.max_letters]


def hard_length(view: View) -> int:
    """One letter more than any other player's prediction revealed so far (they tend to repeat), and
    at least the minimum for the deal's player count."""
    players = len([s for s in view.players if s not in view.forfeited])
    least = HARD_MIN_LETTERS.get(players, HARD_MANY_LETTERS)
    seen = [
        len(p.prediction)
        for record in view.history
        for p in record.players
        if p.seat != view.seat and p.prediction is not None
    ]
    return min(HARD_MAX_LETTERS, max([least, *(n + 1 for n in seen)]))


# ---- placing --------------------------------------------------------------------------------------


def change(before: int | None, after: int) -> str:
    if before is None:
        return ""
    return UP if after > before else DOWN if after < before else STAY


def flip(letter: str) -> str:
    return DOWN if letter == UP else UP if letter == DOWN else ""


def progress(changes: str, prediction: str) -> int:
    """How many letters of ``prediction`` the changes end with (a proper prefix; the whole prediction
    once it occurs anywhere)."""
    if prediction in changes:
        return len(prediction)
    for m in range(min(len(prediction) - 1, len(changes)), 0, -1):
        if changes.endswith(prediction[:m]):
            return m
    return 0


def zigzag_tail(changes: str) -> int:
    """The length of the alternating U/D run the changes end with."""
    run = 0
    for i in range(len(changes) - 1, -1, -1):
        if changes[i] == STAY or (run and changes[i] == changes[i + 1]):
            break
        run += 1
    return run


def unseen_ranks(view: View) -> Counter[int]:
    """The ranks the next player may hold: the opponent's hand in a two-player deal, else every card
    this seat has not seen (the other hands and the cards set aside)."""
    if view.opponent_hand is not None:
        return Counter(card_rank(c) for c in view.opponent_hand)
    seen = set(view.hand or ()) | set(view.row)
    return Counter(card_rank(c) for c in DECK if c not in seen)


def continuation_rate(view: View) -> float:
    """How readily the other players continued a zigzag in this deal (Laplace-smoothed): the share of
    their cards that flipped an up into a down or a down into an up."""
    flips = total = 0
    for i in range(2, len(view.row)):
        if view.placers[i] == view.seat:
            continue
        before = change(card_rank(view.row[i - 2]), card_rank(view.row[i - 1]))
        if before == STAY:
            continue
        total += 1
        flips += change(card_rank(view.row[i - 1]), card_rank(view.row[i])) == flip(before)
    return (flips + 1) / (total + 2)


def next_letter_chance(letter: str, value: int, pool: Counter[int], steer: float, made: str) -> float:
    """The chance that the next player's card makes ``letter`` after this seat plays ``value`` (which
    made the change ``made``): a mix of a random card from ``pool`` and, with weight ``steer``, a
    player who continues the zigzag whenever a card of theirs can."""
    size = sum(pool.values())
    if not size or not letter:
        return 0.0
    fits = {
        UP: sum(n for r, n in pool.items() if r > value),
        DOWN: sum(n for r, n in pool.items() if r < value),
        STAY: pool[value],
    }
    random_card = fits[letter] / size
    wanted = flip(made)
    if not wanted:
        return random_card
    zig = 1.0 if letter == wanted and fits[letter] else 0.0
    if letter != wanted and not fits[wanted]:
        zig = random_card  # a zigzagger who cannot flip plays anything
    return steer * zig + (1 - steer) * random_card


def place(view: View, level: str, rng: random.Random) -> int:
    """The rank of the card to place."""
    hand = view.hand or ()
    ranks = sorted({card_rank(c) for c in hand})
    if level == "easy" and rng.random() < 0.5:
        return rng.choice(ranks)
    prediction = view.prediction or ""
    last = card_rank(view.row[-1]) if view.row else None
    changes = view.changes
    done = bool(prediction) and prediction in changes
    if level == "hard":
        pool = unseen_ranks(view)
        steer = max(0.0, 2 * continuation_rate(view) - 1)
    else:
        pool = Counter(r for r in range(1, 14) for _ in range(4))
        steer = 0.0

    def value(rank: int) -> float:
        made = change(last, rank)
        after = changes + made
        if level == "hard" and done:
            # The score is certain: break the zigzags the others are likely building.
            return -zigzag_tail(after) - next_letter_chance(flip(made), rank, pool, steer, made)
        reached = progress(after, prediction)
        if reached == len(prediction):
            return 100.0
        wanted = prediction[reached]
        chance = next_letter_chance(wanted, rank, pool, steer, made)
        if level == "easy":
            chance = 0.0
        return reached + 2 * chance

    scored = [(value(r), rng.random(), r) for r in ranks]
    return max(scored)[2]
