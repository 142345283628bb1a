"""The games' pure parts stay pure: checked, not hoped.

A game's rules (``cogs/<game>/rules.py``) and computer player (``player.py``) import no discord, no PIL,
no database driver and none of the table's code (bot.table, bot.service, bot.storage); its renderer
(``render.py``) no discord and no storage. Checked twice: in the source (every import the module makes,
and those of the project modules it imports, at any depth, inside functions too), and at run time (a
fresh interpreter imports the module alone and lists what got loaded: a package's ``__init__`` counts
there, which is why a game's ``SPEC`` is loaded on first use).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bot.registry import GAMES
from tests.unit.test_architecture import strongly_connected

ROOT = Path(__file__).resolve().parents[2]

NO_TABLE = ("discord", "PIL", "aiosqlite", "asyncpg", "sqlite3", "bot.table", "bot.service", "bot.storage")
FORBIDDEN = {
    "rules": NO_TABLE,
    "player": NO_TABLE,
    "render": ("discord", "aiosqlite", "asyncpg", "sqlite3", "bot.table", "bot.service", "bot.storage"),
}
CASES = [(game, part) for game in GAMES for part in FORBIDDEN]


def _path(module: str) -> Path | None:
    base = ROOT.joinpath(*module.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _imports(module: str) -> set[str]:
    """Every module name the module's source imports, anywhere in it (absolute names)."""
    path = _path(module)
    assert path is not None
    found: set[str] = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        found |= _named(node, package)
    return found


