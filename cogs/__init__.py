"""One thin cog per game (parse -> act -> render -> respond), plus `game.py`: lobbies and /game."""
