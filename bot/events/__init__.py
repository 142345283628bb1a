"""Events: tournaments' pure core (pairing, scoring, withdrawals); no discord, PIL or storage here.

Players are named by their ids (ints); the caller passes them in seeding order (strongest first, by
rating: seeding is the caller's business). A game is a tuple of player ids in seat order: seat 0
moves first.
"""
