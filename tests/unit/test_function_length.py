"""No function in bot/ or cogs/ is longer than a reader can hold: 80 lines at most.

Read from the source with `ast` (nothing is imported). A function's length runs from its `def` line to
its last line (decorators excluded; docstrings and comments count, since a reader reads them). Every
function counts, sync or async, methods and nested functions on their own (a nested function's lines
also count towards the function around it).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("bot", "cogs")
LIMIT = 80


def sources() -> Iterator[Path]:
    """Every Python file of the packages, in a stable order."""
    for package in PACKAGES:
        yield from sorted((ROOT / package).rglob("*.py"))


def lengths(path: Path) -> Iterator[tuple[str, int, int]]:
    """(name, line of the `def`, length in lines) for every function of one file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            end = node.end_lineno if node.end_lineno is not None else node.lineno
            yield node.name, node.lineno, end - node.lineno + 1


def offenders() -> list[str]:
    """One line per function over the limit: path:line name length, longest first."""
    found: list[tuple[int, str]] = []
    for path in sources():
        relative = path.relative_to(ROOT)
        for name, line, length in lengths(path):
            if length > LIMIT:
                found.append((length, f"{relative}:{line} {name} ({length} lines)"))
    return [text for _, text in sorted(found, key=lambda item: -item[0])]


def test_sources_are_found() -> None:
    assert any(True for _ in sources())


def test_no_function_over_the_limit() -> None:
    found = offenders()
    for text in found:
        print(text)
    assert not found, f"{len(found)} function(s) over {LIMIT} lines:\n" + "\n".join(found)
