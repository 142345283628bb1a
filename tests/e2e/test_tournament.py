"""/tournament end to end, through the emulator, on both databases: round robins of 4 and 5 players
and a 6-player 3-round Swiss, played to the end through Discord (each game ends when its loser
forfeits with /game leave in the game's thread: the quickest end a game has). What the bot says is
checked against an independent count made here from the games as they were played: every pair meets
once in a round robin, each player has one bye when the count is odd, a Swiss never repeats a pair and
pairs within score groups (as few games across groups as any pairing of the round can have), the
standings' points, tie-breaks (Sonneborn-Berger, Buchholz), ranks and games left. A withdrawal
forfeits the right games; only the host, or someone with Manage Server, cancels.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction

import pytest

from bot.render.standings import figure
from tests.db import change, query
from tests.e2e.driver import assert_discord_accepted_all, bot_messages, private_reply
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness
from tests.emulator.models import MessageRecord, Perm
from tests.emulator.world import Channel, Scene, User


@pytest.fixture(autouse=True)
def _discord_accepted_all(emu: DiscordEmulator) -> Iterator[None]:
    """After each test: Discord would have accepted every request, each payload fits its schema."""
    yield
    assert_discord_accepted_all(emu)


pytestmark = [pytest.mark.threads, pytest.mark.both_dbs]

PAIR = re.compile(r"Board (\d+): <@(\d+)> vs <@(\d+)> · game #(\d+)")
BYES = re.compile(r"(?:A bye|Byes) \([^)]*\): (.*)\.$", re.M)
LINE = re.compile(
    r"(\d+)\. (\w+)( \(withdrawn\))?: score ([^,]+), (Sonneborn-Berger|Buchholz) ([^,.]+)"
    r"(?:, (\d+) games? left)?\."
)
ZERO = Fraction(0)
CANCEL = -1  # (a loser's stand-in: the game is cancelled by a moderator)


# ---- the independent count ------------------------------------------------------------------------


@dataclass(frozen=True)
class Game:
    players: tuple[int, int]
    winner: int | None  # None: both lost
    played: bool = True  # False: credited without play (a withdrawn player's game to come)


@dataclass
class Count:
    """The tournament as it was played, and its standings by the issue's rules: a win 1, a bye 1;
    Sonneborn-Berger over played games; Buchholz over every game, an unplayed one (a bye, a game
    credited) counting as an opponent with the player's own points."""

    players: list[int]
    games: list[Game] = field(default_factory=list)
    byes: list[int] = field(default_factory=list)
    withdrawn: set[int] = field(default_factory=set)

    def points(self) -> dict[int, Fraction]:
        total = {p: ZERO for p in self.players}
        for game in self.games:
            if game.winner is not None:
                total[game.winner] += 1
        for p in self.byes:
            total[p] += 1
        return total

    def tie_breaks(self, kind: str) -> dict[int, Fraction]:
        final = self.points()
        tie = {p: ZERO for p in self.players}
        for game in self.games:
            for p, q in (game.players, game.players[::-1]):
                if kind == "Sonneborn-Berger":
                    tie[p] += final[q] if game.played and game.winner == p else 0
                else:
                    tie[p] += final[q] if game.played else final[p]
        if kind == "Buchholz":
            for p in self.byes:
                tie[p] += final[p]
        return tie

    def table(self, kind: str, names: dict[int, str]) -> list[str]:
        """The standings as the alt text says them, one line a player."""
        final, tie = self.points(), self.tie_breaks(kind)
        order = sorted(self.players, key=lambda p: (-final[p], -tie[p]))
        lines, rank, last = [], 0, None
        for place, p in enumerate(order, start=1):
            if (final[p], tie[p]) != last:
                rank, last = place, (final[p], tie[p])
            if p in self.withdrawn:
                lines.append(
                    f"{rank}. {names[p]} (withdrawn): score {figure(final[p])}, {kind} {figure(tie[p])}."
                )
            else:
                lines.append(
                    f"{rank}. {names[p]}: score {figure(final[p])}, {kind} {figure(tie[p])}, 0 games left."
                )
        return lines

    def met(self) -> set[frozenset[int]]:
        return {frozenset(g.players) for g in self.games}


