"""What a tournament's posts say (cogs/tournament/present.py) and how /tournament new reads the game's
own options (cogs/tournament/commands.py), from hand-made snapshots: no bot, no database."""

from __future__ import annotations

from fractions import Fraction

import pytest

from bot.errors import BadInput, NoGameHere
from bot.events import scoring
from bot.events.tournaments import Entrant, Pairing, Snapshot, TournamentRow
from bot.i18n import ENGLISH, language
from cogs.tournament import present
from cogs.tournament.commands import game_options, pick

A, B, C, D, E = 11, 12, 13, 14, 15
NAMES = {A: "Alice", B: "Bob", C: "Carol", D: "Dave", E: "Erin"}


def row(status: str = "signup", players: tuple[int, ...] = (A, B, C, D), **kw: object) -> TournamentRow:
    fields: dict[str, object] = dict(
        id=7, guild_id=1, channel_id=2, host_id=A, kind="procession", format="round-robin", rounds=0,
        options={"n": 3}, table_size=2, timeout_s=3600, status=status, round=0, version=1,
        card_message_id=None, created_at=0.0, finished_at=None,
        entrants=tuple(Entrant(p, NAMES[p], i) for i, p in enumerate(players)),
    )  # fmt: skip
    fields.update(kw)
    return TournamentRow(**fields)  # type: ignore[arg-type]


def snap(tournament: TournamentRow, **kw: object) -> Snapshot:
    fields: dict[str, object] = dict(
        tournament=tournament, pairings=(), byes={}, standings=(), tie_break=scoring.SONNEBORN_BERGER
    )
    fields.update(kw)
    return Snapshot(**fields)  # type: ignore[arg-type]


def test_the_sign_up_card_says_the_format_schedule_and_players() -> None:
    text = present.card_text(snap(row()), ENGLISH)
    lines = text.split("\n")
    assert lines[0] == "🏆 **Procession tournament #7** · round robin"
    assert lines[1] == f"Sign-up: 4 players in (3 to 32 can play). Host: <@{A}>."
    assert lines[2] == (
        "Everyone plays everyone once: 3 rounds with the players in now; each move within 1 hour."
    )
    assert lines[3] == f"1. <@{A}> (host)" and lines[6] == f"4. <@{D}>"
    five = present.card_text(snap(row(players=(A, B, C, D, E))), ENGLISH)
    assert "5 rounds with the players in now" in five  # an odd count: a bye each round
    swiss = present.card_text(snap(row(format="swiss", rounds=4)), ENGLISH)
    assert "· Swiss" in swiss and "4 rounds, paired by score, never the same pair twice" in swiss
    running = present.card_text(snap(row("running", round=2, rounds=3)), ENGLISH)
    assert "Round 2 of 3 is being played.\nEveryone plays everyone once, over 3 rounds; each move" in running
    tables = present.card_text(snap(row(format="swiss", table_size=3, rounds=2)), ENGLISH)
    assert "2 rounds, at tables of 3 players, seated by score; each move within 1 hour." in tables
    assert "Rounds at tables of 4 players" in present.card_text(snap(row(table_size=4)), ENGLISH)
    labels = [b.label for b in present.card_controls(snap(row(players=(A, B))), ENGLISH)]  # type: ignore[attr-defined]
    assert labels == ["Join", "Leave", "Start", "Cancel"]
    start = present.card_controls(snap(row(players=(A, B))), ENGLISH)[2]
    assert start.disabled is True  # type: ignore[attr-defined]
    assert present.card_controls(snap(row()), ENGLISH)[2].disabled is False  # type: ignore[attr-defined]


