"""What every game package (``cogs/<game>/``) would otherwise write for itself: each module here does
one such job, and names no game. `bot.cogkit.lazy` is what a package's ``__init__`` uses (it loads
nothing but the standard library, so that importing a game's pure parts stays pure)."""
