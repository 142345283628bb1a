"""The games this bot hosts: each kind's pure rules and its presenters, found by name."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeAlias

from bot.analysis import Analyser, unknown_review
from bot.errors import NoGameHere
from bot.i18n import ENGLISH, Lang
from bot.rules.base import GameRules, M, S
from bot.service import Loaded
from bot.spec import GameSpec, Player, V
from bot.table.present import Presenter, PrivatePresenter, TableInfo


@dataclass(frozen=True)
class GameKind(Generic[S, V, M]):
    """One hosted game, generic in its state, view and move, as the table uses its spec."""

    rules: GameRules[S, V, M]  # the game's rules module (cogs/<name>/rules.py), checked by the registry
    name: str  # the rules' NAME (its commands' group, its key in the catalog)
    title: str  # the rules' TITLE
    present: Presenter[V]
    private: PrivatePresenter[V] | None = None  # games with secrets only
    player: Player | None = None
    rules_body: str = ""  # the rules text's msgid (see `rules_text`)
    ranked_by_score: bool = False
    analyse: Analyser = unknown_review  # the analyser of a finished game (`bot.analysis`)

    @classmethod
    def of(cls, spec: GameSpec[S, V, M]) -> GameKind[S, V, M]:
        """What the table uses of a game's spec."""
        return cls(
            rules=spec.rules,
            name=spec.name,
            title=spec.title,
            present=spec.present,
            private=spec.private,
            player=spec.player,
            rules_body=spec.rules_text.body,
            ranked_by_score=spec.ranked_by_score,
            analyse=spec.analyse,
        )

    def rules_text(self, lang: Lang = ENGLISH) -> str:
        """The rules as /game rules and the Rules button give them, in ``lang``."""
        return lang.t(self.rules_body)

    @property
    def secret(self) -> bool:
        return self.private is not None

    def table(self, game: Loaded, state: S | None = None, *, version: int | None = None) -> TableInfo:
        """The public facts about ``game`` at ``state`` (default: its current state)."""
        if state is None and version is None:
            return game.derived("table", lambda: self._table(game, game.state, game.row.version))
        return self._table(game, state, version)

    def _table(self, game: Loaded, state: S | None, version: int | None) -> TableInfo:
        row = game.row
        state = game.state if state is None else state
        at = row.version if version is None else version
        waiting: tuple[int, ...] = ()
        outcome = None
        if state is not None:
            outcome = self.rules.outcome(state)
            if row.live or at != row.version:
                waiting = tuple(sorted(self.rules.to_act(state)))
        status = row.status
        if at != row.version:
            status = "finished" if outcome is not None else "active"
        return TableInfo(
            game_id=row.id,
            kind=row.kind,
            title=self.title,
            version=at,
            current=at == row.version,
            status=status,
            seats=row.seats,
            names=row.names,
            options=dict(row.options),
            timeout_s=row.timeout_s,
            waiting=waiting,
            outcome=outcome,
            hints=row.hints,
        )


# A kind among all the hosted ones: one game's state, view and move are not another's, and a
# collection of every game cannot name them (Python has no "some S" type), so they are left open
# here, where the games are looked up by name, and nowhere else.
SomeKind: TypeAlias = GameKind[Any, Any, Any]


class Catalog:
    def __init__(self) -> None:
        self._kinds: dict[str, SomeKind] = {}

    def add(self, kind: SomeKind) -> None:
        self._kinds[kind.name] = kind

    def get(self, name: str) -> SomeKind:
        kind = self._kinds.get(name)
        if kind is None:
            raise NoGameHere("This bot does not host {name} games.", name=repr(name))
        return kind

    def __iter__(self) -> Iterator[SomeKind]:
        return iter(self._kinds.values())

    def __contains__(self, name: object) -> bool:
        return name in self._kinds
