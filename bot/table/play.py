"""Playing a move: commit it with everything it owes the world, answer the player, then carry out.

The order is what makes a move safe, and each move reads in it, top to bottom: holding the game's
turn, the move is prepared (checked and applied by the rules: pure), what it owes the world is
planned from it (board, panels, refreshes: pure), and both are committed in one transaction; then
the player gets a first answer, and the outbox carries the effects out. A crash or an expired
interaction after the commit delays the announcements; it loses none.

The first answer depends on where the move came from:
- a control on the game's current board: that board's controls come off at once (Discord's
  "update message"); the new board follows in the channel;
- a private menu of a public game: that menu loses its controls and says the move is made (the
  caller's ``note``); the new board follows in the channel;
- any other public move (a slash command): the new board itself answers;
- a secret move: the player's own panel, privately (updated in place when the move came from it).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import enum
import logging
from dataclasses import dataclass

import discord

from bot.errors import MoveSaved
from bot.i18n.audience import Audiences, reader
from bot.players.seats import is_computer
from bot.rules.base import Action, M, S, TypedAction
from bot.service import Loaded, MoveResult, Moves
from bot.spec import V
from bot.table.boards import LATE_NOTE, Boards
from bot.table.catalog import Catalog, GameKind
from bot.table.effects import Announce, Card, OutboxEffect, Panel, Refresh
from bot.table.notify import Notify
from bot.table.outbox import Context, Mover, Outbox
from bot.table.panels import Panels
from bot.table.present import News, newly_waiting
from bot.table.replies import ANSWER_WITHIN, reply_private
from bot.table.shown import Shown

log = logging.getLogger(__name__)


class Source(enum.Enum):
    BOARD = "board"  # a control on the game's current board
    DM_PANEL = "dm panel"  # a control (or a form opened from one) on a DM panel
    PRIVATE = "private"  # a control (or form) on a private message in the channel
    COMMAND = "command"  # a slash command, or anything else in the channel
    TYPED = "typed"  # an answer typed in a DM
    CLOCK = "clock"  # the deadline (a timeout forfeit)
    COMPUTER = "computer"  # a computer player's move


def source_of(interaction: discord.Interaction, game: Loaded) -> Source:
    message = interaction.message
    from_message = interaction.type in (
        discord.InteractionType.component,
        discord.InteractionType.modal_submit,
    )
    if not from_message or message is None:
        return Source.COMMAND
    if interaction.guild_id is None:
        return Source.DM_PANEL
    if message.flags.ephemeral:
        return Source.PRIVATE
    if interaction.type == discord.InteractionType.component:
        # A public message whose move control names the game's current version (the router checked
        # it) is that version's board, whether or not the row names it yet: the outbox records a
        # board's id only after Discord answered its post, so a kill in between (or another process
        # posting it) leaves the row naming the board before, until the outbox takes the post up again.
        return Source.BOARD
    return Source.COMMAND


def owed(
    kind: GameKind[S, V, M],
    result: MoveResult,
    source: Source,
    *,
    token: str | None = None,
    note: str = "",
    notify: Notify | None = None,
) -> list[OutboxEffect]:
    """What a committed move owes the world, in the order it is to be done.

    After the board (``announce``), a game with secrets owes each DM panel that is to show something
    new one effect: ``panel`` (edited in place, or sent anew when it is gone or buried) for a player
    asked to act and for the mover of a typed answer (its note at the panel's top), ``refresh``
    (edited in place only) for a player whose own secrets changed (their hand, their pick) or who is
    no longer asked, and for the mover when the move came from elsewhere. A mover who used their DM
    panel has it updated by the interaction's own answer; a panel whose player's secrets did not
    change is left alone (what everyone sees is on the board). Players who chose to be told of
    their move by DM get it: with their panel (``nudge``), or as a ``nudge`` of its own.
    """
    after = result.after
    effects: list[OutboxEffect] = [Announce(after.row.version, token=token)]
    if not after.row.live:  # the end: the card shows the result and the final board
        effects.append(Card())
    mover = result.seat
    news = News(seat=mover, before=result.before.view(None), after=after.view(None))
    users = after.row.seats
    if kind.private is None:
        if notify is not None and after.row.live:
            before = result.before
            due = newly_waiting(before.rules.to_act(before.state), after.rules.to_act(after.state), mover)
            effects.extend(notify.nudges(due, users))
        return effects
    if not after.row.live:
        # The end: every DM panel takes its final form, without controls.
        for seat in range(len(users)):
            if seat == mover and source is Source.TYPED:
                effects.append(Panel(seat, note))
            elif seat != mover or source is not Source.DM_PANEL:
                effects.append(Refresh(seat))
        return _people_only(effects, users)
    if source is Source.TYPED:
        effects.append(Panel(mover, note))
    elif source is not Source.DM_PANEL:
        # A move made elsewhere also brings the DM panel up to date: it never offers a control for
        # a choice already made.
        effects.append(Refresh(mover))
    ask = kind.private.asked
    newly = (
        ask(news, kind.table(after)) if ask else newly_waiting(news.before.to_act, news.after.to_act, mover)
    )
    asked = set(newly) - {mover}
    if notify is not None:
        # Their move, with no new panel to bring the word (a panel that does not change with the
        # turn): a nudge of its own for those who want one.
        before = result.before
        due = newly_waiting(before.rules.to_act(before.state), after.rules.to_act(after.state), mover)
        effects.extend(notify.nudges([s for s in due if s not in asked], users))
    for seat in range(len(users)):
        if seat in asked:
            nudge = notify is not None and notify.dms(users[seat])
            effects.append(Panel(seat, nudge=nudge))
        elif seat != mover and _own_news(result, seat, turn_shown=kind.private.turn_shown):
            effects.append(Refresh(seat))
    return _people_only(effects, users)


def _people_only(effects: list[OutboxEffect], users: tuple[int, ...]) -> list[OutboxEffect]:
    """``effects`` without the DM panels of computer seats (a computer reads its view, no panel)."""
    return [e for e in effects if not isinstance(e, Panel | Refresh) or not is_computer(users[e.seat])]


def _own_news(result: MoveResult, seat: int, *, turn_shown: bool = True) -> bool:
    """Whether another player's move changed what ``seat`` alone sees (their hand, their pending
    pick, what they may do) or (when their panel shows it) whether they are to act: the parts of
    their view that differ from the public view, compared before and after the move."""
    before, after = result.before, result.after
    turn_passed = (seat in before.rules.to_act(before.state)) != (seat in after.rules.to_act(after.state))
    if turn_passed and turn_shown:
        return True
    return secrets_changed(before.view(seat), after.view(seat), before.view(None), after.view(None))


def secrets_changed(
    mine_before: object, mine_after: object, public_before: object, public_after: object
) -> bool:
    """Whether what one player alone sees changed between two of their views: a field that differs
    from the public view (before or after) and changed. (Views that are not dataclasses: any
    change.)"""
    if not dataclasses.is_dataclass(mine_after) or type(mine_before) is not type(mine_after):
        return bool(mine_before != mine_after)
    for f in dataclasses.fields(mine_after):
        was, now = getattr(mine_before, f.name), getattr(mine_after, f.name)
        private = was != getattr(public_before, f.name) or now != getattr(public_after, f.name)
        if private and was != now:
            return True
    return False


@dataclass(frozen=True)
class Plays:
    moves: Moves
    catalog: Catalog
    outbox: Outbox
    shown: Shown
    notify: Notify
    audiences: Audiences
    boards: Boards
    panels: Panels

    async def act(
        self,
        interaction: discord.Interaction,
        game: Loaded,
        action: TypedAction | Action,
        *,
        expected_version: int | None = None,
        note: str | None = None,
    ) -> None:
        """Apply a move by ``interaction.user`` (committed with its effects before any answer).
        ``note``: what a private menu that made a public move says once it is saved."""
        kind = self.catalog.get(game.row.kind)
        source = source_of(interaction, game)
        # A public move made by command is answered with the new board: its effect keeps the
        # interaction's token, to find that answer again after a restart.
        answered_with_board = kind.private is None and source not in (Source.BOARD, Source.PRIVATE)
        token = interaction.token if answered_with_board else None
        moves = self.moves
        async with moves.turn(game.id) as before:
            draft = moves.prepare(before, interaction.user.id, action, expected_version=expected_version)
            effects = owed(kind, draft, source, token=token, notify=self.notify)
            result = await moves.commit(draft, effects)
        # The effects wait in the outbox while the first answer goes out, so that a move made
        # meanwhile (Discord slow to take that answer) cannot post its board before this one.
        self.outbox.reserve(result.effects)
        contexts = self._contexts(kind, result, Mover(interaction))
        announce = result.effects[0]
        try:
            if kind.private is not None:
                await self._answer_privately(interaction, kind, result, source)
            elif source is Source.BOARD:
                await interaction.response.edit_message(view=None)
                if interaction.message is not None:
                    self.shown.bare(interaction.message.id)
            elif source is Source.PRIVATE:
                text = note or reader(interaction).t(LATE_NOTE)
                await interaction.response.edit_message(content=text, view=None)
            else:
                contexts[announce.id].interaction = interaction
        except discord.NotFound:
            log.info("The first answer to a move in game %s came too late (interaction expired)", game.id)
        except Exception as exc:
            raise MoveSaved(game.id) from exc
        finally:
            self.outbox.kick(result.effects, contexts)
        if contexts[announce.id].interaction is not None:
            await self._answer_with_board(interaction, contexts[announce.id], announce.id)

    async def act_typed(self, message: discord.Message, game: Loaded, action: TypedAction | Action) -> None:
        """Apply a typed DM answer; the answer is the player's updated panel, sent to that DM."""
        kind = self.catalog.get(game.row.kind)
        assert kind.private is not None
        private = kind.private

        lang = await self.audiences.user(message.author.id)  # the note tops their DM panel
        moves = self.moves
        async with moves.turn(game.id) as before:
            draft = moves.prepare(before, message.author.id, action)
            table = kind.table(draft.after).speaking(lang)
            note = private.confirm(self._news(kind, draft, draft.seat), table)
            effects = owed(kind, draft, Source.TYPED, note=note, notify=self.notify)
            result = await moves.commit(draft, effects)
        self.outbox.kick(result.effects, self._contexts(kind, result))

    async def act_computer(self, game: Loaded, seat: int, action: Action) -> bool:
        """A computer's move, checked against the version it was chosen for; it owes what a
        person's move owes (the board, the panels of the people now asked)."""
        kind = self.catalog.get(game.row.kind)
        moves = self.moves
        async with moves.turn(game.id) as before:
            draft = moves.prepare(before, game.row.seats[seat], action, expected_version=game.row.version)
            result = await moves.commit(draft, owed(kind, draft, Source.COMPUTER, notify=self.notify))
        self.outbox.kick(result.effects, self._contexts(kind, result))
        return True

    async def time_out(self, game_id: int, seat: int, *, now: float) -> bool:
        """The seat missed its deadline: it forfeits (unless it moved meanwhile). True if it did."""
        moves = self.moves
        async with moves.turn(game_id) as before:
            kind = self.catalog.get(before.row.kind)
            draft = await moves.timed_out(before, seat, now=now)
            if draft is None:
                return False
            result = await moves.commit(draft, owed(kind, draft, Source.CLOCK, notify=self.notify))
        self.outbox.kick(result.effects, self._contexts(kind, result))
        return True

    async def _answer_with_board(
        self, interaction: discord.Interaction, context: Context, item_id: int
    ) -> None:
        """Wait while the outbox answers ``interaction`` with the new board. Discord waits 3 s for
        a first answer: when the board is late (the game's earlier effects are still being retried),
        the interaction is deferred privately ("thinking"), the board is posted to the channel in its
        turn, and the private answer then says so."""
        finished = asyncio.ensure_future(self.outbox.wait_for(item_id))
        try:
            await asyncio.wait_for(asyncio.shield(finished), timeout=ANSWER_WITHIN)
        except TimeoutError:
            async with context.answering:
                if not interaction.response.is_done():
                    with contextlib.suppress(discord.HTTPException):
                        await interaction.response.defer(ephemeral=True, thinking=True)
            await finished
        if not context.answered and not (context.mover is not None and context.mover.told):
            # The board went to the channel without answering this interaction: another process
            # (sharing the database) carried it out, or this process's pass over pending effects
            # took it up between the commit and the hand-over to the outbox. Say so.
            async with context.answering:
                with contextlib.suppress(discord.HTTPException):
                    if interaction.response.is_done():
                        await interaction.edit_original_response(content=reader(interaction).t(LATE_NOTE))
                    else:
                        await interaction.response.send_message(
                            reader(interaction).t(LATE_NOTE), ephemeral=True
                        )

    # ---- helpers ----------------------------------------------------------------------------------

    @staticmethod
    def _news(kind: GameKind[S, V, M], result: MoveResult, seat: int | None) -> News[V]:
        return News(
            seat=result.seat,
            before=result.before.view(seat),
            after=result.after.view(seat),
            forfeit=result.forfeit,
        )

    @staticmethod
    def _contexts(
        kind: GameKind[S, V, M], result: MoveResult, mover: Mover | None = None
    ) -> dict[int, Context]:
        contexts: dict[int, Context] = {}
        for item in result.effects:
            announce = item.kind == Announce.kind
            contexts[item.id] = Context(mover=mover, result=result if announce else None)
        return contexts

    async def _answer_privately(
        self, interaction: discord.Interaction, kind: GameKind[S, V, M], result: MoveResult, source: Source
    ) -> None:
        """The mover's own panel with a word on the move: in place when they used a panel."""
        assert kind.private is not None
        lang = reader(interaction)
        note = kind.private.confirm(
            self._news(kind, result, result.seat), kind.table(result.after).speaking(lang)
        )
        payload = await self.panels.payload(result.after, result.seat, note, lang=lang)
        if source in (Source.DM_PANEL, Source.PRIVATE) and not interaction.response.is_done():
            await interaction.response.edit_message(**payload)
            return
        if payload.get("view") is None:
            payload.pop("view")
        await reply_private(interaction, payload.pop("content"), **payload)