# ---- through Discord ------------------------------------------------------------------------------


@dataclass
class Field:
    emu: DiscordEmulator
    scene: Scene
    db: str
    users: dict[int, User]

    @property
    def channel(self) -> Channel:
        return self.scene.channel

    def name(self, user_id: int) -> str:
        return self.users[user_id].global_name or self.users[user_id].name


def people(emu: DiscordEmulator, scene: Scene, count: int) -> list[User]:
    extra = [emu.add_user(n, guilds=[scene.guild]) for n in ("erin", "frank")]
    return [scene.alice, scene.bob, scene.carol, scene.dave, *extra][:count]


def card_of(f: Field, tournament_id: int) -> MessageRecord:
    mark = f":{tournament_id}:-:tour_"
    cards = [m for m in bot_messages(f.emu, f.channel) if any(mark in str(v.components) for v in m.versions)]
    assert cards, f"no card of tournament #{tournament_id}"
    return cards[0]


async def click(f: Field, user: User, tournament_id: int, verb: str) -> str:
    """A click on the tournament's card; the private refusal's text, or "" when it was answered by
    editing the card."""
    card = card_of(f, tournament_id)
    rec = await f.emu.click(user, card, f"q:{tournament_id}:-:tour_{verb}")
    response = await rec.response()
    await f.emu.wait_idle()
    return rec.ephemeral_texts()[-1] if response.ephemeral or rec.ephemeral_texts() else ""


async def open_tournament(f: Field, host: User, others: Iterable[User], **options: object) -> int:
    rec = await f.emu.slash(host, f.channel, "tournament new", game="procession", n=3, **options)
    await rec.response()
    (card,) = rec.messages
    tournament_id = int(card.custom_ids[0].split(":")[1])
    for user in others:
        assert await click(f, user, tournament_id, "join") == ""
    return tournament_id


def round_post(f: Field, tournament_id: int, number: int) -> MessageRecord | None:
    marks = (f"tournament #{tournament_id}**", f"**Round {number} of")
    return next((m for m in bot_messages(f.emu, f.channel) if all(s in m.content for s in marks)), None)


async def play_round(
    f: Field, tournament_id: int, number: int, count: Count, loser: Callable[[int, int], int | None]
) -> list[tuple[int, int]]:
    """Round ``number``: its post read, each game ended by its loser's /game leave in its thread; the
    games and byes added to ``count``. Returns the round's pairs."""
    post = await f.emu.wait_until(lambda: round_post(f, tournament_id, number), 15, f"round {number}")
    pairs = [(int(a), int(b), int(g)) for _, a, b, g in PAIR.findall(post.content)]
    byes = BYES.search(post.content)
    count.byes += [int(u) for u in re.findall(r"<@(\d+)>", byes.group(1))] if byes else []
    for _, _, game_id in pairs:
        await f.emu.wait_until(lambda g=game_id: thread_of(f, g), 10, f"game #{game_id}'s thread")
    for a, b, game_id in pairs:
        out = loser(a, b)
        if out is None:
            continue  # left live (a withdrawal ends it)
        if out == CANCEL:  # a moderator cancels it: lost by both
            rec = await f.emu.slash(f.scene.mod, thread_of(f, game_id), "game cancel")
            await rec.response()
            assert "was cancelled by" in "\n".join(rec.texts()), rec.texts()
            count.games.append(Game((a, b), None))
            continue
        rec = await f.emu.slash(f.users[out], thread_of(f, game_id), "game leave")
        await rec.response()
        count.games.append(Game((a, b), b if out == a else a))
    await f.emu.wait_idle()
    return [(a, b) for a, b, _ in pairs]


def thread_of(f: Field, game_id: int) -> Channel | None:
    rows = query(f.db, "SELECT place_id, channel_id FROM games WHERE id = ?", (game_id,))
    if not rows or rows[0][0] == rows[0][1]:
        return None
    return f.emu.channels.get(int(rows[0][0]))


