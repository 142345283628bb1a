"""The schema: numbered migrations, applied in order at startup in one transaction.

``PRAGMA user_version`` counts the migrations a SQLite database has (see `bot.storage.sqlite`), the
``schema_version`` table a PostgreSQL one's (see `bot.storage.postgres`). A migration is never
edited once released: a database made by an older bot upgrades by running the ones it lacks.
Statements are separated by ``;`` (none may contain one inside a string).

The DDL is SQLite's, and `bot.storage.postgres.translate_ddl` makes it PostgreSQL's (``INTEGER`` is
``BIGINT``, ``REAL`` ``DOUBLE PRECISION``, an ``INTEGER PRIMARY KEY`` an identity column, an
expression index key parenthesised); it refuses what it cannot translate (``WITHOUT ROWID``,
``STRICT``, ``INSERT OR``...), so write new migrations with the types above, ``TEXT``, keys, checks,
partial and expression indexes and ``ON CONFLICT`` upserts, which mean the same in both.
"""

from __future__ import annotations

MIGRATIONS: tuple[str, ...] = (
    # 1: games, seats, the move log, and a key-value table for the bot's own bookkeeping.
    """
    CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL,
        guild_id INTEGER,
        channel_id INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('lobby', 'active', 'finished', 'cancelled')),
        host_id INTEGER NOT NULL,
        options TEXT NOT NULL,
        seed INTEGER NOT NULL,
        state TEXT,
        result TEXT,
        version INTEGER NOT NULL DEFAULT 0,
        lobby_message_id INTEGER,
        board_message_id INTEGER,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    );
    -- At most one game in its lobby or in play per channel (a thread is a channel of its own).
    CREATE UNIQUE INDEX games_one_live_per_channel ON games (channel_id)
        WHERE status IN ('lobby', 'active');
    CREATE INDEX games_live ON games (status) WHERE status IN ('lobby', 'active');
    CREATE TABLE seats (
        game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        PRIMARY KEY (game_id, position),
        UNIQUE (game_id, user_id)
    );
    CREATE INDEX seats_by_user ON seats (user_id);
    CREATE TABLE moves (
        game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        action TEXT NOT NULL,
        created_at REAL NOT NULL,
        PRIMARY KEY (game_id, seq)
    );
    CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    """,
    # 2: private channels. Per player and game: whether their DMs are closed (noticed once), and the
    # last DM panel sent (its controls are taken off when a newer one arrives). Typed DM answers that
    # could belong to several games wait here until the player says which game they meant.
    """
    CREATE TABLE dm_links (
        game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        user_id INTEGER NOT NULL,
        blocked INTEGER NOT NULL DEFAULT 0,
        dm_channel_id INTEGER,
        panel_message_id INTEGER,
        PRIMARY KEY (game_id, user_id)
    );
    CREATE TABLE typed_replies (
        id INTEGER PRIMARY KEY,
        user_id INTEGER NOT NULL,
        text TEXT NOT NULL,
        created_at REAL NOT NULL
    );
    CREATE INDEX typed_replies_by_user ON typed_replies (user_id);
    """,
    # 3: deadlines. Each game's move timeout; one row per awaited seat with its deadline (written in
    # the same transaction as the move that made the seat awaited); who muted reminders.
    """
    ALTER TABLE games ADD COLUMN timeout_s INTEGER NOT NULL DEFAULT 86400;
    CREATE TABLE waits (
        game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        seat INTEGER NOT NULL,
        since REAL NOT NULL,
        deadline REAL NOT NULL,
        reminded INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (game_id, seat)
    );
    CREATE INDEX waits_by_deadline ON waits (deadline);
    CREATE INDEX waits_to_remind ON waits ((since + deadline) / 2) WHERE reminded = 0;
    CREATE TABLE reminder_mutes (
        game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        user_id INTEGER NOT NULL,
        PRIMARY KEY (game_id, user_id)
    );
    CREATE INDEX games_lobbies_by_age ON games (created_at) WHERE status = 'lobby';
    """,
    # 4: a channel's games, newest first (/game status looks for the last game of a channel; without
    # this it read every game ever played).
    """
    CREATE INDEX games_by_channel ON games (channel_id, updated_at);
    """,
    # 5: the outbox: what a committed change still owes Discord (post the board, update a DM panel,
    # announce a timeout...). Written in the same transaction as the change, so a crash between the
    # commit and the HTTP calls loses nothing; an item is deleted when it is done. The id is the
    # global order in which items are carried out (AUTOINCREMENT: ids never come back after a delete,
    # so a newer item always sorts after an older one). ``token``: an interaction token (valid 15
    # minutes), for an item that answers an interaction; ``not_before``: when a retry is due.
    """
    CREATE TABLE outbox (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        kind TEXT NOT NULL,
        args TEXT NOT NULL,
        token TEXT,
        created_at REAL NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        not_before REAL NOT NULL DEFAULT 0
    );
    CREATE INDEX outbox_by_game ON outbox (game_id, id);
    CREATE INDEX outbox_by_due ON outbox (not_before);
    """,
    # 6: settings per server and per player (threads for new games, language; how to be notified).
    # A missing row or a NULL column means the default.
    """
    CREATE TABLE guild_settings (
        guild_id INTEGER PRIMARY KEY,
        threads INTEGER,
        language TEXT
    );
    CREATE TABLE user_settings (
        user_id INTEGER PRIMARY KEY,
        notify TEXT,
        locale TEXT
    );
    """,
    # 7: a game's place: where it is played (the thread started from its lobby card, or the channel
    # itself). ``channel_id`` stays the channel of the lobby card. A channel may now hold any number
    # of live games (each in its thread, or side by side), so the one-live-game index goes.
    """
    ALTER TABLE games ADD COLUMN place_id INTEGER;
    UPDATE games SET place_id = channel_id;
    DROP INDEX games_one_live_per_channel;
    CREATE INDEX games_live_by_channel ON games (channel_id) WHERE status IN ('lobby', 'active');
    CREATE INDEX games_live_by_place ON games (place_id) WHERE status IN ('lobby', 'active');
    CREATE INDEX games_by_place ON games (place_id, updated_at);
    """,
    # 8: the server's memory of finished games (bot/storage/records.py). ``finished_games``: one row
    # per finished game, ``seq`` the order games finished in (the order ratings are computed in);
    # ``results``: each seat's place, score and rating before and after; ``ratings``: per server, game
    # and player (a person, or one computer level) the current rating and tally; ``rivals``: how often
    # two players met; ``period_standings``: the same per calendar week and month (UTC), for the
    # leaderboard of a period; ``move_clock``: each seat's time to move so far in a live game (read at
    # the end into its result). The games finished before this migration are recorded at the next
    # start (``records_backfill``): ratings need Python, not SQL.
    """
    CREATE TABLE finished_games (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        game_id INTEGER NOT NULL UNIQUE REFERENCES games (id) ON DELETE CASCADE,
        guild_id INTEGER NOT NULL,
        kind TEXT NOT NULL,
        players INTEGER NOT NULL,
        finished_at REAL NOT NULL
    );
    CREATE TABLE results (
        game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        seat INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        guild_id INTEGER NOT NULL,
        kind TEXT NOT NULL,
        player_id INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        place INTEGER NOT NULL,
        score INTEGER,
        won INTEGER NOT NULL,
        forfeited INTEGER NOT NULL,
        finished_at REAL NOT NULL,
        moves INTEGER NOT NULL,
        move_seconds REAL NOT NULL,
        mu_before REAL NOT NULL,
        sigma_before REAL NOT NULL,
        mu_after REAL NOT NULL,
        sigma_after REAL NOT NULL,
        PRIMARY KEY (game_id, seat)
    );
    CREATE INDEX results_by_player ON results (guild_id, player_id, seq);
    CREATE INDEX results_by_player_kind ON results (guild_id, player_id, kind, seq);
    CREATE TABLE ratings (
        guild_id INTEGER NOT NULL,
        kind TEXT NOT NULL,
        player_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        mu REAL NOT NULL,
        sigma REAL NOT NULL,
        ordinal REAL NOT NULL,
        games INTEGER NOT NULL,
        wins INTEGER NOT NULL,
        moves INTEGER NOT NULL,
        move_seconds REAL NOT NULL,
        last_change REAL NOT NULL,
        updated_at REAL NOT NULL,
        PRIMARY KEY (guild_id, kind, player_id)
    );
    CREATE INDEX ratings_board ON ratings (guild_id, kind, ordinal DESC, games DESC, player_id);
    CREATE INDEX ratings_by_player ON ratings (guild_id, player_id);
    CREATE TABLE rivals (
        guild_id INTEGER NOT NULL,
        player_id INTEGER NOT NULL,
        opponent_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        games INTEGER NOT NULL,
        wins INTEGER NOT NULL,
        losses INTEGER NOT NULL,
        PRIMARY KEY (guild_id, player_id, opponent_id)
    );
    CREATE INDEX rivals_by_games ON rivals (guild_id, player_id, games DESC, opponent_id);
    CREATE TABLE period_standings (
        guild_id INTEGER NOT NULL,
        kind TEXT NOT NULL,
        period TEXT NOT NULL,
        player_id INTEGER NOT NULL,
        games INTEGER NOT NULL,
        wins INTEGER NOT NULL,
        start_ordinal REAL NOT NULL,
        end_ordinal REAL NOT NULL,
        gain REAL NOT NULL,
        PRIMARY KEY (guild_id, kind, period, player_id)
    );
    CREATE INDEX period_board ON period_standings (guild_id, kind, period, gain DESC, wins DESC, player_id);
    CREATE TABLE move_clock (
        game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        seat INTEGER NOT NULL,
        moves INTEGER NOT NULL,
        seconds REAL NOT NULL,
        PRIMARY KEY (game_id, seat)
    );
    INSERT INTO meta (key, value) VALUES ('records_backfill', 'due')
        ON CONFLICT (key) DO UPDATE SET value = excluded.value;
    """,
    # 9 (rematches): a lobby opened by a finished game's Rematch button names that game. At most one
    # live rematch per game, whoever clicks first; the others join it.
    """
    ALTER TABLE games ADD COLUMN rematch_of INTEGER;
    CREATE UNIQUE INDEX games_live_rematch ON games (rematch_of)
        WHERE rematch_of IS NOT NULL AND status IN ('lobby', 'active');
    """,
    # 10 (several processes over one database): due work is claimed. A game's outbox items are
    # carried out by the process holding the game's lease (until it expires: a process that dies
    # hands its games over); a computer's move or a forfeit by the process whose claim on the wait
    # succeeded. One waiting typed answer per player, now enforced (two processes both deleting the
    # old one before inserting could keep two).
    """
    CREATE TABLE outbox_leases (
        game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        holder TEXT NOT NULL,
        expires REAL NOT NULL,
        PRIMARY KEY (game_id)
    );
    ALTER TABLE waits ADD COLUMN claimed_until REAL;
    ALTER TABLE waits ADD COLUMN claimed_by TEXT;
    DELETE FROM typed_replies WHERE id NOT IN (SELECT MAX(id) FROM typed_replies GROUP BY user_id);
    DROP INDEX typed_replies_by_user;
    CREATE UNIQUE INDEX typed_replies_by_user ON typed_replies (user_id);
    """,
    # 11 (languages): the server's own Discord locale as last seen on an interaction there
    # (``guild_locale``), which its public posts speak unless ``language`` (the admins' choice)
    # says otherwise. A player's last seen locale is ``user_settings.locale`` (6).
    """
    ALTER TABLE guild_settings ADD COLUMN guild_locale TEXT;
    """,
    # 12 (a game's first board, rebuilt after a restart): where the game was to be played when it
    # started ('thread', 'off', 'in-thread', 'no-permission'; see bot/table/threads.py), which its
    # first board says under it when it is played in place. NULL for games started before.
    """
    ALTER TABLE games ADD COLUMN start_place TEXT;
    """,
    # 13 (a game found from its thread before the thread is recorded): a thread started from a
    # message has that message's id, so a command used in a game's new thread, before the bot has
    # written the thread down as the game's place, finds the game by its card.
    """
    CREATE INDEX games_by_lobby_message ON games (lobby_message_id) WHERE lobby_message_id IS NOT NULL;
    """,
    # 14 (forfeits are a column, not a text search): how a logged move forfeited ('left' or
    # 'timeout'; NULL for a game's own moves), written with the move. Moves logged before are read
    # once here (the log's JSON is written compact with sorted keys, so the text is exact).
    """
    ALTER TABLE moves ADD COLUMN forfeit TEXT;
    UPDATE moves SET forfeit = CASE WHEN action LIKE '%"reason":"timeout"%' THEN 'timeout' ELSE 'left' END
        WHERE action LIKE '%"type":"forfeit"%';
    """,
    # 15 (time away, more time): a player away pauses their clocks. ``away`` holds one row per
    # person: their current (or last) period away and, as JSON [[start, end], ...], the earlier
    # periods of the last 30 days (at most 14 days away in any 30). A wait's ``paused`` is the time
    # away added to its deadline (its halfway reminder moves with it). ``extensions``: more time one
    # player (or the host) gave an awaited player, once per awaited move (the wait's ``since``).
    """
    CREATE TABLE away (
        user_id INTEGER PRIMARY KEY,
        started REAL NOT NULL,
        ends REAL NOT NULL,
        earlier TEXT NOT NULL
    );
    CREATE INDEX away_by_end ON away (ends);
    ALTER TABLE waits ADD COLUMN paused REAL NOT NULL DEFAULT 0;
    DROP INDEX waits_to_remind;
    CREATE INDEX waits_to_remind ON waits ((since + paused + deadline) / 2) WHERE reminded = 0;
    CREATE TABLE extensions (
        game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        seat INTEGER NOT NULL,
        since REAL NOT NULL,
        giver_id INTEGER NOT NULL,
        seconds REAL NOT NULL,
        given_at REAL NOT NULL,
        PRIMARY KEY (game_id, seat, since, giver_id)
    );
    """,
    # 16 (quiet hours): a person's quiet hours (minutes after local midnight, in ``tz``), and the end
    # of their current or next quiet period (``next_end``), when what was held back is sent.
    """
    CREATE TABLE quiet_hours (
        user_id INTEGER PRIMARY KEY,
        starts INTEGER NOT NULL,
        ends INTEGER NOT NULL,
        tz TEXT NOT NULL,
        next_end REAL NOT NULL
    );
    CREATE INDEX quiet_hours_by_end ON quiet_hours (next_end);
    """,
    # 17 (takebacks): a move taken back stays in the log, marked with the version its takeback made
    # (``undone``); a takeback asked for waits for the other players' answers in ``undo_requests``
    # (at most one pending per game), and a computer's one accepted takeback per game is
    # ``undo_grants``.
    """
    ALTER TABLE moves ADD COLUMN undone INTEGER;
    CREATE TABLE undo_requests (
        id INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        seat INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        version INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'accepted', 'declined', 'expired', 'lapsed')),
        accepted TEXT NOT NULL,
        answered_by INTEGER,
        channel_id INTEGER,
        message_id INTEGER,
        created_at REAL NOT NULL,
        expires_at REAL NOT NULL
    );
    CREATE UNIQUE INDEX undo_one_pending ON undo_requests (game_id) WHERE status = 'pending';
    CREATE INDEX undo_pending_expiry ON undo_requests (expires_at) WHERE status = 'pending';
    CREATE TABLE undo_grants (
        game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        seat INTEGER NOT NULL,
        PRIMARY KEY (game_id, seat)
    );
    """,
    # 18 (the daily digest): a player who chose ``/game notify mode:digest`` has a row here: their
    # local hour and time zone, and when their next digest is due (UTC epoch seconds). The process
    # whose claim on a due digest succeeds sends it (``claimed_until``: a process that dies hands it
    # over); sent, ``due`` moves to the next day in the same statement that ends the claim.
    """
    CREATE TABLE digests (
        user_id INTEGER PRIMARY KEY,
        hour INTEGER NOT NULL,
        timezone TEXT NOT NULL,
        due REAL NOT NULL,
        claimed_until REAL,
        claimed_by TEXT
    );
    CREATE INDEX digests_by_due ON digests (due);
    """,
    # 19 (analysis): a finished game's analysis (`bot.analysis.Review` as JSON), made on the first
    # /game analyse and kept (the first stored wins); it names seats, never people.
    """
    CREATE TABLE analyses (
        game_id INTEGER PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
        review TEXT NOT NULL,
        made_at REAL NOT NULL
    );
    """,
    # 20 (daily puzzle): the day's puzzle (``day``: days since 1970-01-01, UTC), chosen once (the first
    # insert wins); each person's one answer a day and the server it was given in; each person's
    # streak of right answers on consecutive days; the servers that post the puzzle daily, and one row
    # per server and day for that post (claimed by one process, then marked sent).
    """
    CREATE TABLE puzzles (
        day INTEGER NOT NULL,
        n INTEGER NOT NULL,
        rows TEXT NOT NULL,
        answer INTEGER NOT NULL,
        source_game_id INTEGER,
        created_at REAL NOT NULL,
        PRIMARY KEY (day)
    );
    CREATE TABLE puzzle_answers (
        user_id INTEGER NOT NULL,
        day INTEGER NOT NULL,
        position INTEGER NOT NULL,
        correct INTEGER NOT NULL,
        guild_id INTEGER,
        answered_at REAL NOT NULL,
        PRIMARY KEY (user_id, day)
    );
    CREATE INDEX puzzle_answers_by_guild ON puzzle_answers (guild_id, user_id);
    CREATE TABLE puzzle_streaks (
        user_id INTEGER NOT NULL,
        streak INTEGER NOT NULL,
        best INTEGER NOT NULL,
        last_day INTEGER NOT NULL,
        PRIMARY KEY (user_id)
    );
    CREATE TABLE puzzle_channels (
        guild_id INTEGER NOT NULL,
        channel_id INTEGER NOT NULL,
        hour INTEGER NOT NULL,
        PRIMARY KEY (guild_id)
    );
    CREATE TABLE puzzle_posts (
        guild_id INTEGER NOT NULL,
        day INTEGER NOT NULL,
        channel_id INTEGER NOT NULL,
        claimed_until REAL,
        claimed_by TEXT,
        message_id INTEGER,
        PRIMARY KEY (guild_id, day)
    );
    """,
    # 21 (hints): a game where a player asked for a hint (``/game hint``) is marked ``hints``, from the
    # moment of the first hint on; its record (``finished_games.rated``) says it changed no rating.
    """
    ALTER TABLE games ADD COLUMN hints INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE finished_games ADD COLUMN rated INTEGER NOT NULL DEFAULT 1;
    """,
    # 22 (seasons): a server's seasons (``/game settings seasons:``): ``mode`` 'month' or 'quarter'
    # (NULL: off), the channel of the season-end posts, and the numbering of the current run: season
    # ``first_season`` is the month or quarter ``first_index`` (`bot.memory.periods.period_index`), the
    # next ones follow. ``seasons_ended``: one row per season that ended (its period's key and bounds,
    # the channel then chosen), the durable list of past seasons; its end post is claimed by one
    # process, then marked sent (``message_id``; 0 when nothing was posted).
    """
    CREATE TABLE season_settings (
        guild_id INTEGER PRIMARY KEY,
        mode TEXT CHECK (mode IN ('month', 'quarter')),
        channel_id INTEGER,
        first_season INTEGER NOT NULL,
        first_index INTEGER NOT NULL,
        changed_at REAL NOT NULL
    );
    CREATE TABLE seasons_ended (
        guild_id INTEGER NOT NULL,
        season INTEGER NOT NULL,
        mode TEXT NOT NULL,
        period TEXT NOT NULL,
        starts_at REAL NOT NULL,
        ends_at REAL NOT NULL,
        channel_id INTEGER,
        claimed_until REAL,
        claimed_by TEXT,
        message_id INTEGER,
        PRIMARY KEY (guild_id, season)
    );
    CREATE INDEX seasons_unsent ON seasons_ended (guild_id, season) WHERE message_id IS NULL;
    """,
    # 23 (tournaments): a tournament (its sign-up, rounds and end; ``version`` is compared-and-swapped
    # by every change, so a round opens once across processes), its entrants (``seed``: join order,
    # then seeding at the start; ``withdrawn``: the round they withdrew in), its pairings per round
    # (``players``: JSON user ids in seat order; ``game_id``: the ordinary game once opened;
    # ``winners``: JSON user ids once done), its byes, and the durable posts it owes (its card, a
    # round's announcement, the final post), claimed by one process and deleted once carried out.
    # ``card_token``: the token of the command that opened it, whose answer is the card (found again
    # through it after a crash before the card's id was recorded).
    """
    CREATE TABLE tournaments (
        id INTEGER PRIMARY KEY,
        guild_id INTEGER,
        channel_id INTEGER NOT NULL,
        host_id INTEGER NOT NULL,
        kind TEXT NOT NULL,
        format TEXT NOT NULL,
        rounds INTEGER NOT NULL,
        options TEXT NOT NULL,
        table_size INTEGER NOT NULL,
        timeout_s INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('signup', 'running', 'finished', 'cancelled')),
        round INTEGER NOT NULL DEFAULT 0,
        version INTEGER NOT NULL DEFAULT 0,
        card_message_id INTEGER,
        card_token TEXT,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        finished_at REAL
    );
    CREATE INDEX tournaments_by_channel ON tournaments (channel_id, id);
    CREATE INDEX tournaments_live ON tournaments (status) WHERE status IN ('signup', 'running');
    CREATE TABLE tournament_entrants (
        tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
        user_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        seed INTEGER NOT NULL,
        withdrawn INTEGER,
        PRIMARY KEY (tournament_id, user_id)
    );
    CREATE INDEX tournament_entrants_by_user ON tournament_entrants (user_id);
    CREATE TABLE tournament_games (
        tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
        round INTEGER NOT NULL,
        board INTEGER NOT NULL,
        players TEXT NOT NULL,
        game_id INTEGER REFERENCES games (id) ON DELETE SET NULL,
        status TEXT NOT NULL CHECK (status IN ('scheduled', 'live', 'done')),
        winners TEXT,
        forfeit INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (tournament_id, round, board)
    );
    CREATE UNIQUE INDEX tournament_games_by_game ON tournament_games (game_id);
    CREATE TABLE tournament_byes (
        tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
        round INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        PRIMARY KEY (tournament_id, round, user_id)
    );
    CREATE TABLE tournament_posts (
        id INTEGER PRIMARY KEY,
        tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
        kind TEXT NOT NULL,
        round INTEGER NOT NULL DEFAULT 0,
        created_at REAL NOT NULL,
        not_before REAL NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        claimed_by TEXT,
        claimed_until REAL
    );
    CREATE INDEX tournament_posts_due ON tournament_posts (not_before);
    """,
    # 24 (deferred answers): a slow read-only command that answered "thinking..." and owes its real
    # answer. Written before the defer, deleted once the interaction's handlers are done; what a
    # killed process left is found again at its restart (``holder``: the process that wrote it, NULL
    # when one process has the database alone) through the interaction's webhook (``application_id``,
    # ``token``: valid 15 minutes) and told, in ``locale``, to ask again. ``asked``: what was asked
    # ("/game analyse 12"), public facts only.
    """
    CREATE TABLE pending_answers (
        id INTEGER PRIMARY KEY,
        application_id INTEGER NOT NULL,
        token TEXT NOT NULL,
        user_id INTEGER NOT NULL,
        locale TEXT NOT NULL,
        asked TEXT NOT NULL,
        holder TEXT,
        created_at REAL NOT NULL
    );
    CREATE INDEX pending_answers_by_holder ON pending_answers (holder, id);
    """,
)
