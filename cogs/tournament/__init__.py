"""/tournament: tournaments of the hosted games, round robin or Swiss (issue 29).

The engine is bot/events/ (pairing, scoring, the `Tournaments` service) and the tournament desk in
bot/table/tournaments.py; this package is the face: the slash commands and the card's buttons
(``commands.py``), and what the card, the round posts, the final post and the standings say
(``present.py``).
"""

from cogs.tournament import commands as commands  # (the command tree is read from the package)