async def standings_said(f: Field, user: User, tournament_id: int) -> list[str]:
    """/tournament standings: its image's alt text, one line a player."""
    rec = await f.emu.slash(user, f.channel, "tournament standings", tournament_id=tournament_id)
    await private_reply(rec)
    (attachment,) = [a for m in rec.messages for a in m.attachments]
    assert attachment.data.startswith(b"\x89PNG") and attachment.description
    return [m.group(0) for m in LINE.finditer(attachment.description)]


async def final_post(f: Field, tournament_id: int) -> MessageRecord:
    def found() -> MessageRecord | None:
        marks = (f"tournament #{tournament_id}**", "is over after")
        return next((m for m in bot_messages(f.emu, f.channel) if all(s in m.content for s in marks)), None)

    return await f.emu.wait_until(found, 15, "the final post")


def stronger(order: list[int]) -> Callable[[int, int], int]:
    """The loser of a game: the player later in ``order``."""
    return lambda a, b: a if order.index(a) > order.index(b) else b


def field_of(harness: BotHarness, scene: Scene, db: str, players: list[User]) -> Field:
    emu = harness.emulator
    admin = emu.add_user("admin", guilds=[scene.guild], permissions=int(Perm.MANAGE_GUILD))
    users = {u.id: u for u in (*players, scene.mod, admin)}
    return Field(emu, scene, db, users)


# ---- the tests ------------------------------------------------------------------------------------


async def test_a_round_robin_of_four_played_to_the_end_and_who_may_cancel(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness, bot_db: str
) -> None:
    players = people(emu, scene, 4)
    f = field_of(bot_harness, scene, bot_db, players)
    alice, bob, carol = players[:3]
    # What /tournament new refuses, privately: rounds for a round robin, an option of another game.
    wrong = await emu.slash(
        alice, f.channel, "tournament new", game="procession", format="round-robin", rounds=3
    )
    assert "leave rounds out, or choose swiss" in await private_reply(wrong)
    wrong = await emu.slash(alice, f.channel, "tournament new", game="numbers", format="swiss", size=4)
    assert "Numbers To Number has no option `size`" in await private_reply(wrong)
    tid = await open_tournament(f, alice, players[1:], format="round-robin", timeout="1h")
    early = await emu.slash(bob, f.channel, "tournament standings")
    assert "It has not started yet" in await private_reply(early)
    card = card_of(f, tid)
    assert "4 players in" in card.content and "3 rounds" in card.content
    # Only the host starts; only the host or Manage Server cancels (Manage Messages is not enough).
    assert "host" in await click(f, bob, tid, "start")
    assert "host" in await click(f, carol, tid, "cancel")
    refused = await emu.slash(scene.mod, f.channel, "tournament cancel")
    assert "host" in await private_reply(refused)
    assert await click(f, alice, tid, "start") == ""
    # /game mine lists a tournament's games like any other.
    first = await emu.wait_until(lambda: round_post(f, tid, 1), 15, "round 1")
    (game_id,) = [int(g) for _, x, y, g in PAIR.findall(first.content) if str(alice.id) in (x, y)]
    await emu.wait_until(lambda: thread_of(f, game_id), 10, "her game's thread")
    assert f"**Procession** game #{game_id}" in await private_reply(
        await emu.slash(alice, f.channel, "game mine")
    )

    count = Count([u.id for u in players])
    order = [u.id for u in (carol, alice, players[3], bob)]  # Carol beats everyone, Bob no one
    beaten = stronger(order)
    for number in (1, 2, 3):
        # In round 2, the game Carol is not in is cancelled by a moderator: lost by both.
        def loser(a: int, b: int, cancel: bool = number == 2) -> int:
            return CANCEL if cancel and carol.id not in (a, b) else beaten(a, b)

        await emu.wait_until(
            lambda n=number: f"Round {n} of 3 is being played." in card_of(f, tid).content, 10, "the card"
        )
        await play_round(f, tid, number, count, loser)
    assert len(count.games) == 6 and len(count.met()) == 6 and not count.byes  # every pair once
    post = await final_post(f, tid)
    assert f"The winner is <@{carol.id}>, with a score of 3!" in post.content
    assert post.attachments and post.attachments[0].description
    names = {u.id: f.name(u.id) for u in players}
    assert await standings_said(f, bob, tid) == count.table("Sonneborn-Berger", names)

    # A second one, running: the admin (Manage Server) cancels it, and its live games with it.
    other = await open_tournament(f, bob, players[2:], format="round-robin")
    await click(f, bob, other, "start")
    await emu.wait_until(lambda: round_post(f, other, 1), 15, "the second tournament's round")
    live = query(bot_db, "SELECT COUNT(*) FROM games WHERE status = 'active'")[0][0]
    assert live == 1  # three players: one game and a bye
    admin = next(u for u in f.users.values() if u.name == "admin")
    cancelled = await emu.slash(admin, f.channel, "tournament cancel", tournament_id=other)
    await cancelled.response()
    assert "was cancelled by" in "\n".join(cancelled.texts())
    await emu.wait_idle()
    assert query(bot_db, "SELECT COUNT(*) FROM games WHERE status = 'active'")[0][0] == 0
    assert "cancelled" in card_of(f, other).content
    # And a host cancels their own sign-up with the card's Cancel.
    third = await open_tournament(f, carol, [], format="swiss")
    assert await click(f, carol, third, "cancel") == ""
    assert card_of(f, third).content.endswith("This tournament was cancelled.")
    assert card_of(f, third).custom_ids == []
    # The first one's card followed it to its end: the winner named, the Standings button kept.
    await emu.wait_until(lambda: "The winner is" in card_of(f, tid).content, 10, "the card's end")
    assert card_of(f, tid).custom_ids == [f"q:{tid}:-:tour_table"]


