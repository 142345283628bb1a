"""The composition root: builds storage, the services, the table machinery and the scheduler, and
wires them into the discord.py client. Nothing imports this module but the entry point."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import json
import logging
import socket
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypedDict, TypeVar, Unpack, cast

import discord
from discord.ext import commands
from discord.http import Route

from bot import metrics
from bot.clock import Clock
from bot.clock import install as install_clock
from bot.config import Settings
from bot.events.tournaments import Tournaments
from bot.i18n import N_
from bot.i18n.audience import Audiences, reader
from bot.i18n.commands import CommandTranslator
from bot.registry import DAILY_PUZZLE, GAMES, RULES, SCORE_RANKED
from bot.scheduler import Scheduler
from bot.service import Changes, Games, Services
from bot.service.undo import Takebacks
from bot.storage import OutboxItem, Storage
from bot.table.agenda import Agenda
from bot.table.analysis import Analyst
from bot.table.boards import Boards
from bot.table.cards import Cards
from bot.table.catalog import Catalog, GameKind
from bot.table.commands import CogParts, GameCommands
from bot.table.computers import Computers
from bot.table.digest import DigestDesk
from bot.table.drawing import Drawing
from bot.table.hints import HintDesk
from bot.table.lobby import Lobbies
from bot.table.minds import Minds
from bot.table.notices import Reminders
from bot.table.notify import Notify
from bot.table.outbox import Done, Outbox
from bot.table.panels import Panels
from bot.table.pending import PendingAnswers
from bot.table.play import Plays
from bot.table.privacy import PrivacyDesk
from bot.table.puzzles import PuzzleDesk
from bot.table.records import Memory
from bot.table.replies import GameTree, Replies, reply_private
from bot.table.routing import ANY_GAME, Router
from bot.table.rules import route_rules
from bot.table.seasons import SeasonDesk
from bot.table.shown import Shown
from bot.table.threads import Places
from bot.table.timeaway import TimeDesk
from bot.table.tournaments import TournamentDesk
from bot.table.typed import TypedAnswers
from bot.table.undo import UndoDesk
from cogs.game import GameAdmin
from cogs.tournament.commands import cog as tournament_cog

if TYPE_CHECKING:  # (discord.py's payload types are for the type checker only)
    from discord.types.interactions import Interaction as InteractionPayload

log = logging.getLogger(__name__)

RESTARTING = N_("The bot is restarting; try again in a moment.")
# Of a graceful stop's grace (QUETBOT_STOP_GRACE): what is kept back for the outbox, and after it
# for closing the gateway and the database.
CLOSING_RESERVE = 1.5
OUTBOX_RESERVE = 1.5


def _recorder(games: Games) -> Callable[[OutboxItem, Done], None]:
    """What the outbox tells the games once an item is carried out: the messages and DM links it
    made, kept in the cache at once."""

    def recorded(item: OutboxItem, done: Done) -> None:
        games.cache.set_messages(
            item.game_id,
            board_message_id=done.board_message_id,
            lobby_message_id=done.lobby_message_id,
            place_id=done.place_id,
        )
        games.links_recorded(dm_panel=done.dm_panel, dm_blocked=done.dm_blocked)

    return recorded


P = ParamSpec("P")
R = TypeVar("R")


def _counting(
    request: Callable[Concatenate[Route, P], Coroutine[object, object, R]],
) -> Callable[Concatenate[Route, P], Coroutine[object, object, R]]:
    """``request`` (discord.py's HTTP client's), each call counted by its route (`metrics.ROUTE`)."""

    async def counted(route: Route, /, *args: P.args, **kwargs: P.kwargs) -> R:
        metrics.ROUTE.set(f"{route.method} {route.path}")
        return await request(route, *args, **kwargs)

    return counted


@dataclass(frozen=True)
class Table:
    """The table's objects: they carry out the outbox's effects and answer people."""

    places: Places
    boards: Boards
    cards: Cards
    panels: Panels
    plays: Plays
    lobbies: Lobbies
    typed: TypedAnswers
    reminders: Reminders
    undo: UndoDesk  # /game undo: takebacks


def _table(
    client: discord.Client,
    services: Services,
    storage: Storage,
    catalog: Catalog,
    router: Router,
    outbox: Outbox,
    shown: Shown,
    notify: Notify,
    audiences: Audiences,
    drawing: Drawing,
) -> Table:
    """Each table object, given what it uses (by name); each carries out its own effects."""
    games, history, lobby, moves = services.games, services.history, services.lobby, services.moves
    places = Places(client=client, games=games, storage=storage, catalog=catalog, audiences=audiences)
    boards = Boards(
        client=client, games=games, history=history, catalog=catalog, router=router, shown=shown,
        notify=notify, audiences=audiences, places=places, drawing=drawing,
    )  # fmt: skip
    cards = Cards(
        client=client, games=games, catalog=catalog, router=router, audiences=audiences, boards=boards,
        places=places,
    )  # fmt: skip
    panels = Panels(
        client=client, games=games, catalog=catalog, router=router, shown=shown, notify=notify,
        audiences=audiences, boards=boards,
    )  # fmt: skip
    plays = Plays(
        moves=moves, catalog=catalog, outbox=outbox, shown=shown, notify=notify, audiences=audiences,
        boards=boards, panels=panels,
    )  # fmt: skip
    lobbies = Lobbies(
        client=client, games=games, lobby=lobby, catalog=catalog, router=router, outbox=outbox,
        notify=notify, audiences=audiences, boards=boards, cards=cards, places=places,
    )  # fmt: skip
    typed = TypedAnswers(
        games=games, storage=storage, catalog=catalog, router=router, audiences=audiences, plays=plays
    )
    reminders = Reminders(
        client=client, games=games, storage=storage, catalog=catalog, router=router, notify=notify,
        audiences=audiences, panels=panels,
    )  # fmt: skip
    # The table's own buttons on every game (the lobby's are routed by the lobbies, each game's by its cog).
    route_rules(router, catalog)
    router.on_click(ANY_GAME, "mine", panels.on_mine)
    router.on_click(ANY_GAME, "mute", reminders.on_mute)
    router.on_click(ANY_GAME, "typed", typed.on_choose)
    undo = UndoDesk(
        client=client, storage=storage, moves=moves, takebacks=Takebacks(games), catalog=catalog,
        outbox=outbox, notify=notify, audiences=audiences,
    )  # fmt: skip
    undo.routes(router)
    for carrying in (places, boards, cards, panels, lobbies, reminders):
        carrying.carries(outbox)
    return Table(places, boards, cards, panels, plays, lobbies, typed, reminders, undo)


def _cogs(
    services: Services,
    storage: Storage,
    catalog: Catalog,
    router: Router,
    outbox: Outbox,
    notify: Notify,
    audiences: Audiences,
    table: Table,
    drawing: Drawing,
    digests: DigestDesk,
    minds: Minds,
    puzzle_desk: PuzzleDesk | None = None,
    season_desk: SeasonDesk | None = None,
    *,
    pending: PendingAnswers,
    tournament_desk: TournamentDesk | None = None,
) -> list[commands.Cog]:
    """Each game's cog (the catalog learns the game first), built by its spec from the parts it
    takes, then /game's, given what it uses (by name)."""
    games, finder, moves = services.games, services.finder, services.moves
    commands_table = GameCommands(
        finder=finder, storage=storage, catalog=catalog, lobbies=table.lobbies, plays=table.plays,
        panels=table.panels,
    )  # fmt: skip
    parts = CogParts(table=commands_table, plays=table.plays, router=router, catalog=catalog, moves=moves)
    cogs = []
    for spec in GAMES.values():
        catalog.add(GameKind.of(spec))
        cogs.append(spec.commands(parts))
    # /game's own objects register their buttons (the history's pages, the delete's confirm) now,
    # before any click; leaderboards are drawn where boards are.
    memory = Memory(storage, router, catalog, drawing)
    privacy_desk = PrivacyDesk(
        storage=storage, games=games, lobby=services.lobby, moves=moves, outbox=outbox, notify=notify,
        catalog=catalog, router=router,
    )  # fmt: skip
    admin = GameAdmin(
        finder=finder, games=games, storage=storage, catalog=catalog, lobbies=table.lobbies,
        plays=table.plays, boards=table.boards, places=table.places, audiences=audiences, notify=notify,
        memory=memory, privacy_desk=privacy_desk, time_desk=TimeDesk(storage, finder, notify),
        undo_desk=table.undo, agenda=digests.agenda, digests=digests,
        analyst=Analyst(storage, catalog, minds, pending), puzzle_desk=puzzle_desk,
        season_desk=season_desk, pending=pending,
        hint_desk=HintDesk(storage=storage, games=games, catalog=catalog, minds=minds, pending=pending),
    )  # fmt: skip
    # tournaments (tourB): the /tournament cog, built from ``tournament_desk`` and its service (it
    # registers its presenter with the desk, which carries the tournament's posts from then on).
    if tournament_desk is not None:
        cogs.append(tournament_cog(tournament_desk.tournaments, tournament_desk, audiences, router))
    return [*cogs, admin]


