"""/game: the commands every game shares (join, start, status, rules, leave, cancel, settings,
notify, mine).

A command is about the game played where it is used: in a game's thread, that game; in a channel
with several games, the one the command fits (a lobby to join, the caller's own game). See
`Finder.game_here`.
"""

from __future__ import annotations

from collections.abc import Callable

import discord
from discord import app_commands
from discord.ext import commands

from bot.errors import BadInput, GameError, NoGameHere, NotAllowed, WhichGame
from bot.i18n import LANGUAGES, Lang
from bot.i18n.audience import AUTO, Audiences, reader
from bot.players import LEVELS
from bot.registry import RULES_TEXT, rules_for, rules_of
from bot.rules.base import FORFEIT
from bot.service import Finder, Games, Loaded
from bot.storage import GameRow, Storage
from bot.table.agenda import Agenda
from bot.table.analysis import Analyst
from bot.table.boards import Boards
from bot.table.catalog import Catalog
from bot.table.digest import DEFAULT_HOUR, DEFAULT_TIMEZONE, DigestDesk, timezone_choices, zone
from bot.table.hints import HintDesk
from bot.table.lobby import Lobbies, channel_of
from bot.table.notify import DIGEST, MODES, Notify, describe
from bot.table.pending import PendingAnswers
from bot.table.play import Plays
from bot.table.privacy import PrivacyDesk
from bot.table.puzzles import PuzzleDesk
from bot.table.records import PERIOD_CHOICES, Memory
from bot.table.replays import send_replay
from bot.table.replies import fit, mention, reply_private
from bot.table.seasons import SEASON_MODES, SeasonDesk
from bot.table.threads import Places
from bot.table.timeaway import TimeDesk, more_time, zone_choices
from bot.table.undo import UndoDesk

LEVEL_CHOICES = [app_commands.Choice(name=level, value=level) for level in LEVELS]
ON_OFF = [app_commands.Choice(name="on", value="on"), app_commands.Choice(name="off", value="off")]
# Each language by its own name (not translated: a reader looks for their language's own name), and
# "auto": follow the server's Discord language.
LANGUAGE_CHOICES = [
    app_commands.Choice(name="auto: the server's Discord language (default)", value=AUTO),
    *(app_commands.Choice(name=name, value=code) for code, name in LANGUAGES.items()),
]
SEASON_CHOICES = [
    app_commands.Choice(name=name, value=mode)
    for mode, name in zip(
        SEASON_MODES,
        ("off", "month: calendar months (UTC)", "quarter: calendar quarters (UTC)"),
        strict=True,
    )
]
GAME_CHOICES = [app_commands.Choice(name=text.title, value=key) for key, text in RULES_TEXT.items()]
NOTIFY_CHOICES = [
    app_commands.Choice(name=name, value=mode)
    for mode, name in zip(
        MODES,
        (
            "mention: a ping on the board (default)",
            "dm: a short direct message",
            "both: a ping and a direct message",
            "off: neither",
            "digest: one DM a day listing what waits on you",
        ),
        strict=True,
    )
]


def in_lobby(row: GameRow) -> bool:
    return row.status == "lobby"


def threads_list(rows: list[GameRow], lang: Lang) -> str:
    """/game status in a channel whose games are played in their threads: each game (live ones
    first) with a link to its thread."""
    lines = [lang.t("The games opened in this channel are played in their own threads:")]
    for row in rows:
        values = {"title": rules_for(row.kind).TITLE, "game_id": row.id, "thread": f"<#{row.place_id}>"}
        if row.live:
            lines.append(lang.t("▶️ **{title}** #{game_id}, being played in {thread}", **values))
        elif row.status == "finished":
            lines.append(
                lang.t("🏁 **{title}** #{game_id}, over (its result is on its card here): {thread}", **values)
            )
        else:
            lines.append(lang.t("✖️ **{title}** #{game_id}, cancelled: {thread}", **values))
    lines.append(lang.t("Use /game status in a game's thread to see its board."))
    return "\n".join(lines)