async def test_a_round_robin_of_five_with_a_withdrawal(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness, bot_db: str
) -> None:
    players = people(emu, scene, 5)
    f = field_of(bot_harness, scene, bot_db, players)
    erin = players[4]
    tid = await open_tournament(f, players[0], players[1:], format="round-robin")
    assert "5 players in" in card_of(f, tid).content and "5 rounds" in card_of(f, tid).content
    await click(f, players[0], tid, "start")
    count = Count([u.id for u in players])
    order = [u.id for u in players]  # the earlier in the list wins
    met: list[tuple[int, int]] = []
    met += await play_round(f, tid, 1, count, stronger(order))

    # Round 2: Erin withdraws while her game is live (when she has a bye, the round after).
    number = 2
    while True:
        post = await emu.wait_until(lambda n=number: round_post(f, tid, n), 15, f"round {number}")
        if f"<@{erin.id}> vs" in post.content or f"vs <@{erin.id}>" in post.content:
            break
        met += await play_round(f, tid, number, count, stronger(order))
        number += 1
    keep = stronger(order)
    met += await play_round(f, tid, number, count, lambda a, b: None if erin.id in (a, b) else keep(a, b))
    said = await private_reply(await emu.slash(erin, f.channel, "tournament leave"))
    assert f"You withdrew from tournament #{tid}" in said
    await emu.wait_idle()
    (live,) = [(a, b) for a, b in met[-2:] if erin.id in (a, b)]
    count.games.append(Game(live, live[0] if live[1] == erin.id else live[1]))
    count.withdrawn.add(erin.id)
    struck = f"~~<@{erin.id}>~~ (withdrew in round {number})"
    await emu.wait_until(lambda: struck in card_of(f, tid).content, 10, "the card marking her withdrawn")
    # Her games to come are credited to their opponents, unplayed; the later rounds skip her.
    ids = [u.id for u in players]
    for later in range(number + 1, 6):
        met += await play_round(f, tid, later, count, stronger(order))
    unplayed = {frozenset(p) for p in itertools.combinations(ids, 2)} - {frozenset(m) for m in met}
    assert unplayed and all(erin.id in pair for pair in unplayed)
    for pair in unplayed:
        a, b = sorted(pair)
        count.games.append(Game((a, b), b if a == erin.id else a, played=False))
    assert len({frozenset(m) for m in met}) == len(met)  # never the same pair twice
    # The round posts after her withdrawal name those credited with her games.
    credited = []
    for later in range(number + 1, 6):
        said = round_post(f, tid, later)
        assert said is not None
        found = re.search(r"without playing \([^)]*\): (.*)\.$", said.content, re.M)
        credited += re.findall(r"<@(\d+)>", found.group(1)) if found else []
    assert sorted(int(c) for c in credited) == sorted(next(iter(pair - {erin.id})) for pair in unplayed)
    # One bye each (Erin's too, unless it was to come after she withdrew).
    assert len(count.byes) == len(set(count.byes)) and set(ids[:4]) <= set(count.byes)
    played = "SELECT g.status FROM games g JOIN seats s ON s.game_id = g.id WHERE s.user_id = ?"
    assert {status for (status,) in query(bot_db, played, (erin.id,))} == {"finished"}  # her live one too
    await final_post(f, tid)
    names = {u.id: f.name(u.id) for u in players}
    assert await standings_said(f, players[1], tid) == count.table("Sonneborn-Berger", names)