def _named(node: ast.AST, package: str) -> set[str]:
    """The module names an import statement (in ``package``) names; none for any other node."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names}
    if not isinstance(node, ast.ImportFrom):
        return set()
    if node.level:
        base = package.split(".")
        base = base[: len(base) - (node.level - 1)]
        source = ".".join([*base, node.module] if node.module else base)
    else:
        source = node.module or ""
    return {source} | {f"{source}.{a.name}" for a in node.names if _path(f"{source}.{a.name}")}


def _closure(module: str) -> dict[str, str]:
    """Every module imported by ``module``'s source and, through the project's own modules, by theirs:
    name -> the project module that imports it."""
    seen: dict[str, str] = {}
    todo = [module]
    while todo:
        current = todo.pop()
        for name in _imports(current):
            if name in seen:
                continue
            seen[name] = current
            if name.split(".")[0] in ("bot", "cogs") and _path(name) is not None:
                todo.append(name)
    return seen


def _banned(name: str, forbidden: tuple[str, ...]) -> bool:
    return any(name == f or name.startswith(f + ".") for f in forbidden)


@pytest.mark.parametrize(("game", "part"), CASES)
def test_the_source_imports_nothing_it_must_not(game: str, part: str) -> None:
    module = f"cogs.{game}.{part}"
    found = _closure(module)
    bad = sorted(f"{name} (imported by {by})" for name, by in found.items() if _banned(name, FORBIDDEN[part]))
    assert bad == [], f"{module} must stay pure"


@pytest.mark.parametrize(("game", "part"), CASES)
def test_importing_it_alone_loads_nothing_it_must_not(game: str, part: str) -> None:
    module = f"cogs.{game}.{part}"
    code = f"import json, sys; import {module}; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    loaded = json.loads(out.stdout)
    assert [name for name in loaded if _banned(name, FORBIDDEN[part])] == []


def test_the_checks_see_an_impure_module(tmp_path: Path) -> None:
    """The source check finds an import inside a function, and one a project module makes for it."""
    assert _banned("discord.ui", NO_TABLE) and not _banned("discordant", NO_TABLE)
    found = _closure("cogs.procession.commands")  # (the cog: discord, and the table's code)
    assert "discord" in found and any(_banned(name, ("bot.table",)) for name in found)
    assert "bot.errors" in _closure("cogs.procession.rules")  # (through bot.rules.base)


def test_the_specs_are_the_games_parts() -> None:
    for name, spec in GAMES.items():
        assert spec.rules.__name__ == f"cogs.{name}.rules"
        assert spec.present.render.__module__ == f"cogs.{name}.present"
        assert spec.secret == (spec.private is not None)
        assert spec.player.__module__ == f"cogs.{name}.player"
        assert spec.commands.__module__ == f"cogs.{name}.commands"


def test_the_games_ranked_by_score_are_those_whose_scores_rank_every_seat() -> None:
    from bot.registry import SCORE_RANKED

    assert {"dots", "numbers", "divisors"} == SCORE_RANKED  # (Procession has no scores; Up-Down-Stay's
    # winners come from its last deal, where the losers tie)


def test_nothing_in_bot_but_the_registry_names_a_game() -> None:
    """The framework is the same for every game: only bot/registry.py names them (in code: texts
    people read may give an example command)."""
    found = []
    for path in sorted((ROOT / "bot").rglob("*.py")):
        if path.name == "registry.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
                if node.value in GAMES:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}")
            elif isinstance(node, ast.Import | ast.ImportFrom):
                names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
                if any(n.startswith("cogs.") and n.split(".")[1] in GAMES for n in names):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: imports a game")
    assert found == []


# ---- the framework's layers -----------------------------------------------------------------------

# The framework's lower layers are Discord-free: what a game is (bot.rules), a language (bot.i18n),
# the drawing helpers (bot.render), a game's past (bot.memory) and the texts of a table (bot.present)
# import no discord, and none of the table's, the service's or the storage's code, which sit above them.
LOWER = ("bot.rules", "bot.i18n", "bot.render", "bot.memory", "bot.present", "bot.players")
ABOVE = ("discord", "bot.table", "bot.service", "bot.storage", "bot.app", "cogs")
# i18n's two adapters to discord.py: the command tree's Translator, and the developer's tool that
# reads the cogs' command tree to extract its texts (``python -m bot.i18n extract``).
ADAPTERS = ("bot.i18n.commands", "bot.i18n.extract", "bot.i18n.__main__")


def _modules(root: str) -> list[str]:
    """``root`` and, for a package, every module in it."""
    path = _path(root)
    assert path is not None, root
    if path.name != "__init__.py":
        return [root]
    return [root, *(f"{root}.{p.stem}" for p in sorted(path.parent.glob("*.py")) if p.stem != "__init__")]


LOWER_MODULES = [m for root in LOWER for m in _modules(root) if m not in ADAPTERS]


@pytest.mark.parametrize("module", LOWER_MODULES)
def test_the_lower_layers_import_nothing_above_them(module: str) -> None:
    found = _closure(module)
    bad = sorted(f"{name} (imported by {by})" for name, by in found.items() if _banned(name, ABOVE))
    assert bad == [], f"{module} calls back up the layers"


def _at_import(module: str) -> set[str]:
    """The project modules ``module`` imports when it is imported: its module-level imports (not
    those inside functions, nor under ``if TYPE_CHECKING``), each with the packages it is in, less
    ``module``'s own packages (already being imported when it is)."""
    path = _path(module)
    assert path is not None
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.If):
                if "TYPE_CHECKING" not in ast.unparse(node.test):
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                for block in (node.body, *(h.body for h in node.handlers), node.orelse, node.finalbody):
                    visit(block)
            else:
                names.update(_named(node, package))

    visit(ast.parse(path.read_text(encoding="utf-8")).body)
    out: set[str] = set()
    for name in names:
        parts = name.split(".")
        if parts[0] not in ("bot", "cogs"):
            continue
        for end in range(1, len(parts) + 1):
            prefix = ".".join(parts[:end])
            if prefix != module and not module.startswith(prefix + ".") and _path(prefix) is not None:
                out.add(prefix)
    return out


def _project_modules() -> list[str]:
    found = []
    for path in sorted([*(ROOT / "bot").rglob("*.py"), *(ROOT / "cogs").rglob("*.py")]):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other in a cycle (test_architecture's Tarjan)."""
    return strongly_connected({module: dict.fromkeys(targets, 0) for module, targets in graph.items()})


def test_no_import_cycle_among_the_projects_modules() -> None:
    graph = {module: _at_import(module) for module in _project_modules()}
    assert _cycles(graph) == []


def test_the_cycle_check_sees_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    found = _at_import("bot.memory.replay")  # (a module's own packages are being imported already)
    assert {"bot.present", "bot.rules", "bot.rules.base"} <= found and "bot.memory" not in found
