"""Computer players: what the framework knows of them. Each game's own player is pure
(``cogs/<game>/player.py``: no discord, no SQL, no PIL), like its rules, and offers

    choose(view, level, rng) -> dict          # the action JSON the move log stores

where ``view`` is ``rules.view_for(state, seat)`` for the computer's own seat (exactly what a person in
that seat sees: never a state, never another seat's view), ``level`` is one of `LEVELS`, and ``rng`` a
``random.Random`` the caller seeds (a choice is reproducible from its seed: searches are budgeted in
iterations or nodes, never in wall-clock time). The action is legal for that view; `choose` is only
called when the rules wait for the seat (its turn, or a secret choice everyone makes at once).
``seats.py``: how a computer sits at a table (its user id holds its level).
"""

LEVELS = ("easy", "normal", "hard")