def fewest_floats(players: list[int], scores: dict[int, Fraction], met: set[frozenset[int]]) -> int:
    """The fewest games between different scores of any pairing of ``players`` without a repeat."""
    best = len(players)

    def search(left: list[int], floats: int) -> None:
        nonlocal best
        if floats >= best:
            return
        if not left:
            best = floats
            return
        p, rest = left[0], left[1:]
        for q in rest:
            if frozenset((p, q)) not in met:
                search([r for r in rest if r != q], floats + (scores[p] != scores[q]))

    search(players, 0)
    return best


async def test_a_swiss_of_six_over_three_rounds(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness, bot_db: str
) -> None:
    players = people(emu, scene, 6)
    f = field_of(bot_harness, scene, bot_db, players)
    joined = [players[2], *(p for p in players if p is not players[2])]
    tid = await open_tournament(f, joined[0], joined[1:], format="swiss", rounds=3)
    assert "3 rounds" in card_of(f, tid).content
    await click(f, joined[0], tid, "start")
    count = Count([u.id for u in joined])  # (equals on both rank in seeding order: join order here)
    order = [u.id for u in (players[3], players[0], players[5], players[1], players[4], players[2])]
    met: set[frozenset[int]] = set()
    for number in (1, 2, 3):
        scores = count.points()
        pairs = await play_round(f, tid, number, count, stronger(order))
        assert len(pairs) == 3 and not count.byes
        assert not met & {frozenset(p) for p in pairs}  # never the same pair twice
        floats = sum(scores[a] != scores[b] for a, b in pairs)
        assert floats == fewest_floats(count.players, scores, met)  # within score groups
        met |= {frozenset(p) for p in pairs}
        if number == 1:  # a restart between rounds: the tournament and its card's buttons go on
            await bot_harness.restart()
            shown = await click(f, players[4], tid, "table")
            assert "Procession tournament" in shown
    post = await final_post(f, tid)
    assert f"<@{order[0]}>" in post.content
    names = {u.id: f.name(u.id) for u in players}
    assert await standings_said(f, players[0], tid) == count.table("Buchholz", names)
    # In a game's thread, /tournament standings without a number means that game's tournament.
    (first_game,) = query(bot_db, "SELECT MIN(id) FROM games")[0]
    there = await emu.slash(players[1], thread_of(f, first_game), "tournament standings")
    assert f"tournament #{tid}**" in await private_reply(there)


