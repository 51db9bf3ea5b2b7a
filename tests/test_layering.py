"""Import layering: what may import what inside debate_core."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "debate_core"


def imported_modules(path: Path) -> set[str]:
    """Absolute names of the debate_core modules a file imports (relative imports resolved), those
    inside functions and under `if TYPE_CHECKING:` included."""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    package = parts[:-1]  # a module's package; for __init__.py the package itself
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *(node.module.split(".") if node.module else [])])
            out.add(module)
            out.update(f"{module}.{a.name}" for a in node.names)
    return out


PROTOCOLS_DIR = PACKAGE / "protocols"
ROOT = PACKAGE.parent


def protocol_folders() -> list[str]:
    """The protocol folders under debate_core/protocols/ (`common` is the rules they share)."""
    return sorted(p.name for p in PROTOCOLS_DIR.iterdir() if (p / "__init__.py").exists() and p.name != "__pycache__")


def _is_agent(path: Path) -> bool:
    rel = path.relative_to(PROTOCOLS_DIR).parts
    return len(rel) >= 2 and (rel[1] == "agent.py" or rel[1] == "agent")


def test_specs_flows_and_rules_never_import_the_offline_agents():
    # Only a protocol's agent (agent.py or agent/) reaches the offline helpers; its spec, flow and
    # rules never import an agent (the offline provider finds it through `ProtocolSpec.offline_agent`).
    offenders = []
    for path in sorted(PROTOCOLS_DIR.rglob("*.py")):
        if _is_agent(path):
            continue
        bad = sorted(m for m in imported_modules(path) if m.startswith("debate_core.offline")
                     or any(m.startswith(f"debate_core.protocols.{name}.agent") for name in protocol_folders()))
        if bad:
            offenders.append(f"{path.relative_to(PACKAGE)}: {', '.join(bad)}")
    assert offenders == []


def test_the_import_scan_sees_relative_imports():
    # The offline arbiter does import its moderator rules; the scan must resolve that relative import.
    found = imported_modules(PROTOCOLS_DIR / "arbitration" / "agent.py")
    assert "debate_core.protocols.arbitration.rules.authority_order" in found
    assert "debate_core.offline.register" in found


def test_each_protocol_is_one_folder_with_its_spec_rules_agent_and_rows():
    from debate_core.protocols import BASELINES, PROTOCOLS, get_spec

    folders = {get_spec(name).offline_agent.rsplit(".", 2)[1] for name in (*PROTOCOLS, *BASELINES)}
    assert folders == {*PROTOCOLS, "baselines"}
    assert set(protocol_folders()) == folders
    for name in folders:
        for part in ("rules", "agent"):
            assert (PROTOCOLS_DIR / name / f"{part}.py").exists() or (PROTOCOLS_DIR / name / part / "__init__.py").exists()
    # The folders cut by kind of code are gone: the offline package keeps only what agents share.
    assert not (PACKAGE / "moderator").exists()
    assert sorted(p.name for p in (PACKAGE / "offline").iterdir() if p.suffix == ".py") == ["__init__.py", "reading.py"]


def test_nothing_outside_a_protocol_folder_imports_its_rules_or_its_agents():
    # Other code reads a protocol through its spec (stages, reply caps, nouns, offline agent, review
    # threshold, rows) or its public modules (rows.py), never through its moderator rules or its agent.
    files = [*sorted(PACKAGE.rglob("*.py")), *sorted((ROOT / "ui").rglob("*.py")),
             *sorted((ROOT / "pages").rglob("*.py")), *sorted((ROOT / "bench").rglob("*.py")),
             *sorted((ROOT / "scripts").rglob("*.py")), ROOT / "app.py"]
    offenders = []
    for path in files:
        if not path.exists():
            continue
        if path.is_relative_to(PACKAGE):
            scanned = imported_modules(path)
        else:  # outside the package: only absolute imports can reach it
            scanned = {n for n in _absolute_imports(path)}
        for name in protocol_folders():
            if path.is_relative_to(PROTOCOLS_DIR / name):
                continue
            bad = sorted(m for m in scanned for part in ("rules", "agent")
                         if m == f"debate_core.protocols.{name}.{part}"
                         or m.startswith(f"debate_core.protocols.{name}.{part}."))
            if bad:
                offenders.append(f"{path.relative_to(ROOT)}: {', '.join(bad)}")
    assert offenders == []


def _absolute_imports(path: Path) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
    return out


def test_the_store_does_not_load_the_engine():
    code = "import sys, debate_core.store; print('debate_core.engine' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=PACKAGE.parent)
    assert out.stdout.strip() == "False"


# What the store sits below: it is handed events and rows, so it must not know who produces them.
ABOVE_THE_STORE = ("debate_core.engine", "debate_core.protocols", "debate_core.runtime",
                   "debate_core.offline", "debate_core.providers", "debate_core.cli", "debate_core.worker",
                   "debate_core.evaluation")


def test_the_store_imports_no_engine_protocol_or_caller():
    offenders = []
    for path in sorted((PACKAGE / "store").glob("*.py")):
        bad = sorted(m for m in imported_modules(path)
                     if any(m == above or m.startswith(above + ".") for above in ABOVE_THE_STORE))
        if bad:
            offenders.append(f"{path.relative_to(PACKAGE)}: {', '.join(bad)}")
    assert offenders == []


def test_no_store_module_is_over_600_lines():
    long = {path.name: n for path in (PACKAGE / "store").glob("*.py")
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > 600}
    assert long == {}


# ---------------------------------------------------------------------------
# No import circles
# ---------------------------------------------------------------------------

# Circles still known among debate_core modules, each as the set of modules it joins. Empty now;
# a package being split (store/, cli/) that leaves one behind lists it here, with a comment, until
# it is gone, and an entry whose circle is gone must be removed, so the list only ever shrinks.
KNOWN_CIRCLES: list[frozenset[str]] = []


def module_graph() -> dict[str, set[str]]:
    """debate_core module -> the debate_core modules it imports, at the top, inside a function or
    for annotations only (a module that needs another's types belongs above it). Importing `a.b.c` also runs
    the packages `a.b` and `a` first, so those count as imported too, unless the importer is inside
    them (then they are already being imported)."""
    modules: dict[str, Path] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path

    def module_of(name: str) -> str | None:
        while name and name not in modules:  # `pkg.mod.attr` -> `pkg.mod`
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets: set[str] = set()
        for imported in imported_modules(path):
            found = module_of(imported)
            while found:  # the module and each package above it
                if not (name + ".").startswith(found + "."):
                    targets.add(found)
                found = module_of(found.rpartition(".")[0])
        graph[name] = targets
    return graph


def import_circles(graph: dict[str, set[str]]) -> list[tuple[frozenset[str], list[str]]]:
    """Each circle (a strongly connected group of two or more modules) with a chain round it,
    `a, b, ..., a`, each importing the next."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(v: str) -> None:  # Tarjan's algorithm
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(group)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return [(frozenset(group), _chain(graph, group)) for group in groups]


def _chain(graph: dict[str, set[str]], group: set[str]) -> list[str]:
    """The shortest way round a circle, from its first module by name back to it."""
    start = min(group)
    paths = {start: [start]}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(graph[v] & group):
            if w == start:
                return [*paths[v], start]
            if w not in paths:
                paths[w] = [*paths[v], w]
                queue.append(w)
    raise AssertionError(f"no way round {sorted(group)}")


def test_the_circle_finder_finds_a_circle_and_names_it_as_a_chain():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert import_circles(graph) == [(frozenset("abc"), ["a", "b", "c", "a"])]


def test_the_graph_sees_imports_inside_functions_and_the_packages_they_run():
    graph = module_graph()
    # review.py reads the app settings inside require_supervisor; profiles.py imports
    # core.settings, whose package runs first.
    assert "debate_core.app_settings" in graph["debate_core.review"]
    assert {"debate_core.core", "debate_core.core.settings"} <= graph["debate_core.profiles"]
    # The settings checks read a spec through a structural type, so they sit below base.py.
    assert "debate_core.protocols.base" not in graph["debate_core.protocols.validation"]


def test_no_import_circles_among_debate_core_modules():
    circles = import_circles(module_graph())
    unexpected = [f"{' -> '.join(chain)} (the circle joins {', '.join(sorted(group))})"
                  for group, chain in circles if group not in KNOWN_CIRCLES]
    assert unexpected == [], "import circles (each module imports the next):\n" + "\n".join(unexpected)
    gone = [sorted(k) for k in KNOWN_CIRCLES if k not in {group for group, _ in circles}]
    assert gone == [], f"these known circles are gone; remove them from KNOWN_CIRCLES: {gone}"
