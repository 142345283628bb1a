"""The server's memory of finished games, as pure logic (no discord, no SQL, no PIL).

    ratings.py   how a finished game places its seats, the Weng-Lin (Plackett-Luce) rating update
                 of one game (openskill), the number shown, and the recompute of a whole table

The tables live in `bot.storage.records`; the commands that read them in `bot.table.records`.
"""
