"""/game mine: what waits on a person, in every server they share with the bot.

One private answer, usable in a server and in a DM with the bot: the games that wait on the caller
(their turn, or their secret choice), soonest deadline first; then their games that wait on others;
then the lobbies they sit in. Each line names the game and its number, the server, a link to where
it is played (its thread, else its channel), what is awaited and the deadline as a Discord timestamp.
It is read from stored rows in one transaction (`bot.storage.agenda`); what a game waits for comes
from its public view (`Presenter.awaited`), so no secret can show.

Long lists page with **Previous** / **Next** buttons whose custom_id survives restarts:
``q:<caller's id>:-:agenda:<page>``: the game-id field carries the person whose list it is (the
router sends the verb here without loading a game), and only that person may turn its pages.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable

import discord
from discord.utils import MISSING

from bot.deadlines import LOBBY_LIFETIME
from bot.errors import NotAllowed, StaleButton
from bot.i18n import ENGLISH, Lang
from bot.i18n.audience import reader
from bot.present import shown_name, who
from bot.service import Games
from bot.storage import AgendaEntry, Awaited, Storage
from bot.table.catalog import Catalog
from bot.table.components import button
from bot.table.ids import ComponentId, custom_id
from bot.table.pending import PendingAnswers
from bot.table.replies import NO_PINGS, fit, reply_private
from bot.table.routing import Router

AGENDA = "agenda"  # the page buttons' verb
PER_PAGE = 8


def link(entry: AgendaEntry) -> str:
    """Where the game is played: its thread, else its channel."""
    return f"https://discord.com/channels/{entry.game.guild_id or '@me'}/{entry.game.place_id}"


def named(waiting: Awaited, lang: Lang) -> str:
    """A person as a mention (an ephemeral answer or a DM pings nobody); a computer by its seat name."""
    if waiting.user_id < 0:
        return waiting.name
    return who(waiting.user_id, lang)


def when(moment: float) -> str:
    return f"<t:{int(moment)}:R>"


def guilds_of(entries: Iterable[AgendaEntry]) -> set[int]:
    return {e.game.guild_id for e in entries if e.game.guild_id is not None}


async def server_names(client: discord.Client, entries: Iterable[AgendaEntry]) -> dict[int, str]:
    """The servers' names: from the client's cache, else asked of Discord (a server on a shard
    another process runs). A server Discord will not tell of (the bot was removed) is left out: its
    lines say "a server"."""
    names: dict[int, str] = {}
    for guild_id in guilds_of(entries):
        guild = client.get_guild(guild_id)
        if guild is None:
            with contextlib.suppress(discord.HTTPException):
                guild = await client.fetch_guild(guild_id)
        if guild is not None:
            names[guild_id] = guild.name
    return names


class Agenda:
    """/game mine and its page buttons; `lines` is what the daily digest lists too."""

    def __init__(
        self, storage: Storage, games: Games, catalog: Catalog, router: Router, pending: PendingAnswers
    ) -> None:
        self.storage, self.games, self.catalog, self.router = storage, games, catalog, router
        self.pending = pending  # (a deferred list is noted as owed: a restart tells the asker)
        self.per_page = PER_PAGE  # lines a page (tests page shorter lists)
        router.on_page(AGENDA, self.on_page)

    # ---- the command and its pages ----------------------------------------------------------------

    async def mine(self, interaction: discord.Interaction) -> None:
        lang = reader(interaction)
        entries = await self.storage.agenda(user_id=interaction.user.id)
        servers = await self._servers(interaction, entries)
        content, view = self.page(entries, user_id=interaction.user.id, page=0, servers=servers, lang=lang)
        await reply_private(interaction, content, view=MISSING if view is None else view)

    async def on_page(self, interaction: discord.Interaction, cid: ComponentId, values: list[str]) -> None:
        if cid.game_id != interaction.user.id:
            raise NotAllowed(
                "These buttons turn the pages of someone else's list. Use /game mine for your own."
            )
        if not cid.arg.isdigit() or len(cid.arg) > 6:
            raise StaleButton("That page button is not one I recognise. Use /game mine again.")
        lang = reader(interaction)
        entries = await self.storage.agenda(user_id=interaction.user.id)
        servers = await self._servers(interaction, entries)
        content, view = self.page(
            entries, user_id=interaction.user.id, page=int(cid.arg), servers=servers, lang=lang
        )
        if interaction.response.is_done():
            await interaction.edit_original_response(content=content, view=view, allowed_mentions=NO_PINGS)
        else:
            await interaction.response.edit_message(content=content, view=view, allowed_mentions=NO_PINGS)

    async def _servers(self, interaction: discord.Interaction, entries: list[AgendaEntry]) -> dict[int, str]:
        """The servers' names (see `server_names`); an answer that must ask Discord is deferred first."""
        client = interaction.client
        if (
            any(client.get_guild(g) is None for g in guilds_of(entries))
            and not interaction.response.is_done()
        ):
            if interaction.type == discord.InteractionType.component:
                await interaction.response.defer()
            else:
                await self.pending.defer(interaction, asked="/game mine", ephemeral=True)
        return await server_names(client, entries)

    # ---- the text -----------------------------------------------------------------------------------

    def page(
        self,
        entries: list[AgendaEntry],
        *,
        user_id: int,
        page: int,
        servers: dict[int, str],
        lang: Lang = ENGLISH,
    ) -> tuple[str, discord.ui.View | None]:
        """One page of the list (a page past the end shows the last), and its buttons when there are
        several pages."""
        if not entries:
            return lang.t(
                "Nothing waits on you: you are in no game and no lobby. Start one with /<game> new."
            ), None
        pages = -(-len(entries) // self.per_page)
        page = min(max(page, 0), pages - 1)
        shown = entries[page * self.per_page : (page + 1) * self.per_page]
        text = "\n".join(self.lines(shown, servers=servers, lang=lang))
        if pages == 1:
            return fit(text), None
        text += "\n" + lang.n(
            "Page {page} of {pages} · {count} game or lobby",
            "Page {page} of {pages} · {count} games and lobbies",
            len(entries),
            page=page + 1,
            pages=pages,
        )
        prev = button(
            lang.pt("label", "Previous"),
            custom_id(user_id, AGENDA, max(0, page - 1)),
            emoji="◀",
            disabled=page == 0,
        )
        nxt = button(
            lang.pt("label", "Next"),
            custom_id(user_id, AGENDA, page + 1),
            emoji="▶",
            disabled=page + 1 >= pages,
        )
        return fit(text), self.router.view([prev, nxt])

    def lines(
        self, entries: Iterable[AgendaEntry], *, servers: dict[int, str], lang: Lang = ENGLISH
    ) -> list[str]:
        """The entries as lines under their group's heading (entries in `bot.storage.agenda.order`)."""
        headings = (
            lang.t("**Waiting on you**"),
            lang.t("**Waiting on others**"),
            lang.t("**Your lobbies**"),
        )
        out: list[str] = []
        group = -1
        for entry in entries:
            if entry.group != group:
                group = entry.group
                out.append(headings[group])
            out.append(self.line(entry, servers=servers, lang=lang))
        return out

    def line(self, entry: AgendaEntry, *, servers: dict[int, str], lang: Lang = ENGLISH) -> str:
        game = entry.game
        values = {
            "title": self.catalog.get(game.kind).title,
            "game_id": game.id,
            "server": servers.get(game.guild_id or 0) or lang.t("a server"),
            "link": link(entry),
        }
        own = entry.mine
        if entry.group == 2:
            closes = when(game.created_at + LOBBY_LIFETIME)
            if game.host_id == game.seats[entry.seat]:
                return lang.t(
                    "**{title}** game #{game_id} · {server} · {link} · yours to start · closes {deadline}",
                    deadline=closes,
                    **values,
                )
            host = game.seat_of(game.host_id)
            host_name = who(game.host_id, lang) if host is None else self._seat_name(entry, host, lang)
            return lang.t(
                "**{title}** game #{game_id} · {server} · {link} · waiting for {host} to start it · "
                "closes {deadline}",
                host=host_name,
                deadline=closes,
                **values,
            )
        if own is not None:
            return lang.t(
                "**{title}** game #{game_id} · {server} · {link} · {what} · due {deadline}",
                what=lang.t(self._awaited(entry)),
                deadline=when(own.deadline),
                **values,
            )
        if not entry.waits:
            return lang.t("**{title}** game #{game_id} · {server} · {link} · under way", **values)
        return lang.t(
            "**{title}** game #{game_id} · {server} · {link} · waiting for {players} · due {deadline}",
            players=lang.words(named(w, lang) for w in entry.waits),
            deadline=when(entry.waits[0].deadline),
            **values,
        )

    @staticmethod
    def _seat_name(entry: AgendaEntry, seat: int, lang: Lang) -> str:
        user_id = entry.game.seats[seat]
        if user_id < 0:
            return shown_name(user_id, entry.game.names[seat], lang)
        return who(user_id, lang)

    def _awaited(self, entry: AgendaEntry) -> str:
        """What the game waits for from the person, from its public view."""
        game = self.games.load(entry.game)
        return self.catalog.get(game.row.kind).present.awaited(game.view(None), entry.seat)