class GameAdmin(commands.GroupCog, group_name="game", group_description="Commands shared by every game"):
    def __init__(
        self,
        *,
        finder: Finder,
        games: Games,
        storage: Storage,
        catalog: Catalog,
        lobbies: Lobbies,
        plays: Plays,
        boards: Boards,
        places: Places,
        audiences: Audiences,
        notify: Notify,
        memory: Memory,
        privacy_desk: PrivacyDesk,
        time_desk: TimeDesk,
        undo_desk: UndoDesk | None = None,
        agenda: Agenda,
        digests: DigestDesk,
        analyst: Analyst,
        puzzle_desk: PuzzleDesk | None = None,
        hint_desk: HintDesk | None = None,
        season_desk: SeasonDesk | None = None,
        pending: PendingAnswers,
    ) -> None:
        self.finder, self.games, self.storage, self.catalog = finder, games, storage, catalog
        self.lobbies, self.plays, self.boards, self.places = lobbies, plays, boards, places
        self.audiences, self.notifier = audiences, notify
        self.memory = memory  # /game leaderboard, stats and history (bot/table/records.py)
        self.privacy_desk = privacy_desk  # /game privacy (bot/table/privacy.py)
        self.time_desk = time_desk  # /game away, back, extend (bot/table/timeaway.py)
        self.undo_desk = undo_desk  # /game undo (bot/table/undo.py)
        self.agenda = agenda  # /game mine (bot/table/agenda.py)
        self.digests = digests  # /game notify mode:digest (bot/table/digest.py)
        self.analyst = analyst  # /game analyse (bot/table/analysis.py)
        self.puzzle_desk = puzzle_desk  # /game puzzle and its daily post (bot/table/puzzles.py)
        self.hint_desk = hint_desk  # /game hint (bot/table/hints.py)
        self.season_desk = season_desk  # seasons: settings, their end posts (bot/table/seasons.py)
        self.pending = pending  # deferred answers owed, told after a restart (bot/table/pending.py)
        super().__init__()

    async def _here(self, interaction: discord.Interaction, *prefer: Callable[[GameRow], bool]) -> Loaded:
        user_id = interaction.user.id
        return await self.finder.game_here(channel_of(interaction), user_id, prefer=prefer)

    async def _own_game(self, interaction: discord.Interaction) -> Loaded:
        """The caller's game played here, or, once it has ended, that finished game (so that a
        command about it can say it is over, rather than that there is none)."""
        user_id = interaction.user.id
        try:
            return await self._here(interaction, lambda row: row.seat_of(user_id) is not None)
        except NoGameHere:
            row = await self.storage.latest_game_at(place_id=channel_of(interaction))
            if row is None or row.status != "finished" or row.seat_of(user_id) is None:
                raise
            return self.games.load(row)

    @app_commands.command(name="join", description="Join the lobby in this channel")
    async def join(self, interaction: discord.Interaction) -> None:
        user_id = interaction.user.id
        game = await self._here(interaction, in_lobby, lambda row: row.seat_of(user_id) is None)
        await self.lobbies.act(interaction, game, "join")

    @app_commands.command(name="start", description="Start the game in this channel's lobby (host only)")
    async def start(self, interaction: discord.Interaction) -> None:
        user_id = interaction.user.id
        game = await self._here(interaction, in_lobby, lambda row: row.host_id == user_id)
        await self.lobbies.act(interaction, game, "start")

    @app_commands.command(
        name="addbot", description="Add a computer player to this channel's lobby (host only)"
    )
    @app_commands.describe(level="How strong: easy, normal or hard")
    @app_commands.choices(level=LEVEL_CHOICES)
    async def addbot(self, interaction: discord.Interaction, level: str) -> None:
        user_id = interaction.user.id
        game = await self._here(interaction, in_lobby, lambda row: row.host_id == user_id)
        await self.lobbies.add_computer(interaction, game, level)

    @app_commands.command(
        name="status", description="Whose move it is, and the latest board (only you see it)"
    )
    async def status(self, interaction: discord.Interaction) -> None:
        try:
            row: GameRow | None = (await self._here(interaction)).row
        except WhichGame as which:
            if len(which.game_ids) != 1:  # several: say which they may mean
                raise
            row = (await self.games.get(which.game_ids[0])).row  # theirs, in its thread
        except NoGameHere:
            place_id = channel_of(interaction)
            # Games opened here are played in their threads: those are this channel's games.
            threaded = await self.storage.thread_games_of(channel_id=place_id)
            row = (
                None
                if any(g.live for g in threaded)
                else await self.storage.latest_game_at(place_id=place_id)
            )
            if row is None and threaded:
                await reply_private(interaction, threads_list(threaded, reader(interaction)))
                return
        if row is None:
            raise GameError("No game has been played in this channel yet. Start one with /<game> new.")
        game = self.games.load(row)
        lang = reader(interaction)
        if row.status == "lobby":
            content, _ = self.lobbies.message(game, lang)
            await reply_private(interaction, content)
            return
        if row.status == "cancelled":
            raise GameError(
                "The last game here (#{game_id}) was cancelled. Start one with /<game> new.", game_id=row.id
            )
        payload = await self.boards.status_payload(game, lang)
        if game.row.live:
            waits = await self.storage.waits_of_game(game_id=game.id)
            extensions = await self.storage.extensions_of_game(game_id=game.id)
            lines = [
                " · ".join(
                    part
                    for part in (
                        lang.t(
                            "⏳ {player}: move due {relative} ({moment})",
                            player=mention(game.row.seats[w.seat]),
                            relative=f"<t:{int(w.deadline)}:R>",
                            moment=f"<t:{int(w.deadline)}:f>",
                        ),
                        more_time(extensions, w.seat, lang),
                    )
                    if part
                )
                for w in waits
                if w.seat < len(game.row.seats)
            ]
            if lines:
                payload["content"] = fit(payload["content"] + "\n" + "\n".join(lines))
        await interaction.response.send_message(ephemeral=True, **payload)

    @app_commands.command(name="rules", description="The rules of a game, with a worked example")
    @app_commands.describe(game="Which game")
    @app_commands.choices(game=GAME_CHOICES)
    async def rules(self, interaction: discord.Interaction, game: str) -> None:
        await reply_private(interaction, rules_of(game, reader(interaction)))

    @app_commands.command(name="leave", description="Leave the lobby, or forfeit the game in this channel")
    async def leave(self, interaction: discord.Interaction) -> None:
        game = await self._here(interaction)
        if game.row.status == "lobby":
            await self.lobbies.act(interaction, game, "leave")
            return
        await self.plays.act(interaction, game, FORFEIT)

    @app_commands.command(name="cancel", description="Cancel this channel's game (host or Manage Messages)")
    async def cancel(self, interaction: discord.Interaction) -> None:
        user_id = interaction.user.id
        game = await self._here(interaction, lambda row: row.host_id == user_id)
        await self.lobbies.act(interaction, game, "cancel")

    @app_commands.command(
        name="settings", description="This server's settings for new games (Manage Server to change)"
    )
    @app_commands.describe(
        threads="Play each new game in a thread of its own (on by default)",
        language="The language of the games' posts here (default: the server's Discord language)",
        puzzles="Post the daily puzzle in this channel every day",
        puzzle_hour="The hour of the daily puzzle's post, 0-23 UTC (default 12)",
        puzzles_off="True: stop posting the daily puzzle here",
        seasons="Seasons here: off, calendar months or calendar quarters (UTC)",
        announce="Post each season's champions in this channel when the season ends",
    )
    @app_commands.choices(threads=ON_OFF, language=LANGUAGE_CHOICES, seasons=SEASON_CHOICES)
    async def settings(
        self,
        interaction: discord.Interaction,
        threads: str | None = None,
        language: str | None = None,
        puzzles: discord.TextChannel | None = None,
        puzzle_hour: app_commands.Range[int, 0, 23] | None = None,
        puzzles_off: bool | None = None,
        seasons: str | None = None,
        announce: discord.TextChannel | None = None,
    ) -> None:
        places, audiences = self.places, self.audiences
        guild_id = interaction.guild_id
        if guild_id is None:
            raise GameError("Settings belong to a server: use /game settings in one of its channels.")
        if language is not None and language != AUTO and language not in LANGUAGES:
            raise BadInput(
                "There is no language {language}: pick one from the list.", language=repr(language[:20])
            )
        puzzling = puzzles is not None or puzzle_hour is not None or bool(puzzles_off)
        seasoning = seasons is not None or announce is not None
        changing = threads is not None or language is not None or puzzling or seasoning
        if changing and not interaction.permissions.manage_guild:
            raise NotAllowed(
                "Only people with the Manage Server permission can change this server's settings. "
                "/game settings without options shows them."
            )
        if threads is not None:
            await places.set_threads(guild_id, threads == "on")
        if language is not None:
            await audiences.choose(guild_id, language)
        if puzzling and self.puzzle_desk is not None:
            await self.puzzle_desk.configure(guild_id, puzzles, puzzle_hour, bool(puzzles_off))
        if seasoning and self.season_desk is not None:
            await self.season_desk.configure(guild_id, seasons, announce)
        lang = reader(interaction)  # a private answer: the asker's language
        on = await places.threads_on(guild_id)
        lines = [lang.t("Done.")] if changing else []
        if on:
            lines.append(
                lang.t("New games here are played in a thread of their own, started from the lobby card.")
            )
        else:
            lines.append(
                lang.t("New games here are played in the channel where they are opened (threads: off).")
            )
        if self.puzzle_desk is not None:  # (before the language, which ends the answer)
            lines.append(await self.puzzle_desk.summary(guild_id, lang))
        if self.season_desk is not None:
            lines.append(await self.season_desk.summary(guild_id, lang))
        choice = await audiences.choice(guild_id)
        public = await audiences.server(guild_id)
        if choice is None:
            lines.append(
                lang.t(
                    "The games' posts here speak the server's Discord language, now {language} "
                    "(language: auto).",
                    language=public.name,
                )
            )
        else:
            lines.append(lang.t("The games' posts here speak {language}.", language=public.name))
        await reply_private(interaction, " ".join(lines))

    # ---- how a player is told it is their move ---------------------------------------------------

    @app_commands.command(name="notify", description="How you are told it is your move (and reminded)")
    @app_commands.describe(
        mode="mention (default), dm, both, off, or digest: one DM a day",
        hour="digest: the hour of your daily DM, 0-23, your local time (default 18)",
        timezone="digest: your time zone, e.g. Europe/Paris (default UTC)",
    )
    @app_commands.choices(mode=NOTIFY_CHOICES)
    async def notify(
        self,
        interaction: discord.Interaction,
        mode: str,
        hour: app_commands.Range[int, 0, 23] | None = None,
        timezone: str | None = None,
    ) -> None:
        lang = reader(interaction)
        user_id = interaction.user.id
        if mode != DIGEST:
            if hour is not None or timezone is not None:
                raise BadInput("The options hour and timezone go with mode:digest only.")
            await self.notifier.choose(user_id, mode)
            await self.digests.drop(user_id)
            await reply_private(interaction, describe(mode, lang))
            return
        hour = DEFAULT_HOUR if hour is None else hour
        timezone = DEFAULT_TIMEZONE if timezone is None else timezone
        zone(timezone)  # (a name that is no time zone is refused before anything is stored)
        due = await self.digests.choose(user_id, hour, timezone)
        await self.notifier.choose(user_id, mode)
        when = lang.t(
            "Your digest comes every day at {hour}:00, {timezone} time; the next one {moment}.",
            hour=f"{hour:02d}",
            timezone=timezone,
            moment=f"<t:{int(due)}:R>",
        )
        await reply_private(interaction, describe(mode, lang) + " " + when)

    @notify.autocomplete("timezone")
    async def notify_timezone(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return timezone_choices(current)

    # ---- people's data (bot/table/privacy.py, PRIVACY.md) ------------------------------------------

    privacy = app_commands.Group(name="privacy", description="Your data: a copy of it, or its deletion")

    @privacy.command(name="export", description="A file with everything this bot keeps about you")
    async def privacy_export(self, interaction: discord.Interaction) -> None:
        await self.privacy_desk.export(interaction)

    @privacy.command(name="delete", description="Delete your data here (asks first)")
    async def privacy_delete(self, interaction: discord.Interaction) -> None:
        await self.privacy_desk.delete(interaction)

    # ---- the server's memory: leaderboard, stats, history (bot/table/records.py), replays ----------

    @app_commands.command(
        name="leaderboard", description="This server's best players of a game (only you see it)"
    )
    @app_commands.describe(
        game="Which game",
        period="All time (default), this month, this week or season",
        season="period:season: which season (default: the current one)",
    )
    @app_commands.choices(game=GAME_CHOICES, period=PERIOD_CHOICES)
    async def leaderboard(
        self,
        interaction: discord.Interaction,
        game: str,
        period: str = "all",
        season: app_commands.Range[int, 1, 100000] | None = None,
    ) -> None:
        await self.memory.leaderboard(interaction, game, period, season)

    @app_commands.command(
        name="stats", description="A player's games here: ratings, wins, rivals (only you see it)"
    )
    @app_commands.describe(player="Whose (default: yours)")
    async def stats(self, interaction: discord.Interaction, player: discord.User | None = None) -> None:
        await self.memory.stats(interaction, player)

    @app_commands.command(
        name="history", description="A player's finished games here, newest first (only you see it)"
    )
    @app_commands.describe(player="Whose (default: yours)", game="Only this game")
    @app_commands.choices(game=GAME_CHOICES)
    async def history(
        self, interaction: discord.Interaction, player: discord.User | None = None, game: str | None = None
    ) -> None:
        await self.memory.history(interaction, player, game)

    @app_commands.command(name="replay", description="A game replayed: an animated image and a transcript")
    @app_commands.describe(game_id="The game's number (on its card and boards: game #12)")
    async def replay(self, interaction: discord.Interaction, game_id: int) -> None:
        await send_replay(interaction, self.storage, self.catalog, game_id, self.pending)

    # ---- time away and more time (issue 27; bot/table/timeaway.py) ---------------------------------

    @app_commands.command(name="away", description="Pause your clocks in every game for some days")
    @app_commands.describe(days="How many days (1-14; at most 14 days away in any 30)")
    async def away(self, interaction: discord.Interaction, days: app_commands.Range[int, 1, 14]) -> None:
        await self.time_desk.away(interaction, days)

    @app_commands.command(name="back", description="End your time away: your clocks run again")
    async def back(self, interaction: discord.Interaction) -> None:
        await self.time_desk.back(interaction)

    @app_commands.command(name="extend", description="Give a player of this game more time for their move")
    @app_commands.describe(player="Whose move", hours="How many hours more (1-72)")
    async def extend(
        self, interaction: discord.Interaction, player: discord.User, hours: app_commands.Range[int, 1, 72]
    ) -> None:
        await self.time_desk.extend(interaction, player, hours)

    @app_commands.command(
        name="quiet", description="Quiet hours: no pings or DMs then, and no deadline inside them"
    )
    @app_commands.describe(
        start="From (HH:MM, like 22:30), or off to turn quiet hours off",
        end="To (HH:MM, like 07:00)",
        timezone="Your time zone (an IANA name such as Europe/Berlin; default UTC)",
    )
    @app_commands.rename(start="from", end="to")
    async def quiet(
        self,
        interaction: discord.Interaction,
        start: str | None = None,
        end: str | None = None,
        timezone: str | None = None,
    ) -> None:
        await self.time_desk.quiet(interaction, start, end, timezone)

    @quiet.autocomplete("timezone")
    async def quiet_zones(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=name, value=value) for name, value in zone_choices(current)]

    # ---- takebacks: /game undo (bot/table/undo.py) ---------------------------------------------------

    @app_commands.command(
        name="undo", description="Ask to take back your last move (the other players must accept)"
    )
    async def undo(self, interaction: discord.Interaction) -> None:
        assert self.undo_desk is not None  # (built with the table: bot/app.py)
        game = await self._own_game(interaction)
        await self.undo_desk.ask(interaction, game)

    # ---- what waits on me (issue 27; bot/table/agenda.py) -------------------------------------------

    @app_commands.command(
        name="mine",
        description="Your games and lobbies in every server, what waits on you first (only you see it)",
    )
    async def mine(self, interaction: discord.Interaction) -> None:
        await self.agenda.mine(interaction)

    # ---- learn from a game (issue 28; bot/table/analysis.py) -----------------------------------------

    @app_commands.command(
        name="analyse", description="A finished game judged move by move: where it was lost"
    )
    @app_commands.describe(
        game_id="The game's number (on its card and boards: game #12)",
        public="Post the analysis in the channel for everyone (default: only you see it)",
    )
    async def analyse(self, interaction: discord.Interaction, game_id: int, public: bool = False) -> None:
        await self.analyst.analyse(interaction, game_id, public)

    # ---- the daily puzzle (issue 28; bot/table/puzzles.py) -------------------------------------------

    @app_commands.command(
        name="puzzle", description="Today's puzzle: find the only winning move (only you see it)"
    )
    async def puzzle(self, interaction: discord.Interaction) -> None:
        assert self.puzzle_desk is not None  # (built with the table: bot/app.py)
        await self.puzzle_desk.show(interaction)

    # ---- hints against computers: /game hint (issue 28; bot/table/hints.py) --------------------------

    @app_commands.command(
        name="hint", description="The move the hard computer would make in your place (only you see it)"
    )
    async def hint(self, interaction: discord.Interaction) -> None:
        assert self.hint_desk is not None  # (built with the computers: bot/app.py)
        game = await self._own_game(interaction)
        await self.hint_desk.hint(interaction, game)
