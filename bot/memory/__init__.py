"""The server's memory of finished games, as pure logic (no discord, no SQL, no PIL).

    ratings.py   how a finished game places its seats, the Weng-Lin (Plackett-Luce) rating update
                 of one game (openskill), the number shown, and the recompute of a whole table
    periods.py   the leaderboard's periods (this week, this month: UTC)
    replay.py    a game rebuilt from its move log into public frames, its transcript and summary
    animation.py the frames as one animated GIF under Discord's upload limit

The tables live in `bot.storage.records`; the commands that read them in `bot.table.records` and
`bot.table.replays`.
"""
