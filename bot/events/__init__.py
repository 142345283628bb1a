"""Events: tournaments. pairing.py and scoring.py are the pure core (no discord, PIL or storage
there); tournaments.py is the service over them and the storage (`bot.storage.tournaments`).

Players are named by their ids (ints); the pure core takes them in seeding order (strongest first, by
rating: the service seeds them). A game is a tuple of player ids in seat order: seat 0 moves first.
"""