async def test_a_tournament_speaks_its_servers_language_and_each_readers(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness, bot_db: str
) -> None:
    """A German server: the card, the round posts and the final post in German; a Russian player's
    standings in Russian. (A round robin of three: one game and a bye a round.)"""
    emu.set_locale(scene.guild, "de")
    emu.set_locale(scene.alice, "ru")
    players = people(emu, scene, 3)
    f = field_of(bot_harness, scene, bot_db, players)
    tid = await open_tournament(f, players[0], players[1:], format="round-robin")
    card = card_of(f, tid)
    assert card.content.startswith(f"🏆 **Turnier #{tid}: Procession** · Rundenturnier")
    assert "Anmeldung: 3 Spieler dabei (3 bis 32 können mitspielen)" in card.content
    assert "Jeder gegen jeden, einmal: 3 Runden mit den jetzigen Spielern" in card.content
    await click(f, players[0], tid, "start")
    beaten = stronger([u.id for u in (players[1], players[2], players[0])])
    for number in (1, 2, 3):
        marks = (f"Turnier #{tid}: Procession**", f"**Runde {number} von 3** hat begonnen:")

        def post(marks: tuple[str, str] = marks) -> MessageRecord | None:
            return next((m for m in bot_messages(emu, f.channel) if all(s in m.content for s in marks)), None)

        said = await emu.wait_until(post, 15, f"Runde {number}")
        assert "Spielfrei (ein Punkt ohne Partie): <@" in said.content
        ((_, a, b, game_id),) = re.findall(
            r"Brett (\d+): <@(\d+)> gegen <@(\d+)> · Spiel #(\d+)", said.content
        )
        await emu.wait_until(lambda g=int(game_id): thread_of(f, g), 10, "the game's thread")
        loser = beaten(int(a), int(b))
        await (await emu.slash(f.users[loser], thread_of(f, int(game_id)), "game leave")).response()
        await emu.wait_idle()

    def final() -> MessageRecord | None:
        return next((m for m in bot_messages(emu, f.channel) if "nach 3 Runden beendet" in m.content), None)

    said = await emu.wait_until(final, 15, "the final post")
    assert f"🥇 Es gewinnt <@{players[1].id}>, mit 3 Punkten!" in said.content
    assert said.attachments[0].description.startswith(f"Turnier #{tid}: Procession: Rundenturnier")
    rec = await emu.slash(players[0], f.channel, "tournament standings")
    assert (await private_reply(rec)).startswith(f"🏆 **Турнир #{tid} по Procession** · круговой турнир")
    (shown,) = [a for m in rec.messages for a in m.attachments]
    assert f"1. {f.name(players[1].id)}: очков 3, Sonneborn-Berger 3, " in (shown.description or "")


async def test_a_card_answered_just_before_a_crash_is_found_again_not_posted_twice(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness, bot_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The process answers /tournament new with the card and dies before recording its id: the desk,
    past the card's grace, finds that answer again through the command's token and makes it the card
    (up to date, its buttons working) instead of posting a second one."""
    bot = bot_harness.bot
    f = field_of(bot_harness, scene, bot_db, people(emu, scene, 3))

    async def died(tournament_id: int, message_id: int) -> None:  # (the id is never recorded)
        return None

    monkeypatch.setattr(bot.tournaments, "set_card", died)
    rec = await emu.slash(scene.alice, f.channel, "tournament new", game="procession", format="swiss", n=3)
    await rec.response()
    (answer,) = rec.messages
    tournament_id = int(answer.custom_ids[0].split(":")[1])
    assert query(bot_db, "SELECT card_message_id FROM tournaments WHERE id = ?", (tournament_id,)) == [
        (None,)
    ]
    monkeypatch.undo()
    # A minute on (the card's grace), the desk's pass: the answer is the card.
    await change(
        bot_db, "UPDATE tournaments SET created_at = created_at - 120 WHERE id = ?", (tournament_id,)
    )
    await change(
        bot_db, "UPDATE tournament_posts SET not_before = 0 WHERE tournament_id = ?", (tournament_id,)
    )
    bot.tournament_desk.poke()
    await emu.wait_until(
        lambda: (
            query(bot_db, "SELECT card_message_id FROM tournaments WHERE id = ?", (tournament_id,))
            == [(answer.id,)]
        ),
        10,
        "the answer recorded as the card",
    )
    await emu.wait_idle()
    mark = f":{tournament_id}:-:tour_"
    cards = [m for m in bot_messages(emu, f.channel) if any(mark in str(v.components) for v in m.versions)]
    assert [m.id for m in cards] == [answer.id]  # one card: the command's answer
    assert await click(f, scene.bob, tournament_id, "join") == ""  # its buttons work, and it follows
    assert f"<@{scene.bob.id}>" in card_of(f, tournament_id).content