def _tournaments(
    client: QuetBot,
    services: Services,
    catalog: Catalog,
    outbox: Outbox,
    notify: Notify,
    table: Table,
    changes: Changes,
) -> TournamentDesk:
    """Tournaments (issue 29): the service and its desk (each round's games, the event's posts, and
    the pass that moves a round on once its games are over, also after a restart), told of every
    change; in this process's name (`QuetBot.outbox`'s) and by its clock."""
    storage, tournaments = services.games.storage, Tournaments(services.games.storage, services.games)
    desk = TournamentDesk(
        client=client, storage=storage, tournaments=tournaments, moves=services.moves, catalog=catalog,
        outbox=outbox, notify=notify, places=table.places, clock=client.clock,
        holder=client.scheduler.holder,
        ready=client.wait_until_ready,
    )  # fmt: skip
    changes.listen(desk.changed)
    return desk


class TaskOptions(TypedDict, total=False):
    """What asyncio hands a task factory besides the coroutine."""

    name: str | None
    context: contextvars.Context | None


class QuetBot(commands.Bot):
    storage: Storage
    audiences: Audiences
    services: Services
    scheduler: Scheduler
    outbox: Outbox
    table: Table
    pending: PendingAnswers

    tournament_desk: TournamentDesk

    @property
    def tournaments(self) -> Tournaments:
        """The tournaments' service (issue 29)."""
        return self.tournament_desk.tournaments

    def __init__(self, settings: Settings, **client_options: Any) -> None:
        """``client_options``: more of discord.py's client options, passed on as they are (a sharded
        bot's shards among them, which the plain client's typed options do not name)."""
        intents = discord.Intents.none()
        intents.guilds = True  # channel and thread events
        intents.dm_messages = True  # typed answers in DMs (DM content needs no privileged intent)
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            help_command=None,
            tree_cls=GameTree,
            allowed_mentions=discord.AllowedMentions.none(),
            # Nothing reads discord.py's message cache (every event we use carries its message), and
            # filling it costs time on every message event.
            max_messages=client_options.pop("max_messages", None),
            http_trace=client_options.pop("http_trace", None) or metrics.http_trace(),
            **client_options,
        )
        self.settings = settings
        # A graceful stop has begun (`shutdown`): interactions are answered "restarting".
        self.stopping = False
        # The handlers (tasks) of the interactions received and not yet finished.
        self.inflight: set[asyncio.Task[object]] = set()
        self._received: discord.Interaction | None = None
        self._watch_interactions()
        self._watch_requests()

    # ---- interactions in flight, and their count ----------------------------------------------------

    def _watch_interactions(self) -> None:
        """Every interaction received is followed to the end of its handlers (a command's invocation,
        a component's callback, the listeners), which a graceful stop waits for, and counted with its
        outcome. Once a stop has begun, a new one is answered "restarting" instead."""
        parsers = self._connection.parsers
        received = parsers["INTERACTION_CREATE"]

        def parse(data: InteractionPayload) -> None:
            kind = metrics.INTERACTION_KINDS.get(data.get("type"), "other")
            if self.stopping:
                self._refuse(data, kind)
                return
            # discord.py schedules the handlers, each a task, then dispatches the event: the tasks
            # created meanwhile are this interaction's (caught by a task factory set only meanwhile).
            loop = asyncio.get_running_loop()
            handlers: list[asyncio.Task[object]] = []
            factory = loop.get_task_factory()

            def catch(
                loop: asyncio.AbstractEventLoop,
                coro: Coroutine[object, object, object],
                **kwargs: Unpack[TaskOptions],
            ) -> asyncio.Task[object]:
                # (Python 3.12 and later hand a factory the task's name and context too.)
                made = factory(loop, coro, **kwargs) if factory is not None else None  # type: ignore[misc]
                task = (
                    cast("asyncio.Task[object]", made)
                    if made is not None
                    else asyncio.Task(coro, loop=loop, **kwargs)
                )
                handlers.append(task)
                return task

            self._received = None
            loop.set_task_factory(catch)  # type: ignore[arg-type]
            try:
                received(data)
            finally:
                loop.set_task_factory(factory)
            interaction, self._received = self._received, None
            self._follow(handlers, kind, interaction)

        parsers["INTERACTION_CREATE"] = parse

    def _follow(
        self, handlers: list[asyncio.Task[object]], kind: str, interaction: discord.Interaction | None
    ) -> None:
        left = len(handlers)

        def count() -> None:
            outcome = "unanswered"
            if interaction is not None:
                outcome = interaction.extras.get("outcome") or (
                    "ok" if interaction.response.is_done() else "unanswered"
                )
            metrics.INTERACTIONS.labels(kind, outcome).inc()

        def done(task: asyncio.Task[object]) -> None:
            nonlocal left
            self.inflight.discard(task)
            left -= 1
            if left == 0:
                count()
                if interaction is not None:  # (its answer went out: it is owed no more)
                    self.pending.done(interaction)

        if not handlers:
            count()
        for task in handlers:
            self.inflight.add(task)
            task.add_done_callback(done)

    def _refuse(self, data: InteractionPayload, kind: str) -> None:
        interaction = discord.Interaction(data=data, state=self._connection)

        async def refuse() -> None:
            try:
                if interaction.type is discord.InteractionType.autocomplete:
                    await interaction.response.autocomplete([])
                else:
                    await reply_private(interaction, reader(interaction).t(RESTARTING))
            except discord.HTTPException:
                log.info("Could not tell interaction %s that the bot is restarting", interaction.id)
            metrics.INTERACTIONS.labels(kind, "restarting").inc()

        task = asyncio.create_task(refuse(), name="quetbot-restarting")
        self.inflight.add(task)
        task.add_done_callback(self.inflight.discard)

    def _watch_requests(self) -> None:
        """Each request to Discord is counted by its route (see `metrics.http_trace`)."""
        # (The wrapper takes the route positionally only, as discord.py always passes it.)
        self.http.request = _counting(self.http.request)  # type: ignore[method-assign,assignment]

    async def setup_hook(self) -> None:
        self.storage = storage = await Storage.open(self.settings.db_path, score_ranked=SCORE_RANKED)
        changes = Changes()  # (the scheduler listens)
        shared = self.settings.shares_database
        self.services = services = Services.build(storage, RULES, shared=shared, changes=changes)
        games = services.games
        self.catalog = catalog = Catalog()
        router = Router(games, Replies())
        self.clock = clock = Clock(self.settings.clock_offset_file)
        install_clock(clock)
        # This process's name in claims and leases of due work: its host and shards, the same after
        # a restart, so a restarted process takes back what it held at once (others wait for the
        # claim to expire).
        holder = self.settings.instance or f"{socket.gethostname()}:{self.settings.shard_label}"
        self.outbox = outbox = Outbox(
            storage, clock, holder=holder if shared else None, on_completed=_recorder(games)
        )
        self.notify = notify = Notify(storage)
        await notify.load()
        self.pending = pending = PendingAnswers(storage, self, holder=holder if shared else None)
        self.audiences = audiences = Audiences(storage, shared=self.settings.shares_database)
        shown = Shown()
        renders = [spec.present.render for spec in GAMES.values()]  # boards are drawn in worker processes
        self.drawing = Drawing(self.settings.draw_workers, warm=renders)
        table = _table(
            self, services, storage, catalog, router, outbox, shown, notify, audiences, self.drawing
        )
        self.computers = computers = Computers(
            games=games,
            storage=storage,
            catalog=catalog,
            plays=table.plays,
            pause=self.settings.computer_pause,
            minds=Minds(self.settings.computer_workers),
            # Once a computer's move ends, the scheduler looks at what is due again (it is built
            # next, with the computers).
            on_finished=lambda: self.scheduler.poke(),
        )
        # /game mine and the daily digests (issue 27): the agenda registers its page buttons now.
        digests = DigestDesk(
            client=self, storage=storage, agenda=Agenda(storage, games, catalog, router, pending),
            audiences=audiences, clock=clock, quiet_until=notify.quiet_until,
        )  # fmt: skip
        # The daily puzzle (issue 28): its answer buttons are registered now.
        self.puzzles = puzzle_desk = PuzzleDesk(
            client=self, storage=storage, router=router, audiences=audiences, clock=clock, maker=DAILY_PUZZLE,
            pending=pending,
        )  # fmt: skip
        self.seasons = season_desk = SeasonDesk(self, storage, catalog, audiences, clock)  # (issue 29)
        self.scheduler = Scheduler(
            storage, games, services.lobby, table.plays, outbox, computers=computers,
            ready=self.wait_until_ready, clock=clock, holder=holder, changes=changes,
            takebacks=table.undo.expire_due, digests=digests, puzzles=puzzle_desk.run_due,
            seasons=season_desk.run_due,
        )  # fmt: skip
        self.table = table
        self.cards = table.cards
        self.tournament_desk = desk = _tournaments(self, services, catalog, outbox, notify, table, changes)
        metrics.declare_games(GAMES)
        parts = (services, storage, catalog, router, outbox, notify, audiences, table, self.drawing, digests)
        for cog in _cogs(
            *parts, computers.minds, puzzle_desk, season_desk, pending=pending, tournament_desk=desk
        ):
            await self.add_cog(cog)
        self.add_dynamic_items(router.item_class, router.foreign_class)
        self.add_listener(audiences.seen, "on_interaction")
        self.add_listener(router.on_interaction, "on_interaction")
        self.add_listener(table.typed.on_message, "on_message")
        self.add_listener(table.panels.on_message, "on_message")
        await self.tree.set_translator(CommandTranslator())
        await self.sync_commands()
        await pending.start()  # (before the gateway: no interaction of this run is noted yet)
        outbox.start()
        self.scheduler.start()
        desk.start()
        if shared:  # a choice made through another process is followed within seconds
            notify.follow()

    def dispatch(self, event_name: str, /, *args: object, **kwargs: object) -> None:
        # Each interaction's locales are known before any handler of it runs (a listener runs later,
        # in a task of its own, after the command's): what answers it speaks the right language.
        if event_name == "interaction" and args and isinstance(args[0], discord.Interaction):
            self._received = args[0]
            if getattr(self, "audiences", None) is not None:
                self.audiences.note(args[0])
        super().dispatch(event_name, *args, **kwargs)

    async def shutdown(self, grace: float) -> None:
        """A graceful stop, within ``grace`` seconds: take no due work and no new interaction (those
        arriving are told the bot is restarting); let the due work under way (computers' moves)
        and the handlers of every interaction already received finish; carry out the outbox items
        under way; then `close` (leases and claims given up, the gateway closed with 1000, the
        database closed)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + grace
        self.stopping = True
        log.info("Stopping: finishing %d interactions and the work under way", len(self.inflight))
        scheduler = getattr(self, "scheduler", None)
        desk = getattr(self, "tournament_desk", None)
        passes = [part for part in (scheduler, desk) if part is not None]
        if passes:  # (the deadlines' pass and the tournaments' pass end together)
            wait = max(0.0, end - OUTBOX_RESERVE - CLOSING_RESERVE - loop.time())
            await asyncio.gather(*(part.stop(wait=wait) for part in passes))
        computers = getattr(self, "computers", None)
        running = [*self.inflight, *(computers.running() if computers is not None else ())]
        left = end - OUTBOX_RESERVE - CLOSING_RESERVE - loop.time()
        if running and left > 0:
            _, late = await asyncio.wait(running, timeout=left)
            if late:
                log.warning("Stopping: %d handlers did not finish within the grace", len(late))
        outbox = getattr(self, "outbox", None)
        if outbox is not None:
            await outbox.stop(wait=max(0.0, end - CLOSING_RESERVE - loop.time()))
        await self.close()
        log.info("Stopped")

    async def close(self) -> None:
        parts = (
            "scheduler", "tournament_desk", "computers", "outbox", "cards", "notify", "drawing", "pending"
        )  # fmt: skip
        for part in (getattr(self, name, None) for name in parts):
            if part is not None:
                await part.stop()
        storage = getattr(self, "storage", None)
        if storage is not None and getattr(self, "scheduler", None) is not None:
            # What this process held is another's at once (else only once each claim expires).
            with contextlib.suppress(Exception):
                await storage.release_claims(holder=self.scheduler.holder)
                if self.outbox.holder is not None:
                    await storage.release_leases(holder=self.outbox.holder)
                await storage.release_posts(holder=self.tournament_desk.holder)
        await super().close()
        if storage is not None:
            await storage.close()

    async def sync_commands(self) -> None:
        """Sync only when the command tree changed since the last sync to the same target.

        With QUETBOT_DEV_GUILD, commands go to that server only (instant); otherwise globally.
        The hash of what was synced is kept in the database, so a plain restart syncs nothing.
        Of several processes sharing the bot's shards, only the one running shard 0 syncs.
        """
        guild = discord.Object(self.settings.dev_guild) if self.settings.dev_guild else None
        if guild is not None:
            self.tree.copy_global_to(guild=guild)
        if not self.settings.syncs_commands:
            log.info("Application commands are synced by the process running shard 0; not syncing")
            return
        # The payload as synced, localisations included: a changed translation syncs again.
        translator = self.tree.translator
        commands_here = self.tree.get_commands(guild=guild)
        if translator is not None:
            payload = [await cmd.get_translated_payload(self.tree, translator) for cmd in commands_here]
        else:
            payload = [cmd.to_dict(self.tree) for cmd in commands_here]
        digest = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
        key = f"synced:{guild.id if guild else 'global'}"
        if await self.storage.get_meta(key=key) == digest:
            log.info("Application commands unchanged; not syncing")
            return
        synced = await self.tree.sync(guild=guild)
        await self.storage.set_meta(key=key, value=digest)
        log.info("Synced %d application commands to %s", len(synced), key.split(":", 1)[1])


class ShardedQuetBot(QuetBot, commands.AutoShardedBot):
    """The bot running the gateway shards its settings name, one connection each (discord.py's
    AutoShardedBot): each shard receives the events of its servers, shard 0 also every DM."""


def create_bot(settings: Settings, **client_options: Any) -> QuetBot:
    """The bot for these settings: one plain client when not sharded (as before sharding existed),
    else a sharded one running `settings.shard_ids` of `settings.shard_count`."""
    if settings.shard_count is None:
        return QuetBot(settings, **client_options)
    return ShardedQuetBot(
        settings, shard_count=settings.shard_count, shard_ids=list(settings.shard_ids or ()), **client_options
    )