def test_a_round_post_names_the_boards_and_the_bye() -> None:
    running = row("running", players=(A, B, C, D, E), round=2, rounds=5)
    pairings = (
        Pairing(2, 1, (A, C), 40, "live"),
        Pairing(2, 2, (D, B), 41, "live"),
        Pairing(1, 1, (A, B), 30, "done", (A,)),
        Pairing(2, 3, (C, E), None, "done", (C,), forfeit=True),
    )
    text = present.round_text(snap(running, pairings=pairings, byes={2: (E,)}), 2, ENGLISH)
    assert text.split("\n")[1:] == [
        "**Round 2 of 5** has begun:",
        f"Board 1: <@{A}> vs <@{C}> · game #40",
        f"Board 2: <@{D}> vs <@{B}> · game #41",
        f"A bye (a point without playing): <@{E}>.",
        f"A win without playing (the opponent withdrew): <@{C}>.",
        "Each game has its card here and is played in its own thread. Good luck!",
    ]
    german = present.round_text(snap(running, pairings=pairings, byes={2: (E,)}), 2, language("de"))
    assert f"Brett 1: <@{A}> gegen <@{C}> · Spiel #40" in german and "Spielfrei" in german


def test_the_final_post_and_the_standings_name_the_winners() -> None:
    over = row("finished", round=3, rounds=3, entrants=(
        Entrant(A, "Alice", 0), Entrant(B, "Bob", 1), Entrant(C, "Carol", 2, withdrawn=2),
    ))  # fmt: skip
    table = (
        scoring.Standing(1, B, Fraction(5, 2), Fraction(3), 0, False),
        scoring.Standing(2, A, Fraction(2), Fraction(2), 0, False),
        scoring.Standing(3, C, Fraction(1, 2), Fraction(0), 0, True),
    )
    final = snap(over, standings=table)
    assert f"🥇 The winner is <@{B}>, with a score of 2½!" in present.final_text(final, ENGLISH)
    assert "The tournament is over after 3 rounds." in present.final_text(final, ENGLISH)
    assert "~~" in present.card_text(final, ENGLISH) and "(withdrew in round 2)" in present.card_text(
        final, ENGLISH
    )
    shared = snap(over, standings=(table[0], scoring.Standing(1, A, Fraction(5, 2), Fraction(3), 0, False)))
    assert f"<@{B}> and <@{A}> share first place, with a score of 2½ each!" in present.final_text(
        shared, ENGLISH
    )
    drawn = present.standings_of(final, ENGLISH, you=A)
    assert [(r.rank, r.name, r.you, r.withdrawn) for r in drawn.rows] == [
        (1, "Bob", False, False), (2, "Alice", True, False), (3, "Carol", False, True),
    ]  # fmt: skip
    assert drawn.tie_break_name == "Sonneborn-Berger" and drawn.finished
    file = present.standings_file(final, ENGLISH)
    assert file.description is not None and file.description.startswith("Procession tournament #7")
    cancelled = present.card_text(snap(row("cancelled")), ENGLISH)
    assert cancelled.endswith("This tournament was cancelled.")
    assert present.card_controls(snap(row("cancelled")), ENGLISH) == []


def test_the_games_own_options_are_checked_against_the_chosen_game() -> None:
    assert game_options("procession", {"n": 3, "m": None, "size": None}) == {"n": 3}
    assert game_options("dots", {"n": None, "m": None, "size": 4}) == {"size": 4}
    assert game_options("updown", {"n": None, "m": None, "size": None}) == {}
    with pytest.raises(BadInput, match="has no option"):
        game_options("procession", {"size": 4})
    with pytest.raises(BadInput, match="runs from"):
        game_options("numbers", {"m": 12})  # Numbers To Number's m runs from 3 to 8


def test_a_command_without_a_number_finds_the_one_tournament_meant() -> None:
    with pytest.raises(NoGameHere):
        pick([], what="cancel")
    live, over = row(), row("finished", id=8)
    assert pick([over, live], what="cancel") is live
    with pytest.raises(BadInput, match="several tournaments"):
        pick([live, row(id=9)], what="cancel")
    assert pick([live, row(id=9)], what="standings") is live
