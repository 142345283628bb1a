"""A forgotten person (`/game privacy delete`) is named "Deleted player" in each reader's language
everywhere a name is shown, never by the English marker the rows keep (`DELETED_NAME`): one rule,
from the seat's id (`bot.present`). Checked on a table (its names, its mentions, a re-spoken copy),
a board's alt text, a replay's words, an analysis' table and a tournament's posts."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from bot.analysis import MoveReview, Review
from bot.events import scoring
from bot.events.tournaments import Entrant
from bot.i18n import ENGLISH, Lang, language
from bot.memory.replay import GameLog, rebuild, summary, transcript
from bot.players.seats import DELETED_FIRST, DELETED_LAST, computer_id, is_deleted
from bot.present import TableInfo, shown_name, who
from bot.registry import GAMES, RULES
from bot.rules import play
from bot.storage import GameRow
from bot.storage import privacy as stored
from bot.table import analysis
from bot.table import privacy as desk
from bot.table.catalog import GameKind
from cogs.tournament import present as tournament
from tests.unit.test_tournament_present import row, snap

GONE = DELETED_FIRST + 4  # a forgotten person's placeholder
ANN = 1_111_111_111_111_111_111
DE, FR = language("de"), language("fr")
GERMAN, FRENCH = "Gelöschter Spieler", "Joueur supprimé"
MARKER = stored.DELETED_NAME


def finished_procession() -> tuple[GameLog, Any]:
    """A short Procession game played to its end by its first legal moves, Ann against the forgotten."""
    rules = RULES["procession"]
    state = rules.new_game(2, {"n": 6}, 3)
    moves = []
    while rules.outcome(state) is None:
        seat = min(rules.to_act(state))
        action = dict(rules.legal_actions(state, seat)[0])
        state = play(rules, state, seat, action)
        moves.append((seat, action))
    log = GameLog(
        game_id=9, kind="procession", title=rules.TITLE, options={"n": 6}, seed=3,
        seats=(ANN, GONE), names=("Ann", MARKER), moves=tuple(moves),
    )  # fmt: skip
    return log, state


def table(lang: Lang = ENGLISH) -> TableInfo:
    log, state = finished_procession()
    rules = RULES["procession"]
    return TableInfo(
        game_id=9, kind="procession", title=rules.TITLE, version=len(log.moves), current=True,
        status="finished", seats=log.seats, names=log.names, options={"n": 6}, timeout_s=600,
        waiting=(), outcome=rules.outcome(state), lang=lang,
    )  # fmt: skip


def test_the_placeholders_and_the_one_rule() -> None:
    assert is_deleted(DELETED_FIRST) and is_deleted(DELETED_LAST) and is_deleted(GONE)
    assert not is_deleted(DELETED_LAST + 1) and not is_deleted(ANN) and not is_deleted(computer_id("hard", 1))
    assert stored.is_deleted is is_deleted  # (still importable from the storage)
    assert shown_name(GONE, MARKER, DE) == GERMAN and shown_name(GONE, MARKER, ENGLISH) == MARKER
    assert shown_name(ANN, "Ann", DE) == "Ann"
    assert who(GONE, FR) == FRENCH and who(ANN, FR) == f"<@{ANN}>"
    assert desk.shown_name is shown_name and desk.who is who  # (the desk's names are the same rule)


def test_a_table_names_a_forgotten_seat_in_its_language_even_re_spoken() -> None:
    german = table(DE)
    assert german.names == ("Ann", GERMAN) and german.who(1) == GERMAN and german.who(0) == f"<@{ANN}>"
    assert table().names == ("Ann", MARKER)  # English is the marker's own words
    assert german.speaking(FR).names == ("Ann", FRENCH)
    assert german.speaking(FR).speaking(ENGLISH).names == ("Ann", "Deleted player")
    alt = GAMES["procession"].present.alt_text(
        RULES["procession"].view_for(finished_procession()[1], None), german
    )
    assert GERMAN in alt and MARKER not in alt, alt


def test_a_replay_and_an_analysis_name_them_in_the_readers_language() -> None:
    log, _ = finished_procession()
    replay = rebuild(log, RULES["procession"], DE)
    assert replay.table.names == ("Ann", GERMAN)
    words = transcript(replay, GAMES["procession"].present) + summary(replay)
    assert GERMAN in words and MARKER not in words, words
    assert rebuild(log, RULES["procession"], FR).table.speaking(DE).names[1] == GERMAN

    game = GameRow(
        id=9, kind="procession", guild_id=1, channel_id=2, status="finished", host_id=ANN, options={"n": 6},
        seed=3, state=None, result=None, version=len(log.moves), lobby_message_id=None, board_message_id=None,
        created_at=0.0, updated_at=0.0, timeout_s=600, seats=log.seats, names=log.names,
    )  # fmt: skip
    moves = tuple(
        MoveReview(i, seat, dict(action), "unknown") for i, (seat, action) in enumerate(log.moves, 1)
    )
    answer = analysis.build(game, GameKind.of(GAMES["procession"]), Review("procession", "win", moves), FR)
    assert FRENCH in answer.text and FRENCH in answer.alt and MARKER not in answer.text + answer.alt


def test_a_tournament_names_a_forgotten_entrant_in_the_servers_language() -> None:
    over = row(
        "finished",
        round=1,
        rounds=1,
        host_id=GONE,
        entrants=(Entrant(GONE, MARKER, 0), Entrant(ANN, "Ann", 1)),
    )
    standings = (
        scoring.Standing(1, GONE, Fraction(1), Fraction(0), 0, False),
        scoring.Standing(2, ANN, Fraction(0), Fraction(0), 0, False),
    )
    final = snap(over, standings=standings)
    said = tournament.final_text(final, DE) + tournament.card_text(final, DE)
    assert GERMAN in said and str(GONE) not in said and MARKER not in said, said
    drawn = tournament.standings_of(final, DE)
    assert [r.name for r in drawn.rows] == [GERMAN, "Ann"]
