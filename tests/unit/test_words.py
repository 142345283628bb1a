"""Words people read: nobody is a "seat" (players are named by mention, or "player 2" where no name
is known), in any text of the Discord layer or the rules."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from bot.registry import GAMES, RULES_TEXT

ROOT = Path(__file__).resolve().parents[2]
# The code whose strings people read: the games' commands and presentation, the table machinery.
# The games' texts (commands, presentation, rules text) and the framework's; not their rules, players
# or renderers, whose strings are mostly keys and names in code.
GAME_TEXTS = ("commands.py", "present.py", "rules_text.py")
READ_BY_PEOPLE = [
    "cogs/game.py",
    *(f"cogs/{game}/{part}" for game in GAMES for part in GAME_TEXTS),
    "bot/table",
    "bot/errors.py",
    "bot/inputs.py",
]
KEYS = {"seat", "seats"}  # a string that is a field's name (``event["seat"]``) is not a text


def texts(path: Path) -> list[tuple[int, str]]:
    """The string literals of a module (f-strings' parts too), without its docstrings."""
    tree = ast.parse(path.read_text(), filename=str(path))
    docs = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
    ]


def test_no_text_people_read_says_seat() -> None:
    found = []
    for name in READ_BY_PEOPLE:
        base = ROOT / name
        for path in [base] if base.is_file() else sorted(base.rglob("*.py")):
            for line, text in texts(path):
                if text not in KEYS and re.search(r"seat", text, re.IGNORECASE):
                    found.append(f"{path.relative_to(ROOT)}:{line}: {text[:80]!r}")
    assert found == []


def test_no_rules_text_says_seat() -> None:
    for text in RULES_TEXT.values():
        assert "seat" not in text.body.lower(), text.title
