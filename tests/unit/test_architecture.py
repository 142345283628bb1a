"""The shape of the code, read from the source with `ast` (nothing is imported).

- No import cycle among the modules of bot/ and cogs/: every import counts, at any level (inside
  functions, under `if TYPE_CHECKING:`), relative imports resolved, and `from pkg import name`
  counts as importing the submodule `pkg.name` when there is one.
- The storage keeps to aiosqlite's public API: no module of bot/ reaches into a connection's private
  attributes (`conn._execute`, `conn._conn`, ...).

Both failed before the redesign of issue 12.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("bot", "cogs")
REDESIGN = "issue 12: the redesign removes them"


# ---- the modules and their imports --------------------------------------------------------------------


def modules() -> dict[str, Path]:
    """Every module of the packages, by dotted name (a package by its own name, from __init__.py)."""
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def is_package(name: str, known: dict[str, Path]) -> bool:
    return known[name].name == "__init__.py"


def resolve(module: str, level: int, target: str | None, known: dict[str, Path]) -> str:
    """The absolute name of `from <level dots><target> import ...` written in `module`."""
    if level == 0:
        return target or ""
    base = module.split(".")
    if not is_package(module, known):
        base = base[:-1]
    if level > 1:
        base = base[: -(level - 1)]
    return ".".join([*base, target] if target else base)


def imports(module: str, known: dict[str, Path]) -> Iterator[tuple[str, int]]:
    """(imported project module, line) for every import statement anywhere in the module."""
    tree = ast.parse(known[module].read_text(encoding="utf-8"), filename=str(known[module]))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in known:
                    yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            source = resolve(module, node.level, node.module, known)
            if source in known:
                yield source, node.lineno
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                if submodule in known:
                    yield submodule, node.lineno


def import_graph() -> dict[str, dict[str, int]]:
    """module -> {imported module: first line importing it}; a module's import of itself is left out."""
    known = modules()
    graph: dict[str, dict[str, int]] = {}
    for module in known:
        edges: dict[str, int] = {}
        for target, line in imports(module, known):
            if target != module:
                edges.setdefault(target, line)
        graph[module] = edges
    return graph


# ---- cycles ---------------------------------------------------------------------------------------------


def strongly_connected(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """Tarjan's algorithm: the components with more than one module (each one holds a cycle)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def shortest_cycle(graph: dict[str, dict[str, int]], component: list[str], start: str) -> list[str]:
    """The shortest cycle through `start` within its component (breadth first)."""
    members = set(component)
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for nxt in sorted(graph[node]):
            if nxt == start:
                return [*paths[node], start]
            if nxt in members and nxt not in paths:
                paths[nxt] = [*paths[node], nxt]
                queue.append(nxt)
    raise AssertionError(f"no cycle through {start} in {component}")


def cycles(graph: dict[str, dict[str, int]]) -> list[str]:
    """Each cycle: for every module caught in one, the shortest cycle through it (each printed once,
    with the line of each import)."""
    out: list[str] = []
    seen: set[frozenset[tuple[str, str]]] = set()
    for component in strongly_connected(graph):
        for start in component:
            cycle = shortest_cycle(graph, component, start)
            edges = frozenset(itertools.pairwise(cycle))
            if edges not in seen:
                seen.add(edges)
                steps = [f"{a} (line {graph[a][b]})" for a, b in itertools.pairwise(cycle)]
                out.append(" -> ".join([*steps, cycle[-1]]))
    return out


HIDDEN_IMPORTS = """
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.app import QuetBot


def later() -> None:
    import bot.scheduler
"""


def test_the_import_graph_is_read_as_python_reads_it(tmp_path: Path) -> None:
    """The reader finds what the code imports: relative imports, imports inside functions and under
    TYPE_CHECKING, and `from package import submodule`."""
    graph = import_graph()
    assert {"bot.app", "cogs.procession.rules", "cogs.procession", "bot.registry", "cogs"} <= set(graph)
    assert "bot.scheduler" in graph["bot.app"]  # a plain top-level import
    hidden = tmp_path / "hidden.py"
    hidden.write_text(HIDDEN_IMPORTS, encoding="utf-8")
    found = {target for target, _ in imports("bot.hidden", {**modules(), "bot.hidden": hidden})}
    assert {"bot.app", "bot.scheduler"} <= found  # under `if TYPE_CHECKING:`, inside a function
    assert "cogs.procession.spec" in graph["cogs.procession"]  # (inside its __getattr__)
    assert "cogs.procession.rules" in graph["cogs.procession.present"]  # `import cogs.procession.rules`
    assert "cogs.procession" in graph["bot.registry"]  # `from cogs import procession`
    known = modules()
    assert resolve("cogs.procession.render", 1, "rules", known) == "cogs.procession.rules"
    assert resolve("bot.rules", 1, "base", known) == "bot.rules.base"
    assert resolve("cogs.procession.render", 2, "game", known) == "cogs.game"
    assert resolve("bot.app", 1, None, known) == "bot"


def test_no_import_cycles() -> None:
    found = cycles(import_graph())
    assert found == [], "import cycles among the modules of bot/ and cogs/:\n" + "\n".join(found)


# ---- aiosqlite's private parts --------------------------------------------------------------------------

# aiosqlite's own attributes that are not its public API: reaching them couples the storage to one
# version of aiosqlite's internals (the worker thread, its queue, the sqlite3 connection inside).
AIOSQLITE_PRIVATE = frozenset(
    {
        "_execute",
        "_conn",
        "_connection",
        "_connector",
        "_connect",
        "_tx",
        "_thread",
        "_running",
        "_execute_insert",
        "_execute_fetchall",
        "_iter_chunk_size",
        "_cursor",
    }
)


def private_reaches(source: str, where: str) -> Iterator[str]:
    """`x._execute`, `x._conn` and the like where `x` is not the object itself (`self` / `cls`): an
    object's own private attribute of that name is its own business; anything else's is not."""
    for node in ast.walk(ast.parse(source, filename=where)):
        if not isinstance(node, ast.Attribute) or node.attr not in AIOSQLITE_PRIVATE:
            continue
        owner = node.value
        if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
            continue
        yield f"{where}:{node.lineno}: {ast.unparse(node)}"


SAMPLE = """
class Storage:
    async def f(self, conn):
        await self._conn._execute(work, self._conn._conn)
        await conn._execute(work)
        return self._conn, self._execute
"""


def test_the_private_attribute_reader_sees_a_connection_s_internals() -> None:
    """(Passes today.) What the next test looks for, on a sample."""
    found = [hit.split(": ", 1)[1] for hit in private_reaches(SAMPLE, "sample.py")]
    assert sorted(found) == sorted(["self._conn._execute", "self._conn._conn", "conn._execute"])


def test_no_private_aiosqlite_attributes_in_bot() -> None:
    reaches = [
        hit
        for path in sorted((ROOT / "bot").rglob("*.py"))
        for hit in private_reaches(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    ]
    assert reaches == [], "private aiosqlite attributes used:\n" + "\n".join(reaches)
