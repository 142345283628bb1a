"""The table machinery: the Discord side of every game, as a few objects with one job each.

- `routing`: custom ids parsed once and routed to the handler registered for the verb
- `replies`: private answers, and errors turned into what a person reads
- `outbox`: what a change owes the world, carried out once each, in order per game
- `effects`: the outbox's effects, one dataclass per kind, and their stored form
- `boards`: the public board (built from the public view), posted and stripped
- `panels`: each player's private panel: one DM per game, edited in place; or privately in the channel
- `play`: a move committed with its effects, then the first answer
- `lobby`: the lobby message and its actions
- `typed`: moves typed in DMs
- `notices`: reminders, and the "your move" DMs; `notify`: how each person is told of their move
- `present`: what a game's presenter provides (cogs/<game>/present.py)
- `catalog`: the hosted games; `tools`: what a game's commands are given

The cogs and the scheduler call these objects; `bot/app.py` builds and wires them.
"""
